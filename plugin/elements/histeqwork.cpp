// SPDX-License-Identifier: LGPL-2.1-or-later
// cudahisteq's plan (see histeqwork.h).
#include "elements/histeqwork.h"

#include <algorithm>

namespace gstcudafilters {

cf::EqualizeDesc describe(const HistEqSettings& s) {
    cf::EqualizeDesc desc;
    desc.mode = s.mode;
    desc.clipLimit = s.clipLimit;
    desc.tilesX = s.tilesX;
    desc.tilesY = s.tilesY;
    desc.smoothing = s.smoothing;
    desc.colorMode = s.colorMode;
    desc.statistics = s.postMessages;
    return desc;
}

cf::EqualizePlan histeqPlan(const HistEqSettings& s, const PlaneLayout& plane) {
    cf::EqualizeDesc desc = describe(s);
    desc.tilesX = std::min(desc.tilesX, plane.packed422() ? plane.pairsWidth : plane.width);  // no more tiles than pixels
    desc.tilesY = std::min(desc.tilesY, plane.height);
    cf::ChannelOrder order;
    int channels = 1;
    if (plane.rgb) {
        channels = plane.channels;
        order.red = plane.componentChannel[GST_VIDEO_COMP_R];
        order.green = plane.componentChannel[GST_VIDEO_COMP_G];
        order.blue = plane.componentChannel[GST_VIDEO_COMP_B];
    }
    // YUV planes: Y alone is a 1-channel view of plane 0 when the plane holds nothing else; packed 4:2:2 Y the
    // equalized channel of Y/chroma pairs.
    if (plane.packed422()) channels = 2;
    return cf::EqualizePlan::make(desc, plane.type, channels, order, channels == 1 ? plane.bits : cf::SampleBits{},
                                  plane.pairsLumaChannel);
}

}  // namespace gstcudafilters
