// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <cstddef>
#include <cstdint>

// The CUDA runtime declares cudaStream_t as a pointer to this opaque struct; redeclaring it here keeps the
// engine's public headers usable from code built without the CUDA toolkit.
struct CUstream_st;

namespace cudafilters {

using GpuStream = CUstream_st*;

enum class SampleType : std::uint8_t { U8, U16 };

constexpr std::size_t sampleSize(SampleType type) {
    return type == SampleType::U8 ? 1 : 2;
}

const char* sampleTypeName(SampleType type);

// Where a format keeps its samples inside the container: `depth` significant bits starting at bit `shift`, the bits
// below zero. GRAY8, GRAY16_LE, P016_LE: the whole container (the default); I420_10LE: 10 bits at bit 0; P010_10LE:
// 10 bits at bit 6. Filters work on levels (sample >> shift), saturate at maxLevel() and store level << shift.
struct SampleBits {
    int depth = 0;  // 0: the container's width
    int shift = 0;

    static constexpr SampleBits full() { return {}; }
    static constexpr SampleBits low(int depth) { return {depth, 0}; }      // I420_10LE
    static constexpr SampleBits high(int depth) { return {depth, 16 - depth}; }  // P010_10LE (u16 container)
};

// `bits` with depth 0 filled in from `type`; throws InvalidArgument when depth + shift exceed the container or depth
// is below 1.
SampleBits resolveBits(SampleType type, SampleBits bits);
constexpr int maxLevel(SampleBits resolved) { return (1 << resolved.depth) - 1; }
constexpr bool operator==(SampleBits a, SampleBits b) { return a.depth == b.depth && a.shift == b.shift; }

// A pitched 2D plane of interleaved samples. `width` counts pixels, `pitch` bytes between row starts.
// The engine never assumes pitch == width * channels * sampleSize: video planes are padded.
struct ImageView {
    void* data = nullptr;
    int width = 0;
    int height = 0;
    std::size_t pitch = 0;
    SampleType type = SampleType::U8;
    int channels = 1;

    std::size_t rowBytes() const { return std::size_t(width) * channels * sampleSize(type); }
    template <typename T> T* row(int y) const {
        return reinterpret_cast<T*>(static_cast<std::uint8_t*>(data) + std::size_t(y) * pitch);
    }
};

// True when the view starts and steps on whole samples (a 16-bit plane with an odd stride does not).
inline bool sampleAligned(const ImageView& image) {
    const std::size_t sample = sampleSize(image.type);
    return reinterpret_cast<std::uintptr_t>(image.data) % sample == 0 && image.pitch % sample == 0;
}

// Throws InvalidArgument naming `what` when the view is empty, null, not aligned to its sample size (start or pitch),
// or its pitch is too small.
void validateImage(const ImageView& image, const char* what);

}  // namespace cudafilters
