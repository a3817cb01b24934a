// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// cv::equalizeHist's LUT entry by entry, compiled for the host core and for the CUDA kernels (which build the LUT in
// parallel, each thread from its bins' cumulative counts), so that both compute the same bits.
#include <cudafilters/border.hpp>  // CUDAFILTERS_HD

#include <cmath>
#include <cstdint>

namespace cudafilters::core {

// IEEE single-precision products and quotients rounded to nearest, also under nvcc's fast-math flags.
CUDAFILTERS_HD float productRn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
CUDAFILTERS_HD float quotientRn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

// The terms of the LUT of a histogram of `bins` levels holding `total` samples: `first` is its first occupied bin
// (`bins` when it is empty) and `firstCount` that bin's count.
struct EqualizeTerms {
    int first;
    std::uint32_t firstCount;
    bool single;  // every sample in `first`
    float scale;  // (bins − 1) / (total − firstCount)
};

CUDAFILTERS_HD EqualizeTerms equalizeTerms(int bins, int first, std::uint32_t firstCount, std::uint32_t total) {
    EqualizeTerms t;
    t.first = first;
    t.firstCount = firstCount;
    t.single = first < bins && firstCount == total;
    t.scale = first < bins && !t.single ? quotientRn(float(bins - 1), float(total - firstCount)) : 0.0f;
    return t;
}

// The entry of `bin`, whose inclusive cumulative count is `cumulative`: the identity for an empty histogram, `first`
// everywhere when one level holds every sample, else 0 up to `first` and then
// saturate_cast(float(cumulative − firstCount) · scale) (round half to even).
CUDAFILTERS_HD int equalizedLevel(const EqualizeTerms& t, int bins, int bin, std::uint32_t cumulative) {
    if (t.first >= bins) return bin;
    if (t.single) return t.first;
    if (bin <= t.first) return 0;
    const int level = int(rintf(productRn(float(cumulative - t.firstCount), t.scale)));
    return level < 0 ? 0 : level > bins - 1 ? bins - 1 : level;
}

}  // namespace cudafilters::core
