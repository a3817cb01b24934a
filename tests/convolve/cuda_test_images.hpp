// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Device images for the CUDA suites: pitched with poisoned padding (checked untouched on the device), outputs
// poisoned before each run and downloaded into poisoned host images; runCuda() runs a convolver over a host image.
// Without CUDA (the suite still builds, and every test skips) runCuda() fails the test.
#include "convolve_cases.hpp"

#include <cudafilters/device.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#ifdef CUDAFILTERS_HAVE_CUDA
#include "convolve_launch.hpp"
#include "kernel_route.hpp"
#include "padded_plan.hpp"

#include <cudafilters/cuda_raii.hpp>

#include <cuda_runtime.h>
#endif

#define SKIP_WITHOUT_DEVICE() \
    if (cudafilters::cudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device"

namespace cudafilters::test {

constexpr std::uint8_t kDevicePoison = 0xC3;  // device padding, expected untouched
constexpr std::uint8_t kOutputPoison = 0x5A;  // device output rows before the run

#ifdef CUDAFILTERS_HAVE_CUDA

// A device image whose rows are followed by poisoned padding: an aligned pitch (as cudaMallocPitch gives, the
// kernels then read rows in words) or an odd one (rows at every alignment; u16 rows stay 2-byte aligned), or the
// pitch given (at least the row's bytes).
struct DevicePlane {
    DeviceBuffer buffer;
    ImageView view;
    std::size_t bytes = 0;

    DevicePlane(int width, int height, int channels, SampleType type, bool oddPitch, std::size_t pitch = 0) {
        view.width = width;
        view.height = height;
        view.channels = channels;
        view.type = type;
        view.pitch = pitch                        ? pitch
                     : oddPitch                   ? view.rowBytes() + (type == SampleType::U8 ? 13 : 2 * 19)
                                                  : (view.rowBytes() + 4 + 255) / 256 * 256;
        bytes = view.pitch * height + 64;
        buffer.reserve(bytes);
        view.data = buffer.data();
        CUDAFILTERS_CHECK(cudaMemset(buffer.data(), kDevicePoison, bytes));
    }

    void upload(HostImage& host) {
        CUDAFILTERS_CHECK(cudaMemcpy2D(view.data, view.pitch, host.bytes(), host.pitch(), host.rowBytes(),
                                       host.height(), cudaMemcpyHostToDevice));
    }
    void poisonRows() {
        CUDAFILTERS_CHECK(cudaMemset2D(view.data, view.pitch, kOutputPoison, view.rowBytes(), view.height));
    }
    // Downloads into a poisoned host image.
    HostImage download() {
        HostImage host(view.width, view.height, view.channels, view.type, 11);
        host.fillRows(0x3C);
        CUDAFILTERS_CHECK(cudaMemcpy2D(host.bytes(), host.pitch(), view.data, view.pitch, view.rowBytes(),
                                       view.height, cudaMemcpyDeviceToHost));
        return host;
    }
    // True when every byte outside the rows still holds kDevicePoison.
    bool paddingIntact() const {
        std::vector<std::uint8_t> raw(bytes);
        CUDAFILTERS_CHECK(cudaMemcpy(raw.data(), buffer.data(), bytes, cudaMemcpyDeviceToHost));
        for (int y = 0; y < view.height; ++y)
            for (std::size_t b = view.rowBytes(); b < view.pitch; ++b)
                if (raw[std::size_t(y) * view.pitch + b] != kDevicePoison) return false;
        for (std::size_t b = view.pitch * view.height; b < bytes; ++b)
            if (raw[b] != kDevicePoison) return false;
        return true;
    }
};

inline HostImage runCuda(Convolver& convolver, HostImage& input, bool oddPitch = false, GpuStream stream = nullptr) {
    const ConvolvePlan& plan = convolver.plan();
    DevicePlane src(input.width(), input.height(), input.channels(), input.type(), oddPitch);
    DevicePlane dst(input.width(), input.height(), plan.outputChannels, plan.type, oddPitch);
    src.upload(input);
    dst.poisonRows();
    convolver.process(src.view, dst.view, stream);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(src.paddingIntact()) << "source padding written";
    EXPECT_TRUE(dst.paddingIntact()) << "destination padding written";
    HostImage out = dst.download();
    EXPECT_TRUE(out.paddingIntact());
    return out;
}

inline HostImage runCuda(const ConvolvePlan& plan, HostImage& input, bool oddPitch = false) {
    return runCuda(*makeCudaConvolver(plan), input, oddPitch);
}

// The generic kernel (any size and bank, taps in device memory) launched directly on `plan` as it is, unpadded and
// unsplit: what padded plans and split banks are compared with byte for byte.
inline HostImage runGenericKernel(const ConvolvePlan& plan, HostImage& input) {
    DevicePlane src(input.width(), input.height(), input.channels(), input.type(), false);
    DevicePlane dst(input.width(), input.height(), plan.outputChannels, plan.type, false);
    src.upload(input);
    dst.poisonRows();
    std::vector<float> taps;
    for (const Kernel2D& k : plan.kernels) taps.insert(taps.end(), k.taps.begin(), k.taps.end());
    float* deviceTaps = nullptr;
    CUDAFILTERS_CHECK(cudaMalloc(&deviceTaps, taps.size() * sizeof(float)));
    CUDAFILTERS_CHECK(cudaMemcpy(deviceTaps, taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice));
    cuda_detail::launchGeneric(plan.type, plan.mode, int(plan.kernels.size()), plan.kernelWidth, plan.kernelHeight,
                               cuda_detail::makeFrame(plan, src.view, dst.view), deviceTaps, nullptr);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    CUDAFILTERS_CHECK(cudaFree(deviceTaps));
    EXPECT_TRUE(dst.paddingIntact()) << "destination padding written";
    return dst.download();
}

inline std::string cudaPath(const ConvolvePlan& plan, int width = 0, int height = 0) {
    return cuda_detail::pathName(plan, width, height);
}

#else

inline HostImage runCuda(Convolver&, HostImage&, bool = false, GpuStream = nullptr) {
    ADD_FAILURE() << "built without CUDA";
    return {};
}
inline HostImage runCuda(const ConvolvePlan&, HostImage&, bool = false) {
    ADD_FAILURE() << "built without CUDA";
    return {};
}
inline std::string cudaPath(const ConvolvePlan&, int = 0, int = 0) { return "none"; }

#endif

}  // namespace cudafilters::test
