// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend of the frame pipeline: frames are filtered on host memory when submitted.
#include "executors/frameexecutor.h"

#include <cudafilters/error.hpp>

#include <string>
#include <vector>

namespace gstcudafilters {
namespace {

class CpuExecutor final : public FrameExecutor {
public:
    Backend backend() const override { return Backend::Cpu; }

    void configure(const GstVideoInfo&, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo&,
                   const std::vector<PlaneLayout>& outPlanes, int) override {
        inPlanes_ = inPlanes;
        outPlanes_ = outPlanes;
        sameLayout_ = sameLayout(inPlanes, outPlanes);
    }

    void submit(FrameInFlight& frame) override {
        const std::vector<ImageView> src = frameViews(inPlanes_, frame.inFrame);
        const std::vector<ImageView> dst = frameViews(outPlanes_, frame.outFrame);
        alignViews(src, inScratch_, true, alignedSrc_);
        alignViews(dst, outScratch_, false, alignedDst_);
        frame.work->process(frame.slot, alignedSrc_, alignedDst_, nullptr);
        for (std::size_t p = 0; p < dst.size(); ++p)
            if (alignedDst_[p].data != dst[p].data && frame.work->writesPlane(int(p))) copyPlane(alignedDst_[p], dst[p]);
        for (std::size_t p = 0; p < outPlanes_.size(); ++p) {
            if (frame.work->writesPlane(int(p))) continue;
            if (!sameLayout_)
                throw cudafilters::InvalidArgument("output plane " + std::to_string(p) +
                                                   " is not written and the input has another layout");
            copyPlane(src[p], dst[p]);
        }
    }

    bool ready(const FrameInFlight&) override { return true; }
    void complete(FrameInFlight&) override {}
    void synchronize() noexcept override {}

private:
    // The engine reads whole samples: a plane whose start or stride is off the sample size (a 16-bit format with an
    // odd stride in its GstVideoMeta) goes through an aligned copy, kept between frames.
    static void alignViews(const std::vector<ImageView>& views, std::vector<std::vector<std::uint8_t>>& scratch,
                           bool copyIn, std::vector<ImageView>& out) {
        out = views;
        scratch.resize(views.size());
        for (std::size_t p = 0; p < views.size(); ++p) {
            if (cudafilters::sampleAligned(views[p])) continue;
            scratch[p].resize(views[p].rowBytes() * std::size_t(views[p].height));
            out[p].data = scratch[p].data();
            out[p].pitch = views[p].rowBytes();
            if (copyIn) copyPlane(views[p], out[p]);
        }
    }

    std::vector<PlaneLayout> inPlanes_, outPlanes_;
    std::vector<std::vector<std::uint8_t>> inScratch_, outScratch_;
    std::vector<ImageView> alignedSrc_, alignedDst_;  // the views handed to the engine (kept: no allocation per frame)
    bool sameLayout_ = true;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCpuExecutor() { return std::make_unique<CpuExecutor>(); }

}  // namespace gstcudafilters
