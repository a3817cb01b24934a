// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The per-sample arithmetic every backend shares: responses are combined, biased, optionally made absolute,
// rounded half to even and saturated. Host and device.
#include <cudafilters/border.hpp>
#include <cudafilters/convolve.hpp>

#include <cmath>

namespace cudafilters {

template <typename F> CUDAFILTERS_HD F combineInit(Combine) { return F(0); }

template <typename F> CUDAFILTERS_HD F combineAdd(Combine combine, F accumulated, F response) {
    switch (combine) {
    case Combine::Magnitude: return accumulated + response * response;
    case Combine::MaxAbs: return fmax(accumulated, fabs(response));
    default: return accumulated + response;
    }
}

template <typename F> CUDAFILTERS_HD F combineFinish(Combine combine, F accumulated) {
    return combine == Combine::Magnitude ? sqrt(accumulated) : accumulated;
}

// value + bias, |.| if absolute, round half to even (the default rounding mode) to a level of the format, saturate
// to [0, maxLevel] levels and return the stored sample (level << shift; SampleBits). value and bias are in container
// units (what is stored): the scaling by 2^-shift is exact, so a P010 frame gives the bits its 10-bit levels give.
template <typename F> CUDAFILTERS_HD int finishSample(F value, float bias, bool absolute, int maxLevel, int shift = 0) {
    value += F(bias);
    if (absolute) value = fabs(value);
    if (shift) value *= F(1) / F(1 << shift);
    value = rint(value);
    if (!(value > F(0))) return 0;  // also maps NaN to 0
    return (value >= F(maxLevel) ? maxLevel : int(value)) << shift;
}

CUDAFILTERS_HD int maxSampleValue(SampleType type) { return type == SampleType::U8 ? 255 : 65535; }

}  // namespace cudafilters
