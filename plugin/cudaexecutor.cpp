// The CUDA backend of the frame pipeline. Each slot owns a stream, an event, device input and output images and
// pinned staging areas. A frame is enqueued whole on its slot's stream (upload → filter → download → event), so
// with several slots in flight frame N's upload, N−1's filtering and N−2's download overlap on the copy engines and
// the SMs. Pinned input (our pool) is uploaded in place; pageable input is first copied into the slot's pinned
// staging area. The download goes straight into a pinned output buffer, else through the staging area.
#include "frameexecutor.h"
#include "gstcudapinnedallocator.h"

#include <cudafilters/cuda_raii.hpp>

namespace gstcudafilters {
namespace {

using cudafilters::checkCuda;

constexpr std::size_t kPitchAlign = 256;

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

struct Slot {
    cudafilters::Stream stream;
    cudafilters::Event done;
    cudafilters::DeviceBuffer input;
    cudafilters::DeviceBuffer output;
    cudafilters::PinnedBuffer stagingIn;   // pageable input is copied here first (info layout)
    cudafilters::PinnedBuffer stagingOut;  // download target when the output buffer is not pinned
    bool outStaged = false;
};

class CudaExecutor final : public FrameExecutor {
public:
    explicit CudaExecutor(int device) : device_(device) {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        checkCuda(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
    }
    ~CudaExecutor() override { synchronize(); }

    Backend backend() const override { return Backend::Cuda; }

    void configure(const GstVideoInfo& info, const std::vector<PlaneLayout>& planes, int slots) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        synchronize();
        info_ = info;
        planes_ = planes;
        offsets_.assign(planes.size(), 0);
        pitches_.assign(planes.size(), 0);
        std::size_t total = 0;
        for (std::size_t p = 0; p < planes.size(); ++p) {
            pitches_[p] = alignUp(planes[p].rowBytes, kPitchAlign);
            offsets_[p] = total;
            total += alignUp(pitches_[p] * planes[p].height, kPitchAlign);
        }
        if (int(slots_.size()) != slots) slots_.resize(slots);
        for (Slot& slot : slots_) {
            if (!slot.stream) slot.stream = cudafilters::Stream::create();
            if (!slot.done) slot.done = cudafilters::Event::create();
            slot.input.reserve(total);
            slot.output.reserve(total);
            // Staging areas are made on first need: with the pinned pools in use they never are.
            if (slot.stagingIn.size() < GST_VIDEO_INFO_SIZE(&info)) slot.stagingIn = cudafilters::PinnedBuffer();
            if (slot.stagingOut.size() < GST_VIDEO_INFO_SIZE(&info)) slot.stagingOut = cudafilters::PinnedBuffer();
        }
    }

    void submit(FrameInFlight& frame) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        Slot& slot = slots_.at(frame.slot);
        cudaStream_t stream = slot.stream.get();
        const std::vector<ImageView> host = frameViews(planes_, frame.inFrame);
        const std::vector<ImageView> devIn = bufferViews(planes_, slot.input.data(), offsets_, pitches_);
        const std::vector<ImageView> devOut = bufferViews(planes_, slot.output.data(), offsets_, pitches_);

        const bool inPinned = gst_buffer_is_cuda_pinned(frame.in);
        std::vector<ImageView> upload = host;
        if (!inPinned) upload = stage(slot.stagingIn, host, /*copyRows=*/true);
        for (std::size_t p = 0; p < planes_.size(); ++p)
            checkCuda(cudaMemcpy2DAsync(devIn[p].data, devIn[p].pitch, upload[p].data, upload[p].pitch,
                                        planes_[p].rowBytes, planes_[p].height, cudaMemcpyHostToDevice, stream),
                      "cudaMemcpy2DAsync (upload)");

        frame.work->process(frame.slot, devIn, devOut, reinterpret_cast<GpuStream>(stream));

        slot.outStaged = !gst_buffer_is_cuda_pinned(frame.out);
        std::vector<ImageView> download = frameViews(planes_, frame.outFrame);
        if (slot.outStaged) download = stage(slot.stagingOut, download, /*copyRows=*/false);
        for (std::size_t p = 0; p < planes_.size(); ++p) {
            const ImageView& from = frame.work->writesPlane(int(p)) ? devOut[p] : devIn[p];
            checkCuda(cudaMemcpy2DAsync(download[p].data, download[p].pitch, from.data, from.pitch,
                                        planes_[p].rowBytes, planes_[p].height, cudaMemcpyDeviceToHost, stream),
                      "cudaMemcpy2DAsync (download)");
        }
        checkCuda(cudaEventRecord(slot.done.get(), stream), "cudaEventRecord");
    }

    bool ready(const FrameInFlight& frame) override {
        const cudaError_t status = cudaEventQuery(slots_.at(frame.slot).done.get());
        if (status == cudaErrorNotReady) {
            cudaGetLastError();
            return false;
        }
        return true;  // complete() reports an error
    }

    void complete(FrameInFlight& frame) override {
        Slot& slot = slots_.at(frame.slot);
        checkCuda(cudaEventSynchronize(slot.done.get()), "cudaEventSynchronize (frame completion)");
        if (slot.outStaged) {
            const std::vector<ImageView> staged = stagedViews(slot.stagingOut);
            const std::vector<ImageView> out = frameViews(planes_, frame.outFrame);
            for (std::size_t p = 0; p < planes_.size(); ++p) copyPlane(staged[p], out[p]);
        }
    }

    void synchronize() noexcept override {
        if (cudaSetDevice(device_) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        for (Slot& slot : slots_)
            if (slot.stream && cudaStreamSynchronize(slot.stream.get()) != cudaSuccess) cudaGetLastError();
    }

private:
    // Views of the info layout inside a pinned staging area; the area is allocated once, on first need.
    std::vector<ImageView> stagedViews(cudafilters::PinnedBuffer& area) {
        const std::size_t size = GST_VIDEO_INFO_SIZE(&info_);
        if (area.size() < size) area = cudafilters::PinnedBuffer(size);
        std::vector<std::size_t> offsets(planes_.size()), pitches(planes_.size());
        for (std::size_t p = 0; p < planes_.size(); ++p) {
            offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET(&info_, p);
            pitches[p] = std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info_, p));
        }
        return bufferViews(planes_, area.data(), offsets, pitches);
    }

    std::vector<ImageView> stage(cudafilters::PinnedBuffer& area, const std::vector<ImageView>& host, bool copyRows) {
        std::vector<ImageView> staged = stagedViews(area);
        if (copyRows)
            for (std::size_t p = 0; p < planes_.size(); ++p) copyPlane(host[p], staged[p]);
        return staged;
    }

    int device_;
    GstVideoInfo info_{};
    std::vector<PlaneLayout> planes_;
    std::vector<std::size_t> offsets_, pitches_;
    std::vector<Slot> slots_;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCudaExecutor(int device) { return std::make_unique<CudaExecutor>(device); }

}  // namespace gstcudafilters
