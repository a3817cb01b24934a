// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What a subclass of GstCfFilter builds from its settings and the negotiated format: the engine objects that
// filter the planes of a frame. The base owns the frame pipeline and calls process() once per frame with the
// views of one slot; the work never sees a GstBuffer.
#include "base/planelayout.h"

#include <cudafilters/convolve.hpp>

#include <gst/gst.h>

#include <cstdint>
#include <vector>

namespace gstcudafilters {

using cudafilters::Backend;
using cudafilters::GpuStream;

// What make_work is given. `info`/`planes` describe the input; `outInfo`/`outPlanes` the output, which has the
// input's format unless the subclass's transform_formats hook negotiated another one (then process() must write
// every output plane: the base can only copy planes between identical layouts).
struct WorkConfig {
    const GstVideoInfo* info = nullptr;
    std::vector<PlaneLayout> planes;
    const GstVideoInfo* outInfo = nullptr;
    std::vector<PlaneLayout> outPlanes;
    Backend backend = Backend::Cpu;
    int slots = 1;  // pipeline depth: process() is called with slot in [0, slots)
    // The work in use (null at negotiation or after a passthrough), built for this format, backend and slots. When
    // only values changed, make_work may update it in place (FilterWork's engine objects' retune) and return it.
    std::shared_ptr<class FilterWork> current;
};

class FilterWork {
public:
    virtual ~FilterWork() = default;

    // True for the planes process() writes; the base copies the others from input to output.
    virtual bool writesPlane(int plane) const = 0;

    // Filters one frame. src/dst: one view per plane (src in the input layout, dst in the output layout), device memory on `stream` (CUDA) or host memory (CPU, stream
    // null). Work for different slots may be in flight at once on different streams. Throws cudafilters::CudaError
    // or cudafilters::InvalidArgument.
    virtual void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                         GpuStream stream) = 0;

    // Parts of a frame's work that depend on nothing of each other (passes on different planes). The CUDA executor
    // runs part k > 0 on a stream of its own that starts after the upload and that the download waits for, through
    // processPart(); process() runs every part in order.
    virtual int parts() const { return 1; }
    virtual void processPart(int slot, int part, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                             GpuStream stream) {
        (void)part;
        process(slot, src, dst, stream);
    }

    // True when process() on a GPU stream only enqueues launches a CUDA stream capture records whole (see
    // cudafilters::Convolver::capturable): the CUDA executor may run a frame's work as one graph.
    virtual bool capturable() const { return false; }
    // True when process() advances state of the work's own (frame order, temporal smoothing): it must run once per
    // frame, so a frame whose capture cannot be launched fails instead of being enqueued a second time.
    virtual bool keepsState() const { return false; }

    // True when process() of different slots may run at the same time on different threads (the CPU executor's
    // workers): the work's engine objects are per slot and it keeps no state across frames.
    virtual bool slotsConcurrent() const { return false; }

    // Called in frame order once the frame of `slot` is complete (its stream synchronised), before it is pushed.
    virtual void frameDone(GstElement* /*element*/, GstBuffer* /*out*/, int /*slot*/) {}
    // True when frameDone reads the frame's results: the frame then never leaves before its work is complete.
    virtual bool readsResultsWhenDone() const { return false; }

    // Forgets temporal state (after a flush or a discontinuity).
    virtual void reset() {}

    // The same validated settings on another backend (after a CUDA failure the CPU continues from the last valid
    // settings, whatever the properties say now). Throws cudafilters::CudaError / InvalidArgument.
    virtual std::shared_ptr<FilterWork> rebuild(Backend backend, int slots) const = 0;
};

}  // namespace gstcudafilters
