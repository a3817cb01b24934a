// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend: the presets that are OpenCV functions go to those functions (cpu_smoothing.hpp), 8-bit kernels of
// integer taps to OpenCV's integer filters (cpu_integer_filter.hpp); everything else has each needed channel padded
// by the plan's border rule into a float plane, correlated (OpenCV when built in), then combined and stored with the
// shared per-sample arithmetic.
#include "cpu_responses.hpp"
#include "cpu_integer_filter.hpp"
#include "cpu_smoothing.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/convolve_crossover.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cudafilters {
namespace {

// Output rows [y0, y1) of one channel need rows [y0 - reach, y1 + reach) of it: padded by the plan's border rule
// into a float plane whose image is that band.
template <typename T>
void padChannel(const ImageView& src, int channel, const ConvolvePlan& plan, int y0, int y1, cpu::PaddedPlane& plane) {
    plane.imageWidth = src.width;
    plane.imageHeight = y1 - y0;
    plane.padLeft = plan.kernelWidth / 2;
    plane.padTop = plan.kernelHeight / 2;
    plane.width = src.width + 2 * plane.padLeft;
    plane.height = plane.imageHeight + 2 * plane.padTop;
    plane.data.resize(std::size_t(plane.width) * plane.height);
    std::vector<int> columns(plane.width);
    for (int x = 0; x < plane.width; ++x) columns[x] = borderIndex(x - plane.padLeft, src.width, plan.border);
    for (int y = 0; y < plane.height; ++y) {
        float* out = &plane.data[std::size_t(y) * plane.width];
        const int sy = borderIndex(y0 + y - plane.padTop, src.height, plan.border);
        if (sy < 0) {
            for (int x = 0; x < plane.width; ++x) out[x] = plan.borderValue;
            continue;
        }
        const T* row = src.row<const T>(sy);
        for (int x = 0; x < plane.width; ++x)
            out[x] = columns[x] < 0 ? plan.borderValue : float(row[std::size_t(columns[x]) * src.channels + channel]);
    }
}

// What one band of rows works in: its padded planes, one kernel's response, the combined value.
struct BandScratch {
    std::vector<cpu::PaddedPlane> planes;
    std::vector<float> response;
    std::vector<float> combined;
};

class CpuConvolver final : public Convolver {
public:
    explicit CpuConvolver(ConvolvePlan plan) : Convolver(std::move(plan)), spectra_(plan_.kernels.size()) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        if (plan_.smoothing.function != Smoothing::Function::None && cpu::smooth(plan_, src, dst, smoothing_)) return;
        dft_ = fftChosen(Backend::Cpu, plan_, src.width, src.height);
        if (!dft_ && cpu::filterIntegerTaps(plan_, src, dst, integerFilter_)) return;
        if (plan_.type == SampleType::U8) run<std::uint8_t>(src, dst);
        else run<std::uint16_t>(src, dst);
    }

    // The kernels' spectra for the DFT path, when frames of this size take it.
    // A size OpenCV's DFT does not take (it throws, e.g. for a 1x1 frame with algorithm=fft) is summed directly.
    void prepare(int width, int height) override {
        if (!fftChosen(Backend::Cpu, plan_, width, height)) return;
        try {
            for (std::size_t n = 0; n < spectra_.size(); ++n)
                cpu::prepareSpectrum(plan_.kernels[n], width + 2 * (plan_.kernelWidth / 2),
                                     height + 2 * (plan_.kernelHeight / 2), spectra_[n]);
        } catch (const std::exception&) {
            for (cpu::KernelSpectrum& spectrum : spectra_) spectrum = cpu::KernelSpectrum();
        }
    }

    // Every frame reads the plan afresh, and vectors of equal sizes are assigned in place; new taps make new spectra.
    bool retune(const ConvolvePlan& plan) override {
        if (!plan_.sameShape(plan)) return false;
        for (std::size_t n = 0; n < spectra_.size(); ++n)
            if (plan.kernels[n].taps != plan_.kernels[n].taps) spectra_[n] = cpu::KernelSpectrum();
        plan_ = plan;
        return true;
    }

private:
    // The DFT path transforms the whole frame (in parallel tiles of its own); direct summation is split into bands of
    // rows filtered side by side, except in place, where a band would read rows another band has already written.
    template <typename T> void run(const ImageView& src, const ImageView& dst) {
        if (dft_ || cpu::overlapping(src, dst)) {
            bands_.resize(std::max<std::size_t>(bands_.size(), 1));
            band<T>(src, dst, 0, src.height, bands_[0]);
            return;
        }
        bands_.resize(std::max<std::size_t>(bands_.size(), cpu::bandCount(src.height, plan_.kernelHeight)));
        cpu::forEachBand(src.height, plan_.kernelHeight,
                         [&](int b, int y0, int y1) { band<T>(src, dst, y0, y1, bands_[std::size_t(b)]); });
    }

    template <typename T> void band(const ImageView& src, const ImageView& dst, int y0, int y1, BandScratch& s) {
        const int maxValue = plan_.maxLevel(), shift = plan_.bits.shift;
        const std::size_t pixels = std::size_t(src.width) * (y1 - y0);
        s.planes.resize(plan_.inputChannels);
        for (int c = 0; c < plan_.inputChannels; ++c)
            if (channelNeeded(c)) padChannel<T>(src, c, plan_, y0, y1, s.planes[c]);

        for (int o = 0; o < plan_.outputChannels; ++o) {
            const bool filtered = plan_.mode == ConvolveMode::MultiChannel || plan_.combine == Combine::Channels ||
                                  (plan_.channelMask & (1u << o));
            if (!filtered) {
                if (src.data != dst.data && (plan_.copyMask >> o & 1u)) copyChannel<T>(src, dst, o, y0, y1);
                continue;
            }
            accumulate(o, pixels, s);
            for (int y = y0; y < y1; ++y) {
                T* row = dst.row<T>(y);
                const float* values = &s.combined[std::size_t(y - y0) * src.width];
                for (int x = 0; x < src.width; ++x)
                    row[std::size_t(x) * dst.channels + o] =
                        T(finishSample(values[x], plan_.bias, plan_.absolute, maxValue, shift));
            }
        }
    }

    bool channelNeeded(int c) const {
        if (plan_.mode == ConvolveMode::MultiChannel) return true;
        if (plan_.combine == Combine::Channels) return c == 0;
        return plan_.channelMask & (1u << c);
    }

    // s.combined = the value before bias for output channel o.
    void accumulate(int o, std::size_t pixels, BandScratch& s) {
        if (plan_.mode == ConvolveMode::MultiChannel) {
            s.combined.assign(pixels, 0.f);
            for (int c = 0; c < plan_.inputChannels; ++c) {
                respond(s.planes[c], std::size_t(o) * plan_.inputChannels + c, s.response);
                for (std::size_t i = 0; i < pixels; ++i) s.combined[i] += s.response[i];
            }
            return;
        }
        if (plan_.combine == Combine::Channels) {
            respond(s.planes[0], std::size_t(o), s.combined);
            return;
        }
        if (plan_.kernels.size() == 1) {
            respond(s.planes[o], 0, s.combined);
            return;
        }
        s.combined.assign(pixels, combineInit<float>(plan_.combine));
        for (std::size_t n = 0; n < plan_.kernels.size(); ++n) {
            respond(s.planes[o], n, s.response);
            for (std::size_t i = 0; i < pixels; ++i)
                s.combined[i] = combineAdd(plan_.combine, s.combined[i], s.response[i]);
        }
        for (float& v : s.combined) v = combineFinish(plan_.combine, v);
    }

    // dft_ is set for whole frames only (run()), so bands on other threads never touch the spectra.
    void respond(const cpu::PaddedPlane& plane, std::size_t kernel, std::vector<float>& out) {
        if (dft_) {
            try {
                cpu::correlateDft(plane, plan_.kernels[kernel], spectra_[kernel], out);
                return;
            } catch (const std::exception&) {
                dft_ = false;  // see prepare(): this size is summed directly
                spectra_[kernel] = cpu::KernelSpectrum();
            }
        }
        if (plan_.separable && plan_.kernels.size() == 1)
            cpu::correlateSeparable(plane, plan_.row, plan_.column, out);
        else
            cpu::correlate(plane, plan_.kernels[kernel], out);
    }

    template <typename T> static void copyChannel(const ImageView& src, const ImageView& dst, int c, int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            const T* in = src.row<const T>(y);
            T* out = dst.row<T>(y);
            for (int x = 0; x < src.width; ++x)
                out[std::size_t(x) * dst.channels + c] = in[std::size_t(x) * src.channels + c];
        }
    }

    bool dft_ = false;                         // this frame through the DFT (convolve_crossover.hpp)
    std::vector<cpu::KernelSpectrum> spectra_;  // per kernel of the plan, for the DFT
    std::vector<BandScratch> bands_;           // per band of rows (the whole frame: the first), kept between frames
    cpu::SmoothingScratch smoothing_;
    cpu::IntegerFilterScratch integerFilter_;
};

}  // namespace

std::unique_ptr<Convolver> makeCpuConvolver(ConvolvePlan plan) { return std::make_unique<CpuConvolver>(std::move(plan)); }

}  // namespace cudafilters
