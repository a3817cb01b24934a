// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What the host equalizers (the CPU backend, and the tests' reference) share besides process(): the frame's planes, the
// temporal state and scratch, the frame count, the statistics of the last kStatisticsDepth frames, reset and retune.
#include "histeq_core.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace cudafilters::core {

class HostEqualizer : public Equalizer {
public:
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
        if (!statisticsHeld(plan_, frames_, frame)) return false;
        out = stats_[frame % kStatisticsDepth];
        return true;
    }

protected:
    explicit HostEqualizer(EqualizePlan plan) : Equalizer(std::move(plan)), tileCapacity_(plan_.tiles()) {}

    // The statistics of this frame from its extracted planes, when the plan asks for them.
    void recordStatistics() {
        if (!plan_.statistics) return;
        FrameStatistics& s = stats_[frames_ % kStatisticsDepth];
        planeStatistics(planes_, plan_.bins(), s);
        s.frame = frames_;
    }
    // The whole algorithm on the extracted planes, written into dst.
    void equalizeExtracted(const ImageView& src, const ImageView& dst) {
        equalizePlanes(plan_, src.width, src.height, planes_, state_, scratch_);
        rebuildFrame(plan_, src, planes_, dst);
    }

    std::vector<std::vector<std::uint16_t>> planes_;
    std::uint64_t frames_ = 0;

private:
    int tileCapacity_;  // tiles the state and scratch were sized for
    SmoothingState state_;
    FrameScratch scratch_;
    std::array<FrameStatistics, kStatisticsDepth> stats_{};
};

}  // namespace cudafilters::core
