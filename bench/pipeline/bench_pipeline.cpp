// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipeline benchmark: what users get through gst_parse_launch, beside what the hardware allows in the same run.
// For 4K RGBA Gaussian 5x5 (cudaconvolve), 1080p and 4K NV12 CLAHE (cudahisteq) and 1080p GRAY8 Gaussian 5x5 (a
// format nvcodec's cudaupload does not take: our identity preset uploads its resident frame), each case runs a real pipeline to
// `fakesink sync=false` and counts frames at the sink over >= --seconds after a warm-up (the videotestsrc rows: median
// of three interleaved runs), next to an `identity`
// baseline with the same source and the PCIe bounds measured here (upload alone; upload || download, pinned).
// Sources: (a) videotestsrc, which writes into the pool the element proposes; (b) pageable frames that upstream
// recycles: appsrc pushing a ring of 4 malloc'd frames, and imagefreeze; (c) a chain cudahisteq ! cudaconvolve !
// cudaconvolve in system memory and in CUDA memory; (d) with --clip, H.264 decoded on the GPU by nvh264dec, with and
// without cudaconvolve. NVIDIA's cudaupload/cudadownload (nvcodec) are measured when present. Last, 4K YUY2 and P010
// (camera and 10-bit decoder formats) against NV12 and GRAY16 through the same appsrc ring.
//
//   GST_PLUGIN_PATH=build/plugin bench-pipeline [--seconds S] [--clip file.h264] [--only SUBSTRING] [--filter DESC]
//   --filter: the 4K RGBA rows test DESC (e.g. "cudaconvolve preset=gaussian size=31") instead of the Gaussian 5x5;
//   the bars, which are the Gaussian 5x5's, are then not read off.
//   GST_PLUGIN_PATH=build/plugin bench-pipeline [--seconds S] [--repeat N] --pipeline 'DESC ! fakesink name=sink …' …:
//   only the pipelines given (each N times, in turn), their frame rate at the element named "sink".
//   GST_PLUGIN_PATH=build/plugin bench-pipeline [--seconds S] [--repeat N] --per-device --pipeline 'DESC {device}' …:
//   each pipeline on device 0 alone, then one a device ({device} replaced by its ordinal) at once in this process.
#include "pcie_bound.hpp"

#include <cudafilters/device.hpp>

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Format {
    const char* name;    // "4K RGBA"
    const char* caps;    // raw caps without features
    const char* filter;  // the element under test
    std::size_t frameBytes;
    bool cudaUploadTakes = true;  // nvcodec's cudaupload (GStreamer 1.22) takes the format
};

// A ring of 4 frames in ordinary malloc'd memory, pushed again and again as new buffers sharing the same memory (as
// an application recycling its own frames does).
struct Ring {
    std::vector<void*> frames;
    std::vector<GstMemory*> memories;
    guint64 pushed = 0;
    GstClockTime duration = GST_SECOND / 30;
    bool freshMemory = false;  // a new GstMemory around the same frame each time: never seen twice, so copied

    explicit Ring(std::size_t bytes, bool fresh = false) : freshMemory(fresh) {
        std::mt19937 rng(7);
        for (int i = 0; i < 4; ++i) {
            void* data = std::malloc(bytes);
            auto* words = static_cast<std::uint32_t*>(data);
            for (std::size_t k = 0; k < bytes / 4; ++k) words[k] = rng();  // never time on zeros
            frames.push_back(data);
            memories.push_back(gst_memory_new_wrapped(GstMemoryFlags(0), data, bytes, 0, bytes, nullptr, nullptr));
        }
    }
    ~Ring() {
        for (GstMemory* m : memories) gst_memory_unref(m);
        for (void* f : frames) std::free(f);
    }
    static void needData(GstAppSrc* src, guint, gpointer user) {
        auto* ring = static_cast<Ring*>(user);
        GstBuffer* buffer = gst_buffer_new();
        const std::size_t k = ring->pushed % ring->memories.size();
        GstMemory* mem = ring->memories[k];
        gst_buffer_append_memory(buffer, ring->freshMemory ? gst_memory_new_wrapped(GstMemoryFlags(0), ring->frames[k], mem->size,
                                                                                    0, mem->size, nullptr, nullptr)
                                                           : gst_memory_ref(mem));
        GST_BUFFER_PTS(buffer) = ring->pushed * ring->duration;
        GST_BUFFER_DURATION(buffer) = ring->duration;
        ++ring->pushed;
        gst_app_src_push_buffer(src, buffer);
    }
};

struct Outcome {
    double fps = 0;
    long frames = 0;
    std::string error;
    double registeredMB = 0, pinnedMB = 0;
};

GstPadProbeReturn countFrame(GstPad*, GstPadProbeInfo* info, gpointer user) {
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) static_cast<std::atomic<long>*>(user)->fetch_add(1);
    return GST_PAD_PROBE_OK;
}

void allocatorGauges(double& registeredMB, double& pinnedMB) {
    registeredMB = pinnedMB = -1;
    GstAllocator* allocator = gst_allocator_find("CudaFiltersPinnedMemory");
    if (!allocator) return;
    guint64 registered = 0, pinned = 0;
    g_object_get(allocator, "registered-bytes", &registered, "pinned-bytes", &pinned, nullptr);
    registeredMB = double(registered) / 1e6;
    pinnedMB = double(pinned) / 1e6;
    gst_object_unref(allocator);
}

// Runs `launch` (its sink must be named "sink"; an appsrc named "src" is fed from `ring`) and measures the frame rate
// at the sink over `budget` seconds after `warmup` seconds, or up to EOS.
Outcome measure(const std::string& launch, Ring* ring, double warmup, double budget) {
    Outcome out;
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(launch.c_str(), &error);
    if (!pipeline || error) {
        out.error = error ? error->message : "could not parse";
        if (error) g_error_free(error);
        if (pipeline) gst_object_unref(pipeline);
        return out;
    }
    std::atomic<long> frames{0};
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad* pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, countFrame, &frames, nullptr);
    gst_object_unref(pad);
    gst_object_unref(sink);
    if (GstElement* src = ring ? gst_bin_get_by_name(GST_BIN(pipeline), "src") : nullptr) {
        ring->pushed = 0;
        g_signal_connect(src, "need-data", G_CALLBACK(Ring::needData), ring);
        gst_object_unref(src);
    }
    GstBus* bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    const auto start = Clock::now();
    Clock::time_point t0{};
    long f0 = 0;
    bool measuring = false, ended = false;
    while (true) {
        GstMessage* msg = gst_bus_timed_pop_filtered(bus, 20 * GST_MSECOND,
                                                     GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
        if (msg) {
            if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
                GError* err = nullptr;
                gchar* debug = nullptr;
                gst_message_parse_error(msg, &err, &debug);
                out.error = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(msg))) + ": " + err->message;
                g_error_free(err);
                g_free(debug);
            }
            ended = true;
            gst_message_unref(msg);
        }
        const auto now = Clock::now();
        if (!measuring && (seconds(now - start) >= warmup || ended)) {
            measuring = true;
            t0 = now;
            f0 = frames.load();
        }
        if (ended || (measuring && seconds(now - t0) >= budget)) {
            out.frames = frames.load() - f0;
            const double elapsed = seconds(now - t0);
            out.fps = elapsed > 0 ? double(out.frames) / elapsed : 0;
            break;
        }
        if (seconds(now - start) > warmup + budget + 60) {
            out.error = "timed out";
            break;
        }
    }
    allocatorGauges(out.registeredMB, out.pinnedMB);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    return out;
}

bool haveElement(const char* name) {
    GstElementFactory* f = gst_element_factory_find(name);
    if (f) gst_object_unref(f);
    return f != nullptr;
}

// The largest value cudaconvolve's pipeline-depth property takes.
int maxPipelineDepth() {
    GstElement* element = gst_element_factory_make("cudaconvolve", nullptr);
    if (element == nullptr) return 1;
    gst_object_ref_sink(element);
    const GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "pipeline-depth");
    const int deepest = spec != nullptr && G_IS_PARAM_SPEC_INT(spec) ? G_PARAM_SPEC_INT(spec)->maximum : 1;
    gst_object_unref(element);
    return deepest;
}

// `launch` with every "{device}" replaced by `device`.
std::string onDevice(std::string launch, int device) {
    const std::string key = "{device}";
    for (std::size_t at = launch.find(key); at != std::string::npos; at = launch.find(key, at))
        launch.replace(at, key.size(), std::to_string(device));
    return launch;
}

// --per-device: each given pipeline (its "{device}" standing for a device ordinal) on device 0 alone, then one copy a
// device, all in this process at once, each from its own thread; the frame rate of each and in all.
int measurePerDevice(const std::vector<std::string>& given, int repeat, double budget) {
    const int devices = cudafilters::cudaDeviceCount();
    if (given.empty() || devices < 1) {
        std::fprintf(stderr, "--per-device needs --pipeline DESC (with {device}) and a CUDA device\n");
        return 1;
    }
    std::printf("%d devices; %s\n\n| pipeline | run | devices at once | fps a device | fps in all | vs one |\n"
                "|---|---|---|---|---|---|\n",
                devices, cudafilters::cudaDeviceDescription(0).c_str());
    bool failed = false;
    for (int r = 1; r <= repeat; ++r)
        for (const std::string& launch : given) {
            double alone = 0;
            for (int n : {1, devices}) {
                std::vector<Outcome> outcomes(static_cast<std::size_t>(n));
                std::vector<std::thread> threads;
                for (int d = 0; d < n; ++d)
                    threads.emplace_back([&, d] {
                        outcomes[std::size_t(d)] = measure(onDevice(launch, d), nullptr, 0.7, budget);
                    });
                for (std::thread& t : threads) t.join();
                double total = 0;
                std::string each, errors;
                for (const Outcome& o : outcomes) {
                    total += o.fps;
                    each += (each.empty() ? "" : " / ") + std::to_string(long(o.fps + 0.5));
                    if (!o.error.empty()) errors += (errors.empty() ? "" : "; ") + o.error;
                }
                failed = failed || !errors.empty();
                if (n == 1) alone = total;
                std::printf("| `%s` | %d | %d | %s | %.0f | %.2f× |\n", launch.c_str(), r, n,
                            errors.empty() ? each.c_str() : errors.c_str(), total, alone > 0 ? total / alone : 0.0);
                std::fflush(stdout);
                if (devices == 1) break;
            }
        }
    return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    double budget = 2.0;
    std::string clip, only, rgbaFilter;
    std::vector<std::string> given;
    int repeat = 1;
    bool perDevice = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) budget = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--clip") && i + 1 < argc) clip = argv[++i];
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) rgbaFilter = argv[++i];
        else if (!std::strcmp(argv[i], "--pipeline") && i + 1 < argc) given.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--per-device")) perDevice = true;
    }
    if (perDevice) return measurePerDevice(given, repeat, budget);
    if (!given.empty()) {
        std::printf("| pipeline | run | fps | frames |\n|---|---|---|---|\n");
        bool failed = false;
        for (int r = 1; r <= repeat; ++r)
            for (const std::string& launch : given) {
                const Outcome o = measure(launch, nullptr, 0.7, budget);
                failed = failed || !o.error.empty();
                std::printf("| `%s` | %d | %s | %ld |\n", launch.c_str(), r,
                            o.error.empty() ? std::to_string(long(o.fps + 0.5)).c_str() : o.error.c_str(), o.frames);
                std::fflush(stdout);
            }
        return failed ? 1 : 0;
    }
    if (!haveElement("cudaconvolve")) {
        std::fprintf(stderr, "cudaconvolve not found: set GST_PLUGIN_PATH to the build's plugin folder\n");
        return 1;
    }
    const bool nvcodec = haveElement("cudaupload") && haveElement("cudadownload");
    const double warmup = 0.7;
    std::printf("# Pipeline benchmark (gst_parse_launch, fakesink sync=false, %.1f s after %.1f s warm-up)\n\n", budget,
                warmup);
    std::printf("Device: %s. nvcodec elements: %s.\n\n", cudafilters::cudaDeviceDescription(0).c_str(),
                nvcodec ? "yes" : "no");

    const std::string rgbaName = rgbaFilter.empty() ? "4K RGBA Gaussian 5x5" : "4K RGBA " + rgbaFilter;
    const Format formats[] = {
        {rgbaName.c_str(), "video/x-raw,format=RGBA,width=3840,height=2160,framerate=30/1",
         rgbaFilter.empty() ? "cudaconvolve preset=gaussian size=5" : rgbaFilter.c_str(), std::size_t(3840) * 2160 * 4},
        {"1080p NV12 CLAHE", "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1", "cudahisteq mode=clahe",
         std::size_t(1920) * 1080 * 3 / 2},
        {"4K NV12 CLAHE", "video/x-raw,format=NV12,width=3840,height=2160,framerate=30/1", "cudahisteq mode=clahe",
         std::size_t(3840) * 2160 * 3 / 2},
        {"1080p GRAY8 Gaussian 5x5", "video/x-raw,format=GRAY8,width=1920,height=1080,framerate=30/1",
         "cudaconvolve preset=gaussian size=5", std::size_t(1920) * 1080, false},
    };
    // Whether --only names a row (every row when it is not given).
    const auto named = [&](const std::string& key) { return only.empty() || key.find(only) != std::string::npos; };
    const std::string cudaCaps = " ! video/x-raw(memory:CUDAMemory) ! ";
    const std::string sysCaps = " ! video/x-raw(memory:SystemMemory) ! ";
    const std::string sink = " ! fakesink name=sink sync=false";
    std::map<std::string, double> fps;

    std::printf("| format | case | pipeline | fps | vs baseline | %% of PCIe bound | registered MB | pinned MB |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const Format& f : formats) {
        const std::string caps = std::string(" ! ") + f.caps;
        const std::string testsrc = "videotestsrc" + caps;
        const std::string freeze = "videotestsrc num-buffers=1" + caps + " ! imagefreeze";
        const std::string appsrc = std::string("appsrc name=src format=time max-buffers=4 caps=\"") + f.caps + "\"";
        const std::string filter = f.filter;
        const std::string chain = "cudahisteq ! cudaconvolve preset=gaussian size=5 ! cudaconvolve preset=sharpen";
        const std::string chainSys = "cudahisteq" + sysCaps + "cudaconvolve preset=gaussian size=5" + sysCaps +
                                     "cudaconvolve preset=sharpen";
        enum class Bound { None, Upload, Duplex };  // the PCIe bound a row's rate is compared with
        struct Row {
            std::string key, label, launch, baseline;
            Bound bound;
            bool fresh = false;
        };
        std::vector<Row> rows = {
            {"a-identity", "(a) videotestsrc ! identity", testsrc + " ! identity" + sink, "", Bound::None},
            {"a-filter", "(a) videotestsrc ! element", testsrc + " ! " + filter + sink, "a-identity", Bound::Duplex},
            {"a-queue-filter", "(a) videotestsrc ! queue ! element", testsrc + " ! queue ! " + filter + sink, "a-identity", Bound::Duplex},
            {"b-ring-identity", "(b) appsrc ring ! identity", appsrc + " ! identity" + sink, "", Bound::None},
            {"b-ring-filter", "(b) appsrc ring ! element", appsrc + " ! " + filter + sink, "b-ring-identity", Bound::Duplex},
            {"b-ring-filter-d1", "(b) … depth 1", appsrc + " ! " + filter + " pipeline-depth=1" + sink, "b-ring-identity", Bound::Duplex},
            {"b-ring-filter-d3", "(b) … depth 3", appsrc + " ! " + filter + " pipeline-depth=3" + sink, "b-ring-identity", Bound::Duplex},
            {"b-fresh-filter", "(b) appsrc, new GstMemory per frame (copied on 4 threads, not registered)", appsrc + " ! " + filter + sink, "b-ring-identity", Bound::Duplex, true},
            {"b-freeze-identity", "(b) imagefreeze ! identity", freeze + " ! identity" + sink, "", Bound::None},
            {"b-freeze-filter", "(b) imagefreeze ! element", freeze + " ! " + filter + sink, "b-freeze-identity", Bound::Duplex},
            {"b-freeze-filter-d1", "(b) … depth 1", freeze + " ! " + filter + " pipeline-depth=1" + sink, "b-freeze-identity", Bound::Duplex},
            {"b-freeze-filter-d3", "(b) … depth 3", freeze + " ! " + filter + " pipeline-depth=3" + sink, "b-freeze-identity", Bound::Duplex},
            {"c-one-cuda", "(c) one element, output in CUDA memory", appsrc + " ! " + filter + cudaCaps + "fakesink name=sink sync=false", "b-ring-identity", Bound::Upload},
            {"c-chain-cuda", "(c) chain of 3, CUDA memory between, output in CUDA memory", appsrc + " ! " + chain + cudaCaps + "fakesink name=sink sync=false", "c-one-cuda", Bound::Upload},
            {"c-chain-cuda-host", "(c) chain of 3, CUDA memory between, output in host memory", appsrc + " ! " + chain + sink, "b-ring-filter", Bound::Duplex},
            {"c-chain-sys", "(c) chain of 3, system memory between", appsrc + " ! " + chainSys + sink, "c-chain-cuda-host", Bound::Duplex},
        };
        const bool cudaUpload = nvcodec && f.cudaUploadTakes;
        if (cudaUpload) {
            rows.push_back({"n-updown", "nvcodec cudaupload ! cudadownload", appsrc + " ! cudaupload" + cudaCaps + "cudadownload" + sink, "b-ring-identity", Bound::Duplex});
            rows.push_back({"n-element", "nvcodec cudaupload ! element ! cudadownload", appsrc + " ! cudaupload" + cudaCaps + filter + cudaCaps + "cudadownload" + sink, "n-updown", Bound::Duplex});
        }
        {
            // Frames already on the GPU: one frame uploaded (by cudaupload, or by our identity preset for the formats
            // cudaupload does not take), then pushed again and again by imagefreeze in CUDA memory; the element writes
            // a new CUDA buffer per frame (its rate is the kernel's plus the element's).
            const std::string uploader = cudaUpload ? "cudaupload" : "cudaconvolve preset=identity";
            const std::string resident = "videotestsrc num-buffers=1" + caps + " ! " + uploader + cudaCaps + "imagefreeze";
            rows.push_back({"r-identity", "resident in CUDA memory: imagefreeze ! fakesink", resident + cudaCaps + "fakesink name=sink sync=false", "", Bound::None});
            rows.push_back({"r-element", "resident in CUDA memory: imagefreeze ! element ! CUDA memory", resident + " ! " + filter + cudaCaps + "fakesink name=sink sync=false", "r-identity", Bound::None});
            // The chain at kernel rates: between two of ours a frame leaves with a fence, not after a host wait, so
            // the chain's frame time should be the sum of its elements' (each measured alone here).
            rows.push_back({"r-histeq", "resident in CUDA memory: imagefreeze ! cudahisteq ! CUDA memory", resident + " ! cudahisteq" + cudaCaps + "fakesink name=sink sync=false", "r-identity", Bound::None});
            rows.push_back({"r-sharpen", "resident in CUDA memory: imagefreeze ! cudaconvolve preset=sharpen ! CUDA memory", resident + " ! cudaconvolve preset=sharpen" + cudaCaps + "fakesink name=sink sync=false", "r-identity", Bound::None});
            rows.push_back({"r-chain", "resident in CUDA memory: imagefreeze ! chain of 3 ! CUDA memory", resident + " ! " + chain + cudaCaps + "fakesink name=sink sync=false", "r-element", Bound::None});
            // Planar YUV with every plane filtered (each plane on a stream of its own), alone and after CLAHE.
            if (std::string(f.caps).find("NV12") != std::string::npos) {
                const std::string all = "cudaconvolve preset=gaussian size=5 planes=all";
                rows.push_back({"r-all", "resident in CUDA memory: imagefreeze ! " + all + " ! CUDA memory",
                                resident + " ! " + all + cudaCaps + "fakesink name=sink sync=false", "r-identity", Bound::None});
                rows.push_back({"r-clahe-all",
                                "resident in CUDA memory: imagefreeze ! cudahisteq mode=clahe ! " + all + " ! CUDA memory",
                                resident + " ! cudahisteq mode=clahe ! " + all + cudaCaps + "fakesink name=sink sync=false",
                                "r-identity", Bound::None});
            }
            // Other separable sizes: the register-window kernel at K = 3 (K = 5 is r-element), the interleaved
            // separable kernel at K = 7, the streaming separable kernel for colour from K = 15.
            for (int k : {3, 7, 15, 31})
                rows.push_back({"r-gauss" + std::to_string(k),
                                "resident in CUDA memory: imagefreeze ! cudaconvolve preset=gaussian size=" +
                                    std::to_string(k) + " ! CUDA memory",
                                resident + " ! cudaconvolve preset=gaussian size=" + std::to_string(k) + cudaCaps +
                                    "fakesink name=sink sync=false",
                                "r-identity", Bound::None});
            // Frames in flight at the smallest kernel: the default depth (2) beside 1, 3 and the most the property
            // takes (values past it would be refused with a warning and leave the default).
            const int deepest = std::max(maxPipelineDepth(), 3);
            for (int depth : deepest > 3 ? std::vector<int>{1, 3, deepest} : std::vector<int>{1, 3})
                rows.push_back({"r-gauss3-depth" + std::to_string(depth),
                                "resident in CUDA memory: imagefreeze ! cudaconvolve preset=gaussian size=3 "
                                "pipeline-depth=" + std::to_string(depth) + " ! CUDA memory",
                                resident + " ! cudaconvolve preset=gaussian size=3 pipeline-depth=" +
                                    std::to_string(depth) + cudaCaps + "fakesink name=sink sync=false",
                                "r-identity", Bound::None});
        }
        // Formats none of whose rows --only names are left out, their PCIe bounds too.
        const auto wanted = [&](const std::string& key) { return named(std::string(f.name) + "/" + key); };
        if (std::none_of(rows.begin(), rows.end(), [&](const Row& row) { return wanted(row.key); })) continue;
        const double upload = benchcommon::pcieFps(f.frameBytes, false, 1.0);
        const double duplex = benchcommon::pcieFps(f.frameBytes, true, 1.0);
        std::printf("| %s | PCIe upload bound (pinned) | cudaMemcpyAsync H2D | %.0f | - | 100 | - | - |\n", f.name, upload);
        std::printf("| %s | PCIe duplex bound (pinned) | H2D ‖ D2H on two streams | %.0f | - | 100 | - | - |\n", f.name,
                    duplex);
        const auto boundFps = [&](Bound bound) {
            return bound == Bound::Upload ? upload : bound == Bound::Duplex ? duplex : 0.0;
        };
        Ring ring(f.frameBytes);
        Ring freshRing(f.frameBytes, true);
        // The (a) rows are bound by videotestsrc's CPU time, which drifts from run to run: they are measured three
        // times, interleaved, and the median is kept.
        std::map<std::string, Outcome> interleaved;
        {
            std::map<std::string, std::vector<Outcome>> runs;
            for (int round = 0; round < 3; ++round)
                for (const Row& row : rows)
                    if (row.key.rfind("a-", 0) == 0 && wanted(row.key))
                        runs[row.key].push_back(measure(row.launch, &ring, warmup, budget));
            for (auto& [key, outcomes] : runs) {
                std::sort(outcomes.begin(), outcomes.end(), [](const Outcome& a, const Outcome& b) { return a.fps < b.fps; });
                interleaved[key] = outcomes[outcomes.size() / 2];
            }
        }
        for (const Row& row : rows) {
            const std::string key = std::string(f.name) + "/" + row.key;
            if (!wanted(row.key)) continue;
            const Outcome o = interleaved.count(row.key) ? interleaved[row.key]
                                                         : measure(row.launch, row.fresh ? &freshRing : &ring, warmup, budget);
            fps[key] = o.fps;
            std::string vs = "-";
            if (!row.baseline.empty() && fps.count(std::string(f.name) + "/" + row.baseline) &&
                fps[std::string(f.name) + "/" + row.baseline] > 0)
                vs = std::to_string(int(100 * o.fps / fps[std::string(f.name) + "/" + row.baseline] + 0.5)) + " % of " + row.baseline;
            const double rowBound = boundFps(row.bound);
            std::string bound = rowBound > 0 ? std::to_string(int(100 * o.fps / rowBound + 0.5)) : "-";
            if (!o.error.empty())
                std::printf("| %s | %s | `%s` | ERROR: %s | - | - | - | - |\n", f.name, row.label.c_str(), row.launch.c_str(),
                            o.error.c_str());
            else
                std::printf("| %s | %s | `%s` | %.0f | %s | %s | %.0f | %.0f |\n", f.name, row.label.c_str(),
                            row.launch.c_str(), o.fps, vs.c_str(), bound.c_str(), o.registeredMB, o.pinnedMB);
            std::fflush(stdout);
        }
        fps[std::string(f.name) + "/upload"] = upload;
        fps[std::string(f.name) + "/duplex"] = duplex;
    }

    if (!clip.empty()) {
        const std::string src = "multifilesrc location=" + clip + " loop=true caps=\"video/x-h264,stream-format=byte-stream\" ! h264parse";
        struct Row {
            std::string key, label, launch;
        };
        const std::vector<Row> rows = {
            {"d-decode", "(d) nvh264dec ! cudadownload", src + " ! nvh264dec ! cudadownload" + sink},
            {"d-decode-filter", "(d) nvh264dec ! cudaconvolve ! cudadownload", src + " ! nvh264dec ! cudaconvolve preset=gaussian size=5 ! cudadownload" + sink},
            {"d-decode-cuda", "(d) nvh264dec ! CUDA memory ! fakesink", src + " ! nvh264dec" + cudaCaps + "fakesink name=sink sync=false"},
            {"d-decode-filter-cuda", "(d) nvh264dec ! cudaconvolve ! CUDA memory ! fakesink", src + " ! nvh264dec ! cudaconvolve preset=gaussian size=5" + cudaCaps + "fakesink name=sink sync=false"},
        };
        std::printf("\n| clip | case | pipeline | fps | vs decode alone |\n|---|---|---|---|---|\n");
        for (const Row& row : rows) {
            if (!named(row.key)) continue;
            const Outcome o = measure(row.launch, nullptr, 1.0, budget);
            fps[row.key] = o.fps;
            const std::string base = row.key.find("cuda") != std::string::npos ? "d-decode-cuda" : "d-decode";
            std::string vs = fps.count(base) && fps[base] > 0 ? std::to_string(int(100 * o.fps / fps[base] + 0.5)) + " %" : "-";
            if (!o.error.empty()) std::printf("| %s | %s | `%s` | ERROR: %s | - |\n", clip.c_str(), row.label.c_str(), row.launch.c_str(), o.error.c_str());
            else std::printf("| %s | %s | `%s` | %.0f | %s |\n", clip.c_str(), row.label.c_str(), row.launch.c_str(), o.fps, vs.c_str());
            std::fflush(stdout);
        }
    }

    // Formats as cameras and decoders deliver them, against the format each is compared with: the same appsrc ring
    // (recycled pageable frames, registered: by DMA), so the rates differ by bytes per frame and by the kernels.
    {
        struct Pair {
            std::string key, format, reference, filter;
        };
        const std::vector<Pair> pairs = {
            {"f-yuy2-clahe", "YUY2", "NV12", "cudahisteq mode=clahe"},
            {"f-yuy2-gauss", "YUY2", "NV12", "cudaconvolve preset=gaussian size=5 planes=all"},
            {"f-p010-clahe", "P010_10LE", "GRAY16_LE", "cudahisteq mode=clahe"},
        };
        if (std::any_of(pairs.begin(), pairs.end(), [&](const Pair& pair) { return named(pair.key); }))
            std::printf("\n| 4K case | format | fps | MB/s through the element | vs the reference format |\n|---|---|---|---|---|\n");
        for (const Pair& pair : pairs) {
            if (!named(pair.key)) continue;
            double referenceFps = 0;
            for (const std::string& format : {pair.reference, pair.format}) {
                const std::string caps = "video/x-raw,format=" + format + ",width=3840,height=2160,framerate=30/1";
                GstCaps* parsed = gst_caps_from_string(caps.c_str());
                GstVideoInfo info;
                const bool known = parsed && gst_video_info_from_caps(&info, parsed);
                if (parsed) gst_caps_unref(parsed);
                if (!known) {
                    std::printf("| %s | %s | ERROR: GStreamer does not know the format | - | - |\n", pair.filter.c_str(),
                                format.c_str());
                    continue;
                }
                Ring ring(GST_VIDEO_INFO_SIZE(&info));
                const std::string launch = "appsrc name=src format=time max-buffers=4 caps=\"" + caps + "\" ! " +
                                           pair.filter + sink;
                const Outcome o = measure(launch, &ring, warmup, budget);
                if (!o.error.empty()) {
                    std::printf("| `%s` | %s | ERROR: %s | - | - |\n", pair.filter.c_str(), format.c_str(), o.error.c_str());
                    continue;
                }
                const bool reference = format == pair.reference;
                if (reference) referenceFps = o.fps;
                fps[pair.key + "/" + format] = o.fps;
                std::printf("| `%s` | %s | %.0f | %.0f | %s |\n", pair.filter.c_str(), format.c_str(), o.fps,
                            o.fps * double(GST_VIDEO_INFO_SIZE(&info)) / 1e6,
                            reference || referenceFps <= 0
                                ? "-"
                                : (std::to_string(int(100 * o.fps / referenceFps + 0.5)) + " % of " + pair.reference).c_str());
                std::fflush(stdout);
            }
        }
    }

    // The bars, read off this run (only when every case ran, the 4K RGBA rows with their Gaussian 5x5).
    if (!only.empty() || !rgbaFilter.empty()) return 0;
    auto ratio = [&](const std::string& a, const std::string& b) {
        return fps.count(a) && fps.count(b) && fps[b] > 0 ? fps[a] / fps[b] : 0.0;
    };
    const std::string k4 = rgbaName + "/";
    std::printf("\n| bar | measured | verdict |\n|---|---|---|\n");
    auto bar = [](const char* what, double value, double need, const char* unit) {
        std::printf("| %s | %.2f%s | %s |\n", what, value, unit, value >= need ? "met" : "NOT met");
    };
    bar("(b) ring 4K RGBA >= 0.80 x PCIe duplex bound", ratio(k4 + "b-ring-filter", k4 + "duplex"), 0.80, " x");
    bar("(b) imagefreeze 4K RGBA >= 0.80 x PCIe duplex bound", ratio(k4 + "b-freeze-filter", k4 + "duplex"), 0.80, " x");
    bar("(a) videotestsrc ! element >= 0.95 x videotestsrc ! identity", ratio(k4 + "a-filter", k4 + "a-identity"), 0.95, " x");
    bar("(c) CUDA chain of 3 >= 0.90 x one element in CUDA memory", ratio(k4 + "c-chain-cuda", k4 + "c-one-cuda"), 0.90, " x");
    bar("(c) CUDA chain of 3 >= 2.5 x system-memory chain", ratio(k4 + "c-chain-cuda", k4 + "c-chain-sys"), 2.5, " x");
    {  // the resident chain is cudahisteq + the 4K filter + sharpen
        const char* parts[] = {"r-histeq", "r-element", "r-sharpen"};
        double frameTime = 0;
        for (const char* part : parts) frameTime += fps.count(k4 + part) && fps[k4 + part] > 0 ? 1.0 / fps[k4 + part] : 0;
        if (frameTime > 0 && fps.count(k4 + "r-chain"))
            std::printf("| 4K resident chain of 3 vs the sum of its elements' frame times (%.0f fps) | %.2f x | - |\n",
                        1.0 / frameTime, fps[k4 + "r-chain"] * frameTime);
    }
    bar("1080p GRAY8 Gaussian 5x5 resident in CUDA memory >= 30000 fps", fps["1080p GRAY8 Gaussian 5x5/r-element"],
        30000, " fps");
    if (!clip.empty()) bar("(d) decode + filter >= 0.90 x decode alone", ratio("d-decode-filter", "d-decode"), 0.90, " x");
    return 0;
}
