// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference equalizer: the whole algorithm on planes, frame by frame, with the shared integer core
// (cuda/core/histeq_core) — what Backend::Reference builds.
#include "histeq_core.hpp"

#include <cudafilters/histeq.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace cudafilters::core {
namespace {

class ReferenceEqualizer final : public Equalizer {
public:
    explicit ReferenceEqualizer(EqualizePlan plan) : Equalizer(std::move(plan)), tileCapacity_(plan_.tiles()) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        extractPlanes(plan_, src, planes_);
        if (plan_.statistics) {
            FrameStatistics& s = stats_[frames_ % kStatisticsDepth];
            planeStatistics(planes_, plan_.bins(), s);
            s.frame = frames_;
        }
        equalizePlanes(plan_, src.width, src.height, planes_, state_, scratch_);
        rebuildFrame(plan_, src, planes_, dst);
        ++frames_;
    }
    void reset() override { state_.valid = false; }
    // The state and scratch vectors were sized for at most tileCapacity_ tiles: a smaller grid reuses them.
    bool retune(const EqualizePlan& plan) override {
        const Retune kind = retuneKind(plan_, plan, tileCapacity_);
        if (kind == Retune::Refused) return false;
        if (kind == Retune::ResetState) state_.valid = false;
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
    SmoothingState state_;
    FrameScratch scratch_;
    std::uint64_t frames_ = 0;
    std::array<FrameStatistics, kStatisticsDepth> stats_{};
};

}  // namespace
}  // namespace cudafilters::core

namespace cudafilters {

std::unique_ptr<Equalizer> makeReferenceEqualizer(EqualizePlan plan) {
    return std::make_unique<core::ReferenceEqualizer>(std::move(plan));
}

}  // namespace cudafilters
