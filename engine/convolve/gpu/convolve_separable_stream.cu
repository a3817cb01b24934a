// SPDX-License-Identifier: LGPL-2.1-or-later
// Streaming fused separable K×K correlation. Each block walks a strip of TW pixels down a segment of rows, CH source
// rows at a time: the next chunk's source words are loaded into registers while the row pass of the current chunk
// runs, and the row pass writes a ring of K − 1 + CH intermediate rows that the column pass reads. Every intermediate
// row is computed once per segment, where the 64 × 32 tiles of convolve_separable.cu recompute K − 1 halo rows for
// every 32 output rows (at K = 31 that is 91 FMA per output instead of 62 plus the segment's halo). All channels of a
// pixel come in one load (16-byte words for 4-channel u8 rows aligned to 16 bytes, up to K = 15) and are held planar
// in shared memory, one plane per filtered channel; channels copied unfiltered go to dst from the loaded words. The
// sums are the tile kernel's, in the same order: the same bytes.
#include "convolve_device.cuh"

#include <algorithm>
#include <type_traits>

namespace cudafilters::cuda_detail {
namespace {

template <typename T, int K, int C, int WB_> struct StreamConfig {
    static constexpr int TW = 64;                     // strip width, pixels
    static constexpr int PX = 8;                      // row pass: outputs per thread
    static constexpr int PYC = 8;                     // column pass: outputs per thread
    static constexpr int BANDS = C >= 3 ? 1 : 4 / C;  // column pass: PYC-row bands per chunk (C × TW × BANDS ≤ 256)
    static constexpr int CH = PYC * BANDS;            // source rows per chunk
    static constexpr int R = K / 2;
    static constexpr int RA = roundUp4(R);            // halo rounded up: strips start on 4-pixel boundaries
    static constexpr int D = RA - R;
    static constexpr int NV = (D + PX + K - 1 + 3) / 4;
    static constexpr int COLS = TW + 2 * RA;          // source pixels per strip row
    static constexpr int S = roundUpStride(maxOf(COLS, TW - PX + 4 * NV));  // source plane stride (floats)
    static constexpr int RING = K - 1 + CH;           // intermediate rows held
    static constexpr int WINDOW = PYC + K - 1;        // rows one column-pass thread reads
    static constexpr int MIRROR = WINDOW - 1;         // ring rows also stored after the ring: no window wraps
    static constexpr int SM = roundUpStride(TW);      // intermediate plane stride
    static constexpr int GROUPS = TW / PX;
    // Source words: 16 bytes (4 pixels) for 4 u8 channels on 16-byte aligned rows, else 4 bytes.
    static constexpr int WB = WB_;
    using Word = typename std::conditional<WB == 16, uint4, unsigned>::type;
    static constexpr int WORDS = COLS * C * int(sizeof(T)) / WB;  // words per strip row
    static constexpr int PER = (CH * WORDS + kBlockThreads - 1) / kBlockThreads;
    static constexpr int SAMPLES = WB / int(sizeof(T));  // samples per word
    static constexpr std::size_t planeBytes() {
        return (std::size_t(CH) * S + std::size_t(RING + MIRROR) * SM) * sizeof(float);
    }
    static_assert(CH % 8 == 0 && COLS % 4 == 0 && COLS * C * int(sizeof(T)) % WB == 0);
    static_assert(C * TW * BANDS <= kBlockThreads && C * CH * GROUPS <= kBlockThreads);
};

template <int K> struct StreamParams {
    ConvFrame f;
    float row[K];
    float column[K];
    int segment;  // output rows per block, a multiple of CH
    int planes;   // filtered channels
};

// Sample e of a loaded word as a float (e is a constant once the callers' loops are unrolled).
template <typename T> __device__ __forceinline__ float sampleOf(unsigned w, int e) {
    if constexpr (sizeof(T) == 1) return wordSample(w, e);
    else return float((w >> (16 * e)) & 0xFFFFu);
}
template <typename T> __device__ __forceinline__ float sampleOf(const uint4& w, int e) {
    const unsigned part = e < 4 ? w.x : e < 8 ? w.y : e < 12 ? w.z : w.w;
    return sampleOf<T>(part, e % 4);
}

// Plane of channel ch (its rank among the filtered channels), or -1.
__device__ __forceinline__ int planeOf(unsigned mask, int ch) {
    return ((mask >> ch) & 1u) ? __popc(mask & ((1u << ch) - 1u)) : -1;
}

// A block's strip and segment, and what its steps share.
struct StreamBlock {
    int x0, y0;
    int outRows;
    int ax;          // first source pixel of the strip
    long rowBytes;
    long strip0;     // byte of pixel ax in a row
    bool words;      // rows aligned to the source word
    unsigned copy;   // channels copied unfiltered
    unsigned planeCode;  // byte c: 1 + the plane of channel c, 0 when it is not filtered
};

// Pixel and channel of sample e of strip word w: constants but for w when whole pixels fill a word.
template <typename Cfg, int C> __device__ __forceinline__ int pixelOf(int w, int e) {
    if constexpr (Cfg::SAMPLES % C == 0) return w * (Cfg::SAMPLES / C) + e / C;
    else return (w * Cfg::SAMPLES + e) / C;
}
template <typename Cfg, int C> __device__ __forceinline__ int channelOf(int w, int e) {
    if constexpr (Cfg::SAMPLES % C == 0) return e % C;
    else return (w * Cfg::SAMPLES + e) % C;
}

// Word `it` of this thread in the chunk starting at intermediate row `first`: its strip row r and word w, the
// source row gy (-1: the constant border), and whether it loads whole (aligned, inside the frame).
struct WordPlace {
    int r, w, gy;
    bool whole;
};
template <typename Cfg>
__device__ __forceinline__ WordPlace placeWord(const ConvFrame& f, const StreamBlock& b, int first, int it) {
    const int idx = int(threadIdx.x) + it * kBlockThreads;
    const int r = idx / Cfg::WORDS, w = idx - r * Cfg::WORDS;
    const int gy = borderIndex(b.y0 - Cfg::R + first + r, f.height, f.border);
    const long at = b.strip0 + long(Cfg::WB) * w;
    return WordPlace{r, w, gy, b.words && gy >= 0 && at >= 0 && at + Cfg::WB <= b.rowBytes};
}
template <typename Cfg> __device__ __forceinline__ bool inChunk(int rows, int it) {
    return int(threadIdx.x) + it * kBlockThreads < rows * Cfg::WORDS;
}

// A sample of a channel copied unfiltered, at strip pixel px of output row yo, to dst.
template <typename T, typename Cfg>
__device__ __forceinline__ void copyOut(const ConvFrame& f, const StreamBlock& b, int yo, int px, int ch, float v) {
    if (((b.copy >> ch) & 1u) && px >= Cfg::RA && px < Cfg::RA + Cfg::TW && b.ax + px < f.width)
        dstRow<T>(f, b.y0 + yo)[(b.ax + px) * f.outChannels + ch] = static_cast<T>(v);
}

// Source words of the chunk starting at intermediate row `first` into registers (0 where the edge path applies).
template <typename T, int K, int C, int WB>
__device__ __forceinline__ void fetchChunk(const ConvFrame& f, const StreamBlock& b, int first, int rows,
                                           typename StreamConfig<T, K, C, WB>::Word (&raw)[StreamConfig<T, K, C, WB>::PER]) {
    using Cfg = StreamConfig<T, K, C, WB>;
#pragma unroll
    for (int it = 0; it < Cfg::PER; ++it) {
        raw[it] = typename Cfg::Word{};
        if (!inChunk<Cfg>(rows, it)) continue;
        const WordPlace at = placeWord<Cfg>(f, b, first, it);
        if (at.whole)
            raw[it] = __ldg(reinterpret_cast<const typename Cfg::Word*>(
                f.src + std::size_t(at.gy) * f.srcPitch + std::size_t(b.strip0 + long(Cfg::WB) * at.w)));
    }
}

// Those words as floats into the planes; words across the frame edge (or on unaligned rows) sample by sample.
// Samples of channels copied unfiltered go to dst from here.
template <typename T, int K, int C, int WB>
__device__ __forceinline__ void storeChunk(const ConvFrame& f, const StreamBlock& b, int first, int rows,
                                           const typename StreamConfig<T, K, C, WB>::Word (&raw)[StreamConfig<T, K, C, WB>::PER],
                                           float* const& src) {
    using Cfg = StreamConfig<T, K, C, WB>;
    // Output row of strip row r (the source rows above and below the segment are none: -1).
    auto outputRow = [&](int r) {
        const int yo = first + r - Cfg::R;
        return yo >= 0 && yo < b.outRows ? yo : -1;
    };
#pragma unroll
    for (int it = 0; it < Cfg::PER; ++it) {
        if (!inChunk<Cfg>(rows, it)) break;
        const WordPlace at = placeWord<Cfg>(f, b, first, it);
        const int r = at.r, w = at.w;
        float v[Cfg::SAMPLES];
#pragma unroll
        for (int e = 0; e < Cfg::SAMPLES; ++e) {
            if (at.whole) {
                v[e] = sampleOf<T>(raw[it], e);
            } else {
                const int gx = borderIndex(b.ax + pixelOf<Cfg, C>(w, e), f.width, f.border);
                v[e] = (at.gy < 0 || gx < 0) ? f.borderValue
                                             : float(srcRow<T>(f, at.gy)[gx * C + channelOf<Cfg, C>(w, e)]);
            }
        }
        if constexpr (C == 1 && sizeof(T) == 1) {
            *reinterpret_cast<float4*>(src + r * Cfg::S + 4 * w) = make_float4(v[0], v[1], v[2], v[3]);
        } else if constexpr (Cfg::WB == 16) {
            // Four whole pixels: four consecutive samples of each plane in one store.
            const int px = 4 * w;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int plane = int((b.planeCode >> (8 * c)) & 0xFFu) - 1;
                if (plane >= 0)
                    *reinterpret_cast<float4*>(src + (plane * Cfg::CH + r) * Cfg::S + px) =
                        make_float4(v[c], v[C + c], v[2 * C + c], v[3 * C + c]);
            }
            const int yo = b.copy != 0u ? outputRow(r) : -1;
            if (yo >= 0) {
#pragma unroll
                for (int e = 0; e < Cfg::SAMPLES; ++e) copyOut<T, Cfg>(f, b, yo, px + e / C, e % C, v[e]);
            }
        } else {
            const int yo = b.copy != 0u ? outputRow(r) : -1;
#pragma unroll
            for (int e = 0; e < Cfg::SAMPLES; ++e) {
                const int px = pixelOf<Cfg, C>(w, e), ch = channelOf<Cfg, C>(w, e);
                const int plane = int((b.planeCode >> (8 * ch)) & 0xFFu) - 1;
                if (plane >= 0) src[(plane * Cfg::CH + r) * Cfg::S + px] = v[e];
                else if (yo >= 0) copyOut<T, Cfg>(f, b, yo, px, ch, v[e]);
            }
        }
    }
}

// Row pass of the chunk's `rows` strip rows into the ring: the 8 threads of a quarter warp take 8 consecutive rows
// (distinct banks). Each loaded sample goes into every output it reaches as it arrives (few registers live); every
// output still sums its taps in order kx = 0 … K − 1.
template <typename T, int K, int C, int WB>
__device__ __forceinline__ void streamRowPass(const StreamParams<K>& p, int planes, const float* src, float* mid, int first,
                                              int rows) {
    using Cfg = StreamConfig<T, K, C, WB>;
    const int w = int(threadIdx.x);
    const int plane = w / (Cfg::CH * Cfg::GROUPS), wr = w - plane * (Cfg::CH * Cfg::GROUPS);
    const int r = (wr & 7) + 8 * (wr / (8 * Cfg::GROUPS));
    const int xs = ((wr >> 3) % Cfg::GROUPS) * Cfg::PX;
    if (plane < planes && r < rows) {
        const float4* run = reinterpret_cast<const float4*>(src + (plane * Cfg::CH + r) * Cfg::S + xs);
        float acc[Cfg::PX];
#pragma unroll
        for (int i = 0; i < Cfg::PX; ++i) acc[i] = 0.f;
#pragma unroll
        for (int q = 0; q < Cfg::NV; ++q) {
            const float4 a = run[q];
            const float u[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
            for (int e = 0; e < 4; ++e)
#pragma unroll
                for (int i = 0; i < Cfg::PX; ++i) {
                    const int kx = 4 * q + e - Cfg::D - i;
                    if (kx >= 0 && kx < K) acc[i] = fmaf(p.row[kx], u[e], acc[i]);
                }
        }
        const int slot = (first + r) % Cfg::RING;
        float4* out = reinterpret_cast<float4*>(mid + (plane * (Cfg::RING + Cfg::MIRROR) + slot) * Cfg::SM + xs);
        const float4 lo = make_float4(acc[0], acc[1], acc[2], acc[3]);
        const float4 hi = make_float4(acc[4], acc[5], acc[6], acc[7]);
        out[0] = lo;
        out[1] = hi;
        if (slot < Cfg::MIRROR) {
            out[Cfg::RING * Cfg::SM / 4] = lo;
            out[Cfg::RING * Cfg::SM / 4 + 1] = hi;
        }
    }
}

// Column pass of this thread's PYC output rows from o0 (those before `ready`) from its column of the ring.
template <typename T, int K, int C, int WB>
__device__ __forceinline__ void streamColumnPass(const StreamParams<K>& p, const float* columnMid,
                                                 unsigned char* columnDst, int y0, int o0, int ready) {
    using Cfg = StreamConfig<T, K, C, WB>;
    const ConvFrame& f = p.f;
    const float* column = columnMid + (o0 % Cfg::RING) * Cfg::SM;
    float acc[Cfg::PYC];
#pragma unroll
    for (int j = 0; j < Cfg::PYC; ++j) acc[j] = 0.f;
#pragma unroll
    for (int i = 0; i < Cfg::PYC + K - 1; ++i) {
        const float u = column[i * Cfg::SM];
#pragma unroll
        for (int j = 0; j < Cfg::PYC; ++j) {
            const int ky = i - j;
            if (ky >= 0 && ky < K) acc[j] = fmaf(p.column[ky], u, acc[j]);
        }
    }
    unsigned char* out = columnDst + std::size_t(y0 + o0) * f.dstPitch;
#pragma unroll
    for (int j = 0; j < Cfg::PYC; ++j, out += f.dstPitch)
        if (o0 + j < ready) *reinterpret_cast<T*>(out) = finish<T>(f, acc[j]);
}

template <typename T, int K, int C, int WB>
__global__ void __launch_bounds__(kBlockThreads, 4) separableStreamKernel(const __grid_constant__ StreamParams<K> p) {
    using Cfg = StreamConfig<T, K, C, WB>;
    extern __shared__ float4 smem4[];
    const ConvFrame& f = p.f;
    const int planes = p.planes;
    const unsigned mask = f.mask & ((1u << C) - 1u);
    StreamBlock b;
    b.copy = f.copy & ~mask & ((1u << C) - 1u);
    float* src = reinterpret_cast<float*>(smem4);  // planes × CH × S
    float* mid = src + planes * Cfg::CH * Cfg::S;  // planes × (RING + MIRROR) × SM
    b.x0 = int(blockIdx.x) * Cfg::TW;
    b.y0 = int(blockIdx.y) * p.segment;
    b.outRows = min(p.segment, f.height - b.y0);
    const int total = b.outRows + K - 1;  // intermediate row i: the row pass of source row y0 − R + i
    b.ax = b.x0 - Cfg::RA;
    b.rowBytes = long(f.width) * C * long(sizeof(T));
    b.strip0 = long(b.ax) * C * long(sizeof(T));
    b.words = f.rowAlign >= Cfg::WB;
    b.planeCode = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) b.planeCode |= unsigned(planeOf(mask, c) + 1) << (8 * c);

    // This thread's column-pass column, band of rows and plane.
    const int x = int(threadIdx.x) % Cfg::TW, rest = int(threadIdx.x) / Cfg::TW;
    const int band = rest % Cfg::BANDS, plane = rest / Cfg::BANDS;
    const bool columnThread = plane < planes && b.x0 + x < f.width;
    const float* columnMid = mid + plane * (Cfg::RING + Cfg::MIRROR) * Cfg::SM + x;
    unsigned char* const columnDst =
        f.dst + std::size_t((b.x0 + x) * f.outChannels + (columnThread ? __fns(mask, 0, plane + 1) : 0)) * sizeof(T);

    // Each chunk: its words (fetched during the previous chunk's row pass) into the planes, a barrier, the next
    // chunk's words fetched during this chunk's row pass, a barrier, the column pass of the rows now complete.
    typename Cfg::Word raw[Cfg::PER];
    const int chunks = (total + Cfg::CH - 1) / Cfg::CH;
    fetchChunk<T, K, C, WB>(f, b, 0, min(Cfg::CH, total), raw);
    int outDone = 0;
    for (int n = 0; n < chunks; ++n) {
        const int first = n * Cfg::CH, rows = min(Cfg::CH, total - first);
        storeChunk<T, K, C, WB>(f, b, first, rows, raw, src);
        __syncthreads();
        if (n + 1 < chunks) fetchChunk<T, K, C, WB>(f, b, first + Cfg::CH, min(Cfg::CH, total - first - Cfg::CH), raw);
        streamRowPass<T, K, C, WB>(p, planes, src, mid, first, rows);
        __syncthreads();

        // Column pass over the output rows whose K intermediate rows are now in the ring.
        const int ready = min(b.outRows, first + rows - (K - 1));
        if (ready > outDone) {
            const int o0 = outDone + band * Cfg::PYC;
            if (columnThread && o0 < ready) streamColumnPass<T, K, C, WB>(p, columnMid, columnDst, b.y0, o0, ready);
            outDone = ready;
        }
    }
}

template <typename T, int K, int C, int WB = 4>
void launchStreamT(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream, int waves) {
    using Cfg = StreamConfig<T, K, C, WB>;
    StreamParams<K> p = separableParams<StreamParams<K>, K>(frame, row, column);
    p.planes = __builtin_popcount(frame.mask & ((1u << C) - 1u));
    const std::size_t smem = std::size_t(p.planes) * Cfg::planeBytes();
    auto kernel = separableStreamKernel<T, K, C, WB>;
    allowDynamicSharedMemory(kernel, smem);
    const int sms = currentDeviceMultiprocessors();
    // Segments tall enough to fill `waves` waves of blocks and no more: each segment recomputes K − 1 rows.
    const int strips = (frame.width + Cfg::TW - 1) / Cfg::TW;
    const int segments = std::max(1, sms * residentBlocksPerSm(kernel, kBlockThreads, smem) * waves / strips);
    const int rows = (frame.height + segments - 1) / segments;
    p.segment = (rows + Cfg::CH - 1) / Cfg::CH * Cfg::CH;
    const dim3 grid(strips, (frame.height + p.segment - 1) / p.segment);
    kernel<<<grid, kBlockThreads, smem, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableStreamKernel");
}

template <typename T, int K>
bool launchStreamK(const ConvFrame& frame, const float* row, const float* column, cudaStream_t s, int waves) {
    switch (frame.inChannels) {
    case 1: launchStreamT<T, K, 1>(frame, row, column, s, waves); return true;
    case 2: launchStreamT<T, K, 2>(frame, row, column, s, waves); return true;
    case 3:
        if constexpr (sizeof(T) == 1) {
            launchStreamT<T, K, 3>(frame, row, column, s, waves);
            return true;
        }
        return false;
    case 4:
        if constexpr (sizeof(T) == 1) {
            // 16-byte words up to K = 15, where they measure faster; at K = 31 slower (RGBA Gaussian,
            // `bench-convolve --size 3840x2160 --ks 15,31`, build-bench).
            if constexpr (K <= 15) {
                if (frame.rowAlign >= 16) {
                    launchStreamT<T, K, 4, 16>(frame, row, column, s, waves);
                    return true;
                }
            }
            launchStreamT<T, K, 4>(frame, row, column, s, waves);
            return true;
        }
        return false;
    default: return false;
    }
}

template <typename T>
bool launchStreamTyped(int k, const ConvFrame& frame, const float* row, const float* column, cudaStream_t s,
                       int waves) {
    switch (k) {
    case 7: return launchStreamK<T, 7>(frame, row, column, s, waves);
    case 9: return launchStreamK<T, 9>(frame, row, column, s, waves);
    case 15: return launchStreamK<T, 15>(frame, row, column, s, waves);
    case 31: return launchStreamK<T, 31>(frame, row, column, s, waves);
    default: return false;
    }
}

}  // namespace

bool launchSeparableStream(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                           cudaStream_t stream, int waves) {
    if (frame.inChannels != frame.outChannels || frame.width <= 0 || frame.height <= 0 || frame.inChannels > 4 ||
        (frame.mask & ((1u << frame.inChannels) - 1u)) == 0u)
        return false;
    return type == SampleType::U8 ? launchStreamTyped<std::uint8_t>(k, frame, row, column, stream, waves)
                                  : launchStreamTyped<std::uint16_t>(k, frame, row, column, stream, waves);
}

}  // namespace cudafilters::cuda_detail
