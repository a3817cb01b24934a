// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#if defined(__CUDACC__)
#define CUDAFILTERS_HD __host__ __device__ __forceinline__
#else
#define CUDAFILTERS_HD inline
#endif

namespace cudafilters {

// Names follow OpenCV: reflect = abcd|dcba, reflect101 = abcd|cba.
enum class Border { Replicate, Reflect, Reflect101, Constant, Wrap };

// Maps a coordinate outside [0, length) into it, as OpenCV's borderInterpolate does (repeated reflection when the
// kernel is wider than the image). Returns -1 for Border::Constant when p is outside.
CUDAFILTERS_HD int borderIndex(int p, int length, Border border) {
    if (static_cast<unsigned>(p) < static_cast<unsigned>(length)) return p;
    switch (border) {
    case Border::Replicate:
        return p < 0 ? 0 : length - 1;
    case Border::Reflect:
    case Border::Reflect101: {
        if (length == 1) return 0;
        const int delta = border == Border::Reflect101 ? 1 : 0;
        do {
            if (p < 0)
                p = -p - 1 + delta;
            else
                p = length - 1 - (p - length) - delta;
        } while (static_cast<unsigned>(p) >= static_cast<unsigned>(length));
        return p;
    }
    case Border::Wrap:
        p %= length;
        return p < 0 ? p + length : p;
    case Border::Constant:
    default:
        return -1;
    }
}

}  // namespace cudafilters
