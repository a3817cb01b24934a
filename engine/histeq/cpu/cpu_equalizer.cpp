// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU backend: OpenCV (cv::equalizeHist, cv::createCLAHE, cv::cvtColor) for per-frame work where it exists; the
// shared integer core (engine/histeq/core) for temporal smoothing, 16-bit global equalization and builds without OpenCV.
#include "cpu_equalizer.hpp"

#include "host_equalizer.hpp"

#include <memory>

namespace cudafilters {
namespace {

class CpuEqualizer final : public core::HostEqualizer {
public:
    explicit CpuEqualizer(EqualizePlan plan) : HostEqualizer(std::move(plan)) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        const bool stateless = plan_.smoothing == 0.0f;
        if (plan_.statistics || !stateless) core::extractPlanes(plan_, src, planes_);
        recordStatistics();
        if (!stateless || !detail::equalizeWithLibrary(plan_, src, dst)) {
            if (!plan_.statistics && stateless) core::extractPlanes(plan_, src, planes_);
            equalizeExtracted(src, dst);
        }
        ++frames_;
    }
};

}  // namespace

std::unique_ptr<Equalizer> makeCpuEqualizer(EqualizePlan plan) { return std::make_unique<CpuEqualizer>(std::move(plan)); }

}  // namespace cudafilters
