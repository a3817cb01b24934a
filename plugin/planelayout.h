// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// How a negotiated video format maps onto the engine's pitched plane views: one entry per memory plane, built from
// GstVideoFormatInfo (no per-format code).
#include <cudafilters/image.hpp>

#include <gst/video/video.h>

#include <array>
#include <cstddef>
#include <vector>

namespace gstcudafilters {

using cudafilters::ImageView;
using cudafilters::SampleBits;
using cudafilters::SampleType;

struct PlaneLayout {
    int plane = 0;
    int width = 0;               // samples per row of this plane (subsampled for chroma)
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
};

// Per plane of `info`: sizes, channels, sample type and which channels are colour.
std::vector<PlaneLayout> planeLayouts(const GstVideoInfo& info);

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
