// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Helpers of the interleaved-pixel kernels: bytes of loaded words as floats, whole-pixel stores.
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {

// Byte i of w as a float: 0x4B0000bb is 2^23 + b (i is a constant once the callers' loops are unrolled).
__device__ __forceinline__ float byteOf(unsigned w, int i) {
    return __uint_as_float(__byte_perm(w, 0x4B00u, unsigned(i) | 0x5440u)) - 8388608.f;
}

// Stores the PX pixels (x … x + PX − 1, every channel) of one output row from their packed bytes: byte i·C + c of
// `out` is channel c of pixel x + i. Channels neither filtered nor copied (ConvFrame::mask, copy) keep what dst holds
// (read, merged, written back: the second pass over packed 4:2:2 leaves the first pass's luma).
template <int C, int PX>
__device__ __forceinline__ void storePixels(const ConvFrame& f, int x, int y, const unsigned (&out)[PX * C / 4]) {
    constexpr int NW = PX * C / 4;
    unsigned char* p = f.dst + std::size_t(y) * f.dstPitch + std::size_t(x) * C;
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const unsigned keep = ((1u << C) - 1u) & ~(f.mask | f.copy);
    if (keep != 0u) {
        const int n = f.width - x < PX ? f.width - x : PX;
        if (n == PX && (addr & 3) == 0) {
#pragma unroll
            for (int q = 0; q < NW; ++q) {
                unsigned kept = 0;  // the bytes of word q that dst keeps
#pragma unroll
                for (int b = 0; b < 4; ++b) kept |= ((keep >> ((4 * q + b) % C)) & 1u) ? 0xFFu << (8 * b) : 0u;
                unsigned* word = reinterpret_cast<unsigned*>(p) + q;
                *word = (out[q] & ~kept) | (*word & kept);
            }
        } else {
#pragma unroll
            for (int b = 0; b < PX * C; ++b)
                if (b / C < n && !((keep >> (b % C)) & 1u)) p[b] = static_cast<unsigned char>(out[b / 4] >> (8 * (b % 4)));
        }
        return;
    }
    if (x + PX <= f.width) {
        if (NW % 4 == 0 && (addr & 15) == 0) {
#pragma unroll
            for (int q = 0; q < NW / 4; ++q)
                reinterpret_cast<uint4*>(p)[q] = make_uint4(out[4 * q], out[4 * q + 1], out[4 * q + 2], out[4 * q + 3]);
            return;
        }
        if (NW % 2 == 0 && (addr & 7) == 0) {
#pragma unroll
            for (int q = 0; q < NW / 2; ++q) reinterpret_cast<uint2*>(p)[q] = make_uint2(out[2 * q], out[2 * q + 1]);
            return;
        }
        if ((addr & 3) == 0) {
#pragma unroll
            for (int q = 0; q < NW; ++q) reinterpret_cast<unsigned*>(p)[q] = out[q];
            return;
        }
    }
    const int n = f.width - x < PX ? f.width - x : PX;
#pragma unroll
    for (int b = 0; b < PX * C; ++b)
        if (b / C < n) p[b] = static_cast<unsigned char>(out[b / 4] >> (8 * (b % 4)));
}

}  // namespace cudafilters::cuda_detail
