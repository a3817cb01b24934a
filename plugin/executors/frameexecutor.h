// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Runs frames of a GstCfFilter on one backend. A frame is started in its slot (submit, on the streaming thread) and
// later completed in frame order (complete, on the output task's thread): a slot's complete may run while another
// slot is submitted. CUDA: submit enqueues upload, filtering and download on the slot's own stream and returns;
// complete waits on the slot's event. CPU: submit hands the frame to the slot's worker thread where the work allows
// slots at once (FilterWork::slotsConcurrent), else filters it at once; complete waits for the worker.
#include "base/filterwork.h"
#include "memory/framefence.h"

#include <cudafilters/error.hpp>

#include <gst/video/video.h>

#include <memory>
#include <string>
#include <vector>

namespace gstcudafilters {

// One entry of the element's in-order queue: a frame in the pipeline, with its buffers (mapped for the duration) and
// the work object it was started with; or (event set) a serialized event that leaves after the frames before it.
struct FrameInFlight {
    GstEvent* event = nullptr;      // owned reference; the entry is this event, not a frame
    GstBuffer* in = nullptr;        // owned reference
    GstBuffer* out = nullptr;       // owned reference; == in for a passthrough frame
    GstVideoFrame inFrame{};
    GstVideoFrame outFrame{};
    bool mapped = false;
    bool inDevice = false;          // inFrame/outFrame mapped on the device (GST_MAP_CUDA): CUDA memory of our context
    bool outDevice = false;
    bool inPeer = false;            // inFrame mapped on the device: CUDA memory of another context or device, copied in
                                    // by the GPU (peer to peer where the devices can)
    std::shared_ptr<FrameFence> inFence;  // the input's pending work (a neighbour of ours wrote it): waited for on the GPU
    std::vector<void*> pendingStreams;    // CUstreams with work queued on the frame's memory (GStreamer >= 1.24's
                                          // stream-carrying CUDA memory): waited for on the GPU
    bool fenceOut = false;                // the output leaves before its work is done: submit sets outFence
    std::shared_ptr<FrameFence> outFence;
    bool started = false;           // the executor took it (submit returned): the output task may wait for it
    int slot = -1;                  // -1: passthrough, nothing to wait for
    guint64 index = 0;              // frames submitted before this one since start: the frame's number in logs
    GstClockTime submittedAt = GST_CLOCK_TIME_NONE;  // monotonic, when the frame entered: its latency is measured
                                    // from here to its push (not for a slot's first frame after configuration)
    std::shared_ptr<FilterWork> work;
};

class FrameExecutor {
public:
    virtual ~FrameExecutor() = default;
    virtual Backend backend() const = 0;

    // (Re)configures slots for a format: allocations happen here, never per frame. Throws on CUDA failure.
    // The output may have another format than the input (same size): device images and staging areas are sized
    // per side; planes the work does not write are copied from the input only when both layouts are the same.
    virtual void configure(const GstVideoInfo& in, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo& out,
                           const std::vector<PlaneLayout>& outPlanes, int slots) = 0;

    // Starts `frame` (mapped, slot set). Throws cudafilters::CudaError / InvalidArgument.
    virtual void submit(FrameInFlight& frame) = 0;
    // Non-blocking: true when `frame` no longer needs the GPU.
    virtual bool ready(const FrameInFlight& frame) = 0;
    // Blocks until `frame` is complete; its output buffer then holds the result.
    virtual void complete(FrameInFlight& frame) = 0;
    // Waits for everything submitted, ignoring errors (before frames are dropped or memory is released).
    virtual void synchronize() noexcept = 0;

    // Makes the executor's device current on the calling thread before engine objects are made there. Throws
    // CudaError.
    virtual void makeCurrent() {}
    // The same before objects are freed or waited for there, best effort and never throwing (release paths run from
    // GStreamer's C callbacks): a device that cannot be selected leaves the current one.
    virtual void makeCurrentForRelease() noexcept {}
};

std::unique_ptr<FrameExecutor> makeCpuExecutor();
// Throws cudafilters::CudaError when the device cannot be used. Only in a build with CUDA. `context` (a CUcontext,
// null for the device's primary context) is made current wherever the executor works.
std::unique_ptr<FrameExecutor> makeCudaExecutor(int device, void* context);

}  // namespace gstcudafilters
