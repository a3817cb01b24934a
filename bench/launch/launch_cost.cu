// SPDX-License-Identifier: LGPL-2.1-or-later
// Host cost of the CUDA calls a frame makes: kernel launches with small and large parameter blocks, a device-to-device
// cudaMemcpy2DAsync, event calls, and a two-kernel CUDA graph relaunched three ways (as captured, with its kernel
// parameters set, and captured again and updated, as the element's CUDA executor does). Microseconds of host time
// per call, 100 calls between synchronisations so that the queue never fills. Built and run on the GPU host by
// bench/tools/launch-cost.sh (nvcc alone).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
struct Small { const unsigned char* src; unsigned char* dst; int w, h; long pitch; };
struct Big { Small s; float taps[49]; int more[16]; };
__global__ void kSmall(const __grid_constant__ Small p) { if (threadIdx.x == 0 && blockIdx.x == 0 && p.w < 0) p.dst[0] = 1; }
__global__ void kBig(const __grid_constant__ Big p) { if (threadIdx.x == 0 && blockIdx.x == 0 && p.s.w < 0) p.s.dst[0] = 1; }
using Clock = std::chrono::steady_clock;
template <typename F> double perCall(F f, int n = 20000) {
    for (int i = 0; i < 1000; ++i) f(i);
    cudaDeviceSynchronize();
    double total = 0;
    for (int b = 0; b < n / 100; ++b) {
        auto t0 = Clock::now();
        for (int i = 0; i < 100; ++i) f(i);
        total += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        cudaDeviceSynchronize();
    }
    return total / n;
}
int main() {
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    unsigned char *a, *b; cudaMalloc(&a, 4 << 20); cudaMalloc(&b, 4 << 20);
    cudaEvent_t e; cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    Small sp{a, b, 1920, 540, 2048}; Big bp{}; bp.s = sp;
    std::printf("launch, 40-byte params, 1 block:     %.2f us\n", perCall([&](int) { kSmall<<<1, 128, 0, s>>>(sp); }));
    std::printf("launch, 40-byte params, 4000 blocks: %.2f us\n", perCall([&](int) { kSmall<<<4000, 128, 0, s>>>(sp); }));
    std::printf("launch, 300-byte params, 4000 blocks: %.2f us\n", perCall([&](int) { kBig<<<4000, 128, 0, s>>>(bp); }));
    std::printf("cudaMemcpy2DAsync D2D 1920x540:      %.2f us\n", perCall([&](int) { cudaMemcpy2DAsync(b, 2048, a, 2048, 1920, 540, cudaMemcpyDeviceToDevice, s); }));
    std::printf("cudaEventRecord:                     %.2f us\n", perCall([&](int) { cudaEventRecord(e, s); }));
    std::printf("cudaEventQuery:                      %.2f us\n", perCall([&](int) { cudaEventQuery(e); }));
    std::printf("cudaStreamWaitEvent:                 %.2f us\n", perCall([&](int) { cudaStreamWaitEvent(s, e, 0); }));
    // A graph of the two kernels, relaunched with new parameters each time.
    cudaGraph_t g; cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    kBig<<<4000, 128, 0, s>>>(bp); kSmall<<<4000, 128, 0, s>>>(sp);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&ge, g, 0);
    size_t n = 0; cudaGraphGetNodes(g, nullptr, &n); std::vector<cudaGraphNode_t> nodes(n); cudaGraphGetNodes(g, nodes.data(), &n);
    std::printf("cudaGraphLaunch (2 kernels):         %.2f us\n", perCall([&](int) { cudaGraphLaunch(ge, s); }));
    std::printf("2 x SetParams + cudaGraphLaunch:     %.2f us\n", perCall([&](int i) {
        Big b2 = bp; b2.s.w = 1920 + (i & 1); Small s2 = sp; s2.w = 1920 + (i & 1);
        void* a1[] = {&b2}; void* a2[] = {&s2};
        cudaKernelNodeParams p1{}; cudaGraphKernelNodeGetParams(nodes[0], &p1); p1.kernelParams = a1;
        cudaKernelNodeParams p2{}; cudaGraphKernelNodeGetParams(nodes[1], &p2); p2.kernelParams = a2;
        cudaGraphExecKernelNodeSetParams(ge, nodes[0], &p1); cudaGraphExecKernelNodeSetParams(ge, nodes[1], &p2);
        cudaGraphLaunch(ge, s); }));
    std::printf("capture 2 kernels + exec update + launch: %.2f us\n", perCall([&](int) {
        cudaGraph_t g2; cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
        kBig<<<4000, 128, 0, s>>>(bp); kSmall<<<4000, 128, 0, s>>>(sp);
        cudaStreamEndCapture(s, &g2); cudaGraphExecUpdateResultInfo info; cudaGraphExecUpdate(ge, g2, &info);
        cudaGraphDestroy(g2); cudaGraphLaunch(ge, s); }, 5000));
    std::printf("errors: %s\n", cudaGetErrorString(cudaGetLastError()));
}
