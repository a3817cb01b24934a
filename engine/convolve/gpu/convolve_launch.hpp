// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Launchers of the CUDA convolution kernels, forward-declared for the host code (no CUDA syntax here).
#include <cudafilters/convolve.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace cudafilters::cuda_detail {

// What every kernel needs besides its taps. Passed by value inside each kernel's parameter struct.
struct ConvFrame {
    const unsigned char* src = nullptr;
    unsigned char* dst = nullptr;
    std::size_t srcPitch = 0;
    std::size_t dstPitch = 0;
    int width = 0;
    int height = 0;
    int inChannels = 1;
    int outChannels = 1;
    Border border = Border::Reflect101;
    Combine combine = Combine::Sum;
    float borderValue = 0;
    float bias = 0;
    int absolute = 0;
    int maxLevel = 255; // the plan's SampleBits: results saturate at maxLevel levels, stored as level << shift
    int shift = 0;
    unsigned mask = 1;  // channels filtered (Filter mode); of the others, those in `copy` are copied
    unsigned copy = 0;  // the others are left as they are in dst
    int vectorRows = 0; // 1 channel, source pointer and pitch aligned to 4 samples: tiles load in words
    int rowAlign = 1;   // 16, 4 or 1: the largest of these dividing both the source pointer and its pitch
};

// Whether a 1-channel source can be read in aligned 4-sample words.
inline bool sourceRowsAligned(const void* data, std::size_t pitch, int channels, std::size_t sampleBytes) {
    const std::size_t word = 4 * sampleBytes;
    return channels == 1 && reinterpret_cast<std::uintptr_t>(data) % word == 0 && pitch % word == 0;
}

// The frame description of a src/dst pair under a plan (as the CUDA convolver launches it).
ConvFrame makeFrame(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst);

// Square odd sizes with a compiled direct / separable kernel.
bool directSizeSupported(int k);
// Banks the direct kernels sum in one launch: one or two kernels at every compiled size, up to 8 at K = 3 and 5.
bool directBankSupported(int k, int bank);

// Direct K×K correlation of a bank of kernels in one launch (taps: bank × k × k floats, row-major, already divided),
// by the direct kernel the routing table picks for the frame (kernel_route.hpp); throws where none is compiled. With
// Combine::Channels the bank results go to output channels 0..bank-1.
void launchDirect(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);

// The fused separable tile kernel (row pass into shared memory, column pass from it): 64 × 32 output tiles, for u8
// K = 31 on frames of 4 Mpixel and more 64 × 64 (convolve_separable.cu); throws where no size is compiled.
void launchSeparableTile(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                         cudaStream_t stream);

// The streaming separable kernel: launches it and returns true where one is compiled for (type, k, channels), else
// returns false and launches nothing. waves: how many waves of blocks the row segments are sized for.
bool launchSeparableStream(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                           cudaStream_t stream, int waves);

// The u8 streaming separable kernel (convolve_separable_staged_u8.cu): K = 7, 9, 15 and 31, 1 to 4 channels each filtered
// or copied, source rows 16-byte aligned, destination rows 4-byte aligned, 255 levels, under Border::Constant a
// borderValue that is a byte. launchSeparableStagedU8 launches it and returns true where it applies, else returns false
// and launches nothing. Its launch configuration, each measured with `bench-convolve --ks 7,9,15,31` (build-bench): one
// channel 3 blocks per SM at K = 15 from 1.5 Mpixel, else 4; segments for one wave, but two for 2 to 4 channels at
// K = 7 and 9 and for packed RGB at K = 15 from 4 Mpixel; for one and two channels one wave's segments fitted to the
// row-pass chunks; the edge strips' segments shorter (bytesPieces); a chunk's row pass beside the previous chunk's
// column pass, one barrier a chunk, where that measures faster (oneBarrierBest).
bool separableStagedU8Applies(SampleType type, int k, const ConvFrame& frame);
bool launchSeparableStagedU8(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                             cudaStream_t stream);
// Its row segments per strip of `strips` strips, on `multiprocessors` SMs holding `slotsPerSm` blocks each: as many
// as fill `waves` waves, or (fit, one wave) the number whose busiest SM runs the fewest row-pass chunks of
// `chunkRows` rows (see its definition).
int bytesSegments(int strips, int height, int k, int chunkRows, int slotsPerSm, int waves, bool fit,
                  int multiprocessors);
// Row segments of the inner strips and of the edge strips (the `edgeStrips` whose staged span reaches outside the row,
// a chunk of theirs costing `edgeChunkCost` of an inner one): the inner as bytesSegments; the edge ones, in one wave,
// as many as make an edge block cost no more than an inner one, or the nearest to that, without adding to the blocks
// of the busiest SM or going past the wave (else as many as the inner); in more waves, edgeChunkCost times the inner.
struct BytesPieces {
    int segments;
    int edgeSegments;
};
BytesPieces bytesPieces(int strips, int edgeStrips, int height, int k, int chunkRows, int slotsPerSm, int waves,
                        bool fit, int multiprocessors, double edgeChunkCost);
// What an edge strip's chunk costs against an inner one's, frames of `channels` interleaved channels.
double bytesEdgeChunkCost(int channels);

// The register-window kernels (convolve_register_window.cu; u8 rows 4-byte aligned, frames taller than K / 2, every
// channel filtered or copied: 1 to 4 channels all filtered, or RGBA-like with the alpha copied; under
// Border::Constant a borderValue that is a byte). Separable plans at K = 3, 5 (7 for one channel); direct plans of
// one kernel at K = 3 (5 for one channel), on the frame sizes where they measure faster than the other kernels
// (registerWindowApplies). Each launches and returns true when it applies, else returns false and launches nothing.
bool launchSeparableRegistersU8(int k, const ConvFrame& frame, const float* row, const float* column,
                                cudaStream_t stream);
bool launchDirectRegistersU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);
bool registerWindowApplies(SampleType type, int k, int bank, bool separable, const ConvFrame& frame);
// Their grid, one dimension: first edgeBlocks blocks computing the output pixels outside [begin, end) of every row
// sample by sample, then perRow blocks per segment of `segment` output rows (segments of them), whose warps walk
// the row's `strips` strips down the segment. separable: the plan's kind; blocksPerSm: how many blocks of the
// instance an SM holds.
struct RegisterWindowGrid {
    int strips, segment, segments, perRow, edgeBlocks, begin, end;
};
RegisterWindowGrid registerWindowGrid(int k, bool separable, int channels, int width, int height, int blocksPerSm);

// Any size up to kMaxKernelSize, any bank, MultiChannel: reads global memory through borderIndex.
// deviceTaps: the plan's kernels concatenated (kernelCount × kw × kh floats) in device memory.
void launchGeneric(SampleType type, ConvolveMode mode, int kernelCount, int kw, int kh, const ConvFrame& frame,
                   const float* deviceTaps, cudaStream_t stream);

// The tiled direct kernel per sample type; false when no kernel is compiled for (k, bank).
bool launchDirectTiledU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);
bool launchDirectU16(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);

// The interleaved-pixel kernels (convolve_direct_interleaved.cu; u8 only, 2 to 4 channels, one kernel, K = 3, 5, 7, 9;
// all channels of a pixel in one thread). launchInterleavedU8: a direct plan's frame; launchInterleavedSeparableU8: a
// separable plan's frame, by the interleaved direct kernel on its full K × K taps (taps) for K ≤ 5, by the interleaved
// separable kernel on its factors (row, column) for K = 7 and 9. Each launches and returns true when an interleaved
// kernel applies (interleavedApplies), else returns false and launches nothing.
bool launchInterleavedU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);
bool launchInterleavedSeparableU8(int k, const ConvFrame& frame, const float* taps, const float* row,
                                  const float* column, cudaStream_t stream);
bool interleavedApplies(int k, int bank, const ConvFrame& frame);
// Its one-channel instance (K = 3, 5, one kernel); the same contract.
bool launchGrayTileU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);
bool grayTileApplies(int k, int bank, const ConvFrame& frame);

// The path the CUDA backend takes for a plan's frames of width × height: "copy", "direct", "separable", "generic" or
// "fft" (tests, benchmarks). The size matters to algorithm=auto only; 0 × 0 never takes the FFT under auto.
const char* pathName(const ConvolvePlan& plan, int width = 0, int height = 0);

}  // namespace cudafilters::cuda_detail
