#pragma once
// Runs frames of a GstCudaFilter on one backend. A frame is started in its slot (submit) and later completed in
// frame order (complete). CUDA: submit enqueues upload, filtering and download on the slot's own stream and returns;
// complete waits on the slot's event. CPU: submit filters at once on host memory; complete has nothing left to do.
#include "filterwork.h"

#include <gst/video/video.h>

#include <memory>
#include <string>

namespace gstcudafilters {

// One frame in the pipeline: its buffers (mapped for the duration) and the work object it was started with.
struct FrameInFlight {
    GstBuffer* in = nullptr;        // owned reference
    GstBuffer* out = nullptr;       // owned reference; == in for a passthrough frame
    GstVideoFrame inFrame{};
    GstVideoFrame outFrame{};
    bool mapped = false;
    int slot = -1;                  // -1: passthrough, nothing to wait for
    std::shared_ptr<FilterWork> work;
};

class FrameExecutor {
public:
    virtual ~FrameExecutor() = default;
    virtual Backend backend() const = 0;

    // (Re)configures slots for a format: allocations happen here, never per frame. Throws on CUDA failure.
    virtual void configure(const GstVideoInfo& info, const std::vector<PlaneLayout>& planes, int slots) = 0;

    // Starts `frame` (mapped, slot set). Throws cudafilters::CudaError / InvalidArgument.
    virtual void submit(FrameInFlight& frame) = 0;
    // Non-blocking: true when `frame` no longer needs the GPU.
    virtual bool ready(const FrameInFlight& frame) = 0;
    // Blocks until `frame` is complete; its output buffer then holds the result.
    virtual void complete(FrameInFlight& frame) = 0;
    // Waits for everything submitted, ignoring errors (before frames are dropped or memory is released).
    virtual void synchronize() noexcept = 0;
};

std::unique_ptr<FrameExecutor> makeCpuExecutor();
// Throws cudafilters::CudaError when the device cannot be used. Only in a build with CUDA.
std::unique_ptr<FrameExecutor> makeCudaExecutor(int device);

}  // namespace gstcudafilters
