// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's presets against the OpenCV function a user would call instead, in the same process on the same
// frames: cv::GaussianBlur, cv::blur, cv::Sobel + cv::convertScaleAbs, cv::filter2D. Random 1080p frames (GRAY8 and
// RGB), reflect-101; each round times one frame of ours and one of OpenCV's, alternately; medians of --runs rounds
// after a warm-up. Also says whether the outputs are identical.
//
// usage: bench-presets-cpu [--runs N] [--size WxH]
#include <cudafilters/convolve.hpp>
#include <cudafilters/presets.hpp>

#include "test_images.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace cudafilters;

namespace {

struct Case {
    const char* name;
    std::function<ConvolveDesc()> desc;
    std::function<void(const cv::Mat&, cv::Mat&)> openCv;
};

// A 7x7 kernel of random integers over 64: sums exact in float, so ours and filter2D round the same values.
Kernel2D kernel7x7() {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> d(-3, 6);
    Kernel2D k{7, 7, {}};
    for (int i = 0; i < 49; ++i) k.taps.push_back(float(d(rng)));
    return k;
}

std::vector<Case> cases() {
    std::vector<Case> out;
    for (int k : {3, 5, 9, 31})
        out.push_back({strdup(("gaussian " + std::to_string(k)).c_str()), [k] { return presetDesc(Preset::Gaussian, k); },
                       [k](const cv::Mat& in, cv::Mat& o) { cv::GaussianBlur(in, o, cv::Size(k, k), 0, 0); }});
    for (int k : {5, 31})
        out.push_back({strdup(("box " + std::to_string(k)).c_str()), [k] { return presetDesc(Preset::Box, k); },
                       [k](const cv::Mat& in, cv::Mat& o) { cv::blur(in, o, cv::Size(k, k)); }});
    out.push_back({"sobel-x 3", [] { return presetDesc(Preset::SobelX, 3); }, [](const cv::Mat& in, cv::Mat& o) {
                       cv::Mat d;
                       cv::Sobel(in, d, CV_16S, 1, 0, 3);
                       cv::convertScaleAbs(d, o);
                   }});
    out.push_back({"filter2D 7x7", [] {
                       ConvolveDesc d;
                       d.kernels = {kernel7x7()};
                       d.divisor = 64;
                       return d;
                   },
                   [](const cv::Mat& in, cv::Mat& o) {
                       Kernel2D k = kernel7x7();
                       for (float& t : k.taps) t /= 64;
                       cv::filter2D(in, o, -1, cv::Mat(7, 7, CV_32F, k.taps.data()));
                   }});
    return out;
}

double ms(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 9, width = 1920, height = 1080;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2) continue;
        else {
            std::fprintf(stderr, "usage: %s [--runs N] [--size WxH]\n", argv[0]);
            return 2;
        }
    }
    std::printf("CPU backend against OpenCV %s (%d threads), %dx%d random frames, median of %d rounds\n\n",
                CV_VERSION, cv::getNumThreads(), width, height, runs);
    std::printf("| case | format | ours ms | OpenCV ms | ours/OpenCV speed | identical |\n|---|---|---|---|---|---|\n");
    for (const Case& c : cases())
        for (int channels : {1, 3}) {
            test::HostImage src(width, height, channels, SampleType::U8), ours(width, height, channels, SampleType::U8);
            src.fillRandom(11);
            const cv::Mat in(height, width, CV_8UC(channels), src.bytes(), src.pitch());
            cv::Mat theirs;
            auto conv = makeCpuConvolver(ConvolvePlan::make(c.desc(), SampleType::U8, channels));
            conv->process(src.view(), ours.view());
            c.openCv(in, theirs);
            std::vector<double> a, b;
            for (int r = 0; r < runs; ++r) {
                auto t0 = std::chrono::steady_clock::now();
                conv->process(src.view(), ours.view());
                a.push_back(ms(t0));
                t0 = std::chrono::steady_clock::now();
                c.openCv(in, theirs);
                b.push_back(ms(t0));
            }
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            const cv::Mat mine(height, width, CV_8UC(channels), ours.bytes(), ours.pitch());
            const bool same = cv::norm(mine, theirs, cv::NORM_INF) == 0;
            std::printf("| %s | %s | %.2f | %.2f | %.2f | %s |\n", c.name, channels == 1 ? "GRAY8" : "RGB",
                        a[a.size() / 2], b[b.size() / 2], b[b.size() / 2] / a[a.size() / 2], same ? "yes" : "no");
            std::fflush(stdout);
        }
    return 0;
}
