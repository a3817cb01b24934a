// SPDX-License-Identifier: LGPL-2.1-or-later
// The routing table of the CUDA convolution kernels (kernel_route.hpp). Each row's predicate reads the launch's facts
// and the kernels' own applies predicates (the host functions of the .cu files: the launchers check the same ones);
// a row's reason says why it stands where it does and which benchmark measured it.
#include "kernel_route.hpp"

#include "fft_convolution.hpp"
#include "padded_plan.hpp"

#include <cudafilters/convolve_crossover.hpp>

#include "cufft_library.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>

namespace cudafilters::cuda_detail {

bool oneDirectLaunch(int k, int bank) { return bank <= 2 || directBankSupported(k, bank); }

// Banks the direct kernels take in one launch, and where they do not, banks of three or four kernels written to their
// own output channels as direct launches of at most two kernels (launchDirectSplit); other banks the generic kernel.
Path choosePath(const ConvolvePlan& plan) {
    if (plan.isIdentity()) return Path::Copy;
    const bool square = plan.kernelWidth == plan.kernelHeight;
    const bool compiled = square && directSizeSupported(plan.kernelWidth);
    if (plan.mode != ConvolveMode::Filter || !compiled) return Path::Generic;
    if (plan.separable && plan.kernels.size() == 1 && plan.combine != Combine::Channels &&
        int(plan.row.size()) == plan.kernelWidth && int(plan.column.size()) == plan.kernelHeight)
        return Path::Separable;
    const int bank = int(plan.kernels.size());
    if (oneDirectLaunch(plan.kernelWidth, bank)) return Path::Direct;
    if (plan.combine == Combine::Channels && bank <= 4) return Path::Direct;
    return Path::Generic;
}

// Plans of sizes without compiled kernels padded with zero taps to the next compiled size (padded_plan.hpp) where the
// padded plan takes the direct or separable kernels: `bench-convolve --padded` (build-bench) times them against the
// generic kernel and the FFT.
ConvolvePlan launchPlan(const ConvolvePlan& plan) {
    std::optional<ConvolvePlan> padded = paddedToCompiledSize(plan);
    if (padded && choosePath(*padded) != Path::Generic) return std::move(*padded);
    return plan;
}

// Chosen for the frame size (convolve_crossover.hpp) against the direct path of the plan the kernels run (`launch`),
// a plan its tables hold, and cuFFT loaded. The FFT transforms the plan as given. A full-rank plan padded to 31 × 31
// sums 961 taps a sample whatever its own size, while the FFT of a smaller kernel costs less than a 31 × 31 one's (the
// table's compiled rows were measured at 31 × 31): such plans keep the crossover of the generic kernel they would run
// in unpadded. `bench-convolve --padded` (build-bench) times padded plans against the FFT.
bool fftPath(const ConvolvePlan& plan, const ConvolvePlan& launch, int width, int height, bool cufftLoaded) {
    const Path direct = choosePath(launch);
    const bool paddedTo31 =
        direct == Path::Direct && launch.kernelWidth == 31 && plan.kernelWidth * plan.kernelHeight < 31 * 31;
    const bool asGeneric = direct == Path::Generic || paddedTo31;
    return direct != Path::Copy && fftChosen(Backend::Cuda, asGeneric ? plan : launch, width, height, asGeneric) &&
           fftSupports(plan) && cufftLoaded;
}

namespace {

constexpr std::int64_t kLargeFrame = 4000000;  // pixels: where the separable fallbacks' best choices change

bool u8(const RouteQuery& q) { return q.type == SampleType::U8; }
bool separable(const RouteQuery& q) { return q.path == Path::Separable; }
bool direct(const RouteQuery& q) { return q.path == Path::Direct; }
bool large(const RouteQuery& q) { return std::int64_t(q.frame.width) * q.frame.height >= kLargeFrame; }

// The register-window kernels' instances (launchRegistersK in convolve_register_window.cu): registerWindowApplies
// also holds for channel masks no instance is compiled for (direct K = 3 of two channels, one of them copied; one
// channel, copied), where the launcher returns false and the next kernel runs.
bool windowInstance(int k, bool sep, const ConvFrame& f) {
    const unsigned all = (1u << f.inChannels) - 1u;
    const unsigned mask = f.mask & all;
    const bool colour = k <= 5 && (sep || k == 3);
    switch (f.inChannels) {
    case 1: return mask == 1;
    case 2: return colour && (mask == 3 || (sep && ((mask == 1 && (f.copy & 2u)) || (mask == 2 && (f.copy & 1u)))));
    case 3: return colour && mask == 7;
    case 4:
        return colour && (mask == 15 || (mask == 7 && (f.copy & 8u)) ||
                          (sep && ((mask == 0xA && !(f.copy & 5u)) || (mask == 0x5 && !(f.copy & 0xAu)))));
    default: return false;
    }
}

// The register-window kernel of a plan's kind (sep) at size k, a bank of `bank`.
bool window(const RouteQuery& q, int k, int bank, bool sep) {
    return registerWindowApplies(SampleType::U8, k, bank, sep, q.frame) && windowInstance(k, sep, q.frame);
}

// The streaming kernel: for 2 to 4 channels from K = 15 and for one channel at K = 31 on large frames, where an
// instance is compiled (launchSeparableStream: K = 7, 9, 15, 31; u8 of 1 to 4 channels, u16 of 1 or 2, some channel
// filtered).
bool stream(const RouteQuery& q) {
    const ConvFrame& f = q.frame;
    const bool chosen = q.k >= 15 && (f.inChannels > 1 || (q.k == 31 && large(q)));
    const bool compiled = f.inChannels == f.outChannels && f.width > 0 && f.height > 0 && f.inChannels >= 1 &&
                          f.inChannels <= (u8(q) ? 4 : 2) && (f.mask & ((1u << f.inChannels) - 1u)) != 0u &&
                          (q.k == 7 || q.k == 9 || q.k == 15 || q.k == 31);
    return chosen && compiled;
}

// The rows' predicates, in the table's order. "sep": separable plans; "direct": direct plans and each launch of a
// split bank.
bool takesFft(const RouteQuery& q) { return q.fft; }
bool copies(const RouteQuery& q) { return q.path == Path::Copy; }
bool generic(const RouteQuery& q) { return q.path == Path::Generic; }
bool sepStaged(const RouteQuery& q) { return separable(q) && separableStagedU8Applies(q.type, q.k, q.frame); }
bool sepWindow(const RouteQuery& q) { return separable(q) && u8(q) && window(q, q.k, 1, true); }
bool sepDirectWindow(const RouteQuery& q) {
    return separable(q) && u8(q) && q.k == 3 && q.frame.inChannels == 1 && window(q, 3, 1, false);
}
bool sepGrayTile(const RouteQuery& q) {
    return separable(q) && u8(q) && q.k <= 5 && grayTileApplies(q.k, 1, q.frame);
}
bool sepInterleaved(const RouteQuery& q) {
    return separable(q) && u8(q) && interleavedApplies(q.k, 1, q.frame);
}
bool sepInterleavedFullTaps(const RouteQuery& q) { return sepInterleaved(q) && q.k <= 5; }
bool sepStreamU8(const RouteQuery& q) { return separable(q) && u8(q) && stream(q); }
bool sepStreamU16(const RouteQuery& q) { return separable(q) && !u8(q) && stream(q); }
bool sepTileU8(const RouteQuery& q) { return separable(q) && u8(q); }
bool sepTileU16(const RouteQuery& q) { return separable(q); }
bool directWindow(const RouteQuery& q) { return direct(q) && u8(q) && window(q, q.k, q.bank, false); }
bool directInterleaved(const RouteQuery& q) {
    return direct(q) && u8(q) && interleavedApplies(q.k, q.bank, q.frame);
}
bool directGrayTile(const RouteQuery& q) { return direct(q) && u8(q) && grayTileApplies(q.k, q.bank, q.frame); }
bool directTileU8(const RouteQuery& q) { return direct(q) && u8(q) && directBankSupported(q.k, q.bank); }
bool directTileU16(const RouteQuery& q) { return direct(q) && !u8(q) && directBankSupported(q.k, q.bank); }

// First match wins.
const RouteRow kTable[] = {
    {KernelRoute::Fft, takesFft,
     "the crossover of convolve_crossover.hpp, cuFFT loaded: `bench-convolve --fft` (build-bench)"},
    {KernelRoute::Copy, copies, "identity plans: every channel copied, nothing to sum"},
    {KernelRoute::Generic, generic,
     "sizes, banks and modes without compiled kernels, after padding: `bench-convolve --padded` (build-bench)"},
    {KernelRoute::SeparableStagedU8, sepStaged,
     "u8 K = 7 … 31, 1 to 4 channels: faster than every other kernel, `bench-convolve --ks 7,9,15,31` (build-bench)"},
    {KernelRoute::SeparableRegisterWindowU8, sepWindow,
     "where registerWindowApplies' frame sizes measure it faster: `bench-convolve --ks 3,5,7 --size WxH` (build-bench)"},
    {KernelRoute::DirectRegisterWindowU8, sepDirectWindow,
     "GRAY8 K = 3 below 4 Mpixel, full taps beat the tile kernel: `bench-convolve --ks 3 --size WxH` (build-bench)"},
    {KernelRoute::DirectGrayTileU8, sepGrayTile,
     "one channel K ≤ 5 on the full taps: the GRAY8 separable rows of `bench-convolve --ks 3,5` (build-bench)"},
    {KernelRoute::DirectInterleavedU8, sepInterleavedFullTaps,
     "colour K ≤ 5, one tile load on the full taps: RGBA Gaussian of `bench-convolve --ks 3,5,7,9` (build-bench)"},
    {KernelRoute::SeparableInterleavedU8, sepInterleaved,
     "colour K = 7, 9 the u8 streaming kernel leaves: RGBA Gaussian of `bench-convolve --ks 3,5,7,9` (build-bench)"},
    {KernelRoute::SeparableStreamU8, sepStreamU8,
     "colour from K = 15, one channel at K = 31 from 4 Mpixel: `bench-convolve --ks 15,31` (build-bench)"},
    {KernelRoute::SeparableStreamU16, sepStreamU16,
     "as for u8, one or two channels: the GRAY16 rows of `bench-convolve --ks 15,31` (build-bench)"},
    {KernelRoute::SeparableTileU8, sepTileU8,
     "the rest, a grid layer a channel (one channel K = 7 … 15): `bench-convolve --ks 7,9,15` (build-bench)"},
    {KernelRoute::SeparableTileU16, sepTileU16,
     "u16 but where it streams: the GRAY16 rows of `bench-convolve --ks 7,9,15` (build-bench)"},
    {KernelRoute::DirectRegisterWindowU8, directWindow,
     "K = 3, and one channel K = 5 from 4 Mpixel: `bench-convolve --ks 3,5 --size WxH` (build-bench)"},
    {KernelRoute::DirectInterleavedU8, directInterleaved,
     "colour K ≤ 9, one tile load for every channel: the RGBA rows of `bench-convolve --ks 3,5,7,9` (build-bench)"},
    {KernelRoute::DirectGrayTileU8, directGrayTile,
     "one channel K ≤ 5, more blocks per SM than the tiled kernel: `bench-convolve --ks 3,5` (build-bench)"},
    {KernelRoute::DirectTileU8, directTileU8,
     "every compiled size and bank, a grid layer a channel: `bench-convolve --ks 3,5,7,9,15,31` (build-bench)"},
    {KernelRoute::DirectTileU16, directTileU16,
     "u16 has the tiled direct kernel only: the GRAY16 rows of `bench-convolve --ks 3,5,9` (build-bench)"},
};

}  // namespace

const RouteRow* routeTable(int& rows) {
    rows = int(std::size(kTable));
    return kTable;
}

KernelRoute kernelRoute(const RouteQuery& query) {
    for (const RouteRow& row : kTable)
        if (row.applies(query)) return row.route;
    return KernelRoute::None;
}

KernelRoute planRoute(const ConvolvePlan& launch, const ConvFrame& frame, bool fft) {
    RouteQuery q;
    q.path = choosePath(launch);
    q.fft = fft;
    q.type = launch.type;
    q.k = launch.kernelWidth;
    q.bank = int(launch.kernels.size());
    if (q.path == Path::Direct && !oneDirectLaunch(q.k, q.bank)) q.bank = std::min(2, q.bank);
    q.frame = frame;
    return kernelRoute(q);
}

KernelRoute frameRoute(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, bool cufftLoaded) {
    const ConvolvePlan launch = launchPlan(plan);
    const bool fft = fftPath(plan, launch, src.width, src.height, cufftLoaded);
    return planRoute(launch, makeFrame(launch, src, dst), fft);
}

const char* routeName(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst) {
    return name(frameRoute(plan, src, dst, cufftLibrary() != nullptr));
}

const char* name(KernelRoute route) {
    switch (route) {
    case KernelRoute::Copy: return "copy";
    case KernelRoute::Fft: return "fft";
    case KernelRoute::Generic: return "generic";
    case KernelRoute::SeparableStagedU8: return "separable-staged-u8";
    case KernelRoute::SeparableRegisterWindowU8: return "separable-register-window-u8";
    case KernelRoute::SeparableInterleavedU8: return "separable-interleaved-u8";
    case KernelRoute::SeparableStreamU8: return "separable-stream-u8";
    case KernelRoute::SeparableStreamU16: return "separable-stream-u16";
    case KernelRoute::SeparableTileU8: return "separable-tile-u8";
    case KernelRoute::SeparableTileU16: return "separable-tile-u16";
    case KernelRoute::DirectRegisterWindowU8: return "direct-register-window-u8";
    case KernelRoute::DirectInterleavedU8: return "direct-interleaved-u8";
    case KernelRoute::DirectGrayTileU8: return "direct-gray-tile-u8";
    case KernelRoute::DirectTileU8: return "direct-tile-u8";
    case KernelRoute::DirectTileU16: return "direct-tile-u16";
    case KernelRoute::None: return "none";
    }
    return "unknown";
}

}  // namespace cudafilters::cuda_detail
