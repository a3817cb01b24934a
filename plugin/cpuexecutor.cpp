// The CPU backend of the frame pipeline: frames are filtered on host memory when submitted.
#include "frameexecutor.h"

#include <cudafilters/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

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
        const std::vector<ImageView> alignedSrc = alignedViews(src, inScratch_, true);
        const std::vector<ImageView> alignedDst = alignedViews(dst, outScratch_, false);
        frame.work->process(frame.slot, alignedSrc, alignedDst, nullptr);
        for (std::size_t p = 0; p < dst.size(); ++p)
            if (alignedDst[p].data != dst[p].data && frame.work->writesPlane(int(p))) copyPlane(alignedDst[p], dst[p]);
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
    // The engine reads whole samples: a plane whose start or stride is off the sample size (a 16-bit format with an
    // odd stride in its GstVideoMeta) goes through an aligned copy, kept between frames.
    static std::vector<ImageView> alignedViews(const std::vector<ImageView>& views,
                                               std::vector<std::vector<std::uint8_t>>& scratch, bool copyIn) {
        std::vector<ImageView> out = views;
        scratch.resize(views.size());
        for (std::size_t p = 0; p < views.size(); ++p) {
            const std::size_t sample = cudafilters::sampleSize(views[p].type);
            if (reinterpret_cast<std::uintptr_t>(views[p].data) % sample == 0 && views[p].pitch % sample == 0) continue;
            scratch[p].resize(views[p].rowBytes() * std::size_t(views[p].height));
            out[p].data = scratch[p].data();
            out[p].pitch = views[p].rowBytes();
            if (copyIn) copyPlane(views[p], out[p]);
        }
        return out;
    }

    std::vector<PlaneLayout> inPlanes_, outPlanes_;
    std::vector<std::vector<std::uint8_t>> inScratch_, outScratch_;
    bool sameLayout_ = true;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCpuExecutor() { return std::make_unique<CpuExecutor>(); }

}  // namespace gstcudafilters
