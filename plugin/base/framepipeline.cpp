// SPDX-License-Identifier: LGPL-2.1-or-later
// The frame pipeline of GstCfFilter (see framepipeline.h).
#include "base/framepipeline.h"
#include "base/inputlayout.h"
#include "base/outputtask.h"

#include <cudafilters/device.hpp>

#include <algorithm>
#include <string>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {

using cudafilters::CudaError;
using cudafilters::InvalidArgument;

namespace {

// Waits on pipeChanged with pipeLock held by the caller, whichever lock object holds it.
template <class Predicate>
void wait_locked(FilterPrivate* p, Predicate ready) {
    std::unique_lock<std::mutex> adopted(p->pipeLock, std::adopt_lock);
    p->pipeChanged.wait(adopted, ready);
    adopted.release();
}

// The output task does not hold the queue's head (it may be completing it): the streaming thread may change it.
void wait_head_free(FilterPrivate* p) {
    wait_locked(p, [&] { return !p->state.completing; });
}

GstClockTime monotonic_now() { return GstClockTime(g_get_monotonic_time()) * GST_USECOND; }

void unmap_frame(FrameInFlight& entry) {
    if (!entry.mapped) return;
    gst_video_frame_unmap(&entry.inFrame);
    gst_video_frame_unmap(&entry.outFrame);
    entry.mapped = false;
}

// Maps a frame's buffers for its executor: on the device (GST_MAP_CUDA) where a buffer is CUDA memory of the run's
// context and the executor is CUDA, else on the host (GStreamer's CUDA memory then stages it itself). An input in
// CUDA memory of another context or device is mapped on the device too (inPeer): the executor copies it in on the GPU.
// On failure the error names the side and what the caps need.
bool map_frame(GstCfFilter* self, const StreamState& st, FrameInFlight& f) {
    const bool onDevice = st.executor->backend() == Backend::Cuda;
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    const CudaResidence in = onDevice ? buffer_cuda_residence(f.in, st.cudaContext.get()) : CudaResidence::Host;
    f.inDevice = in == CudaResidence::Ours;
    f.inPeer = in == CudaResidence::Other;
    f.outDevice = onDevice && buffer_cuda_residence(f.out, st.cudaContext.get()) == CudaResidence::Ours;
#else
    (void)onDevice;
    f.inDevice = f.outDevice = f.inPeer = false;
#endif
    const bool inOnDevice = f.inDevice || f.inPeer;
    // A neighbour of ours may have pushed the input before its work ended: the GPU waits for it where the frame is
    // read on the device, the host before it maps the frame.
    f.inFence = nullptr;
    if (std::shared_ptr<FrameFence> fence = buffer_frame_fence(f.in)) {
        if (inOnDevice) f.inFence = std::move(fence);
        else fence->wait();
    }
    const char* input = f.inDevice ? "on the device"
                        : f.inPeer ? "in CUDA memory of another context, copied by the GPU"
                                   : "on the host";
    GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": input %s, output %s (context %p)", st.submitted, input,
                   f.outDevice ? "on the device" : "on the host", static_cast<void*>(st.cudaContext.get()));
    std::string inputProblem = inputLayoutProblem(st.info, f.in);
    if (inputProblem.empty() &&
        !gst_video_frame_map(&f.inFrame, &st.info, f.in, GstMapFlags(GST_MAP_READ | (inOnDevice ? kMapCuda : 0))))
        inputProblem = "Could not map the input frame";
    if (!inputProblem.empty()) {
        GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("%s", inputProblem.c_str()), (nullptr));
        return false;
    }
    if (!gst_video_frame_map(&f.outFrame, &st.outInfo, f.out,
                             GstMapFlags(GST_MAP_WRITE | (f.outDevice ? kMapCuda : 0)))) {
        gst_video_frame_unmap(&f.inFrame);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the output frame"), (nullptr));
        return false;
    }
    f.mapped = true;
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    f.pendingStreams.clear();
    if (inOnDevice) buffer_pending_streams(f.in, st.cudaContext.get(), f.pendingStreams);
    // The output's earlier reader (GStreamer >= 1.24's elements read on their own stream) may still be queued.
    if (f.outDevice && f.out != f.in) buffer_pending_streams(f.out, st.cudaContext.get(), f.pendingStreams);
#endif
    return true;
}

// The work of a frame whose pixels stay as they are but whose memory changes (system ↔ CUDA memory, e.g. the
// identity preset between pads of different memory): the executor's plane copies do everything.
class CopyWork final : public FilterWork {
public:
    bool writesPlane(int) const override { return false; }
    void process(int, const std::vector<ImageView>&, const std::vector<ImageView>&, GpuStream) override {}
    std::shared_ptr<FilterWork> rebuild(Backend, int) const override { return std::make_shared<CopyWork>(); }
};

void release_entry(FrameInFlight& entry) {
    if (entry.event) gst_event_unref(entry.event);
    entry.event = nullptr;
    unmap_frame(entry);
    if (entry.out && entry.out != entry.in) gst_buffer_unref(entry.out);
    if (entry.in) gst_buffer_unref(entry.in);
    entry.in = entry.out = nullptr;
    entry.work.reset();
}

void release_pushed(PushedFrame& pushed) {
    gst_video_frame_unmap(&pushed.inFrame);
    gst_buffer_unref(pushed.in);
    pushed.in = nullptr;
    pushed.work.reset();
    pushed.fence.reset();
}

// Lets go of the inputs of pushed frames whose work is over; waits for the oldest while more than the pipeline depth
// are unfinished, so the host never runs further ahead of the GPU than with frames held (`all`: waits for every one).
void release_finished_pushed(StreamState& st, bool all) {
    while (!st.pushedUnfinished.empty()) {
        PushedFrame& oldest = st.pushedUnfinished.front();
        if (!oldest.fence->done()) {
            if (!all && st.pushedUnfinished.size() <= std::size_t(st.depth)) break;
            oldest.fence->wait();
        }
        release_pushed(oldest);
        st.pushedUnfinished.pop_front();
    }
}

// Before a frame starts in `slot`: the pushed frame that used the slot last (and those before it) must be done, since
// the slot's host staging area is rewritten by the CPU when the new frame starts.
void release_pushed_through_slot(StreamState& st, int slot) {
    std::size_t through = 0;
    for (std::size_t i = 0; i < st.pushedUnfinished.size(); ++i)
        if (st.pushedUnfinished[i].slot == slot) through = i + 1;
    for (; through > 0; --through) {
        st.pushedUnfinished.front().fence->wait();
        release_pushed(st.pushedUnfinished.front());
        st.pushedUnfinished.pop_front();
    }
}

// Frees replaced work objects. The last reference to one goes once no frame in flight uses it, so its GPU work is
// done, and its destructor frees its memory stream-ordered (cuda_raii.hpp, LastUse) without waiting for the device:
// frames of other slots and other elements keep running.
void collect_retired(StreamState& st) {
    if (st.retired.empty()) return;
    st.executor->makeCurrentForRelease();
    st.retired.clear();
}

// Replaces the work in use; the old one is freed once the frames using it are done.
void adopt_work(StreamState& st, std::shared_ptr<FilterWork> work) {
    if (work == st.work) return;
    if (st.work) st.retired.push_back(std::move(st.work));
    st.work = std::move(work);
}

// backend=auto: where the run's executor factory says the failure leaves the CPU to continue on.
bool falls_back(const StreamState& st, const CudaError& error) {
    return st.autoBackend && st.executors->fallsBack(error, st.backend);
}

void apply_passthrough(GstCfFilter* self, bool atNegotiation) {
    const StreamState& st = priv_of(self)->state;
    const gboolean passthrough = st.work == nullptr;
    if (passthrough != gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(self))) {
        GST_DEBUG_OBJECT(self, "passthrough %d", passthrough);
        gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), passthrough);
        if (!atNegotiation) gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
    }
}

// backend=auto after a CUDA failure: continue on the CPU from the last valid settings (the work in use, rebuilt on
// the CPU — never the CUDA objects themselves), then take the current settings if they are valid; every frame in
// flight is redone there so none is lost. FALSE (with an element error posted) when the CPU cannot take over.
gboolean fall_back_to_cpu(GstCfFilter* self, const CudaError& error) {
    StreamState& st = priv_of(self)->state;
    GST_ELEMENT_WARNING(self, LIBRARY, FAILED,
                        ("CUDA failed in %s; %s continues on the CPU", error.call().c_str(), GST_OBJECT_NAME(self)),
                        ("%s", error.what()));
    // The executor is replaced and every frame redone: the output task first finishes the head it is waiting for
    // (it may fail there too and fall back itself).
    const FrameExecutor* failed = st.executor.get();
    wait_head_free(priv_of(self));
    if (st.executor.get() != failed) return TRUE;
    if (st.executor) st.executor->synchronize();
    st.backend = Backend::Cpu;
    // Each frame in flight is redone with the settings it was started with; the work in use is the last valid one.
    std::vector<std::pair<FilterWork*, std::shared_ptr<FilterWork>>> onCpu;
    auto cpuWork = [&](const std::shared_ptr<FilterWork>& work) -> std::shared_ptr<FilterWork> {
        if (!work) return nullptr;
        for (const auto& [cuda, cpu] : onCpu)
            if (cuda == work.get()) return cpu;
        onCpu.emplace_back(work.get(), work->rebuild(Backend::Cpu, st.depth));
        return onCpu.back().second;
    };
    std::shared_ptr<FilterWork> lastValid;
    try {
        lastValid = cpuWork(st.work);
        for (FrameInFlight& f : st.queue)
            if (!f.event && f.slot >= 0) f.work = cpuWork(f.work);
        if (st.executor) st.executor->makeCurrentForRelease();
        st.retired.clear();
        st.work.reset();
        make_executor(st);
    } catch (const std::exception& e) {
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Could not switch to the CPU backend"), ("%s", e.what()));
        return FALSE;
    }
    st.work = std::move(lastValid);
    set_active_backend(self, "cpu", st.depth);
    if (st.haveInfo) {
        st.workGeneration = 0;  // the current settings, if valid, on the CPU; else the last valid ones stay
        if (!rebuild_work(self, false)) return FALSE;
    }
    release_finished_pushed(st, true);
    for (FrameInFlight& f : st.queue) {
        if (f.event || f.slot < 0 || !f.work) continue;
        f.fenceOut = false;
        f.outFence.reset();
        if (f.inDevice || f.inPeer || f.outDevice) {  // the CPU reads and writes them through host mappings
            unmap_frame(f);
            if (!map_frame(self, st, f)) return FALSE;
        }
        f.started = false;
        try {
            st.executor->submit(f);
            f.started = true;
        } catch (const std::exception& e) {
            GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Filtering on the CPU failed"), ("%s", e.what()));
            return FALSE;
        }
    }
    return TRUE;
}

GstFlowReturn report_failure(GstCfFilter* self, const std::exception& e) {
    if (const auto* cuda = dynamic_cast<const CudaError*>(&e))
        return handle_cuda_failure(self, *cuda) ? GST_FLOW_OK : GST_FLOW_ERROR;
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Filtering failed: %s", e.what()), (nullptr));
    return GST_FLOW_ERROR;
}

// Records how long a frame's work took: from its submit, or from the end of the output task's last push if that was
// later, to its completion. The time the task spent pushing earlier frames into a sink that holds them until their
// render time is left out: counted, it would raise the answer, the sinks' deadlines, and so the time pushes block
// (the LATENCY answer would feed on itself). A grown window maximum is announced with a LATENCY message once a
// LATENCY query has answered (the pipeline then asks again and gives the sinks the new figure).
void record_latency(GstCfFilter* self, GstClockTime from) {
    if (!GST_CLOCK_TIME_IS_VALID(from)) return;
    FilterPrivate* p = priv_of(self);
    p->state.latency.add(monotonic_now() - from);
    const GstClockTime measured = p->state.latency.max();
    p->latencyMeasured.store(measured, std::memory_order_relaxed);
    GstClockTime reported = p->latencyReported.load(std::memory_order_relaxed);
    if (GST_CLOCK_TIME_IS_VALID(reported) && measured > reported &&
        p->latencyReported.compare_exchange_strong(reported, measured)) {
        GST_INFO_OBJECT(self, "latency grew to %" GST_TIME_FORMAT, GST_TIME_ARGS(measured));
        gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
    }
}

// Waits for the head frame outside the lock (the streaming thread submits meanwhile). FALSE: it failed and the
// failure was handled (a fallback redid it on the CPU: *ret OK, wait again) or not (*ret the error).
bool complete_head(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstFlowReturn* ret) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    FrameInFlight& f = st.queue.front();  // stays in place: the streaming thread only appends while completing
    FrameExecutor* executor = st.executor.get();
    st.completing = true;
    lock.unlock();
    std::exception_ptr failure;
    try {
        executor->complete(f);
    } catch (...) {
        failure = std::current_exception();
    }
    lock.lock();
    st.completing = false;
    p->pipeChanged.notify_all();
    if (!failure) return true;
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        *ret = report_failure(self, e);
    }
    return false;
}

// Takes the oldest entry (a frame) out of the queue once complete; returns its output buffer (transfer full), or
// null with GST_FLOW_OK when it must be waited for again.
GstFlowReturn finish_oldest(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstBuffer** outbuf) {
    StreamState& st = priv_of(self)->state;
    *outbuf = nullptr;
    if (st.queue.front().outFence) {  // downstream waits for it on the GPU: it leaves now, its input stays until the work is over
        FrameInFlight done = std::move(st.queue.front());
        st.queue.pop_front();
        --st.framesQueued;
        gst_video_frame_unmap(&done.outFrame);
        buffer_add_frame_fence(done.out, done.outFence);
        st.pushedUnfinished.push_back({done.in, done.inFrame, std::move(done.work), std::move(done.outFence), done.slot});
        *outbuf = done.out;
        release_finished_pushed(st, false);
        collect_retired(st);
        return GST_FLOW_OK;
    }
    GstClockTime timedFrom = st.queue.front().submittedAt;
    if (GST_CLOCK_TIME_IS_VALID(timedFrom) && GST_CLOCK_TIME_IS_VALID(st.lastPushEnd))
        timedFrom = std::max(timedFrom, st.lastPushEnd);
    if (st.queue.front().slot >= 0) {
        GstFlowReturn ret = GST_FLOW_OK;
        if (!complete_head(self, lock, &ret)) return ret;
        if (st.flushing) return GST_FLOW_OK;  // it stays for FLUSH_STOP to drop
        FrameInFlight& done = st.queue.front();
        if (done.work) done.work->frameDone(GST_ELEMENT(self), done.out, done.slot);
    }
    FrameInFlight done = std::move(st.queue.front());
    st.queue.pop_front();
    --st.framesQueued;
    record_latency(self, timedFrom);
    unmap_frame(done);
    *outbuf = done.out;
    if (done.out != done.in) gst_buffer_unref(done.in);
    done.in = done.out = nullptr;
    if (done.work && done.work != st.work) st.retired.push_back(std::move(done.work));
    done.work.reset();
    release_finished_pushed(st, false);  // left from before a renegotiation that ended the fences
    collect_retired(st);
    return GST_FLOW_OK;
}

// Pushes `event` or `buffer` (transfer full) downstream without the lock, as the one pushing.
GstFlowReturn push_unlocked(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstEvent* event, GstBuffer* buffer) {
    FilterPrivate* p = priv_of(self);
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(self);
    p->state.pushing = true;
    lock.unlock();
    GstFlowReturn ret = GST_FLOW_OK;
    if (event) {
        GST_LOG_OBJECT(self, "pushing queued %" GST_PTR_FORMAT, event);
        gst_pad_push_event(src, event);
    } else {
        ret = gst_pad_push(src, buffer);
    }
    lock.lock();
    p->state.pushing = false;
    p->state.lastPushEnd = monotonic_now();
    p->pipeChanged.notify_all();
    return ret;
}

// Keeps what upstream said about the frame on its output: every buffer flag (GAP, DISCONT, DELTA_UNIT, the video
// flags, …) but the memory tag, and a discontinuity where the parent dropped the frame before (QoS).
void keep_input_flags(GstBuffer* in, GstBuffer* out, bool discont) {
    constexpr guint kMiniObjectFlags = GST_MINI_OBJECT_FLAG_LAST - 1;
    const guint kept = ~guint(kMiniObjectFlags) & ~guint(GST_BUFFER_FLAG_TAG_MEMORY);
    GST_BUFFER_FLAGS(out) = (GST_BUFFER_FLAGS(out) & ~kept) | (GST_BUFFER_FLAGS(in) & kept);
    if (discont) GST_BUFFER_FLAG_SET(out, GST_BUFFER_FLAG_DISCONT);
}

// A GAP buffer leaves as it came, unfiltered (its samples mean nothing), where it can stand for an output frame: it
// is empty, or the pads have the same format and memory.
bool passes_gap(const StreamState& st, GstBuffer* inbuf) {
    if (!GST_BUFFER_FLAG_IS_SET(inbuf, GST_BUFFER_FLAG_GAP)) return false;
    if (gst_buffer_get_size(inbuf) == 0) return true;
    return GST_VIDEO_INFO_FORMAT(&st.info) == GST_VIDEO_INFO_FORMAT(&st.outInfo) && st.inCudaMemory == st.outCudaMemory;
}

// Queues a frame that leaves as it came (passthrough, a GAP): it waits for nothing but the frames before it. With
// nothing before it, it is pushed at once.
GstFlowReturn pass_frame(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstBuffer* inbuf) {
    StreamState& st = priv_of(self)->state;
    if (st.discontNext) {
        inbuf = gst_buffer_make_writable(inbuf);
        GST_BUFFER_FLAG_SET(inbuf, GST_BUFFER_FLAG_DISCONT);
        st.discontNext = false;
    }
    if (st.queue.empty() && !st.pushing && !st.completing) return push_unlocked(self, lock, nullptr, inbuf);
    FrameInFlight frame;
    frame.in = frame.out = inbuf;
    st.queue.push_back(std::move(frame));
    ++st.framesQueued;
    ensure_output_task(self);
    priv_of(self)->pipeChanged.notify_all();
    return GST_FLOW_OK;
}


// The head of the queue may leave: an event, a passthrough frame or a started frame (one whose submit failed waits
// for the fallback to redo it, or to drop it), and no thread holds the head (completing or pushing it). While
// flushing nothing leaves: FLUSH_STOP drops what is queued.
bool head_can_leave(const StreamState& st) {
    if (st.queue.empty() || st.flushing || st.pushing || st.completing) return false;
    const FrameInFlight& head = st.queue.front();
    return head.event || head.slot < 0 || head.started;
}

// Sends the head of the queue downstream, a frame once its work is complete, from the thread that holds the lock
// (the output task, or the streaming thread while frames arrive faster than they finish). Returns the push's flow,
// or the failure of the frame's work (everything queued is then dropped).
GstFlowReturn push_head(GstCfFilter* self, std::unique_lock<std::mutex>& lock) {
    StreamState& st = priv_of(self)->state;
    if (GstEvent* event = st.queue.front().event) {
        st.queue.front().event = nullptr;
        st.queue.pop_front();
        return push_unlocked(self, lock, event, nullptr);
    }
    GstBuffer* out = nullptr;
    GstFlowReturn ret = finish_oldest(self, lock, &out);
    if (ret != GST_FLOW_OK) {  // an element error is posted: nothing queued can leave
        drop_queue(self, lock);
        return ret;
    }
    if (!out) return GST_FLOW_OK;  // redone on the CPU after a CUDA failure, or flushing: not sent now
    ret = push_unlocked(self, lock, nullptr, out);
    if (ret != GST_FLOW_OK) GST_DEBUG_OBJECT(self, "push: %s", gst_flow_get_name(ret));
    return ret;
}
}  // namespace

void make_executor(StreamState& st) {
    if (st.executor) {
        st.executor->synchronize();
        st.executor->makeCurrentForRelease();
    }
    st.executor.reset();
    st.executor = st.executors->make(st.backend, st.device, st.cuContext);
    if (st.haveInfo) st.executor->configure(st.info, st.planes, st.outInfo, st.outPlanes, st.depth);
}

gboolean handle_cuda_failure(GstCfFilter* self, const CudaError& error) {
    if (falls_back(priv_of(self)->state, error)) return fall_back_to_cpu(self, error);
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("CUDA failed in %s", error.call().c_str()), ("%s", error.what()));
    return FALSE;
}

gboolean rebuild_work(GstCfFilter* self, bool atNegotiation) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    GstCfFilterClass* klass = GST_CF_FILTER_GET_CLASS(self);
    const unsigned generation = p->generation.load(std::memory_order_acquire);
    WorkConfig config;
    config.info = &st.info;
    config.planes = st.planes;
    config.outInfo = &st.outInfo;
    config.outPlanes = st.outPlanes;
    config.backend = st.backend;
    config.slots = st.depth;
    // The CPU executor's workers may be filtering with the work in use: a change builds a new one, which the frames
    // submitted from now on take, instead of retuning it under their feet.
    const bool inUseOnWorkers = st.backend == Backend::Cpu && st.depth > 1 && st.work && st.work->slotsConcurrent();
    config.current = atNegotiation || inUseOnWorkers ? nullptr : st.work;
    st.workGeneration = generation;  // a failure is not retried until the settings change again
    try {
        st.executor->makeCurrent();
        std::shared_ptr<FilterWork> work = st.executors->build([&] { return klass->make_work(self, config); });
        if (!work && GST_VIDEO_INFO_FORMAT(&st.info) != GST_VIDEO_INFO_FORMAT(&st.outInfo))
            throw InvalidArgument("the settings leave frames unchanged but the output format differs from the input's");
        if (!work && st.inCudaMemory != st.outCudaMemory) work = std::make_shared<CopyWork>();
        adopt_work(st, std::move(work));
        st.haveWork = true;
        if (klass->settings_applied) klass->settings_applied(self);
    } catch (const InvalidArgument& e) {
        if (atNegotiation || !st.haveWork) {
            GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), e.what()),
                              (nullptr));
            return FALSE;
        }
        // The properties read back the values in effect again, and the warning names the values refused.
        const std::string refused = klass->settings_refused ? klass->settings_refused(self) : std::string();
        const std::string which = refused.empty() ? std::string() : " (" + refused + ")";
        GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                            ("Invalid settings for %s%s, keeping the previous ones: %s", GST_OBJECT_NAME(self),
                             which.c_str(), e.what()),
                            (nullptr));
        return TRUE;
    } catch (const CudaError& e) {
        return handle_cuda_failure(self, e);  // a fallback applies the settings on the CPU itself
    } catch (const std::exception& e) {  // anything else from a library below: an error, never a crash
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Could not build the filter of %s: %s", GST_OBJECT_NAME(self), e.what()),
                          (nullptr));
        return FALSE;
    }
    apply_passthrough(self, atNegotiation);
    return TRUE;
}

gboolean refresh_work(GstCfFilter* self) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    if (st.haveInfo && p->generation.load(std::memory_order_acquire) != st.workGeneration) return rebuild_work(self, false);
    return TRUE;
}

GstFlowReturn submit_frame(GstCfFilter* self, std::unique_lock<std::mutex>& lock, GstBuffer* inbuf) {
    GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    // Back-pressure: at most pipeline-depth frames in flight. While the pipeline is full (frames come faster than
    // they finish) the streaming thread sends the oldest itself when the output task has not taken it yet.
    while (st.framesQueued >= std::size_t(st.depth) && !st.flushing && !p->taskStop) {
        if (!head_can_leave(st)) {
            p->pipeChanged.wait(lock, [&] {
                return st.framesQueued < std::size_t(st.depth) || head_can_leave(st) || st.flushing || p->taskStop;
            });
            continue;
        }
        const GstFlowReturn pushed = push_head(self, lock);
        if (pushed != GST_FLOW_OK) {
            gst_buffer_unref(inbuf);
            return pushed;
        }
    }
    if (st.flushing || p->taskStop) {
        gst_buffer_unref(inbuf);
        return GST_FLOW_FLUSHING;
    }
    if (st.pendingFlow != GST_FLOW_OK) {  // the output task failed while this frame waited
        const GstFlowReturn ret = st.pendingFlow;
        st.pendingFlow = GST_FLOW_OK;
        gst_buffer_unref(inbuf);
        return ret;
    }
    if (!st.work || gst_base_transform_is_passthrough(trans) || passes_gap(st, inbuf)) return pass_frame(self, lock, inbuf);

    FrameInFlight frame;
    frame.in = inbuf;
    frame.submittedAt = monotonic_now();
    GstFlowReturn ret = GST_BASE_TRANSFORM_GET_CLASS(trans)->prepare_output_buffer(trans, inbuf, &frame.out);
    if (ret != GST_FLOW_OK || !frame.out) {
        gst_buffer_unref(inbuf);
        return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
    }
    keep_input_flags(inbuf, frame.out, st.discontNext);
    st.discontNext = false;
    if (!map_frame(self, st, frame)) {
        release_entry(frame);
        return GST_FLOW_ERROR;
    }
    // A slot's first frame after configuration may allocate (staging, graphs): it does not count as latency.
    if (st.nextSlot < guint64(st.depth)) frame.submittedAt = GST_CLOCK_TIME_NONE;
    frame.slot = int(st.nextSlot++ % guint64(st.depth));
    frame.work = st.work;
    frame.fenceOut = st.fenceDownstream && frame.outDevice && !frame.work->readsResultsWhenDone();
    release_pushed_through_slot(st, frame.slot);
    frame.index = st.submitted;
    ++st.submitted;
    st.queue.push_back(std::move(frame));  // in place before submit: the CPU executor's workers keep its address
    ++st.framesQueued;
    ensure_output_task(self);
    try {
        st.executor->submit(st.queue.back());
        st.queue.back().started = true;
    } catch (const std::exception& e) {
        ret = report_failure(self, e);  // fall_back_to_cpu redoes it with the others
        if (ret != GST_FLOW_OK) {  // the task has not seen it (the lock was held since it was queued); a worker may
            st.executor->synchronize();
            release_entry(st.queue.back());
            st.queue.pop_back();
            --st.framesQueued;
        }
    }
    p->pipeChanged.notify_all();
    return ret;
}

void push_next(GstCfFilter* self, std::unique_lock<std::mutex>& lock) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    p->pipeChanged.wait(lock, [&] { return p->taskStop || head_can_leave(st); });
    if (p->taskStop) return;
    const GstFlowReturn ret = push_head(self, lock);
    if (ret != GST_FLOW_OK && st.pendingFlow == GST_FLOW_OK && !st.flushing) st.pendingFlow = ret;
}

gboolean queue_event(GstCfFilter* self, GstEvent* event) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    if (st.queue.empty() && !st.pushing && !st.completing) return FALSE;
    GST_LOG_OBJECT(self, "queueing %" GST_PTR_FORMAT " behind %zu frames", event, st.framesQueued);
    FrameInFlight entry;
    entry.event = event;
    st.queue.push_back(std::move(entry));
    ensure_output_task(self);
    p->pipeChanged.notify_all();
    return TRUE;
}

GstFlowReturn drain(GstCfFilter* self, std::unique_lock<std::mutex>& lock) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    if (st.framesQueued > 0) GST_DEBUG_OBJECT(self, "draining %zu frames", st.framesQueued);
    p->pipeChanged.wait(lock, [&] {
        return (st.queue.empty() && !st.pushing && !st.completing) || st.flushing || p->taskStop;
    });
    if (!st.queue.empty() || st.pushing || st.completing) return GST_FLOW_FLUSHING;
    release_finished_pushed(st, true);
    const GstFlowReturn ret = st.pendingFlow;
    st.pendingFlow = GST_FLOW_OK;
    return ret;
}

void drop_queue(GstCfFilter* self, std::unique_lock<std::mutex>&) {
    FilterPrivate* p = priv_of(self);
    StreamState& st = p->state;
    wait_head_free(p);
    if (st.executor) st.executor->synchronize();
    for (FrameInFlight& f : st.queue) release_entry(f);
    st.queue.clear();
    release_finished_pushed(st, true);
    st.framesQueued = 0;
    if (st.executor) st.executor->makeCurrentForRelease();
    st.retired.clear();
    p->pipeChanged.notify_all();
}

}  // namespace gstcudafilters
