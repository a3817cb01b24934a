// SPDX-License-Identifier: LGPL-2.1-or-later
// Row-streaming correlation of interleaved u8 pixels (RGB, RGBA and kin), K = 3 and 5, direct or separable, without
// shared memory or barriers (KernelVariants::rolling).
//
// Why: the tiled interleaved kernel (convolve_direct_interleaved.cu) loads a 128 × 16 tile plus halo into shared
// memory, waits at a barrier, then computes: at K = 5 it reloads 25 % more rows than it writes, its float planes cap
// it at a few blocks per SM, and 4K RGBA Gaussian 5 × 5 took 72 µs on an H200 where moving the bytes takes ≈ 20.
//
// Here each thread owns 4 consecutive pixels (16 bytes of RGBA, 12 of RGB) of `rows` consecutive output rows and walks
// down its column one input row at a time: it loads the row's words (its pixels and K / 2 neighbours each side, word
// aligned), converts them once, and adds them into the K output rows that row contributes to, whose sums stay in
// registers (a ring of K accumulators; the ring position of every row is a constant because the walk is unrolled by
// K). The next row's words are loaded before the current row is summed. An output row is finished, packed and stored
// as whole pixels when its last input row has been added. Lanes of a warp own adjacent pixels, so each load and store
// instruction of a warp covers 32 consecutive 12- or 16-byte runs.
//
// Arithmetic as the other kernels, so the bytes are the same: direct, acc = 0, rows top to bottom, taps left to right,
// one fmaf each; separable, the row pass of each input row (taps left to right), then the column pass over the K row
// results top to bottom; finish() rounds. Channels not filtered (alpha, the last channel) are copied from the source.
// Applies where the filtered channels are the first NF = C or C − 1 and the others are copied, and the source rows
// are 4-byte aligned; frames whose 4-pixel runs or rows leave the frame go sample by sample through borderIndex.
#include "convolve_interleaved.cuh"

namespace cudafilters::cuda_detail {
namespace {

constexpr int kRollThreads = 128;  // 32 lanes across, 4 warps down
constexpr int kRollPixels = 4;     // consecutive pixels per thread

template <int K, bool SEPARABLE> struct RollingTaps {
    float taps[K * K];
};
template <int K> struct RollingTaps<K, true> {
    float row[K];
    float column[K];
};

template <int K, bool SEPARABLE> struct RollingParams {
    ConvFrame f;
    RollingTaps<K, SEPARABLE> t;
    int rows;  // output rows per thread
};

template <int C, int K> struct RollingWindow {
    static constexpr int G = kRollPixels, R = K / 2, N = G + 2 * R;  // N: pixels a row contributes to a thread's G
    static constexpr int HALO = roundUp4(R * C);                     // bytes loaded each side, whole words
    static constexpr int WORDS = (2 * HALO + G * C) / 4;
    static constexpr int LEAD = HALO - R * C;                        // byte of pixel x − R in the loaded words
};

// Row s of a thread's walk (source row y0 − R + s): the N pixels' filtered channels as floats, and the bytes of the
// copied channels of its own G pixels (byte i · (C − NF) + c − NF). Words loaded by fetch() when `direct`.
template <int C, int NF, int K>
__device__ __forceinline__ void convertRow(const ConvFrame& f, int x, int gy, bool direct,
                                           const unsigned (&w)[RollingWindow<C, K>::WORDS],
                                           float (&v)[RollingWindow<C, K>::N][NF], unsigned& kept) {
    using W = RollingWindow<C, K>;
    kept = 0;
    if (direct) {
#pragma unroll
        for (int p = 0; p < W::N; ++p)
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int b = W::LEAD + p * C + c;
                if (c < NF) v[p][c] = byteOf(w[b / 4], b % 4);
                else if (p >= W::R && p < W::R + W::G)
                    kept |= ((w[b / 4] >> (8 * (b % 4))) & 0xFFu) << (8 * ((p - W::R) * (C - NF) + c - NF));
            }
        return;
    }
    const unsigned char* row = gy >= 0 ? f.src + std::size_t(gy) * f.srcPitch : nullptr;
#pragma unroll
    for (int p = 0; p < W::N; ++p) {
        const int gx = borderIndex(x - W::R + p, f.width, f.border);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const bool inside = row && gx >= 0;
            if (c < NF) v[p][c] = inside ? float(__ldg(row + std::size_t(gx) * C + c)) : f.borderValue;
            else if (p >= W::R && p < W::R + W::G && inside)
                kept |= unsigned(__ldg(row + std::size_t(gx) * C + c)) << (8 * ((p - W::R) * (C - NF) + c - NF));
        }
    }
}

template <int C, int NF, int K, bool SEPARABLE>
__global__ void __launch_bounds__(kRollThreads) rollingKernel(const __grid_constant__ RollingParams<K, SEPARABLE> p) {
    using W = RollingWindow<C, K>;
    constexpr int G = W::G, R = W::R;
    const ConvFrame& f = p.f;
    const int x = (int(blockIdx.x) * 32 + int(threadIdx.x & 31)) * G;
    const int y0 = (int(blockIdx.y) * (kRollThreads / 32) + int(threadIdx.x >> 5)) * p.rows;
    if (x >= f.width || y0 >= f.height) return;
    const int rows = min(p.rows, f.height - y0);
    const int steps = rows + K - 1;
    const bool interiorX = x * C - W::HALO >= 0 && (x + G) * C + W::HALO <= f.width * C;

    auto fetch = [&](int s, unsigned (&w)[W::WORDS]) {
        const int gy = borderIndex(y0 - R + s, f.height, f.border);
        if (interiorX && gy >= 0) {
            const auto* src = reinterpret_cast<const unsigned*>(f.src + std::size_t(gy) * f.srcPitch +
                                                                std::size_t(x) * C - W::HALO);
            constexpr int H = W::HALO / 4;  // words of one halo
            if (C == 4 && f.rowAlign >= 16) {  // the pixels as one 16-byte word, each halo as one 8- or 4-byte word
                const uint4 mid = __ldg(reinterpret_cast<const uint4*>(src + H));
                w[H] = mid.x, w[H + 1] = mid.y, w[H + 2] = mid.z, w[H + 3] = mid.w;
                if constexpr (H == 2) {
                    const uint2 left = __ldg(reinterpret_cast<const uint2*>(src));
                    const uint2 right = __ldg(reinterpret_cast<const uint2*>(src + H + 4));
                    w[0] = left.x, w[1] = left.y, w[H + 4] = right.x, w[H + 5] = right.y;
                } else {
#pragma unroll
                    for (int i = 0; i < H; ++i) w[i] = __ldg(src + i), w[H + 4 + i] = __ldg(src + H + 4 + i);
                }
            } else {
#pragma unroll
                for (int i = 0; i < W::WORDS; ++i) w[i] = __ldg(src + i);
            }
        }
        return gy;
    };

    float acc[K][G][NF];  // ring: output row o sums in acc[o % K]
    unsigned kept[K];     // its copied bytes
    unsigned words[W::WORDS];
    int gy = fetch(0, words);
    for (int base = 0; base < steps; base += K) {
#pragma unroll
        for (int j = 0; j < K; ++j) {
            const int s = base + j;
            if (s >= steps) break;
            float v[W::N][NF];
            unsigned centre;
            convertRow<C, NF, K>(f, x, gy, interiorX && gy >= 0, words, v, centre);
            if (s + 1 < steps) gy = fetch(s + 1, words);

            [[maybe_unused]] float h[G][NF];  // separable: the row pass of this row
            if constexpr (SEPARABLE) {
#pragma unroll
                for (int i = 0; i < G; ++i)
#pragma unroll
                    for (int c = 0; c < NF; ++c) {
                        float a = 0.f;
#pragma unroll
                        for (int kx = 0; kx < K; ++kx) a = fmaf(p.t.row[kx], v[i + kx][c], a);
                        h[i][c] = a;
                    }
            }
#pragma unroll
            for (int ky = 0; ky < K; ++ky) {
                const int o = s - ky;  // the output row this input row is tap row ky of
                const int slot = (j - ky + K) % K;
                if (o < 0 || o >= rows) continue;
#pragma unroll
                for (int i = 0; i < G; ++i)
#pragma unroll
                    for (int c = 0; c < NF; ++c) {
                        if constexpr (SEPARABLE) {
                            acc[slot][i][c] = fmaf(p.t.column[ky], h[i][c], ky == 0 ? 0.f : acc[slot][i][c]);
                        } else {
                            float a = ky == 0 ? 0.f : acc[slot][i][c];
#pragma unroll
                            for (int kx = 0; kx < K; ++kx) a = fmaf(p.t.taps[ky * K + kx], v[i + kx][c], a);
                            acc[slot][i][c] = a;
                        }
                    }
                if (ky == R) kept[slot] = centre;
            }
            const int done = s - (K - 1);
            if (done >= 0) {
                const int slot = (j + 1) % K;
                unsigned out[G * C / 4];
#pragma unroll
                for (int q = 0; q < G * C / 4; ++q) out[q] = 0;
#pragma unroll
                for (int i = 0; i < G; ++i)
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        const unsigned b = c < NF ? finish<std::uint8_t>(f, acc[slot][i][c])
                                                  : (kept[slot] >> (8 * (i * (C - NF) + c - NF))) & 0xFFu;
                        out[(i * C + c) / 4] |= b << (8 * ((i * C + c) % 4));
                    }
                storePixels<C, G>(f, x, y0 + done, out);
            }
        }
    }
}

// Output rows per thread: enough threads for about two of the 512-thread waves each SM holds at this register use,
// no fewer than 2 rows (the K − 1 extra input rows of a walk are paid once per walk).
int rowsPerThread(const ConvFrame& f) {
    static const int sms = [] {
        int device = 0, count = 0;
        if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
            cudaGetLastError();
            return 132;
        }
        return count;
    }();
    const long walks = long((f.width + kRollPixels - 1) / kRollPixels) * f.height;
    const long rows = walks / (long(sms) * 1024);
    return int(rows < 2 ? 2 : rows > 32 ? 32 : rows);
}

template <int C, int NF, int K, bool SEPARABLE>
void launchRollingT(const ConvFrame& frame, const RollingTaps<K, SEPARABLE>& taps, cudaStream_t stream) {
    RollingParams<K, SEPARABLE> p;
    p.f = frame;
    p.t = taps;
    p.rows = rowsPerThread(frame);
    const int walksX = (frame.width + kRollPixels - 1) / kRollPixels;
    const int rowsPerBlock = p.rows * (kRollThreads / 32);
    const dim3 grid((walksX + 31) / 32, (frame.height + rowsPerBlock - 1) / rowsPerBlock);
    rollingKernel<C, NF, K, SEPARABLE><<<grid, kRollThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("rollingKernel");
}

template <int K, bool SEPARABLE>
void launchRollingK(const ConvFrame& frame, const RollingTaps<K, SEPARABLE>& taps, cudaStream_t stream) {
    if (frame.inChannels == 3) launchRollingT<3, 3, K, SEPARABLE>(frame, taps, stream);
    else if (frame.mask == 0xFu) launchRollingT<4, 4, K, SEPARABLE>(frame, taps, stream);
    else launchRollingT<4, 3, K, SEPARABLE>(frame, taps, stream);
}

}  // namespace

bool rollingApplies(int k, int bank, const ConvFrame& frame, int variant) {
    const bool channels = (frame.inChannels == 3 && frame.mask == 0x7u) ||
                          (frame.inChannels == 4 && (frame.mask == 0xFu || (frame.mask == 0x7u && frame.copy == 0x8u)));
    return variant >= 0 && (k == 3 || k == 5) && bank == 1 && frame.combine != Combine::Channels &&
           frame.outChannels == frame.inChannels && channels && frame.rowAlign >= 4;
}

bool launchRollingU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream, int variant) {
    if (!rollingApplies(k, bank, frame, variant)) return false;
    if (k == 3) {
        RollingTaps<3, false> t;
        for (int i = 0; i < 9; ++i) t.taps[i] = taps[i];
        launchRollingK<3, false>(frame, t, stream);
    } else {
        RollingTaps<5, false> t;
        for (int i = 0; i < 25; ++i) t.taps[i] = taps[i];
        launchRollingK<5, false>(frame, t, stream);
    }
    return true;
}

bool launchRollingSeparableU8(int k, const ConvFrame& frame, const float* row, const float* column,
                              cudaStream_t stream, int variant) {
    if (!rollingApplies(k, 1, frame, variant)) return false;
    if (k == 3) {
        RollingTaps<3, true> t;
        for (int i = 0; i < 3; ++i) t.row[i] = row[i], t.column[i] = column[i];
        launchRollingK<3, true>(frame, t, stream);
    } else {
        RollingTaps<5, true> t;
        for (int i = 0; i < 5; ++i) t.row[i] = row[i], t.column[i] = column[i];
        launchRollingK<5, true>(frame, t, stream);
    }
    return true;
}

}  // namespace cudafilters::cuda_detail
