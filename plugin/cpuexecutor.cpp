// The CPU backend of the frame pipeline: frames are filtered on host memory when submitted.
#include "frameexecutor.h"

#include <cudafilters/error.hpp>

#include <string>

namespace gstcudafilters {
namespace {

class CpuExecutor final : public FrameExecutor {
public:
    Backend backend() const override { return Backend::Cpu; }

    void configure(const GstVideoInfo&, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo&,
                   const std::vector<PlaneLayout>& outPlanes, int) override {
        faultPoint(FaultCall::Stream);  // test seam: where the CUDA executor creates streams and allocates
        faultPoint(FaultCall::Alloc);
        inPlanes_ = inPlanes;
        outPlanes_ = outPlanes;
        sameLayout_ = sameLayout(inPlanes, outPlanes);
    }

    // The test seam's points stand where the CUDA executor makes the calls they name.
    void submit(FrameInFlight& frame) override {
        faultPoint(FaultCall::Alloc, frame.index);
        faultPoint(FaultCall::Upload, frame.index);
        faultPoint(FaultCall::Launch, frame.index);
        const std::vector<ImageView> src = frameViews(inPlanes_, frame.inFrame);
        const std::vector<ImageView> dst = frameViews(outPlanes_, frame.outFrame);
        frame.work->process(frame.slot, src, dst, nullptr);
        faultPoint(FaultCall::Download, frame.index);
        faultPoint(FaultCall::Stream, frame.index);
        for (std::size_t p = 0; p < outPlanes_.size(); ++p) {
            if (frame.work->writesPlane(int(p))) continue;
            if (!sameLayout_)
                throw cudafilters::InvalidArgument("output plane " + std::to_string(p) +
                                                   " is not written and the input has another layout");
            copyPlane(src[p], dst[p]);
        }
    }

    bool ready(const FrameInFlight&) override { return true; }
    void complete(FrameInFlight& frame) override { faultPoint(FaultCall::Sync, frame.index); }
    void synchronize() noexcept override {}

private:
    std::vector<PlaneLayout> inPlanes_, outPlanes_;
    bool sameLayout_ = true;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCpuExecutor() { return std::make_unique<CpuExecutor>(); }

}  // namespace gstcudafilters
