// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Caps whose frames GStreamer's video layout cannot hold: GstVideoInfo keeps strides in gint and refuses frames past
// G_MAXINT bytes, or (a row of 2^31 bytes) returns a negative stride. The element names the sizes instead of
// failing the negotiation with no reason on the bus.
#include <gst/video/video.h>

#include <string>

namespace gstcudafilters {

// Why the frames of fixed video caps cannot be laid out (empty when they can). `info` is what
// gst_video_info_from_caps made of them, or null when it failed.
std::string frameSizeProblem(GstCaps* caps, const GstVideoInfo* info);

}  // namespace gstcudafilters
