// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel benchmark of the CUDA equalizer, the kernels each frame takes (histeq_launch.hpp): global GRAY8 (the
// block-LUT kernels, the apply overlapped where the device runs programmatic dependent launches) side by side with
// NPP's nppiHistogramEven_8u_C1R_Ctx + nppiLUT_8u_C1R_Ctx (when built with NPP), and CLAHE 8×8 clip 2.
//
// GRAY8, 1920×1080 and 3840×2160; then RGBA global equalization in luma mode (the default of cudahisteq) on
// natural-ish content (blobs and noise per channel) and on colour bars (large flat areas), by the luma chunk kernels
// (16-byte chunks); then RGBA CLAHE 8×8 clip 2 in luma mode on the same contents by the CLAHE luma chunk kernels
// (16-byte chunks, bands); then the same for packed RGB (3 channels, chunks of 48 bytes). Each figure is the median
// of `--runs` frames timed one by one with CUDA events after warm-up, rotating over several input frames (never
// zeros). Before timing, the CUDA output is checked against the reference on one frame (0 differing bytes) after
// poisoning the output.
//
// usage: bench-histeq [--runs N] [--frames N] [--only TEXT]   (--only: the cases whose name holds TEXT)
#include "../common/kernel_timing.hpp"
#include "histeq_launch.hpp"
#include "reference.hpp"

#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <cuda_runtime.h>
#ifdef CUDAFILTERS_HAVE_NPP
#include <nppi_data_exchange_and_initialization.h>
#include <nppi_color_conversion.h>
#include <nppi_statistics_functions.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace cudafilters;

namespace {

struct Plane {
    DeviceBuffer buffer;
    ImageView view;
};

// Rows of 512-byte multiples (as NVMM / CUDA memory pools pitch them).
Plane makePlane(int width, int height, int channels = 1) {
    Plane p;
    const std::size_t pitch = (std::size_t(width) * channels + 511) / 512 * 512;
    p.buffer.reserve(pitch * height);
    p.view = ImageView{p.buffer.data(), width, height, pitch, SampleType::U8, channels};
    return p;
}

std::size_t rowBytes(const ImageView& v) { return std::size_t(v.width) * v.channels; }

// Natural-ish content: smooth blobs plus noise, different per frame and channel.
std::vector<std::uint8_t> makeContent(int width, int height, std::uint32_t seed, int channels = 1) {
    std::vector<std::uint8_t> img(std::size_t(width) * height * channels);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-40, 40);
    const double fx = 0.003 + 0.002 * (seed % 5), fy = 0.004 + 0.001 * (seed % 7);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                const double v = 110 + 70 * std::sin(x * fx + seed + c) * std::cos(y * fy) + noise(rng);
                img[(std::size_t(y) * width + x) * channels + c] = std::uint8_t(std::clamp(v, 0.0, 255.0));
            }
    return img;
}

// RGBA (RGB) colour bars: eight vertical bars of 75 % colours over the top two thirds, three flat areas below, alpha
// 255.
std::vector<std::uint8_t> makeBars(int width, int height, int channels = 4) {
    static const std::uint8_t kBars[8][3] = {{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0},
                                             {191, 0, 191},   {191, 0, 0},   {0, 0, 191},   {16, 16, 16}};
    static const std::uint8_t kBottom[3][3] = {{0, 33, 76}, {255, 255, 255}, {50, 0, 106}};
    std::vector<std::uint8_t> img(std::size_t(width) * height * channels);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::uint8_t* c = 3 * y < 2 * height ? kBars[8 * x / width] : kBottom[3 * x / width];
            std::uint8_t* px = &img[(std::size_t(y) * width + x) * channels];
            px[0] = c[0];
            px[1] = c[1];
            px[2] = c[2];
            if (channels == 4) px[3] = 255;
        }
    return img;
}

void upload(const Plane& p, const std::vector<std::uint8_t>& host) {
    CUDAFILTERS_CHECK(cudaMemcpy2D(p.view.data, p.view.pitch, host.data(), rowBytes(p.view), rowBytes(p.view),
                                   p.view.height, cudaMemcpyHostToDevice));
}

std::vector<std::uint8_t> download(const Plane& p) {
    std::vector<std::uint8_t> host(rowBytes(p.view) * p.view.height);
    CUDAFILTERS_CHECK(cudaMemcpy2D(host.data(), rowBytes(p.view), p.view.data, p.view.pitch, rowBytes(p.view),
                                   p.view.height, cudaMemcpyDeviceToHost));
    return host;
}

// Warm-up, then the median of launches on an idle GPU (host launch latency included; bench-convolve's "launch").
// The first case runs for half a second before it is timed: an idle GPU's clocks take that long to rise, and the
// first row would otherwise be timed at idle clocks.
double medianMicroseconds(int runs, int frames, cudaStream_t stream, const std::function<void(int)>& work) {
    static bool clocksUp = false;
    for (auto start = std::chrono::steady_clock::now();
         !clocksUp && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500);) {
        for (int i = 0; i < 50; ++i) work(i % frames);
        CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));
    }
    clocksUp = true;
    for (int i = 0; i < 10; ++i) work(i % frames);
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));
    return benchcommon::medianEventMicros(work, frames, runs, false, stream);
}

std::unique_ptr<Equalizer> cudaEqualizer(const EqualizeDesc& desc, int channels = 1) {
    return makeCudaEqualizer(EqualizePlan::make(desc, SampleType::U8, channels));
}

bool checkAgainstReference(const EqualizeDesc& desc, const Plane& in, const std::vector<std::uint8_t>& host,
                           const Plane& out, cudaStream_t stream) {
    const int channels = in.view.channels;
    auto gpu = cudaEqualizer(desc, channels);
    auto ref = reference::makeEqualizer(desc, SampleType::U8, channels);
    std::vector<std::uint8_t> expected(host.size());
    ImageView hin{const_cast<std::uint8_t*>(host.data()), in.view.width, in.view.height, rowBytes(in.view),
                  SampleType::U8, channels};
    ImageView hout{expected.data(), in.view.width, in.view.height, rowBytes(in.view), SampleType::U8, channels};
    ref->process(hin, hout);
    for (std::uint8_t poison : {0x00, 0xFF}) {
        CUDAFILTERS_CHECK(cudaMemset2D(out.view.data, out.view.pitch, poison, rowBytes(out.view), out.view.height));
        gpu->process(in.view, out.view, stream);
        CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));
        if (download(out) != expected) return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 50, frames = 4;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    }
    auto wanted = [&](const std::string& name) { return only.empty() || name.find(only) != std::string::npos; };
    cudaDeviceProp prop{};
    CUDAFILTERS_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (sm_%d%d), runs %d, frames %d\n", prop.name, prop.major, prop.minor, runs, frames);
    std::printf("overlapped launch (programmatic dependent launch): %s\n",
                detail::overlapSupported() ? "yes" : "no, the global rows run as block LUT");
    Stream stream = Stream::create();

    struct Row { std::string work, size; double ours, peer; const char* peerName; bool exact; };
    std::vector<Row> rows;
    for (auto [w, h] : {std::pair{1920, 1080}, std::pair{3840, 2160}}) {
        std::vector<Plane> in;
        std::vector<std::vector<std::uint8_t>> host;
        for (int f = 0; f < frames; ++f) {
            in.push_back(makePlane(w, h));
            host.push_back(makeContent(w, h, 17 + f));
            upload(in.back(), host.back());
        }
        Plane out = makePlane(w, h);
        const std::string size = std::to_string(w) + "x" + std::to_string(h);

        EqualizeDesc global;
        EqualizeDesc clahe;
        clahe.mode = EqualizeMode::Clahe;
        clahe.clipLimit = 2.0;
        EqualizeDesc globalStats = global;
        globalStats.statistics = true;
        EqualizeDesc claheSmooth = clahe;
        claheSmooth.smoothing = 0.9;

        struct Case { std::string name; EqualizeDesc desc; };
        // (The global rows keep the name of the kernels they take where the device runs the apply overlapped.)
        const std::vector<Case> cases = {{"global (block LUT, overlapped launch)", global},
                                         {"global+stats (block LUT, overlapped launch)", globalStats},
                                         {"clahe 8x8 clip 2", clahe},
                                         {"clahe 8x8 clip 2 a=0.9", claheSmooth}};
        for (const Case& c : cases) {
            if (!wanted(c.name)) continue;
            const bool exact = checkAgainstReference(c.desc, in[0], host[0], out, stream.get());
            auto eq = cudaEqualizer(c.desc);
            const double us = medianMicroseconds(runs, frames, stream.get(),
                                                 [&](int f) { eq->process(in[f].view, out.view, stream.get()); });
            rows.push_back({c.name, size, us, 0, "", exact});
        }

        // RGBA, then RGB, global equalization in luma mode (the luma chunk kernels), on two contents.
        for (int channels : {4, 3})
        for (const char* content : {"blobs+noise", "colour bars"}) {
            const bool bars = content[0] == 'c';
            const std::string layout = channels == 4 ? "RGBA" : "RGB";
            std::vector<Plane> rgba;
            std::vector<std::vector<std::uint8_t>> rgbaHost;
            for (int f = 0; f < frames; ++f) {
                rgba.push_back(makePlane(w, h, channels));
                rgbaHost.push_back(bars ? makeBars(w, h, channels) : makeContent(w, h, 29 + f, channels));
                upload(rgba.back(), rgbaHost.back());
            }
            Plane rgbaOut = makePlane(w, h, channels);
            EqualizeDesc smoothedGlobal;
            smoothedGlobal.smoothing = 0.9;
            struct LumaCase { const char* name; EqualizeDesc desc; };
            const LumaCase lumaCases[] = {{"", global}, {"+stats", globalStats}, {" a=0.9", smoothedGlobal}};
            auto runRgba = [&](const std::string& name, const EqualizeDesc& desc) {
                if (!wanted(name)) return;
                const bool exact = checkAgainstReference(desc, rgba[0], rgbaHost[0], rgbaOut, stream.get());
                auto eq = cudaEqualizer(desc, channels);
                const double us = medianMicroseconds(runs, frames, stream.get(), [&](int f) {
                    eq->process(rgba[f].view, rgbaOut.view, stream.get());
                });
                rows.push_back({name, size, us, 0, "", exact});
            };
            for (const LumaCase& lc : lumaCases)
                runRgba(layout + " global" + lc.name + " luma, " + content + " (16-byte chunks)", lc.desc);
            // CLAHE in luma mode (the CLAHE luma chunk kernels); smoothing and statistics.
            EqualizeDesc claheStats = clahe;
            claheStats.statistics = true;
            const LumaCase claheCases[] = {{"", clahe}, {"+stats", claheStats}, {" a=0.9", claheSmooth}};
            for (const LumaCase& lc : claheCases)
                runRgba(layout + " clahe 8x8 clip 2" + lc.name + " luma, " + content + " (16-byte chunks, bands)",
                        lc.desc);
        }

#ifdef CUDAFILTERS_HAVE_NPP
        NppStreamContext ctx{};
        ctx.hStream = stream.get();
        ctx.nCudaDeviceId = 0;
        ctx.nMultiProcessorCount = prop.multiProcessorCount;
        ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
        ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
        ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
        ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
        ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
        CUDAFILTERS_CHECK(cudaStreamGetFlags(stream.get(), &ctx.nStreamFlags));
        const NppiSize roi{w, h};
        const int levels = 257;
        std::size_t bufferSize = 0;
        if (nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(roi, levels, &bufferSize, ctx) != NPP_SUCCESS) {
            std::fprintf(stderr, "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx failed\n");
            return 1;
        }
        DeviceBuffer nppBuffer(bufferSize), nppHist(256 * sizeof(Npp32s)), lutValues(256 * sizeof(Npp32s)),
            lutLevels(256 * sizeof(Npp32s));
        std::vector<Npp32s> identity(256);
        for (int i = 0; i < 256; ++i) identity[i] = 255 - i;
        CUDAFILTERS_CHECK(cudaMemcpy(lutValues.data(), identity.data(), 1024, cudaMemcpyHostToDevice));
        for (int i = 0; i < 256; ++i) identity[i] = i;
        CUDAFILTERS_CHECK(cudaMemcpy(lutLevels.data(), identity.data(), 1024, cudaMemcpyHostToDevice));
        NppStatus status = NPP_SUCCESS;
        auto nppHistOnly = [&](int f) {
            const NppStatus s = nppiHistogramEven_8u_C1R_Ctx(static_cast<const Npp8u*>(in[f].view.data),
                                                             int(in[f].view.pitch), roi, nppHist.as<Npp32s>(), levels,
                                                             0, 256, nppBuffer.as<Npp8u>(), ctx);
            if (s != NPP_SUCCESS) status = s;
        };
        auto nppLutOnly = [&](int f) {
            const NppStatus s = nppiLUT_8u_C1R_Ctx(static_cast<const Npp8u*>(in[f].view.data), int(in[f].view.pitch),
                                                   static_cast<Npp8u*>(out.view.data), int(out.view.pitch), roi,
                                                   lutValues.as<Npp32s>(), lutLevels.as<Npp32s>(), 256, ctx);
            if (s != NPP_SUCCESS) status = s;
        };
        const double histUs = medianMicroseconds(runs, frames, stream.get(), nppHistOnly);
        const double lutUs = medianMicroseconds(runs, frames, stream.get(), nppLutOnly);
        const double bothUs = medianMicroseconds(runs, frames, stream.get(), [&](int f) {
            nppHistOnly(f);
            nppLutOnly(f);
        });
        if (status != NPP_SUCCESS) std::fprintf(stderr, "NPP call failed: status %d\n", int(status));
        std::printf("NPP %s: histogramEven %.1f us, LUT %.1f us, both back to back %.1f us\n", size.c_str(), histUs,
                    lutUs, bothUs);
        for (Row& r : rows)
            if (r.size == size && r.work.rfind("global", 0) == 0) {
                r.peer = histUs + lutUs;
                r.peerName = "NPP histEven+LUT";
            }
#endif
    }

    std::printf("\n| work | size | CUDA equalizer (us) | exact vs reference | peer | peer (us) | ratio |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const Row& r : rows) {
        if (r.peer > 0)
            std::printf("| %s | %s | %.1f | %s | %s | %.1f | %.2f |\n", r.work.c_str(), r.size.c_str(), r.ours,
                        r.exact ? "yes" : "NO", r.peerName, r.peer, r.ours / r.peer);
        else
            std::printf("| %s | %s | %.1f | %s | - | - | - |\n", r.work.c_str(), r.size.c_str(), r.ours,
                        r.exact ? "yes" : "NO");
    }
    return 0;
}
