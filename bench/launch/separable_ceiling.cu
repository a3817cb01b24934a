// SPDX-License-Identifier: LGPL-2.1-or-later
// How fast any bit-exact CUDA-core separable K × K filter of a u8 frame can be, timed as bench-convolve times the real
// one (kernel_timing.hpp: a 256 MB memset queued ahead of the start event, median of the runs, inputs rotating over
// 4 frames of random bytes). Each ceiling kernel keeps only part of what such a filter must do:
//  - nothing: one empty block (what the timing counts for no work at all);
//  - copy: each 16-byte word of the frame read and written once (the byte floor);
//  - fmas: the 2K FMAs an output sample needs, on values made from the thread index, nothing read, nothing written;
//  - chains: each 16-byte word read once, its 16 samples turned into floats once, a K-tap FMA chain a sample for the
//    row pass and another for the column pass (on the thread's own row results), rounded and packed, one 16-byte
//    store, with the helpers convolve_separable_staged_u8.cu uses (wordSample, roundToInt, packBytes). No halo, no shared
//    memory, no recomputed rows: every instruction a real kernel needs once an output, and nothing it needs for its
//    neighbours.
// Each on a grid of a thread a word, and on a grid of the blocks the SMs hold at once striding over the words (no
// partial last wave).
// Prints µs and the share of FP32 FMA peak (SMs × 128 lanes × the boost clock) that 2K FMAs an output sample make of it.
// Built and run on the GPU host by `bench/tools/launch-tool.sh separable-ceiling`.
#include "convolve_device.cuh"
#include "kernel_timing.hpp"

#include <cudafilters/cuda_raii.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kPerThread = 16;  // samples: one 16-byte word
constexpr int kThreads = 256;

template <int K> struct Taps {
    float row[K];
    float column[K];
};

// Row chain of sample i over the thread's samples i … i + K − 1 (wrapping within the 16), column chain over the row
// results i + 3 … (any 16 values a column chain could take): 2K FMAs a sample, each chain in tap order.
template <int K> __device__ __forceinline__ void filterSixteen(const Taps<K>& taps, const float (&s)[kPerThread],
                                                             float (&out)[kPerThread]) {
    float r[kPerThread];
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
        float acc = 0.f;
#pragma unroll
        for (int k = 0; k < K; ++k) acc = fmaf(taps.row[k], s[(i + k) % kPerThread], acc);
        r[i] = acc;
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
        float acc = 0.f;
#pragma unroll
        for (int k = 0; k < K; ++k) acc = fmaf(taps.column[k], r[(i + k + 3) % kPerThread], acc);
        out[i] = acc;
    }
}

__global__ void nothing(std::uint8_t* dst, int never) {
    if (never < 0) dst[0] = 1;
}

__global__ void __launch_bounds__(kThreads) copyWords(const uint4* src, uint4* dst, int words) {
    const int w = int(blockIdx.x) * kThreads + int(threadIdx.x);
    if (w < words) dst[w] = __ldg(src + w);
}

template <int K>
__device__ __forceinline__ void chainsWord(const Taps<K>& taps, const uint4* src, uint4* dst, int w) {
    const uint4 in = __ldg(src + w);
    const unsigned inWords[4] = {in.x, in.y, in.z, in.w};
    float s[kPerThread], out[kPerThread];
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) s[i] = cudafilters::cuda_detail::wordSample(inWords[i / 4], i);
    filterSixteen<K>(taps, s, out);
    unsigned packed[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        using cudafilters::cuda_detail::roundToInt;
        packed[q] = cudafilters::cuda_detail::packBytes(roundToInt(out[4 * q]), roundToInt(out[4 * q + 1]),
                                                        roundToInt(out[4 * q + 2]), roundToInt(out[4 * q + 3]));
    }
    dst[w] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
}

// Words w, w + stride, …: a thread a word (a grid of every word) or a grid of the blocks the SMs hold at once.
template <int K>
__global__ void __launch_bounds__(kThreads) fmasOnly(const __grid_constant__ Taps<K> taps, uint4* dst, int words) {
    const int stride = int(gridDim.x) * kThreads;
    for (int w = int(blockIdx.x) * kThreads + int(threadIdx.x); w < words; w += stride) {
        float s[kPerThread], out[kPerThread];
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) s[i] = float((w + 7 * i) & 0xFF);
        filterSixteen<K>(taps, s, out);
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) sum += out[i];
        if (sum != sum) dst[w] = make_uint4(1, 1, 1, 1);  // never: the taps are finite
    }
}

template <int K>
__global__ void __launch_bounds__(kThreads) chains(const __grid_constant__ Taps<K> taps, const uint4* src, uint4* dst,
                                                   int words) {
    const int stride = int(gridDim.x) * kThreads;
    for (int w = int(blockIdx.x) * kThreads + int(threadIdx.x); w < words; w += stride) chainsWord<K>(taps, src, dst, w);
}

// A box of K taps each way: the taps' values do not change how long the FMAs take.
template <int K> Taps<K> boxTaps() {
    Taps<K> t{};
    for (int k = 0; k < K; ++k) t.row[k] = t.column[k] = 1.f / K;
    return t;
}

struct Frames {
    std::vector<cudafilters::DeviceBuffer> inputs;
    cudafilters::DeviceBuffer output;
    int words = 0;
};

void report(const char* name, int k, const benchcommon::KernelTiming& t, double samples, double peakFma) {
    const double fma = 2.0 * k * samples;
    if (k > 0)
        std::printf("| %s | %d | %.2f | %.2f | %.1f %% |\n", name, k, t.gpu, t.launch, 100.0 * fma / (t.gpu * 1e-6) / peakFma);
    else std::printf("| %s | – | %.2f | %.2f | – |\n", name, t.gpu, t.launch);
    std::fflush(stdout);
}

template <int K> void timeK(Frames& f, int runs, double samples, double peakFma, bool resident, cudaStream_t s) {
    const Taps<K> taps = boxTaps<K>();
    int blocks = (f.words + kThreads - 1) / kThreads;
    if (resident) {
        int perSm = 0, sms = 0;
        CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, chains<K>, kThreads, 0));
        CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        blocks = std::min(blocks, perSm * sms);
    }
    auto* dst = static_cast<uint4*>(f.output.data());
    report(resident ? "fmas, resident grid" : "fmas", K, benchcommon::medianKernelMicros([&](int) { fmasOnly<K><<<blocks, kThreads, 0, s>>>(taps, dst, f.words); },
                                                      4, runs, 10, s),
           samples, peakFma);
    report(resident ? "chains, resident grid" : "chains", K, benchcommon::medianKernelMicros([&](int i) {
               chains<K><<<blocks, kThreads, 0, s>>>(taps, static_cast<const uint4*>(f.inputs[i].data()), dst, f.words);
           }, 4, runs, 10, s),
           samples, peakFma);
    CUDAFILTERS_CHECK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
    int width = 3840, height = 2160, runs = 50;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--size" && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &width, &height) == 2) ++i;
        else if (a == "--runs" && i + 1 < argc) runs = std::max(5, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--size WxH] [--runs N]\n", argv[0]);
            return 2;
        }
    }
    if (width <= 0 || height <= 0 || (std::int64_t(width) * height) % 16 != 0) {
        std::fprintf(stderr, "separable-ceiling: a frame of %dx%d bytes is not whole 16-byte words\n", width, height);
        return 2;
    }
    cudaDeviceProp prop{};
    CUDAFILTERS_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clockKhz = 0;
    CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
    const double peakFma = double(prop.multiProcessorCount) * 128.0 * clockKhz * 1e3;
    const double samples = double(width) * height;

    Frames f;
    f.words = int(samples / 16);
    std::mt19937 rng(20261127);
    std::vector<std::uint8_t> host(std::size_t(width) * height);
    for (int i = 0; i < 4; ++i) {
        for (auto& b : host) b = std::uint8_t(rng());
        f.inputs.emplace_back(host.size());
        CUDAFILTERS_CHECK(cudaMemcpy(f.inputs.back().data(), host.data(), host.size(), cudaMemcpyHostToDevice));
    }
    f.output.reserve(host.size());
    cudafilters::Stream stream = cudafilters::Stream::create();
    cudaStream_t s = stream.get();

    std::printf("%s, %d SMs, %.0f MHz: FP32 FMA peak %.2f T/s. %dx%d GRAY8, median of %d launches.\n\n", prop.name,
                prop.multiProcessorCount, clockKhz / 1e3, peakFma / 1e12, width, height, runs);
    std::printf("| kernel | K | µs (GPU busy) | µs (idle GPU, launch included) | FMA peak, 2K an output |\n|---|---|---|---|---|\n");
    report("nothing", 0, benchcommon::medianKernelMicros([&](int) { nothing<<<1, 32, 0, s>>>(static_cast<std::uint8_t*>(f.output.data()), 0); },
                                                         4, runs, 10, s),
           samples, peakFma);
    const int blocks = (f.words + kThreads - 1) / kThreads;
    report("copy", 0, benchcommon::medianKernelMicros([&](int i) {
               copyWords<<<blocks, kThreads, 0, s>>>(static_cast<const uint4*>(f.inputs[i].data()),
                                                     static_cast<uint4*>(f.output.data()), f.words);
           }, 4, runs, 10, s),
           samples, peakFma);
    for (bool resident : {false, true}) {
        timeK<15>(f, runs, samples, peakFma, resident, s);
        timeK<31>(f, runs, samples, peakFma, resident, s);
    }
    CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
    return 0;
}
