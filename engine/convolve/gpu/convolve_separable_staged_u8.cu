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
// Why: the general streaming kernel (convolve_separable_stream.cu: every channel count, u8 and u16) spends about half
// its issued instructions outside the FMAs, on per-word placement, border and edge tests, byte stores and ring
// arithmetic; this one issues about a third fewer instructions, most of them FMAs. 256 threads with 16 outputs a run
// (with 32 outputs a run the instruction cache stalls), edge bytes staged by the whole block, 4 blocks per SM and
// cp.async staging are each chosen with `bench-convolve --size 3840x2160 --ks 15,31` (build-bench); the instruction
// mix is read with `bench/tools/instruction-mix.sh`. Words are staged by one multiply and a cp.async from a place
// computed once (chunks inside the frame), and the column pass stores its words after its roundings.
// The grid is 1-D, the edge strips' blocks first and, in one wave, in shorter segments (bytesPieces): edge blocks run
// longest (their byte staging), the blocks an SM holds end in the order they were dispatched, and the oldest warps are
// issued first, so the longest blocks start first (timed with `bench-convolve --size 3840x2160 --ks 15,31`).
// Colour frames are bound by shared memory, mostly bank-conflict replays of the row pass's sample stores: hence the
// copied channel known at compile time (SKIP) and the row-pass lanes turning channel by quarter warp (laneChannel).
// `bench/tools/launch-tool.sh separable-ceiling` times the bound a bit-exact separable u8 filter could reach (each
// output's own work only: no halo, no shared memory, no recomputed rows), for comparison with this kernel.
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

template <int K, int C, bool OVERLAP>
using BytesStaged = uint4[BytesConfig<K, C, OVERLAP>::STAGES][BytesConfig<K, C, OVERLAP>::CH][BytesConfig<K, C, OVERLAP>::SPAN + 1];

// What staging a chunk's source rows takes: the strip row's span (SPAN 16-byte words from byte spanByte of a row,
// those from firstInside to rightOut wholly inside the frame) and this thread's words of every chunk, placed once.
template <int ITEMS> struct BytesStage {
    int y0, total;
    int spanByte, firstInside, rightOut;
    bool edgeBlock;
    uint4 borderWords;
    const std::uint8_t* spanSrc;
    unsigned srcPitch;
    int itemRow[ITEMS], itemByte[ITEMS];
    unsigned itemShared[ITEMS];
};

// Stages the chunk from intermediate row `first` into staged[buffer]. Chunks whose rows all lie inside the frame
// take each word's address straight from its row: one multiply and a cp.async, where borderIndex, the index
// arithmetic and the generic shared address take about forty instructions. Words not wholly inside the frame are
// built byte by byte by all the threads, so that the edge strips are not held up by one warp.
template <int K, int C, bool OVERLAP, int ITEMS>
__device__ __forceinline__ void stageChunk(const BytesParams<K>& p, BytesStaged<K, C, OVERLAP>& staged,
                                           const BytesStage<ITEMS>& st, int t, int buffer, int first) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    const ConvFrame& f = p.f;
    constexpr unsigned kStageBytes = sizeof(staged[0]);
    const int firstRow = st.y0 - Cfg::R + first;
    if (firstRow >= 0 && firstRow + Cfg::CH <= f.height) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            if (first + st.itemRow[k] >= st.total) continue;
            const std::uint8_t* src =
                st.spanSrc + std::size_t(unsigned(firstRow + st.itemRow[k])) * st.srcPitch + st.itemByte[k];
#if CUDAFILTERS_CP_ASYNC
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :
                         : "r"(st.itemShared[k] + unsigned(buffer) * kStageBytes), "l"(src)
                         : "memory");
#else
            stageWord(&staged[buffer][st.itemRow[k]][st.itemByte[k] / 16], src);
#endif
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int row = st.itemRow[k];
            if (first + row >= st.total) continue;
            const int gy = borderIndex(firstRow + row, f.height, f.border);
            uint4* word = &staged[buffer][row][st.itemByte[k] / 16];
            if (gy >= 0) stageWord(word, st.spanSrc + std::size_t(gy) * f.srcPitch + st.itemByte[k]);
            else *word = st.borderWords;
        }
    }
    stageCommit();
    if (!st.edgeBlock) return;
    constexpr int kPerRow = Cfg::THREADS / Cfg::CH;  // threads a row, bytes part, part + kPerRow, … of a word each
    const int row = t / kPerRow, part = t % kPerRow;
    if (first + row >= st.total) return;
    const int gy = borderIndex(st.y0 - Cfg::R + first + row, f.height, f.border);
    const std::uint8_t* src = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
    auto stageBytes = [&](int w) {
        std::uint8_t* word = reinterpret_cast<std::uint8_t*>(&staged[buffer][row][w]);
#pragma unroll
        for (int e = part; e < 16; e += kPerRow) {
            const int b = st.spanByte + 16 * w + e;  // byte of the row, may lie outside it
            const int x = b >= 0 ? b / C : -((C - 1 - b) / C), ch = b - x * C;
            const int gx = borderIndex(x, f.width, f.border);
            word[e] = std::uint8_t(src == nullptr || gx < 0 ? p.borderWord : unsigned(__ldg(src + gx * C + ch)));
        }
    };
    for (int w = 0; w < st.firstInside; ++w) stageBytes(w);
    for (int w = st.rightOut; w < Cfg::SPAN; ++w) stageBytes(w);
}

// A row-pass lane's run: its row of each chunk, its channel and first pixel, its first staged word, whether its
// channel is copied, and the byte permutes picking byte k + runChannel of a word as a float's low byte.
struct BytesRun {
    int runRow, runChannel, runPixel, runWord;
    bool runCopies;
    unsigned pick[4];
};

// Row pass of the chunk's `rows` intermediate rows from staged[buffer] into the ring from this thread's `slot`.
template <int K, int C, bool OVERLAP>
__device__ __forceinline__ void bytesRowPass(const BytesParams<K>& p, const BytesStaged<K, C, OVERLAP>& staged,
                                             float* mid, const BytesRun& rn, int buffer, int rows, int slot) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    if (rn.runRow < rows) {
        float acc[Cfg::PX];
        unsigned words[4 * Cfg::LOADS];  // the run's staged bytes as 32-bit words
#pragma unroll
        for (int q = 0; q < Cfg::LOADS; ++q) {
            const uint4 word = staged[buffer][rn.runRow][rn.runWord + q];
            words[4 * q] = word.x;
            words[4 * q + 1] = word.y;
            words[4 * q + 2] = word.z;
            words[4 * q + 3] = word.w;
        }
        // Window sample j (pixel runPixel − R + j) is byte (D + j) · C + runChannel of those words: one byte permute
        // and one subtraction; with 3 channels the byte may lie in the next word, so it is picked from the pair first.
        auto sample = [&](int j) {
            const int b = (Cfg::D + j) * C;
            if constexpr (C == 3) {
                const unsigned next = b / 4 + 1 < 4 * Cfg::LOADS ? words[b / 4 + 1] : 0u;
                const unsigned byte = __byte_perm(words[b / 4], next, rn.pick[b % 4] & 0xFu);
                return __uint_as_float(__byte_perm(byte, 0x4B00u, 0x5440u)) - 8388608.f;
            } else {
                return __uint_as_float(__byte_perm(words[b / 4], 0x4B00u, rn.pick[b % 4])) - 8388608.f;
            }
        };
        if (rn.runCopies) {
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
        float* out = mid + slot * Cfg::SM + rn.runPixel * C + rn.runChannel;
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
}

// A column-pass thread's place: 4 samples of a row (sample k is channel (4 quad + k) % C) and a band of PYC rows.
struct BytesColumn {
    int quad, band, colByte;
    bool columnInside;
    std::uint8_t* columnDst;
    std::size_t dstPitch;
    unsigned copiedSamples;  // of the 4 samples, those of channels copied unfiltered
    int rowBytes;
};

// Column pass of this thread's PYC output rows from o0 (those before `ready`), rounded four samples at a time and
// stored as one 4-byte word a row where the words lie inside the frame.
template <int K, int C, bool ADJUST, int SKIP, bool OVERLAP>
__device__ __forceinline__ void bytesColumnPass(const BytesParams<K>& p, const float* mid, const BytesColumn& col,
                                                int y0, int o0, int ready) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    const ConvFrame& f = p.f;
    const int firstSlot = o0 % Cfg::RING;
    const float* column = mid + firstSlot * Cfg::SM + 4 * col.quad;
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
        const float4 u =
            *reinterpret_cast<const float4*>(OVERLAP ? group + i % Cfg::PYC * Cfg::SM : column + i * Cfg::SM);
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
        if (C > 1 && col.copiedSamples != 0u) {
            // A copied channel: the output row's own intermediate row, its source sample.
            const float* own = column + (j + Cfg::R) * Cfg::SM;
            if (OVERLAP && firstSlot + j + Cfg::R >= Cfg::RING) own -= Cfg::RING * Cfg::SM;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if ((col.copiedSamples >> k) & 1u) v[k] = own[k];
        }
        words[j] = packBytes(roundToInt(v[0]), roundToInt(v[1]), roundToInt(v[2]), roundToInt(v[3]));
    }
    std::uint8_t* const out = col.columnDst + std::size_t(unsigned(y0 + o0)) * col.dstPitch;
    if (o0 + Cfg::PYC <= ready && col.columnInside) {
#pragma unroll
        for (int j = 0; j < Cfg::PYC; ++j) *reinterpret_cast<unsigned*>(out + j * col.dstPitch) = words[j];
    } else {
#pragma unroll
        for (int j = 0; j < Cfg::PYC; ++j)
            for (int b = 0; b < 4; ++b)
                if (o0 + j < ready && col.colByte + b < col.rowBytes)
                    out[j * col.dstPitch + b] = std::uint8_t(words[j] >> (8 * b));
    }
}

// The chunks' staging, placed once per block (BytesStage).
template <int K, int C, bool OVERLAP, int ITEMS>
__device__ __forceinline__ void placeStage(const BytesParams<K>& p, BytesStaged<K, C, OVERLAP>& staged, int x0, int y0,
                                           int total, int rowBytes, int t, BytesStage<ITEMS>& st) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    const ConvFrame& f = p.f;
    st.y0 = y0, st.total = total;
    st.spanByte = (x0 - Cfg::LEAD) * C;
    st.firstInside = st.spanByte < 0 ? (-st.spanByte + 15) / 16 : 0;
    st.rightOut = min(Cfg::SPAN, (rowBytes - st.spanByte) / 16);
    st.edgeBlock = st.firstInside > 0 || st.rightOut < Cfg::SPAN;
    st.borderWords = make_uint4(p.borderWord, p.borderWord, p.borderWord, p.borderWord);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int item = t + k * Cfg::THREADS, row = min(item / Cfg::SPAN, Cfg::CH - 1), w = item % Cfg::SPAN;
        const bool mine = item < Cfg::CH * Cfg::SPAN && w >= st.firstInside && w < st.rightOut;
        st.itemRow[k] = mine ? row : Cfg::CH << 16;  // a row no chunk has
        st.itemByte[k] = 16 * w;
        st.itemShared[k] = unsigned(__cvta_generic_to_shared(&staged[0][row][w]));
    }
    st.spanSrc = f.src + st.spanByte;
    st.srcPitch = unsigned(f.srcPitch);  // below 4 GiB (separableStagedU8Applies)
}

// This thread's column-pass place (BytesColumn).
template <int K, int C, int SKIP, bool OVERLAP>
__device__ __forceinline__ void placeColumn(const ConvFrame& f, int x0, int rowBytes, int t, unsigned copied,
                                            BytesColumn& col) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    col.rowBytes = rowBytes;
    col.quad = t % (Cfg::TB / 4), col.band = t / (Cfg::TB / 4);
    col.colByte = x0 * C + 4 * col.quad;
    col.columnInside = col.colByte + 4 <= rowBytes;
    col.columnDst = f.dst + col.colByte;
    col.dstPitch = unsigned(f.dstPitch);  // below 4 GiB (separableStagedU8Applies)
    // SKIP: known at compile time, the copy is one shared load a row, where testing the flags bit by bit at run time
    // reloads them from constant memory every row.
    col.copiedSamples = 0;
    if constexpr (SKIP >= 0) {
        col.copiedSamples = 1u << SKIP;
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) col.copiedSamples |= ((copied >> ((4 * col.quad + k) % C)) & 1u) << k;
    }
}

// SKIP (4 channels): a channel copied unfiltered whose column sums are not computed at all (-1: none; the copied
// channels are then summed and replaced).
// The chunk loop stays in the kernel, not in a step: its barriers, the ring slot and the rows ready for the column
// pass are one protocol between the row and column passes, read together.
template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP = -1, bool OVERLAP = false>
__global__ void __launch_bounds__(BytesConfig<K, C, OVERLAP>::THREADS, MIN_BLOCKS)
    separableStagedU8Kernel(const __grid_constant__ BytesParams<K> p) {
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
    const unsigned copied = f.copy & ~f.mask & kAll;  // the others are filtered (separableStagedU8Applies)
    static_assert(SKIP < 0 || C == 4);

    // Row pass: the 8 threads of a quarter warp take 8 consecutive rows of one run, so their 16-byte shared accesses
    // fall on distinct banks. With 2 to 4 channels the quarters take different channels of the run's pixels
    // (laneChannel), so that the sample stores of a quarter fall on other banks than the next quarter's.
    BytesRun rn;
    rn.runRow = t % 32;
    const int run = t / 32;
    rn.runChannel = laneChannel<C, SKIP>(run % C, rn.runRow / 8), rn.runPixel = Cfg::PX * (run / C);
    rn.runWord = rn.runPixel * C / 16;
    rn.runCopies = SKIP >= 0 ? rn.runChannel == SKIP : C > 1 && ((copied >> rn.runChannel) & 1u);
#pragma unroll
    for (int k = 0; k < 4; ++k) rn.pick[k] = 0x5440u + unsigned(k + rn.runChannel);

    // A chunk's source rows, staged by cp.async while a column pass runs (OVERLAP: a row pass and a column pass); one
    // spare word a row, so that a run's lanes read on distinct banks.
    __shared__ uint4 staged[Cfg::STAGES][Cfg::CH][Cfg::SPAN + 1];
    constexpr int ITEMS = (Cfg::CH * Cfg::SPAN + Cfg::THREADS - 1) / Cfg::THREADS;
    BytesStage<ITEMS> st;
    placeStage<K, C, OVERLAP>(p, staged, x0, y0, total, rowBytes, t, st);

    BytesColumn col;
    placeColumn<K, C, SKIP, OVERLAP>(f, x0, rowBytes, t, copied, col);
    const auto nextSlot = [](int slot) {
        return slot + Cfg::CH >= Cfg::RING ? slot + Cfg::CH - Cfg::RING : slot + Cfg::CH;
    };

    int slot = rn.runRow;  // ring slot of this thread's row-pass row
    int outDone = 0, ready = 0;
    stageChunk<K, C, OVERLAP>(p, staged, st, t, 0, 0);
    stageWait();
    __syncthreads();
    // Two barriers a chunk: its row pass, a barrier, its column pass while the next chunk is staged, a barrier.
    // OVERLAP, one: the next chunk staged, this chunk's row pass and the previous chunk's column pass side by side, a
    // barrier. Until the last chunk, its column pass stops at a multiple of PYC rows, so that no band reads the rows
    // the row pass beside it writes; the rows after the last chunk take one or two more column passes.
    for (int first = 0, buffer = 0; first < total || (OVERLAP && outDone < outRows);
         first += Cfg::CH, buffer ^= Cfg::STAGES - 1) {
        const int rows = min(Cfg::CH, total - first);  // none past the last chunk
        if constexpr (OVERLAP) stageChunk<K, C, OVERLAP>(p, staged, st, t, buffer ^ 1, first + Cfg::CH);
        bytesRowPass<K, C, OVERLAP>(p, staged, mid, rn, buffer, rows, slot);
        if constexpr (!OVERLAP) {
            slot = nextSlot(slot);
            __syncthreads();
            stageChunk<K, C, OVERLAP>(p, staged, st, t, 0, first + Cfg::CH);  // read after the barrier below
            ready = min(outRows, first + rows - (K - 1));
        }
        // Column pass over the output rows whose K intermediate rows are in the ring, a chunk's at most.
        const int o0 = outDone + Cfg::PYC * col.band;
        if (o0 < ready && col.colByte < rowBytes) bytesColumnPass<K, C, ADJUST, SKIP, OVERLAP>(p, mid, col, y0, o0, ready);
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
// chunk (overlap), the edge strips' segments shorter than the others' (bytesPieces).
struct BytesShape {
    int waves;
    bool fit;
    bool overlap;
};

template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP, bool OVERLAP>
void launchStagedU8Instance(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    using Cfg = BytesConfig<K, C, OVERLAP>;
    BytesParams<K> p = separableParams<BytesParams<K>, K>(frame, row, column);
    p.borderWord = frame.border == Border::Constant ? 0x01010101u * unsigned(frame.borderValue) : 0u;
    auto kernel = separableStagedU8Kernel<K, C, ADJUST, MIN_BLOCKS, SKIP, OVERLAP>;
    allowDynamicSharedMemory(kernel, Cfg::SMEM);
    const int strips = (frame.width + Cfg::TW - 1) / Cfg::TW;
    // Edge strips: those whose staged span reaches outside the row (bytes built through borderIndex).
    const int edgeStrips = edgeStripCount(frame.width, Cfg::TW, Cfg::LEAD);
    const int resident = residentBlocksPerSm(kernel, Cfg::THREADS, Cfg::SMEM);
    const BytesPieces pieces =
        bytesPieces(strips, edgeStrips, frame.height, K, Cfg::CH, resident, shape.waves, shape.fit,
                    currentDeviceMultiprocessors(), bytesEdgeChunkCost(C));
    p.grid = edgeFirstGrid(frame.width, frame.height, Cfg::TW, Cfg::LEAD,
                           (frame.height + pieces.segments - 1) / pieces.segments,
                           (frame.height + pieces.edgeSegments - 1) / pieces.edgeSegments);
    kernel<<<p.grid.blocks, Cfg::THREADS, Cfg::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableStagedU8Kernel");
}

// overlap: one barrier a chunk (OVERLAP), its registers bounded for 3 blocks per SM, as many as its ring and two staged
// chunks leave room for at K = 31. One channel at K = 15 with 4 (64 registers, no spills) measures level with 3.
template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP = -1>
void launchStagedU8Barriers(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    if (shape.overlap)
        launchStagedU8Instance<K, C, ADJUST, std::min(MIN_BLOCKS, 3), SKIP, true>(frame, row, column, stream, shape);
    else launchStagedU8Instance<K, C, ADJUST, MIN_BLOCKS, SKIP, false>(frame, row, column, stream, shape);
}

template <int K, int C, int MIN_BLOCKS>
void launchStagedU8Adjusted(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream,
                  const BytesShape& shape) {
    if (frame.bias != 0.f || frame.absolute != 0)
        launchStagedU8Barriers<K, C, true, MIN_BLOCKS>(frame, row, column, stream, shape);
    else launchStagedU8Barriers<K, C, false, MIN_BLOCKS>(frame, row, column, stream, shape);
}

// Where one barrier a chunk (OVERLAP) measures faster than two: 2 and 4 channels always; one channel at K = 7 and 9
// from 4 Mpixel, at K = 15 from 1.5 Mpixel, at K = 31 below 4 Mpixel; packed RGB at K = 31 below 4 Mpixel, at K = 9
// below 1.5 Mpixel, at K = 7 and 15 below 1.5 Mpixel and from 4 Mpixel. Chosen with `bench-convolve --ks 7,9,15,31`
// at 1280x720, 1920x1080 and 3840x2160 (build-bench), with the waves launchStagedU8 takes.
bool oneBarrierBest(int k, int channels, std::int64_t pixels) {
    switch (channels) {
    case 1: return k <= 9 ? pixels >= 4000000 : k == 15 ? pixels >= 1500000 : pixels < 4000000;
    case 3: return k == 31 ? pixels < 4000000 : k == 9 ? pixels < 1500000 : pixels < 1500000 || pixels >= 4000000;
    default: return true;
    }
}

template <int K>
void launchStagedU8(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    // One and two channels: segments of one wave fitted to the chunks (bytesSegments), chosen through the element with
    // frames resident (`bench-pipeline --pipeline`, e.g. 1080p and 720p NV12 or I420 Gaussian K = 31).
    const std::int64_t pixels = std::int64_t(frame.width) * frame.height;
    const bool overlap = oneBarrierBest(K, frame.inChannels, pixels);
    if (frame.inChannels == 1) {
        // 4 blocks per SM, except 3 at K = 15 from 1.5 Mpixel (under one barrier a chunk at most 3:
        // launchStagedU8Barriers). Chosen with `bench-convolve --ks 7,9,15,31` at 640x480, 1280x720, 1920x1080 and 3840x2160 (build-bench).
        const bool four = K != 15 || pixels < 1500000;
        const BytesShape shape{1, true, overlap};
        return four ? launchStagedU8Adjusted<K, 1, 4>(frame, row, column, stream, shape)
                    : launchStagedU8Adjusted<K, 1, 3>(frame, row, column, stream, shape);
    }
    // Two to four channels. Segments fitted to the chunks for 2 channels only (fitting measures no faster for 3 and 4).
    // One wave, except two for K = 7 and 9, and for packed RGB at K = 15, from 4 Mpixel. Chosen with
    // `bench-convolve --size 3840x2160 --ks 7,9,15,31` and `--size 1920x1080` (build-bench), on the edge-first grid of
    // bytesPieces.
    const bool twoWaves = (K <= 9 || (frame.inChannels == 3 && K == 15)) && pixels >= 4000000;
    const int waves = twoWaves ? 2 : 1;
    switch (frame.inChannels) {
    case 2: return launchStagedU8Adjusted<K, 2, 3>(frame, row, column, stream, {waves, true, overlap});
    case 3: return launchStagedU8Adjusted<K, 3, 4>(frame, row, column, stream, {waves, false, overlap});
    default: {
        // The alpha (or padding) byte of RGBA / BGRA / RGBx / BGRx (last) and ARGB / ABGR / xRGB / xBGR (first)
        // copied: its column sums left out (SKIP), which measures faster on the RGBA Gaussian rows of
        // `bench-convolve --ks 15,31` (build-bench).
        const unsigned copied = frame.copy & ~frame.mask & 0xFu;
        const bool plain = frame.bias == 0.f && frame.absolute == 0;
        if (plain && copied == 0x8u)
            return launchStagedU8Barriers<K, 4, false, 3, 3>(frame, row, column, stream, {waves, false, overlap});
        if (plain && copied == 0x1u)
            return launchStagedU8Barriers<K, 4, false, 3, 0>(frame, row, column, stream, {waves, false, overlap});
        return launchStagedU8Adjusted<K, 4, 3>(frame, row, column, stream, {waves, false, overlap});
    }
    }
}

}  // namespace

// Row segments per strip. A block's row pass takes CH intermediate rows a chunk, a lane a row, so a chunk costs the
// same whether or not all its rows are used, and the blocks an SM holds share its issue slots: the busiest SM runs
// about ⌈blocks / SMs⌉ × ⌈(segment + K − 1) / CH⌉ chunks. fit (one wave): the number of segments that needs the
// fewest, counting a chunk of 2 blocks per SM as 1.25 (fewer warps hide less latency), at least 2 blocks per SM where
// the frame has that many (one leaves the SM idle at every barrier), ties to the most segments; else as many segments
// as fill `waves` waves. E.g. GRAY8 1080p K = 31 takes 17 segments of 64 rows (2 blocks per SM, 3 chunks each), not a
// full wave's 35 of 31 (4 per SM, 2 chunks each): `bench-convolve --size 1920x1080 --ks 31` (build-bench).
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

// An edge block's words outside the row are built byte by byte, C words a row, so its chunks cost more than an inner
// block's: 1 + 0.1 a channel, chosen with `bench-convolve --size 1920x1080 --ks 15,31` and `--size 3840x2160`
// (build-bench).
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

bool separableStagedU8Applies(SampleType type, int k, const ConvFrame& f) {
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

bool launchSeparableStagedU8(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                             cudaStream_t stream) {
    if (!separableStagedU8Applies(type, k, frame)) return false;
    switch (k) {
    case 7: launchStagedU8<7>(frame, row, column, stream); break;
    case 9: launchStagedU8<9>(frame, row, column, stream); break;
    case 15: launchStagedU8<15>(frame, row, column, stream); break;
    default: launchStagedU8<31>(frame, row, column, stream); break;
    }
    return true;
}

}  // namespace cudafilters::cuda_detail
