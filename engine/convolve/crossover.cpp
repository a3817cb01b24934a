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

// CUDA: chosen with `build-bench/bench-convolve --fft --runs 30 --frames 4` (built by scripts/gpu/build-bench.sh on
// the GPU host), which times direct summation against the FFT for 1 channel and random full-rank kernels at 160x120,
// 640x480, 1080p and 4K and ends with the rows of this table; each row holds up to the size measured, the 4K row for
// any larger frame. A crossover is the smallest K measured from which the FFT stays faster; the FFT's cost hardly
// depends on K. Of the compiled direct kernels (K = 9, 15, 31 measured) only K = 31 ever loses, on frames up to
// 640x480 and at 1080p u8 (1080p u16 is a tie: direct); at 4K direct K = 31 wins. The generic kernel (K = 4 … 255
// without compiled kernels) loses from K = 13 at 160x120, from K = 10 at 640x480 and from K = 6 at 1080p and above.
//
// CPU: chosen with `bench-convolve-cpu --runs 5` (OpenCV backend, 1080p, random full-rank kernels): the DFT starts to
// win between K = 21 and K = 31, depending on how loaded the machine is; 31 is the conservative choice. Both costs
// grow with the frame's area, so one row holds for every size.
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
    if (plan.isIdentity()) return false;
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
