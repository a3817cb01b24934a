// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What the histogram equalization kernel files share: the block size, sample and pixel access (levels, BT.601 luma as
// OpenCV's fixed point, 16-byte chunks of pixels), the programmatic dependent launch hooks, CLAHE's tile positions,
// and the host helpers that launch an apply kernel after its histogram kernel and dispatch on the frame's layout.
// Arithmetic mirrors engine/histeq/core exactly.
//
// Everything is in an unnamed namespace: each kernel file is a device module of its own (no relocatable device code)
// and takes its own copy, inlined; nothing here is linked across files.
#include "histeq_launch.hpp"

#include <cudafilters/cuda_raii.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cudafilters::detail {
namespace {

constexpr int kThreads = 256;      // both passes; the LUT builder assumes bins % kThreads == 0

template <typename T> struct SampleTraits;
template <> struct SampleTraits<std::uint8_t> {
    static constexpr int kMax = 255;
};
template <> struct SampleTraits<std::uint16_t> {
    static constexpr int kMax = 65535;
};

// Bins of the histograms: 256 for u8 (known at compile time), one per level of the real depth for u16 (65 536, or
// 1024 for 10-bit formats).
template <typename T> __device__ __forceinline__ int binsOf(const HisteqParams& p) {
    if constexpr (sizeof(T) == 1) return 256;
    else return p.bins;
}
template <typename T> __device__ __forceinline__ int statsShiftOf(const HisteqParams& p) {
    if constexpr (sizeof(T) == 1) return 0;
    else return p.statsShift;
}

constexpr int equalizedChannels(HisteqKind k) { return k == HisteqKind::PerChannel ? 3 : 1; }

__device__ __forceinline__ int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

__device__ __forceinline__ int descale(int v) { return (v + (1 << 13)) >> 14; }
__device__ __forceinline__ int clampTo(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

// Y of BT.601 YCrCb (cv::cvtColor's fixed point). The weights sum to 1 << 14, so Y lies in [0, kMax] before the clamp.
template <int kMax> __device__ __forceinline__ int lumaOf(int r, int g, int b) {
    return clampTo(descale(r * 4899 + g * 9617 + b * 1868), kMax);
}

// R, G and B of a pixel whose Y (lumaOf) went from yOld to yNew: Cr and Cb of the old pixel, then YCrCb back to RGB
// around the new Y, as cv::cvtColor's fixed point round trip.
template <int kMax>
__device__ __forceinline__ void rebuildRgb(int r, int b, int yOld, int yNew, int& rOut, int& gOut, int& bOut) {
    constexpr int kHalf = (kMax + 1) / 2;
    const int cr = clampTo(descale((r - yOld) * 11682 + (kHalf << 14)), kMax);
    const int cb = clampTo(descale((b - yOld) * 9241 + (kHalf << 14)), kMax);
    bOut = clampTo(yNew + descale((cb - kHalf) * 29049), kMax);
    gOut = clampTo(yNew + descale((cb - kHalf) * -5636 + (cr - kHalf) * -11698), kMax);
    rOut = clampTo(yNew + descale((cr - kHalf) * 22987), kMax);
}

// 4-channel u8 pixels read as one little-endian word: which bytes hold R, G and B, and the bits kept (alpha or
// padding). Channels picked by byte permutes and shifts: an array indexed by the run-time channel order would live in
// local memory.
struct WordOrder {
    unsigned red, green, blue, kept;
};

__device__ __forceinline__ WordOrder wordOrder(const HisteqParams& p) {
    WordOrder o{unsigned(p.red), unsigned(p.green), unsigned(p.blue), 0u};
    o.kept = ~(0xffu << 8 * o.red | 0xffu << 8 * o.green | 0xffu << 8 * o.blue);
    return o;
}

// Byte `index` of the pixel (the permute's other bytes come from the zero word).
__device__ __forceinline__ int channelOf(unsigned pixel, unsigned index) {
    return int(__byte_perm(pixel, 0u, 0x4440u | index));
}

__device__ __forceinline__ int lumaOfPixel(unsigned pixel, const WordOrder& o) {
    return lumaOf<255>(channelOf(pixel, o.red), channelOf(pixel, o.green), channelOf(pixel, o.blue));
}

// The pixel equalized with map(k, value) → level for equalized channel k: Y mapped and RGB rebuilt around it (Luma),
// or R, G and B mapped (PerChannel); the fourth channel kept.
template <HisteqKind KIND, typename Map>
__device__ __forceinline__ unsigned equalizedPixel(unsigned pixel, const WordOrder& o, Map map) {
    const int r = channelOf(pixel, o.red), g = channelOf(pixel, o.green), b = channelOf(pixel, o.blue);
    int rOut, gOut, bOut;
    if constexpr (KIND == HisteqKind::Luma) {
        const int y = lumaOf<255>(r, g, b);
        rebuildRgb<255>(r, b, y, map(0, y), rOut, gOut, bOut);
    } else {
        rOut = map(0, r);
        gOut = map(1, g);
        bOut = map(2, b);
    }
    return (pixel & o.kept) | unsigned(rOut) << 8 * o.red | unsigned(gOut) << 8 * o.green |
           unsigned(bOut) << 8 * o.blue;
}

// The 16-byte aligned items of the luma chunk kernels (global and CLAHE) and of the u8 plane kernels: 16 / CH pixels in one uint4 (CH = 1, 2, 4), or 16 pixels of 3 channels in three (48 bytes).
__host__ __device__ constexpr int chunkPixels(int channels) { return channels == 3 ? 16 : 16 / channels; }
struct Uint4x3 {
    uint4 a, b, c;
};
template <int CH> using ChunkData = std::conditional_t<CH == 3, Uint4x3, uint4>;

// Word k of a chunk (k a constant once unrolled).
__device__ __forceinline__ unsigned wordOf(const uint4& q, int k) { return k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w; }
__device__ __forceinline__ unsigned wordOf(const Uint4x3& q, int k) { return wordOf(k < 4 ? q.a : k < 8 ? q.b : q.c, k & 3); }

// Pixel j of a chunk as a little-endian word for lumaOfPixel / equalizedPixel (WordOrder): 4 channels the word itself,
// 3 channels bytes 3j .. 3j + 2 in bytes 0-2 (byte 3 a neighbour's, never stored).
template <int CH> __device__ __forceinline__ unsigned chunkPixel(const ChunkData<CH>& q, int j) {
    static_assert(CH == 3 || CH == 4, "pixels of 3 or 4 channels");
    if constexpr (CH == 4) {
        return wordOf(q, j);
    } else {
        const int b = 3 * j, k = b >> 2, s = b & 3;
        return __byte_perm(wordOf(q, k), wordOf(q, k < 11 ? k + 1 : k),
                           unsigned(s | (s + 1) << 4 | (s + 2) << 8 | (s + 3) << 12));
    }
}

// The chunk of pixels px[0 .. chunkPixels(CH) - 1] (words as chunkPixel gives them; 3 channels: bytes 0-2 of each).
template <int CH> __device__ __forceinline__ ChunkData<CH> chunkOfPixels(const unsigned (&px)[chunkPixels(CH)]) {
    if constexpr (CH == 4) {
        return make_uint4(px[0], px[1], px[2], px[3]);
    } else {
        unsigned w[12];
#pragma unroll
        for (int k = 0; k < 12; ++k) {
            // Byte i of word k is byte (4k + i) % 3 of pixel (4k + i) / 3: pixels `first` and first + 1.
            const int first = 4 * k / 3;
            unsigned selector = 0;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int b = 4 * k + i;
                selector |= unsigned((b / 3 - first) * 4 + b % 3) << (4 * i);
            }
            w[k] = __byte_perm(px[first], px[first < 15 ? first + 1 : first], selector);
        }
        return Uint4x3{make_uint4(w[0], w[1], w[2], w[3]), make_uint4(w[4], w[5], w[6], w[7]),
                       make_uint4(w[8], w[9], w[10], w[11])};
    }
}

// Pixel x of a row of CH-channel u8 pixels as a word (chunkPixel's form), and its store: the partial chunks.
template <int CH> __device__ __forceinline__ unsigned loadPixel(const std::uint8_t* row, int x) {
    if constexpr (CH == 4) {
        return reinterpret_cast<const unsigned*>(row)[x];
    } else {
        const std::uint8_t* px = row + std::size_t(x) * 3;
        return unsigned(px[0]) | unsigned(px[1]) << 8 | unsigned(px[2]) << 16;
    }
}
template <int CH> __device__ __forceinline__ void storePixel(std::uint8_t* row, int x, unsigned pixel) {
    if constexpr (CH == 4) {
        reinterpret_cast<unsigned*>(row)[x] = pixel;
    } else {
        std::uint8_t* px = row + std::size_t(x) * 3;
        px[0] = std::uint8_t(pixel);
        px[1] = std::uint8_t(pixel >> 8);
        px[2] = std::uint8_t(pixel >> 16);
    }
}

// Counts the lumas of a whole chunk through countRun(level, n). A flat chunk (one luma) counts once for all the lanes
// whose chunks hold that luma in the same group (__match_any_sync: a flat area costs one atomic per warp, not 32 on
// one bank); other chunks by runs of equal lumas. group < 2 (CLAHE: rows in the frame 0, padding rows 1).
template <int CH, typename CountRun>
__device__ __forceinline__ void countChunkLumas(const ChunkData<CH>& q, const WordOrder& order, unsigned group,
                                                CountRun&& countRun) {
    constexpr int kPixels = chunkPixels(CH);
    unsigned luma[kPixels];
    bool flat = true;
#pragma unroll
    for (int j = 0; j < kPixels; ++j) {
        luma[j] = unsigned(lumaOfPixel(chunkPixel<CH>(q, j), order));
        flat = flat && luma[j] == luma[0];
    }
    const unsigned lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(__activemask(), flat ? luma[0] | group << 8 : 512u + lane);
    if (flat) {
        if (lane == unsigned(__ffs(peers) - 1)) countRun(luma[0], unsigned(kPixels) * unsigned(__popc(peers)));
        return;
    }
    unsigned level = luma[0], run = 1;
#pragma unroll
    for (int j = 1; j < kPixels; ++j) {
        if (luma[j] == level) {
            ++run;
        } else {
            countRun(level, run);
            level = luma[j];
            run = 1;
        }
    }
    countRun(level, run);
}

// A chunk at a 16-byte aligned address: plain loads (src may be dst), read-only loads, stores.
template <int CH> __device__ __forceinline__ ChunkData<CH> loadChunkAt(const std::uint8_t* at) {
    const uint4* q = reinterpret_cast<const uint4*>(at);
    if constexpr (CH == 3) return Uint4x3{q[0], q[1], q[2]};
    else return q[0];
}
template <int CH> __device__ __forceinline__ ChunkData<CH> ldgChunkAt(const std::uint8_t* at) {
    const uint4* q = reinterpret_cast<const uint4*>(at);
    if constexpr (CH == 3) return Uint4x3{__ldg(q), __ldg(q + 1), __ldg(q + 2)};
    else return __ldg(q);
}
template <int CH> __device__ __forceinline__ void storeChunkAt(std::uint8_t* at, const ChunkData<CH>& v) {
    uint4* q = reinterpret_cast<uint4*>(at);
    if constexpr (CH == 3) {
        q[0] = v.a;
        q[1] = v.b;
        q[2] = v.c;
    } else {
        q[0] = v;
    }
}

// The values that are equalized for one pixel: the sample (as a level of its depth), Y of a Y/chroma pair or of
// RGB, or R, G, B.
template <typename T, int CH, HisteqKind KIND>
__device__ __forceinline__ void pixelValues(const T* px, const HisteqParams& p, int (&v)[equalizedChannels(KIND)]) {
    if constexpr (CH == 1 && sizeof(T) == 1) {
        v[0] = px[0];
    } else if constexpr (CH == 1) {
        v[0] = min(int(px[0]) >> p.shift, p.bins - 1);  // levels above a 10-bit depth saturate
    } else if constexpr (CH == 2) {
        v[0] = px[p.lumaChannel];
    } else if constexpr (KIND == HisteqKind::Luma) {
        v[0] = lumaOf<SampleTraits<T>::kMax>(px[p.red], px[p.green], px[p.blue]);
    } else {
        v[0] = px[p.red];
        v[1] = px[p.green];
        v[2] = px[p.blue];
    }
}

__device__ __forceinline__ int saturateRound(float v, int hi) { return clampTo(__float2int_rn(v), hi); }

// Programmatic dependent launch (sm_90): no-ops when the kernels are launched the ordinary way.
__device__ __forceinline__ void releaseDependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void waitForPrerequisites() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <typename T> __device__ __forceinline__ const T* rowOf(const void* base, std::size_t pitch, int y) {
    return reinterpret_cast<const T*>(static_cast<const std::uint8_t*>(base) + std::size_t(y) * pitch);
}

// Where pos lies between tile centres: the tiles on either side are t and t + 1 (t from −1 to tiles − 1, before
// clamping to the grid), with weights a1 and a.
struct TilePosition {
    int t;
    float a, a1;
};
__device__ __forceinline__ TilePosition tilePosition(int pos, float inv) {
    const float f = __fsub_rn(__fmul_rn(float(pos), inv), 0.5f);
    const int t = int(floorf(f));
    const float a = __fsub_rn(f, float(t));
    return {t, a, __fsub_rn(1.0f, a)};
}

__device__ __forceinline__ void tileCoordinate(int pos, float inv, int tiles, int& t1, int& t2, float& a, float& a1) {
    const TilePosition tp = tilePosition(pos, inv);
    a = tp.a;
    a1 = tp.a1;
    t1 = max(tp.t, 0);
    t2 = min(tp.t + 1, tiles - 1);
}

// The dynamic shared memory a block takes without opting in to more: the most that the apply kernels stage tile LUTs
// (or a band's LUT quads) in.
constexpr int kSharedLutLimit = 48 * 1024;

// An apply kernel after the histogram kernel: a programmatic dependent where p.overlapped (it waits for the
// histogram kernel on the device, griddepcontrol.wait), else an ordinary launch.
inline void launchAfterHistogram(void (*kernel)(HisteqParams), dim3 grid, dim3 block, int sharedBytes,
                                 cudaStream_t stream, const HisteqParams& p) {
    if (!p.overlapped) {
        kernel<<<grid, block, sharedBytes, stream>>>(p);
        return;
    }
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = std::size_t(sharedBytes);
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CUDAFILTERS_CHECK(cudaLaunchKernelEx(&config, kernel, p));
}

// Calls F<T, CH, KIND>::run(p, stream) for the frame's sample type, channels and colour mode.
template <template <typename, int, HisteqKind> class F, typename T>
void dispatchLayout(const HisteqParams& p, cudaStream_t stream) {
    const bool luma = p.kind == HisteqKind::Luma;
    switch (p.channels) {
    case 1: F<T, 1, HisteqKind::Plane>::run(p, stream); break;
    case 2:  // Y/chroma pairs of packed 4:2:2, u8 only (EqualizePlan::make)
        if constexpr (sizeof(T) == 1) F<T, 2, HisteqKind::Plane>::run(p, stream);
        break;
    case 3:
        if (luma) F<T, 3, HisteqKind::Luma>::run(p, stream);
        else F<T, 3, HisteqKind::PerChannel>::run(p, stream);
        break;
    default:
        if (luma) F<T, 4, HisteqKind::Luma>::run(p, stream);
        else F<T, 4, HisteqKind::PerChannel>::run(p, stream);
        break;
    }
}

template <template <typename, int, HisteqKind> class F>
void dispatch(const HisteqParams& p, cudaStream_t stream) {
    if (p.u16) dispatchLayout<F, std::uint16_t>(p, stream);
    else dispatchLayout<F, std::uint8_t>(p, stream);
}

}  // namespace
}  // namespace cudafilters::detail
