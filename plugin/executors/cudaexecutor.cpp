// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend of the frame pipeline. Each slot owns a stream, an event, device input and output images and
// pinned staging areas. A frame is enqueued whole on its slot's stream (upload → filter → download → event), so
// with several slots in flight frame N's upload, N−1's filtering and N−2's download overlap on the copy engines and
// the SMs. Where the frame lies decides each step: CUDA memory (memory:CUDAMemory, mapped on the device by the
// pipeline) is filtered where it lies and written in place, with no transfer; pinned host memory (our pools) and
// pageable memory that is registered (hostregistration.h) move by DMA; other pageable memory is copied through the
// slot's pinned staging area. Input and output may differ in format (a subclass's transform_formats): each side has
// its own device image and staging. Everything runs in the executor's context: a neighbour's GstCudaContext, or the
// device's primary context.
//
// Frames that lie in CUDA memory on both sides are enqueued as one CUDA graph: the slot's stream captures the frame's
// launches (every part, the copies of the planes the work does not write), the capture updates the slot's executable
// graph (the same launches with the new frame's pointers), and one graph launch runs it: a graph launch with its
// update costs the streaming thread a fraction of the kernel launches it replaces, and a resident frame is bound by
// those launches, not by the GPU (bench/tools/launch-cost.sh measures both). The first frame of a work in a
// slot runs uncaptured (a work may allocate on its first frame, which a capture refuses); a work whose capture fails
// runs uncaptured from then on. CUDAFILTERS_CUDA_GRAPHS=0 in the environment turns the graphs off.
#include "executors/frameexecutor.h"
#include "memory/driverapi.h"
#include "memory/gstcfpinnedallocator.h"
#include "memory/hostregistration.h"

#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {
namespace {

using cudafilters::checkCuda;

constexpr std::size_t kPitchAlign = 256;

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// True once the work before `event` is over (finished or failed: a failure is reported where it is waited for).
bool eventDone(cudaEvent_t event) noexcept {
    if (cudaEventQuery(event) != cudaErrorNotReady) return true;
    cudaGetLastError();
    return false;
}

// A fence on a frame's work: an event of its own (the slot's is recorded again by the slot's next frame).
class CudaFrameFence final : public FrameFence {
public:
    CudaFrameFence() : event_(cudafilters::Event::create()) {}
    void* event() const override { return event_.get(); }
    bool done() noexcept override { return eventDone(event_.get()); }
    void wait() noexcept override {
        if (cudaEventSynchronize(event_.get()) != cudaSuccess) cudaGetLastError();
    }

private:
    cudafilters::Event event_;
};

// An executable CUDA graph (cudaGraphExecDestroy on release).
class GraphExec {
public:
    GraphExec() = default;
    GraphExec(GraphExec&& o) noexcept : exec_(o.exec_) { o.exec_ = nullptr; }
    GraphExec& operator=(GraphExec&& o) noexcept {
        std::swap(exec_, o.exec_);
        return *this;
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    ~GraphExec() { reset(); }
    void reset() noexcept {
        if (exec_) cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
    }
    enum class Taken { Updated, Instantiated, Failed };
    // The graph's launches in this executable: updated in place where only their parameters changed, else
    // instantiated anew (Failed where neither works: the caller launches uncaptured).
    Taken take(cudaGraph_t graph) noexcept {
        if (exec_) {
            cudaGraphExecUpdateResultInfo info{};
            if (cudaGraphExecUpdate(exec_, graph, &info) == cudaSuccess) return Taken::Updated;
            cudaGetLastError();
            reset();
        }
        if (cudaGraphInstantiate(&exec_, graph, 0) == cudaSuccess) return Taken::Instantiated;
        cudaGetLastError();
        exec_ = nullptr;
        return Taken::Failed;
    }
    cudaGraphExec_t get() const { return exec_; }

private:
    cudaGraphExec_t exec_ = nullptr;
};

struct Slot {
    cudafilters::Stream stream;
    cudafilters::Event done;
    // FilterWork parts after the first, each on a stream of its own: forked from `stream` after the upload, joined
    // into it before the download.
    cudafilters::Event fork;
    std::vector<cudafilters::Stream> sides;
    std::vector<cudafilters::Event> joins;
    std::vector<cudafilters::Event> pendingDone;  // recorded on a neighbour's streams (FrameInFlight::pendingStreams)
    cudafilters::DeviceBuffer input;       // input layout
    cudafilters::DeviceBuffer output;      // output layout
    cudafilters::PinnedBuffer stagingIn;   // pageable input is copied here first (input info layout)
    cudafilters::PinnedBuffer stagingOut;  // download target when the output buffer is not pinned (output info layout)
    bool outStaged = false;
    // Resident frames as one graph: its executable and the work it was made for, the work whose first frame here ran
    // uncaptured, and the work that runs uncaptured (its capture failed, or its graph could not be updated: a new
    // instantiation per frame would cost more than the launches). By address: a new work at a freed one's address
    // at worst runs a frame uncaptured first, or one graph before it is found to need launches one by one.
    GraphExec graph;
    const FilterWork* graphWork = nullptr;
    const FilterWork* warmWork = nullptr;
    const FilterWork* graphlessWork = nullptr;
};

// One side of the frame (input or output): its format, planes and where they lie in a slot's device image.
struct Side {
    GstVideoInfo info{};
    std::vector<PlaneLayout> planes;
    std::vector<std::size_t> offsets, pitches;
    std::size_t deviceBytes = 0;

    void set(const GstVideoInfo& i, const std::vector<PlaneLayout>& p) {
        info = i;
        planes = p;
        offsets.assign(planes.size(), 0);
        pitches.assign(planes.size(), 0);
        deviceBytes = 0;
        for (std::size_t k = 0; k < planes.size(); ++k) {
            pitches[k] = alignUp(planes[k].rowBytes, kPitchAlign);
            offsets[k] = deviceBytes;
            deviceBytes += alignUp(pitches[k] * planes[k].height, kPitchAlign);
        }
    }
};

// True when every plane of `frame` lies in memory the copy engines can read or write directly: pinned by us, or
// registered pageable memory.
bool dma_capable(GstBuffer* buffer, const GstVideoFrame& frame, const std::vector<PlaneLayout>& planes) {
    if (gst_buffer_is_cuda_pinned(buffer)) return true;
    struct Range {
        const guint8* begin;
        const guint8* end;
    };
    std::vector<Range> registered;
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        GstMemory* mem = gst_buffer_peek_memory(buffer, i);
        GstMapInfo map;
        if (!gst_memory_map(mem, &map, GST_MAP_READ)) return false;
        const bool ok = host_memory_registered(buffer, mem, map.data, map.size);
        if (ok) registered.push_back({map.data, map.data + map.size});
        gst_memory_unmap(mem, &map);
        if (!ok) return false;
    }
    for (std::size_t p = 0; p < planes.size(); ++p) {
        const auto* begin = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        const auto* end = begin + std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p)) * (planes[p].height - 1) +
                          planes[p].rowBytes;
        bool inside = false;
        for (const Range& r : registered) inside = inside || (begin >= r.begin && end <= r.end);
        if (!inside) return false;  // the frame was mapped through a merged copy
    }
    return true;
}

class CudaExecutor final : public FrameExecutor {
public:
    CudaExecutor(int device, driver::Context context) : device_(device), context_(context) {
        const char* graphs = std::getenv("CUDAFILTERS_CUDA_GRAPHS");
        graphs_ = graphs == nullptr || std::strcmp(graphs, "0") != 0;
        makeCurrent();
        checkCuda(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
    }
    ~CudaExecutor() override {
        synchronize();
        makeCurrentForRelease();  // the slots' streams, events and buffers are freed on their device
    }

    Backend backend() const override { return Backend::Cuda; }

    void makeCurrent() override {
        if (context_) driver::setCurrentContext(context_);
        else checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    }
    void makeCurrentForRelease() noexcept override { selectDevice(); }

    void configure(const GstVideoInfo& in, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo& out,
                   const std::vector<PlaneLayout>& outPlanes, int slots) override {
        makeCurrent();
        synchronize();
        in_.set(in, inPlanes);
        out_.set(out, outPlanes);
        sameLayout_ = sameLayout(inPlanes, outPlanes);
        if (int(slots_.size()) != slots) slots_.resize(slots);
        for (Slot& slot : slots_) {
            if (!slot.stream) slot.stream = cudafilters::Stream::create();
            if (!slot.done) slot.done = cudafilters::Event::create();
            slot.input.reserve(in_.deviceBytes);
            slot.output.reserve(out_.deviceBytes);
            // Staging areas are made on first need: with the pinned pools in use they never are.
            if (slot.stagingIn.size() < GST_VIDEO_INFO_SIZE(&in)) slot.stagingIn = cudafilters::PinnedBuffer();
            if (slot.stagingOut.size() < GST_VIDEO_INFO_SIZE(&out)) slot.stagingOut = cudafilters::PinnedBuffer();
        }
    }

    // The frame's work on the slot's stream, its parts after the first on the slot's side streams.
    void processParts(Slot& slot, FrameInFlight& frame, const std::vector<ImageView>& devIn,
                      const std::vector<ImageView>& devOut) {
        cudaStream_t stream = slot.stream.get();
        const int parts = frame.work->parts();
        if (parts <= 1) {
            frame.work->process(frame.slot, devIn, devOut, reinterpret_cast<GpuStream>(stream));
            return;
        }
        if (!slot.fork) slot.fork = cudafilters::Event::create();
        while (int(slot.sides.size()) < parts - 1) {
            slot.sides.push_back(cudafilters::Stream::create());
            slot.joins.push_back(cudafilters::Event::create());
        }
        checkCuda(cudaEventRecord(slot.fork.get(), stream), "cudaEventRecord (fork)");
        for (int part = 1; part < parts; ++part) {
            cudaStream_t side = slot.sides[std::size_t(part - 1)].get();
            checkCuda(cudaStreamWaitEvent(side, slot.fork.get(), 0), "cudaStreamWaitEvent (fork)");
            frame.work->processPart(frame.slot, part, devIn, devOut, reinterpret_cast<GpuStream>(side));
            checkCuda(cudaEventRecord(slot.joins[std::size_t(part - 1)].get(), side), "cudaEventRecord (join)");
        }
        frame.work->processPart(frame.slot, 0, devIn, devOut, reinterpret_cast<GpuStream>(stream));
        for (int part = 1; part < parts; ++part)
            checkCuda(cudaStreamWaitEvent(stream, slot.joins[std::size_t(part - 1)].get(), 0),
                      "cudaStreamWaitEvent (join)");
    }

    void submit(FrameInFlight& frame) override {
        makeCurrent();
        Slot& slot = slots_.at(frame.slot);
        cudaStream_t stream = slot.stream.get();
        const std::vector<ImageView> devIn = frame.inDevice ? frameViews(in_.planes, frame.inFrame)
                                                            : bufferViews(in_.planes, slot.input.data(), in_.offsets, in_.pitches);
        const std::vector<ImageView> devOut = frame.outDevice
                                                  ? frameViews(out_.planes, frame.outFrame)
                                                  : bufferViews(out_.planes, slot.output.data(), out_.offsets, out_.pitches);
        for (std::size_t p = 0; p < out_.planes.size(); ++p)
            if (!frame.work->writesPlane(int(p)) && !sameLayout_)
                throw cudafilters::InvalidArgument("output plane " + std::to_string(p) +
                                                   " is not written and the input has another layout");

        if (frame.inFence)
            checkCuda(cudaStreamWaitEvent(stream, static_cast<cudaEvent_t>(frame.inFence->event()), 0),
                      "cudaStreamWaitEvent (input fence)");
        for (std::size_t i = 0; i < frame.pendingStreams.size(); ++i) {
            if (slot.pendingDone.size() <= i) slot.pendingDone.push_back(cudafilters::Event::create());
            checkCuda(cudaEventRecord(slot.pendingDone[i].get(), static_cast<cudaStream_t>(frame.pendingStreams[i])),
                      "cudaEventRecord (a neighbour's stream)");
            checkCuda(cudaStreamWaitEvent(stream, slot.pendingDone[i].get(), 0),
                      "cudaStreamWaitEvent (a neighbour's stream)");
        }
        if (frame.inPeer) {
            // CUDA memory of another context or device: copied by the GPU (unified addressing), where a host mapping
            // would take it through host memory twice. GStreamer's CUDA contexts (ours too) enable peer access to
            // each other where the devices allow it, so the copy goes peer to peer; elsewhere the driver stages it.
            const std::vector<ImageView> from = frameViews(in_.planes, frame.inFrame);
            for (std::size_t p = 0; p < in_.planes.size(); ++p)
                checkCuda(cudaMemcpy2DAsync(devIn[p].data, devIn[p].pitch, from[p].data, from[p].pitch,
                                            in_.planes[p].rowBytes, in_.planes[p].height, cudaMemcpyDefault, stream),
                          "cudaMemcpy2DAsync (input from another device)");
        } else if (!frame.inDevice) {
            std::vector<ImageView> upload = frameViews(in_.planes, frame.inFrame);
            if (!dma_capable(frame.in, frame.inFrame, in_.planes)) {
                GST_LOG("frame %" G_GUINT64_FORMAT ": input staged (pageable, not registered)", frame.index);
                upload = stage(slot.stagingIn, in_, upload, /*copyRows=*/true);
            }
            for (std::size_t p = 0; p < in_.planes.size(); ++p)
                checkCuda(cudaMemcpy2DAsync(devIn[p].data, devIn[p].pitch, upload[p].data, upload[p].pitch,
                                            in_.planes[p].rowBytes, in_.planes[p].height, cudaMemcpyHostToDevice, stream),
                          "cudaMemcpy2DAsync (upload)");
        }

        slot.outStaged = false;
        if (frame.inDevice && frame.outDevice) enqueueResident(slot, frame, devIn, devOut);
        else processParts(slot, frame, devIn, devOut);
        if (frame.outDevice) {
            if (!frame.inDevice) copyUnwrittenPlanes(slot, frame, devIn, devOut);
        } else {
            slot.outStaged = !dma_capable(frame.out, frame.outFrame, out_.planes);
            if (slot.outStaged) GST_LOG("frame %" G_GUINT64_FORMAT ": output staged (pageable, not registered)", frame.index);
            std::vector<ImageView> download = frameViews(out_.planes, frame.outFrame);
            if (slot.outStaged) download = stage(slot.stagingOut, out_, download, /*copyRows=*/false);
            for (std::size_t p = 0; p < out_.planes.size(); ++p) {
                const ImageView& from = frame.work->writesPlane(int(p)) ? devOut[p] : devIn[p];
                checkCuda(cudaMemcpy2DAsync(download[p].data, download[p].pitch, from.data, from.pitch,
                                            out_.planes[p].rowBytes, out_.planes[p].height, cudaMemcpyDeviceToHost,
                                            stream),
                          "cudaMemcpy2DAsync (download)");
            }
        }
        checkCuda(cudaEventRecord(slot.done.get(), stream), "cudaEventRecord");
        if (frame.fenceOut) {
            std::shared_ptr<CudaFrameFence> fence = freeFence();
            checkCuda(cudaEventRecord(static_cast<cudaEvent_t>(fence->event()), stream), "cudaEventRecord (fence)");
            frame.outFence = std::move(fence);
        }
    }

    // The planes the work does not write, from input to output (frames that leave in CUDA memory).
    void copyUnwrittenPlanes(Slot& slot, FrameInFlight& frame, const std::vector<ImageView>& devIn,
                             const std::vector<ImageView>& devOut) {
        for (std::size_t p = 0; p < out_.planes.size(); ++p)
            if (!frame.work->writesPlane(int(p)))
                cudafilters::copyDevicePlane(devIn[p], devOut[p], reinterpret_cast<GpuStream>(slot.stream.get()));
    }

    // A frame in CUDA memory on both sides: its parts and plane copies, captured into the slot's graph and launched
    // as one, or enqueued one by one (graphs off, the work's first frame in this slot, or a work that cannot be
    // captured).
    void enqueueResident(Slot& slot, FrameInFlight& frame, const std::vector<ImageView>& devIn,
                         const std::vector<ImageView>& devOut) {
        const FilterWork* work = frame.work.get();
        auto enqueue = [&] {
            processParts(slot, frame, devIn, devOut);
            copyUnwrittenPlanes(slot, frame, devIn, devOut);
        };
        if (!graphs_ || !work->capturable() || slot.graphlessWork == work || slot.warmWork != work) {
            if (slot.graphlessWork != work) slot.warmWork = work;
            enqueue();
            return;
        }
        cudaStream_t stream = slot.stream.get();
        checkCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        bool captureFailed = false;
        try {
            enqueue();
        } catch (...) {
            // A call the capture refuses (an allocation, a synchronization) invalidates it: the frame runs
            // uncaptured below. Any other failure ends the capture and is the frame's.
            cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
            captureFailed = cudaStreamIsCapturing(stream, &status) == cudaSuccess &&
                            status == cudaStreamCaptureStatusInvalidated;
            cudaGraph_t discarded = nullptr;
            cudaStreamEndCapture(stream, &discarded);
            if (discarded) cudaGraphDestroy(discarded);
            cudaGetLastError();
            if (!captureFailed) throw;
        }
        cudaGraph_t graph = nullptr;
        if (!captureFailed) {
            if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || graph == nullptr) {
                cudaGetLastError();
                captureFailed = true;
            }
        }
        if (!captureFailed) {
            const GraphExec::Taken taken = slot.graph.take(graph);
            cudaGraphDestroy(graph);
            if (taken != GraphExec::Taken::Failed) {
                if (taken == GraphExec::Taken::Instantiated && slot.graphWork == work) {
                    GST_INFO("frame %" G_GUINT64_FORMAT ": its graph could not be updated; launches go one by one "
                             "after this frame", frame.index);
                    slot.graphlessWork = work;
                }
                slot.graphWork = work;
                checkCuda(cudaGraphLaunch(slot.graph.get(), stream), "cudaGraphLaunch");
                GST_DEBUG("frame %" G_GUINT64_FORMAT ": launched as one CUDA graph (%s)", frame.index,
                          taken == GraphExec::Taken::Updated ? "updated" : "instantiated");
                return;
            }
        }
        slot.graphlessWork = work;
        slot.graph.reset();
        slot.graphWork = nullptr;
        if (work->keepsState())
            throw cudafilters::CudaError("cudaStreamEndCapture", int(cudaErrorStreamCaptureInvalidated),
                                         "cudaErrorStreamCaptureInvalidated",
                                         "a frame of a work that keeps state between frames could not run as the "
                                         "CUDA graph it was captured into (its launches run one by one from the next "
                                         "frame on)");
        GST_INFO("frame %" G_GUINT64_FORMAT ": its work could not run as a CUDA graph; its launches go one by one",
                 frame.index);
        enqueue();
    }

    bool ready(const FrameInFlight& frame) override {
        selectDevice();
        return eventDone(slots_.at(frame.slot).done.get());  // complete() reports an error
    }

    void complete(FrameInFlight& frame) override {
        makeCurrent();
        Slot& slot = slots_.at(frame.slot);
        checkCuda(cudaEventSynchronize(slot.done.get()), "cudaEventSynchronize (frame completion)");
        if (slot.outStaged) {
            const std::vector<ImageView> staged = stagedViews(slot.stagingOut, out_);
            const std::vector<ImageView> out = frameViews(out_.planes, frame.outFrame);
            for (std::size_t p = 0; p < out_.planes.size(); ++p) copyPlaneParallel(staged[p], out[p]);
        }
    }

    void synchronize() noexcept override {
        if (!selectDevice()) return;
        for (Slot& slot : slots_) {
            if (slot.stream && cudaStreamSynchronize(slot.stream.get()) != cudaSuccess) cudaGetLastError();
            // A frame whose first part failed to enqueue left its other parts unjoined.
            for (cudafilters::Stream& side : slot.sides)
                if (cudaStreamSynchronize(side.get()) != cudaSuccess) cudaGetLastError();
        }
    }

private:
    bool selectDevice() noexcept {
        if (context_) return driver::trySetCurrentContext(context_);
        if (cudaSetDevice(device_) == cudaSuccess) return true;
        cudaGetLastError();
        return false;
    }

    // Views of a side's info layout inside a pinned staging area; the area is allocated once, on first need.
    static std::vector<ImageView> stagedViews(cudafilters::PinnedBuffer& area, const Side& side) {
        const std::size_t size = GST_VIDEO_INFO_SIZE(&side.info);
        if (area.size() < size) area = cudafilters::PinnedBuffer(size);
        std::vector<std::size_t> offsets(side.planes.size()), pitches(side.planes.size());
        for (std::size_t p = 0; p < side.planes.size(); ++p) {
            offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET(&side.info, p);
            pitches[p] = std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&side.info, p));
        }
        return bufferViews(side.planes, area.data(), offsets, pitches);
    }

    static std::vector<ImageView> stage(cudafilters::PinnedBuffer& area, const Side& side,
                                        const std::vector<ImageView>& host, bool copyRows) {
        std::vector<ImageView> staged = stagedViews(area, side);
        if (copyRows)
            for (std::size_t p = 0; p < side.planes.size(); ++p) copyPlaneParallel(host[p], staged[p]);
        return staged;
    }

    // A fence no buffer holds any more (only this pool does), or a new one: no event is created per frame once as many
    // exist as fenced frames are out at once.
    std::shared_ptr<CudaFrameFence> freeFence() {
        for (const std::shared_ptr<CudaFrameFence>& fence : fences_)
            if (fence.use_count() == 1) return fence;
        fences_.push_back(std::make_shared<CudaFrameFence>());
        return fences_.back();
    }

    int device_;
    driver::Context context_;  // null: the device's primary context
    Side in_, out_;
    bool sameLayout_ = true;
    bool graphs_ = true;  // resident frames as CUDA graphs (CUDAFILTERS_CUDA_GRAPHS=0: off)
    std::vector<Slot> slots_;
    std::vector<std::shared_ptr<CudaFrameFence>> fences_;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCudaExecutor(int device, void* context) {
    return std::make_unique<CudaExecutor>(device, context);
}

}  // namespace gstcudafilters
