// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel each representative frame takes (kernel_route.hpp), written out: a change of route fails here, so that it
// is made on purpose, with the benchmark that justifies it. The routing table is host code, so this runs without a
// GPU (CPU suite) and never skips. The FFT rows depend on cuFFT loading: the table below asks for the direct and
// separable kernels with cuFFT taken as absent; FftRoutes checks the FFT rows with cuFFT taken as loaded.
#include "kernel_route.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cudafilters::cuda_detail {
namespace {

struct Layout {
    const char* name;
    SampleType type;
    int channels;
    unsigned mask, copy;
};

const Layout kLayouts[] = {
    {"GRAY8", SampleType::U8, 1, 0x1, 0x0},         {"GRAY16", SampleType::U16, 1, 0x1, 0x0},
    {"RGBA", SampleType::U8, 4, 0xF, 0x0},          {"RGBA-alpha-copied", SampleType::U8, 4, 0x7, 0x8},
    {"RGB", SampleType::U8, 3, 0x7, 0x0},           {"NV12-UV", SampleType::U8, 2, 0x3, 0x0},
};

const Layout& layout(const std::string& name) {
    for (const Layout& l : kLayouts)
        if (name == l.name) return l;
    throw std::invalid_argument(name);
}

// "3" … "31": square; "3x5": 3 wide, 5 high.
std::pair<int, int> kernelSize(const std::string& k) {
    const auto x = k.find('x');
    if (x == std::string::npos) return {std::stoi(k), std::stoi(k)};
    return {std::stoi(k.substr(0, x)), std::stoi(k.substr(x + 1))};
}

std::vector<float> binomial(int n) {
    std::vector<float> t(std::size_t(n), 0.f);
    t[0] = 1.f;
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0; --j) t[std::size_t(j)] += t[std::size_t(j - 1)];
    return t;
}

// A full-rank kernel (no row ⊗ column factorisation), different for each bank member.
Kernel2D fullRank(int w, int h, int member) {
    Kernel2D k{w, h, std::vector<float>(std::size_t(w) * h)};
    for (int i = 0; i < w * h; ++i) k.taps[std::size_t(i)] = float((i * 7 + member * 3) % 5) - 1.5f;
    k.taps[std::size_t(w * h / 2)] = 8.f + float(member);
    return k;
}

// kind: "separable" (a binomial row ⊗ column), "direct" (one full-rank kernel), "bank2" and "bank4" (written to their
// own channels on one-channel layouts, Magnitude and MaxAbs on colour ones).
ConvolvePlan makePlan(const Layout& l, const std::string& kind, const std::string& k, Border border = Border::Reflect101,
                      double borderValue = 0) {
    const auto [w, h] = kernelSize(k);
    ConvolveDesc d;
    d.channelMask = l.mask;
    d.copyMask = l.copy;
    d.border = border;
    d.borderValue = borderValue;
    if (kind == "separable") {
        d.row = binomial(w);
        d.column = binomial(h);
    } else {
        const int bank = kind == "direct" ? 1 : kind == "bank2" ? 2 : 4;
        for (int m = 0; m < bank; ++m) d.kernels.push_back(fullRank(w, h, m));
        d.combine = bank == 1 ? Combine::Sum
                    : l.channels == 1 ? Combine::Channels
                    : bank == 2 ? Combine::Magnitude
                                : Combine::MaxAbs;
    }
    ConvolvePlan plan = ConvolvePlan::make(d, l.type, l.channels);
    EXPECT_EQ(plan.separable, kind == "separable") << l.name << " " << kind << " " << k;
    return plan;
}

// Views as process() takes them (nothing is read): rows start 256-byte aligned at a pitch rounded up to 512 bytes, as
// cudaMallocPitch gives them; srcOffset samples further on where a case asks for unaligned rows.
std::tuple<ImageView, ImageView> views(const ConvolvePlan& plan, int width, int height, std::size_t srcOffset = 0) {
    const std::size_t sample = sampleSize(plan.type);
    const auto pitch = [&](int channels) { return (std::size_t(width) * channels * sample + 511) / 512 * 512; };
    auto* srcBase = reinterpret_cast<unsigned char*>(std::uintptr_t(0x10000000));
    auto* dstBase = reinterpret_cast<unsigned char*>(std::uintptr_t(0x40000000));
    const ImageView src{srcBase + srcOffset * sample, width, height, pitch(plan.inputChannels), plan.type,
                        plan.inputChannels};
    const ImageView dst{dstBase, width, height, pitch(plan.outputChannels), plan.type, plan.outputChannels};
    return {src, dst};
}

std::string route(const ConvolvePlan& plan, int width, int height, std::size_t srcOffset = 0, bool cufft = false) {
    const auto [src, dst] = views(plan, width, height, srcOffset);
    return name(frameRoute(plan, src, dst, cufft));
}

// cuFFT taken as absent, Reflect101, aligned rows: the route at 640x480, 1920x1080 and 3840x2160.
struct Expected {
    const char* layout;
    const char* kind;
    const char* k;
    const char* vga;
    const char* hd;
    const char* uhd;
};

// clang-format off
const Expected kExpected[] = {
    {"GRAY8", "separable", "3", "direct-register-window-u8", "direct-register-window-u8", "separable-register-window-u8"},
    {"GRAY8", "separable", "5", "direct-gray-tile-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"GRAY8", "separable", "7", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "9", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "15", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "31", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "11", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "13", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"GRAY8", "separable", "3x5", "direct-gray-tile-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"GRAY8", "direct", "3", "direct-register-window-u8", "direct-register-window-u8", "direct-register-window-u8"},
    {"GRAY8", "direct", "5", "direct-gray-tile-u8", "direct-gray-tile-u8", "direct-register-window-u8"},
    {"GRAY8", "direct", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "direct", "3x5", "direct-gray-tile-u8", "direct-gray-tile-u8", "direct-register-window-u8"},
    {"GRAY8", "bank2", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank2", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY8", "bank4", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"GRAY16", "separable", "3", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "5", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "7", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "9", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "15", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "31", "separable-tile-u16", "separable-tile-u16", "separable-stream-u16"},
    {"GRAY16", "separable", "11", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "13", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "separable", "3x5", "separable-tile-u16", "separable-tile-u16", "separable-tile-u16"},
    {"GRAY16", "direct", "3", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "7", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "9", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "15", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "31", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "11", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "13", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "direct", "3x5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "3", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "7", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "9", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "15", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "31", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "11", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "13", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank2", "3x5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "3", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "7", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "9", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "15", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "31", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "11", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "13", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"GRAY16", "bank4", "3x5", "direct-tile-u16", "direct-tile-u16", "direct-tile-u16"},
    {"RGBA", "separable", "3", "separable-register-window-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA", "separable", "5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA", "separable", "7", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "9", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "15", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "31", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "11", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "13", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA", "separable", "3x5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA", "direct", "3", "direct-register-window-u8", "direct-register-window-u8", "direct-register-window-u8"},
    {"RGBA", "direct", "5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA", "direct", "7", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA", "direct", "9", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA", "direct", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "direct", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "direct", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "direct", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "direct", "3x5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA", "bank2", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank2", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank4", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank4", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA", "bank4", "7", "generic", "generic", "generic"},
    {"RGBA", "bank4", "9", "generic", "generic", "generic"},
    {"RGBA", "bank4", "15", "generic", "generic", "generic"},
    {"RGBA", "bank4", "31", "generic", "generic", "generic"},
    {"RGBA", "bank4", "11", "generic", "generic", "generic"},
    {"RGBA", "bank4", "13", "generic", "generic", "generic"},
    {"RGBA", "bank4", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "separable", "3", "separable-register-window-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA-alpha-copied", "separable", "5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA-alpha-copied", "separable", "7", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "9", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "15", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "31", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "11", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "13", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGBA-alpha-copied", "separable", "3x5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGBA-alpha-copied", "direct", "3", "direct-register-window-u8", "direct-register-window-u8", "direct-register-window-u8"},
    {"RGBA-alpha-copied", "direct", "5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA-alpha-copied", "direct", "7", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA-alpha-copied", "direct", "9", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA-alpha-copied", "direct", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "direct", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "direct", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "direct", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "direct", "3x5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGBA-alpha-copied", "bank2", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank2", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank4", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank4", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGBA-alpha-copied", "bank4", "7", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "9", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "15", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "31", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "11", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "13", "generic", "generic", "generic"},
    {"RGBA-alpha-copied", "bank4", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "separable", "3", "separable-register-window-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGB", "separable", "5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGB", "separable", "7", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "9", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "15", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "31", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "11", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "13", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"RGB", "separable", "3x5", "direct-interleaved-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"RGB", "direct", "3", "direct-register-window-u8", "direct-register-window-u8", "direct-register-window-u8"},
    {"RGB", "direct", "5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGB", "direct", "7", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGB", "direct", "9", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGB", "direct", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "direct", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "direct", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "direct", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "direct", "3x5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"RGB", "bank2", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank2", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank4", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank4", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"RGB", "bank4", "7", "generic", "generic", "generic"},
    {"RGB", "bank4", "9", "generic", "generic", "generic"},
    {"RGB", "bank4", "15", "generic", "generic", "generic"},
    {"RGB", "bank4", "31", "generic", "generic", "generic"},
    {"RGB", "bank4", "11", "generic", "generic", "generic"},
    {"RGB", "bank4", "13", "generic", "generic", "generic"},
    {"RGB", "bank4", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "separable", "3", "separable-register-window-u8", "separable-register-window-u8", "separable-register-window-u8"},
    {"NV12-UV", "separable", "5", "direct-interleaved-u8", "direct-interleaved-u8", "separable-register-window-u8"},
    {"NV12-UV", "separable", "7", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "9", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "15", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "31", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "11", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "13", "separable-staged-u8", "separable-staged-u8", "separable-staged-u8"},
    {"NV12-UV", "separable", "3x5", "direct-interleaved-u8", "direct-interleaved-u8", "separable-register-window-u8"},
    {"NV12-UV", "direct", "3", "direct-register-window-u8", "direct-register-window-u8", "direct-register-window-u8"},
    {"NV12-UV", "direct", "5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"NV12-UV", "direct", "7", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"NV12-UV", "direct", "9", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"NV12-UV", "direct", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "direct", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "direct", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "direct", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "direct", "3x5", "direct-interleaved-u8", "direct-interleaved-u8", "direct-interleaved-u8"},
    {"NV12-UV", "bank2", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "7", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "9", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "15", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "31", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "11", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "13", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank2", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank4", "3", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank4", "5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
    {"NV12-UV", "bank4", "7", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "9", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "15", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "31", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "11", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "13", "generic", "generic", "generic"},
    {"NV12-UV", "bank4", "3x5", "direct-tile-u8", "direct-tile-u8", "direct-tile-u8"},
};
// clang-format on

const char* const kKinds[] = {"separable", "direct", "bank2", "bank4"};
const char* const kSizes[] = {"3", "5", "7", "9", "15", "31", "11", "13", "3x5"};

std::string rowText(const char* l, const char* kind, const char* k, const std::string& vga, const std::string& hd,
                    const std::string& uhd) {
    char text[256];
    std::snprintf(text, sizeof text, "{\"%s\", \"%s\", \"%s\", \"%s\", \"%s\", \"%s\"},", l, kind, k, vga.c_str(),
                  hd.c_str(), uhd.c_str());
    return text;
}

TEST(KernelRoute, RepresentativeFrames) {
    std::map<std::tuple<std::string, std::string, std::string>, const Expected*> rows;
    for (const Expected& e : kExpected) EXPECT_TRUE(rows.emplace(std::make_tuple(e.layout, e.kind, e.k), &e).second);
    int checked = 0;
    for (const Layout& l : kLayouts)
        for (const char* kind : kKinds)
            for (const char* k : kSizes) {
                const ConvolvePlan plan = makePlan(l, kind, k);
                const std::string vga = route(plan, 640, 480), hd = route(plan, 1920, 1080),
                                  uhd = route(plan, 3840, 2160);
                const auto row = rows.find(std::make_tuple(l.name, kind, k));
                if (row == rows.end()) {
                    ADD_FAILURE() << "no expected row; the routes now:\n" << rowText(l.name, kind, k, vga, hd, uhd);
                    continue;
                }
                const Expected& e = *row->second;
                EXPECT_EQ(rowText(e.layout, e.kind, e.k, e.vga, e.hd, e.uhd), rowText(l.name, kind, k, vga, hd, uhd));
                ++checked;
            }
    EXPECT_EQ(checked, int(std::size(kExpected)));
    EXPECT_EQ(checked, int(std::size(kLayouts) * std::size(kKinds) * std::size(kSizes)));
}

// Frames at the edges of the kernels' conditions: below the register window's minimum height (more than K / 2 rows),
// rows not 16-byte (or 4-byte) aligned, a constant border whose value is not a byte, and frame sizes on both sides of
// registerWindowApplies' thresholds.
struct Edge {
    const char* layout;
    const char* kind;
    const char* k;
    int width, height;
    std::size_t srcOffset;  // samples
    Border border;
    double borderValue;
    const char* route;
};

// clang-format off
const Edge kEdges[] = {
    // Height at and above K / 2: the register window needs more than K / 2 rows.
    {"GRAY8", "direct", "3", 640, 1, 0, Border::Reflect101, 0, "direct-gray-tile-u8"},
    {"GRAY8", "direct", "3", 640, 2, 0, Border::Reflect101, 0, "direct-register-window-u8"},
    {"RGBA", "direct", "3", 640, 1, 0, Border::Reflect101, 0, "direct-interleaved-u8"},
    {"RGBA", "direct", "3", 640, 2, 0, Border::Reflect101, 0, "direct-register-window-u8"},
    {"RGBA", "separable", "5", 3840, 2, 0, Border::Reflect101, 0, "direct-interleaved-u8"},
    {"RGBA", "separable", "5", 3840, 3, 0, Border::Reflect101, 0, "direct-interleaved-u8"},
    {"RGBA", "separable", "5", 3840, 2160, 0, Border::Reflect101, 0, "separable-register-window-u8"},
    {"GRAY8", "separable", "3", 3840, 1, 0, Border::Reflect101, 0, "direct-gray-tile-u8"},
    // Rows 4-byte but not 16-byte aligned; rows not 4-byte aligned.
    {"GRAY8", "separable", "7", 1920, 1080, 4, Border::Reflect101, 0, "separable-tile-u8"},
    {"GRAY8", "separable", "7", 3840, 2160, 4, Border::Reflect101, 0, "separable-register-window-u8"},
    {"GRAY8", "separable", "7", 3840, 2160, 1, Border::Reflect101, 0, "separable-tile-u8"},
    {"RGBA", "separable", "15", 1920, 1080, 1, Border::Reflect101, 0, "separable-stream-u8"},
    {"RGBA", "separable", "9", 1920, 1080, 1, Border::Reflect101, 0, "separable-interleaved-u8"},
    {"GRAY8", "direct", "3", 1920, 1080, 1, Border::Reflect101, 0, "direct-gray-tile-u8"},
    // A constant border: a byte value, and one that is not.
    {"GRAY8", "separable", "15", 1920, 1080, 0, Border::Constant, 128, "separable-staged-u8"},
    {"GRAY8", "separable", "15", 1920, 1080, 0, Border::Constant, 300, "separable-tile-u8"},
    {"RGBA", "direct", "3", 1920, 1080, 0, Border::Constant, 0.5, "direct-interleaved-u8"},
    // registerWindowApplies' frame sizes: one channel separable K = 5 from 2 Mpixel, three channels from 1.4 Mpixel.
    {"GRAY8", "separable", "5", 1999, 1000, 0, Border::Reflect101, 0, "direct-gray-tile-u8"},
    {"GRAY8", "separable", "5", 2000, 1000, 0, Border::Reflect101, 0, "separable-register-window-u8"},
    {"RGB", "separable", "5", 1399, 1000, 0, Border::Reflect101, 0, "direct-interleaved-u8"},
    {"RGB", "separable", "5", 1400, 1000, 0, Border::Reflect101, 0, "separable-register-window-u8"},
};
// clang-format on

TEST(KernelRoute, EdgeFrames) {
    for (const Edge& e : kEdges) {
        const ConvolvePlan plan = makePlan(layout(e.layout), e.kind, e.k, e.border, e.borderValue);
        EXPECT_EQ(route(plan, e.width, e.height, e.srcOffset), e.route)
            << e.layout << " " << e.kind << " " << e.k << " at " << e.width << "x" << e.height << ", source offset "
            << e.srcOffset << ", border value " << e.borderValue;
    }
}

// The FFT rows with cuFFT taken as loaded: the crossover (convolve_crossover.hpp) is a pure function of the plan and
// the size, and algorithm=direct never takes the FFT.
TEST(KernelRoute, FftRoutes) {
    ConvolvePlan large = makePlan(layout("GRAY8"), "direct", "63");
    EXPECT_EQ(route(large, 1920, 1080, 0, true), "fft");
    EXPECT_EQ(route(large, 1920, 1080, 0, false), "generic");
    large.algorithm = ConvolveAlgorithm::Direct;
    EXPECT_EQ(route(large, 1920, 1080, 0, true), "generic");
    ConvolvePlan small = makePlan(layout("GRAY8"), "direct", "3");
    EXPECT_EQ(route(small, 1920, 1080, 0, true), "direct-register-window-u8");
    small.algorithm = ConvolveAlgorithm::Fft;
    EXPECT_EQ(route(small, 1920, 1080, 0, true), "fft");
    // Separable plans keep their passes under auto.
    EXPECT_EQ(route(makePlan(layout("GRAY8"), "separable", "31"), 3840, 2160, 0, true), "separable-staged-u8");
}

// Every route has its own name, and every row of the table gives a reason.
TEST(KernelRoute, NamesAndReasons) {
    std::map<std::string, int> names;
    for (int r = 0; r <= int(KernelRoute::None); ++r) ++names[name(KernelRoute(r))];
    for (const auto& [n, count] : names) EXPECT_EQ(count, 1) << n;
    EXPECT_EQ(names.count("unknown"), 0u);
    int rows = 0;
    const RouteRow* table = routeTable(rows);
    EXPECT_GT(rows, 0);
    for (int i = 0; i < rows; ++i) EXPECT_GT(std::string(table[i].reason).size(), 10u) << name(table[i].route);
}

}  // namespace
}  // namespace cudafilters::cuda_detail
