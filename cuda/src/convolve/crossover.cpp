// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/convolve_crossover.hpp>

#include <climits>

namespace cudafilters {

namespace {
constexpr long long kQqvga = 160LL * 120;
constexpr long long kVga = 640LL * 480;
constexpr long long k1080p = 1920LL * 1080;
constexpr long long kAny = LLONG_MAX;
}  // namespace

// CUDA: measured on an NVIDIA H200 (driver 580.159.04, CUDA 13.0) on 2026-11-24 with
// `build-bench/bench-convolve --fft --runs 30 --frames 4` (built by scripts/gpu/build-bench.sh on the GPU host; raw
// output in docs/raw/2026-11-24-h200-bench-convolve-fft.md): 1 channel, random full-rank kernels, median of 9, at
// 160x120, 640x480, 1080p and 4K; each row holds up to the size measured, the 4K row for any larger frame. A crossover
// is the smallest K measured from which the FFT stayed faster. The FFT takes 26-35 µs at 160x120, 35-57 µs at
// 640x480, 79-124 µs at 1080p and 295-363 µs at 4K, at any K. Compiled direct kernels (K = 9, 15, 31 measured): only
// K = 31 ever loses, on frames up to 640x480 (160x120: 67 vs 28 µs) and at 1080p u8 (89.7 vs 87.5 µs; u16 a tie,
// 88.9 µs each, so direct); at 4K direct K = 31 wins (u8 317 vs 355 µs, u16 317 vs 359 µs). The generic kernel
// (K = 11, 13, 17, …, 255 measured) loses from K = 11 on frames from 640x480 up (1080p: 298 vs 88 µs) and from
// K = 13 at 160x120 (29.3 vs 27.8 µs). Its smaller sizes (even K = 4 … 10), measured the same way on 2026-11-24
// (second session, raw output in docs/raw/2026-11-24-h200-bench-convolve-interleaved.md): it loses from K = 6 at
// 1080p and 4K (u8 1080p: 100.6 vs 88.6 µs; 4K: 379 vs 304 µs) and from K = 10 at 640x480 (51.1 vs 37.3 µs); the
// generic rows below are those crossovers. (1080p u16 compiled K = 31: 90.0 direct vs 88.9 FFT, a tie: direct.)
//
// CPU: measured with `bench-convolve-cpu --runs 5` (OpenCV backend, 1080p, random full-rank kernels) on the
// development machine (2 cores, shared), 2026-11-24: direct / DFT ms, u8: K = 15 34.8 / 41.5, K = 21 51.7 / 44.0,
// K = 31 127 / 52.7, K = 63 424 / 62.3; u16 alike. The DFT first won at K = 21 in one run and at K = 31 in two (the
// machine was loaded); 31 is the conservative choice. Both costs grow with the frame's area, so one row holds for
// every size.
const std::vector<FftCrossover>& fftCrossoverTable() {
    static const std::vector<FftCrossover> table = {
        {Backend::Cuda, SampleType::U8, kQqvga, 31, 13},
        {Backend::Cuda, SampleType::U8, kVga, 31, 10},
        {Backend::Cuda, SampleType::U8, k1080p, 31, 6},
        {Backend::Cuda, SampleType::U8, kAny, 0, 6},
        {Backend::Cuda, SampleType::U16, kQqvga, 31, 13},
        {Backend::Cuda, SampleType::U16, kVga, 31, 10},
        {Backend::Cuda, SampleType::U16, k1080p, 0, 6},
        {Backend::Cuda, SampleType::U16, kAny, 0, 6},
        {Backend::Cpu, SampleType::U8, kAny, 31, 31},
        {Backend::Cpu, SampleType::U16, kAny, 31, 31},
    };
    return table;
}

int fftCrossoverSize(Backend backend, SampleType type, int width, int height, bool genericDirect) {
    const long long pixels = static_cast<long long>(width) * height;
    for (const FftCrossover& row : fftCrossoverTable())
        if (row.backend == backend && row.type == type && pixels <= row.maxPixels)
            return genericDirect ? row.genericKernelSize : row.kernelSize;
    return 0;
}

bool fftChosen(Backend backend, const ConvolvePlan& plan, int width, int height, bool genericDirect) {
    if (backend == Backend::Reference || plan.isIdentity()) return false;
    switch (plan.algorithm) {
    case ConvolveAlgorithm::Direct: return false;
    case ConvolveAlgorithm::Fft: return true;
    case ConvolveAlgorithm::Auto: break;
    }
    // Separable passes cost 2K per sample: they stay. A separable kernel without compiled passes would sum all K²
    // taps in the generic kernel, and is compared as such.
    if (plan.separable && !genericDirect) return false;
    const int k = fftCrossoverSize(backend, plan.type, width, height, genericDirect);
    return k > 0 && plan.kernelWidth * plan.kernelHeight >= k * k;
}

}  // namespace cudafilters
