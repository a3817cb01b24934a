// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/convolve_crossover.hpp>

#include <climits>

namespace cudafilters {

namespace {
constexpr long long kQqvga = 160LL * 120;
constexpr long long kQvga = 320LL * 240;
constexpr long long kAny = LLONG_MAX;
}  // namespace

// CUDA: a conservative model until `bench-convolve --fft` has been run on the GPU (replace these rows with the ones
// it prints, which measure 160x120, 640x480, 1080p and 4K). The FFT path is estimated at 40-80 µs at 1080p for any K
// and at 15-25 µs on small frames (five launches). The compiled direct kernels are kept (K = 31, the largest, takes
// 88 µs at 1080p GRAY8 on an H200: too close to the estimate to leave). The generic kernel pays a border lookup and a
// global load per tap, an estimated 3-6 taps per ns: it gives way where that makes several times the FFT's estimate,
// from 441 taps (K = 21) a sample at 1080p, 63² on frames up to QVGA, 127² up to 160x120.
//
// CPU: measured with `bench-convolve-cpu --runs 5` (OpenCV backend, 1080p, random full-rank kernels) on the
// development machine (2 cores, shared), 2026-11-24: direct / DFT ms, u8: K = 15 34.8 / 41.5, K = 21 51.7 / 44.0,
// K = 31 127 / 52.7, K = 63 424 / 62.3; u16 alike. The DFT first won at K = 21 in one run and at K = 31 in two (the
// machine was loaded); 31 is the conservative choice. Both costs grow with the frame's area, so one row holds for
// every size.
const std::vector<FftCrossover>& fftCrossoverTable() {
    static const std::vector<FftCrossover> table = {
        {Backend::Cuda, SampleType::U8, kQqvga, 0, 127},
        {Backend::Cuda, SampleType::U8, kQvga, 0, 63},
        {Backend::Cuda, SampleType::U8, kAny, 0, 21},
        {Backend::Cuda, SampleType::U16, kQqvga, 0, 127},
        {Backend::Cuda, SampleType::U16, kQvga, 0, 63},
        {Backend::Cuda, SampleType::U16, kAny, 0, 21},
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
    if (plan.separable) return false;
    const int k = fftCrossoverSize(backend, plan.type, width, height, genericDirect);
    return k > 0 && plan.kernelWidth * plan.kernelHeight >= k * k;
}

}  // namespace cudafilters
