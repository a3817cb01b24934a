// SPDX-License-Identifier: LGPL-2.1-or-later
// Which SM each block of a grid lands on when every block of it is resident at once: 128-thread blocks read %smid and
// spin 60 000 cycles, with occupancy capped to 10, 4 and 9 blocks per SM by unused dynamic shared memory. Prints, per
// cap and grid, how many SMs took blocks and the fewest and most blocks one SM took. Meant for the GPU host:
//   nvcc -O2 -arch=sm_90 -o /tmp/block-dispatch bench/launch/block_dispatch.cu && /tmp/block-dispatch
// The assumption it checks (bytesSegments, segmentFor): a grid whose blocks are all resident lands on every SM, the
// SMs at most one block apart.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        const cudaError_t e = (call);                                                                   \
        if (e != cudaSuccess) {                                                                         \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                            \
            std::exit(1);                                                                               \
        }                                                                                               \
    } while (0)

__global__ void __launch_bounds__(128) spin(int* sm, long long cycles) {
    extern __shared__ char unused[];
    if (threadIdx.x == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        sm[blockIdx.x] = int(id);
        if (cycles < 0) unused[0] = 1;  // keeps the dynamic shared memory declared
    }
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int* smOfBlock = nullptr;
    CHECK(cudaMalloc(&smOfBlock, 1 << 20));
    constexpr int kMaxShared = 200 * 1024;
    CHECK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxShared));
    for (int cap : {10, 4, 9}) {
        std::size_t shared = 0;
        int fit = 0;
        for (; shared < kMaxShared; shared += 1024) {
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, spin, 128, shared));
            if (fit <= cap) break;
        }
        for (int grid : {264, 281, 405, 1080, 1090}) {
            if (grid > fit * sms) continue;
            spin<<<grid, 128, shared>>>(smOfBlock, 60000);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            std::vector<int> sm(std::size_t(grid), 0);
            CHECK(cudaMemcpy(sm.data(), smOfBlock, sm.size() * sizeof(int), cudaMemcpyDeviceToHost));
            std::vector<int> blocks(std::size_t(sms), 0);
            for (int s : sm) ++blocks[std::size_t(s)];
            const int used = int(std::count_if(blocks.begin(), blocks.end(), [](int b) { return b > 0; }));
            const auto [fewest, most] = std::minmax_element(blocks.begin(), blocks.end());
            std::printf("cap %d (fit %d, %zu bytes shared) grid %d: SMs used %d of %d, blocks per SM %d to %d; first "
                        "blocks' SMs:",
                        cap, fit, shared, grid, used, sms, *fewest, *most);
            for (int i = 0; i < 24; ++i) std::printf(" %d", sm[std::size_t(i)]);
            std::printf("\n");
        }
    }
    CHECK(cudaFree(smOfBlock));
}
