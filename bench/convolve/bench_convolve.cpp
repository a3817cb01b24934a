// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel benchmark of the CUDA convolution paths, side by side with NPP where it was found at build time.
//
// GRAY8, and interleaved RGB and RGBA (alpha copied) for the colour paths, replicate border, 1920×1080 and 3840×2160, K ∈ {3, 5, 7, 9, 15, 31}.
// Each figure is the median of `--runs` launches timed with CUDA events after warm-up, rotating over several random
// input frames (never zeros) so the L2 cache does not hold the input. Before timing, each path runs twice over
// outputs poisoned with two different bytes: every sample must come out the same (so every sample was written),
// and sampled pixels are checked against the definition (|Δ| ≤ 1).
//
// Then the FFT path against direct summation and the crossover table algorithm=auto reads (runFft).
//
// usage: bench-convolve [--runs N] [--frames N] [--quick] [--fft] [--padded] [--ks 3,5,...] [--no-fft] [--size WxH]
//   --fft: the FFT section alone; --padded: the sizes without compiled kernels alone (runPadded); --ks: these kernel
//   sizes only; --no-fft: without the FFT section; --size: this frame size instead of 1080p and 4K
#include <cudafilters/border.hpp>
#include <cudafilters/convolve.hpp>
#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include "../common/kernel_timing.hpp"
#include "convolve_launch.hpp"
#include "fft_convolution.hpp"
#include "kernel_route.hpp"

#include <cuda_runtime.h>
#ifdef CUDAFILTERS_HAVE_NPP
#include <nppi_filtering_functions.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace cudafilters;

namespace {

struct Options {
    int runs = 30;
    int frames = 4;
    bool quick = false;
    bool noFft = false;
    std::vector<int> ks;
    bool fftOnly = false;
    bool paddedOnly = false;
    int onlyWidth = 0, onlyHeight = 0;  // --size: time this frame size instead
};

struct Plane {
    DeviceBuffer buffer;
    ImageView view;
};

Plane makePlane(int width, int height, int channels, SampleType type = SampleType::U8) {
    Plane p;
    const std::size_t pitch = (std::size_t(width) * channels * sampleSize(type) + 511) / 512 * 512;  // as cudaMallocPitch
    p.buffer.reserve(pitch * height);
    p.view = ImageView{p.buffer.data(), width, height, pitch, type, channels};
    return p;
}

// Sample i of a downloaded image (bytes, rows packed).
int sampleAt(const std::vector<std::uint8_t>& host, SampleType type, std::size_t i) {
    if (type == SampleType::U8) return host[i];
    return host[2 * i] | host[2 * i + 1] << 8;
}

std::vector<std::uint8_t> download(const ImageView& v) {
    std::vector<std::uint8_t> host(v.rowBytes() * v.height);
    CUDAFILTERS_CHECK(cudaMemcpy2D(host.data(), v.rowBytes(), v.data, v.pitch, v.rowBytes(), v.height,
                                   cudaMemcpyDeviceToHost));
    return host;
}

// Random frames, samples in [1, max]: bytes 1..255 (8-bit), or 16-bit samples of random bytes, none 0.
std::vector<Plane> randomFrames(int count, int width, int height, int channels, std::vector<std::vector<std::uint8_t>>& hosts,
                                SampleType type = SampleType::U8) {
    std::vector<Plane> frames;
    hosts.clear();
    std::mt19937 rng(1234 + width + channels);
    std::uniform_int_distribution<int> dist(1, 255);
    for (int i = 0; i < count; ++i) {
        frames.push_back(makePlane(width, height, channels, type));
        std::vector<std::uint8_t> host(std::size_t(width) * channels * height * sampleSize(type));
        for (auto& b : host) b = std::uint8_t(dist(rng));
        const ImageView& v = frames.back().view;
        CUDAFILTERS_CHECK(cudaMemcpy2D(v.data, v.pitch, host.data(), v.rowBytes(), v.rowBytes(), height,
                                       cudaMemcpyHostToDevice));
        hosts.push_back(std::move(host));
    }
    return frames;
}

using Timing = benchcommon::KernelTiming;

Timing medianMicros(const std::function<void(int frame)>& launch, int frames, const Options& opt, cudaStream_t s) {
    return benchcommon::medianKernelMicros(launch, frames, opt.runs, 5, s);
}

// The definition at one pixel (double), as the reference computes it.
int expectedSample(const ConvolvePlan& plan, const std::vector<std::uint8_t>& src, int w, int h, int x, int y, int o) {
    const int C = plan.inputChannels;
    auto at = [&](std::size_t i) { return sampleAt(src, plan.type, i); };
    auto response = [&](const Kernel2D& k, int c) {
        double sum = 0;
        for (int ky = 0; ky < k.height; ++ky) {
            const int sy = borderIndex(y + ky - k.height / 2, h, plan.border);
            for (int kx = 0; kx < k.width; ++kx) {
                const int sx = borderIndex(x + kx - k.width / 2, w, plan.border);
                const double v = (sx < 0 || sy < 0) ? plan.borderValue : at((std::size_t(sy) * w + sx) * C + c);
                sum += double(k.at(kx, ky)) * v;
            }
        }
        return sum;
    };
    if (plan.combine == Combine::Channels)  // kernel o of the bank on the one input channel
        return finishSample(response(plan.kernels[std::size_t(o)], 0), plan.bias, plan.absolute,
                            maxSampleValue(plan.type));
    if (!(plan.channelMask & (1u << o))) return at((std::size_t(y) * w + x) * C + o);
    double acc = combineInit<double>(plan.combine);
    for (const Kernel2D& k : plan.kernels) acc = combineAdd(plan.combine, acc, response(k, o));
    return finishSample(combineFinish(plan.combine, acc), plan.bias, plan.absolute, maxSampleValue(plan.type));
}

// Runs twice over differently poisoned outputs (all samples must agree: all written) and spot-checks pixels.
// Returns an empty string when fine.
std::string verify(const ConvolvePlan& plan, const std::function<void(int frame)>& process,
                   const std::vector<std::vector<std::uint8_t>>& hosts, Plane& out, cudaStream_t s) {
    const ImageView& o = out.view;
    std::vector<std::uint8_t> first, second;
    for (std::uint8_t poison : {std::uint8_t(0x5A), std::uint8_t(0xA5)}) {
        CUDAFILTERS_CHECK(cudaMemset2DAsync(o.data, o.pitch, poison, o.rowBytes(), o.height, s));
        process(0);
        CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
        (poison == 0x5A ? first : second) = download(o);
    }
    if (first != second) return "output not fully written";
    std::mt19937 rng(7);
    const int w = o.width, h = o.height;
    auto check = [&](int x, int y) -> std::string {
        for (int c = 0; c < o.channels; ++c) {
            const int want = expectedSample(plan, hosts[0], w, h, x, y, c);
            const int got = sampleAt(first, o.type, (std::size_t(y) * w + x) * o.channels + c);
            if (std::abs(want - got) > 1)
                return "pixel (" + std::to_string(x) + "," + std::to_string(y) + ") c" + std::to_string(c) + ": got " +
                       std::to_string(got) + ", expected " + std::to_string(want);
        }
        return {};
    };
    for (int i = 0; i < 400; ++i) {
        // Half near the borders, half anywhere.
        int x = std::uniform_int_distribution<int>(0, w - 1)(rng), y = std::uniform_int_distribution<int>(0, h - 1)(rng);
        if (i % 2) x = i % 4 == 1 ? x % 20 : w - 1 - x % 20;
        if (i % 3 == 0) y = i % 2 ? y % 20 : h - 1 - y % 20;
        const std::string e = check(x, y);
        if (!e.empty()) return e;
    }
    return {};
}

Kernel2D randomKernel(int k, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    Kernel2D kernel{k, k, {}};
    float sum = 0;
    for (int i = 0; i < k * k; ++i) {
        kernel.taps.push_back(d(rng));
        sum += kernel.taps.back();
    }
    kernel.taps[std::size_t(k * k / 2)] += 2.f - sum;  // sum 2: a visible, non-saturating response
    return kernel;
}

struct Row {
    std::string path;
    std::string size;
    int k = 0;
    Timing ours;
    Timing npp;
    Timing direct;  // direct path on the same (rank-1) kernel
    std::string status;
};

#ifdef CUDAFILTERS_HAVE_NPP
NppStreamContext nppContext(cudaStream_t s) {
    NppStreamContext ctx{};
    int device = 0;
    CUDAFILTERS_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDAFILTERS_CHECK(cudaGetDeviceProperties(&prop, device));
    ctx.hStream = s;
    ctx.nCudaDeviceId = device;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
    CUDAFILTERS_CHECK(cudaStreamGetFlags(s, &ctx.nStreamFlags));
    return ctx;
}

// Times nppiFilterBorder32f_8u_C1R_Ctx / _C3R_Ctx / _AC4R_Ctx (1, 3, 4 channels; AC4R leaves the destination's alpha
// alone, so alpha is left out of the comparison) with the same taps. NPP documents its coefficients in reverse order
// (it convolves); both orders are tried on frame 0 and the one that matches ours is timed.
Timing timeNpp(const Kernel2D& k, const std::vector<Plane>& in, Plane& out, const Options& opt, cudaStream_t s,
               int& maxDiffVsOurs, const std::vector<std::uint8_t>& ours) {
    const NppStreamContext ctx = nppContext(s);
    const NppiSize size{in[0].view.width, in[0].view.height};
    const NppiSize ksize{k.width, k.height};
    const NppiPoint anchor{k.width / 2, k.height / 2};
    DeviceBuffer taps(k.taps.size() * sizeof(float));
    auto launch = [&](int f) {
        const int channels = in[f].view.channels;
        const auto filter = channels == 4   ? nppiFilterBorder32f_8u_AC4R_Ctx
                            : channels == 3 ? nppiFilterBorder32f_8u_C3R_Ctx
                                            : nppiFilterBorder32f_8u_C1R_Ctx;
        const NppStatus st = filter(
            static_cast<const Npp8u*>(in[f].view.data), int(in[f].view.pitch), size, NppiPoint{0, 0},
            static_cast<Npp8u*>(out.view.data), int(out.view.pitch), size, taps.as<Npp32f>(), ksize, anchor,
            NPP_BORDER_REPLICATE, ctx);
        if (st != NPP_SUCCESS) throw std::runtime_error("nppiFilterBorder32f_8u_Ctx failed: " + std::to_string(int(st)));
    };
    int best = 256;
    std::vector<float> bestTaps;
    for (bool reversed : {true, false}) {
        std::vector<float> t = k.taps;
        if (reversed) std::reverse(t.begin(), t.end());
        CUDAFILTERS_CHECK(cudaMemcpy(taps.data(), t.data(), t.size() * sizeof(float), cudaMemcpyHostToDevice));
        launch(0);
        CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
        const std::vector<std::uint8_t> npp = download(out.view);
        int diff = 0;
        for (std::size_t i = 0; i < npp.size(); ++i)
            if (in[0].view.channels != 4 || i % 4 != 3) diff = std::max(diff, std::abs(int(npp[i]) - int(ours[i])));
        if (diff < best) {
            best = diff;
            bestTaps = t;
        }
    }
    CUDAFILTERS_CHECK(cudaMemcpy(taps.data(), bestTaps.data(), bestTaps.size() * sizeof(float), cudaMemcpyHostToDevice));
    maxDiffVsOurs = best;
    return medianMicros(launch, int(in.size()), opt, s);
}
#endif

std::string fmt(double v, int prec = 1) {
    if (v < 0) return "–";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

// FFT against direct summation: the bars at 1080p GRAY8 and 4K RGBA, and per sample type and frame size
// the times auto chooses between, ending with the rows to paste into fftCrossoverTable()
// (engine/convolve/crossover.cpp). Returns false when a result failed verification.
bool runFft(const Options& opt, cudaStream_t s) {
    bool ok = true;
    struct Measured {
        Timing direct, fft;
        std::string notes;
    };
    auto measure = [&](const ConvolvePlan& base, std::vector<Plane>& in, std::vector<std::vector<std::uint8_t>>& hosts,
                       Plane& out, const Options& o) {
        Measured m;
        for (ConvolveAlgorithm algorithm : {ConvolveAlgorithm::Direct, ConvolveAlgorithm::Fft}) {
            ConvolvePlan plan = base;
            plan.algorithm = algorithm;
            const int w = out.view.width, h = out.view.height;
            auto conv = makeCudaConvolver(plan);
            conv->prepare(w, h);
            auto launch = [&](int f) { conv->process(in[f].view, out.view, s); };
            const std::string e = verify(plan, launch, hosts, out, s);
            if (!e.empty()) ok = false;
            m.notes += std::string(m.notes.empty() ? "" : ", ") + cuda_detail::routeName(plan, in[0].view, out.view) +
                       (e.empty() ? "" : ": " + e);
            (algorithm == ConvolveAlgorithm::Fft ? m.fft : m.direct) = medianMicros(launch, int(in.size()), o, s);
        }
        return m;
    };
    auto autoPick = [](ConvolvePlan plan, int w, int h) {
        plan.algorithm = ConvolveAlgorithm::Auto;
        return std::string(cuda_detail::pathName(plan, w, h)) == "fft";
    };

    std::printf("FFT (cuFFT) against direct summation, random full-rank kernels, replicate border; GPU time (µs) as "
                "above\n\n| size | format | K | direct µs | FFT µs | FFT/direct | auto picks | auto/faster | bar | notes |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    struct Bar { int w, h, channels, k; };
    for (const Bar& b : {Bar{1920, 1080, 1, 15}, Bar{1920, 1080, 1, 31}, Bar{1920, 1080, 1, 63}, Bar{1920, 1080, 1, 127},
                         Bar{1920, 1080, 1, 255}, Bar{3840, 2160, 4, 63}}) {
        std::vector<std::vector<std::uint8_t>> hosts;
        std::vector<Plane> in = randomFrames(opt.frames, b.w, b.h, b.channels, hosts);
        Plane out = makePlane(b.w, b.h, b.channels);
        ConvolveDesc d;
        d.kernels = {randomKernel(b.k, 500 + b.k)};
        d.border = Border::Replicate;
        d.channelMask = 0x7;  // RGBA: alpha copied
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, b.channels);
        const Measured m = measure(plan, in, hosts, out, opt);
        const bool pickFft = autoPick(plan, b.w, b.h);
        const double faster = std::min(m.direct.gpu, m.fft.gpu);
        std::string bar = "–";
        if (b.channels == 4) bar = std::string(m.fft.gpu <= 1000 ? "met" : "MISSED") + " (FFT ≤ 1 ms)";
        else if (b.k == 63)
            bar = std::string(m.fft.gpu <= 150 && m.fft.gpu <= 0.25 * m.direct.gpu ? "met" : "MISSED") +
                  " (FFT ≤ 150 µs, ≤ 0.25× direct)";
        else if (b.k > 63) bar = std::string(m.fft.gpu <= 150 ? "met" : "MISSED") + " (FFT ≤ 150 µs)";
        std::printf("| %dx%d | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", b.w, b.h,
                    b.channels == 4 ? "RGBA" : "GRAY8", b.k, fmt(m.direct.gpu).c_str(), fmt(m.fft.gpu).c_str(),
                    fmt(m.fft.gpu / m.direct.gpu, 2).c_str(), pickFft ? "FFT" : "direct",
                    fmt((pickFft ? m.fft.gpu : m.direct.gpu) / faster, 2).c_str(), bar.c_str(), m.notes.c_str());
        std::fflush(stdout);
    }

    Options quick = opt;
    quick.runs = std::min(opt.runs, 9);
    quick.frames = std::min(opt.frames, 2);
    std::printf("\nCrossover, 1 channel, median of %d: auto must stay within 1.10× of the faster path\n\n"
                "| type | size | K | direct µs | FFT µs | auto picks | auto/faster | |\n|---|---|---|---|---|---|---|---|\n",
                quick.runs);
    std::vector<std::string> rows;
    bool autoOk = true;
    for (SampleType type : {SampleType::U8, SampleType::U16})
        for (auto [w, h] : {std::pair{160, 120}, {640, 480}, {1920, 1080}, {3840, 2160}}) {
            std::vector<std::vector<std::uint8_t>> hosts;
            std::vector<Plane> in = randomFrames(quick.frames, w, h, 1, hosts, type);
            Plane out = makePlane(w, h, 1, type);
            // Square sizes with a compiled direct kernel, and sizes the generic kernel sums: a crossover for each.
            int crossover[2] = {0, 0};
            for (bool generic : {false, true}) {
                const std::vector<int> ks = generic ? std::vector<int>{4, 6, 8, 10, 11, 13, 17, 21, 25, 41, 63, 127, 255}
                                                    : std::vector<int>{9, 15, 31};
                for (int k : ks) {
                    ConvolveDesc d;
                    d.kernels = {randomKernel(k, 700 + k)};
                    d.border = Border::Reflect101;
                    const ConvolvePlan plan = ConvolvePlan::make(d, type, 1);
                    const Measured m = measure(plan, in, hosts, out, quick);
                    int& c = crossover[generic ? 1 : 0];
                    if (m.fft.gpu < m.direct.gpu && c == 0) c = k;
                    if (m.fft.gpu >= m.direct.gpu) c = 0;
                    const bool pickFft = autoPick(plan, w, h);
                    const double ratio = (pickFft ? m.fft.gpu : m.direct.gpu) / std::min(m.direct.gpu, m.fft.gpu);
                    if (ratio > 1.10) autoOk = false;
                    std::printf("| %s | %dx%d | %d | %s | %s | %s | %s | %s |\n", sampleTypeName(type), w, h, k,
                                fmt(m.direct.gpu).c_str(), fmt(m.fft.gpu).c_str(), pickFft ? "FFT" : "direct",
                                fmt(ratio, 2).c_str(), ratio > 1.10 ? "MISSED" : "ok");
                    std::fflush(stdout);
                }
            }
            const long long pixels = static_cast<long long>(w) * h;
            rows.push_back("        {Backend::Cuda, SampleType::" + std::string(type == SampleType::U8 ? "U8" : "U16") +
                           ", " + (w == 3840 ? std::string("kAny") : std::to_string(pixels)) + ", " +
                           std::to_string(crossover[0]) + ", " + std::to_string(crossover[1]) + "},");
        }
    std::printf("\nauto within 1.10× of the faster path at every K: %s\n", autoOk ? "met" : "MISSED");
    std::printf("Measured rows for fftCrossoverTable() (against the compiled direct kernels, then the generic one: FFT "
                "from the smallest K after which it stayed faster; 0 = never):\n");
    for (const std::string& r : rows) std::printf("%s\n", r.c_str());
    std::printf("\n");
    return ok;
}

// Kernel sizes without compiled kernels (default K = 3, 4, 5, 11, 13, 21, 25, or --ks) and banks of more than two
// kernels: the product's route (padded to the next compiled size, padded_plan.hpp; banks in one direct launch or split
// into launches of at most two; else the generic kernel, or the FFT where auto finds it cheaper) against the same plan
// under algorithm=fft, where the FFT takes it, and NPP's 2-D filter on the same taps. GRAY8 Gaussian (separable
// plan; box for even K), GRAY8 random full-rank kernel, RGBA Gaussian (alpha copied), banks of 3 and 4 random kernels
// from GRAY8 to RGB and RGBA (output=channels: Combine::Channels) and a bank of 8 combined by max-abs (a compass
// operator); replicate border, 1080p and 4K.
// Returns false when a result failed verification.
bool runPadded(const Options& opt, cudaStream_t s) {
    bool ok = true;
    const std::vector<int> ks = !opt.ks.empty() ? opt.ks : std::vector<int>{3, 4, 5, 11, 13, 21, 25};
    const std::vector<std::pair<int, int>> sizes =
        opt.onlyWidth > 0 ? std::vector<std::pair<int, int>>{{opt.onlyWidth, opt.onlyHeight}}
                          : std::vector<std::pair<int, int>>{{1920, 1080}, {3840, 2160}};
    std::printf("Sizes without compiled kernels: the route (padded where that applies) against algorithm=fft and NPP; "
                "GPU time (µs) as above\n\n| case | size | K | padded µs | path | FFT µs | path | "
                "NPP µs | padded/FFT | padded/NPP | notes |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (auto [w, h] : sizes) {
        const std::string sizeName = std::to_string(w) + "x" + std::to_string(h);
        std::vector<std::vector<std::uint8_t>> grayHost, rgbaHost;
        std::vector<Plane> gray = randomFrames(opt.frames, w, h, 1, grayHost);
        std::vector<Plane> rgba = randomFrames(opt.frames, w, h, 4, rgbaHost);
        Plane grayOut = makePlane(w, h, 1), rgbOut = makePlane(w, h, 3), rgbaOut = makePlane(w, h, 4);
        for (int k : ks) {
            ConvolveDesc smooth = presetDesc(k % 2 ? Preset::Gaussian : Preset::Box, k);
            smooth.border = Border::Replicate;
            ConvolveDesc full;
            full.kernels = {randomKernel(k, 100 + k)};
            full.border = Border::Replicate;
            ConvolveDesc colour = smooth;
            colour.channelMask = 0x7;
            ConvolveDesc bank3 = full, bank4;
            bank3.kernels.push_back(randomKernel(k, 200 + k));
            bank3.kernels.push_back(randomKernel(k, 300 + k));
            bank3.combine = Combine::Channels;
            bank4 = bank3;
            bank4.kernels.push_back(randomKernel(k, 400 + k));
            ConvolveDesc compass = full;  // 8 kernels, the largest response (a compass operator: Kirsch, Robinson)
            for (int n = 1; n < 8; ++n) compass.kernels.push_back(randomKernel(k, 500 + 10 * n + k));
            compass.combine = Combine::MaxAbs;
            struct Case {
                std::string name;
                ConvolvePlan plan;
                std::vector<Plane>* in;
                std::vector<std::vector<std::uint8_t>>* hosts;
                Plane* out;
                bool npp = true;
            };
            const Case cases[] = {
                {std::string("GRAY8 ") + (k % 2 ? "gaussian" : "box"), ConvolvePlan::make(smooth, SampleType::U8, 1),
                 &gray, &grayHost, &grayOut},
                {"GRAY8 full-rank", ConvolvePlan::make(full, SampleType::U8, 1), &gray, &grayHost, &grayOut},
                {std::string("RGBA ") + (k % 2 ? "gaussian" : "box"), ConvolvePlan::make(colour, SampleType::U8, 4),
                 &rgba, &rgbaHost, &rgbaOut},
                {"GRAY8 to RGB, 3 kernels", ConvolvePlan::make(bank3, SampleType::U8, 1), &gray, &grayHost, &rgbOut,
                 false},
                {"GRAY8 to RGBA, 4 kernels", ConvolvePlan::make(bank4, SampleType::U8, 1), &gray, &grayHost, &rgbaOut,
                 false},
                {"GRAY8 8 kernels max-abs", ConvolvePlan::make(compass, SampleType::U8, 1), &gray, &grayHost, &grayOut,
                 false}};
            for (const Case& c : cases) {
                std::vector<Plane>& in = *c.in;
                Plane& out = *c.out;
                std::string notes;
                Timing times[2];
                std::string paths[2];
                for (int padded = 1; padded >= 0; --padded) {
                    ConvolvePlan plan = c.plan;
                    if (padded == 0) {  // algorithm=fft, where the FFT takes the plan
                        if (!cuda_detail::fftSupports(plan)) continue;
                        plan.algorithm = ConvolveAlgorithm::Fft;
                    }
                    auto conv = makeCudaConvolver(plan);
                    conv->prepare(w, h);
                    auto launch = [&](int f) { conv->process(in[f].view, out.view, s); };
                    const std::string e = verify(c.plan, launch, *c.hosts, out, s);
                    if (!e.empty()) {
                        ok = false;
                        notes += (padded ? "padded: " : "fft: ") + e + "; ";
                    }
                    paths[padded] = cuda_detail::routeName(plan, in[0].view, out.view);
                    times[padded] = medianMicros(launch, int(in.size()), opt, s);
                }
                Timing npp;
#ifdef CUDAFILTERS_HAVE_NPP
                if (c.npp) {
                    auto conv = makeCudaConvolver(c.plan);  // frame 0's padded result to compare NPP's with
                    conv->process(in[0].view, out.view, s);
                    CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
                    const std::vector<std::uint8_t> ours = download(out.view);
                    int diff = 0;
                    npp = timeNpp(c.plan.kernels[0], in, out, opt, s, diff, ours);
                    notes += "max |ours-NPP| " + std::to_string(diff);
                }
#endif
                std::printf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.name.c_str(),
                            sizeName.c_str(), k, fmt(times[1].gpu).c_str(), paths[1].c_str(), fmt(times[0].gpu).c_str(),
                            paths[0].c_str(), fmt(npp.gpu).c_str(),
                            fmt(times[0].gpu > 0 ? times[1].gpu / times[0].gpu : -1, 3).c_str(),
                            fmt(npp.gpu > 0 ? times[1].gpu / npp.gpu : -1, 2).c_str(), notes.c_str());
                std::fflush(stdout);
            }
        }
    }
    std::printf("\n");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) opt.runs = std::max(5, std::atoi(argv[++i]));
        else if (a == "--frames" && i + 1 < argc) opt.frames = std::max(1, std::atoi(argv[++i]));
        else if (a == "--quick") opt.quick = true;
        else if (a == "--fft") opt.fftOnly = true;
        else if (a == "--padded") opt.paddedOnly = true;
        else if (a == "--no-fft") opt.noFft = true;
        else if (a == "--size" && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &opt.onlyWidth, &opt.onlyHeight) == 2)
            ++i;
        else if (a == "--ks" && i + 1 < argc) {
            for (std::string list = argv[++i]; !list.empty();) {
                const std::size_t comma = list.find(',');
                opt.ks.push_back(std::atoi(list.substr(0, comma).c_str()));
                list = comma == std::string::npos ? "" : list.substr(comma + 1);
            }
        }
        else {
            std::fprintf(stderr, "usage: %s [--runs N] [--frames N] [--quick] [--fft] [--padded] [--ks 3,5,...] [--no-fft] "
                                 "[--size WxH]\n",
                         argv[0]);
            return 2;
        }
    }
    if (cudaDeviceCount() == 0) {
        std::printf("no CUDA device: nothing to measure\n");
        return 0;
    }
    std::printf("device: %s\n", cudaDeviceDescription(0).c_str());
#ifdef CUDAFILTERS_HAVE_NPP
    std::printf("NPP: nppiFilterBorder32f_8u_C1R_Ctx (C3R for RGB, AC4R for RGBA), NPP_BORDER_REPLICATE\n");
#else
    std::printf("NPP: not found at build time (ratios omitted)\n");
#endif
    std::printf("median of %d runs, %d rotating random frames, GRAY8 unless noted, replicate border\n\n", opt.runs,
                opt.frames);

    Stream stream = Stream::create();
    const cudaStream_t s = stream.get();
    if (opt.fftOnly) return runFft(opt, s) ? 0 : 1;
    if (opt.paddedOnly) return runPadded(opt, s) ? 0 : 1;
    std::vector<Row> rows;
    bool failed = false;
    const std::vector<std::pair<int, int>> sizes =
        opt.onlyWidth > 0 ? std::vector<std::pair<int, int>>{{opt.onlyWidth, opt.onlyHeight}}
                          : std::vector<std::pair<int, int>>{{1920, 1080}, {3840, 2160}};
    const std::vector<int> ks = !opt.ks.empty() ? opt.ks
                                : opt.quick ? std::vector<int>{3, 9, 31}
                                            : std::vector<int>{3, 5, 7, 9, 15, 31};

    for (auto [w, h] : sizes) {
        const std::string sizeName = std::to_string(w) + "x" + std::to_string(h);
        std::vector<std::vector<std::uint8_t>> grayHost, rgbHost, rgbaHost;
        std::vector<Plane> gray = randomFrames(opt.frames, w, h, 1, grayHost);
        std::vector<Plane> rgb = randomFrames(opt.frames, w, h, 3, rgbHost);
        std::vector<Plane> rgba = randomFrames(opt.frames, w, h, 4, rgbaHost);
        std::vector<std::vector<std::uint8_t>> pairHost;  // two interleaved channels: NV12's UV plane (1080p for 4K)
        std::vector<Plane> pair = randomFrames(opt.frames, w, h, 2, pairHost);
        Plane pairOut = makePlane(w, h, 2);
        Plane grayOut = makePlane(w, h, 1), rgbOut = makePlane(w, h, 3), rgbaOut = makePlane(w, h, 4);
        std::vector<std::vector<std::uint8_t>> gray16Host;  // GRAY16_LE: 16-bit samples
        std::vector<Plane> gray16 = randomFrames(opt.frames, w, h, 1, gray16Host, SampleType::U16);
        Plane gray16Out = makePlane(w, h, 1, SampleType::U16);

        // What this timing method gives for work that costs (almost) nothing, and for moving the frame once:
        // a 1-byte memset and a device-to-device copy of the GRAY8, RGB and RGBA frames (cudaMemcpy2DAsync, and the
        // engine's copy on the SMs, copyDevicePlane: the floor of a kernel that reads and writes the frame once).
        {
            Row floor;
            floor.path = "floor: 1-byte memset";
            floor.size = sizeName;
            floor.ours = medianMicros([&](int) { CUDAFILTERS_CHECK(cudaMemsetAsync(grayOut.view.data, 0, 1, s)); },
                                      1, opt, s);
            rows.push_back(floor);
            for (auto [name, in, out] : {std::tuple{"GRAY8", &gray, &grayOut}, {"RGB", &rgb, &rgbOut},
                                         {"RGBA", &rgba, &rgbaOut}}) {
                floor.path = std::string("floor: ") + name + " frame copy";
                floor.ours = medianMicros(
                    [&, in = in, out = out](int f) {
                        const ImageView& v = (*in)[std::size_t(f)].view;
                        CUDAFILTERS_CHECK(cudaMemcpy2DAsync(out->view.data, out->view.pitch, v.data, v.pitch,
                                                            v.rowBytes(), v.height, cudaMemcpyDeviceToDevice, s));
                    },
                    int(in->size()), opt, s);
                rows.push_back(floor);
                floor.path = std::string("floor: ") + name + " frame copy on SMs";
                floor.ours = medianMicros(
                    [&, in = in, out = out](int f) {
                        copyDevicePlane((*in)[std::size_t(f)].view, out->view, reinterpret_cast<GpuStream>(s));
                    },
                    int(in->size()), opt, s);
                rows.push_back(floor);
            }
        }
        for (int k : ks) {
            auto run = [&](const std::string& path, ConvolvePlan plan, std::vector<Plane>& in,
                           std::vector<std::vector<std::uint8_t>>& hosts, Plane& out) -> Row& {
                Row r;
                r.path = path;
                r.size = sizeName;
                r.k = k;
                auto conv = makeCudaConvolver(plan);
                r.status = verify(plan, [&](int f) { conv->process(in[f].view, out.view, s); }, hosts, out, s);
                if (!r.status.empty()) failed = true;
                r.ours = medianMicros([&](int f) { conv->process(in[f].view, out.view, s); }, int(in.size()), opt, s);
                conv->process(in[0].view, out.view, s);  // leaves frame 0's result for the NPP comparison
                CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
                r.status = std::string(cuda_detail::pathName(plan)) + " (" +
                           cuda_detail::routeName(plan, in[0].view, out.view) + ")" +
                           (r.status.empty() ? "" : ": " + r.status);
                rows.push_back(r);
                return rows.back();
            };

            // Direct: a random (full-rank) kernel.
            ConvolveDesc d;
            d.kernels = {randomKernel(k, 100 + k)};
            d.border = Border::Replicate;
            const ConvolvePlan directPlan = ConvolvePlan::make(d, SampleType::U8, 1);
            Row& direct = run("direct", directPlan, gray, grayHost, grayOut);
#ifdef CUDAFILTERS_HAVE_NPP
            {
                const std::vector<std::uint8_t> ours = download(grayOut.view);
                int diff = 0;
                direct.npp = timeNpp(directPlan.kernels[0], gray, grayOut, opt, s, diff, ours);
                direct.status += ", max |ours-NPP| " + std::to_string(diff);
            }
#else
            (void)direct;
#endif
            // GRAY16_LE (16-bit samples: the per-channel tile kernels, the streaming kernel from K = 15).
            if (k <= 15) {
                ConvolveDesc d16;
                d16.kernels = {randomKernel(k, 100 + k)};
                d16.border = Border::Replicate;
                run("GRAY16 direct", ConvolvePlan::make(d16, SampleType::U16, 1), gray16, gray16Host, gray16Out);
                ConvolveDesc g16 = presetDesc(Preset::Gaussian, k);
                g16.border = Border::Replicate;
                run("GRAY16 gaussian", ConvolvePlan::make(g16, SampleType::U16, 1), gray16, gray16Host, gray16Out);
            }
            // Separable: a Gaussian (given as row and column), and the same kernel through the direct path.
            // Gaussian plans (separable), replicate border; `mask`: the channels filtered, the others copied.
            auto gaussianPlan = [k](int channels, unsigned mask = 0xF) {
                ConvolveDesc desc = presetDesc(Preset::Gaussian, k);
                desc.border = Border::Replicate;
                desc.channelMask = mask;
                return ConvolvePlan::make(desc, SampleType::U8, channels);
            };
            ConvolvePlan sepPlan = gaussianPlan(1);
            Row& sep = run("separable", sepPlan, gray, grayHost, grayOut);
            ConvolvePlan forced = sepPlan;
            forced.separable = false;
            {
                auto conv = makeCudaConvolver(forced);
                sep.direct = medianMicros([&](int f) { conv->process(gray[f].view, grayOut.view, s); },
                                          int(gray.size()), opt, s);
                conv->process(gray[0].view, grayOut.view, s);
                CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
            }
#ifdef CUDAFILTERS_HAVE_NPP
            {
                const std::vector<std::uint8_t> ours = download(grayOut.view);
                int diff = 0;
                rows.back().npp = timeNpp(sepPlan.kernels[0], gray, grayOut, opt, s, diff, ours);
                rows.back().status += ", max |ours-NPP| " + std::to_string(diff);
            }
#endif
            // Bank of two kernels, magnitude (Sobel for 3, 5, 7; random pairs beyond).
            ConvolveDesc b;
            if (k <= 7) {
                b = presetDesc(Preset::SobelMagnitude, k);
            } else {
                b.kernels = {randomKernel(k, 200 + k), randomKernel(k, 300 + k)};
                b.combine = Combine::Magnitude;
            }
            b.border = Border::Replicate;
            run("bank2 magnitude", ConvolvePlan::make(b, SampleType::U8, 1), gray, grayHost, grayOut);
            // Colour: the direct kernel on interleaved RGB and RGBA (alpha copied).
            ConvolveDesc rgbaDesc = d;
            rgbaDesc.channelMask = 0x7;
            for (int channels : {3, 4}) {
                const ConvolvePlan colourPlan =
                    ConvolvePlan::make(channels == 3 ? d : rgbaDesc, SampleType::U8, channels);
                std::vector<Plane>& in = channels == 3 ? rgb : rgba;
                std::vector<std::vector<std::uint8_t>>& hosts = channels == 3 ? rgbHost : rgbaHost;
                Plane& out = channels == 3 ? rgbOut : rgbaOut;
                const std::string name = channels == 3 ? "RGB direct" : "RGBA direct";
                Row& colour = run(name, colourPlan, in, hosts, out);
#ifdef CUDAFILTERS_HAVE_NPP
                const std::vector<std::uint8_t> ours = download(out.view);
                int diff = 0;
                colour.npp = timeNpp(directPlan.kernels[0], in, out, opt, s, diff, ours);
                colour.status += std::string(", max |ours-NPP ") + (channels == 3 ? "C3R" : "AC4R") + "| " +
                                 std::to_string(diff);
#else
                (void)colour;
#endif
            }
            // Gaussians (separable plans): two channels (a UV plane), RGB, RGBA with the alpha copied.
            {
                const ConvolvePlan rgPlan = gaussianPlan(4, 0x7);
                run("2-channel gaussian", gaussianPlan(2), pair, pairHost, pairOut);
                run("RGB gaussian", gaussianPlan(3), rgb, rgbHost, rgbOut);
                Row& g = run("RGBA gaussian", rgPlan, rgba, rgbaHost, rgbaOut);
#ifdef CUDAFILTERS_HAVE_NPP
                const std::vector<std::uint8_t> ours = download(rgbaOut.view);
                int diff = 0;
                g.npp = timeNpp(rgPlan.kernels[0], rgba, rgbaOut, opt, s, diff, ours);
                g.status += ", max |ours-NPP AC4R| " + std::to_string(diff);
#else
                (void)g;
#endif
            }
        }
    }

    std::printf("GPU time (µs): kernel time on a busy stream; launch (µs): start event on an idle GPU, host launch "
                "latency included\n\n");
    std::printf("| path | size | K | ours µs | NPP µs | ours/NPP | bar | direct µs (rank-1) | direct/separable | "
                "ours launch µs | NPP launch µs | launch ratio | notes |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Row& r : rows) {
        const double ratio = r.npp.gpu > 0 ? r.ours.gpu / r.npp.gpu : -1;
        const double launchRatio = r.npp.launch > 0 ? r.ours.launch / r.npp.launch : -1;
        std::string bar = "–";
        if (r.path == "direct" && r.npp.gpu > 0) {
            const double limit = r.k <= 5 ? 0.8 : 0.33;
            bar = std::string(ratio <= limit ? "met" : "MISSED") + " (≤" + fmt(limit, 2) + ")";
        }
        if ((r.path == "RGB direct" || r.path == "RGBA direct") && r.npp.gpu > 0)
            bar = std::string(ratio <= 0.8 ? "met" : "MISSED") + " (≤0.80 NPP)";
        if (r.path == "RGBA gaussian" && r.k == 5 && r.size == "3840x2160")
            bar = std::string(r.ours.gpu <= 40 ? "met" : "MISSED") + " (≤40 µs)";
        const double speedup = r.direct.gpu > 0 ? r.direct.gpu / r.ours.gpu : -1;
        if (r.path == "separable" && r.k >= 9) bar = std::string(speedup >= 5 ? "met" : "MISSED") + " (≥5× direct)";
        std::printf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.path.c_str(), r.size.c_str(),
                    r.k, fmt(r.ours.gpu).c_str(), fmt(r.npp.gpu).c_str(), fmt(ratio, 2).c_str(), bar.c_str(),
                    fmt(r.direct.gpu).c_str(), fmt(speedup, 1).c_str(), fmt(r.ours.launch).c_str(),
                    fmt(r.npp.launch).c_str(), fmt(launchRatio, 2).c_str(), r.status.c_str());
    }
    std::printf("\n");
    if (!opt.noFft && !runFft(opt, s)) failed = true;
    if (failed) std::printf("\nVERIFICATION FAILED (see notes)\n");
    return failed ? 1 : 0;
}
