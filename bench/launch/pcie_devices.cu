// SPDX-License-Identifier: LGPL-2.1-or-later
// What the host's buses allow when several GPUs move frames at once: 4K RGBA frames (or --bytes N) uploaded and
// downloaded at once (duplex) from pinned host memory (pcie_bound.hpp, as bench-pipeline's bound), on device 0 alone,
// then on devices 0 … n − 1 together, one host thread each. Prints frames per second a device and in all. Built and
// run on the GPU host by `bench/tools/launch-tool.sh pcie-devices`.
#include "pcie_bound.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    std::size_t bytes = std::size_t(3840) * 2160 * 4;
    double seconds = 2.0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = std::atof(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--bytes N] [--seconds S]\n", argv[0]);
            return 2;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        std::fprintf(stderr, "pcie-devices: no CUDA device\n");
        return 1;
    }
    std::printf("frames of %zu bytes, uploads and downloads at once from pinned memory, %.1f s a run\n\n", bytes, seconds);
    std::printf("| devices at once | fps a device | fps in all | GB/s each way in all |\n|---|---|---|---|\n");
    for (int n = 1; n <= devices; ++n) {
        std::vector<double> fps(std::size_t(n), 0.0);
        std::vector<std::thread> threads;
        for (int d = 0; d < n; ++d)
            threads.emplace_back([&, d] {
                if (cudaSetDevice(d) == cudaSuccess) fps[std::size_t(d)] = benchcommon::pcieFps(bytes, true, seconds);
            });
        for (std::thread& t : threads) t.join();
        double total = 0;
        std::string each;
        for (double f : fps) {
            total += f;
            each += (each.empty() ? "" : " / ") + std::to_string(int(f + 0.5));
        }
        std::printf("| %d | %s | %.0f | %.1f |\n", n, each.c_str(), total, total * double(bytes) / 1e9);
        std::fflush(stdout);
    }
    return 0;
}
