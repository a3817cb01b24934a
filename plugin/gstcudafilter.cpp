/**
 * SECTION:gstcudafilter
 * @title: GstCudaFilter
 * @short_description: Base class of the CUDA video filters
 *
 * The base of `cudaconvolve` and `cudahisteq`. It accepts the same raw video format on both pads (grey, packed
 * RGB and planar or semi-planar YUV, any size from 1×1) — unless a subclass maps formats through its
 * `transform_formats` hook, as cudaconvolve's #GstCudaConvolve:output modes do — and runs a frame pipeline of #GstCudaFilter:pipeline-depth
 * slots: with the CUDA backend each slot owns a stream, an event and device images, so that the upload of frame N,
 * the filtering of frame N−1 and the download of frame N−2 run at the same time. Frames leave in order with their
 * timestamps, flags and metas; the LATENCY query reports the (depth − 1) frames held. EOS and caps changes drain
 * every slot; a flush drops what is in flight.
 *
 * Upstream is offered a buffer pool of page-locked (pinned) memory, so that frames are uploaded by DMA straight from
 * where upstream wrote them; the output pool is pinned too so that the download lands in the outgoing buffer. Frames
 * in ordinary (pageable) memory are copied into a pinned staging area first.
 *
 * #GstCudaFilter:backend picks CUDA or the CPU; `auto` uses CUDA when a device is usable and otherwise the CPU, with
 * a warning message on the bus. With `auto`, a CUDA failure while playing switches to the CPU without losing a
 * frame.
 *
 * Since: 0.1
 */
#include "gstcudafilter.h"

#include "frameexecutor.h"
#include "planelayout.h"

#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>

#ifdef CUDAFILTERS_HAVE_CUDA
#include "gstcudapinnedallocator.h"
#endif

#include <atomic>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_filter_debug

using namespace gstcudafilters;
using cudafilters::CudaError;
using cudafilters::InvalidArgument;

#define VIDEO_FORMATS \
    "{ GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, I420, YV12, NV12, NV21, Y42B, Y444 }"

enum {
    PROP_0,
    PROP_BACKEND,
    PROP_CUDA_DEVICE_ID,
    PROP_PIPELINE_DEPTH,
    PROP_ACTIVE_BACKEND,
};

#define DEFAULT_BACKEND GST_CUDA_FILTER_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_PIPELINE_DEPTH 2
#define MAX_PIPELINE_DEPTH 4

namespace {

// Written by property setters under the object lock; read by the streaming thread at start and per frame.
struct Settings {
    GstCudaFilterBackend backend = DEFAULT_BACKEND;
    int deviceId = DEFAULT_CUDA_DEVICE_ID;
    int depth = DEFAULT_PIPELINE_DEPTH;
    const char* activeBackend = "none";
    int runningDepth = 0;  // the depth the running pipeline was started with (pipeline-depth applies at start); 0 stopped
};

// Owned by the streaming thread (and start/stop, which never run concurrently with it).
struct StreamState {
    Backend backend = Backend::Cpu;
    bool autoBackend = false;
    int device = 0;
    int depth = DEFAULT_PIPELINE_DEPTH;
    std::unique_ptr<FrameExecutor> executor;

    GstVideoInfo info{};
    bool haveInfo = false;
    bool negotiated = false;  // the last set_caps succeeded: GstBaseTransform's own check is in the generate_output
                              // we replace, so without this frames would run on a half-configured executor
    std::vector<PlaneLayout> planes;
    GstVideoInfo outInfo{};                // == info unless transform_formats negotiated another format
    std::vector<PlaneLayout> outPlanes;
    bool formatErrorPosted = false;        // one LIBRARY/SETTINGS error per run for unmappable input caps

    std::shared_ptr<FilterWork> work;  // null: passthrough
    unsigned workGeneration = 0;
    bool haveWork = false;

    std::deque<FrameInFlight> frames;  // in frame order
    std::vector<std::shared_ptr<FilterWork>> retired;  // replaced work objects, freed when the GPU is idle
    guint64 nextSlot = 0;
    guint64 submitted = 0;
    std::shared_ptr<FaultSeam> fault;  // test-only fault seam (CUDAFILTERS_TEST_INJECT_FAULT); null in production
};

struct FilterPrivate {
    Settings settings;
    std::atomic<unsigned> generation{1};
    StreamState state;
};

}  // namespace

struct GstCudaFilterPrivate {
    FilterPrivate* priv;
};
using GstCudaFilterPrivateHolder = GstCudaFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstCudaFilter, gst_cuda_filter, GST_TYPE_BASE_TRANSFORM)

static FilterPrivate* priv_of(GstCudaFilter* self) {
    return static_cast<GstCudaFilterPrivateHolder*>(gst_cuda_filter_get_instance_private(self))->priv;
}

GType gst_cuda_filter_backend_get_type(void) {
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_CUDA_FILTER_BACKEND_AUTO, "CUDA when a device is usable, else the CPU (with a warning)", "auto"},
        {GST_CUDA_FILTER_BACKEND_CUDA, "CUDA (fails to start without a usable device)", "cuda"},
        {GST_CUDA_FILTER_BACKEND_CPU, "CPU", "cpu"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaFilterBackend", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

GstCaps* gst_cuda_filter_template_caps(void) {
    return gst_caps_from_string(GST_VIDEO_CAPS_MAKE(VIDEO_FORMATS));
}

void gst_cuda_filter_settings_changed(GstCudaFilter* filter) {
    priv_of(filter)->generation.fetch_add(1, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------------------------------
// Frame pipeline

static void release_frame(FrameInFlight& frame) {
    if (frame.mapped) {
        gst_video_frame_unmap(&frame.inFrame);
        gst_video_frame_unmap(&frame.outFrame);
        frame.mapped = false;
    }
    if (frame.out && frame.out != frame.in) gst_buffer_unref(frame.out);
    if (frame.in) gst_buffer_unref(frame.in);
    frame.in = frame.out = nullptr;
    frame.work.reset();
}

// Frees replaced work objects when no frame needs the GPU any more (their destructors free device memory, which
// synchronises the device: never while frames of other slots are in flight, unless too many pile up).
static void collect_retired(StreamState& st, bool force) {
    if (st.retired.empty()) return;
    if (!force && st.retired.size() < 8) {
        for (const FrameInFlight& f : st.frames)
            if (f.slot >= 0 && !st.executor->ready(f)) return;
    }
    st.retired.clear();
}

// Drops every frame in flight (flush, stop): waits for the GPU to let go of their memory first.
static void drop_frames(StreamState& st) {
    if (st.executor) st.executor->synchronize();
    for (FrameInFlight& f : st.frames) release_frame(f);
    st.frames.clear();
    st.retired.clear();
}

static void set_active_backend(GstCudaFilter* self, const char* name, int runningDepth) {
    FilterPrivate* p = priv_of(self);
    GST_OBJECT_LOCK(self);
    p->settings.activeBackend = name;
    p->settings.runningDepth = runningDepth;
    GST_OBJECT_UNLOCK(self);
    g_object_notify(G_OBJECT(self), "active-backend");
}

// Builds the work for the current settings; keeps the old one (with a warning) when the new settings are invalid.
// Returns FALSE only when there is no work to keep (at negotiation): the caller fails.
static gboolean rebuild_work(GstCudaFilter* self, bool atNegotiation) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    GstCudaFilterClass* klass = GST_CUDA_FILTER_GET_CLASS(self);
    const unsigned generation = p->generation.load(std::memory_order_acquire);
    WorkConfig config;
    config.info = &st.info;
    config.planes = st.planes;
    config.outInfo = &st.outInfo;
    config.outPlanes = st.outPlanes;
    config.backend = st.backend;
    config.slots = st.depth;
    try {
        std::shared_ptr<FilterWork> work = klass->make_work(self, config);
        if (!work && GST_VIDEO_INFO_FORMAT(&st.info) != GST_VIDEO_INFO_FORMAT(&st.outInfo))
            throw InvalidArgument("the settings leave frames unchanged but the output format differs from the input's");
        if (st.work) st.retired.push_back(std::move(st.work));
        st.work = std::move(work);
        st.haveWork = true;
    } catch (const InvalidArgument& e) {
        st.workGeneration = generation;  // do not retry until the settings change again
        if (atNegotiation || !st.haveWork) {
            GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), e.what()),
                              (nullptr));
            return FALSE;
        }
        GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                            ("Invalid settings for %s, keeping the previous ones: %s", GST_OBJECT_NAME(self), e.what()),
                            (nullptr));
        return TRUE;
    }
    st.workGeneration = generation;
    const gboolean passthrough = st.work == nullptr;
    if (passthrough != gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(self))) {
        GST_DEBUG_OBJECT(self, "passthrough %d", passthrough);
        gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), passthrough);
        if (!atNegotiation) gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
    }
    return TRUE;
}

// Creates the executor for st.backend and configures it for the negotiated format. Throws CudaError.
static void make_executor(StreamState& st) {
    if (st.executor) st.executor->synchronize();
    st.executor.reset();
#ifdef CUDAFILTERS_HAVE_CUDA
    if (st.backend == Backend::Cuda) st.executor = makeCudaExecutor(st.device);
#endif
    if (!st.executor) st.executor = makeCpuExecutor();
    if (G_UNLIKELY(st.fault != nullptr)) st.executor->setFaultSeam(st.fault);
    if (st.haveInfo) st.executor->configure(st.info, st.planes, st.outInfo, st.outPlanes, st.depth);
}

// backend=auto after a CUDA failure: continue on the CPU, redoing every frame in flight there so none is lost.
// Returns FALSE (with an element error posted) when the CPU cannot take over.
static gboolean fall_back_to_cpu(GstCudaFilter* self, const CudaError& error) {
    StreamState& st = priv_of(self)->state;
    GST_ELEMENT_WARNING(self, LIBRARY, FAILED,
                        ("CUDA failed in %s; %s continues on the CPU", error.call().c_str(), GST_OBJECT_NAME(self)),
                        ("%s", error.what()));
    if (st.executor) st.executor->synchronize();
    st.backend = Backend::Cpu;
    try {
        make_executor(st);
    } catch (const std::exception& e) {
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Could not switch to the CPU backend"), ("%s", e.what()));
        return FALSE;
    }
    st.retired.clear();
    if (!rebuild_work(self, false)) return FALSE;
    set_active_backend(self, "cpu", st.depth);
    for (FrameInFlight& f : st.frames) {
        if (f.slot < 0) continue;
        f.work = st.work;
        if (!f.work) {  // the settings became passthrough: the input is the result
            for (std::size_t p = 0; p < st.planes.size(); ++p) {
                const std::vector<ImageView> src = frameViews(st.planes, f.inFrame);
                const std::vector<ImageView> dst = frameViews(st.planes, f.outFrame);
                copyPlane(src[p], dst[p]);
            }
            continue;
        }
        try {
            st.executor->submit(f);
        } catch (const std::exception& e) {
            GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Filtering on the CPU failed"), ("%s", e.what()));
            return FALSE;
        }
    }
    return TRUE;
}

// backend=auto continues on the CPU after a CUDA failure. An injected fault (test seam) stands for one on either
// executor, unless it was injected as fatal.
static bool falls_back(const StreamState& st, const CudaError& error) {
    if (!st.autoBackend) return false;
    if (const auto* injected = dynamic_cast<const InjectedFault*>(&error)) return !injected->fatal();
    return st.backend == Backend::Cuda;
}

static GstFlowReturn report_failure(GstCudaFilter* self, const std::exception& e) {
    if (const auto* cuda = dynamic_cast<const CudaError*>(&e)) {
        if (falls_back(priv_of(self)->state, *cuda))
            return fall_back_to_cpu(self, *cuda) ? GST_FLOW_OK : GST_FLOW_ERROR;
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("CUDA failed in %s", cuda->call().c_str()), ("%s", cuda->what()));
        return GST_FLOW_ERROR;
    }
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Filtering failed: %s", e.what()), (nullptr));
    return GST_FLOW_ERROR;
}

// Takes the oldest frame out of the pipeline once complete; returns its output buffer (transfer full).
static GstFlowReturn finish_oldest(GstCudaFilter* self, GstBuffer** outbuf) {
    StreamState& st = priv_of(self)->state;
    FrameInFlight& f = st.frames.front();
    if (f.slot >= 0) {
        try {
            st.executor->complete(f);
        } catch (const std::exception& e) {
            const GstFlowReturn ret = report_failure(self, e);
            if (ret != GST_FLOW_OK) return ret;
            try {
                st.executor->complete(f);  // now the CPU executor: nothing left to wait for
            } catch (const std::exception& e2) {
                return report_failure(self, e2);
            }
        }
        if (f.work) f.work->frameDone(GST_ELEMENT(self), f.out, f.slot);
    }
    FrameInFlight done = std::move(f);
    st.frames.pop_front();
    if (done.mapped) {
        gst_video_frame_unmap(&done.inFrame);
        gst_video_frame_unmap(&done.outFrame);
        done.mapped = false;
    }
    *outbuf = done.out;
    if (done.out != done.in) gst_buffer_unref(done.in);
    done.in = done.out = nullptr;
    if (done.work && done.work != st.work) st.retired.push_back(std::move(done.work));
    done.work.reset();
    collect_retired(st, st.frames.empty());
    return GST_FLOW_OK;
}

// Pushes every frame in flight downstream, in order (EOS, caps change, serialized events).
static GstFlowReturn drain(GstCudaFilter* self) {
    StreamState& st = priv_of(self)->state;
    GstFlowReturn result = GST_FLOW_OK;
    if (!st.frames.empty()) GST_DEBUG_OBJECT(self, "draining %zu frames", st.frames.size());
    while (!st.frames.empty()) {
        GstBuffer* out = nullptr;
        GstFlowReturn ret = finish_oldest(self, &out);
        if (ret != GST_FLOW_OK) {
            drop_frames(st);
            return ret;
        }
        if (result == GST_FLOW_OK) result = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
        else gst_buffer_unref(out);
    }
    return result;
}

static gboolean gst_cuda_filter_before_submit(GstCudaFilter* self) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    if (st.haveInfo && p->generation.load(std::memory_order_acquire) != st.workGeneration) return rebuild_work(self, false);
    return TRUE;
}

static GstFlowReturn gst_cuda_filter_transform_unused(GstBaseTransform* trans, GstBuffer*, GstBuffer*) {
    GST_ELEMENT_ERROR(trans, CORE, NOT_IMPLEMENTED, (nullptr), ("transform() called; frames go through generate_output"));
    return GST_FLOW_NOT_SUPPORTED;
}

static GstFlowReturn gst_cuda_filter_submit_input_buffer(GstBaseTransform* trans, gboolean is_discont,
                                                         GstBuffer* input) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    if (G_UNLIKELY(!st.executor)) {  // stopped while the sink pad is still active (see gst_cuda_filter_stop)
        gst_buffer_unref(input);
        return GST_FLOW_FLUSHING;
    }
    if (!gst_cuda_filter_before_submit(self)) {
        gst_buffer_unref(input);
        return GST_FLOW_ERROR;
    }

    // QoS and renegotiation happen in the parent, which leaves the buffer in queued_buf unless it dropped it.
    GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_cuda_filter_parent_class)->submit_input_buffer(trans, is_discont, input);
    if (ret != GST_FLOW_OK) return ret;
    GstBuffer* inbuf = trans->queued_buf;
    trans->queued_buf = nullptr;
    if (!inbuf) return GST_FLOW_OK;
    if (G_UNLIKELY(!st.negotiated)) {  // the caps were refused (an error is posted): never filter with stale state
        GST_DEBUG_OBJECT(self, "not negotiated: refusing the buffer");
        gst_buffer_unref(inbuf);
        return GST_FLOW_NOT_NEGOTIATED;
    }

    FrameInFlight frame;
    frame.in = inbuf;
    if (!st.work || gst_base_transform_is_passthrough(trans)) {
        frame.out = inbuf;
        st.frames.push_back(std::move(frame));
        return GST_FLOW_OK;
    }

    ret = GST_BASE_TRANSFORM_GET_CLASS(trans)->prepare_output_buffer(trans, inbuf, &frame.out);
    if (ret != GST_FLOW_OK || !frame.out) {
        gst_buffer_unref(inbuf);
        return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
    }
    if (!gst_video_frame_map(&frame.inFrame, &st.info, inbuf, GST_MAP_READ)) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the input frame"), (nullptr));
        release_frame(frame);
        return GST_FLOW_ERROR;
    }
    if (!gst_video_frame_map(&frame.outFrame, &st.outInfo, frame.out, GST_MAP_WRITE)) {
        gst_video_frame_unmap(&frame.inFrame);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
        release_frame(frame);
        return GST_FLOW_ERROR;
    }
    frame.mapped = true;
    frame.slot = int(st.nextSlot++ % guint64(st.depth));
    frame.work = st.work;
    frame.index = st.submitted;
    if (G_UNLIKELY(st.fault != nullptr)) st.fault->submitted = st.submitted;

    try {
        st.executor->submit(frame);
    } catch (const std::exception& e) {
        st.frames.push_back(std::move(frame));  // fall_back_to_cpu redoes it with the others
        ++st.submitted;
        return report_failure(self, e);
    }
    ++st.submitted;
    st.frames.push_back(std::move(frame));
    return GST_FLOW_OK;
}

static GstFlowReturn gst_cuda_filter_generate_output(GstBaseTransform* trans, GstBuffer** outbuf) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    *outbuf = nullptr;
    if (st.frames.empty()) return GST_FLOW_OK;
    // Hold depth − 1 frames; a passthrough frame at the end means everything before it leaves now.
    const bool full = st.frames.size() >= std::size_t(st.depth);
    if (!full && st.frames.back().slot >= 0) return GST_FLOW_OK;
    return finish_oldest(self, outbuf);
}

// ---------------------------------------------------------------------------------------------------------------
// Backend choice, negotiation, events, queries, allocation

static gboolean start_unlocked(GstBaseTransform* trans) {
    auto* self = GST_CUDA_FILTER(trans);
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;

    GST_OBJECT_LOCK(self);
    const Settings settings = p->settings;
    GST_OBJECT_UNLOCK(self);

    try {
        GST_CUDA_FILTER_GET_CLASS(self)->check_settings(self);
    } catch (const InvalidArgument& e) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), e.what()),
                          (nullptr));
        return FALSE;
    }

    st = StreamState();
    st.depth = settings.depth;
    st.autoBackend = settings.backend == GST_CUDA_FILTER_BACKEND_AUTO;
    // Test-only fault seam, read once per start (CUDAFILTERS_TEST_INJECT_CUDA_FAILURE=<frame> is the older
    // spelling of upload@<frame>).
    if (const char* inject = g_getenv("CUDAFILTERS_TEST_INJECT_FAULT")) {
        st.fault = std::make_shared<FaultSeam>();
        if (!FaultSeam::parse(inject, *st.fault)) {
            GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                              ("CUDAFILTERS_TEST_INJECT_FAULT=%s: expected <call>@<frame>[:fatal], call one of alloc, "
                               "stream, upload, launch, download, sync", inject),
                              (nullptr));
            st = StreamState();
            return FALSE;
        }
        GST_WARNING_OBJECT(self, "test fault seam armed: %s", inject);
    } else if (const char* legacy = g_getenv("CUDAFILTERS_TEST_INJECT_CUDA_FAILURE")) {
        st.fault = std::make_shared<FaultSeam>();
        st.fault->call = FaultCall::Upload;
        st.fault->frame = guint64(g_ascii_strtoull(legacy, nullptr, 10));
    }

    std::string why;
    st.backend = Backend::Cpu;
    if (settings.backend != GST_CUDA_FILTER_BACKEND_CPU) {
        const int count = cudafilters::cudaDeviceCount();
        if (!cudafilters::cudaBuilt()) why = "the plugin was built without CUDA";
        else if (count == 0) why = "no CUDA device is usable (" + cudafilters::cudaDeviceDescription(0) + ")";
        else if (settings.deviceId >= count)
            why = "cuda-device-id " + std::to_string(settings.deviceId) + " does not exist (" + std::to_string(count) +
                  " device(s): 0 to " + std::to_string(count - 1) + ")";
        if (why.empty()) {
            st.device = settings.deviceId < 0 ? 0 : settings.deviceId;
            st.backend = Backend::Cuda;
            try {
                make_executor(st);
            } catch (const std::exception& e) {
                why = e.what();
                st.backend = Backend::Cpu;
            }
        }
        if (!why.empty()) {
            if (settings.backend == GST_CUDA_FILTER_BACKEND_CUDA) {
                GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("backend=cuda but %s", why.c_str()), (nullptr));
                return FALSE;
            }
            GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("No usable CUDA device: %s runs on the CPU", GST_OBJECT_NAME(self)),
                                ("%s", why.c_str()));
        }
    }
    if (st.backend == Backend::Cpu) make_executor(st);
    GST_INFO_OBJECT(self, "backend %s%s, pipeline depth %d", cudafilters::backendName(st.backend),
                    st.backend == Backend::Cuda ? (" on " + cudafilters::cudaDeviceDescription(st.device)).c_str() : "",
                    st.depth);
    set_active_backend(self, cudafilters::backendName(st.backend), st.depth);
    return TRUE;
}

// In push mode GstBaseTransform starts from the sink pad's activation, after the pad stopped flushing: a serialized
// event (or a buffer) can already be in the streaming thread. The stream lock keeps it apart from the reset of the
// stream state (found by ThreadSanitizer: sink_event's drain reading the frame queue while start() replaced it).
static gboolean gst_cuda_filter_start(GstBaseTransform* trans) {
    GST_PAD_STREAM_LOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    const gboolean started = start_unlocked(trans);
    GST_PAD_STREAM_UNLOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    return started;
}

static gboolean gst_cuda_filter_stop(GstBaseTransform* trans) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    // As in start(): the stream lock keeps a buffer or event still in the streaming thread apart from this reset; one
    // that comes after it finds no executor and is refused (found by the state-change concurrency test: a segfault
    // in set_caps on a null executor).
    GST_PAD_STREAM_LOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    drop_frames(st);
    st.work.reset();
    st.executor.reset();
    st = StreamState();
    GST_PAD_STREAM_UNLOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    set_active_backend(self, "none", 0);
    return TRUE;
}

static gboolean configure_for_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps* outcaps) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    if (!st.executor) return FALSE;  // stopped (see gst_cuda_filter_stop)
    GstVideoInfo in, out;
    if (!gst_video_info_from_caps(&in, incaps) || !gst_video_info_from_caps(&out, outcaps)) {
        GST_ERROR_OBJECT(self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
        return FALSE;
    }
    const bool mapsFormats = GST_CUDA_FILTER_GET_CLASS(self)->transform_formats != nullptr;
    if ((!mapsFormats && GST_VIDEO_INFO_FORMAT(&in) != GST_VIDEO_INFO_FORMAT(&out)) || in.width != out.width ||
        in.height != out.height) {
        GST_ERROR_OBJECT(self, "input and output formats differ");
        return FALSE;
    }
    drop_frames(st);  // drained by the CAPS event already; nothing should be left
    st.info = in;
    st.planes = planeLayouts(in);
    st.outInfo = out;
    st.outPlanes = planeLayouts(out);
    st.haveInfo = true;
    st.nextSlot = 0;
    try {
        st.executor->configure(st.info, st.planes, st.outInfo, st.outPlanes, st.depth);
    } catch (const CudaError& e) {
        if (!falls_back(st, e)) {
            GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("CUDA failed in %s", e.call().c_str()), ("%s", e.what()));
            return FALSE;
        }
        if (!fall_back_to_cpu(self, e)) return FALSE;
    }
    if (st.work) st.retired.push_back(std::move(st.work));
    st.retired.clear();
    st.haveWork = false;
    try {
        return rebuild_work(self, true);
    } catch (const CudaError& e) {
        if (!falls_back(st, e)) {
            GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("CUDA failed in %s", e.call().c_str()), ("%s", e.what()));
            return FALSE;
        }
        return fall_back_to_cpu(self, e);
    }
}

static gboolean gst_cuda_filter_set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps* outcaps) {
    StreamState& st = priv_of(GST_CUDA_FILTER(trans))->state;
    st.negotiated = false;
    st.negotiated = configure_for_caps(trans, incaps, outcaps);
    return st.negotiated;
}

static gboolean gst_cuda_filter_sink_event(GstBaseTransform* trans, GstEvent* event) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
        drop_frames(st);
        if (st.work) st.work->reset();
        break;
    case GST_EVENT_FLUSH_START:
        break;
    default:
        // Serialized events keep their place among the buffers: frames in flight leave first.
        if (GST_EVENT_IS_SERIALIZED(event)) drain(self);
        break;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_filter_parent_class)->sink_event(trans, event);
}

static gboolean gst_cuda_filter_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query) {
    auto* self = GST_CUDA_FILTER(trans);
    if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query)) return FALSE;
        gboolean live;
        GstClockTime min, max;
        gst_query_parse_latency(query, &live, &min, &max);
        GstClockTime own = 0;
        GST_OBJECT_LOCK(self);
        const Settings& settings = priv_of(self)->settings;
        const int depth = settings.runningDepth > 0 ? settings.runningDepth : settings.depth;
        GST_OBJECT_UNLOCK(self);
        GstCaps* caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
        GstVideoInfo info;
        if (caps && gst_video_info_from_caps(&info, caps) && info.fps_n > 0 && !gst_base_transform_is_passthrough(trans))
            own = gst_util_uint64_scale_int(GST_SECOND * guint64(depth - 1), info.fps_d, info.fps_n);
        if (caps) gst_caps_unref(caps);
        GST_DEBUG_OBJECT(self, "latency: upstream %" GST_TIME_FORMAT ", own %" GST_TIME_FORMAT, GST_TIME_ARGS(min),
                         GST_TIME_ARGS(own));
        min += own;
        if (GST_CLOCK_TIME_IS_VALID(max)) max += own;
        gst_query_set_latency(query, live, min, max);
        return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_cuda_filter_parent_class)->query(trans, direction, query);
}

// The same caps on both pads unless the subclass maps formats (transform_formats).
static GstCaps* gst_cuda_filter_transform_caps(GstBaseTransform* trans, GstPadDirection direction, GstCaps* caps,
                                               GstCaps* filter) {
    auto* self = GST_CUDA_FILTER(trans);
    GstCudaFilterClass* klass = GST_CUDA_FILTER_GET_CLASS(self);
    GstCaps* result = nullptr;
    if (klass->transform_formats) {
        std::string why;
        result = klass->transform_formats(self, direction, caps, &why);
        if (result && gst_caps_is_empty(result) && !why.empty() && direction == GST_PAD_SINK &&
            gst_caps_is_fixed(caps)) {
            StreamState& st = priv_of(self)->state;
            GST_OBJECT_LOCK(self);
            const bool post = !st.formatErrorPosted;
            st.formatErrorPosted = true;
            GST_OBJECT_UNLOCK(self);
            if (post)
                GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                                  ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), why.c_str()),
                                  ("input caps %" GST_PTR_FORMAT, caps));
        }
    }
    if (!result) result = gst_caps_ref(caps);
    if (filter) {
        GstCaps* filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = filtered;
    }
    GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                     direction == GST_PAD_SINK ? "sink" : "src", caps, result);
    return result;
}

static gboolean gst_cuda_filter_get_unit_size(GstBaseTransform*, GstCaps* caps, gsize* size) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return FALSE;
    *size = GST_VIDEO_INFO_SIZE(&info);
    return TRUE;
}

static gboolean gst_cuda_filter_transform_meta(GstBaseTransform* trans, GstBuffer*, GstMeta* meta, GstBuffer*) {
    const StreamState& st = priv_of(GST_CUDA_FILTER(trans))->state;
    const bool formatChanges = st.haveInfo && GST_VIDEO_INFO_FORMAT(&st.info) != GST_VIDEO_INFO_FORMAT(&st.outInfo);
    // Same size, format and orientation out as in: metas about the video content stay valid; metas about the
    // memory (GstVideoMeta) describe the input buffer only.
    const gchar* const* tags = gst_meta_api_type_get_tags(meta->info->api);
    if (!tags) return TRUE;
    for (; *tags; ++tags) {
        const GQuark tag = g_quark_from_string(*tags);
        if (tag != g_quark_from_static_string(GST_META_TAG_VIDEO_STR) &&
            tag != g_quark_from_static_string(GST_META_TAG_VIDEO_ORIENTATION_STR) &&
            tag != g_quark_from_static_string(GST_META_TAG_VIDEO_SIZE_STR) &&
            (formatChanges || tag != g_quark_from_static_string(GST_META_TAG_VIDEO_COLORSPACE_STR)))
            return FALSE;
    }
    return TRUE;
}

static bool pool_is_pinned(GstBufferPool* pool) {
#ifdef CUDAFILTERS_HAVE_CUDA
    GstStructure* config = gst_buffer_pool_get_config(pool);
    GstAllocator* allocator = nullptr;
    bool pinned = gst_buffer_pool_config_get_allocator(config, &allocator, nullptr) && allocator &&
                  GST_IS_CUDA_PINNED_ALLOCATOR(allocator);
    gst_structure_free(config);
    return pinned;
#else
    (void)pool;
    return false;
#endif
}

static GstBufferPool* new_pool(bool pinned, GstCaps* caps, guint size, guint min, guint max) {
#ifdef CUDAFILTERS_HAVE_CUDA
    if (pinned) return gst_cuda_pinned_pool_new(caps, size, min, max);
#else
    (void)pinned;
#endif
    GstBufferPool* pool = gst_video_buffer_pool_new();
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}

static gboolean gst_cuda_filter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    if (!GST_BASE_TRANSFORM_CLASS(gst_cuda_filter_parent_class)->propose_allocation(trans, decide_query, query))
        return FALSE;
    if (gst_base_transform_is_passthrough(trans)) return TRUE;  // the parent forwarded the query downstream

    GstCaps* caps = nullptr;
    gboolean needPool = FALSE;
    gst_query_parse_allocation(query, &caps, &needPool);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps)) return FALSE;
    if (needPool) {
        const bool pinned = st.executor && st.executor->backend() == Backend::Cuda;
        // Upstream's pool must hold the frames we keep in flight plus the one it is writing.
        GstBufferPool* pool = new_pool(pinned, caps, guint(GST_VIDEO_INFO_SIZE(&info)), guint(st.depth + 1), 0);
        if (pool) {
            GST_DEBUG_OBJECT(self, "proposing a %s pool upstream", pinned ? "pinned" : "system memory");
            gst_query_add_allocation_pool(query, pool, guint(GST_VIDEO_INFO_SIZE(&info)), guint(st.depth + 1), 0);
#ifdef CUDAFILTERS_HAVE_CUDA
            if (pinned) {
                GstAllocator* allocator = gst_cuda_pinned_allocator_get();
                gst_query_add_allocation_param(query, allocator, nullptr);
                gst_object_unref(allocator);
            }
#endif
            gst_object_unref(pool);
        }
    }
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    return TRUE;
}

static gboolean gst_cuda_filter_decide_allocation(GstBaseTransform* trans, GstQuery* query) {
    auto* self = GST_CUDA_FILTER(trans);
    StreamState& st = priv_of(self)->state;
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps)) return FALSE;

    GstBufferPool* pool = nullptr;
    guint size = guint(GST_VIDEO_INFO_SIZE(&info)), min = 0, max = 0;
    const bool havePool = gst_query_get_n_allocation_pools(query) > 0;
    if (havePool) gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
    size = MAX(size, guint(GST_VIDEO_INFO_SIZE(&info)));
    min = MAX(min, guint(st.depth + 1));  // the frames in flight hold output buffers too

    // With CUDA the download should land in pinned memory; downstream's pool is used when it is pinned or the
    // backend is the CPU.
    const bool wantPinned = st.executor && st.executor->backend() == Backend::Cuda;
    if (pool && wantPinned && !pool_is_pinned(pool)) {
        GST_DEBUG_OBJECT(self, "downstream pool is not pinned; using our own");
        gst_object_unref(pool);
        pool = nullptr;
        max = 0;
    }
    if (pool) {
        GstStructure* config = gst_buffer_pool_get_config(pool);
        gst_buffer_pool_config_set_params(config, caps, size, min, max);
        if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
            gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        if (!gst_buffer_pool_set_config(pool, config)) {
            gst_object_unref(pool);
            pool = nullptr;
        }
    }
    if (!pool) pool = new_pool(wantPinned, caps, size, min, max);
    if (!pool) {
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not create an output buffer pool"), (nullptr));
        return FALSE;
    }
    if (havePool) gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
    else gst_query_add_allocation_pool(query, pool, size, min, max);

    GstStructure* config = gst_buffer_pool_get_config(pool);
    GstAllocator* allocator = nullptr;
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    gst_buffer_pool_config_get_allocator(config, &allocator, &params);
    if (gst_query_get_n_allocation_params(query) > 0) gst_query_set_nth_allocation_param(query, 0, allocator, &params);
    else gst_query_add_allocation_param(query, allocator, &params);
    gst_structure_free(config);
    gst_object_unref(pool);
    return TRUE;
}

static void gst_cuda_filter_before_transform(GstBaseTransform* trans, GstBuffer* buffer) {
    // No TIME segment (an upstream that sent a buffer before its segment): nothing to sync, and no CRITICAL.
    if (trans->segment.format != GST_FORMAT_TIME) return;
    const GstClockTime timestamp = GST_BUFFER_PTS(buffer);
    const GstClockTime streamTime = gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, timestamp);
    if (GST_CLOCK_TIME_IS_VALID(streamTime)) gst_object_sync_values(GST_OBJECT(trans), streamTime);
}

// ---------------------------------------------------------------------------------------------------------------
// GObject

static void gst_cuda_filter_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_FILTER(object);
    Settings& s = priv_of(self)->settings;
    GST_OBJECT_LOCK(self);
    switch (prop_id) {
    case PROP_BACKEND:
        s.backend = GstCudaFilterBackend(g_value_get_enum(value));
        break;
    case PROP_CUDA_DEVICE_ID:
        s.deviceId = g_value_get_int(value);
        break;
    case PROP_PIPELINE_DEPTH:
        s.depth = g_value_get_int(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_filter_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_FILTER(object);
    const Settings& s = priv_of(self)->settings;
    GST_OBJECT_LOCK(self);
    switch (prop_id) {
    case PROP_BACKEND:
        g_value_set_enum(value, s.backend);
        break;
    case PROP_CUDA_DEVICE_ID:
        g_value_set_int(value, s.deviceId);
        break;
    case PROP_PIPELINE_DEPTH:
        g_value_set_int(value, s.depth);
        break;
    case PROP_ACTIVE_BACKEND:
        g_value_set_string(value, s.activeBackend);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_filter_finalize(GObject* object) {
    auto* holder = static_cast<GstCudaFilterPrivateHolder*>(gst_cuda_filter_get_instance_private(GST_CUDA_FILTER(object)));
    drop_frames(holder->priv->state);
    delete holder->priv;
    holder->priv = nullptr;
    G_OBJECT_CLASS(gst_cuda_filter_parent_class)->finalize(object);
}

static void gst_cuda_filter_init(GstCudaFilter* self) {
    auto* holder = static_cast<GstCudaFilterPrivateHolder*>(gst_cuda_filter_get_instance_private(self));
    holder->priv = new FilterPrivate();
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

static void gst_cuda_filter_class_init(GstCudaFilterClass* klass) {
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(gst_cuda_filter_debug, "cudafilter", 0, "CUDA video filter base");

    gobject_class->set_property = gst_cuda_filter_set_property;
    gobject_class->get_property = gst_cuda_filter_get_property;
    gobject_class->finalize = gst_cuda_filter_finalize;

    /**
     * GstCudaFilter:backend:
     *
     * Where frames are filtered. `auto` uses CUDA when a device is usable, otherwise the CPU with a warning on the
     * bus; it also switches to the CPU, without losing a frame, when CUDA fails while playing.
     */
    g_object_class_install_property(gobject_class, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where frames are filtered: auto (CUDA when a device is usable, else the CPU with a warning), "
                          "cuda, or cpu",
                          GST_TYPE_CUDA_FILTER_BACKEND, DEFAULT_BACKEND,
                          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCudaFilter:cuda-device-id:
     *
     * The CUDA device to run on, as numbered by the CUDA runtime; -1 picks the first.
     */
    g_object_class_install_property(gobject_class, PROP_CUDA_DEVICE_ID,
        g_param_spec_int("cuda-device-id", "CUDA device ID",
                         "CUDA device to run on (-1 = automatic: the first device)", -1, G_MAXINT16,
                         DEFAULT_CUDA_DEVICE_ID,
                         GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCudaFilter:pipeline-depth:
     *
     * Frames in flight. With depth d, the element holds d − 1 frames (reported in the LATENCY query) so that the
     * upload, the filtering and the download of successive frames overlap; 1 filters each frame before the next
     * arrives. A change while playing applies at the next start; until then the LATENCY query reports the running
     * depth.
     */
    g_object_class_install_property(gobject_class, PROP_PIPELINE_DEPTH,
        g_param_spec_int("pipeline-depth", "Pipeline depth",
                         "Frames in flight, 1 to 4 (1 = synchronous); the element adds (depth - 1) frame durations "
                         "of latency",
                         1, MAX_PIPELINE_DEPTH, DEFAULT_PIPELINE_DEPTH,
                         GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCudaFilter:active-backend:
     *
     * The backend in use while running: "cuda", "cpu", or "none" when stopped.
     */
    g_object_class_install_property(gobject_class, PROP_ACTIVE_BACKEND,
        g_param_spec_string("active-backend", "Active backend",
                            "Backend in use while running: cuda, cpu, or none when stopped", "none",
                            GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

    GstCaps* caps = gst_cuda_filter_template_caps();
    gst_element_class_add_pad_template(GST_ELEMENT_CLASS(klass),
                                       gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(GST_ELEMENT_CLASS(klass),
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);

    trans_class->passthrough_on_same_caps = FALSE;
    trans_class->transform_ip_on_passthrough = FALSE;
    trans_class->start = gst_cuda_filter_start;
    trans_class->stop = gst_cuda_filter_stop;
    trans_class->set_caps = gst_cuda_filter_set_caps;
    trans_class->sink_event = gst_cuda_filter_sink_event;
    trans_class->query = gst_cuda_filter_query;
    trans_class->transform_caps = gst_cuda_filter_transform_caps;
    trans_class->get_unit_size = gst_cuda_filter_get_unit_size;
    trans_class->transform_meta = gst_cuda_filter_transform_meta;
    trans_class->propose_allocation = gst_cuda_filter_propose_allocation;
    trans_class->decide_allocation = gst_cuda_filter_decide_allocation;
    trans_class->before_transform = gst_cuda_filter_before_transform;
    trans_class->submit_input_buffer = gst_cuda_filter_submit_input_buffer;
    trans_class->generate_output = gst_cuda_filter_generate_output;
    // Never called (submit_input_buffer / generate_output do the work), but GstBaseTransform treats a class without
    // `transform` as always-in-place: it then skips decide_allocation and proxies allocation queries, so the
    // output would come from plain system memory and upstream would never be offered the pinned pool.
    trans_class->transform = gst_cuda_filter_transform_unused;

    gst_type_mark_as_plugin_api(GST_TYPE_CUDA_FILTER, GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(GST_TYPE_CUDA_FILTER_BACKEND, GstPluginAPIFlags(0));
}
