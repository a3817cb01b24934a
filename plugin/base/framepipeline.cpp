// SPDX-License-Identifier: LGPL-2.1-or-later
// The frame pipeline of GstCfFilter (see framepipeline.h).
#include "base/framepipeline.h"
#include "base/inputlayout.h"

#include <cudafilters/device.hpp>

#include <string>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {

using cudafilters::CudaError;
using cudafilters::InvalidArgument;

namespace {

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
        try {
            st.executor->submit(f);
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

// Takes the oldest entry (a frame) out of the queue once complete; returns its output buffer (transfer full).
GstFlowReturn finish_oldest(GstCfFilter* self, GstBuffer** outbuf) {
    StreamState& st = priv_of(self)->state;
    FrameInFlight& f = st.queue.front();
    if (f.outFence) {  // downstream waits for it on the GPU: it leaves now, its input stays until the work is over
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
    if (f.slot >= 0) {
        try {
            st.executor->complete(f);
        } catch (const std::exception& e) {
            const GstFlowReturn ret = report_failure(self, e);
            if (ret != GST_FLOW_OK) return ret;
            try {
                st.executor->complete(st.queue.front());  // now the CPU executor: nothing left to wait for
            } catch (const std::exception& e2) {
                return report_failure(self, e2);
            }
        }
        FrameInFlight& done = st.queue.front();
        if (done.work) done.work->frameDone(GST_ELEMENT(self), done.out, done.slot);
    }
    FrameInFlight done = std::move(st.queue.front());
    st.queue.pop_front();
    --st.framesQueued;
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

// Pushes the events at the head of the queue (they follow frames already pushed).
void push_leading_events(GstCfFilter* self) {
    StreamState& st = priv_of(self)->state;
    while (!st.queue.empty() && st.queue.front().event) {
        GstEvent* event = st.queue.front().event;
        st.queue.pop_front();
        GST_LOG_OBJECT(self, "pushing queued %" GST_PTR_FORMAT, event);
        gst_pad_push_event(GST_BASE_TRANSFORM_SRC_PAD(self), event);
    }
}

// The newest frame of the queue is a passthrough one: it must not wait behind frames that are held.
bool newest_frame_is_passthrough(const StreamState& st) {
    for (auto it = st.queue.rbegin(); it != st.queue.rend(); ++it)
        if (!it->event) return it->slot < 0;
    return false;
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
    config.current = atNegotiation ? nullptr : st.work;
    st.workGeneration = generation;  // a failure is not retried until the settings change again
    try {
        st.executor->makeCurrent();
        std::shared_ptr<FilterWork> work = st.executors->build([&] { return klass->make_work(self, config); });
        if (!work && GST_VIDEO_INFO_FORMAT(&st.info) != GST_VIDEO_INFO_FORMAT(&st.outInfo))
            throw InvalidArgument("the settings leave frames unchanged but the output format differs from the input's");
        if (!work && st.inCudaMemory != st.outCudaMemory) work = std::make_shared<CopyWork>();
        adopt_work(st, std::move(work));
        st.haveWork = true;
    } catch (const InvalidArgument& e) {
        if (atNegotiation || !st.haveWork) {
            GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings for %s: %s", GST_OBJECT_NAME(self), e.what()),
                              (nullptr));
            return FALSE;
        }
        GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                            ("Invalid settings for %s, keeping the previous ones: %s", GST_OBJECT_NAME(self), e.what()),
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

GstFlowReturn submit_frame(GstCfFilter* self, GstBuffer* inbuf) {
    GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
    StreamState& st = priv_of(self)->state;
    FrameInFlight frame;
    frame.in = inbuf;
    if (!st.work || gst_base_transform_is_passthrough(trans)) {
        frame.out = inbuf;
        st.queue.push_back(std::move(frame));
        ++st.framesQueued;
        return GST_FLOW_OK;
    }

    GstFlowReturn ret = GST_BASE_TRANSFORM_GET_CLASS(trans)->prepare_output_buffer(trans, inbuf, &frame.out);
    if (ret != GST_FLOW_OK || !frame.out) {
        gst_buffer_unref(inbuf);
        return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
    }
    if (!map_frame(self, st, frame)) {
        release_entry(frame);
        return GST_FLOW_ERROR;
    }
    frame.slot = int(st.nextSlot++ % guint64(st.depth));
    frame.work = st.work;
    frame.fenceOut = st.fenceDownstream && frame.outDevice && !frame.work->readsResultsWhenDone();
    release_pushed_through_slot(st, frame.slot);
    frame.index = st.submitted;
    ++st.submitted;
    try {
        st.executor->submit(frame);
    } catch (const std::exception& e) {
        st.queue.push_back(std::move(frame));  // fall_back_to_cpu redoes it with the others
        ++st.framesQueued;
        return report_failure(self, e);
    }
    st.queue.push_back(std::move(frame));
    ++st.framesQueued;
    return GST_FLOW_OK;
}

GstFlowReturn next_output(GstCfFilter* self, GstBuffer** outbuf) {
    StreamState& st = priv_of(self)->state;
    *outbuf = nullptr;
    push_leading_events(self);
    if (st.framesQueued == 0) return GST_FLOW_OK;
    // Hold depth − 1 frames; a passthrough frame at the end means everything before it leaves now.
    const bool full = st.framesQueued >= std::size_t(st.depth);
    const bool fenced = st.queue.front().outFence != nullptr;
    if (!full && !fenced && !newest_frame_is_passthrough(st)) return GST_FLOW_OK;
    return finish_oldest(self, outbuf);
}

gboolean queue_event(GstCfFilter* self, GstEvent* event) {
    StreamState& st = priv_of(self)->state;
    if (st.framesQueued == 0) return FALSE;
    GST_LOG_OBJECT(self, "queueing %" GST_PTR_FORMAT " behind %zu frames", event, st.framesQueued);
    FrameInFlight entry;
    entry.event = event;
    st.queue.push_back(std::move(entry));
    return TRUE;
}

GstFlowReturn drain(GstCfFilter* self) {
    StreamState& st = priv_of(self)->state;
    GstFlowReturn result = GST_FLOW_OK;
    if (st.framesQueued > 0) GST_DEBUG_OBJECT(self, "draining %zu frames", st.framesQueued);
    while (!st.queue.empty()) {
        push_leading_events(self);
        if (st.queue.empty()) break;
        GstBuffer* out = nullptr;
        const GstFlowReturn ret = finish_oldest(self, &out);
        if (ret != GST_FLOW_OK) {
            drop_queue(st);
            return ret;
        }
        if (result == GST_FLOW_OK) result = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
        else gst_buffer_unref(out);
    }
    release_finished_pushed(st, true);
    return result;
}

void drop_queue(StreamState& st) {
    if (st.executor) st.executor->synchronize();
    for (FrameInFlight& f : st.queue) release_entry(f);
    st.queue.clear();
    release_finished_pushed(st, true);
    st.framesQueued = 0;
    if (st.executor) st.executor->makeCurrentForRelease();
    st.retired.clear();
}

}  // namespace gstcudafilters
