// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel benchmark of the packed and high-depth video layouts against their planar equivalents (the goal: kernels
// that read and write these layouts directly, as fast as the planar ones). Through GStreamer in
// system memory the 4K figures are PCIe-bound (YUY2 moves 16 bits a pixel, NV12 12); here the frames are already on
// the device and only the engine calls the elements make per frame are timed:
//
//  - cudaconvolve preset=gaussian size=5 planes=all (make_passes() in plugin/elements/gstcudaconvolve.cpp):
//      NV12: the luma plane (1 channel, W×H) and the interleaved chroma plane (2 channels, W/2 × H/2), one plan each;
//      YUY2, UYVY: pass 1 on the Y/chroma pairs view (lumaPairs: W wide, 2 channels, the luma channel filtered and
//      chroma copied), then pass 2 on the plane as 4-channel W/2-wide macropixels (the chroma channels filtered,
//      copyMask 0: Y left as pass 1 wrote it).
//  - cudahisteq mode=clahe, the element's defaults (clip 2, 8×8 tiles, no smoothing, no statistics; make_work() in
//    plugin/elements/gstcudahisteq.cpp): NV12 the luma plane; YUY2, UYVY the Y/chroma pairs view (HistEqWork::process);
//    GRAY16_LE its 16-bit plane (full depth, 65 536 bins); P010_10LE its luma plane (10 bits at bit 6, 1024 bins).
//    The "+ UV copy" rows add the device-to-device copy of the chroma plane the CUDA executor makes for a plane the
//    element does not write when the frame is in CUDA memory (packed 4:2:2 carries its chroma through the kernel).
//
// Each figure is the median of `--runs` frames timed with CUDA events on one stream after warm-up, rotating over
// `--frames` random input frames (smooth content plus noise, never zero samples) in device memory (pitch rounded up
// to 512 bytes, as cudaMallocPitch). "us/frame": a 256 MB device memset is queued ahead of the start event, so the
// GPU is still busy while the host enqueues the frame's calls (the interval is the GPU's own time) and the L2 holds no
// input; "us idle": started on an idle GPU, the host's launch latency included.
//
// Bytes moved per frame: for each engine call, the bytes of its input view read once plus the bytes it writes
// (filtered and copied channels; convolve pass 2 of packed 4:2:2 writes its chroma bytes only), and for a plane copy
// the plane read and written. A lower bound of the memory traffic (CLAHE reads its input twice: histograms, then the
// blend; counted once). GB/s = those bytes / us per frame. Ratio: us per frame / us per frame of the reference
// format (NV12, or GRAY16_LE for P010_10LE) of the same filter and size in this run (1.00 = as fast).
//
// Before timing, every case runs once on frame 0 over device outputs poisoned with 0x5A and again with 0xA5, and
// the planes it writes are compared with the engine's CPU backend (or the reference, --check reference) run on the
// same frame over a poisoned host output: 0 differing samples, else the failure is printed and the exit status is 1.
//
// usage: bench-formats [--runs N] [--frames N] [--size WxH]... [--check cpu|reference]
#include <cudafilters/convolve.hpp>
#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>
#include <cudafilters/presets.hpp>

#include "../common/kernel_timing.hpp"
#include "convolve_launch.hpp"
#include "reference.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace cudafilters;

namespace {

struct Options {
    int runs = 50;
    int frames = 4;
    std::vector<std::pair<int, int>> sizes;
    reference::Impl check = reference::Impl::Cpu;  // the judge: the CPU backend or the reference
};

// One memory plane as plugin/base/planelayout.cpp planeLayouts() derives it from GstVideoFormatInfo (the fields the
// elements read), plus which component each channel holds (0 Y, 1 U, 2 V) to fill frames.
struct Layout {
    int width = 0;   // pixels per row (macropixels of packed 4:2:2)
    int height = 0;
    int channels = 1;
    SampleType type = SampleType::U8;
    SampleBits bits;  // {depth, shift} as GST_VIDEO_FORMAT_INFO_DEPTH / _SHIFT give them
    unsigned colorMask = 1;
    bool luma = false;
    bool yuv = true;
    int pairsWidth = 0;  // packed 4:2:2: Y samples per row
    int pairsLumaChannel = 0;
    std::array<int, 4> component{{0, 0, 0, 0}};

    bool packed422() const { return pairsWidth > 0; }
    unsigned chromaMask() const { return colorMask & ~(0x5u << pairsLumaChannel); }
    std::size_t rowBytes() const { return std::size_t(width) * channels * sampleSize(type); }
    std::size_t bytes() const { return rowBytes() * std::size_t(height); }
};

struct Format {
    std::string name;
    std::vector<Layout> planes;
};

Format nv12(int w, int h) {
    Layout y{w, h, 1, SampleType::U8, {8, 0}, 0x1, true};
    Layout uv{w / 2, h / 2, 2, SampleType::U8, {8, 0}, 0x3, false};
    uv.component = {{1, 2, 0, 0}};
    return {"NV12", {y, uv}};
}

// GStreamer: YUY2 Y0 U Y1 V (offsets 0, 1, 3), UYVY U Y0 V Y1 (offsets 1, 0, 2); pixel stride 2 for Y, 4 for U, V.
Format packed422(const char* name, int w, int h, int lumaChannel) {
    Layout p{w / 2, h, 4, SampleType::U8, {8, 0}, 0xF, true};
    p.pairsWidth = w;
    p.pairsLumaChannel = lumaChannel;
    p.component = lumaChannel == 0 ? std::array<int, 4>{{0, 1, 0, 2}} : std::array<int, 4>{{1, 0, 2, 0}};
    return {name, {p}};
}

Format p010(int w, int h) {
    Layout y{w, h, 1, SampleType::U16, {10, 6}, 0x1, true};
    Layout uv{w / 2, h / 2, 2, SampleType::U16, {10, 6}, 0x3, false};
    uv.component = {{1, 2, 0, 0}};
    return {"P010_10LE", {y, uv}};
}

Format gray16(int w, int h) {
    Layout y{w, h, 1, SampleType::U16, {16, 0}, 0x1, true, /*yuv=*/false};
    return {"GRAY16_LE", {y}};
}

// The Y/chroma pairs of a packed 4:2:2 plane view (as plugin/base/planelayout.cpp lumaPairs()).
ImageView lumaPairs(const ImageView& plane, const Layout& layout) {
    ImageView pairs = plane;
    pairs.width = layout.pairsWidth;
    pairs.channels = 2;
    return pairs;
}

// ---------------------------------------------------------------------------------------------------------------
// Frames

struct Plane {
    DeviceBuffer buffer;
    ImageView view;
};

Plane makePlane(const Layout& l) {
    Plane p;
    const std::size_t pitch = (l.rowBytes() + 511) / 512 * 512;  // as cudaMallocPitch
    p.buffer.reserve(pitch * l.height);
    p.view = ImageView{p.buffer.data(), l.width, l.height, pitch, l.type, l.channels};
    return p;
}

struct HostPlane {
    std::vector<std::uint8_t> bytes;
    ImageView view;  // rows packed
};

HostPlane makeHostPlane(const Layout& l, std::uint8_t fill) {
    HostPlane p;
    p.bytes.assign(l.bytes(), fill);
    p.view = ImageView{p.bytes.data(), l.width, l.height, l.rowBytes(), l.type, l.channels};
    return p;
}

using DeviceFrame = std::vector<Plane>;
using HostFrame = std::vector<HostPlane>;

std::vector<ImageView> views(const DeviceFrame& f) {
    std::vector<ImageView> v;
    for (const Plane& p : f) v.push_back(p.view);
    return v;
}
std::vector<ImageView> views(const HostFrame& f) {
    std::vector<ImageView> v;
    for (const HostPlane& p : f) v.push_back(p.view);
    return v;
}

// Smooth blobs plus noise in [0, 1], different per frame (seed) and component: sin(x)·cos(y) tabulated per row and
// column, noise from xorshift32.
class Field {
public:
    Field(std::uint32_t seed, int component, int width, int height) : state_(seed * 2654435761u + component * 97u + 1u) {
        const double fx = 0.003 + 0.002 * ((seed + component) % 5), fy = 0.004 + 0.001 * ((seed + 3 * component) % 7);
        sx_.resize(std::size_t(width));
        cy_.resize(std::size_t(height));
        for (int x = 0; x < width; ++x) sx_[std::size_t(x)] = std::sin(x * fx + seed + component);
        for (int y = 0; y < height; ++y) cy_[std::size_t(y)] = std::cos(y * fy + component);
    }
    double at(int x, int y) {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 17;
        state_ ^= state_ << 5;
        const double noise = (double(state_ % 1001) / 1000.0 - 0.5) * 0.3;
        return std::clamp(0.45 + 0.28 * sx_[std::size_t(x)] * cy_[std::size_t(y)] + noise, 0.0, 1.0);
    }

private:
    std::uint32_t state_;
    std::vector<double> sx_, cy_;
};

// A frame of `format`: every sample a level in [1, max level] of its depth, stored at its shift (never 0).
HostFrame makeHostFrame(const Format& format, std::uint32_t seed) {
    HostFrame frame;
    for (const Layout& l : format.planes) {
        HostPlane hp = makeHostPlane(l, 0);
        const int lumaWidth = l.packed422() ? l.pairsWidth : l.width;
        Field fields[3] = {Field(seed, 0, lumaWidth, l.height), Field(seed, 1, l.width, l.height),
                           Field(seed, 2, l.width, l.height)};
        const SampleBits bits = resolveBits(l.type, l.bits);
        const int top = maxLevel(bits);
        for (int y = 0; y < l.height; ++y) {
            std::uint8_t* row = hp.view.row<std::uint8_t>(y);
            for (int x = 0; x < l.width; ++x)
                for (int c = 0; c < l.channels; ++c) {
                    const int comp = l.component[std::size_t(c)];
                    const int fx = l.packed422() && comp == 0 ? 2 * x + (c == l.pairsLumaChannel + 2) : x;
                    const int level = std::max(1, int(std::lround(fields[comp].at(fx, y) * top)));
                    const unsigned v = unsigned(level) << bits.shift;
                    const std::size_t i = std::size_t(x) * l.channels + c;
                    if (l.type == SampleType::U8) {
                        row[i] = std::uint8_t(v);
                    } else {
                        row[2 * i] = std::uint8_t(v & 0xFF);
                        row[2 * i + 1] = std::uint8_t(v >> 8);
                    }
                }
        }
        frame.push_back(std::move(hp));
    }
    return frame;
}

DeviceFrame upload(const Format& format, const HostFrame& host) {
    DeviceFrame frame;
    for (std::size_t p = 0; p < format.planes.size(); ++p) {
        frame.push_back(makePlane(format.planes[p]));
        const ImageView& d = frame.back().view;
        const ImageView& h = host[p].view;
        CUDAFILTERS_CHECK(cudaMemcpy2D(d.data, d.pitch, h.data, h.pitch, h.rowBytes(), h.height, cudaMemcpyHostToDevice));
    }
    return frame;
}

std::vector<std::uint8_t> download(const ImageView& v) {
    std::vector<std::uint8_t> host(v.rowBytes() * v.height);
    CUDAFILTERS_CHECK(cudaMemcpy2D(host.data(), v.rowBytes(), v.data, v.pitch, v.rowBytes(), v.height,
                                   cudaMemcpyDeviceToHost));
    return host;
}

// ---------------------------------------------------------------------------------------------------------------
// The work of one element on one format: the engine calls on the GPU (`timed`, Backend::Cuda here), the same calls
// on the checking backend.

using Calls = std::function<void(const std::vector<ImageView>& src, const std::vector<ImageView>& dst, GpuStream)>;

struct Work {
    Calls gpu;
    Calls check;
    std::vector<bool> written;  // planes the calls write (the others are not compared)
    double bytes = 0;           // moved per frame (see the header)
    std::string calls;          // what runs per frame, for the table of calls
};

// planes=all, output=same: as make_passes() in plugin/elements/gstcudaconvolve.cpp.
struct ConvolvePass {
    int plane = 0;
    bool pairs = false;
    ConvolvePlan plan;
};

std::vector<ConvolvePass> makePasses(const Format& format, const ConvolveDesc& desc) {
    std::vector<ConvolvePass> passes;
    for (std::size_t p = 0; p < format.planes.size(); ++p) {
        const Layout& plane = format.planes[p];
        ConvolveDesc planeDesc = desc;
        if (plane.packed422()) {
            planeDesc.channelMask = 1u << plane.pairsLumaChannel;
            passes.push_back({int(p), true, ConvolvePlan::make(planeDesc, plane.type, 2, plane.bits)});
            planeDesc.channelMask = plane.chromaMask();
            planeDesc.copyMask = 0;
            passes.push_back({int(p), false, ConvolvePlan::make(planeDesc, plane.type, plane.channels, plane.bits)});
            continue;
        }
        if (plane.colorMask == 0) continue;  // planes=all: every plane filtered
        planeDesc.channelMask = plane.colorMask;
        passes.push_back({int(p), false, ConvolvePlan::make(planeDesc, plane.type, plane.channels, plane.bits)});
    }
    return passes;
}

int popcount(unsigned v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
}

std::string channelsText(int channels, SampleType type) {
    return std::to_string(channels) + "ch " + sampleTypeName(type);
}

// The passes of each plane filtered, in pass order (as ConvolveWork's parts).
std::vector<std::vector<std::size_t>> partsByPlane(const std::vector<ConvolvePass>& passes, std::size_t planes) {
    std::vector<std::vector<std::size_t>> parts;
    std::vector<int> partOfPlane(planes, -1);
    for (std::size_t k = 0; k < passes.size(); ++k) {
        int& part = partOfPlane[std::size_t(passes[k].plane)];
        if (part < 0) {
            part = int(parts.size());
            parts.emplace_back();
        }
        parts[std::size_t(part)].push_back(k);
    }
    return parts;
}

// The side streams of CudaExecutor::processParts (plugin/executors/cudaexecutor.cpp): part k > 0 on side k − 1, forked after
// what the frame's stream has enqueued and joined into it.
struct PartStreams {
    Event fork = Event::create();
    std::vector<Stream> sides;
    std::vector<Event> joins;
};

// planesInTurn: every pass on the frame's stream, one after the other (the executor before parts).
Work convolveWork(const Format& format, const ConvolveDesc& desc, Backend timed, reference::Impl check,
                  bool planesInTurn = false) {
    const std::vector<ConvolvePass> passes = makePasses(format, desc);
    const auto parts = partsByPlane(passes, format.planes.size());
    auto gpu = std::make_shared<std::vector<std::unique_ptr<Convolver>>>();
    auto cpu = std::make_shared<std::vector<std::unique_ptr<Convolver>>>();
    Work work;
    work.written.assign(format.planes.size(), false);
    for (const ConvolvePass& pass : passes) {
        const Layout& l = format.planes[std::size_t(pass.plane)];
        const int w = pass.pairs ? l.pairsWidth : l.width;
        gpu->push_back(makeConvolver(pass.plan, timed));
        gpu->back()->prepare(w, l.height);  // as ConvolveWork's constructor
        cpu->push_back(reference::makeConvolver(pass.plan, check));
        work.written[std::size_t(pass.plane)] = true;
        const double viewBytes = double(w) * pass.plan.inputChannels * sampleSize(l.type) * l.height;
        const unsigned writes = pass.plan.channelMask | pass.plan.copyMask;
        work.bytes += viewBytes + viewBytes * popcount(writes) / pass.plan.inputChannels;
        char mask[16];
        std::snprintf(mask, sizeof mask, "0x%X/0x%X", pass.plan.channelMask, pass.plan.copyMask);
        work.calls += std::string(work.calls.empty() ? "" : " + ") + "plane " + std::to_string(pass.plane) +
                      (pass.pairs ? " pairs " : " ") + std::to_string(w) + "x" + std::to_string(l.height) + " " +
                      channelsText(pass.plan.inputChannels, l.type) + " mask/copy " + mask + " (" +
                      cuda_detail::pathName(pass.plan, w, l.height) + ")";
    }
    auto runPart = [passes, parts, format](std::vector<std::unique_ptr<Convolver>>& convolvers, std::size_t part,
                                           const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                                           GpuStream stream) {
        for (std::size_t k : parts[part]) {  // as ConvolveWork::processPart
            const ConvolvePass& pass = passes[k];
            const std::size_t p = std::size_t(pass.plane);
            if (pass.pairs)
                convolvers[k]->process(lumaPairs(src[p], format.planes[p]), lumaPairs(dst[p], format.planes[p]), stream);
            else
                convolvers[k]->process(src[p], dst[p], stream);
        }
    };
    auto streams = std::make_shared<PartStreams>();
    for (std::size_t k = 1; k < parts.size(); ++k) {
        streams->sides.push_back(Stream::create());
        streams->joins.push_back(Event::create());
    }
    work.gpu = [runPart, gpu, streams, planesInTurn, n = parts.size()](const std::vector<ImageView>& s,
                                                                        const std::vector<ImageView>& d, GpuStream st) {
        const cudaStream_t stream = reinterpret_cast<cudaStream_t>(st);
        if (planesInTurn || n == 1) {
            for (std::size_t part = 0; part < n; ++part) runPart(*gpu, part, s, d, st);
            return;
        }
        CUDAFILTERS_CHECK(cudaEventRecord(streams->fork.get(), stream));
        for (std::size_t part = 1; part < n; ++part) {
            cudaStream_t side = streams->sides[part - 1].get();
            CUDAFILTERS_CHECK(cudaStreamWaitEvent(side, streams->fork.get(), 0));
            runPart(*gpu, part, s, d, reinterpret_cast<GpuStream>(side));
            CUDAFILTERS_CHECK(cudaEventRecord(streams->joins[part - 1].get(), side));
        }
        runPart(*gpu, 0, s, d, st);
        for (std::size_t part = 1; part < n; ++part)
            CUDAFILTERS_CHECK(cudaStreamWaitEvent(stream, streams->joins[part - 1].get(), 0));
    };
    work.check = [runPart, cpu, n = parts.size()](const std::vector<ImageView>& s, const std::vector<ImageView>& d,
                                                   GpuStream) {
        for (std::size_t part = 0; part < n; ++part) runPart(*cpu, part, s, d, nullptr);
    };
    if (!planesInTurn && parts.size() > 1) work.calls += ", planes on streams of their own";
    return work;
}

// As gst_cuda_histeq_make_work (plugin/elements/gstcudahisteq.cpp) and HistEqWork::process: plane 0 only.
Work histeqWork(const Format& format, EqualizeDesc desc, Backend timed, reference::Impl check) {
    const Layout l = format.planes[0];
    desc.tilesX = std::min(desc.tilesX, l.packed422() ? l.pairsWidth : l.width);
    desc.tilesY = std::min(desc.tilesY, l.height);
    const int channels = l.packed422() ? 2 : 1;
    const EqualizePlan plan =
        EqualizePlan::make(desc, l.type, channels, ChannelOrder{}, channels == 1 ? l.bits : SampleBits{}, l.pairsLumaChannel);
    std::shared_ptr<Equalizer> gpu = makeEqualizer(plan, timed);
    std::shared_ptr<Equalizer> cpu = reference::makeEqualizer(plan, check);
    Work work;
    work.written.assign(format.planes.size(), false);
    work.written[0] = true;
    const int w = l.packed422() ? l.pairsWidth : l.width;
    work.bytes = 2.0 * double(l.bytes());
    work.calls = "plane 0" + std::string(l.packed422() ? " pairs " : " ") + std::to_string(w) + "x" +
                 std::to_string(l.height) + " " + channelsText(channels, l.type) + ", " + std::to_string(plan.bins()) +
                 " bins, " + std::to_string(plan.tilesX) + "x" + std::to_string(plan.tilesY) + " tiles";
    auto view = [l](const ImageView& v) { return l.packed422() ? lumaPairs(v, l) : v; };
    work.gpu = [gpu, view](const std::vector<ImageView>& s, const std::vector<ImageView>& d, GpuStream st) {
        gpu->process(view(s[0]), view(d[0]), st);
    };
    work.check = [cpu, view](const std::vector<ImageView>& s, const std::vector<ImageView>& d, GpuStream) {
        cpu->process(view(s[0]), view(d[0]), nullptr);
    };
    return work;
}

// The planes the work does not write copied from the input, as the CUDA executor does for frames in CUDA memory
// (copyDevicePlane on the frame's stream).
Work withPlaneCopies(Work work, const Format& format) {
    for (std::size_t p = 0; p < format.planes.size(); ++p)
        if (!work.written[p]) {
            work.bytes += 2.0 * double(format.planes[p].bytes());
            work.calls += " + copy of plane " + std::to_string(p) + " (copyDevicePlane)";
        }
    const std::vector<bool> written = work.written;
    Calls gpu = work.gpu, check = work.check;
    work.gpu = [gpu, written](const std::vector<ImageView>& s, const std::vector<ImageView>& d, GpuStream st) {
        gpu(s, d, st);
        for (std::size_t p = 0; p < written.size(); ++p)
            if (!written[p])
                copyDevicePlane(s[p], d[p], st);
    };
    work.check = [check, written](const std::vector<ImageView>& s, const std::vector<ImageView>& d, GpuStream st) {
        check(s, d, st);
        for (std::size_t p = 0; p < written.size(); ++p)
            if (!written[p])
                for (int y = 0; y < s[p].height; ++y)
                    std::memcpy(d[p].row<std::uint8_t>(y), s[p].row<const std::uint8_t>(y), s[p].rowBytes());
    };
    work.written.assign(format.planes.size(), true);
    return work;
}

// ---------------------------------------------------------------------------------------------------------------
// Checking and timing

int sampleAt(const std::vector<std::uint8_t>& bytes, SampleType type, std::size_t i) {
    if (type == SampleType::U8) return bytes[i];
    return bytes[2 * i] | bytes[2 * i + 1] << 8;
}

// Runs the work on frame 0 over device outputs poisoned with two bytes and compares the planes it writes with the
// checking backend's result. Returns an empty string when every sample agrees, else what differs.
std::string verify(const Format& format, const Work& work, const DeviceFrame& in, const HostFrame& hostIn,
                   const DeviceFrame& out, cudaStream_t stream) {
    HostFrame expected;
    for (const Layout& l : format.planes) expected.push_back(makeHostPlane(l, 0x5A));
    work.check(views(hostIn), views(expected), nullptr);
    for (std::uint8_t poison : {std::uint8_t(0x5A), std::uint8_t(0xA5)}) {
        for (const Plane& p : out)
            CUDAFILTERS_CHECK(cudaMemset2DAsync(p.view.data, p.view.pitch, poison, p.view.rowBytes(), p.view.height,
                                                stream));
        work.gpu(views(in), views(out), reinterpret_cast<GpuStream>(stream));
        CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));
        for (std::size_t p = 0; p < format.planes.size(); ++p) {
            if (!work.written[p]) continue;
            const Layout& l = format.planes[p];
            const std::vector<std::uint8_t> got = download(out[p].view);
            const std::vector<std::uint8_t>& want = expected[p].bytes;
            const std::size_t samples = std::size_t(l.width) * l.channels * l.height;
            std::size_t differing = 0, first = 0;
            for (std::size_t i = 0; i < samples; ++i)
                if (sampleAt(got, l.type, i) != sampleAt(want, l.type, i) && differing++ == 0) first = i;
            if (differing) {
                const std::size_t pixel = first / l.channels;
                char buf[256];
                std::snprintf(buf, sizeof buf,
                              "%zu of %zu samples of plane %zu differ (poison 0x%02X); first at (%zu, %zu) channel "
                              "%zu: got %d, expected %d",
                              differing, samples, p, poison, pixel % std::size_t(l.width), pixel / std::size_t(l.width),
                              first % std::size_t(l.channels), sampleAt(got, l.type, first),
                              sampleAt(want, l.type, first));
                return buf;
            }
        }
    }
    return {};
}

using Timing = benchcommon::KernelTiming;

Timing medianMicros(const std::function<void(int)>& frame, int frames, const Options& opt, cudaStream_t s) {
    return benchcommon::medianKernelMicros(frame, frames, opt.runs, 10, s);
}

struct Row {
    std::string filter, size, format, reference;
    Timing t;
    double bytes = 0;
    std::string calls;
};

std::string fixed(double v, int prec) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

// The frames of one format at one size, uploaded once and shared by the filters.
struct Frames {
    Format format;
    std::vector<HostFrame> host;
    std::vector<DeviceFrame> in;
    DeviceFrame out;
};

Frames makeFrames(Format format, int count) {
    Frames f;
    f.format = std::move(format);
    for (int i = 0; i < count; ++i) {
        f.host.push_back(makeHostFrame(f.format, 17u + std::uint32_t(i)));
        f.in.push_back(upload(f.format, f.host.back()));
    }
    for (const Layout& l : f.format.planes) f.out.push_back(makePlane(l));
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        int w = 0, h = 0;
        if (a == "--runs" && i + 1 < argc) opt.runs = std::max(5, std::atoi(argv[++i]));
        else if (a == "--frames" && i + 1 < argc) opt.frames = std::max(1, std::atoi(argv[++i]));
        else if (a == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &w, &h) == 2 && w >= 16 && h >= 16 &&
                 w % 2 == 0 && h % 2 == 0)
            opt.sizes.emplace_back(w, h);
        else if (a == "--check" && i + 1 < argc && (!std::strcmp(argv[i + 1], "cpu") || !std::strcmp(argv[i + 1], "reference")))
            opt.check = !std::strcmp(argv[++i], "cpu") ? reference::Impl::Cpu : reference::Impl::Reference;
        else {
            std::fprintf(stderr, "usage: %s [--runs N] [--frames N] [--size WxH (even, >= 16)]... [--check cpu|reference]\n",
                         argv[0]);
            return 2;
        }
    }
    if (opt.sizes.empty()) opt.sizes = {{3840, 2160}, {1920, 1080}};

    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "bench-formats: no usable CUDA device (%s): nothing measured; run it on the GPU host\n",
                     status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
        return 1;
    }

    try {
        std::printf("device: %s\n", cudaDeviceDescription(0).c_str());
        std::printf("median of %d runs after warm-up, %d rotating random frames in device memory, checked against the "
                    "%s backend\n\n",
                    opt.runs, opt.frames, reference::implName(opt.check));
        Stream stream = Stream::create();
        const cudaStream_t s = stream.get();

        // cudaconvolve preset=gaussian size=5 planes=all, the other properties at their defaults (describe()).
        ConvolveDesc gaussian = presetDesc(Preset::Gaussian, 5, 0.0);
        gaussian.bias = 0;
        gaussian.border = Border::Reflect101;
        gaussian.borderValue = 0;
        gaussian.algorithm = ConvolveAlgorithm::Auto;
        // cudahisteq mode=clahe, the other properties at their defaults (describe()).
        EqualizeDesc clahe;
        clahe.mode = EqualizeMode::Clahe;
        clahe.clipLimit = 2.0;
        clahe.tilesX = clahe.tilesY = 8;
        clahe.smoothing = 0.0;
        clahe.statistics = false;

        std::vector<Row> rows;
        for (auto [w, h] : opt.sizes) {
            const std::string size = std::to_string(w) + "x" + std::to_string(h);
            std::vector<Frames> frames;
            for (Format f : {nv12(w, h), packed422("YUY2", w, h, 0), packed422("UYVY", w, h, 1), p010(w, h), gray16(w, h)})
                frames.push_back(makeFrames(std::move(f), opt.frames));
            auto of = [&](const char* name) -> Frames& {
                for (Frames& f : frames)
                    if (f.format.name == name) return f;
                throw std::logic_error(name);
            };

            struct Case {
                const char* filter;
                const char* format;
                const char* reference;
                std::function<Work(const Format&)> make;
                bool planeCopies;
            };
            auto conv = [&](const Format& f) { return convolveWork(f, gaussian, Backend::Cuda, opt.check); };
            auto convInTurn = [&](const Format& f) {
                return convolveWork(f, gaussian, Backend::Cuda, opt.check, /*planesInTurn=*/true);
            };
            auto heq = [&](const Format& f) { return histeqWork(f, clahe, Backend::Cuda, opt.check); };
            const Case cases[] = {
                {"convolve gaussian 5 planes=all", "NV12", "NV12", conv, false},
                {"convolve gaussian 5 planes=all, planes in turn", "NV12", "NV12", convInTurn, false},
                {"convolve gaussian 5 planes=all", "YUY2", "NV12", conv, false},
                {"convolve gaussian 5 planes=all", "UYVY", "NV12", conv, false},
                {"histeq clahe", "NV12", "NV12", heq, false},
                {"histeq clahe", "NV12", "NV12", heq, true},
                {"histeq clahe", "YUY2", "NV12", heq, false},
                {"histeq clahe", "UYVY", "NV12", heq, false},
                {"histeq clahe", "GRAY16_LE", "GRAY16_LE", heq, false},
                {"histeq clahe", "P010_10LE", "GRAY16_LE", heq, false},
                {"histeq clahe", "P010_10LE", "GRAY16_LE", heq, true},
            };
            for (const Case& c : cases) {
                Frames& f = of(c.format);
                Work work = c.make(f.format);
                if (c.planeCopies) work = withPlaneCopies(std::move(work), f.format);
                const std::string format = f.format.name + (c.planeCopies ? " + UV copy" : "");
                const std::string failure = verify(f.format, work, f.in[0], f.host[0], f.out, s);
                if (!failure.empty()) {
                    std::fprintf(stderr, "FAILED: %s %s %s against the %s backend: %s\n", c.filter, size.c_str(),
                                 format.c_str(), reference::implName(opt.check), failure.c_str());
                    return 1;
                }
                const std::vector<ImageView> out = views(f.out);
                std::vector<std::vector<ImageView>> in;
                for (const DeviceFrame& d : f.in) in.push_back(views(d));
                const Timing t = medianMicros(
                    [&](int k) { work.gpu(in[std::size_t(k)], out, reinterpret_cast<GpuStream>(s)); }, opt.frames, opt, s);
                std::printf("checked: %s %s %s: 0 differing samples; %.1f us\n", c.filter, size.c_str(), format.c_str(),
                            t.gpu);
                std::fflush(stdout);
                rows.push_back({c.filter, size, format, c.reference, t, work.bytes, work.calls});
            }
        }

        std::printf("\n| case | size | format | us/frame | bytes moved/frame (MB) | GB/s | ratio to reference | "
                    "us idle (launches incl.) |\n|---|---|---|---|---|---|---|---|\n");
        for (const Row& r : rows) {
            const Row* ref = nullptr;
            for (const Row& q : rows)
                if (q.filter == r.filter && q.size == r.size && q.format == r.reference) ref = &q;
            const std::string ratio =
                ref ? fixed(r.t.gpu / ref->t.gpu, 2) + " (vs " + r.reference + ")" : std::string("-");
            std::printf("| %s | %s | %s | %.1f | %.2f | %.1f | %s | %.1f |\n", r.filter.c_str(), r.size.c_str(),
                        r.format.c_str(), r.t.gpu, r.bytes / 1e6, r.bytes / (r.t.gpu * 1e3), ratio.c_str(), r.t.launch);
        }
        std::printf("\nengine calls per frame (path: the CUDA convolver's kernel path for that view)\n\n"
                    "| case | size | format | calls |\n|---|---|---|---|\n");
        for (const Row& r : rows)
            std::printf("| %s | %s | %s | %s |\n", r.filter.c_str(), r.size.c_str(), r.format.c_str(), r.calls.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench-formats: %s\n", e.what());
        return 1;
    }
    return 0;
}
