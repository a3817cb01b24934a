// SPDX-License-Identifier: LGPL-2.1-or-later
// Streaming fused separable K×K correlation of one-channel u8 frames (GRAY8, luma and chroma planes) at K = 15 and
// 31, laid out so that nearly every issued instruction is an FMA. A block of 256 threads walks a strip of 128 pixels
// down a segment of rows, 32 intermediate rows a chunk:
// - the chunk's source rows are staged as bytes in shared memory by cp.async (each 16-byte word once) while the
//   previous chunk's column pass runs;
// - row pass: a thread computes 16 consecutive outputs of one row from three staged words turned into floats in
//   registers (no per-sample tests);
// - the intermediate rows go into a ring of K − 1 + 32 rows in shared memory (its first rows stored a second time
//   after the ring, so that no column window wraps);
// - column pass: a thread computes 4 columns × 4 rows from 4 + K − 1 16-byte shared loads, rounds them four at a
//   time and stores a 4-byte word per row.
// Why: the streaming kernel of convolve_separable_stream.cu (every channel count, u8 and u16) issued 37.6 M warp
// instructions for 4K GRAY8 K = 31, 46 % of them FMAs; the rest was its per-word placement, border and edge tests,
// byte stores and ring arithmetic (H100, Nsight Compute, 2026-11-26). Here 25.8 M, 71 % FMAs. Steps measured on the
// H100 (4K K = 31, µs): 128 threads with 32 outputs each 77.7 (instruction-cache stalls 35 %); 256 threads with 16
// 45.2; edge bytes staged by the whole block instead of the edge warp 41.5; 4 blocks per SM 39.5; source words
// staged by cp.async instead of held in registers across the column pass 36.0. Not kept: strips of 256 pixels
// (512 threads, 2 blocks per SM, half as many recomputed rows): 4K K = 15 23.2 against 23.8 µs, but 1080p K = 15
// 13.5 against 10.7, K = 31 17.9 against 16.1.
//
// Words not wholly inside the frame (the strips at its left and right edges) are built byte by byte through
// borderIndex, two bytes a thread; rows outside the frame map through borderIndex (Border::Constant: words of
// borderValue's byte, so a borderValue that is not a byte leaves the frame to the other kernels). Each output sums
// its taps in the tile kernel's order (convolve_separable.cu): the same bytes.
#include "convolve_device.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace cudafilters::cuda_detail {
namespace {

template <int K> struct Gray8Config {
    static constexpr int TW = 128;                // strip width, pixels
    static constexpr int PX = 16;                 // row pass: outputs per thread (one run)
    static constexpr int THREADS = TW / PX * 32;  // a warp a run
    static constexpr int RUNS = TW / PX;          // runs per intermediate row: one warp each
    static constexpr int PYC = 4;                 // column pass: rows per thread (4 columns each)
    static constexpr int BANDS = THREADS / (TW / 4);
    static constexpr int CH = PYC * BANDS;        // intermediate rows per chunk: one per lane
    static constexpr int R = K / 2;
    static constexpr int LEAD = 16;               // bytes loaded left of a run: a run's loads stay 16-byte aligned
    static constexpr int D = LEAD - R;            // first loaded byte a run uses
    static constexpr int LOADS = (LEAD + PX + R + 15) / 16;  // 16-byte loads per run
    static constexpr int RING = K - 1 + CH;       // intermediate rows held
    static constexpr int SPAN = RUNS + LOADS - 1; // 16-byte words a strip row loads
    static constexpr int MIRROR = PYC + K - 2;    // ring rows also stored after the ring
    static constexpr int SM = TW + 4;             // intermediate row stride, floats (≡ 4 mod 32: no bank conflicts)
    static constexpr std::size_t SMEM = std::size_t(RING + MIRROR) * SM * sizeof(float);
    static_assert(R <= LEAD && CH == 32 && RUNS * 32 == THREADS && MIRROR <= RING);
};

template <int K> struct Gray8Params {
    ConvFrame f;
    float row[K];
    float column[K];
    int segment;          // output rows per block
    unsigned borderWord;  // Border::Constant: borderValue (a byte) in every byte
};

template <int K, bool ADJUST, int MIN_BLOCKS>
__global__ void __launch_bounds__(Gray8Config<K>::THREADS, MIN_BLOCKS)
    separableGray8Kernel(const __grid_constant__ Gray8Params<K> p) {
    using Cfg = Gray8Config<K>;
    extern __shared__ float4 smem4[];
    float* mid = reinterpret_cast<float*>(smem4);
    const ConvFrame& f = p.f;
    const int x0 = int(blockIdx.x) * Cfg::TW;
    const int y0 = int(blockIdx.y) * p.segment;
    const int outRows = min(p.segment, f.height - y0);
    const int total = outRows + K - 1;  // intermediate row i: the row pass of source row y0 − R + i
    const int t = int(threadIdx.x);

    // Row pass: this thread's row of each chunk (its lane) and run of the strip (its warp): the 8 threads of a
    // quarter warp take 8 consecutive rows of one run (their stores fall on distinct banks).
    const int runRow = t % 32;
    const int runX = Cfg::PX * (t / 32);      // first output of the run, in the strip
    const int run = t / 32;

    // The strip row's source: SPAN 16-byte words, word w from byte x0 − LEAD + 16 w, staged for a chunk in `staged`
    // (one spare word a row: a run's lanes read on distinct banks). Words inside the frame are copied by cp.async,
    // each by one thread, while the previous chunk's column pass runs; words not wholly inside the frame (word 0
    // where the strip starts the row, the words from rightOut on) are built byte by byte, 2 bytes a thread, so that
    // the strips at the frame's edges are not held up by one warp.
    __shared__ uint4 staged[Cfg::CH][Cfg::SPAN + 1];
    const int spanX = x0 - Cfg::LEAD;
    const bool leftOut = spanX < 0;
    const int rightOut = min(Cfg::SPAN, (f.width - spanX) / 16);
    const bool edgeBlock = leftOut || rightOut < Cfg::SPAN;
    auto spanWordInside = [&](int w) { return w >= (leftOut ? 1 : 0) && w < rightOut; };
    const uint4 borderWords = make_uint4(p.borderWord, p.borderWord, p.borderWord, p.borderWord);
    auto stage = [&](int first) {
#pragma unroll
        for (int k = 0; k < (Cfg::CH * Cfg::SPAN + Cfg::THREADS - 1) / Cfg::THREADS; ++k) {
            const int item = t + k * Cfg::THREADS, row = item / Cfg::SPAN, w = item % Cfg::SPAN;
            if (row >= Cfg::CH || first + row >= total || !spanWordInside(w)) continue;
            const int gy = borderIndex(y0 - Cfg::R + first + row, f.height, f.border);
            if (gy >= 0)
                __pipeline_memcpy_async(&staged[row][w], f.src + std::size_t(gy) * f.srcPitch + spanX + 16 * w, 16);
            else
                staged[row][w] = borderWords;
        }
        __pipeline_commit();
        if (!edgeBlock) return;
        constexpr int kPerRow = Cfg::THREADS / Cfg::CH, kBytes = 16 / kPerRow;  // threads a row, bytes a word each
        const int row = t / kPerRow, part = t % kPerRow;
        if (first + row >= total) return;
        const int gy = borderIndex(y0 - Cfg::R + first + row, f.height, f.border);
        const std::uint8_t* src = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
        auto stageBytes = [&](int w) {
            std::uint8_t* word = reinterpret_cast<std::uint8_t*>(&staged[row][w]) + kBytes * part;
            const int x = spanX + 16 * w + kBytes * part;
#pragma unroll
            for (int e = 0; e < kBytes; ++e) {
                const int gx = borderIndex(x + e, f.width, f.border);
                word[e] = std::uint8_t(src == nullptr || gx < 0 ? p.borderWord : unsigned(__ldg(src + gx)));
            }
        };
        if (leftOut) stageBytes(0);
        for (int w = rightOut; w < Cfg::SPAN; ++w) stageBytes(w);
    };

    // Column pass: this thread's 4 columns (its lane) and band of PYC rows (its warp).
    const int quad = t % (Cfg::TW / 4), band = t / (Cfg::TW / 4);
    const int colX = x0 + 4 * quad;
    const bool columnInside = colX + 4 <= f.width;
    std::uint8_t* const columnDst = f.dst + colX;

    int slot = runRow;  // ring slot of this thread's row-pass row
    int outDone = 0;
    stage(0);
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int first = 0; first < total; first += Cfg::CH) {
        const int rows = min(Cfg::CH, total - first);
        if (runRow < rows) {
            uint4 words[Cfg::LOADS];
#pragma unroll
            for (int q = 0; q < Cfg::LOADS; ++q) words[q] = staged[runRow][run + q];
            float acc[Cfg::PX];
#pragma unroll
            for (int i = 0; i < Cfg::PX; ++i) acc[i] = 0.f;
            // Each loaded byte goes into every output it reaches as it arrives; every output still sums its taps
            // in order kx = 0 … K − 1.
#pragma unroll
            for (int q = 0; q < Cfg::LOADS; ++q) {
                const unsigned w4[4] = {words[q].x, words[q].y, words[q].z, words[q].w};
#pragma unroll
                for (int e = 0; e < 16; ++e) {
                    const int j = 16 * q + e - Cfg::D;  // window sample j feeds output i with tap j − i
                    if (j < 0 || j >= Cfg::PX + K - 1) continue;
                    const float u = wordSample(w4[e / 4], e);
#pragma unroll
                    for (int i = 0; i < Cfg::PX; ++i) {
                        const int kx = j - i;
                        if (kx >= 0 && kx < K) acc[i] = fmaf(p.row[kx], u, acc[i]);
                    }
                }
            }
            float4* out = reinterpret_cast<float4*>(mid + slot * Cfg::SM + runX);
#pragma unroll
            for (int v = 0; v < Cfg::PX / 4; ++v)
                out[v] = make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]);
            if (slot < Cfg::MIRROR) {
#pragma unroll
                for (int v = 0; v < Cfg::PX / 4; ++v)
                    out[Cfg::RING * Cfg::SM / 4 + v] =
                        make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]);
            }
        }
        slot = slot + Cfg::CH >= Cfg::RING ? slot + Cfg::CH - Cfg::RING : slot + Cfg::CH;
        __syncthreads();
        stage(first + Cfg::CH);  // read by the next row pass, after the barrier below

        // Column pass over the output rows whose K intermediate rows are now in the ring.
        const int ready = min(outRows, first + rows - (K - 1));
        const int o0 = outDone + Cfg::PYC * band;
        if (o0 < ready && colX < f.width) {
            const float* column = mid + (o0 % Cfg::RING) * Cfg::SM + 4 * quad;
            float4 acc[Cfg::PYC];
#pragma unroll
            for (int j = 0; j < Cfg::PYC; ++j) acc[j] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int i = 0; i < Cfg::PYC + K - 1; ++i) {
                const float4 u = *reinterpret_cast<const float4*>(column + i * Cfg::SM);
#pragma unroll
                for (int j = 0; j < Cfg::PYC; ++j) {
                    const int ky = i - j;
                    if (ky >= 0 && ky < K) {
                        const float c = p.column[ky];
                        acc[j] = make_float4(fmaf(c, u.x, acc[j].x), fmaf(c, u.y, acc[j].y), fmaf(c, u.z, acc[j].z),
                                             fmaf(c, u.w, acc[j].w));
                    }
                }
            }
            std::uint8_t* out = columnDst + std::size_t(y0 + o0) * f.dstPitch;
            const bool wholeBand = o0 + Cfg::PYC <= ready && columnInside;
#pragma unroll
            for (int j = 0; j < Cfg::PYC; ++j, out += f.dstPitch) {
                const float4 a = acc[j];
                const unsigned word =
                    packBytes(roundToInt(adjusted<ADJUST>(a.x, f.bias, f.absolute != 0)),
                              roundToInt(adjusted<ADJUST>(a.y, f.bias, f.absolute != 0)),
                              roundToInt(adjusted<ADJUST>(a.z, f.bias, f.absolute != 0)),
                              roundToInt(adjusted<ADJUST>(a.w, f.bias, f.absolute != 0)));
                if (wholeBand) {
                    *reinterpret_cast<unsigned*>(out) = word;
                } else if (o0 + j < ready) {
#pragma unroll
                    for (int b = 0; b < 4; ++b)
                        if (colX + b < f.width) out[b] = std::uint8_t(word >> (8 * b));
                }
            }
        }
        outDone = ready;
        __pipeline_wait_prior(0);
        __syncthreads();
    }
}

// Blocks of an instance that fit an SM (asked once per instance).
template <int K, bool ADJUST, int MIN_BLOCKS> int gray8BlocksPerSm() {
    static std::atomic<int> cached{0};
    int n = cached.load(std::memory_order_relaxed);
    if (n == 0) {
        using Cfg = Gray8Config<K>;
        CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, separableGray8Kernel<K, ADJUST, MIN_BLOCKS>, Cfg::THREADS, Cfg::SMEM));
        n = std::max(n, 1);
        cached.store(n, std::memory_order_relaxed);
    }
    return n;
}

template <int K, bool ADJUST, int MIN_BLOCKS>
void launchGray8T(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    using Cfg = Gray8Config<K>;
    Gray8Params<K> p;
    p.f = frame;
    for (int i = 0; i < K; ++i) {
        p.row[i] = row[i];
        p.column[i] = column[i];
    }
    p.borderWord = frame.border == Border::Constant ? 0x01010101u * unsigned(frame.borderValue) : 0u;
    auto kernel = separableGray8Kernel<K, ADJUST, MIN_BLOCKS>;
    if (Cfg::SMEM > 48 * 1024)
        CUDAFILTERS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Cfg::SMEM)));
    // Segments tall enough for one wave of as many blocks as fit: each segment computes K − 1 intermediate rows that
    // the segment above also computes.
    const int blocks = currentDeviceMultiprocessors() * gray8BlocksPerSm<K, ADJUST, MIN_BLOCKS>();
    const int strips = (frame.width + Cfg::TW - 1) / Cfg::TW;
    const int segments = std::max(1, std::min(frame.height, blocks / strips));
    p.segment = (frame.height + segments - 1) / segments;
    const dim3 grid(strips, (frame.height + p.segment - 1) / p.segment);
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableGray8Kernel");
}

template <int K, int MIN_BLOCKS>
void launchGray8K(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    if (frame.bias != 0.f || frame.absolute != 0) launchGray8T<K, true, MIN_BLOCKS>(frame, row, column, stream);
    else launchGray8T<K, false, MIN_BLOCKS>(frame, row, column, stream);
}

}  // namespace

bool separableGray8Applies(SampleType type, int k, const ConvFrame& f) {
    const auto aligned = [](const void* data, std::size_t pitch, std::size_t to) {
        return reinterpret_cast<std::uintptr_t>(data) % to == 0 && pitch % to == 0;
    };
    return type == SampleType::U8 && (k == 15 || k == 31) && f.inChannels == 1 && f.outChannels == 1 &&
           (f.mask & 1u) != 0u && plainBytes(f) && f.width > 0 && f.height > 0 && f.rowAlign >= 16 &&
           aligned(f.dst, f.dstPitch, 4) &&
           (f.border != Border::Constant ||
            (f.borderValue >= 0.f && f.borderValue <= 255.f && f.borderValue == std::floor(f.borderValue)));
}

bool launchSeparableGray8(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                          cudaStream_t stream, int blocksPerSm) {
    if (!separableGray8Applies(type, k, frame)) return false;
    // H100, 2026-11-26 (bench-convolve, same run): 4K K = 15 23.7 µs with 3 blocks per SM against 24.0 with 4, 1080p
    // 10.6 against 11.7; K = 31 4K 36.0 with 4 against 36.9, 1080p 16.0 against 17.6.
    const int blocks = blocksPerSm > 0 ? blocksPerSm : (k == 15 ? 3 : 4);
    if (k == 15) blocks == 4 ? launchGray8K<15, 4>(frame, row, column, stream) : launchGray8K<15, 3>(frame, row, column, stream);
    else blocks == 4 ? launchGray8K<31, 4>(frame, row, column, stream) : launchGray8K<31, 3>(frame, row, column, stream);
    return true;
}

}  // namespace cudafilters::cuda_detail
