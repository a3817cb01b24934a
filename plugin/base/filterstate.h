// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The private state of a GstCfFilter, shared by the files of the base: the settings (under the object lock), the
// stream state (owned by the streaming thread) and the hand-over of a new run's state from start() to that thread.
#include "memory/gstcudainterop.h"
#include "executors/executorfactory.h"
#include "executors/frameexecutor.h"
#include "base/gstcffilter.h"
#include "base/latencywindow.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gstcudafilters {

constexpr int kDefaultPipelineDepth = 2;
constexpr int kMaxPipelineDepth = 4;

// Written by property setters under the object lock; read by start() and the LATENCY query.
struct Settings {
    GstCfFilterBackend backend = GST_CF_FILTER_BACKEND_AUTO;
    int deviceId = -1;
    int depth = kDefaultPipelineDepth;
    const char* activeBackend = "none";
    int runningDepth = 0;  // the depth the running pipeline was started with (pipeline-depth applies at start); 0 stopped
    bool formatErrorPosted = false;  // one LIBRARY/SETTINGS error per run for unmappable input caps (transform_caps
                                     // runs on any thread)
};

// A frame pushed before its GPU work ended (its output carries a fence for a neighbour of ours): its input stays
// mapped and referenced, and its work alive, until the fence says the GPU is done with them.
struct PushedFrame {
    GstBuffer* in = nullptr;  // owned reference
    GstVideoFrame inFrame{};  // mapped
    std::shared_ptr<FilterWork> work;
    std::shared_ptr<FrameFence> fence;
    int slot = -1;
};

// Set up by the streaming thread (stop() touches it only under the sink stream lock); the frame pipeline's part
// (queue, executor, work) is shared with the output task under FilterPrivate::pipeLock.
struct StreamState {
    Backend backend = Backend::Cpu;
    bool autoBackend = false;
    int device = 0;
    int depth = kDefaultPipelineDepth;
    // The GstCudaContext the run works in (shared with the neighbours; null without GStreamer's CUDA library or on
    // the CPU) and its CUcontext, made current wherever the executor works.
    std::shared_ptr<GstCudaContext> cudaContext;
    void* cuContext = nullptr;
    std::shared_ptr<ExecutorFactory> executors;  // made at start: every executor and work of the run come from it
    std::unique_ptr<FrameExecutor> executor;

    GstVideoInfo info{};
    bool haveInfo = false;
    std::string sizeProblemPosted;  // the last caps refused for their frame size, posted as an error once
    bool negotiated = false;  // the last set_caps succeeded: GstBaseTransform's own check is in the generate_output
                              // we replace, so without this frames would run on a half-configured executor
    std::vector<PlaneLayout> planes;
    GstVideoInfo outInfo{};                // == info unless transform_formats negotiated another format
    std::vector<PlaneLayout> outPlanes;
    bool inCudaMemory = false;             // memory:CUDAMemory negotiated on the sink / src pad
    bool outCudaMemory = false;
    bool fenceDownstream = false;          // downstream (one of ours) waits for a frame's fence on the GPU itself

    std::shared_ptr<FilterWork> work;  // null: passthrough
    unsigned workGeneration = 0;
    bool haveWork = false;

    std::deque<FrameInFlight> queue;   // frames and the serialized events between them, in stream order
    std::size_t framesQueued = 0;      // the frames (not events) in `queue`
    std::deque<PushedFrame> pushedUnfinished;  // in push order
    std::vector<std::shared_ptr<FilterWork>> retired;  // replaced work objects, freed once no frame uses them
    guint64 nextSlot = 0;
    guint64 submitted = 0;
    // A push's failure (the output task's, or a drain's before an event), returned upstream for the next buffer.
    GstFlowReturn pendingFlow = GST_FLOW_OK;
    bool discontNext = false;  // the parent dropped a frame (QoS): the next output is a discontinuity

    // The output task (outputtask.h) works on the head of `queue` outside the pipeline lock while these are set; the
    // streaming thread then neither drops nor redoes that entry, nor replaces the executor.
    bool completing = false;   // waiting for the head frame (FrameExecutor::complete)
    bool pushing = false;      // pushing an entry it took out of the queue
    bool flushing = false;     // between FLUSH_START and FLUSH_STOP: nothing waits for the task
    LatencyWindow latency;     // how long frames' work took (record_latency)
    GstClockTime lastPushEnd = GST_CLOCK_TIME_NONE;  // monotonic, when the output task's last push returned
};

struct FilterPrivate {
    Settings settings;
    std::atomic<unsigned> generation{1};
    StreamState state;

    // start() prepares the next run's StreamState without the stream lock (it may create a CUDA context); the
    // streaming thread adopts it on its next call, waiting while a start is under way. So start() never waits for a
    // streaming thread that is blocked downstream (an EOS held by a prerolling sink).
    std::mutex startLock;
    std::condition_variable startDone;
    bool starting = false;
    std::unique_ptr<StreamState> started;
    std::atomic<bool> handOver{false};  // `starting` or `started` set: the streaming thread must look

    // The frame pipeline is shared by the streaming thread (frames and events in) and the output task (frames and
    // events out, from the src pad's task): `state`'s queue, executor and work are used under this lock; the waits
    // of either side (back-pressure, drain, an empty queue) are on `pipeChanged`.
    std::mutex pipeLock;
    std::condition_variable pipeChanged;
    std::thread outputThread;  // the output task (outputtask.h)
    bool taskRunning = false;  // it runs (under pipeLock)
    bool taskStop = false;     // the src pad is being deactivated: the task returns, nothing waits for it

    // The latency the element adds, measured by the output task and answered in the LATENCY query (latencywindow.h).
    std::atomic<GstClockTime> latencyMeasured{0};
    std::atomic<GstClockTime> latencyReported{GST_CLOCK_TIME_NONE};  // the last answer; none before a query

    // A CUDA context offered through set_context (by the application or a neighbour), or the one this element made
    // and announced; answers the neighbours' CONTEXT queries. Owned reference, under the object lock.
    GstCudaContext* sharedContext = nullptr;
};

FilterPrivate* priv_of(GstCfFilter* self);

// The streaming thread's state, with a finished start() adopted first.
StreamState& stream_state(GstCfFilter* self);

void set_active_backend(GstCfFilter* self, const char* name, int runningDepth);

}  // namespace gstcudafilters
