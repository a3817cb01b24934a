// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The naive references every backend is tested against: one output sample at a time straight from the definition
// (convolution), the whole algorithm on planes with the shared integer core (equalization). Test support only: they
// live beside the tests, outside the engine library the plugin links, and are no Backend of the product.
#include <cudafilters/convolve.hpp>
#include <cudafilters/histeq.hpp>

#include <memory>

namespace cudafilters::reference {

// Host memory, stream ignored; retune and statistics as the CPU backend's.
std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan);
std::unique_ptr<Equalizer> makeEqualizer(EqualizePlan plan);

inline std::unique_ptr<Convolver> makeConvolver(const ConvolveDesc& desc, SampleType type, int channels,
                                                SampleBits bits = {}) {
    return makeConvolver(ConvolvePlan::make(desc, type, channels, bits));
}
inline std::unique_ptr<Equalizer> makeEqualizer(const EqualizeDesc& desc, SampleType type, int channels,
                                                ChannelOrder order = {}, SampleBits bits = {}) {
    return makeEqualizer(EqualizePlan::make(desc, type, channels, order, bits));
}

// For checks run alike on the reference and on the product's CPU backend (and a benchmark's choice of judge).
enum class Impl { Reference, Cpu };
inline const char* implName(Impl impl) { return impl == Impl::Reference ? "reference" : backendName(Backend::Cpu); }
inline std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan, Impl impl) {
    if (impl == Impl::Reference) return makeConvolver(std::move(plan));
    return cudafilters::makeConvolver(std::move(plan), Backend::Cpu);
}
inline std::unique_ptr<Equalizer> makeEqualizer(EqualizePlan plan, Impl impl) {
    if (impl == Impl::Reference) return makeEqualizer(std::move(plan));
    return cudafilters::makeEqualizer(std::move(plan), Backend::Cpu);
}

}  // namespace cudafilters::reference
