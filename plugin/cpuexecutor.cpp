// The CPU backend of the frame pipeline: frames are filtered on host memory when submitted.
#include "frameexecutor.h"

namespace gstcudafilters {
namespace {

class CpuExecutor final : public FrameExecutor {
public:
    Backend backend() const override { return Backend::Cpu; }

    void configure(const GstVideoInfo&, const std::vector<PlaneLayout>& planes, int) override { planes_ = planes; }

    void submit(FrameInFlight& frame) override {
        const std::vector<ImageView> src = frameViews(planes_, frame.inFrame);
        const std::vector<ImageView> dst = frameViews(planes_, frame.outFrame);
        frame.work->process(frame.slot, src, dst, nullptr);
        for (std::size_t p = 0; p < planes_.size(); ++p)
            if (!frame.work->writesPlane(int(p))) copyPlane(src[p], dst[p]);
    }

    bool ready(const FrameInFlight&) override { return true; }
    void complete(FrameInFlight&) override {}
    void synchronize() noexcept override {}

private:
    std::vector<PlaneLayout> planes_;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCpuExecutor() { return std::make_unique<CpuExecutor>(); }

}  // namespace gstcudafilters
