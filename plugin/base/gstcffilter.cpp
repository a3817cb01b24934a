// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:gstcffilter
 * @title: GstCfFilter
 * @short_description: Base class of the CUDA video filters
 *
 * The base of `cudaconvolve` and `cudahisteq`. It accepts the same raw video format on both pads (grey, packed
 * RGB, planar or semi-planar YUV of 8, 10 and 16 bits as decoders deliver them and packed 4:2:2 as cameras do, any
 * size from 1×1; even widths for packed 4:2:2) — unless a subclass maps formats through its
 * `transform_formats` hook, as cudaconvolve's #GstCudaConvolve:output modes do — and runs a frame pipeline of #GstCfFilter:pipeline-depth
 * slots: with the CUDA backend each slot owns a stream, an event and device images, so that the upload of frame N,
 * the filtering of frame N−1 and the download of frame N−2 run at the same time; the CPU backend filters the frames
 * in flight on worker threads. A frame leaves, from a task on the src pad, as soon as its work is done and the frames
 * before it have left — it never waits for the next frame — in order, with its own timestamps, flags (GAP frames pass
 * unfiltered) and metas; the LATENCY query reports the processing time measured over the recent frames (at least
 * 1 ms), and a LATENCY message announces when it grew. Serialized events (tags, custom events) keep their place
 * behind the frames they follow without stopping the pipeline; EOS, caps, segment and stream-start wait until every
 * frame has left; a flush drops what is in flight.
 *
 * Frames in CUDA device memory (`memory:CUDAMemory`, GStreamer's CUDA library: NVIDIA's decoders, `cudaupload`,
 * another of these elements) are filtered where they lie, and the output stays on the device when downstream takes
 * CUDA memory; negotiation prefers it wherever both sides can, so a chain of these elements crosses PCIe once each
 * way. The elements share one CUDA context with their neighbours (the CONTEXT query; when first, they offer the
 * device's primary context). In host memory, upstream is offered a buffer pool of page-locked (pinned) memory, so
 * that frames are uploaded by DMA straight from where upstream wrote them; pageable memory that upstream recycles
 * (its own pool, or the same memory again) is registered with the driver and uploaded by DMA as well; other
 * pageable frames are copied into a pinned staging area first. The output pool is pinned too.
 *
 * #GstCfFilter:backend picks CUDA or the CPU; `auto` uses CUDA when a device is usable and otherwise the CPU, with
 * a warning message on the bus. With `auto`, a CUDA failure while playing — filtering a frame or building the
 * filter for changed settings — switches to the CPU without losing a frame, from the last valid settings.
 *
 * Since: 0.1
 */
#include "base/gstcffilter.h"

#include "memory/allocation.h"
#include "memory/gstcudainterop.h"
#include "base/filterstate.h"
#include "base/framepipeline.h"
#include "base/framesize.h"
#include "base/outputtask.h"
#include "base/planelayout.h"
#include "base/settingsproperties.h"

#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>

#include <string>

GST_DEBUG_CATEGORY(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

using namespace gstcudafilters;
using cudafilters::CudaError;
using cudafilters::InvalidArgument;

#define FORMAT_LIST \
    "GRAY8, GRAY16_LE, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, I420, YV12, NV12, NV21, Y42B, Y444, " \
    "I420_10LE, P010_10LE, P016_LE, YUY2, UYVY, YVYU"
#define VIDEO_FORMATS "{ " FORMAT_LIST " }"

enum {
    PROP_0,
    PROP_BACKEND,
    PROP_CUDA_DEVICE_ID,
    PROP_PIPELINE_DEPTH,
    PROP_ACTIVE_BACKEND,
};

#define DEFAULT_BACKEND GST_CF_FILTER_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_PIPELINE_DEPTH kDefaultPipelineDepth
#define MAX_PIPELINE_DEPTH kMaxPipelineDepth

struct GstCfFilterPrivate {
    FilterPrivate* priv;
};

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstCfFilter, gst_cf_filter, GST_TYPE_BASE_TRANSFORM)

G_DEFINE_ENUM_TYPE(GstCfFilterBackend, gst_cf_filter_backend,
    G_DEFINE_ENUM_VALUE(GST_CF_FILTER_BACKEND_AUTO, "auto"),
    G_DEFINE_ENUM_VALUE(GST_CF_FILTER_BACKEND_CUDA, "cuda"),
    G_DEFINE_ENUM_VALUE(GST_CF_FILTER_BACKEND_CPU, "cpu"))

namespace gstcudafilters {

FilterPrivate* priv_of(GstCfFilter* self) {
    return static_cast<GstCfFilterPrivate*>(gst_cf_filter_get_instance_private(self))->priv;
}

StreamState& stream_state(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    if (G_UNLIKELY(p->handOver.load(std::memory_order_acquire))) {
        std::unique_lock<std::mutex> lock(p->startLock);
        p->startDone.wait(lock, [p] { return !p->starting; });
        if (p->started) {
            std::lock_guard<std::mutex> pipe(p->pipeLock);  // the output task of the run before may still look
            p->state = std::move(*p->started);
            p->started.reset();
        }
        p->handOver.store(false, std::memory_order_release);
    }
    return p->state;
}

void set_active_backend(GstCfFilter* self, const char* name, int runningDepth) {
    FilterPrivate* p = priv_of(self);
    GST_OBJECT_LOCK(self);
    p->settings.activeBackend = name;
    p->settings.runningDepth = runningDepth;
    GST_OBJECT_UNLOCK(self);
    g_object_notify(G_OBJECT(self), "active-backend");
}

}  // namespace gstcudafilters

void gst_cf_filter_class_set_metadata(GstCfFilterClass* klass, const char* longname, const char* description) {
    gst_element_class_set_static_metadata(GST_ELEMENT_CLASS(klass), longname, "Filter/Effect/Video", description,
                                          "gst-cuda-filters developers");
}

GstCaps* gst_cf_filter_template_caps(const char* more_formats) {
    const std::string formats =
        more_formats ? "{ " FORMAT_LIST ", " + std::string(more_formats) + " }" : std::string(VIDEO_FORMATS);
    const std::string fields = ", format = (string) " + formats + ", width = " GST_VIDEO_SIZE_RANGE
                               ", height = " GST_VIDEO_SIZE_RANGE ", framerate = " GST_VIDEO_FPS_RANGE;
    std::string caps = "video/x-raw" + fields;
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    caps = "video/x-raw(memory:CUDAMemory)" + fields + "; " + caps;
#endif
    return gst_caps_from_string(caps.c_str());
}

void gst_cf_filter_settings_changed(GstCfFilter* filter) {
    priv_of(filter)->generation.fetch_add(1, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------------------------------
// Frames

static GstFlowReturn gst_cf_filter_transform_unused(GstBaseTransform* trans, GstBuffer*, GstBuffer*) {
    GST_ELEMENT_ERROR(trans, CORE, NOT_IMPLEMENTED, (nullptr), ("transform() called; frames go through generate_output"));
    return GST_FLOW_NOT_SUPPORTED;
}

static GstFlowReturn gst_cf_filter_submit_input_buffer(GstBaseTransform* trans, gboolean is_discont,
                                                         GstBuffer* input) {
    auto* self = GST_CF_FILTER(trans);
    FilterPrivate* p = priv_of(self);
    StreamState& st = stream_state(self);
    std::unique_lock<std::mutex> lock(p->pipeLock);
    if (G_UNLIKELY(!st.executor)) {  // stopped while the sink pad is still active (see gst_cf_filter_stop)
        gst_buffer_unref(input);
        return GST_FLOW_FLUSHING;
    }
    if (G_UNLIKELY(st.pendingFlow != GST_FLOW_OK)) {  // a push downstream failed: say so now
        const GstFlowReturn ret = st.pendingFlow;
        st.pendingFlow = GST_FLOW_OK;
        gst_buffer_unref(input);
        return ret;
    }
    if (!refresh_work(self)) {
        gst_buffer_unref(input);
        return GST_FLOW_ERROR;
    }

    // QoS and renegotiation (set_caps, which takes the lock) happen in the parent, which leaves the buffer in
    // queued_buf unless it dropped it.
    lock.unlock();
    GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->submit_input_buffer(trans, is_discont, input);
    lock.lock();
    GstBuffer* inbuf = trans->queued_buf;
    trans->queued_buf = nullptr;
    if (!inbuf) {
        if (ret == GST_FLOW_OK || ret == GST_BASE_TRANSFORM_FLOW_DROPPED) st.discontNext = true;
        return ret;
    }
    if (ret != GST_FLOW_OK) {
        gst_buffer_unref(inbuf);
        return ret;
    }
    if (G_UNLIKELY(!st.negotiated)) {  // the caps were refused (an error is posted): never filter with stale state
        GST_DEBUG_OBJECT(self, "not negotiated: refusing the buffer");
        gst_buffer_unref(inbuf);
        return GST_FLOW_NOT_NEGOTIATED;
    }
    return submit_frame(self, lock, inbuf);
}

// Frames leave from the output task (outputtask.h), never from the chain function.
static GstFlowReturn gst_cf_filter_generate_output(GstBaseTransform*, GstBuffer** outbuf) {
    *outbuf = nullptr;
    return GST_FLOW_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Start and stop

// The run's CUDA context: the one shared with the neighbours (or offered to them), so that CUDA memory moves
// between the elements where it lies. Throws CudaError.
static void use_cuda_context(GstCfFilter* self, int deviceId, StreamState& st) {
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    if (!cuda_memory_available()) return;
    FilterPrivate* p = priv_of(self);
    auto shared = [&]() -> GstCudaContext* {  // transfer full
        GST_OBJECT_LOCK(self);
        if (p->sharedContext && deviceId >= 0 && cuda_context_device(p->sharedContext) != deviceId)
            gst_clear_object(&p->sharedContext);  // cuda-device-id changed since it was shared
        GstCudaContext* context = p->sharedContext ? static_cast<GstCudaContext*>(gst_object_ref(p->sharedContext)) : nullptr;
        GST_OBJECT_UNLOCK(self);
        return context;
    };
    GstCudaContext* context = shared();
    if (!context) {
        cuda_memory_ask_neighbours(GST_ELEMENT(self));  // an answer lands in sharedContext through set_context
        context = shared();
    }
    if (context) {
        GST_INFO_OBJECT(self, "working in the shared CUDA context %" GST_PTR_FORMAT, context);
    } else {
        context = cuda_memory_primary_context(GST_ELEMENT(self), deviceId);
        GST_OBJECT_LOCK(self);
        if (!p->sharedContext) p->sharedContext = static_cast<GstCudaContext*>(gst_object_ref(context));
        GST_OBJECT_UNLOCK(self);
    }
    st.cudaContext = std::shared_ptr<GstCudaContext>(context, [](GstCudaContext* c) { gst_object_unref(c); });
    st.cuContext = cuda_context_handle(context);
    st.device = cuda_context_device(context);
#else
    (void)self;
    (void)deviceId;
    (void)st;
#endif
}

// Prepares the run's state in `st`: settings checked, backend chosen, executor made (a CUDA context may be created
// here, which is why no lock is held).
static gboolean prepare_run(GstCfFilter* self, StreamState& st) {
    FilterPrivate* p = priv_of(self);
    GST_OBJECT_LOCK(self);
    p->settings.formatErrorPosted = false;
    const Settings settings = p->settings;
    GST_OBJECT_UNLOCK(self);

    try {
        GST_CF_FILTER_GET_CLASS(self)->check_settings(self);
    } catch (const InvalidArgument& e) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), e.what()),
                          (nullptr));
        return FALSE;
    }

    st.depth = settings.depth;
    st.autoBackend = settings.backend == GST_CF_FILTER_BACKEND_AUTO;
    st.executors = makeExecutorFactory(self);
    if (!st.executors) return FALSE;

    std::string why;
    st.backend = Backend::Cpu;
    if (settings.backend != GST_CF_FILTER_BACKEND_CPU) {
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
                use_cuda_context(self, settings.deviceId, st);
                make_executor(st);
            } catch (const std::exception& e) {
                why = e.what();
                st.backend = Backend::Cpu;
            }
        }
        if (!why.empty()) {
            if (settings.backend == GST_CF_FILTER_BACKEND_CUDA) {
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
    return TRUE;
}

// In push mode GstBaseTransform starts from the sink pad's activation, after the pad stopped flushing: a buffer or
// a serialized event can already be in the streaming thread, and may be blocked downstream (an EOS held by a
// prerolling sink) holding the stream lock. So start() takes no stream lock: it prepares the run's state and hands it
// over; the streaming thread adopts it on its next call, waiting while the start is under way.
static gboolean gst_cf_filter_start(GstBaseTransform* trans) {
    auto* self = GST_CF_FILTER(trans);
    FilterPrivate* p = priv_of(self);
    {
        std::lock_guard<std::mutex> lock(p->startLock);
        p->starting = true;
        p->started.reset();
        p->handOver.store(true, std::memory_order_release);
    }
    allow_output_task(self);
    p->latencyMeasured.store(0, std::memory_order_relaxed);
    p->latencyReported.store(GST_CLOCK_TIME_NONE, std::memory_order_relaxed);
    auto run = std::make_unique<StreamState>();
    gboolean ok = FALSE;
    try {
        ok = prepare_run(self, *run);
    } catch (const std::exception& e) {
        GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Could not start %s", GST_OBJECT_NAME(self)), ("%s", e.what()));
    }
    const int depth = run->depth;
    const char* backend = cudafilters::backendName(run->backend);
    {
        std::lock_guard<std::mutex> lock(p->startLock);
        p->starting = false;
        if (ok) p->started = std::move(run);
    }
    p->startDone.notify_all();
    if (ok) set_active_backend(self, backend, depth);
    return ok;
}

static gboolean gst_cf_filter_stop(GstBaseTransform* trans) {
    auto* self = GST_CF_FILTER(trans);
    FilterPrivate* p = priv_of(self);
    // The sink pad is inactive here: the stream lock only waits for a buffer or event still on its way out; one that
    // comes after finds no executor and is refused (found by the state-change concurrency test: a segfault in
    // set_caps on a null executor).
    stop_output_task(self);  // already stopped where the src pad deactivated first
    GST_PAD_STREAM_LOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    {
        std::lock_guard<std::mutex> lock(p->startLock);
        p->started.reset();
        p->handOver.store(false, std::memory_order_release);
    }
    {
        std::unique_lock<std::mutex> lock(p->pipeLock);
        StreamState& st = p->state;
        drop_queue(self, lock);
        if (st.executor) st.executor->makeCurrentForRelease();
        st.work.reset();
        st.executor.reset();
        st = StreamState();
    }
    GST_PAD_STREAM_UNLOCK(GST_BASE_TRANSFORM_SINK_PAD(trans));
    set_active_backend(self, "none", 0);
    return TRUE;
}

// ---------------------------------------------------------------------------------------------------------------
// Negotiation, events, queries

static gboolean configure_for_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps* outcaps) {
    auto* self = GST_CF_FILTER(trans);
    StreamState& st = stream_state(self);
    std::unique_lock<std::mutex> lock(priv_of(self)->pipeLock);
    if (!st.executor) return FALSE;  // stopped (see gst_cf_filter_stop)
    GstVideoInfo in, out;
    const bool inValid = gst_video_info_from_caps(&in, incaps);
    const bool outValid = inValid && gst_video_info_from_caps(&out, outcaps);
    for (const auto& [caps, info] : {std::pair{incaps, inValid ? &in : nullptr}, std::pair{outcaps, outValid ? &out : nullptr}}) {
        if (const std::string problem = frameSizeProblem(caps, info); !problem.empty()) {
            // GstBaseTransform tries the same caps again at the next event: one error for them is enough.
            if (problem != st.sizeProblemPosted)
                GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s: %s", GST_OBJECT_NAME(self), problem.c_str()),
                                  ("caps %" GST_PTR_FORMAT, caps));
            st.sizeProblemPosted = problem;
            return FALSE;
        }
    }
    if (!inValid || !outValid) {
        GST_ERROR_OBJECT(self, "invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps);
        return FALSE;
    }
    const bool mapsFormats = GST_CF_FILTER_GET_CLASS(self)->transform_formats != nullptr;
    if ((!mapsFormats && GST_VIDEO_INFO_FORMAT(&in) != GST_VIDEO_INFO_FORMAT(&out)) || in.width != out.width ||
        in.height != out.height) {
        GST_ERROR_OBJECT(self, "input and output formats differ");
        return FALSE;
    }
    if (const std::string problem = layoutProblem(in, planeLayouts(in)); !problem.empty()) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", problem.c_str()), (nullptr));
        return FALSE;
    }
    // A CAPS event drained the queue already; a renegotiation that downstream asked for (RECONFIGURE) did not: the
    // frames in flight leave first, in the memory and format they were made for (the source pad keeps the old caps
    // until this returns).
    if (st.framesQueued > 0) {
        const GstFlowReturn ret = drain(self, lock);
        if (ret != GST_FLOW_OK) st.pendingFlow = ret;
    }
    drop_queue(self, lock);
    st.inCudaMemory = caps_are_cuda_memory(incaps);
    st.outCudaMemory = caps_are_cuda_memory(outcaps);
    st.info = in;
    st.planes = planeLayouts(in);
    st.outInfo = out;
    st.outPlanes = planeLayouts(out);
    st.haveInfo = true;
    st.nextSlot = 0;
    try {
        st.executor->configure(st.info, st.planes, st.outInfo, st.outPlanes, st.depth);
    } catch (const CudaError& e) {
        if (!handle_cuda_failure(self, e)) return FALSE;
    }
    if (st.work) st.retired.push_back(std::move(st.work));
    st.executor->makeCurrentForRelease();
    st.retired.clear();
    st.haveWork = false;
    return rebuild_work(self, true);
}

static gboolean gst_cf_filter_set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps* outcaps) {
    StreamState& st = stream_state(GST_CF_FILTER(trans));
    st.negotiated = false;
    st.negotiated = configure_for_caps(trans, incaps, outcaps);
    return st.negotiated;
}

// Events after which the frames in flight must have left first: they end the stream or change what the frames
// mean (format, segment). Other serialized events wait in the queue behind the frames they follow.
static bool needs_drain(GstEvent* event) {
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
    case GST_EVENT_STREAM_START:
        return true;
    default:
        return false;
    }
}

static gboolean gst_cf_filter_sink_event(GstBaseTransform* trans, GstEvent* event) {
    auto* self = GST_CF_FILTER(trans);
    FilterPrivate* p = priv_of(self);
    if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_START) {  // from any thread: nothing may wait for the task now
        {
            std::lock_guard<std::mutex> lock(p->pipeLock);
            p->state.flushing = true;
        }
        p->pipeChanged.notify_all();
        return GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->sink_event(trans, event);
    }
    StreamState& st = stream_state(self);
    std::unique_lock<std::mutex> lock(p->pipeLock);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
        // The src pad flushes too (FLUSH_START went downstream): a push under way returns at once.
        p->pipeChanged.wait(lock, [&] { return !st.pushing && !st.completing; });
        drop_queue(self, lock);
        st.pendingFlow = GST_FLOW_OK;
        st.flushing = false;
        st.discontNext = false;
        if (st.work) st.work->reset();
        break;
    default:
        if (!GST_EVENT_IS_SERIALIZED(event)) break;
        if (!needs_drain(event)) {
            if (queue_event(self, event)) return TRUE;
            break;
        }
        if (const GstFlowReturn ret = drain(self, lock); ret != GST_FLOW_OK) {
            GST_DEBUG_OBJECT(self, "drain before %s: %s", GST_EVENT_TYPE_NAME(event), gst_flow_get_name(ret));
            if (GST_EVENT_TYPE(event) != GST_EVENT_EOS) {
                st.pendingFlow = ret;  // the next buffer returns it upstream
                break;
            }
            // At EOS nobody else hears of it: a downstream that refused the last frames is an error, as for a source.
            if (ret == GST_FLOW_NOT_LINKED || ret == GST_FLOW_NOT_NEGOTIATED) GST_ELEMENT_FLOW_ERROR(self, ret);
            lock.unlock();
            GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->sink_event(trans, event);
            return FALSE;
        }
        break;
    }
    lock.unlock();  // the parent may set caps (configure_for_caps takes the lock)
    return GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->sink_event(trans, event);
}

static gboolean gst_cf_filter_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query) {
    auto* self = GST_CF_FILTER(trans);
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
        GST_OBJECT_LOCK(self);
        GstCudaContext* context = priv_of(self)->sharedContext;
        if (context) gst_object_ref(context);
        GST_OBJECT_UNLOCK(self);
        const gboolean answered = cuda_memory_context_query(GST_ELEMENT(self), query, context);
        if (context) gst_object_unref(context);
        if (answered) return TRUE;
    }
#endif
    if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query)) return FALSE;
        gboolean live;
        GstClockTime min, max;
        gst_query_parse_latency(query, &live, &min, &max);
        // What the element adds: the slowest of the recent frames from submit to push (latencywindow.h), at least
        // the floor; nothing in passthrough.
        FilterPrivate* p = priv_of(self);
        GstClockTime own = 0;
        if (!gst_base_transform_is_passthrough(trans)) {
            own = std::max(kLatencyFloor, p->latencyMeasured.load(std::memory_order_relaxed));
            p->latencyReported.store(own, std::memory_order_relaxed);
        }
        GST_DEBUG_OBJECT(self, "latency: upstream %" GST_TIME_FORMAT ", own %" GST_TIME_FORMAT, GST_TIME_ARGS(min),
                         GST_TIME_ARGS(own));
        min += own;
        if (GST_CLOCK_TIME_IS_VALID(max)) max += own;
        gst_query_set_latency(query, live, min, max);
        return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->query(trans, direction, query);
}

// Whether the pads may carry CUDA memory now: GStreamer's CUDA library and a device are there and the backend is not
// the CPU.
static bool offers_cuda_memory(GstCfFilter* self) {
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    GST_OBJECT_LOCK(self);
    const bool cpu = priv_of(self)->settings.backend == GST_CF_FILTER_BACKEND_CPU;
    GST_OBJECT_UNLOCK(self);
    return !cpu && cuda_memory_available();
#else
    (void)self;
    return false;
#endif
}

// Each structure of `caps` in CUDA memory and in system memory, the input's memory first; or in system memory only.
// Every format goes in CUDA memory: those GStreamer 1.22's CUDA allocator has no layout for come from a
// GstCfFramePool (gstcfframepool.h).
static GstCaps* with_memory_features(GstCaps* caps, bool cudaMemory, bool cudaFirst) {
    if (gst_caps_is_any(caps)) return gst_caps_ref(caps);
    GstCaps* result = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GstStructure* s = gst_caps_get_structure(caps, i);
        for (int k = 0; k < 2; ++k) {
            const bool cuda = (k == 0) == cudaFirst;
            if (cuda && !cudaMemory) continue;
            result = gst_caps_merge_structure_full(result, gst_structure_copy(s),
                                                   cuda ? gst_caps_features_new(kCudaMemoryFeature, nullptr) : nullptr);
        }
    }
    return result;
}

// True when the peer of `pad` names CUDA memory in its caps (not merely ANY): it can take frames on the device.
static bool peer_takes_cuda_memory(GstPad* pad) {
    GstCaps* peer = gst_pad_peer_query_caps(pad, nullptr);
    bool takes = false;
    if (peer && !gst_caps_is_any(peer)) {
        for (guint i = 0; i < gst_caps_get_size(peer) && !takes; ++i) {
            GstCapsFeatures* features = gst_caps_get_features(peer, i);
            takes = features && !gst_caps_features_is_any(features) &&
                    gst_caps_features_contains(features, kCudaMemoryFeature);
        }
    }
    if (peer) gst_caps_unref(peer);
    return takes;
}

// Prefers CUDA memory on the output where downstream names it (a chain of these elements, NVIDIA's elements: the
// frames stay on the device), system memory otherwise: a sink that accepts anything gets host frames.
static GstCaps* gst_cf_filter_fixate_caps(GstBaseTransform* trans, GstPadDirection direction, GstCaps* caps,
                                            GstCaps* othercaps) {
    auto* self = GST_CF_FILTER(trans);
    if (direction == GST_PAD_SINK && gst_caps_get_size(othercaps) > 1 && offers_cuda_memory(self)) {
        const bool wantCuda = peer_takes_cuda_memory(GST_BASE_TRANSFORM_SRC_PAD(trans));
        for (guint i = 0; i < gst_caps_get_size(othercaps); ++i) {
            GstCapsFeatures* features = gst_caps_get_features(othercaps, i);
            const bool cuda = features && gst_caps_features_contains(features, kCudaMemoryFeature);
            if (cuda != wantCuda) continue;
            GstCaps* chosen = gst_caps_copy_nth(othercaps, i);
            gst_caps_unref(othercaps);
            othercaps = chosen;
            break;
        }
    }
    return GST_BASE_TRANSFORM_CLASS(gst_cf_filter_parent_class)->fixate_caps(trans, direction, caps, othercaps);
}

// The same caps on both pads unless the subclass maps formats (transform_formats), in CUDA or system memory.
static GstCaps* gst_cf_filter_transform_caps(GstBaseTransform* trans, GstPadDirection direction, GstCaps* caps,
                                               GstCaps* filter) {
    auto* self = GST_CF_FILTER(trans);
    GstCfFilterClass* klass = GST_CF_FILTER_GET_CLASS(self);
    GstCaps* result = nullptr;
    if (klass->transform_formats) {
        std::string why;
        result = klass->transform_formats(self, direction, caps, &why);
        if (result && gst_caps_is_empty(result) && !why.empty() && direction == GST_PAD_SINK &&
            gst_caps_is_fixed(caps)) {
            Settings& settings = priv_of(self)->settings;
            GST_OBJECT_LOCK(self);
            const bool post = !settings.formatErrorPosted;
            settings.formatErrorPosted = true;
            GST_OBJECT_UNLOCK(self);
            if (post)
                GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                                  ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), why.c_str()),
                                  ("input caps %" GST_PTR_FORMAT, caps));
        }
    }
    if (!result) result = gst_caps_ref(caps);
    GstCaps* withMemory = with_memory_features(result, offers_cuda_memory(self), caps_are_cuda_memory(caps));
    gst_caps_unref(result);
    result = withMemory;
    if (filter) {
        GstCaps* filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(result);
        result = filtered;
    }
    GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                     direction == GST_PAD_SINK ? "sink" : "src", caps, result);
    return result;
}

static gboolean gst_cf_filter_get_unit_size(GstBaseTransform*, GstCaps* caps, gsize* size) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return FALSE;
    *size = GST_VIDEO_INFO_SIZE(&info);
    return TRUE;
}

static gboolean gst_cf_filter_transform_meta(GstBaseTransform* trans, GstBuffer*, GstMeta* meta, GstBuffer*) {
    const StreamState& st = stream_state(GST_CF_FILTER(trans));
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

static void gst_cf_filter_before_transform(GstBaseTransform* trans, GstBuffer* buffer) {
    // No TIME segment (an upstream that sent a buffer before its segment): nothing to sync, and no CRITICAL.
    if (trans->segment.format != GST_FORMAT_TIME) return;
    const GstClockTime timestamp = GST_BUFFER_PTS(buffer);
    const GstClockTime streamTime = gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, timestamp);
    if (GST_CLOCK_TIME_IS_VALID(streamTime)) gst_object_sync_values(GST_OBJECT(trans), streamTime);
}

// ---------------------------------------------------------------------------------------------------------------
// GObject

// The base's properties all apply at start (GST_PARAM_MUTABLE_READY): while PAUSED or PLAYING a change is refused
// with an element warning and the value in effect stays, so a read never returns a value the run does not use.
static void gst_cf_filter_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
    auto* self = GST_CF_FILTER(object);
    Settings& s = priv_of(self)->settings;
    GST_OBJECT_LOCK(self);
    if (const GstState state = runningState(GST_ELEMENT(self)); state != GST_STATE_VOID_PENDING) {
        GST_OBJECT_UNLOCK(self);
        GValue kept = G_VALUE_INIT;
        g_value_init(&kept, pspec->value_type);
        g_object_get_property(object, pspec->name, &kept);
        refuseWhileRunning(GST_ELEMENT(self), pspec, value, &kept, state, nullptr);
        g_value_unset(&kept);
        return;
    }
    switch (prop_id) {
    case PROP_BACKEND:
        s.backend = GstCfFilterBackend(g_value_get_enum(value));
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

static void gst_cf_filter_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
    auto* self = GST_CF_FILTER(object);
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

static void gst_cf_filter_set_context(GstElement* element, GstContext* context) {
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    auto* self = GST_CF_FILTER(element);
    FilterPrivate* p = priv_of(self);
    GST_OBJECT_LOCK(self);
    const int device = p->settings.deviceId;
    GstCudaContext* shared = p->sharedContext;
    p->sharedContext = nullptr;
    GST_OBJECT_UNLOCK(self);
    cuda_memory_set_context(element, context, device, &shared);
    GST_OBJECT_LOCK(self);
    std::swap(p->sharedContext, shared);
    GST_OBJECT_UNLOCK(self);
    if (shared) gst_object_unref(shared);
#endif
    GST_ELEMENT_CLASS(gst_cf_filter_parent_class)->set_context(element, context);
}

static void gst_cf_filter_finalize(GObject* object) {
    auto* holder = static_cast<GstCfFilterPrivate*>(gst_cf_filter_get_instance_private(GST_CF_FILTER(object)));
    {
        std::unique_lock<std::mutex> lock(holder->priv->pipeLock);
        drop_queue(GST_CF_FILTER(object), lock);
    }
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    if (holder->priv->sharedContext) gst_object_unref(holder->priv->sharedContext);
#endif
    delete holder->priv;
    holder->priv = nullptr;
    G_OBJECT_CLASS(gst_cf_filter_parent_class)->finalize(object);
}

static void gst_cf_filter_init(GstCfFilter* self) {
    auto* holder = static_cast<GstCfFilterPrivate*>(gst_cf_filter_get_instance_private(self));
    holder->priv = new FilterPrivate();
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_gap_aware(GST_BASE_TRANSFORM(self), TRUE);  // GAP buffers pass as GAP (framepipeline.cpp)
    install_output_task(self);
}

// The base class's properties, shared by every element: backend, cuda-device-id, pipeline-depth, active-backend.
static void gst_cf_filter_install_properties(GObjectClass* gobject_class) {
    /**
     * GstCfFilter:backend:
     *
     * Where frames are filtered. `auto` uses CUDA when a device is usable, otherwise the CPU with a warning on the
     * bus; it also switches to the CPU, without losing a frame, when CUDA fails while playing.
     */
    g_object_class_install_property(gobject_class, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where frames are filtered: auto (CUDA when a device is usable, else the CPU with a warning), "
                          "cuda, or cpu",
                          GST_TYPE_CF_FILTER_BACKEND, DEFAULT_BACKEND,
                          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCfFilter:cuda-device-id:
     *
     * The CUDA device to run on, as numbered by the CUDA runtime; -1 picks the first.
     */
    g_object_class_install_property(gobject_class, PROP_CUDA_DEVICE_ID,
        g_param_spec_int("cuda-device-id", "CUDA device ID",
                         "CUDA device to run on (-1 = automatic: the first device)", -1, G_MAXINT16,
                         DEFAULT_CUDA_DEVICE_ID,
                         GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCfFilter:pipeline-depth:
     *
     * Frames in flight: up to d frames are filtered at once (the upload, filtering and download of successive
     * frames overlap on the GPU; the CPU backend filters them on d worker threads, as many as the cores), and the
     * streaming thread waits only while d frames are in flight. Each frame still leaves as soon as it is done, so
     * the depth adds no latency; 1 filters each frame on the streaming thread. Only in the NULL and READY states
     * (a change while PAUSED or PLAYING is refused with a warning), as #GstCfFilter:backend and
     * #GstCfFilter:cuda-device-id.
     */
    g_object_class_install_property(gobject_class, PROP_PIPELINE_DEPTH,
        g_param_spec_int("pipeline-depth", "Pipeline depth",
                         "Frames in flight, 1 to 4: filtered at the same time, each leaving as soon as it is done "
                         "(the depth adds no latency)",
                         1, MAX_PIPELINE_DEPTH, DEFAULT_PIPELINE_DEPTH,
                         GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
    /**
     * GstCfFilter:active-backend:
     *
     * The backend in use while running: "cuda", "cpu", or "none" when stopped.
     */
    g_object_class_install_property(gobject_class, PROP_ACTIVE_BACKEND,
        g_param_spec_string("active-backend", "Active backend",
                            "Backend in use while running: cuda, cpu, or none when stopped", "none",
                            GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

// The always sink and src pads, with the base formats in system memory (and CUDA memory where built with it).
static void gst_cf_filter_add_pad_templates(GstElementClass* element_class) {
    GstCaps* caps = gst_cf_filter_template_caps(nullptr);
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
}

// The GstBaseTransform vfuncs: frames go through submit_input_buffer / generate_output.
static void gst_cf_filter_set_transform_vfuncs(GstBaseTransformClass* trans_class) {
    trans_class->passthrough_on_same_caps = FALSE;
    trans_class->transform_ip_on_passthrough = FALSE;
    trans_class->start = gst_cf_filter_start;
    trans_class->stop = gst_cf_filter_stop;
    trans_class->set_caps = gst_cf_filter_set_caps;
    trans_class->sink_event = gst_cf_filter_sink_event;
    trans_class->query = gst_cf_filter_query;
    trans_class->transform_caps = gst_cf_filter_transform_caps;
    trans_class->fixate_caps = gst_cf_filter_fixate_caps;
    trans_class->get_unit_size = gst_cf_filter_get_unit_size;
    trans_class->transform_meta = gst_cf_filter_transform_meta;
    trans_class->propose_allocation = gst_cf_filter_propose_allocation;
    trans_class->decide_allocation = gst_cf_filter_decide_allocation;
    trans_class->before_transform = gst_cf_filter_before_transform;
    trans_class->submit_input_buffer = gst_cf_filter_submit_input_buffer;
    trans_class->generate_output = gst_cf_filter_generate_output;
    // Never called (submit_input_buffer / generate_output do the work), but GstBaseTransform treats a class without
    // `transform` as always-in-place: it then skips decide_allocation and proxies allocation queries, so the
    // output would come from plain system memory and upstream would never be offered the pinned pool.
    trans_class->transform = gst_cf_filter_transform_unused;
}

static void gst_cf_filter_class_init(GstCfFilterClass* klass) {
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(gst_cf_filter_debug, "cudafilter", 0, "CUDA video filter base");

    gobject_class->set_property = gst_cf_filter_set_property;
    gobject_class->get_property = gst_cf_filter_get_property;
    gobject_class->finalize = gst_cf_filter_finalize;
    gst_cf_filter_install_properties(gobject_class);

    gst_cf_filter_add_pad_templates(GST_ELEMENT_CLASS(klass));

    GST_ELEMENT_CLASS(klass)->set_context = gst_cf_filter_set_context;
    gst_cf_filter_set_transform_vfuncs(trans_class);

    gst_type_mark_as_plugin_api(GST_TYPE_CF_FILTER, GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(GST_TYPE_CF_FILTER_BACKEND, GstPluginAPIFlags(0));
}
