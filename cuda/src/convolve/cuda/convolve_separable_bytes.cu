// SPDX-License-Identifier: LGPL-2.1-or-later
// Streaming fused separable K×K correlation of u8 frames of 1 to 4 interleaved channels (GRAY8 and planes, NV12's UV
// plane, packed RGB / BGR, the RGBA family) at K = 7, 9, 15 and 31, laid out so that nearly every issued instruction is
// an FMA. A block of a warp per run walks a strip 128 bytes wide (128 / C pixels; 96 bytes, 32 pixels, for 3 channels)
// down a segment of rows, 32 intermediate rows a chunk:
// - the chunk's source rows are staged as bytes in shared memory by cp.async (each 16-byte word once) while the
//   previous chunk's column pass runs;
// - row pass: each warp takes a run of 16 consecutive outputs of one channel, a lane a row, from the staged words
//   turned into floats in registers (one byte permute and one subtraction a sample, two permutes for 3 channels, no
//   per-sample tests);
// - the intermediate rows, interleaved as the pixels are, go into a ring of K − 1 + 32 rows in shared memory (its
//   first rows stored a second time after the ring, so that no column window wraps);
// - column pass: a thread computes 4 consecutive samples × 4 rows from 4 + K − 1 16-byte shared loads, rounds them
//   four at a time and stores one 4-byte word a row (a whole RGBA pixel, two UV pixels, four grey ones, 4 bytes of
//   packed RGB).
// Channels copied unfiltered (RGBA's alpha) go through the ring unfiltered and are taken from the output row's own
// intermediate row, so every channel of a frame is either filtered or copied (the launcher takes no others); the
// first or last of 4 channels copied has no column sums at all (SKIP).
// OVERLAP (one barrier a chunk): the next chunk is staged (two chunks of source rows in shared memory), this chunk's
// row pass runs beside the previous chunk's column pass, and the ring holds 2 · 32 + K − 1 + 3 rows rounded up to a
// multiple of 4, none of them stored twice: a column window starts at a multiple of 4 rows and wraps between groups
// of 4. Half as many barriers, and each warp has both passes' work between them; the ring and the two staged chunks
// leave room for 3 blocks per SM at K = 31 (62.6 KB for one channel), 4 at K = 15 (54.3 KB; the registers allow 3).
// The launcher takes it where it measured faster (oneBarrierBest).
//
// Why: the streaming kernel of convolve_separable_stream.cu (every channel count, u8 and u16) issued 37.6 M warp
// instructions for 4K GRAY8 K = 31, 46 % of them FMAs; the rest was its per-word placement, border and edge tests,
// byte stores and ring arithmetic (H100, Nsight Compute, 2026-11-26). Here 25.8 M, 71 % FMAs. Steps measured on the
// H100 (4K GRAY8 K = 31, µs): 128 threads with 32 outputs each 77.7 (instruction-cache stalls 35 %); 256 threads with
// 16 45.2; edge bytes staged by the whole block instead of the edge warp 41.5; 4 blocks per SM 39.5; source words
// staged by cp.async instead of held in registers across the column pass 36.0. Not kept: strips of 256 bytes (512
// threads, 2 blocks per SM, half as many recomputed rows): 4K K = 15 23.2 against 23.8 µs, but 1080p K = 15 13.5
// against 10.7, K = 31 17.9 against 16.1.
// Twenty-second session (H100, bench-convolve against the code before in the same runs): words staged by one
// multiply and a cp.async from a place computed once (chunks inside the frame), the column pass's words stored after
// its roundings: 24.9 M instructions at 4K GRAY8 K = 31 (26.0 M), 36.7–36.8 → 34.8–34.9 µs, K = 15 24.1–24.3 →
// 22.4–22.6, every 1- to 4-channel row 2–6 % faster. The blocks an SM holds end in the order they were dispatched
// (4K K = 31: about 18, 22, 25 and 28 µs), and the edge strips' blocks run 20–37 % longer: with their byte staging
// skipped (timings only) the kernel took 7 % (K = 31) and 10 % (K = 15) less; building those bytes from the staged
// words in shared memory, or loading them a pass ahead, did not recover it (docs/benchmarks.md).
//
// Twenty-third session (same runs against 555c6c6): the grid is 1-D, the edge strips' blocks first and, in one wave,
// in shorter segments (bytesPieces): the blocks that take longest start first, and the oldest warps are issued first.
// 4K GRAY8 K = 31 34.6–34.7 → 33.1–33.3 µs, K = 15 22.4–22.5 → 20.1–20.3; colour 10–20 % faster (4K RGBA K = 31
// 139.2–139.4 → 120.6–120.9, with one wave instead of two), docs/benchmarks.md.
//
// Tried, not kept (twenty-fourth session, H200): each block handing its first K − 1 intermediate rows, through device
// memory and a flag, to the block above, which then computes K − 1 fewer rows. 4K GRAY8 K = 31 issued 5.5 % fewer
// instructions but ran 0–1 % faster, colour at K = 31 1–3 %, K = 15 not at all (docs/benchmarks.md).
// Tried, not kept (twenty-fifth session, H200, docs/benchmarks.md): strips of 32 or 64 bytes with 4 or 2 groups of 32
// rows a chunk (fewer recomputed rows): 4K GRAY8 K = 31 4–5 % slower, K = 15 2–20 %; the row and column passes on
// separate warps handing chunks over by named barriers (no block-wide barrier): 1–2 % slower at 4K, issue slots no
// busier.
//
// Twenty-seventh session (H100, bench-convolve against the code before in the same runs, docs/benchmarks.md): colour
// frames were bound by shared memory (4K RGBA K = 15: memory throughput 70 %, issue slots 59 %; 39 % of the
// wavefronts bank-conflict replays, most of them the row pass's sample-by-sample stores). The copied channel known at
// compile time under SKIP and the row-pass lanes turning channel by quarter warp (laneChannel): 4K RGBA K = 15 / 31
// 78.4 → 67.8 / 120.0 → 110.0 µs, packed RGB 67.3 → 63.0 / 109.2 → 101.6. K = 7 and 9 compiled, taken ahead of the
// register-window and interleaved kernels: 4K RGBA 73.0 → 51.8 / 81.9 → 55.1, GRAY8 20.3 → 15.2 / 26.3 → 16.4.
//
// Twenty-eighth session (H100, `scripts/gpu/launch-tool.sh separable-ceiling`, timed as bench-convolve times this
// kernel): a kernel that does only each output's own work (its 16-byte word read, the samples turned into floats, the
// 2K FMA chains, rounding, one store; no halo, no shared memory, no recomputed rows) takes 15.2–15.4 µs at 4K GRAY8
// K = 15 and 24.4–24.5 at K = 31, this kernel 20.4 and 33.3–33.5: 73–75 % of that ceiling (docs/benchmarks.md).
//
// Words not wholly inside the frame (the strips at its left and right edges) are built byte by byte through
// borderIndex by the whole block; rows outside the frame map through borderIndex (Border::Constant: words of
// borderValue's byte, so a borderValue that is not a byte leaves the frame to the other kernels). Each output sums
// its taps in the tile kernel's order (convolve_separable.cu): the same bytes.
#include "convolve_device.cuh"
#include "edge_first_grid.cuh"

#include <cuda_pipeline.h>

// cp.async (sm_80 and later) stages words without passing them through registers. Before sm_80 a word is loaded and
// stored as cuda_pipeline.h does there, so the kernel is the same but for the overlap of staging and filtering.
// CUDAFILTERS_NO_CP_ASYNC builds that path for any architecture, so that the GPU tests check it on newer GPUs
// (scripts/gpu/platforms.sh).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(CUDAFILTERS_NO_CP_ASYNC)
#define CUDAFILTERS_CP_ASYNC 1
#else
#define CUDAFILTERS_CP_ASYNC 0
#endif

namespace {

// One 16-byte word from global to shared memory, asynchronous where the GPU can.
__device__ __forceinline__ void stageWord(void* shared, const void* global) {
#if CUDAFILTERS_CP_ASYNC
    __pipeline_memcpy_async(shared, global, 16);
#else
    *static_cast<uint4*>(shared) = __ldg(static_cast<const uint4*>(global));
#endif
}

__device__ __forceinline__ void stageCommit() {
#if CUDAFILTERS_CP_ASYNC
    __pipeline_commit();
#endif
}

__device__ __forceinline__ void stageWait() {
#if CUDAFILTERS_CP_ASYNC
    __pipeline_wait_prior(0);
#endif
}

}  // namespace

#include <algorithm>
#include <cmath>

namespace cudafilters::cuda_detail {
namespace {

template <int K, int C, bool OVERLAP = false> struct BytesConfig {
    static constexpr int TW = C == 3 ? 32 : 128 / C;  // strip width, pixels
    static constexpr int TB = TW * C;             // strip width, bytes: the floats of an intermediate row
    static constexpr int PX = 16;                 // row pass: outputs per run
    static constexpr int RUNS = TB / PX;          // run r: channel r % C, pixels PX · (r / C) …; a warp each
    static constexpr int THREADS = RUNS * 32;
    static constexpr int PYC = 4;                 // column pass: rows per thread (4 samples each)
    static constexpr int BANDS = THREADS / (TB / 4);
    static constexpr int CH = PYC * BANDS;        // intermediate rows per chunk: one per lane
    static constexpr int R = K / 2;
    static constexpr int LEAD = 16;               // pixels staged left of the strip (and right of it)
    static constexpr int D = LEAD - R;            // first staged pixel a run's window uses, from the run's first
    static constexpr int SPAN = (TW + 2 * LEAD) * C / 16;           // 16-byte words a strip row stages
    static constexpr int LOADS = ((D + PX + K - 1) * C + 15) / 16;  // words a run's window covers
    // Intermediate rows held: a chunk's column windows; OVERLAP (the next chunk's row pass beside this chunk's column
    // pass) also the next chunk and the PYC − 1 rows a band finished short of the chunk's last ready row waits on,
    // rounded up to whole groups of PYC rows.
    static constexpr int RING = OVERLAP ? (2 * CH + K - 1 + 2 * (PYC - 1)) / PYC * PYC : K - 1 + CH;
    static constexpr int STAGES = OVERLAP ? 2 : 1;  // chunks of source rows staged
    // Ring rows also stored after the ring, so that no column window wraps. OVERLAP has none: its windows start at
    // multiples of PYC and wrap between groups of PYC rows.
    static constexpr int MIRROR = OVERLAP ? 0 : PYC + K - 2;
    static constexpr int SM = TB + 4;             // intermediate row stride, floats (≡ 4 mod 32: no bank conflicts)
    static constexpr std::size_t SMEM = std::size_t(RING + MIRROR) * SM * sizeof(float);
    static_assert(PYC == 4);
    static_assert(R <= LEAD && CH == 32 && RUNS * 32 == THREADS && MIRROR <= RING && (C >= 1 && C <= 4));
    static_assert((PX * (RUNS / C - 1) * C) / 16 + LOADS <= SPAN && (OVERLAP || MIRROR >= PYC - 1 + R));
    static_assert(!OVERLAP || RING % PYC == 0);
};

template <int K> struct BytesParams {
    ConvFrame f;
    float row[K];
    float column[K];
    EdgeFirstGrid grid;   // the edge strips' segments from bytesPieces
    unsigned borderWord;  // Border::Constant: borderValue (a byte) in every byte
};

// The channel a row-pass lane takes: the warp's `first` turned by the lane's quarter of the warp, among the channels
// other than SKIP when first is not SKIP (SKIP's warps copy it whole). Every warp of a pixel run gives each row every
// channel once.
template <int C, int SKIP> __device__ __forceinline__ int laneChannel(int first, int quarter) {
    if constexpr (C == 1) {
        return 0;
    } else if constexpr (SKIP >= 0) {
        if (first == SKIP) return SKIP;
        const int filtered = (first - (first > SKIP) + quarter) % (C - 1);
        return filtered + (filtered >= SKIP);
    } else {
        return (first + quarter) % C;
    }
}

// SKIP (4 channels): a channel copied unfiltered whose column sums are not computed at all (-1: none; the copied
// channels are then summed and replaced).
template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP = -1, bool OVERLAP = false>
__global__ void __launch_bounds__(BytesConfig<K, C, OVERLAP>::THREADS, MIN_BLOCKS)
    separableBytesKernel(const __grid_constant__ BytesParams<K> p) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    extern __shared__ float4 smem4[];
    float* mid = reinterpret_cast<float*>(smem4);
    const ConvFrame& f = p.f;
    const GridPlace at = placeBlock(p.grid, int(blockIdx.x));
    const int x0 = at.strip * Cfg::TW, y0 = at.y0;
    const int outRows = min(at.segment, f.height - y0);
    const int total = outRows + K - 1;  // intermediate row i: the row pass of source row y0 − R + i
    const int rowBytes = f.width * C;
    const int t = int(threadIdx.x);
    constexpr unsigned kAll = (1u << C) - 1u;
    const unsigned copied = f.copy & ~f.mask & kAll;  // the others are filtered (separableBytesApplies)
    static_assert(SKIP < 0 || C == 4);

    // Row pass: this thread's row of each chunk (its lane) and run (its warp): the 8 threads of a quarter warp take
    // 8 consecutive rows of one run, so their 16-byte shared accesses fall on distinct banks. With 2 to 4 channels the
    // warp's quarters take different channels of the run's pixels (the channel turning by one a quarter, among the
    // filtered ones under SKIP), so that the sample-by-sample stores of a quarter fall on other banks than the next
    // quarter's: 2-way conflicts at most (none for 4 channels filtered) where one channel a warp met 4-way ones.
    const int runRow = t % 32, run = t / 32;
    const int runChannel = laneChannel<C, SKIP>(run % C, runRow / 8), runPixel = Cfg::PX * (run / C);
    const int runWord = runPixel * C / 16;  // first staged word of the run's window
    const bool runCopies =  // one channel is filtered (separableBytesApplies)
        SKIP >= 0 ? runChannel == SKIP : C > 1 && ((copied >> runChannel) & 1u);
    // Byte permutes picking byte k + runChannel of a word as a float's low byte (byteAsFloat's selector).
    unsigned pick[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) pick[k] = 0x5440u + unsigned(k + runChannel);

    // The strip row's source: SPAN 16-byte words, word w from byte (x0 − LEAD) · C + 16 w, staged for a chunk in
    // `staged` (one spare word a row: a run's lanes read on distinct banks). Words inside the frame are copied by
    // cp.async, each by one thread, while a column pass runs (OVERLAP: a row pass and a column pass); words not wholly
    // inside the frame (those left of byte 0 where the strip starts the row, those from rightOut on) are built byte by
    // byte by all the threads, so that the strips at the frame's edges are not held up by one warp.
    __shared__ uint4 staged[Cfg::STAGES][Cfg::CH][Cfg::SPAN + 1];
    const int spanByte = (x0 - Cfg::LEAD) * C;
    const int firstInside = spanByte < 0 ? (-spanByte + 15) / 16 : 0;
    const int rightOut = min(Cfg::SPAN, (rowBytes - spanByte) / 16);
    const bool edgeBlock = firstInside > 0 || rightOut < Cfg::SPAN;
    const uint4 borderWords = make_uint4(p.borderWord, p.borderWord, p.borderWord, p.borderWord);
    // This thread's words of every chunk, placed once: word w of staged row `row` from byte 16 w of the strip row's
    // span (a row past the chunk, or a word not inside the frame, never staged by it). Chunks whose rows all lie inside
    // the frame (all but those at a segment's start or end near the frame's top or bottom) take each word's address
    // straight from its row: one multiply and a cp.async, where borderIndex, the index arithmetic and the generic
    // shared address took about forty instructions.
    constexpr int ITEMS = (Cfg::CH * Cfg::SPAN + Cfg::THREADS - 1) / Cfg::THREADS;
    constexpr unsigned kStageBytes = sizeof(staged[0]);
    int itemRow[ITEMS], itemByte[ITEMS];
    unsigned itemShared[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int item = t + k * Cfg::THREADS, row = min(item / Cfg::SPAN, Cfg::CH - 1), w = item % Cfg::SPAN;
        const bool mine = item < Cfg::CH * Cfg::SPAN && w >= firstInside && w < rightOut;
        itemRow[k] = mine ? row : Cfg::CH << 16;  // a row no chunk has
        itemByte[k] = 16 * w;
        itemShared[k] = unsigned(__cvta_generic_to_shared(&staged[0][row][w]));
    }
    const std::uint8_t* const spanSrc = f.src + spanByte;
    const unsigned srcPitch = unsigned(f.srcPitch);  // below 4 GiB (separableBytesApplies)
    auto stage = [&](int buffer, int first) {
        const int firstRow = y0 - Cfg::R + first;
        if (firstRow >= 0 && firstRow + Cfg::CH <= f.height) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (first + itemRow[k] >= total) continue;
                const std::uint8_t* src = spanSrc + std::size_t(unsigned(firstRow + itemRow[k])) * srcPitch + itemByte[k];
#if CUDAFILTERS_CP_ASYNC
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                             :
                             : "r"(itemShared[k] + unsigned(buffer) * kStageBytes), "l"(src)
                             : "memory");
#else
                stageWord(&staged[buffer][itemRow[k]][itemByte[k] / 16], src);
#endif
            }
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const int row = itemRow[k];
                if (first + row >= total) continue;
                const int gy = borderIndex(firstRow + row, f.height, f.border);
                uint4* word = &staged[buffer][row][itemByte[k] / 16];
                if (gy >= 0) stageWord(word, spanSrc + std::size_t(gy) * f.srcPitch + itemByte[k]);
                else *word = borderWords;
            }
        }
        stageCommit();
        if (!edgeBlock) return;
        constexpr int kPerRow = Cfg::THREADS / Cfg::CH;  // threads a row, bytes part, part + kPerRow, … of a word each
        const int row = t / kPerRow, part = t % kPerRow;
        if (first + row >= total) return;
        const int gy = borderIndex(y0 - Cfg::R + first + row, f.height, f.border);
        const std::uint8_t* src = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
        auto stageBytes = [&](int w) {
            std::uint8_t* word = reinterpret_cast<std::uint8_t*>(&staged[buffer][row][w]);
#pragma unroll
            for (int e = part; e < 16; e += kPerRow) {
                const int b = spanByte + 16 * w + e;  // byte of the row, may lie outside it
                const int x = b >= 0 ? b / C : -((C - 1 - b) / C), ch = b - x * C;
                const int gx = borderIndex(x, f.width, f.border);
                word[e] = std::uint8_t(src == nullptr || gx < 0 ? p.borderWord : unsigned(__ldg(src + gx * C + ch)));
            }
        };
        for (int w = 0; w < firstInside; ++w) stageBytes(w);
        for (int w = rightOut; w < Cfg::SPAN; ++w) stageBytes(w);
    };

    // Column pass: this thread's 4 samples of a row and band of PYC rows (a warp's lanes: consecutive samples). Sample
    // k of the four is channel (4 quad + k) % C.
    const int quad = t % (Cfg::TB / 4), band = t / (Cfg::TB / 4);
    const int colByte = x0 * C + 4 * quad;
    const bool columnInside = colByte + 4 <= rowBytes;
    std::uint8_t* const columnDst = f.dst + colByte;
    const std::size_t dstPitch = unsigned(f.dstPitch);  // below 4 GiB (separableBytesApplies)
    // SKIP: the launcher's instances copy exactly that channel, and a thread's 4 samples are one pixel; known at compile
    // time, the copy is one shared load a row. Tested bit by bit at run time it took about 60 of the RGBA column pass's
    // 333 instructions at K = 15, the flags reloaded from constant memory every row (H100, twenty-seventh session).
    unsigned copiedSamples = 0;
    if constexpr (SKIP >= 0) {
        copiedSamples = 1u << SKIP;
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) copiedSamples |= ((copied >> ((4 * quad + k) % C)) & 1u) << k;
    }

    // Row pass of the chunk's `rows` intermediate rows from staged[buffer] into the ring from this thread's `slot`.
    auto rowPass = [&](int buffer, int rows, int slot) {
        if (runRow < rows) {
            float acc[Cfg::PX];
            unsigned words[4 * Cfg::LOADS];  // the run's staged bytes as 32-bit words
#pragma unroll
            for (int q = 0; q < Cfg::LOADS; ++q) {
                const uint4 word = staged[buffer][runRow][runWord + q];
                words[4 * q] = word.x;
                words[4 * q + 1] = word.y;
                words[4 * q + 2] = word.z;
                words[4 * q + 3] = word.w;
            }
            // Window sample j (pixel runPixel − R + j) is byte (D + j) · C + runChannel of those words: one byte
            // permute and one subtraction; with 3 channels the byte may lie in the next word, so it is picked from
            // the pair first.
            auto sample = [&](int j) {
                const int b = (Cfg::D + j) * C;
                if constexpr (C == 3) {
                    const unsigned next = b / 4 + 1 < 4 * Cfg::LOADS ? words[b / 4 + 1] : 0u;
                    const unsigned byte = __byte_perm(words[b / 4], next, pick[b % 4] & 0xFu);
                    return __uint_as_float(__byte_perm(byte, 0x4B00u, 0x5440u)) - 8388608.f;
                } else {
                    return __uint_as_float(__byte_perm(words[b / 4], 0x4B00u, pick[b % 4])) - 8388608.f;
                }
            };
            if (runCopies) {
                // A channel copied unfiltered: its samples as they are.
#pragma unroll
                for (int i = 0; i < Cfg::PX; ++i) acc[i] = sample(Cfg::R + i);
            } else {
#pragma unroll
                for (int i = 0; i < Cfg::PX; ++i) acc[i] = 0.f;
                // Each sample goes into every output it reaches as it arrives; every output still sums its taps in
                // order kx = 0 … K − 1.
#pragma unroll
                for (int j = 0; j < Cfg::PX + K - 1; ++j) {
                    const float u = sample(j);
#pragma unroll
                    for (int i = 0; i < Cfg::PX; ++i) {
                        const int kx = j - i;
                        if (kx >= 0 && kx < K) acc[i] = fmaf(p.row[kx], u, acc[i]);
                    }
                }
            }
            float* out = mid + slot * Cfg::SM + runPixel * C + runChannel;
            auto put = [&](int at) {
                if constexpr (C == 1) {
#pragma unroll
                    for (int v = 0; v < Cfg::PX / 4; ++v)
                        reinterpret_cast<float4*>(out + at)[v] =
                            make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]);
                } else {
#pragma unroll
                    for (int i = 0; i < Cfg::PX; ++i) out[at + i * C] = acc[i];
                }
            };
            put(0);
            if constexpr (Cfg::MIRROR > 0)
                if (slot < Cfg::MIRROR) put(Cfg::RING * Cfg::SM);
        }
    };
    const auto nextSlot = [](int slot) {
        return slot + Cfg::CH >= Cfg::RING ? slot + Cfg::CH - Cfg::RING : slot + Cfg::CH;
    };

    int slot = runRow;  // ring slot of this thread's row-pass row
    int outDone = 0, ready = 0;
    stage(0, 0);
    stageWait();
    __syncthreads();
    // Two barriers a chunk: its row pass, a barrier, its column pass while the next chunk is staged, a barrier.
    // OVERLAP, one: the next chunk staged, this chunk's row pass and the previous chunk's column pass side by side, a
    // barrier. Until the last chunk, its column pass stops at a multiple of PYC rows, so that no band reads the rows
    // the row pass beside it writes; the rows after the last chunk take one or two more column passes.
    for (int first = 0, buffer = 0; first < total || (OVERLAP && outDone < outRows);
         first += Cfg::CH, buffer ^= Cfg::STAGES - 1) {
        const int rows = min(Cfg::CH, total - first);  // none past the last chunk
        if constexpr (OVERLAP) stage(buffer ^ 1, first + Cfg::CH);
        rowPass(buffer, rows, slot);
        if constexpr (!OVERLAP) {
            slot = nextSlot(slot);
            __syncthreads();
            stage(0, first + Cfg::CH);  // read by the next row pass, after the barrier below
            ready = min(outRows, first + rows - (K - 1));
        }
        // Column pass over the output rows whose K intermediate rows are in the ring, a chunk's at most.
        const int o0 = outDone + Cfg::PYC * band;
        if (o0 < ready && colByte < rowBytes) {
            const int firstSlot = o0 % Cfg::RING;
            const float* column = mid + firstSlot * Cfg::SM + 4 * quad;
            // OVERLAP: window row i is row i % PYC of the group from `group`, which wraps at the ring's end.
            const float* group = column;
            float4 acc[Cfg::PYC];
#pragma unroll
            for (int j = 0; j < Cfg::PYC; ++j) acc[j] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int i = 0; i < Cfg::PYC + K - 1; ++i) {
                if (OVERLAP && i > 0 && i % Cfg::PYC == 0) {
                    group += Cfg::PYC * Cfg::SM;
                    if (group >= mid + Cfg::RING * Cfg::SM) group -= Cfg::RING * Cfg::SM;
                }
                const float4 u = *reinterpret_cast<const float4*>(OVERLAP ? group + i % Cfg::PYC * Cfg::SM
                                                                           : column + i * Cfg::SM);
#pragma unroll
                for (int j = 0; j < Cfg::PYC; ++j) {
                    const int ky = i - j;
                    if (ky >= 0 && ky < K) {
                        const float c = p.column[ky];
                        acc[j] = make_float4(SKIP == 0 ? acc[j].x : fmaf(c, u.x, acc[j].x),
                                             SKIP == 1 ? acc[j].y : fmaf(c, u.y, acc[j].y),
                                             SKIP == 2 ? acc[j].z : fmaf(c, u.z, acc[j].z),
                                             SKIP == 3 ? acc[j].w : fmaf(c, u.w, acc[j].w));
                    }
                }
            }
            unsigned words[Cfg::PYC];
#pragma unroll
            for (int j = 0; j < Cfg::PYC; ++j) {
                float v[4] = {adjusted<ADJUST>(acc[j].x, f.bias, f.absolute != 0),
                              adjusted<ADJUST>(acc[j].y, f.bias, f.absolute != 0),
                              adjusted<ADJUST>(acc[j].z, f.bias, f.absolute != 0),
                              adjusted<ADJUST>(acc[j].w, f.bias, f.absolute != 0)};
                if (C > 1 && copiedSamples != 0u) {
                    // A copied channel: the output row's own intermediate row, its source sample.
                    const float* own = column + (j + Cfg::R) * Cfg::SM;
                    if (OVERLAP && firstSlot + j + Cfg::R >= Cfg::RING) own -= Cfg::RING * Cfg::SM;
#pragma unroll
                    for (int k = 0; k < 4; ++k)
                        if ((copiedSamples >> k) & 1u) v[k] = own[k];
                }
                words[j] = packBytes(roundToInt(v[0]), roundToInt(v[1]), roundToInt(v[2]), roundToInt(v[3]));
            }
            std::uint8_t* const out = columnDst + std::size_t(unsigned(y0 + o0)) * dstPitch;
            if (o0 + Cfg::PYC <= ready && columnInside) {
#pragma unroll
                for (int j = 0; j < Cfg::PYC; ++j) *reinterpret_cast<unsigned*>(out + j * dstPitch) = words[j];
            } else {
#pragma unroll
                for (int j = 0; j < Cfg::PYC; ++j)
                    for (int b = 0; b < 4; ++b)
                        if (o0 + j < ready && colByte + b < rowBytes) out[j * dstPitch + b] = std::uint8_t(words[j] >> (8 * b));
            }
        }
        if constexpr (OVERLAP) {
            outDone = min(ready, outDone + Cfg::CH);
            if (rows > 0) {
                slot = nextSlot(slot);
                ready = min(outRows, first + rows - (K - 1));
                if (ready < outRows) ready &= ~(Cfg::PYC - 1);
            }
        } else {
            outDone = ready;
        }
        stageWait();
        __syncthreads();
    }
}

// How a launch lays out its blocks: segments for `waves` waves (fit: one wave's fitted to the chunks), one barrier a
// chunk (overlap), the edge strips' segments as long as the others' (evenSegments) or shorter (bytesPieces).
struct BytesShape {
    int waves;
    bool fit;
    bool overlap;
    bool evenSegments;
};

template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP, bool OVERLAP>
void launchBytesO(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    BytesParams<K> p = separableParams<BytesParams<K>, K>(frame, row, column);
    p.borderWord = frame.border == Border::Constant ? 0x01010101u * unsigned(frame.borderValue) : 0u;
    auto kernel = separableBytesKernel<K, C, ADJUST, MIN_BLOCKS, SKIP, OVERLAP>;
    allowDynamicSharedMemory(kernel, Cfg::SMEM);
    const int strips = (frame.width + Cfg::TW - 1) / Cfg::TW;
    // Edge strips: those whose staged span reaches outside the row (bytes built through borderIndex).
    const int edgeStrips = edgeStripCount(frame.width, Cfg::TW, Cfg::LEAD);
    const int resident = residentBlocksPerSm(kernel, Cfg::THREADS, Cfg::SMEM);
    const BytesPieces pieces =
        bytesPieces(strips, edgeStrips, frame.height, K, Cfg::CH, resident, shape.waves, shape.fit,
                    currentDeviceMultiprocessors(), shape.evenSegments ? 1.0 : bytesEdgeChunkCost(C));
    p.grid = edgeFirstGrid(frame.width, frame.height, Cfg::TW, Cfg::LEAD,
                           (frame.height + pieces.segments - 1) / pieces.segments,
                           (frame.height + pieces.edgeSegments - 1) / pieces.edgeSegments);
    kernel<<<p.grid.blocks, Cfg::THREADS, Cfg::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableBytesKernel");
}

// overlap: one barrier a chunk (OVERLAP), its registers bounded for 3 blocks per SM, as many as its ring and two staged
// chunks leave room for at K = 31. One channel at K = 15 with 4 (64 registers, no spills) measured level with 3 (H100,
// twentieth session: 4K 24.2–24.3 against 24.1 µs, 1080p 10.9–11.0 both).
template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP = -1>
void launchBytesT(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    if (shape.overlap)
        launchBytesO<K, C, ADJUST, std::min(MIN_BLOCKS, 3), SKIP, true>(frame, row, column, stream, shape);
    else launchBytesO<K, C, ADJUST, MIN_BLOCKS, SKIP, false>(frame, row, column, stream, shape);
}

template <int K, int C, int MIN_BLOCKS>
void launchBytesK(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    if (frame.bias != 0.f || frame.absolute != 0)
        launchBytesT<K, C, true, MIN_BLOCKS>(frame, row, column, stream, shape);
    else launchBytesT<K, C, false, MIN_BLOCKS>(frame, row, column, stream, shape);
}

// Where one barrier a chunk measured faster than two (H100, nineteenth session, bench-convolve, final code against two
// barriers in the same runs, µs): GRAY8 K = 15 4K 24.4–24.5 → 23.8–24.0 (720p, 4 blocks per SM with two: 7.9 → 8.5),
// K = 31 1080p 15.8–16.1 → 14.9–15.2, 720p 11.7–11.9 → 11.2–11.4 (4K, 4 blocks per SM with two: 36.4–36.6 → 39.9);
// two channels K = 15 4K / 1080p / 720p 53.7–54.0 → 50.8–51.5 / 20.9–21.5 → 19.5–19.9 / 13.0–13.2 → 12.6–12.8,
// K = 31 720p 17.7–17.9 → 16.4–16.6 (1080p 27.8 → 28.9); packed RGB K = 15 720p 19.4–19.8 → 17.9–18.2 (1080p
// 30.8 → 32.4, 4K 86.1 → 90.0); RGBA K = 15 4K 107.3–108.1 → 100.5–101.5, 1080p 36.8–37.2 → 35.7–36.2, 720p
// 19.7–19.9 → 19.2–19.3; colour at K = 31 slower everywhere with that session's ring (mirrored rows, 2 blocks per
// SM: 4K RGBA 149.8 → 157.3).
// Since the ring has no mirrored rows (twentieth session, same runs against two barriers, µs), also 2 channels at K = 31
// 4K 80.8–81.1 → 73.9, 1080p 27.9 → 25.7–25.8; packed RGB K = 31 4K 135.5 → 127.7, 1080p 44.4 → 41.0–41.2, 720p
// 26.6–26.9 → 24.8–25.2; RGBA K = 31 4K 150.8–150.9 → 146.2–146.7, 1080p 49.7–49.8 → 48.0, 720p 28.5–28.7 → 27.5–27.8.
// Still two barriers: GRAY8 4K K = 31 (36.6–37.1 against 38.5–38.7 with 3 blocks per SM), GRAY8 K = 15 below
// 1.5 Mpixel (720p 7.9–8.0 against 8.2–8.3), packed RGB K = 15 from 1.5 Mpixel (4K 86.8–86.9 against 87.8–88.4, 1080p
// 30.9–31.1 against 31.8–32.0).
// Packed RGB since the edge strips' blocks go first (twenty-third session, same runs, µs, one barrier against two, each
// with the waves launchBytesC takes):
// K = 15 4K 67.0 against 71.4 with two barriers, 1080p 25.5 against 24.0; K = 31 1080p 34.4 against 38.0, 4K 112.7
// against 109.7.
// K = 9 (twenty-seventh session, H100, bench-convolve, two rounds, µs, the rule taken against the other): one channel
// 4K 16.1–16.2 one barrier against 16.5–16.6, 1080p 8.9–9.3 two against 9.3–9.4; packed RGB two barriers (4K, two
// waves, 49.7–49.8 against 50.0–50.3; 1080p 17.6–17.7 against 18.7–18.8); 2 and 4 channels one (1080p 12.5 against
// 13.1, 18.8–18.9 against 18.9–19.1; 4K, two waves, 31.1–31.2 against 33.7–33.8, 55.3–55.5 against 58.8–59.0).
// K = 7 (same session, same way): as K = 9 but packed RGB one barrier from 4 Mpixel too (two waves, 45.5–45.6 against
// 46.9–47.1); one channel 4K 15.1–15.3 against 15.8, 1080p 8.4–8.5 either way; 1080p packed RGB 16.8–16.9 against
// 17.8–17.9; 2 and 4 channels 4K 28.8–28.9 against 32.6–32.7, 51.7–52.0 against 56.9–57.0.
bool oneBarrierBest(int k, int channels, std::int64_t pixels) {
    switch (channels) {
    case 1: return k <= 9 ? pixels >= 4000000 : k == 15 ? pixels >= 1500000 : pixels < 4000000;
    case 3: return k == 31 ? pixels < 4000000 : k == 9 ? pixels < 1500000 : pixels < 1500000 || pixels >= 4000000;
    default: return true;
    }
}

template <int K>
void launchBytesC(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  BytesChoice choice) {
    // One and two channels: segments of one wave fitted to the chunks (bytesSegments) except under
    // BytesChoice::FullWaves. Through the element with frames resident (bench-pipeline --pipeline, H100, fourteenth
    // session, three runs each, against the full wave's segments): 1080p NV12 (luma) K = 31 67 047–67 683 fps against
    // 59 123–60 240, 720p 87 486–92 712 against 65 093–66 033, 1080p I420 planes=all 37 063–38 842 against 33 074–
    // 34 184; but 1080p NV12 planes=all (luma and UV planes side by side on two streams) 43 518–44 735 against
    // 46 527–46 844, and 38 255–38 992 against 42 966–44 584 with only the luma plane fitted.
    const bool fit = choice != BytesChoice::FullWaves;
    const bool even = choice == BytesChoice::EvenSegments;
    const bool other = choice == BytesChoice::Other || choice == BytesChoice::OtherOneBarrier;
    const std::int64_t pixels = std::int64_t(frame.width) * frame.height;
    const bool overlap = choice == BytesChoice::OneBarrier || choice == BytesChoice::OtherOneBarrier ||
                         ((choice == BytesChoice::Best || even) && oneBarrierBest(K, frame.inChannels, pixels));
    if (frame.inChannels == 1) {
        // H100, 2026-11-26 (bench-convolve, same run): 4K K = 15 23.7 µs with 3 blocks per SM against 24.0 with 4,
        // 1080p 10.6 against 11.7; K = 31 4K 36.0 with 4 against 36.9, 1080p 16.0 against 17.6. Since the fifteenth
        // session 4 at K = 15 below 1.5 Mpixel too, with the fitted segments (same runs): 1280 × 720 7.9–8.0
        // against 8.6–8.7, 640 × 480 6.3 both ways, 1080p 10.8–10.9 against 11.0.
        // K = 7 and 9: 4 where they take two barriers (twenty-seventh session, same runs, 1080p: K = 9 8.9–9.3 against
        // 8.9–9.1 with 3, K = 7 8.4–8.5 against 8.3–8.4; level).
        const bool four = K != 15 || pixels < 1500000;
        const BytesShape shape{1, fit, overlap, even};
        return four != other ? launchBytesK<K, 1, 4>(frame, row, column, stream, shape)
                             : launchBytesK<K, 1, 3>(frame, row, column, stream, shape);
    }
    // Segments fitted to the chunks for 2 channels only. Until the twenty-second session, segments for two waves on
    // frames of 4 Mpixel and more (2 Mpixel for 3 and 4 channels), else one. H100, thirteenth session: 4K RGBA K = 15 /
    // 31 107.5 / 185.3 µs against 120.0 / 193.3 with one wave, 2-channel 3840 × 2160 52.6 / 80.5 against 58.0 / 83.0,
    // 1080p 2-channel K = 31 27.7 with one wave against 34.8. Fourteenth session, through the element with frames
    // resident (bench-pipeline --pipeline, three runs each): 1080p packed RGB K = 31 29 650–30 184 fps with two waves
    // against 26 534–27 092 with one, RGBA K = 15 37 468–38 340 against 33 820–35 291, RGBA K = 31 26 910–27 508
    // against 27 255–28 093; fitting measured no faster for 3 and 4 channels (720p RGBA K = 31 29.7 against 30.0 µs).
    // Other: the other number of waves.
    // Since the edge strips' blocks go first (twenty-third session, H100, bench-convolve, same runs, µs, one wave
    // against two): one wave everywhere but packed RGB at K = 15 from 4 Mpixel (67.0 with two waves against 68.4).
    // 4K RGBA K = 31 120.9 against 123.3, 1080p RGBA K = 15 / 31 26.6 / 37.4 against 27.7 / 39.3, 4K two channels
    // K = 31 66.2 against 67.3 (K = 15 41.3 against 41.1), packed RGB K = 31 4K 109.7 against 111.4 (with two
    // barriers), 1080p 34.4 against 36.8, K = 15 1080p 24.0 against 26.5 (with two barriers).
    // K = 7 and 9: two waves for 2 to 4 channels from 4 Mpixel (twenty-seventh session, H100, same runs, µs; K = 9):
    // 4K packed RGB 49.7–49.8 against 55.5–55.6 with one, RGBA 55.3–55.5 against 56.4–56.5, two channels 31.1–31.2
    // against 32.6–32.7; at 1080p one (RGB 17.6 against 19.6, RGBA 18.8–18.9 against 20.8–21.2, two channels 12.5
    // against 14.5–14.6).
    const bool twoWaves = (K <= 9 || (frame.inChannels == 3 && K == 15)) && pixels >= 4000000;
    const int waves = other == twoWaves ? 1 : 2;
    switch (frame.inChannels) {
    case 2: return launchBytesK<K, 2, 3>(frame, row, column, stream, {waves, fit, overlap, even});
    case 3: return launchBytesK<K, 3, 4>(frame, row, column, stream, {waves, false, overlap, even});
    default: {
        // The alpha (or padding) byte of RGBA / BGRA / RGBx / BGRx (last) and ARGB / ABGR / xRGB / xBGR (first)
        // copied: its column sums left out (H100, fourteenth session, same runs: 4K RGBA Gaussian K = 31 158.0–158.3
        // -> 150.8–151.0 µs, 1080p 52.2–52.5 -> 50.0–50.4, K = 15 108.9–109.0 -> 107.5–107.9).
        const unsigned copied = frame.copy & ~frame.mask & 0xFu;
        const bool plain = frame.bias == 0.f && frame.absolute == 0;
        if (plain && copied == 0x8u)
            return launchBytesT<K, 4, false, 3, 3>(frame, row, column, stream, {waves, false, overlap, even});
        if (plain && copied == 0x1u)
            return launchBytesT<K, 4, false, 3, 0>(frame, row, column, stream, {waves, false, overlap, even});
        return launchBytesK<K, 4, 3>(frame, row, column, stream, {waves, false, overlap, even});
    }
    }
}

}  // namespace

// Row segments per strip. A block's row pass takes CH intermediate rows a chunk, a lane a row, so a chunk costs the
// same whether or not all its rows are used, and the blocks an SM holds share its issue slots: the busiest SM runs
// about ⌈blocks / SMs⌉ × ⌈(segment + K − 1) / CH⌉ chunks. fit (one wave): the number of segments that needs the
// fewest, counting a chunk of 2 blocks per SM as 1.25 (fewer warps hide less latency: H100, 4K GRAY8 K = 31, 20
// chunks an SM at 2 blocks per SM 40.4 µs, at 4 36.8), at least 2 blocks per SM where the frame has that many (one
// leaves the SM idle at every barrier), ties to the most segments; else as many segments as fill `waves` waves.
// H100, 2026-11-26 (fourteenth session), GRAY8 1080p K = 31: 35 segments of 31 rows (4 blocks per SM, 2 chunks
// each) 16.3 µs, 17 of 64 (2 per SM, 3 chunks each) 15.3–15.6.
namespace {
// Row-pass chunks of chunkRows rows a block of a strip cut into `segments` segments runs (its rows and K − 1 more).
int segmentChunks(int height, int segments, int k, int chunkRows) {
    const int segment = (height + segments - 1) / segments;
    return (segment + k - 1 + chunkRows - 1) / chunkRows;
}
}  // namespace

int bytesSegments(int strips, int height, int k, int chunkRows, int slotsPerSm, int waves, bool fit, int multiprocessors) {
    const std::int64_t sms = multiprocessors;
    const int full = int(std::max<std::int64_t>(1, std::min<std::int64_t>(height, sms * slotsPerSm * waves / strips)));
    if (!fit || waves != 1) return full;
    const bool twoPerSm = std::int64_t(strips) * full > sms;
    int best = full;
    std::int64_t bestCost = -1;
    for (int n = full; n >= 1; --n) {
        const std::int64_t perSm = (std::int64_t(strips) * n + sms - 1) / sms;
        if (twoPerSm && perSm < 2) break;
        const std::int64_t chunks = perSm * segmentChunks(height, n, k, chunkRows);
        const std::int64_t cost = chunks * (perSm <= 2 ? 5 : 4);
        if (bestCost < 0 || cost < bestCost) best = n, bestCost = cost;
    }
    return best;
}

// An edge block's words outside the row are built byte by byte, C words a row. One channel, 4K, H100, twenty-second
// session (block timings): edge blocks 27.3 against 22.6 µs at K = 31, 16.8 against 13.6 at K = 15. Across channel
// counts 0.1 a channel measured best (twenty-third session, bench-convolve, same runs, µs, 0.1 / 0.2 / 0.35 a channel /
// one channel only at 0.2): 1080p RGBA K = 31 39.3 / 43.5 / 43.9 / 41.2, packed RGB K = 31 36.8 / 40.4 / 40.4 / 40.6,
// RGBA K = 15 27.6 / 30.0 / 30.0 / 29.8; 4K two channels K = 15 41.3 / 40.8 / 46.0 / 42.2; one channel alike.
double bytesEdgeChunkCost(int channels) {
    return 1.0 + 0.1 * channels;
}

BytesPieces bytesPieces(int strips, int edgeStrips, int height, int k, int chunkRows, int slotsPerSm, int waves,
                        bool fit, int multiprocessors, double edgeChunkCost) {
    const int inner = bytesSegments(strips, height, k, chunkRows, slotsPerSm, waves, fit, multiprocessors);
    BytesPieces pieces{inner, inner};
    if (edgeStrips <= 0 || edgeStrips >= strips || edgeChunkCost <= 1.0) return pieces;
    if (waves != 1) {
        // Blocks taken as slots free up: edge blocks as long as the others.
        pieces.edgeSegments = int(std::min<double>(height, std::ceil(inner * edgeChunkCost)));
        return pieces;
    }
    const auto chunks = [&](int segments) { return segmentChunks(height, segments, k, chunkRows); };
    const std::int64_t sms = multiprocessors;
    const std::int64_t innerBlocks = std::int64_t(strips - edgeStrips) * inner;
    const std::int64_t busiest = (innerBlocks + std::int64_t(edgeStrips) * inner + sms - 1) / sms;
    const int innerChunks = chunks(inner);
    // The fewest edge segments whose blocks cost no more than an inner one, else the nearest to that, as long as no SM
    // holds more blocks than before.
    for (int c = std::max(1, int(innerChunks / edgeChunkCost)); c < innerChunks; ++c) {
        const int rows = c * chunkRows - (k - 1);
        if (rows <= 0) continue;
        const int segments = std::min(height, (height + rows - 1) / rows);
        if (segments <= inner || chunks(segments) > c) continue;
        const std::int64_t blocks = innerBlocks + std::int64_t(edgeStrips) * segments;
        if ((blocks + sms - 1) / sms > busiest || blocks > sms * slotsPerSm) continue;
        pieces.edgeSegments = segments;
        break;
    }
    return pieces;
}

bool separableBytesApplies(SampleType type, int k, const ConvFrame& f) {
    const auto aligned = [](const void* data, std::size_t pitch, std::size_t to) {
        return reinterpret_cast<std::uintptr_t>(data) % to == 0 && pitch % to == 0;
    };
    const int c = f.inChannels;
    const unsigned all = (1u << c) - 1u;
    return type == SampleType::U8 && (k == 7 || k == 9 || k == 15 || k == 31) && c >= 1 && c <= 4 &&
           f.outChannels == c && (f.mask & all) != 0u && ((f.mask | f.copy) & all) == all && plainBytes(f) &&
           f.width > 0 && f.height > 0 && f.rowAlign >= 16 && aligned(f.dst, f.dstPitch, 4) &&
           f.srcPitch <= 0xFFFFFFFFu && f.dstPitch <= 0xFFFFFFFFu &&
           (f.border != Border::Constant ||
            (f.borderValue >= 0.f && f.borderValue <= 255.f && f.borderValue == std::floor(f.borderValue)));
}

bool launchSeparableBytes(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                          cudaStream_t stream, BytesChoice choice) {
    if (!separableBytesApplies(type, k, frame)) return false;
    switch (k) {
    case 7: launchBytesC<7>(frame, row, column, stream, choice); break;
    case 9: launchBytesC<9>(frame, row, column, stream, choice); break;
    case 15: launchBytesC<15>(frame, row, column, stream, choice); break;
    default: launchBytesC<31>(frame, row, column, stream, choice); break;
    }
    return true;
}

}  // namespace cudafilters::cuda_detail
