// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/convolve_crossover.hpp>

#include <climits>

namespace cudafilters {

namespace {
constexpr long long kQvga = 320LL * 240;
constexpr long long kAny = LLONG_MAX;
}  // namespace

// CUDA: a conservative model until bench-convolve --crossover has been run on the GPU (replace these rows with what
// it prints). Below QVGA the five launches of the FFT path outweigh the work; above, the direct path has templated
// kernels up to K = 31 (1080p GRAY8 K = 31: 88 µs on an H200) and the generic kernel beyond, estimated at several
// times that from K = 41 on, while the FFT path is estimated at 40-80 µs at 1080p for any K.
//
// CPU: measured with bench-convolve-cpu (the OpenCV backend, one plane at a time) on the development machine, 2
// cores, 2026-11-24 — see docs/benchmarks.md.
const std::vector<FftCrossover>& fftCrossoverTable() {
    static const std::vector<FftCrossover> table = {
        {Backend::Cuda, SampleType::U8, kQvga, 0},
        {Backend::Cuda, SampleType::U8, kAny, 41},
        {Backend::Cuda, SampleType::U16, kQvga, 0},
        {Backend::Cuda, SampleType::U16, kAny, 41},
        {Backend::Cpu, SampleType::U8, kAny, 31},
        {Backend::Cpu, SampleType::U16, kAny, 31},
    };
    return table;
}

int fftCrossoverSize(Backend backend, SampleType type, int width, int height) {
    const long long pixels = static_cast<long long>(width) * height;
    for (const FftCrossover& row : fftCrossoverTable())
        if (row.backend == backend && row.type == type && pixels <= row.maxPixels) return row.kernelSize;
    return 0;
}

bool fftChosen(Backend backend, const ConvolvePlan& plan, int width, int height) {
    if (backend == Backend::Reference || plan.isIdentity()) return false;
    switch (plan.algorithm) {
    case ConvolveAlgorithm::Direct: return false;
    case ConvolveAlgorithm::Fft: return true;
    case ConvolveAlgorithm::Auto: break;
    }
    if (plan.separable) return false;
    const int k = fftCrossoverSize(backend, plan.type, width, height);
    return k > 0 && plan.kernelWidth * plan.kernelHeight >= k * k;
}

}  // namespace cudafilters
