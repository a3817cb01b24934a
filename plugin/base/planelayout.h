// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// How a negotiated video format maps onto the engine's pitched plane views: one entry per memory plane, built from
// GstVideoFormatInfo (no per-format code).
#include <cudafilters/image.hpp>

#include <gst/video/video.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace gstcudafilters {

using cudafilters::ImageView;
using cudafilters::SampleBits;
using cudafilters::SampleType;

// Packed 4:2:2 (YUY2, UYVY, YVYU) is one plane seen as its macropixels (Y0 U Y1 V in the format's order: 4 channels,
// half the width); filters of luma see the same memory as Y/chroma pairs (lumaPairs: 2 channels, full width).
struct PlaneLayout {
    int plane = 0;
    int width = 0;               // pixels per row of this plane (subsampled for chroma; macropixels of packed 4:2:2)
    int height = 0;
    int channels = 1;            // interleaved components (padding and alpha included): RGBA 4, RGB 3, NV12 UV 2
    SampleType type = SampleType::U8;
    SampleBits bits;             // where the levels lie in the samples (P010: 10 bits at bit 6, I420_10LE: at bit 0)
    std::size_t rowBytes = 0;
    unsigned colorMask = 0;      // channels holding colour (R, G, B or Y, U, V), not alpha or padding
    bool luma = false;           // holds Y (YUV) or grey
    bool yuv = false;
    bool rgb = false;
    std::array<int, 4> componentChannel{{-1, -1, -1, -1}};  // GstVideoFormatInfo component → channel, -1 elsewhere
    int pairsWidth = 0;          // packed 4:2:2: Y samples per row (the frame's width); 0 for other planes
    int pairsLumaChannel = 0;    // packed 4:2:2: Y's channel in a Y/chroma pair (YUY2, YVYU 0; UYVY 1)

    bool packed422() const { return pairsWidth > 0; }
    unsigned chromaMask() const { return colorMask & ~(0x5u << pairsLumaChannel); }  // packed 4:2:2: U and V
};

// Per plane of `info`: sizes, channels, sample type and which channels are colour.
std::vector<PlaneLayout> planeLayouts(const GstVideoInfo& info);

// Why frames of `info` cannot be filtered (empty when they can): packed 4:2:2 of odd width, whose last chroma pair
// would belong to a single pixel.
std::string layoutProblem(const GstVideoInfo& info, const std::vector<PlaneLayout>& planes);

// The Y/chroma pairs of a packed 4:2:2 plane view (the same memory as 2-channel pixels of the full width).
ImageView lumaPairs(const ImageView& plane, const PlaneLayout& layout);

// True when both describe planes of the same count, sizes, channels and sample type (planes can be copied).
bool sameLayout(const std::vector<PlaneLayout>& a, const std::vector<PlaneLayout>& b);

// Views of the planes of a mapped frame (host memory).
std::vector<ImageView> frameViews(const std::vector<PlaneLayout>& planes, const GstVideoFrame& frame);

// Views of planes laid out in one pitched buffer (device memory): plane p at offsets[p] with pitches[p].
std::vector<ImageView> bufferViews(const std::vector<PlaneLayout>& planes, void* base,
                                   const std::vector<std::size_t>& offsets, const std::vector<std::size_t>& pitches);

// Copies the rows of one plane between two host views (padding untouched).
void copyPlane(const ImageView& src, const ImageView& dst);
// The same in row bands on up to 4 threads for planes of several MB (one thread copies ~10 GB/s, four ~26 GB/s on
// the GPU host): the copy of a pageable frame that is not registered, on the streaming thread.
void copyPlaneParallel(const ImageView& src, const ImageView& dst);

}  // namespace gstcudafilters
