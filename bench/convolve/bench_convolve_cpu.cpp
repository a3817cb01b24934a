// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's direct path against its DFT path (OpenCV's cv::dft), and the crossover algorithm=auto reads
// (cudafilters/convolve_crossover.hpp): per sample type and frame size, the smallest K from which the DFT stays faster.
// Random frames, random full-rank K × K kernels, reflect-101 border; median of --runs frames after one warm-up.
//
// usage: bench-convolve-cpu [--runs N] [--sizes WxH,...] [--ks K,...]
#include <cudafilters/convolve.hpp>
#include <cudafilters/convolve_crossover.hpp>

#include "test_images.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace cudafilters;

namespace {

Kernel2D randomKernel(int k, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(0.f, 1.f);
    Kernel2D kernel{k, k, {}};
    for (int i = 0; i < k * k; ++i) kernel.taps.push_back(d(rng));
    return kernel;
}

double medianMs(Convolver& conv, test::HostImage& src, test::HostImage& dst, int runs) {
    conv.prepare(src.width(), src.height());
    conv.process(src.view(), dst.view());
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        conv.process(src.view(), dst.view());
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

std::vector<int> parseInts(const std::string& text) {
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 3;
    std::vector<std::pair<int, int>> sizes = {{1920, 1080}};
    std::vector<int> ks = {5, 7, 9, 11, 13, 15, 21, 31, 63};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--ks" && i + 1 < argc) ks = parseInts(argv[++i]);
        else if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::stringstream in(argv[++i]);
            for (std::string item; std::getline(in, item, ',');) {
                const auto x = item.find('x');
                sizes.push_back({std::atoi(item.substr(0, x).c_str()), std::atoi(item.substr(x + 1).c_str())});
            }
        } else {
            std::fprintf(stderr, "usage: %s [--runs N] [--sizes WxH,...] [--ks K,...]\n", argv[0]);
            return 2;
        }
    }
    std::printf("CPU backend, median of %d frames, random frames and kernels, reflect-101\n\n", runs);
    std::printf("| type | size | K | direct ms | DFT ms | direct/DFT | auto picks |\n|---|---|---|---|---|---|---|\n");
    std::vector<std::string> rows;
    for (SampleType type : {SampleType::U8, SampleType::U16})
        for (auto [w, h] : sizes) {
            test::HostImage src(w, h, 1, type), dst(w, h, 1, type);
            src.fillRandom(7);
            int crossover = 0;
            for (int k : ks) {
                ConvolveDesc d;
                d.kernels = {randomKernel(k, std::uint32_t(k))};
                d.algorithm = ConvolveAlgorithm::Direct;
                auto direct = makeCpuConvolver(ConvolvePlan::make(d, type, 1));
                d.algorithm = ConvolveAlgorithm::Fft;
                auto dft = makeCpuConvolver(ConvolvePlan::make(d, type, 1));
                const double directMs = medianMs(*direct, src, dst, runs);
                const double dftMs = medianMs(*dft, src, dst, runs);
                if (dftMs < directMs && crossover == 0) crossover = k;
                if (dftMs >= directMs) crossover = 0;
                d.algorithm = ConvolveAlgorithm::Auto;
                const bool autoFft = fftChosen(Backend::Cpu, ConvolvePlan::make(d, type, 1), w, h);
                std::printf("| %s | %dx%d | %d | %.2f | %.2f | %.2f | %s |\n", sampleTypeName(type), w, h, k, directMs,
                            dftMs, directMs / dftMs, autoFft ? "DFT" : "direct");
                std::fflush(stdout);
            }
            rows.push_back("        {Backend::Cpu, SampleType::" + std::string(type == SampleType::U8 ? "U8" : "U16") +
                           ", " + std::to_string(static_cast<long long>(w) * h) + ", " + std::to_string(crossover) +
                           ", " + std::to_string(crossover) + "},");
        }
    std::printf("\nMeasured crossover rows (smallest K from which the DFT stayed faster; 0 = never) for "
                "fftCrossoverTable():\n");
    for (const std::string& r : rows) std::printf("%s\n", r.c_str());
    return 0;
}
