// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU backend: OpenCV (cv::equalizeHist, cv::createCLAHE, cv::cvtColor) for per-frame work where it exists; the
// shared integer core (cuda/core) for temporal smoothing, 16-bit global equalization and builds without OpenCV.
#include "cpu_equalizer.hpp"

#include "histeq_core.hpp"

#include <array>
#include <vector>

namespace cudafilters {
namespace {

class CpuEqualizer final : public Equalizer {
public:
    explicit CpuEqualizer(EqualizePlan plan) : Equalizer(std::move(plan)), tileCapacity_(plan_.tiles()) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        const bool stateless = plan_.smoothing == 0.0f;
        if (plan_.statistics || !stateless) core::extractPlanes(plan_, src, planes_);
        if (plan_.statistics) {
            FrameStatistics& s = stats_[frames_ % kStatisticsDepth];
            core::planeStatistics(planes_, plan_.bins(), s);
            s.frame = frames_;
        }
        if (!stateless || !detail::equalizeWithLibrary(plan_, src, dst)) {
            if (!plan_.statistics && stateless) core::extractPlanes(plan_, src, planes_);
            core::equalizePlanes(plan_, src.width, src.height, planes_, state_, scratch_);
            core::rebuildFrame(plan_, src, planes_, dst);
        }
        ++frames_;
    }
    void reset() override { state_.valid = false; }
    // The state and scratch vectors were sized for at most tileCapacity_ tiles: a smaller grid reuses them.
    bool retune(const EqualizePlan& plan) override {
        const core::Retune kind = core::retuneKind(plan_, plan, tileCapacity_);
        if (kind == core::Retune::Refused) return false;
        if (kind == core::Retune::ResetState) state_.valid = false;
        plan_ = plan;
        return true;
    }
    std::uint64_t frameCount() const override { return frames_; }
    bool statistics(FrameStatistics& out, std::uint64_t frame) const override {
        if (!plan_.statistics || frame >= frames_ || frames_ - frame > std::uint64_t(kStatisticsDepth)) return false;
        out = stats_[frame % kStatisticsDepth];
        return true;
    }

private:
    int tileCapacity_;
    std::vector<std::vector<std::uint16_t>> planes_;
    core::SmoothingState state_;
    core::FrameScratch scratch_;
    std::uint64_t frames_ = 0;
    std::array<FrameStatistics, kStatisticsDepth> stats_{};
};

}  // namespace

std::unique_ptr<Equalizer> makeCpuEqualizer(EqualizePlan plan) { return std::make_unique<CpuEqualizer>(std::move(plan)); }

}  // namespace cudafilters
