// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target: any text either parses into kernels that make a valid plan and run on a small frame, or is
// rejected with InvalidArgument. Anything else (a crash, another exception, a sanitizer report) is a finding.
#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<cudafilters::Kernel2D> kernels;
    try {
        kernels = cudafilters::parseKernelText(text);
    } catch (const cudafilters::InvalidArgument&) {
        return 0;
    }
    cudafilters::ConvolveDesc desc;
    desc.kernels = kernels;
    desc.border = static_cast<cudafilters::Border>(size % 5);
    desc.combine = static_cast<cudafilters::Combine>(size % 3);
    try {
        const auto plan = cudafilters::ConvolvePlan::make(desc, cudafilters::SampleType::U8, 1 + int(size % 4));
        std::vector<std::uint8_t> src(7 * 5 * 4, 0x33), dst(7 * 5 * 4, 0);
        cudafilters::ImageView s{src.data(), 7, 5, 7 * 4, cudafilters::SampleType::U8, plan.inputChannels};
        cudafilters::ImageView d{dst.data(), 7, 5, 7 * 4, cudafilters::SampleType::U8, plan.outputChannels};
        if (plan.kernelWidth * plan.kernelHeight * int(plan.kernels.size()) <= 4096)
            cudafilters::makeConvolver(plan, cudafilters::Backend::Cpu)->process(s, d);
    } catch (const cudafilters::InvalidArgument&) {
    }
    return 0;
}
