// SPDX-License-Identifier: LGPL-2.1-or-later
// Register-window K×K correlation for u8 frames of 1 to 4 interleaved channels at small K: separable plans (K = 3, 5;
// 7 for one channel) and direct plans of one kernel at K = 3 (5 for one channel). No shared memory and no barrier.
//
// A warp walks a strip of 32 · PX pixels down a segment of rows; each lane holds PX consecutive pixels of a source
// row, all channels, as one to four words, loaded K − 1 rows ahead. Per source row a lane converts its filtered
// samples, takes the R pixels on either side from its neighbour lanes by shuffles and adds the row into the K sums
// (registers) of the output rows it feeds, in tap order: for a separable plan its row pass times that output row's
// column tap, for a direct plan the row's K taps of that output row. The sum that took its last tap is finished and
// stored as whole words. Lanes 0 and 31 only lend their pixels: a warp outputs 30 · PX pixels, and neighbouring
// strips overlap by 2 · PX. Every source row is loaded, and every intermediate row computed, once per segment.
//
// Why: at small K the shared-memory kernels spend most of their instructions outside the arithmetic (tile stores,
// shared loads, barriers, halo rows; e.g. the interleaved direct kernel at 4K RGBA 5 × 5 is issue-bound with well
// under half its instructions FMAs: `bench/tools/instruction-mix.sh`). Here a filtered sample costs its FMAs plus a
// conversion, a shuffle and its rounding. Direct plans at K = 5 (25 FMA per sample) take it for one channel only:
// for colour the shared-memory kernels measure faster.
//
// The sums are those of the tile kernels (convolve_separable.cu, convolve_direct.cuh), in the same order: the same
// bytes. Channels outside the compiled mask are copied from the source row (the launcher takes frames whose other
// channels are all copied), or, LEAVE, kept as dst holds them (packed 4:2:2 chroma: U and V of a macropixel filtered,
// Y0 and Y1 left as the luma pass wrote them; each store then reads the words it replaces). Rows are read in aligned
// words (rows 4-byte aligned; 8- and 16-byte words on 16-byte aligned rows). Lanes whose pixels are not all inside the
// frame load nothing, so no lane waits on single-byte loads: the R output pixels at the left edge, and those near the
// right edge whose window reaches such a lane, are computed sample by sample through borderIndex by the grid's first
// blocks, a thread a pixel (registerWindowGrid). Rows outside the frame map to rows inside it by RowMap; under
// Border::Constant they read as words of borderValue's byte (a borderValue that is not a byte leaves the frame to the
// other kernels). Results are finished four bytes at a time (finishRow).
#include "convolve_device.cuh"

#include <algorithm>
#include <cmath>

namespace cudafilters::cuda_detail {
namespace {

constexpr int kWarpsPerBlock = 4;  // side by side: adjacent strips of the same rows
constexpr int kWindowThreads = kWarpsPerBlock * 32;
constexpr int pixelsPerLane(int channels) { return channels == 1 ? 8 : 4; }
constexpr int blocksPerRow(int strips) { return (strips + kWarpsPerBlock - 1) / kWarpsPerBlock; }

template <int K, int C, unsigned FMASK, bool LEAVE = false> struct RegisterConfig {
    static constexpr int R = K / 2;
    // Pixels per lane: whole words per lane and row (8 bytes for 1 and 2 channels, 12 for 3, 16 for 4). Two RGBA
    // pixels per lane (64 registers, 32 warps per SM) measure no faster than four; for one channel, 16 pixels per lane
    // (16-byte loads), or source rows loaded 2K − 1 ahead instead of K − 1, measure slower
    // (`bench-convolve --size 3840x2160 --ks 3,5`, build-bench).
    static constexpr int PX = pixelsPerLane(C);
    static constexpr int NW = PX * C / 4;            // 32-bit words per lane and row
    static constexpr int NF = __builtin_popcount(FMASK);  // filtered channels
    static constexpr int OUT = 30 * PX;              // pixels a warp outputs
    static constexpr bool COPIES = FMASK != (1u << C) - 1u && !LEAVE;
    static_assert(R <= PX && NW >= 1 && NW <= 4 && NF >= 1 && (!COPIES || PX * (C - NF) <= 4));
    // Bits of a lane's word q that hold filtered samples.
    static constexpr unsigned filteredBits(int q) {
        unsigned bits = 0;
        for (int b = 0; b < 4; ++b)
            if ((FMASK >> ((4 * q + b) % C)) & 1u) bits |= 0xFFu << (8 * b);
        return bits;
    }
};

// borderIndex of a row at most R outside a frame taller than R, without its loop: base + step · y (-1 under
// Border::Constant).
struct RowMap {
    int base, step;
    __device__ int at(int y) const { return base + step * y; }
};

// SEP: taps = the row factor then the column factor (2K floats); else the K × K taps, row-major.
template <int K, bool SEP> struct RegisterParams {
    ConvFrame f;
    float taps[SEP ? 2 * K : K * K];
    int segment;  // output rows per warp
    int strips;   // strips per row
    int perRow;      // blocks per row of segments
    int edgeBlocks;  // blocks of the edge columns, first in the grid
    // Output pixels the strips store: [begin, end), those whose window lies in whole lanes (lanes whose pixels are
    // all inside the frame: x >= 0, x + PX <= width). The edge blocks (the first of the grid) compute the others
    // sample by sample through borderIndex.
    int begin, end;
    RowMap above, below;  // source rows outside the frame
    unsigned borderWord;  // Border::Constant: borderValue (a byte: registerWindowApplies) in every byte
};

// borderIndex for rows -R … -1 (above) and height … height + R − 1 (below) of a frame taller than R.
inline void mapOutsideRows(Border border, int height, RowMap& above, RowMap& below) {
    switch (border) {
    case Border::Replicate: above = {0, 0}, below = {height - 1, 0}; break;
    case Border::Reflect: above = {-1, -1}, below = {2 * height - 1, -1}; break;
    case Border::Reflect101: above = {0, -1}, below = {2 * height - 2, -1}; break;
    case Border::Wrap: above = {height, 1}, below = {-height, 1}; break;
    default: above = {-1, 0}, below = {-1, 0}; break;  // Border::Constant
    }
}

// One lane's PX pixels of one source row.
template <int NW> struct LaneRow {
    unsigned w[NW];
};

// Plane (rank among the filtered channels) of channel c.
template <unsigned FMASK> __host__ __device__ constexpr int planeOf(int c) {
    return __builtin_popcount(FMASK & ((1u << c) - 1u));
}

// NW words at p: one vector load where `vector` (p aligned to NW words; NW = 2 or 4), else 32-bit loads. READ_ONLY:
// through the read-only cache (the source); else plain loads (dst, which the kernel writes).
template <int NW, bool READ_ONLY>
__device__ __forceinline__ void loadWords(const unsigned char* p, bool vector, unsigned (&w)[NW]) {
    auto load = [](const auto* q) { return READ_ONLY ? __ldg(q) : *q; };
    if (vector && NW == 4) {
        const uint4 v = load(reinterpret_cast<const uint4*>(p));
        w[0] = v.x;
        w[1 % NW] = v.y;
        w[2 % NW] = v.z;
        w[3 % NW] = v.w;
    } else if (vector && NW == 2) {
        const uint2 v = load(reinterpret_cast<const uint2*>(p));
        w[0] = v.x;
        w[1 % NW] = v.y;
    } else {
#pragma unroll
        for (int q = 0; q < NW; ++q) w[q] = load(reinterpret_cast<const unsigned*>(p) + q);
    }
}

// Loads the lane's pixels x … x + PX − 1 of source row gy (-1: outside the frame under Border::Constant: every
// byte is borderValue's). Lanes whose pixels are not all inside the frame (whole false) load nothing: they are
// never read by a stored output (see RegisterParams::begin, end). wide: 16-byte aligned rows (vector loads).
template <int C, int PX, int NW>
__device__ __forceinline__ LaneRow<NW> loadLaneRow(const ConvFrame& f, int gy, int x, bool whole, bool wide,
                                                   unsigned borderWord) {
    LaneRow<NW> r;
#pragma unroll
    for (int q = 0; q < NW; ++q) r.w[q] = gy < 0 ? borderWord : 0u;
    if (!whole || gy < 0) return r;
    loadWords<NW, true>(f.src + std::size_t(gy) * f.srcPitch + std::size_t(x) * C, wide, r.w);
    return r;
}

// The samples of the channels outside FMASK, packed in order (at most 4: the launcher compiles at most one such
// channel), and back into their places in a row of output words.
template <int C, int PX, int NW, unsigned FMASK> __device__ __forceinline__ unsigned keepCopied(const unsigned (&w)[NW]) {
    unsigned packed = 0;
    int n = 0;
#pragma unroll
    for (int e = 0; e < PX * C; ++e)
        if (!((FMASK >> (e % C)) & 1u)) packed |= ((w[e / 4] >> (8 * (e % 4))) & 0xFFu) << (8 * n++);
    return packed;
}
template <int C, int PX, int NW, unsigned FMASK>
__device__ __forceinline__ void placeCopied(unsigned packed, unsigned (&out)[NW]) {
    int n = 0;
#pragma unroll
    for (int e = 0; e < PX * C; ++e)
        if (!((FMASK >> (e % C)) & 1u)) out[e / 4] |= ((packed >> (8 * n++)) & 0xFFu) << (8 * (e % 4));
}

// An output row's words: the filtered samples finished (finishByte's levels, packed four at a time), the others 0.
template <int C, int PX, int NW, int NF, unsigned FMASK, bool ADJUST>
__device__ __forceinline__ void finishRow(const float (&acc)[PX][NF], float bias, bool absolute, unsigned (&out)[NW]) {
#pragma unroll
    for (int q = 0; q < NW; ++q) {
        int level[4];
#pragma unroll
        for (int b = 0; b < 4; ++b) {
            const int e = 4 * q + b, c = e % C;
            level[b] = (FMASK >> c) & 1u ? roundToInt(adjusted<ADJUST>(acc[e / C][planeOf<FMASK>(c)], bias, absolute)) : 0;
        }
        out[q] = packBytes(level[0], level[1], level[2], level[3]);
    }
}

// The edge blocks: output pixels outside [begin, end) of the segment's rows, one thread per pixel and every
// channel, from the source through borderIndex. The same sums in the same order as the strips: per window row the
// row pass (taps left to right from 0), then that row's column tap; direct, the row's taps left to right.
template <int K, int C, unsigned FMASK, bool SEP, bool LEAVE>
__device__ void edgeColumns(const RegisterParams<K, SEP>& p, int first, int stride) {
    constexpr int R = K / 2;
    const ConvFrame& f = p.f;
    const int edges = p.begin + (f.width - p.end);
    for (int item = first; item < edges * f.height; item += stride) {
        const int y = item / edges, e = item - y * edges;
        const int x = e < p.begin ? e : p.end + (e - p.begin);
        float acc[C];
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] = 0.f;
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int gy = borderIndex(y - R + r, f.height, f.border);
            const unsigned char* row = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                if (!((FMASK >> c) & 1u)) continue;
                float m = 0.f;
#pragma unroll
                for (int kx = 0; kx < K; ++kx) {
                    const int gx = borderIndex(x - R + kx, f.width, f.border);
                    const float v = (row == nullptr || gx < 0) ? f.borderValue : float(__ldg(row + std::size_t(gx) * C + c));
                    if constexpr (SEP) m = fmaf(p.taps[kx], v, m);
                    else acc[c] = fmaf(p.taps[r * K + kx], v, acc[c]);
                }
                if constexpr (SEP) acc[c] = fmaf(p.taps[K + r], m, acc[c]);
            }
        }
        const unsigned char* in = f.src + std::size_t(y) * f.srcPitch + std::size_t(x) * C;
        unsigned char* out = f.dst + std::size_t(y) * f.dstPitch + std::size_t(x) * C;
#pragma unroll
        for (int c = 0; c < C; ++c)
            if ((FMASK >> c) & 1u) out[c] = finish<std::uint8_t>(f, acc[c]);
            else if (!LEAVE) out[c] = in[c];
    }
}

// Blocks per SM ptxas must fit (0: no bound). Separable RGBA-like K = 5 with alpha copied takes 166 registers
// unbounded; held to 128 (a few spills) it runs faster (`bench-convolve --size 3840x2160 --ks 5`, RGBA Gaussian,
// build-bench). Direct one-channel K = 5 takes 72 registers and spills in its loop; held to 128 it takes 92 and
// spills nothing.
template <int K, int C, unsigned FMASK, bool SEP> constexpr int minBlocksPerSm() {
    return K == 5 && (SEP ? C == 4 && FMASK == 7 : C == 1) ? 4 : 0;
}

// Pixels x − R … x + PX − 1 + R of a source row, filtered channels only (by plane): the lane's own converted, the
// R on either side from the neighbour lanes.
template <int C, int PX, int NW, int NF, int R, unsigned FMASK>
__device__ __forceinline__ void laneWindow(const LaneRow<NW>& cur, float (&v)[PX + 2 * R][NF]) {
#pragma unroll
    for (int i = 0; i < PX; ++i)
#pragma unroll
        for (int c = 0; c < C; ++c) {
            if (!((FMASK >> c) & 1u)) continue;
            const int e = i * C + c;
            v[R + i][planeOf<FMASK>(c)] = wordSample(cur.w[e / 4], e % 4);
        }
#pragma unroll
    for (int h = 0; h < R; ++h)
#pragma unroll
        for (int q = 0; q < NF; ++q) {
            v[h][q] = __shfl_up_sync(0xFFFFFFFFu, v[PX + h][q], 1);
            v[PX + R + h][q] = __shfl_down_sync(0xFFFFFFFFu, v[R + h][q], 1);
        }
}

// Source row j (ring slot u = j mod K) into the sums of the output rows it feeds, in tap order: separable, its row
// pass times each output row's column tap; direct, the row's K taps of each output row.
template <int K, int PX, int NF, bool SEP>
__device__ __forceinline__ void addWindowRow(const RegisterParams<K, SEP>& p, const float (&v)[PX + 2 * (K / 2)][NF],
                                             int u, int j, int outRows, float (&acc)[K][PX][NF]) {
    if constexpr (SEP) {
#pragma unroll
        for (int i = 0; i < PX; ++i)
#pragma unroll
            for (int q = 0; q < NF; ++q) {
                float m = 0.f;
#pragma unroll
                for (int kx = 0; kx < K; ++kx) m = fmaf(p.taps[kx], v[i + kx][q], m);
#pragma unroll
                for (int ky = 0; ky < K; ++ky) {
                    const int s = (u - ky + K) % K;
                    acc[s][i][q] = fmaf(p.taps[K + ky], m, ky == 0 ? 0.f : acc[s][i][q]);
                }
            }
    } else {
#pragma unroll
        for (int ky = 0; ky < K; ++ky) {
            // Kernel row ky of output row j − ky. The segment's first and last K − 1 source rows feed fewer than K
            // of its output rows: the others are skipped (a branch the whole warp takes; with short segments a
            // large share of the FMAs would go to rows outside the segment).
            const int o = j - ky;
            if (o < 0 || o >= outRows) continue;
            const int s = (u - ky + K) % K;
#pragma unroll
            for (int i = 0; i < PX; ++i)
#pragma unroll
                for (int q = 0; q < NF; ++q) {
                    float a = ky == 0 ? 0.f : acc[s][i][q];
#pragma unroll
                    for (int kx = 0; kx < K; ++kx) a = fmaf(p.taps[ky * K + kx], v[i + kx][q], a);
                    acc[s][i][q] = a;
                }
        }
    }
}

// A finished output row's words to dst at d: whole vector words where the lane stores all its pixels on an aligned
// address, else byte by byte those in [begin, end).
template <int K, int C, unsigned FMASK, bool SEP, bool LEAVE>
__device__ __forceinline__ void storeWindowRow(const RegisterParams<K, SEP>& p, unsigned char* d, int x, bool storesAll,
                                               unsigned (&out)[RegisterConfig<K, C, FMASK, LEAVE>::NW]) {
    using Cfg = RegisterConfig<K, C, FMASK, LEAVE>;
    constexpr int PX = Cfg::PX, NW = Cfg::NW;
    const unsigned align = unsigned(reinterpret_cast<std::uintptr_t>(d));
    constexpr unsigned vector = NW == 4 ? 15 : NW == 2 ? 7 : 3;
    if (storesAll && (align & vector) == 0) {
        if constexpr (LEAVE) {  // the words' other samples as dst holds them
            unsigned old[NW];
            loadWords<NW, false>(d, true, old);
#pragma unroll
            for (int q = 0; q < NW; ++q) out[q] |= old[q] & ~Cfg::filteredBits(q);
        }
        if constexpr (NW == 4) *reinterpret_cast<uint4*>(d) = make_uint4(out[0], out[1 % NW], out[2 % NW], out[3 % NW]);
        else if constexpr (NW == 2) *reinterpret_cast<uint2*>(d) = make_uint2(out[0], out[1 % NW]);
        else
#pragma unroll
            for (int q = 0; q < NW; ++q) reinterpret_cast<unsigned*>(d)[q] = out[q];
    } else {
#pragma unroll
        for (int i = 0; i < PX; ++i)
            if (x + i >= p.begin && x + i < p.end)
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    if (LEAVE && !((FMASK >> c) & 1u)) continue;
                    const int e = i * C + c;
                    d[e] = static_cast<unsigned char>(out[e / 4] >> (8 * (e % 4)));
                }
    }
}

// WIDE: rows 16-byte aligned, source rows read in vector words (else 32-bit words; compiled apart, so that no load
// carries the other's predicated twin).
template <int K, int C, unsigned FMASK, bool SEP, bool LEAVE, bool WIDE>
__global__ void __launch_bounds__(kWindowThreads, (minBlocksPerSm<K, C, FMASK, SEP>()))
    registerWindowKernel(const __grid_constant__ RegisterParams<K, SEP> p) {
    using Cfg = RegisterConfig<K, C, FMASK, LEAVE>;
    constexpr int R = Cfg::R, PX = Cfg::PX, NW = Cfg::NW, NF = Cfg::NF;
    const ConvFrame& f = p.f;
    const int block = int(blockIdx.x) - p.edgeBlocks;
    if (block < 0) {
        const int first = int(blockIdx.x * blockDim.x + threadIdx.x);
        return edgeColumns<K, C, FMASK, SEP, LEAVE>(p, first, p.edgeBlocks * int(blockDim.x));
    }
    const int seg = block / p.perRow, group = block - seg * p.perRow;
    const int y0 = seg * p.segment;
    const int outRows = min(p.segment, f.height - y0);
    const int lane = threadIdx.x & 31;
    const int strip = group * kWarpsPerBlock + int(threadIdx.x >> 5);
    if (strip >= p.strips) return;  // the whole warp
    const int x = strip * Cfg::OUT - PX + lane * PX;  // this lane's first pixel
    const int rows = outRows + K - 1;  // source rows y0 − R … y0 + outRows − 1 + R
    const bool whole = x >= 0 && x + PX <= f.width;
    constexpr bool wide = WIDE;
    const bool stores = lane >= 1 && lane <= 30 && x < p.end && x + PX > p.begin;
    const bool storesAll = x >= p.begin && x + PX <= p.end;
    const bool absolute = f.absolute != 0;
    const bool adjust = f.bias != 0.f || absolute;  // else the levels are the sums' own (finishRow)
    const long dstBytes = long(x) * C;

    float acc[K][PX][NF];  // the sums of the output rows in flight: output row o of the segment in slot o mod K
#pragma unroll
    for (int s = 0; s < K; ++s)
#pragma unroll
        for (int i = 0; i < PX; ++i)
#pragma unroll
            for (int q = 0; q < NF; ++q) acc[s][i][q] = 0.f;

    auto sourceRow = [&](int j) {  // selects, no branches
        const int y = y0 - R + j;
        const int outside = y < 0 ? p.above.at(y) : p.below.at(y);
        return y < 0 || y >= f.height ? outside : y;
    };
    // Source rows in flight: row j in ring[j mod K], loaded K − 1 steps ahead. The channels copied unfiltered are
    // kept, packed, for the R rows back to the one an output row copies them from.
    LaneRow<NW> ring[K];
#pragma unroll
    for (int u = 0; u < K - 1; ++u)
        if (u < rows) ring[u] = loadLaneRow<C, PX, NW>(f, sourceRow(u), x, whole, wide, p.borderWord);
    unsigned kept[K];

    for (int base = 0; base < rows; base += K) {
#pragma unroll
        for (int u = 0; u < K; ++u) {
            const int j = base + u;
            if (j >= rows) break;
            // Past the segment's last row the last row again (one branch less per row; L1 hits).
            ring[(u + K - 1) % K] = loadLaneRow<C, PX, NW>(f, sourceRow(min(j + K - 1, rows - 1)), x, whole, wide, p.borderWord);
            const LaneRow<NW>& cur = ring[u];
            if constexpr (Cfg::COPIES) kept[u] = keepCopied<C, PX, NW, FMASK>(cur.w);
            float v[PX + 2 * R][NF];
            laneWindow<C, PX, NW, NF, R, FMASK>(cur, v);
            addWindowRow<K, PX, NF, SEP>(p, v, u, j, outRows, acc);

            // Output row j − (K − 1) has taken its last tap.
            const int o = j - (K - 1);
            if (o >= 0 && stores) {
                const int s = (u + 1) % K;  // slot (j − (K − 1)) mod K
                const int y = y0 + o;
                unsigned out[NW];
                if (adjust) finishRow<C, PX, NW, NF, FMASK, true>(acc[s], f.bias, absolute, out);
                else finishRow<C, PX, NW, NF, FMASK, false>(acc[s], 0.f, false, out);
                if constexpr (Cfg::COPIES) placeCopied<C, PX, NW, FMASK>(kept[(u - R + K) % K], out);
                unsigned char* d = f.dst + std::size_t(y) * f.dstPitch + dstBytes;
                storeWindowRow<K, C, FMASK, SEP, LEAVE>(p, d, x, storesAll, out);
            }
        }
    }
}

// Output rows per warp. Shorter segments repeat more halo rows (K − 1 per segment), longer ones leave fewer warps to
// hide each warp's row-to-row latency: 8 rows at K = 3, 16 from K = 5 unless that leaves fewer than 8 warps per SM
// (one-channel 1080p), then 8. Then fitted to the waves of blocks the GPU holds at once (blocksPerSm × SMs; perRow
// blocks per row of segments): a grid that spills past a whole number of waves by less than half a wave gets segments
// long enough to fit that number (else, e.g. 4K GRAY8 K = 3, a few blocks run as a second wave), and a grid under
// half a wave (at K = 3 under one wave) gets shorter ones (at least 4 rows) until it fills one. The edge columns run
// in a few blocks of their own (registerWindowGrid): K = 3, and direct plans at K = 5 (which fit the strips' blocks
// into the slots the edge blocks leave), count the strips' blocks alone; separable plans at K ≥ 5 count one more per
// row. Each rule is chosen against fixed segments of 8, 16, 32 and 64 rows with the register-window rows of
// `bench-convolve --ks 3,5 --size WxH` (build-bench) at 720p, 1080p, 1440p and 4K.
int segmentFor(int k, bool separable, int strips, int height, int blocksPerSm, int edgeBlocks) {
    const int sms = currentDeviceMultiprocessors();
    const int measured = k <= 3 ? 8 : std::int64_t(strips) * ((height + 15) / 16) < 8L * sms ? 8 : 16;
    // Direct plans at K = 5 fit the strips' blocks into the slots the edge blocks leave.
    const bool edgesOut = !separable && k >= 5;
    const std::int64_t perRow = blocksPerRow(strips) + (k <= 3 || edgesOut ? 0 : 1);
    const std::int64_t slots = std::int64_t(std::max(blocksPerSm, 1)) * sms;
    const std::int64_t wave = std::max(slots - (edgesOut ? edgeBlocks : 0), perRow);
    const std::int64_t rowsPerWave = std::max<std::int64_t>(wave / perRow, 1);
    const std::int64_t blocks = (height + measured - 1) / measured * perRow;
    if ((k <= 3 ? blocks : 2 * blocks) < wave) return std::max(int((height + rowsPerWave - 1) / rowsPerWave), 4);
    const std::int64_t waves = (2 * blocks + wave) / (2 * wave);  // the nearest whole number, at least 1
    if (blocks <= waves * wave) return measured;
    return int((height + waves * rowsPerWave - 1) / (waves * rowsPerWave));
}

// taps: the row then the column factor (SEP), or the K × K taps.
template <int K, int C, unsigned FMASK, bool SEP, bool LEAVE = false>
void launchRegisters(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    using Cfg = RegisterConfig<K, C, FMASK, LEAVE>;
    const bool wide = frame.rowAlign >= 16;
    const auto kernel = wide ? registerWindowKernel<K, C, FMASK, SEP, LEAVE, true> : registerWindowKernel<K, C, FMASK, SEP, LEAVE, false>;
    static_assert(Cfg::PX == pixelsPerLane(C) && Cfg::OUT == 30 * Cfg::PX);
    const RegisterWindowGrid g =
        registerWindowGrid(K, SEP, C, frame.width, frame.height, residentBlocksPerSm(kernel, kWindowThreads, 0));
    RegisterParams<K, SEP> p;
    p.f = frame;
    for (int i = 0; i < (SEP ? 2 * K : K * K); ++i) p.taps[i] = taps[i];
    p.segment = g.segment;
    p.strips = g.strips;
    p.perRow = g.perRow;
    p.edgeBlocks = g.edgeBlocks;
    p.begin = g.begin;
    p.end = g.end;
    mapOutsideRows(frame.border, frame.height, p.above, p.below);
    p.borderWord = frame.border == Border::Constant ? 0x01010101u * unsigned(frame.borderValue) : 0u;
    const int grid = g.perRow * g.segments + g.edgeBlocks;
    kernel<<<grid, kWindowThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("registerWindowKernel");
}

template <int K, bool SEP>
bool launchRegistersK(const ConvFrame& f, const float* taps, cudaStream_t stream) {
    const unsigned all = (1u << f.inChannels) - 1u;
    const unsigned mask = f.mask & all;
    switch (f.inChannels) {
    case 1:
        if (mask == 1) return launchRegisters<K, 1, 1, SEP>(f, taps, stream), true;
        return false;
    case 2:
        if constexpr (K <= 5 && (SEP || K == 3)) {
            if (mask == 3) return launchRegisters<K, 2, 3, SEP>(f, taps, stream), true;
            // Packed 4:2:2 as Y/chroma pairs: one channel filtered, the other copied.
            if constexpr (SEP) {
                if (mask == 1 && (f.copy & 2u)) return launchRegisters<K, 2, 1, SEP>(f, taps, stream), true;
                if (mask == 2 && (f.copy & 1u)) return launchRegisters<K, 2, 2, SEP>(f, taps, stream), true;
            }
        }
        return false;
    case 3:
        if constexpr (K <= 5 && (SEP || K == 3))
            if (mask == 7) return launchRegisters<K, 3, 7, SEP>(f, taps, stream), true;
        return false;
    case 4:
        if constexpr (K <= 5 && (SEP || K == 3)) {
            if (mask == 15) return launchRegisters<K, 4, 15, SEP>(f, taps, stream), true;
            if (mask == 7 && (f.copy & 8u)) return launchRegisters<K, 4, 7, SEP>(f, taps, stream), true;
            // Packed 4:2:2 macropixels: U and V filtered, Y0 and Y1 left as dst holds them.
            if constexpr (SEP) {
                if (mask == 0xA && !(f.copy & 5u)) return launchRegisters<K, 4, 0xA, SEP, true>(f, taps, stream), true;
                if (mask == 0x5 && !(f.copy & 0xAu)) return launchRegisters<K, 4, 0x5, SEP, true>(f, taps, stream), true;
            }
        }
        return false;
    default: return false;
    }
}

}  // namespace

RegisterWindowGrid registerWindowGrid(int k, bool separable, int channels, int width, int height, int blocksPerSm) {
    const int px = pixelsPerLane(channels), r = k / 2;
    RegisterWindowGrid g;
    g.strips = (width + 30 * px - 1) / (30 * px);
    const int wholeEnd = width / px * px;  // whole lanes hold pixels [0, wholeEnd)
    g.begin = std::min(r, width);
    g.end = std::max(wholeEnd - r, g.begin);
    const std::int64_t edgePixels = std::int64_t(g.begin + (width - g.end)) * height;
    g.edgeBlocks = int(std::max<std::int64_t>((edgePixels + kWindowThreads - 1) / kWindowThreads, 1));
    g.segment = segmentFor(k, separable, g.strips, height, blocksPerSm, g.edgeBlocks);
    g.segments = (height + g.segment - 1) / g.segment;
    g.perRow = blocksPerRow(g.strips);
    return g;
}

bool registerWindowApplies(SampleType type, int k, int bank, bool separable, const ConvFrame& f) {
    if (type != SampleType::U8 || bank != 1 || f.inChannels != f.outChannels ||
        f.combine == Combine::Channels || f.rowAlign < 4 || !plainBytes(f) || f.height <= k / 2)
        return false;
    // Rows outside the frame under Border::Constant are read as words of borderValue's byte.
    if (f.border == Border::Constant && !(f.borderValue >= 0.f && f.borderValue <= 255.f && f.borderValue == std::floor(f.borderValue)))
        return false;
    const int c = f.inChannels;
    const unsigned all = (1u << c) - 1u;
    const unsigned mask = f.mask & all;
    // Packed 4:2:2 chroma as macropixels (separable): the two luma channels neither filtered nor copied.
    const bool chroma422 = separable && c == 4 && (mask == 0xA || mask == 0x5) && (f.copy & all & ~mask) == 0;
    // Otherwise every channel filtered or copied: whole pixels stored.
    if ((mask | (f.copy & all)) != all && !chroma422) return false;
    const bool channels = c <= 2 || mask == all || (c == 4 && mask == 7) || chroma422;
    const bool compiled = separable ? ((k == 3 || k == 5) ? channels : k == 7 && c == 1)
                                    : (k == 3 && channels) || (k == 5 && c == 1);
    if (!compiled) return false;
    // Where it measures faster than the other kernels, each threshold chosen with the Gaussian rows of
    // `bench-convolve --ks 3,5,7 --size WxH` (build-bench) at frame sizes on both sides of it.
    const std::int64_t pixels = std::int64_t(f.width) * f.height;
    const bool large = pixels >= 4000000;
    if (!separable) return c == 1 ? k == 3 || large : k == 3;
    switch (c) {
    // One channel at K = 7 from 5 Mpixel (below, the tile kernel), at K = 5 from 2 Mpixel (below, the one-channel
    // tile kernel on the full taps), at K = 3 from 4 Mpixel: GRAY8 Gaussian.
    case 1: return k == 3 ? large : pixels >= (k == 5 ? 2000000 : 5000000);
    // Four channels at K = 5 from 1.6 Mpixel (below, the interleaved direct kernel on the full taps; packed 4:2:2
    // chroma stays here): RGBA Gaussian 5 × 5 with alpha copied.
    case 4: return chroma422 || k == 3 || pixels >= 1600000;
    // Three channels at K = 5 from 1.4 Mpixel (below, the interleaved direct kernel on the full taps): RGB Gaussian
    // 5 × 5.
    case 3: return k == 3 || pixels >= 1400000;
    // Two channels both filtered (a UV plane) at K = 5 from 2.5 Mpixel (below, the interleaved direct kernel on the
    // full taps): the 2-channel Gaussian rows. Packed 4:2:2 Y/chroma pairs (one channel filtered) keep the 4 Mpixel
    // rule: not measured.
    case 2: return k == 3 || large || (mask == all && pixels >= 2500000);
    default: return k == 3 || large;
    }
}

bool launchSeparableRegistersU8(int k, const ConvFrame& frame, const float* row, const float* column,
                                cudaStream_t stream) {
    if (!registerWindowApplies(SampleType::U8, k, 1, true, frame)) return false;
    float taps[2 * 7];
    for (int i = 0; i < k; ++i) {
        taps[i] = row[i];
        taps[k + i] = column[i];
    }
    switch (k) {
    case 3: return launchRegistersK<3, true>(frame, taps, stream);
    case 5: return launchRegistersK<5, true>(frame, taps, stream);
    default: return launchRegistersK<7, true>(frame, taps, stream);
    }
}

bool launchDirectRegistersU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    if (!registerWindowApplies(SampleType::U8, k, bank, false, frame)) return false;
    return k == 3 ? launchRegistersK<3, false>(frame, taps, stream)
                  : launchRegistersK<5, false>(frame, taps, stream);
}

}  // namespace cudafilters::cuda_detail
