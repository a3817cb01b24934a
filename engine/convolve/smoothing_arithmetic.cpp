// SPDX-License-Identifier: LGPL-2.1-or-later
// The products below must each be rounded as written (OpenCV's softdouble rounds every operation): no contraction
// into fused multiply-adds, which compilers do by default on CPUs that have them.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "smoothing_arithmetic.hpp"

#include <cudafilters/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

namespace cudafilters::smoothing {
namespace {

double fromBits(std::uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

// OpenCV's softdouble exp, whose last bits the Gaussian kernel inherits (it is not the C library's): x scaled to
// units of 2^(1/64) and rounded to the nearest, its integer part taken from a power of two and a table of 2^(i/64),
// the remainder from a degree-5 polynomial, multiplied in OpenCV's order.
double openCvExp(double x) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return x > 0 ? x : 0.0;
    constexpr int tableBits = 6;
    static const std::array<double, 64> powers = [] {
        std::array<double, 64> t{};
        for (int i = 0; i < 64; ++i) t[std::size_t(i)] = double(std::exp2(static_cast<long double>(i) / 64));
        return t;
    }();
    const double a = fromBits(0x3f83ce0f3e46f431);
    const double c5 = 1 / a, c4 = fromBits(0x3fe62e42fefa39f1) / a, c3 = fromBits(0x3fcebfbdff82a45a) / a,
                 c2 = fromBits(0x3fac6b08d81fec75) / a, c1 = fromBits(0x3f83b2a72b4f3cd3) / a,
                 c0 = fromBits(0x3f55e7aa1566c2a4) / a;
    const double prescale = fromBits(0x3ff71547652b82fe) * double(1 << tableBits);  // 64 / ln 2
    const double limit = 3000.0 * (1 << tableBits);

    int exponent;
    std::frexp(x, &exponent);
    double x0 = exponent > 11 ? std::copysign(limit, x) : x * prescale;  // |x| >= 2^11: far past any double's range
    const double whole = std::nearbyint(x0);
    const int steps = int(whole);
    const int biased = std::clamp((steps >> tableBits) + 1023, 0, 2047);
    std::uint64_t powerBits = std::uint64_t(biased) << 52;
    const double power = fromBits(powerBits);
    x0 = (x0 - whole) * (1.0 / (1 << tableBits));
    const double poly = ((((c0 * x0 + c1) * x0 + c2) * x0 + c3) * x0 + c4) * x0 + c5;
    return power * a * powers[std::size_t(steps & ((1 << tableBits) - 1))] * poly;
}

}  // namespace

std::vector<double> gaussianKernel(int n, double sigma) {
    if (n < 1) throw InvalidArgument("gaussian size must be at least 1, not " + std::to_string(n));
    if (sigma <= 0) {
        switch (n) {
        case 1: return {1.0};
        case 3: return {0.25, 0.5, 0.25};
        case 5: return {0.0625, 0.25, 0.375, 0.25, 0.0625};
        case 7: return {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125};
        case 9: return {4 / 256., 13 / 256., 30 / 256., 51 / 256., 60 / 256., 51 / 256., 30 / 256., 13 / 256., 4 / 256.};
        default: break;
        }
    }
    // OpenCV's operations in its order: sigma from n as one fused multiply-add, the exponent's scale as -1/8 over
    // sigma², the half kernel summed and doubled, the centre (and for even n the second centre) added as 1.
    const double s = sigma > 0 ? sigma : std::fma(double(n), 0.15, 0.35);
    const double scale2 = -0.125 / (s * s);
    const int half = (n - 1) / 2;
    std::vector<double> values(static_cast<std::size_t>(half));
    double sum = 0;
    for (int i = 0, x = 1 - n; i < half; ++i, x += 2) {
        values[std::size_t(i)] = openCvExp(double(x * x) * scale2);
        sum += values[std::size_t(i)];
    }
    sum *= 2;
    sum += 1;
    if (n % 2 == 0) sum += 1;
    const double mul = 1 / sum;
    std::vector<double> kernel(static_cast<std::size_t>(n));
    for (int i = 0; i < half; ++i) kernel[std::size_t(i)] = kernel[std::size_t(n - 1 - i)] = values[std::size_t(i)] * mul;
    kernel[std::size_t(half)] = mul;
    if (n % 2 == 0) kernel[std::size_t(half + 1)] = mul;
    return kernel;
}

std::vector<std::uint32_t> gaussianFixedTaps(int n, double sigma, int fractionBits) {
    if (n < 1 || n % 2 == 0) throw InvalidArgument("GaussianBlur's size must be odd, not " + std::to_string(n));
    const std::vector<double> kernel = gaussianKernel(n, sigma);
    const std::int64_t one = std::int64_t(1) << fractionBits;
    std::vector<std::uint32_t> taps(static_cast<std::size_t>(n));
    double error = 0;
    std::int64_t sum = 0;
    for (int i = 0; i < n / 2; ++i) {
        const double adjusted = kernel[std::size_t(i)] * double(one) + error;
        const std::int64_t v = std::int64_t(std::nearbyint(adjusted));  // half to even, as cvRound
        error = adjusted - double(v);
        taps[std::size_t(i)] = taps[std::size_t(n - 1 - i)] = std::uint32_t(v);
        sum += v;
    }
    taps[std::size_t(n / 2)] = std::uint32_t(one - 2 * sum);
    return taps;
}

BoxDivision boxDivision(int area, SampleType type) {
    BoxDivision d;
    if (area == 1) return d;  // the sum itself
    if (type == SampleType::U8 && area <= 256) {
        // 2^23 / area rounded to the nearer integer; rounding it down is made up by adding one to the sum's offset.
        const double exact = double(1u << 23) / area;
        d.scale = std::uint32_t(std::floor(exact));
        d.delta = std::uint32_t(area / 2);
        if (exact - d.scale < 0.5) d.delta += 1;
        else d.scale += 1;
        return d;
    }
    d.integer = false;
    d.reciprocal = float(1.0 / area);
    return d;
}

}  // namespace cudafilters::smoothing
