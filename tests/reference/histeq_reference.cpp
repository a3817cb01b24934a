// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference equalizer: the whole algorithm on planes, frame by frame, with the shared integer core
// (engine/histeq/core/histeq_core) and the host equalizers' common state (engine/histeq/core/host_equalizer.hpp).
#include "reference.hpp"

#include "host_equalizer.hpp"

#include <cudafilters/histeq.hpp>

#include <memory>

namespace cudafilters::core {
namespace {

class ReferenceEqualizer final : public HostEqualizer {
public:
    explicit ReferenceEqualizer(EqualizePlan plan) : HostEqualizer(std::move(plan)) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        extractPlanes(plan_, src, planes_);
        recordStatistics();
        equalizeExtracted(src, dst);
        ++frames_;
    }
};

}  // namespace
}  // namespace cudafilters::core

namespace cudafilters::reference {

std::unique_ptr<Equalizer> makeEqualizer(EqualizePlan plan) {
    return std::make_unique<core::ReferenceEqualizer>(std::move(plan));
}

}  // namespace cudafilters::reference
