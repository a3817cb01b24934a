// Direct K×K correlation for small K (3, 5) on one-channel u8 frames whose rows can be read in aligned 4-byte
// words, one kernel (no bank): no shared memory and no barrier. Each thread owns PXW consecutive output columns
// (a 32-bit output word per 4 columns) and walks down SY output rows. It issues the loads of all SY + K − 1 input
// rows it needs at once (each row: the PXW/4 words of its columns plus the word on either side for the halo), so
// a warp reads whole 128-byte lines and every input row is fetched once per strip and reused by up to K output
// rows. Samples become floats with one byte permute and one subtraction (2^23 + b − 2^23, exact).
//
// Threads whose window touches a frame edge take a second copy of the same arithmetic that reads sample by sample
// through borderIndex (rows and columns); interior threads never call it.
//
// Arithmetic as everywhere else: taps already divided, acc = 0, then row by row, left to right, one fmaf per tap;
// finish() adds the bias, takes |x|, rounds half to even and saturates.
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {
namespace {

constexpr int kSmallWarps = 4;  // warps per block, stacked in y; a warp spans 32 · PXW columns
constexpr int kSmallThreads = 32 * kSmallWarps;

template <int K> struct SmallParams {
    ConvFrame f;
    float taps[K * K];
};

// Byte I of w as a float: 0x4B0000bb is 2^23 + b.
template <int I> __device__ __forceinline__ float byteAsFloat(unsigned w) {
    return __uint_as_float(__byte_perm(w, 0x4B00u, I | 0x5440)) - 8388608.f;
}

// SY output rows × PXW output columns from sample(r, c): window row r (source row ys − R + r), window column c
// (source column x − R + c).
template <int K, int PXW, int SY, typename Sample>
__device__ __forceinline__ void computeStrip(const SmallParams<K>& p, int x, int ys, const Sample& sample) {
    const ConvFrame& f = p.f;
    std::uint8_t* base = f.dst + x;
    const bool wordStores = x + PXW <= f.width && ((reinterpret_cast<std::uintptr_t>(base) | f.dstPitch) & 3) == 0;
#pragma unroll
    for (int j = 0; j < SY; ++j) {
        float acc[PXW];
#pragma unroll
        for (int i = 0; i < PXW; ++i) acc[i] = 0.f;
#pragma unroll
        for (int ky = 0; ky < K; ++ky)
#pragma unroll
            for (int kx = 0; kx < K; ++kx) {
                const float t = p.taps[ky * K + kx];
#pragma unroll
                for (int i = 0; i < PXW; ++i) acc[i] = fmaf(t, sample(j + ky, i + kx), acc[i]);
            }
        const int y = ys + j;
        if (y >= f.height) continue;
        std::uint8_t* out = base + std::size_t(y) * f.dstPitch;
        if (wordStores) {
#pragma unroll
            for (int q = 0; q < PXW / 4; ++q) {
                const unsigned w = unsigned(finish<std::uint8_t>(f, acc[4 * q])) |
                                   unsigned(finish<std::uint8_t>(f, acc[4 * q + 1])) << 8 |
                                   unsigned(finish<std::uint8_t>(f, acc[4 * q + 2])) << 16 |
                                   unsigned(finish<std::uint8_t>(f, acc[4 * q + 3])) << 24;
                reinterpret_cast<unsigned*>(out)[q] = w;
            }
        } else {
#pragma unroll
            for (int i = 0; i < PXW; ++i)
                if (x + i < f.width) out[i] = finish<std::uint8_t>(f, acc[i]);
        }
    }
}

template <int K, int PXW, int SY>
__global__ void __launch_bounds__(kSmallThreads) smallDirectKernel(const __grid_constant__ SmallParams<K> p) {
    constexpr int R = K / 2, ROWS = SY + K - 1, WIN = PXW + 2 * R, NW = PXW / 4 + 2;
    static_assert(R <= 4 && PXW % 4 == 0);
    const ConvFrame& f = p.f;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x = (int(blockIdx.x) * 32 + lane) * PXW;
    const int ys = (int(blockIdx.y) * kSmallWarps + warp) * SY;
    if (x >= f.width || ys >= f.height) return;
    const bool interior = x >= 4 && x + PXW + 4 <= f.width && ys >= R && ys + SY - 1 + R < f.height;
    if (interior) {
        // Words of source columns x − 4 … x + PXW + 3 for every window row, all loads in flight together.
        unsigned raw[ROWS][NW];
        const unsigned char* first = f.src + std::size_t(ys - R) * f.srcPitch + (x - 4);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const unsigned* row = reinterpret_cast<const unsigned*>(first + std::size_t(r) * f.srcPitch);
#pragma unroll
            for (int q = 0; q < NW; ++q) raw[r][q] = __ldg(row + q);
        }
        auto sample = [&](int r, int c) -> float {
            const int b = c - R + 4;  // byte of the row's raw words (compile-time after unrolling)
            const unsigned w = raw[r][b >> 2];
            switch (b & 3) {
            case 0: return byteAsFloat<0>(w);
            case 1: return byteAsFloat<1>(w);
            case 2: return byteAsFloat<2>(w);
            default: return byteAsFloat<3>(w);
            }
        };
        computeStrip<K, PXW, SY>(p, x, ys, sample);
    } else {
        const unsigned char* rows[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int gy = borderIndex(ys - R + r, f.height, f.border);
            rows[r] = gy < 0 ? nullptr : f.src + std::size_t(gy) * f.srcPitch;
        }
        int gx[WIN];
#pragma unroll
        for (int c = 0; c < WIN; ++c) gx[c] = borderIndex(x - R + c, f.width, f.border);
        auto sample = [&](int r, int c) -> float {
            return (rows[r] == nullptr || gx[c] < 0) ? f.borderValue : float(__ldg(rows[r] + gx[c]));
        };
        computeStrip<K, PXW, SY>(p, x, ys, sample);
    }
}

template <int K, int PXW, int SY> void launchSmall(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    SmallParams<K> p;
    p.f = frame;
    for (int i = 0; i < K * K; ++i) p.taps[i] = taps[i];
    const dim3 grid((frame.width + 32 * PXW - 1) / (32 * PXW),
                    (frame.height + kSmallWarps * SY - 1) / (kSmallWarps * SY));
    smallDirectKernel<K, PXW, SY><<<grid, kSmallThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("smallDirectKernel");
}

// Variants (PXW × SY) measured side by side; smallDirectVariant() picks one, −1 leaves K ≤ 5 to the tiled kernel.
int g_smallVariant = 0;

template <int K> void launchSmallVariant(int v, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    switch (v) {
    case 0: return launchSmall<K, 4, 8>(frame, taps, stream);
    case 1: return launchSmall<K, 4, 16>(frame, taps, stream);
    case 2: return launchSmall<K, 8, 8>(frame, taps, stream);
    default: return launchSmall<K, 4, 4>(frame, taps, stream);
    }
}

}  // namespace

int smallDirectVariants() { return 4; }
int smallDirectVariant() { return g_smallVariant; }
void setSmallDirectVariant(int v) { g_smallVariant = v; }

bool smallDirectApplies(int k, int bank, const ConvFrame& frame) {
    return g_smallVariant >= 0 && (k == 3 || k == 5) && bank == 1 && frame.vectorRows && frame.inChannels == 1 &&
           frame.outChannels == 1 && (frame.mask & 1u) && frame.combine != Combine::Channels;
}

bool launchSmallDirectU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    if (!smallDirectApplies(k, bank, frame)) return false;
    if (k == 3) launchSmallVariant<3>(g_smallVariant, frame, taps, stream);
    else launchSmallVariant<5>(g_smallVariant, frame, taps, stream);
    return true;
}

}  // namespace cudafilters::cuda_detail
