// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What the bus allows for frames of `frameBytes`, measured on the device: frames per second of uploads alone, or of
// uploads and downloads at once (duplex), from pinned host memory on two streams — the bound the element's pipeline
// at best reaches. 0 without CUDA or a device.
#include <cstddef>

#ifdef CUDAFILTERS_HAVE_CUDA
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#endif

namespace benchcommon {

inline double pcieFps(std::size_t frameBytes, bool duplex, double budgetSeconds) {
#ifdef CUDAFILTERS_HAVE_CUDA
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    void *hostIn = nullptr, *hostOut = nullptr, *devIn = nullptr, *devOut = nullptr;
    cudaStream_t up = nullptr, down = nullptr;
    double fps = 0;
    if (cudaHostAlloc(&hostIn, frameBytes, cudaHostAllocPortable) == cudaSuccess &&
        cudaHostAlloc(&hostOut, frameBytes, cudaHostAllocPortable) == cudaSuccess &&
        cudaMalloc(&devIn, frameBytes) == cudaSuccess && cudaMalloc(&devOut, frameBytes) == cudaSuccess &&
        cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking) == cudaSuccess &&
        cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking) == cudaSuccess) {
        std::memset(hostIn, 1, frameBytes);
        cudaMemset(devOut, 2, frameBytes);
        auto batch = [&](int n) {
            for (int i = 0; i < n; ++i) {
                cudaMemcpyAsync(devIn, hostIn, frameBytes, cudaMemcpyHostToDevice, up);
                if (duplex) cudaMemcpyAsync(hostOut, devOut, frameBytes, cudaMemcpyDeviceToHost, down);
            }
            cudaStreamSynchronize(up);
            cudaStreamSynchronize(down);
        };
        batch(5);
        long n = 0;
        const auto start = Clock::now();
        while (seconds(Clock::now() - start) < budgetSeconds) {
            batch(20);
            n += 20;
        }
        fps = double(n) / seconds(Clock::now() - start);
    } else {
        cudaGetLastError();
    }
    if (up) cudaStreamDestroy(up);
    if (down) cudaStreamDestroy(down);
    cudaFree(devIn);
    cudaFree(devOut);
    cudaFreeHost(hostIn);
    cudaFreeHost(hostOut);
    return fps;
#else
    (void)frameBytes;
    (void)duplex;
    (void)budgetSeconds;
    return 0;
#endif
}

}  // namespace benchcommon
