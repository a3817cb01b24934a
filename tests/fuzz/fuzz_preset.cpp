// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target: preset × size × sigma × border × sample type × channels, with arbitrary bytes as values,
// either build a plan that runs on a small odd frame or are rejected with InvalidArgument.
#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 16) return 0;
    std::int32_t rawSize;
    double sigma;
    std::memcpy(&rawSize, data, 4);
    std::memcpy(&sigma, data + 4, 8);
    const auto& table = cudafilters::presetTable();
    const auto preset = table[data[12] % table.size()].preset;
    const auto type = data[13] & 1 ? cudafilters::SampleType::U16 : cudafilters::SampleType::U8;
    const int channels = 1 + data[14] % 4;
    try {
        cudafilters::ConvolveDesc desc = cudafilters::presetDesc(preset, rawSize % 300, sigma);
        desc.border = static_cast<cudafilters::Border>(data[15] % 5);
        const auto plan = cudafilters::ConvolvePlan::make(desc, type, channels);
        const int w = 1 + data[12] % 9, h = 1 + data[13] % 7;
        const std::size_t pitch = std::size_t(w) * channels * 2 + 6;
        std::vector<std::uint8_t> src(pitch * h, 0x5a), dst(pitch * h, 0);
        cudafilters::ImageView s{src.data(), w, h, pitch, type, channels};
        cudafilters::ImageView d{dst.data(), w, h, pitch, type, plan.outputChannels};
        cudafilters::makeConvolver(plan, cudafilters::Backend::Cpu)->process(s, d);
    } catch (const cudafilters::InvalidArgument&) {
    }
    return 0;
}
