// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Whether an input buffer holds a frame of the negotiated caps, and if not, why, in words a user can act on.
#include <gst/video/video.h>

#include <string>

namespace gstcudafilters {

// Empty when `buffer` holds a whole frame of `info` (in the caps' layout, or in the layout of its GstVideoMeta).
// Otherwise what is wrong (its size against the bytes that layout needs) and how to provide the frame: a
// GstVideoMeta with the real strides, or rows padded to the caps' stride. GStreamer maps a buffer with a meta
// without checking that the planes fit in it, so this runs before mapping.
std::string inputLayoutProblem(const GstVideoInfo& info, GstBuffer* buffer);

}  // namespace gstcudafilters
