// SPDX-License-Identifier: LGPL-2.1-or-later
// Apply pass of the tile kernels: every pixel mapped through its LUT (global equalization: the frame's one tile) or,
// for CLAHE, through cv::createCLAHE's bilinear blend of the LUTs of the four tiles around it. One pixel per thread
// (applyKernel: planes, Y/chroma pairs, luma and per-channel RGB(A), u8 and u16), or a 16-byte chunk per thread for
// one u16 channel (applyGray16Vec) and for u8 planes and Y/chroma pairs (applyGray8Vec, where the band kernel does not
// apply). CLAHE's band kernel (planes and pairs, and the CLAHE luma chunk kernels) is histeq_clahe_bands.cu's.
#include "histeq_device.cuh"

#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {
namespace {

// CLAHE's blend as cv::createCLAHE computes it: every product and sum rounded on its own (no FMA).
struct ClaheWeights {
    int o11, o12, o21, o22;  // LUT offsets of the four tiles (in units of LUTs)
    float xa, xa1, ya, ya1;
};

__device__ __forceinline__ ClaheWeights claheWeights(const HisteqParams& p, int x, int y) {
    ClaheWeights w;
    int tx1, tx2, ty1, ty2;
    tileCoordinate(x, p.invTileWidth, p.tilesX, tx1, tx2, w.xa, w.xa1);
    tileCoordinate(y, p.invTileHeight, p.tilesY, ty1, ty2, w.ya, w.ya1);
    w.o11 = ty1 * p.tilesX + tx1;
    w.o12 = ty1 * p.tilesX + tx2;
    w.o21 = ty2 * p.tilesX + tx1;
    w.o22 = ty2 * p.tilesX + tx2;
    return w;
}

template <typename T>
__device__ __forceinline__ int blend(const T* luts, int bins, const ClaheWeights& w, int v) {
    const float l11 = float(__ldg(&luts[std::size_t(w.o11) * bins + v]));
    const float l12 = float(__ldg(&luts[std::size_t(w.o12) * bins + v]));
    const float l21 = float(__ldg(&luts[std::size_t(w.o21) * bins + v]));
    const float l22 = float(__ldg(&luts[std::size_t(w.o22) * bins + v]));
    const float top = __fadd_rn(__fmul_rn(l11, w.xa1), __fmul_rn(l12, w.xa));
    const float bottom = __fadd_rn(__fmul_rn(l21, w.xa1), __fmul_rn(l22, w.xa));
    return saturateRound(__fadd_rn(__fmul_rn(top, w.ya1), __fmul_rn(bottom, w.ya)), bins - 1);
}

template <typename T, int CH, HisteqKind KIND, bool CLAHE>
__global__ void __launch_bounds__(kThreads) applyKernel(const HisteqParams p) {
    constexpr int K = equalizedChannels(KIND);
    const int bins = binsOf<T>(p);
    constexpr int kMax = SampleTraits<T>::kMax;
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const int tiles = p.tilesX * p.tilesY;
    const T* luts = static_cast<const T*>(p.luts);
    const T* in = rowOf<T>(p.src, p.srcPitch, y) + std::size_t(x) * CH;
    T* out = const_cast<T*>(rowOf<T>(p.dst, p.dstPitch, y)) + std::size_t(x) * CH;
    ClaheWeights w{};
    if constexpr (CLAHE) w = claheWeights(p, x, y);
    auto equalize = [&](int k, int v) -> int {
        if constexpr (CLAHE) return blend<T>(luts + std::size_t(k) * tiles * bins, bins, w, v);
        else return __ldg(&luts[std::size_t(k) * bins + v]);
    };
    if constexpr (CH == 4 && sizeof(T) == 1) {
        if (p.pixelWords) {  // rows of 4-byte aligned pixels: one word in, one out
            const unsigned pixel = *reinterpret_cast<const unsigned*>(in);  // plain load: src may be dst (in place)
            *reinterpret_cast<unsigned*>(out) = equalizedPixel<KIND>(pixel, wordOrder(p), equalize);
            return;
        }
    }
    T px[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) px[c] = in[c];
    int v[K];
    pixelValues<T, CH, KIND>(px, p, v);
    int e[K];
#pragma unroll
    for (int k = 0; k < K; ++k) e[k] = equalize(k, v[k]);
    if constexpr (CH == 1) {
        out[0] = T(e[0] << p.shift);
    } else {
        T o[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) o[c] = px[c];  // alpha / padding kept
        if constexpr (CH == 2) {
            o[p.lumaChannel] = T(e[0]);
        } else if constexpr (KIND == HisteqKind::Luma) {
            int r, g, b;
            rebuildRgb<kMax>(px[p.red], px[p.blue], v[0], e[0], r, g, b);
            o[p.red] = T(r);
            o[p.green] = T(g);
            o[p.blue] = T(b);
        } else {
            o[p.red] = T(e[0]);
            o[p.green] = T(e[1]);
            o[p.blue] = T(e[2]);
        }
#pragma unroll
        for (int c = 0; c < CH; ++c) out[c] = o[c];
    }
}

// One u16 channel with 16-byte aligned rows: 8 samples per thread, one 16-byte load and store (the same arithmetic as
// applyKernel, which takes one sample per thread).
template <bool CLAHE>
__global__ void __launch_bounds__(kThreads) applyGray16Vec(const HisteqParams p) {
    const std::uint16_t* luts = static_cast<const std::uint16_t*>(p.luts);
    const int bins = p.bins;
    const int x = (blockIdx.x * 32 + threadIdx.x) * 8, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const std::uint16_t* in = rowOf<std::uint16_t>(p.src, p.srcPitch, y) + x;
    std::uint16_t* out = const_cast<std::uint16_t*>(rowOf<std::uint16_t>(p.dst, p.dstPitch, y)) + x;
    const int n = min(8, p.width - x);
    unsigned w[4] = {0, 0, 0, 0};
    if (n == 8) {
        const uint4 q = __ldg(reinterpret_cast<const uint4*>(in));
        w[0] = q.x;
        w[1] = q.y;
        w[2] = q.z;
        w[3] = q.w;
    } else {
        for (int j = 0; j < n; ++j) w[j >> 1] |= unsigned(in[j]) << ((j & 1) * 16);
    }
    unsigned o[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        // Not past the row's end: the tile coordinates of columns outside the frame may lie outside the grid, and the
        // LUT reads then past the tables (a 1 × 1 GRAY16_LE frame).
        if (j >= n) break;
        const int v = min(int((w[j >> 1] >> ((j & 1) * 16)) & 0xffffu) >> p.shift, bins - 1);
        int e;
        if constexpr (CLAHE) e = blend<std::uint16_t>(luts, bins, claheWeights(p, x + j, y), v);
        else e = __ldg(&luts[v]);
        o[j >> 1] |= (unsigned(e << p.shift) & 0xffffu) << ((j & 1) * 16);
    }
    if (n == 8) {
        *reinterpret_cast<uint4*>(out) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
        for (int j = 0; j < n; ++j) out[j] = std::uint16_t(o[j >> 1] >> ((j & 1) * 16));
    }
}

// u8 with 16-byte aligned rows, 1 channel or Y/chroma pairs (CH = 2: p.lumaChannel mapped, the other copied): 16
// bytes per thread. Global: one LUT; CLAHE: the tile LUTs, staged in shared memory when they fit (SHARED), else read
// through the read-only cache.
template <int CH, bool CLAHE, bool SHARED>
__global__ void __launch_bounds__(kThreads) applyGray8Vec(const HisteqParams p) {
    extern __shared__ std::uint8_t sLut[];
    const std::uint8_t* gLut = static_cast<const std::uint8_t*>(p.luts);
    const int lutBytes = CLAHE ? p.tilesX * p.tilesY * 256 : 256;
    if constexpr (SHARED) {
        for (int i = threadIdx.x + threadIdx.y * 32; i * 16 < lutBytes; i += kThreads)
            reinterpret_cast<uint4*>(sLut)[i] = __ldg(reinterpret_cast<const uint4*>(gLut) + i);
        __syncthreads();
    }
    const std::uint8_t* lut = SHARED ? sLut : gLut;
    constexpr int PPC = 16 / CH;
    const int x = (blockIdx.x * 32 + threadIdx.x) * PPC, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const std::uint8_t* in = rowOf<std::uint8_t>(p.src, p.srcPitch, y) + std::size_t(x) * CH;
    std::uint8_t* out = const_cast<std::uint8_t*>(rowOf<std::uint8_t>(p.dst, p.dstPitch, y)) + std::size_t(x) * CH;
    auto mapped = [&](int b) { return CH == 1 || b % CH == p.lumaChannel; };  // byte b of the chunk
    float ya = 0, ya1 = 0;
    int rowA = 0, rowB = 0;
    if constexpr (CLAHE) {
        int ty1, ty2;
        tileCoordinate(y, p.invTileHeight, p.tilesY, ty1, ty2, ya, ya1);
        rowA = ty1 * p.tilesX;
        rowB = ty2 * p.tilesX;
    }
    auto map = [&](int xx, unsigned v) -> unsigned {
        if constexpr (!CLAHE) {
            return lut[v];
        } else {
            int tx1, tx2;
            float xa, xa1;
            tileCoordinate(xx, p.invTileWidth, p.tilesX, tx1, tx2, xa, xa1);
            const float l11 = float(lut[(rowA + tx1) * 256 + v]), l12 = float(lut[(rowA + tx2) * 256 + v]);
            const float l21 = float(lut[(rowB + tx1) * 256 + v]), l22 = float(lut[(rowB + tx2) * 256 + v]);
            const float top = __fadd_rn(__fmul_rn(l11, xa1), __fmul_rn(l12, xa));
            const float bottom = __fadd_rn(__fmul_rn(l21, xa1), __fmul_rn(l22, xa));
            return unsigned(saturateRound(__fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bottom, ya)), 255));
        }
    };
    if (x + PPC <= p.width) {
        const uint4 q = *reinterpret_cast<const uint4*>(in);  // plain load: src may be dst (in place)
        const unsigned w[4] = {q.x, q.y, q.z, q.w};
        unsigned r[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            r[j] = 0;
#pragma unroll
            for (int b = 0; b < 4; ++b) {
                const unsigned v = (w[j] >> (8 * b)) & 0xffu;
                r[j] |= (mapped(j * 4 + b) ? map(x + (j * 4 + b) / CH, v) : v) << (8 * b);
            }
        }
        *reinterpret_cast<uint4*>(out) = make_uint4(r[0], r[1], r[2], r[3]);
    } else {
        for (int b = 0; x + b / CH < p.width; ++b) out[b] = mapped(b) ? std::uint8_t(map(x + b / CH, in[b])) : in[b];
    }
}


template <typename T, int CH, HisteqKind KIND>
void applyTyped(const HisteqParams& p, cudaStream_t stream) {
    const dim3 block(32, 8);
    if constexpr ((CH == 1 || CH == 2) && sizeof(T) == 1) {
        if (p.vectorized) {
            constexpr int PPC = 16 / CH;
            const dim3 grid((((p.width + PPC - 1) / PPC) + 31) / 32, (p.height + 7) / 8);
            const int lutBytes = p.clahe ? p.tilesX * p.tilesY * 256 : 256;
            if (p.clahe && p.bandRows > 0) launchClaheBands(p, stream);
            else if (!p.clahe) applyGray8Vec<CH, false, true><<<grid, block, lutBytes, stream>>>(p);
            else if (lutBytes <= kSharedLutLimit) applyGray8Vec<CH, true, true><<<grid, block, lutBytes, stream>>>(p);
            else applyGray8Vec<CH, true, false><<<grid, block, 0, stream>>>(p);
            return;
        }
    }
    if constexpr ((CH == 4 || CH == 3) && sizeof(T) == 1 && KIND == HisteqKind::Luma) {
        if (p.claheLumaChunks && p.bandRows > 0) {
            launchClaheBands(p, stream);
            return;
        }
    }
    if constexpr (CH == 1 && sizeof(T) == 2) {
        if (p.vectorized) {
            const dim3 grid((((p.width + 7) / 8) + 31) / 32, (p.height + 7) / 8);
            if (p.clahe) applyGray16Vec<true><<<grid, block, 0, stream>>>(p);
            else applyGray16Vec<false><<<grid, block, 0, stream>>>(p);
            return;
        }
    }
    const dim3 grid((p.width + 31) / 32, (p.height + 7) / 8);
    if (p.clahe) applyKernel<T, CH, KIND, true><<<grid, block, 0, stream>>>(p);
    else applyKernel<T, CH, KIND, false><<<grid, block, 0, stream>>>(p);
}

template <typename T, int CH, HisteqKind KIND> struct ApplyOp {
    static void run(const HisteqParams& p, cudaStream_t s) { applyTyped<T, CH, KIND>(p, s); }
};

}  // namespace

void launchApply(const HisteqParams& p, cudaStream_t stream) {
    dispatch<ApplyOp>(p, stream);
    CUDAFILTERS_CHECK_LAUNCH("histeq apply kernel");
}

}  // namespace cudafilters::detail
