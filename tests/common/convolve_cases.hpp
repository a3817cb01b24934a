// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Shared helpers for convolution tests: random kernels, running a backend or the reference on host images.
#include "reference.hpp"
#include "test_images.hpp"

#include <cudafilters/convolve.hpp>

#include <random>

namespace cudafilters::test {

inline Kernel2D randomKernel(int width, int height, std::uint32_t seed, bool integer) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> real(-1.f, 1.f);
    std::uniform_int_distribution<int> whole(-4, 4);
    Kernel2D k{width, height, {}};
    for (int i = 0; i < width * height; ++i) k.taps.push_back(integer ? float(whole(rng)) : real(rng));
    return k;
}

// Output image shaped for the plan, poisoned.
inline HostImage outputFor(const ConvolvePlan& plan, int width, int height) {
    HostImage out(width, height, plan.outputChannels, plan.type, 7);
    out.fillRows(0x5A);
    return out;
}

inline HostImage runBackend(Backend backend, const ConvolvePlan& plan, HostImage& input) {
    HostImage out = outputFor(plan, input.width(), input.height());
    makeConvolver(plan, backend)->process(input.view(), out.view());
    return out;
}

inline HostImage runBackend(reference::Impl impl, const ConvolvePlan& plan, HostImage& input) {
    HostImage out = outputFor(plan, input.width(), input.height());
    reference::makeConvolver(plan, impl)->process(input.view(), out.view());
    return out;
}

// What every backend is compared against.
inline HostImage runReference(const ConvolvePlan& plan, HostImage& input) {
    return runBackend(reference::Impl::Reference, plan, input);
}

}  // namespace cudafilters::test
