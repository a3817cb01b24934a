// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// cudahisteq's settings and the work built from them: one Equalizer for the plane holding luma or the packed RGB
// pixels, and the per-frame statistics posted as element messages. The element (gstcudahisteq.cpp) binds the
// settings to its properties.
#include "base/filterwork.h"
#include "base/planelayout.h"

#include <cudafilters/histeq.hpp>

#include <gst/base/gstbasetransform.h>

#include <cstdint>
#include <memory>
#include <vector>

#define DEFAULT_MODE cf::EqualizeMode::Global
#define DEFAULT_CLIP_LIMIT 2.0
#define DEFAULT_TILES 8
#define DEFAULT_SMOOTHING 0.0
#define MAX_SMOOTHING 0.999
#define DEFAULT_COLOR_MODE cf::ColorMode::Luma
#define DEFAULT_POST_MESSAGES FALSE

namespace gstcudafilters {

namespace cf = cudafilters;

struct HistEqSettings {
    cf::EqualizeMode mode = DEFAULT_MODE;
    double clipLimit = DEFAULT_CLIP_LIMIT;
    int tilesX = DEFAULT_TILES;
    int tilesY = DEFAULT_TILES;
    double smoothing = DEFAULT_SMOOTHING;
    cf::ColorMode colorMode = DEFAULT_COLOR_MODE;
    bool postMessages = DEFAULT_POST_MESSAGES;
};

// The engine description the settings ask for.
cf::EqualizeDesc describe(const HistEqSettings& s);
// The plan for the negotiated plane (its tiles no more than its pixels). Throws cf::InvalidArgument.
cf::EqualizePlan histeqPlan(const HistEqSettings& s, const PlaneLayout& plane);

// One Equalizer for all slots: it orders its own work across streams, so the temporal state follows frame order.
// A packed 4:2:2 plane is equalized as Y/chroma pairs (lumaPairs).
class HistEqWork final : public FilterWork {
public:
    HistEqWork(std::unique_ptr<cf::Equalizer> equalizer, const PlaneLayout& layout, int slots)
        : equalizer_(std::move(equalizer)), layout_(layout), frameOfSlot_(std::size_t(slots), 0) {}

    // Takes a plan of the same shape for the same plane in place, the temporal state kept; false: a new work is
    // needed (the Equalizer's retune changes all or nothing).
    bool retune(const cf::EqualizePlan& plan, int plane) { return plane == layout_.plane && equalizer_->retune(plan); }

    bool writesPlane(int plane) const override { return plane == layout_.plane; }

    void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                 GpuStream stream) override {
        frameOfSlot_[std::size_t(slot)] = equalizer_->frameCount();
        const ImageView& in = src[std::size_t(layout_.plane)];
        const ImageView& out = dst[std::size_t(layout_.plane)];
        if (layout_.packed422()) equalizer_->process(lumaPairs(in, layout_), lumaPairs(out, layout_), stream);
        else equalizer_->process(in, out, stream);
    }

    void frameDone(GstElement* element, GstBuffer* out, int slot) override {
        if (!equalizer_->plan().statistics) return;
        cf::FrameStatistics stats;
        if (!equalizer_->statistics(stats, frameOfSlot_[std::size_t(slot)])) return;
        post(element, out, stats);
    }

    bool capturable() const override { return equalizer_->capturable(); }
    bool keepsState() const override { return true; }
    bool readsResultsWhenDone() const override { return equalizer_->plan().statistics; }

    void reset() override { equalizer_->reset(); }

    std::shared_ptr<FilterWork> rebuild(Backend backend, int slots) const override {
        return std::make_shared<HistEqWork>(cf::makeEqualizer(equalizer_->plan(), backend), layout_, slots);
    }

private:
    static void post(GstElement* element, GstBuffer* out, const cf::FrameStatistics& stats) {
        GstBaseTransform* trans = GST_BASE_TRANSFORM(element);
        const GstClockTime timestamp = GST_BUFFER_PTS(out);
        const bool timed = trans->segment.format == GST_FORMAT_TIME;  // else the conversions would be CRITICALs
        GstStructure* s = gst_structure_new("cudahisteq", "timestamp", G_TYPE_UINT64, timestamp, "stream-time",
            G_TYPE_UINT64, timed ? gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, timestamp) : GST_CLOCK_TIME_NONE, "running-time",
            G_TYPE_UINT64, timed ? gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, timestamp) : GST_CLOCK_TIME_NONE, "duration",
            G_TYPE_UINT64, GST_BUFFER_DURATION(out), "frame", G_TYPE_UINT64, guint64(stats.frame), "samples",
            G_TYPE_UINT64, guint64(stats.samples), "mean", G_TYPE_DOUBLE, stats.mean, "min", G_TYPE_UINT,
            guint(stats.min), "max", G_TYPE_UINT, guint(stats.max), nullptr);
        GValue histogram = G_VALUE_INIT;
        gst_value_array_init(&histogram, cf::kStatisticsBins);
        GValue bin = G_VALUE_INIT;
        g_value_init(&bin, G_TYPE_UINT);
        for (std::uint32_t count : stats.histogram) {
            g_value_set_uint(&bin, count);
            gst_value_array_append_value(&histogram, &bin);
        }
        g_value_unset(&bin);
        gst_structure_take_value(s, "histogram", &histogram);
        gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), s));
    }

    std::unique_ptr<cf::Equalizer> equalizer_;
    PlaneLayout layout_;  // the plane equalized
    std::vector<std::uint64_t> frameOfSlot_;
};

}  // namespace gstcudafilters
