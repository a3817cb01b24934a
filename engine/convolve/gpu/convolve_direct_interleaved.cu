// SPDX-License-Identifier: LGPL-2.1-or-later
// Direct K×K correlation of interleaved u8 pixels (RGB, RGBA and kin: 3 or 4 channels; the Y/chroma pairs and the
// macropixels of packed 4:2:2: 2 and 4; one kernel, K ≤ 9), all channels of a pixel in one block and one thread.
//
// Why: the tiled kernel of convolve_direct.cuh runs one grid layer per channel. Each layer refills its own halo
// tile from the same source lines (C× the loads), one byte per load instruction at a stride of C bytes (no word
// path for interleaved rows), and stores single bytes at a stride of C, so every output sector is written piecewise
// by C different blocks: the time stays flat in K (the arithmetic is never the limit) and well behind NPP's C3R at
// small K (the "RGB direct per-channel" rows of `bench-convolve`, build-bench).
//
// Here a block loads its TW × TH tile with halo once, as aligned words (on 16-byte aligned rows 16-byte words: one per
// 4 RGBA pixels, three per 16 RGB pixels; else four pixels = C 32-bit words; all of a thread's loads in flight
// before the first conversion), and
// splits it into C float planes in shared memory. Each thread then computes PX consecutive pixels, every channel,
// with the register blocking and bank layout of the tiled kernel (quarter warps on 8 consecutive tile rows, row
// stride ≡ 4 floats mod 32), packs the bytes of its PX · C output samples into words and stores them with the widest
// aligned stores the destination allows. Channels outside the mask are copied from the tile (inside the frame it
// holds the source samples exactly).
//
// One-channel frames can take the same kernel (C = 1, K = 3 and 5: the gray tile rows of the routing table), 128 × 16
// tiles with one output row per thread, against the tiled kernel's 128 × 32 with two.
//
// Separable plans (a Gaussian, a box) take interleavedSeparableKernel: the same tile, a row pass per channel into an
// intermediate plane, then the column pass.
//
// Loads that straddle the frame edge, rows outside it and rows not 4-byte aligned go sample by sample through
// borderIndex. Arithmetic as everywhere else: taps already divided, acc = 0, row by row, left to right, one fmaf per
// tap; finishPixels adds the bias, takes |x|, rounds half to even and saturates, four samples at a time.
#include "convolve_device.cuh"
#include "convolve_interleaved.cuh"

namespace cudafilters::cuda_detail {
namespace {

template <int K> struct InterleavedConfig {
    static constexpr int PX = 8;          // consecutive pixels per thread (all channels)
    static constexpr int WX = 4, WY = 2;  // warps per block in x and y; a warp is 4 (x) × 8 (y) threads
    static constexpr int TW = WX * 4 * PX;
    static constexpr int TH = WY * 8;
    static constexpr int R = K / 2;
    static constexpr int RA = roundUp4(R);               // halo rounded up: tile column 0 is 4-pixel aligned
    static constexpr int D = RA - R;                     // tile column of the first tap of output column 0
    static constexpr int NV = (D + PX + K - 1 + 3) / 4;  // float4 loads per input row run
    static constexpr int ROWS = TH + K - 1;
    static constexpr int COLS4 = TW + 2 * RA;
    static constexpr int S = roundUpStride(maxOf(COLS4, TW - PX + 4 * NV));
    static std::size_t smem(int channels) { return std::size_t(channels) * ROWS * S * sizeof(float); }
    // Separable kernel: one intermediate plane (the row pass of one channel) after the C source planes.
    static constexpr int ROWS8 = (ROWS + 7) / 8 * 8;
    static constexpr int SM = roundUpStride(TW);
    static std::size_t smemSeparable(int channels) { return smem(channels) + std::size_t(ROWS) * SM * sizeof(float); }
    static_assert(WX * WY * 32 == kBlockThreads && COLS4 % 4 == 0);
};

template <int K> struct InterleavedParams {
    ConvFrame f;
    float taps[K * K];
};

template <int K> struct InterleavedSeparableParams {
    ConvFrame f;
    float row[K];
    float column[K];
};

// Loads the tile in groups of GP pixels: plane c, row r, column col holds channel c of source pixel (ax + col, oy + r)
// (border rules applied), as float. ax is a multiple of 4. GP = 4: a group is C 32-bit words (one 16-byte word for
// 4 channels on 16-byte aligned rows), the groups tile the COLS4 columns exactly. GP = 16 (3 channels on 16-byte
// aligned rows): a group is 48 bytes, three 16-byte words, starting at a multiple of 16 pixels, so the first group
// starts 16 − RA pixels left of the tile; only the 4-pixel runs of a group inside the tile are stored. The runs of one
// group are 16 floats apart, so 8 threads of a quarter warp on 8 groups of one row would store into 2 bank quads (4-way
// conflicts); they take 4 rows × 2 groups instead, which the row stride (S / 4 odd) spreads over the 8 quads, cutting
// the shared store wavefronts to about a third (Nsight Compute: `bench/tools/instruction-mix.sh` on 1080p RGB 5 × 5).
template <int C, int K, int GP> struct TileGroups {
    using Cfg = InterleavedConfig<K>;
    static_assert(GP == 4 || (GP == 16 && C == 3 && Cfg::RA <= 16));
    static constexpr int PLANE = Cfg::ROWS * Cfg::S;
    static constexpr int WORDS = GP * C / 4;  // 32-bit words per group
    static constexpr int LEAD = GP == 4 ? 0 : 16 - Cfg::RA;  // tile column of a group's first pixel: GP · g − LEAD
    static constexpr int NG = (Cfg::COLS4 + LEAD + GP - 1) / GP;  // groups per tile row
    static constexpr bool SPREAD = GP == 16;                      // 4 rows × 2 groups per 8 consecutive items
    static constexpr int GQ = (NG + 1) / 2;
    static constexpr int ITEMS = SPREAD ? (Cfg::ROWS + 3) / 4 * GQ * 8 : Cfg::ROWS * NG;
    static constexpr int PER = (ITEMS + kBlockThreads - 1) / kBlockThreads;
    static_assert(Cfg::S / 4 % 2 == 1);
    // Tile row r and group g of item idx.
    __device__ __forceinline__ static void itemAt(int idx, int& r, int& g) {
        if constexpr (SPREAD) {
            r = (idx >> 3) / GQ * 4 + (idx & 3);
            g = (idx >> 3) % GQ * 2 + ((idx >> 2) & 1);
        } else {
            r = idx / NG;
            g = idx - r * NG;
        }
    }
};

// This thread's groups wholly inside the frame (words: rows 4-byte aligned) as words, all loads issued before any
// is converted; 0 for the others.
template <int C, int K, int GP>
__device__ __forceinline__ void loadGroupWords(const ConvFrame& f, int ax, int oy, bool words,
                                               unsigned (&raw)[TileGroups<C, K, GP>::PER][TileGroups<C, K, GP>::WORDS]) {
    using G = TileGroups<C, K, GP>;
    using Cfg = InterleavedConfig<K>;
    const bool quads = f.rowAlign >= 16 && G::WORDS % 4 == 0;
#pragma unroll
    for (int it = 0; it < G::PER; ++it) {
        const int idx = threadIdx.x + it * kBlockThreads;
#pragma unroll
        for (int w = 0; w < G::WORDS; ++w) raw[it][w] = 0;
        int r, g;
        G::itemAt(idx, r, g);
        if (idx < G::ITEMS && r < Cfg::ROWS && g < G::NG) {
            const int x = ax - G::LEAD + GP * g;
            const int gy = borderIndex(oy + r, f.height, f.border);
            if (words && gy >= 0 && x >= 0 && x + GP <= f.width) {
                const unsigned char* p = f.src + std::size_t(gy) * f.srcPitch + std::size_t(x) * C;
                if (quads) {
#pragma unroll
                    for (int q = 0; q < G::WORDS / 4; ++q) {
                        const uint4 v = __ldg(reinterpret_cast<const uint4*>(p) + q);
                        raw[it][4 * q] = v.x;
                        raw[it][4 * q + 1] = v.y;
                        raw[it][4 * q + 2] = v.z;
                        raw[it][4 * q + 3] = v.w;
                    }
                } else {
#pragma unroll
                    for (int w = 0; w < G::WORDS; ++w) raw[it][w] = __ldg(reinterpret_cast<const unsigned*>(p) + w);
                }
            }
        }
    }
}

// This thread's groups into the planes as floats: from the loaded words, or sample by sample through borderIndex
// for groups not wholly inside the frame.
template <int C, int K, int GP>
__device__ __forceinline__ void storeGroups(const ConvFrame& f, int ax, int oy, bool words,
                                            const unsigned (&raw)[TileGroups<C, K, GP>::PER][TileGroups<C, K, GP>::WORDS],
                                            float* tile) {
    using G = TileGroups<C, K, GP>;
    using Cfg = InterleavedConfig<K>;
#pragma unroll
    for (int it = 0; it < G::PER; ++it) {
        const int idx = threadIdx.x + it * kBlockThreads;
        if (idx >= G::ITEMS) break;
        int r, g;
        G::itemAt(idx, r, g);
        if (r >= Cfg::ROWS || g >= G::NG) continue;
        const int x = ax - G::LEAD + GP * g;
        const int gy = borderIndex(oy + r, f.height, f.border);
        const bool wordsHere = words && gy >= 0 && x >= 0 && x + GP <= f.width;
        const unsigned char* row = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
#pragma unroll
        for (int m = 0; m < GP / 4; ++m) {  // 4-pixel runs
            const int col = GP * g - G::LEAD + 4 * m;
            if (GP != 4 && (col < 0 || col >= Cfg::COLS4)) continue;
            float v[4 * C];  // pixel s of the run, channel c at v[s * C + c]
            if (wordsHere) {
#pragma unroll
                for (int b = 0; b < 4 * C; ++b) v[b] = byteOf(raw[it][(4 * m * C + b) / 4], (4 * m * C + b) % 4);
            } else {
#pragma unroll
                for (int s = 0; s < 4; ++s) {
                    const int gx = borderIndex(x + 4 * m + s, f.width, f.border);
#pragma unroll
                    for (int c = 0; c < C; ++c)
                        v[s * C + c] = (row == nullptr || gx < 0) ? f.borderValue : float(__ldg(row + gx * C + c));
                }
            }
#pragma unroll
            for (int c = 0; c < C; ++c)
                *reinterpret_cast<float4*>(tile + c * G::PLANE + r * Cfg::S + col) =
                    make_float4(v[c], v[C + c], v[2 * C + c], v[3 * C + c]);
        }
    }
}

template <int C, int K, int GP>
__device__ __forceinline__ void loadTileGroups(const ConvFrame& f, int ax, int oy, float* tile) {
    using G = TileGroups<C, K, GP>;
    const bool words = f.rowAlign >= 4;
    unsigned raw[G::PER][G::WORDS];
    loadGroupWords<C, K, GP>(f, ax, oy, words, raw);
    storeGroups<C, K, GP>(f, ax, oy, words, raw, tile);
}

template <int C, int K>
__device__ __forceinline__ void loadInterleavedTile(const ConvFrame& f, int ax, int oy, float* tile) {
    if constexpr (C == 3) {
        if (f.rowAlign >= 16) return loadTileGroups<C, K, 16>(f, ax, oy, tile);
    }
    loadTileGroups<C, K, 4>(f, ax, oy, tile);
}

template <int C, int K>
__global__ void __launch_bounds__(kBlockThreads) interleavedKernel(const __grid_constant__ InterleavedParams<K> p) {
    using Cfg = InterleavedConfig<K>;
    constexpr int PX = Cfg::PX, PLANE = Cfg::ROWS * Cfg::S;
    extern __shared__ float4 smem4[];
    float* tile = reinterpret_cast<float*>(smem4);
    const ConvFrame& f = p.f;
    const int x0 = int(blockIdx.x) * Cfg::TW, y0 = int(blockIdx.y) * Cfg::TH;
    loadInterleavedTile<C, K>(f, x0 - Cfg::RA, y0 - Cfg::R, tile);
    __syncthreads();

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tx = ((warp % Cfg::WX) * 4 + (lane >> 3)) * PX;
    const int ty = (warp / Cfg::WX) * 8 + (lane & 7);
    const int x = x0 + tx, y = y0 + ty;
    if (x >= f.width || y >= f.height) return;

    // Every channel's sums first (a channel outside the mask: its source sample, an integer, from the tile), then the
    // output words, four samples at a time.
    float acc[C][PX];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const float* plane = tile + c * PLANE;
        if ((f.mask >> c) & 1u) {
#pragma unroll
            for (int i = 0; i < PX; ++i) acc[c][i] = 0.f;
#pragma unroll
            for (int ky = 0; ky < K; ++ky) {
                const float4* run = reinterpret_cast<const float4*>(plane + (ty + ky) * Cfg::S + tx);
                float v[4 * Cfg::NV];
#pragma unroll
                for (int q = 0; q < Cfg::NV; ++q) {
                    const float4 w = run[q];
                    v[4 * q] = w.x;
                    v[4 * q + 1] = w.y;
                    v[4 * q + 2] = w.z;
                    v[4 * q + 3] = w.w;
                }
#pragma unroll
                for (int kx = 0; kx < K; ++kx) {
                    const float t = p.taps[ky * K + kx];
#pragma unroll
                    for (int i = 0; i < PX; ++i) acc[c][i] = fmaf(t, v[Cfg::D + i + kx], acc[c][i]);
                }
            }
        } else {
            // Inside the frame the tile holds the source sample itself: copied exactly.
            const float* src = plane + (ty + Cfg::R) * Cfg::S + tx + Cfg::RA;
#pragma unroll
            for (int i = 0; i < PX; ++i) acc[c][i] = src[i];
        }
    }
    unsigned out[PX * C / 4];
    finishPixels<C, PX>(f, acc, out);
    storePixels<C, PX>(f, x, y, out);
}

// The same tile, separable taps: per filtered channel a row pass over every tile row into the intermediate plane,
// a barrier, the column pass of each thread's PX pixels, a barrier (the next channel's row pass reuses the plane).
// 2K + (K − 1)·2K/TH FMA per sample instead of K². Arithmetic as the separable kernel (convolve_separable.cu).
template <int C, int K>
__global__ void __launch_bounds__(kBlockThreads)
    interleavedSeparableKernel(const __grid_constant__ InterleavedSeparableParams<K> p) {
    using Cfg = InterleavedConfig<K>;
    constexpr int PX = Cfg::PX, PLANE = Cfg::ROWS * Cfg::S, GROUPS = Cfg::TW / PX;
    extern __shared__ float4 smem4[];
    float* tile = reinterpret_cast<float*>(smem4);
    float* mid = tile + C * PLANE;
    const ConvFrame& f = p.f;
    const int x0 = int(blockIdx.x) * Cfg::TW, y0 = int(blockIdx.y) * Cfg::TH;
    loadInterleavedTile<C, K>(f, x0 - Cfg::RA, y0 - Cfg::R, tile);
    __syncthreads();

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tx = ((warp % Cfg::WX) * 4 + (lane >> 3)) * PX;
    const int ty = (warp / Cfg::WX) * 8 + (lane & 7);
    const int x = x0 + tx, y = y0 + ty;
    const bool inside = x < f.width && y < f.height;  // every thread stays for the barriers

    float acc[C][PX];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const float* plane = tile + c * PLANE;
        if ((f.mask >> c) & 1u) {  // the same for the whole block
            // Row pass: the 8 threads of a quarter warp take 8 consecutive rows (distinct banks).
            for (int w = threadIdx.x; w < Cfg::ROWS8 * GROUPS; w += kBlockThreads) {
                const int r = (w & 7) + 8 * (w / (8 * GROUPS));
                const int xs = ((w >> 3) % GROUPS) * PX;
                if (r >= Cfg::ROWS) continue;
                static_assert(PX == 8);
                rowPassRun8<K, Cfg::NV, Cfg::D>(plane + r * Cfg::S + xs, p.row, mid + r * Cfg::SM + xs);
            }
            __syncthreads();
            // Column pass: PX pixels of row ty.
#pragma unroll
            for (int i = 0; i < PX; ++i) acc[c][i] = 0.f;
#pragma unroll
            for (int ky = 0; ky < K; ++ky) {
                const float4* run = reinterpret_cast<const float4*>(mid + (ty + ky) * Cfg::SM + tx);
                const float4 a = run[0], b = run[1];
                const float v[PX] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < PX; ++i) acc[c][i] = fmaf(p.column[ky], v[i], acc[c][i]);
            }
            __syncthreads();
        } else {
            const float* src = plane + (ty + Cfg::R) * Cfg::S + tx + Cfg::RA;
#pragma unroll
            for (int i = 0; i < PX; ++i) acc[c][i] = src[i];
        }
    }
    if (!inside) return;
    unsigned out[PX * C / 4];
    finishPixels<C, PX>(f, acc, out);
    storePixels<C, PX>(f, x, y, out);
}

template <int C, int K> void launchInterleavedT(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    using Cfg = InterleavedConfig<K>;
    InterleavedParams<K> p;
    p.f = frame;
    for (int i = 0; i < K * K; ++i) p.taps[i] = taps[i];
    auto kernel = interleavedKernel<C, K>;
    const std::size_t smem = Cfg::smem(C);
    allowDynamicSharedMemory(kernel, smem);
    const dim3 grid((frame.width + Cfg::TW - 1) / Cfg::TW, (frame.height + Cfg::TH - 1) / Cfg::TH);
    kernel<<<grid, kBlockThreads, smem, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("interleavedKernel");
}

template <int C, int K>
void launchInterleavedSeparableT(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    using Cfg = InterleavedConfig<K>;
    InterleavedSeparableParams<K> p = separableParams<InterleavedSeparableParams<K>, K>(frame, row, column);
    auto kernel = interleavedSeparableKernel<C, K>;
    const std::size_t smem = Cfg::smemSeparable(C);
    allowDynamicSharedMemory(kernel, smem);
    const dim3 grid((frame.width + Cfg::TW - 1) / Cfg::TW, (frame.height + Cfg::TH - 1) / Cfg::TH);
    kernel<<<grid, kBlockThreads, smem, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("interleavedSeparableKernel");
}

template <int C>
void launchInterleavedSeparableC(int k, const ConvFrame& frame, const float* row, const float* column,
                                 cudaStream_t stream) {
    switch (k) {
    case 3: return launchInterleavedSeparableT<C, 3>(frame, row, column, stream);
    case 5: return launchInterleavedSeparableT<C, 5>(frame, row, column, stream);
    case 7: return launchInterleavedSeparableT<C, 7>(frame, row, column, stream);
    default: return launchInterleavedSeparableT<C, 9>(frame, row, column, stream);
    }
}

template <int C> void launchInterleavedC(int k, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    if constexpr (C == 1) {  // compiled for K = 3 and 5 only (grayTileApplies)
        if (k == 3) launchInterleavedT<1, 3>(frame, taps, stream);
        else launchInterleavedT<1, 5>(frame, taps, stream);
    } else {
        switch (k) {
        case 3: return launchInterleavedT<C, 3>(frame, taps, stream);
        case 5: return launchInterleavedT<C, 5>(frame, taps, stream);
        case 7: return launchInterleavedT<C, 7>(frame, taps, stream);
        default: return launchInterleavedT<C, 9>(frame, taps, stream);
        }
    }
}

}  // namespace

bool interleavedApplies(int k, int bank, const ConvFrame& frame) {
    return (k == 3 || k == 5 || k == 7 || k == 9) && bank == 1 && frame.combine != Combine::Channels &&
           frame.inChannels >= 2 && frame.inChannels <= 4 && frame.outChannels == frame.inChannels;
}

template <typename Launch> void byChannels(int channels, Launch launch) {
    if (channels == 2) launch(std::integral_constant<int, 2>{});
    else if (channels == 3) launch(std::integral_constant<int, 3>{});
    else launch(std::integral_constant<int, 4>{});
}

bool launchInterleavedU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    if (!interleavedApplies(k, bank, frame)) return false;
    byChannels(frame.inChannels, [&](auto c) { launchInterleavedC<decltype(c)::value>(k, frame, taps, stream); });
    return true;
}

bool grayTileApplies(int k, int bank, const ConvFrame& frame) {
    return (k == 3 || k == 5) && bank == 1 && frame.combine != Combine::Channels &&
           frame.inChannels == 1 && frame.outChannels == 1;
}

bool launchGrayTileU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    if (!grayTileApplies(k, bank, frame)) return false;
    launchInterleavedC<1>(k, frame, taps, stream);
    return true;
}

bool launchInterleavedSeparableU8(int k, const ConvFrame& frame, const float* taps, const float* row,
                                  const float* column, cudaStream_t stream) {
    if (!interleavedApplies(k, 1, frame)) return false;
    const bool direct = k <= 5;
    byChannels(frame.inChannels, [&](auto c) {
        if (direct) launchInterleavedC<decltype(c)::value>(k, frame, taps, stream);
        else launchInterleavedSeparableC<decltype(c)::value>(k, frame, row, column, stream);
    });
    return true;
}

}  // namespace cudafilters::cuda_detail
