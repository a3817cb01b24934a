// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Which CUDA kernel a frame takes: one ordered table (kernel_route.cpp), first match wins. The convolver and
// launchDirect dispatch on its answer; tests and the benchmark print it. Host code only, no CUDA call: the route of a
// frame needs no GPU (the FFT row takes whether cuFFT loaded as an argument).
#include "convolve_launch.hpp"

namespace cudafilters::cuda_detail {

// Every kernel a frame can take. The launch configuration inside a kernel family (tile heights, waves, segments,
// blocks per SM) stays its launcher's.
enum class KernelRoute {
    Copy,                       // identity plans: the plane copied (copyDevicePlane)
    Fft,                        // cuFFT path (fft_convolution.cpp)
    Generic,                    // any size and bank, taps in device memory (convolve_generic.cu)
    SeparableStagedU8,           // u8 streaming separable kernel (convolve_separable_staged_u8.cu)
    SeparableRegisterWindowU8,  // separable register-window kernel (convolve_register_window.cu)
    SeparableInterleavedU8,     // interleaved-pixel separable kernel (convolve_direct_interleaved.cu)
    SeparableStreamU8,          // streaming separable kernel (convolve_separable_stream.cu)
    SeparableStreamU16,
    SeparableTileU8,            // fused separable tile kernel (convolve_separable.cu)
    SeparableTileU16,
    DirectRegisterWindowU8,     // direct register-window kernel (convolve_register_window.cu)
    DirectInterleavedU8,        // interleaved-pixel direct kernel, 2 to 4 channels (convolve_direct_interleaved.cu)
    DirectGrayTileU8,           // its one-channel instance (convolve_direct_interleaved.cu)
    DirectTileU8,               // tiled direct kernel (convolve_direct.cuh)
    DirectTileU16,
    None,                       // no kernel compiled for the launch (launchDirect of a size or bank without one)
};

const char* name(KernelRoute route);

// The plan-level path: an identity copy, the direct or separable kernels of the plan's compiled size, or the generic
// kernel.
enum class Path { Copy, Direct, Separable, Generic };

// Whether the direct kernels take a bank of k × k kernels in one launch (two at most, or directBankSupported).
bool oneDirectLaunch(int k, int bank);

// The path of the plan the kernels run (launchPlan's).
Path choosePath(const ConvolvePlan& plan);

// The plan the kernels run: padded to the next compiled size where that applies (padded_plan.hpp), else the plan.
ConvolvePlan launchPlan(const ConvolvePlan& plan);

// Whether frames of width × height of `plan` (run by the kernels as `launch`) take the FFT path, cuFFT loaded or not.
bool fftPath(const ConvolvePlan& plan, const ConvolvePlan& launch, int width, int height, bool cufftLoaded);

// What one launch's route depends on.
struct RouteQuery {
    Path path = Path::Direct;  // the launch plan's
    bool fft = false;          // frames of this size take the FFT path (fftPath, decided when a size is prepared)
    SampleType type = SampleType::U8;
    int k = 0;                 // the launch plan's kernel size
    int bank = 1;              // kernels this launch sums: the plan's, or a split bank's part's (launchDirectSplit)
    ConvFrame frame;           // the launch's frame (a split bank's part: its destination moved on)
};

// The table: the route of the first row whose predicate holds, else None.
KernelRoute kernelRoute(const RouteQuery& query);

// The route of a frame of the launch plan `launch` (launchPlan's). A bank split into launches of at most two kernels
// (launchDirectSplit) answers its first part's route; every part's is the same (the parts differ only in their bank
// of one or two kernels written to their own channels and the destination's start, which no direct row reads).
KernelRoute planRoute(const ConvolvePlan& launch, const ConvFrame& frame, bool fft);

// The route of `plan`'s frames from src to dst (views as process() takes them; their pointers and pitches give the
// alignment facts, no memory is touched), cuFFT loaded or not: no CUDA call.
KernelRoute frameRoute(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, bool cufftLoaded);

// The same as a name ("direct-tile-u8", …), cuFFT as this process loads it (tests, benchmarks).
const char* routeName(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst);

// One row of the table (tests print them; kernel_route.cpp holds them).
struct RouteRow {
    KernelRoute route;
    bool (*applies)(const RouteQuery&);
    const char* reason;  // why the row is where it is, and the benchmark that justifies it
};
const RouteRow* routeTable(int& rows);

}  // namespace cudafilters::cuda_detail
