// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// GstCfFilter: the abstract base of the project's elements. It negotiates the video formats (same in and out,
// unless a subclass's transform_formats maps them),
// runs the frame pipeline (pipeline-depth slots in flight, in-order output, drain on EOS and caps, drop on flush),
// offers and uses page-locked buffer pools, chooses the backend (CUDA or CPU) and reports latency. A subclass only
// turns its settings and the negotiated format into a FilterWork (engine objects) in make_work.
#include "base/filterwork.h"

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <memory>
#include <string>

G_BEGIN_DECLS

#define GST_TYPE_CF_FILTER (gst_cf_filter_get_type())
G_DECLARE_DERIVABLE_TYPE(GstCfFilter, gst_cf_filter, GST, CF_FILTER, GstBaseTransform)

typedef enum {
    GST_CF_FILTER_BACKEND_AUTO,
    GST_CF_FILTER_BACKEND_CUDA,
    GST_CF_FILTER_BACKEND_CPU,
} GstCfFilterBackend;

#define GST_TYPE_CF_FILTER_BACKEND (gst_cf_filter_backend_get_type())
GType gst_cf_filter_backend_get_type(void);

struct _GstCfFilterClass {
    GstBaseTransformClass parent_class;

    // Builds the engine objects for the current settings (copied under the object lock) and `config`.
    // Returns nullptr when the settings leave every frame unchanged (the element then runs in passthrough).
    // Throws cudafilters::InvalidArgument (a user-actionable message) or cudafilters::CudaError.
    std::shared_ptr<gstcudafilters::FilterWork> (*make_work)(GstCfFilter* filter,
                                                             const gstcudafilters::WorkConfig& config);

    // Checks the settings on their own, before any format is known (at start). Throws cudafilters::InvalidArgument.
    void (*check_settings)(GstCfFilter* filter);

    // Optional: for a subclass whose output format can differ from its input's (same size). Given `caps` on the pad
    // `direction`, returns the caps (transfer full) the other pad can have: the structures of `caps` with another
    // format and every other field kept, in order of preference (the first is fixated on). Returns nullptr to keep
    // the caps as they are (the default: the same format out as in). When nothing maps, returns empty caps and sets
    // `why` to a message naming the setting and what it allows; the base posts it (LIBRARY/SETTINGS) when the caps
    // are the fixed input caps being negotiated. Called with the object lock not held, from any thread.
    GstCaps* (*transform_formats)(GstCfFilter* filter, GstPadDirection direction, GstCaps* caps, std::string* why);

    // Set by SettingsProperties::install (settingsproperties.h). After make_work: its settings are in use
    // (settings_applied), or were refused while the previous work stays (settings_refused: the properties it
    // changed are put back to the values in effect; returns them as "name=value" for the warning).
    void (*settings_applied)(GstCfFilter* filter);
    std::string (*settings_refused)(GstCfFilter* filter);

    gpointer padding[GST_PADDING - 3];
};

// Called by subclasses after a setting changed: the next frame uses a work object rebuilt from the new settings.
void gst_cf_filter_settings_changed(GstCfFilter* filter);

// The pad template caps shared by the elements, in CUDA memory (where the build has it) and system memory, with
// `more_formats` (a comma-separated list, or null) beside the formats every element takes.
GstCaps* gst_cf_filter_template_caps(const char* more_formats);

// The element metadata of a subclass: its name and description, with the classification and author every element of
// the plugin shares.
void gst_cf_filter_class_set_metadata(GstCfFilterClass* klass, const char* longname, const char* description);

G_END_DECLS
