// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fft_convolution.hpp"

#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/error.hpp>

#include <algorithm>
#include <vector>

namespace cudafilters::cuda_detail {

int fftFastLength(int n, bool even) {
    for (int m = std::max(n, 1);; ++m) {
        if (even && m % 2) continue;
        int rest = m;
        for (int p : {2, 3, 5, 7})
            while (rest % p == 0) rest /= p;
        if (rest == 1) return m;
    }
}

FftGeometry fftGeometry(const ConvolvePlan& plan, int width, int height) {
    FftGeometry g;
    g.fftWidth = fftFastLength(width + plan.kernelWidth - 1, true);
    g.fftHeight = fftFastLength(height + plan.kernelHeight - 1, false);
    g.anchorX = plan.kernelWidth / 2;
    g.anchorY = plan.kernelHeight / 2;
    g.offset = float((maxSampleValue(plan.type) + 1) / 2);
    return g;
}

namespace {

bool allZero(const Kernel2D& k) {
    return std::all_of(k.taps.begin(), k.taps.end(), [](float t) { return t == 0.f; });
}

double tapSum(const Kernel2D& k) {
    double sum = 0;
    for (float t : k.taps) sum += t;
    return sum;
}

// Builds the tables from (output channel → [(source channel, kernel)] per response) lists.
class TableBuilder {
public:
    TableBuilder(const ConvolvePlan& plan, float offset, FftTables& t) : plan_(plan), offset_(offset), t_(t) { t_ = {}; }

    // Starts response r of output channel o.
    bool beginResponse(int output) {
        if (t_.responses == kFftMaxResponses) return false;
        if (t_.outputCount[output] == 0) t_.outputFirst[output] = t_.responses;
        ++t_.outputCount[output];
        t_.termFirst[t_.responses] = terms_;
        ++t_.responses;
        return true;
    }
    // Adds channel ⊗ kernel to the current response (all-zero kernels add nothing and cost nothing).
    bool addTerm(int channel, int kernel) {
        const Kernel2D& k = plan_.kernels[std::size_t(kernel)];
        if (allZero(k)) return true;
        if (terms_ == kFftMaxTerms) return false;
        const int r = t_.responses - 1;
        t_.termInput[terms_] = inputOf(channel);
        t_.termKernel[terms_] = kernel;
        ++t_.termCount[r];
        t_.correction[r] += float(double(offset_) * tapSum(k));
        ++terms_;
        return true;
    }
    void finish() {
        if (t_.inputs == 0) inputOf(0);  // every kernel zero: one plane keeps the batches non-empty
    }

private:
    int inputOf(int channel) {
        for (int i = 0; i < t_.inputs; ++i)
            if (t_.inputChannel[i] == channel) return i;
        t_.inputChannel[t_.inputs] = channel;
        return t_.inputs++;
    }

    const ConvolvePlan& plan_;
    float offset_;
    FftTables& t_;
    int terms_ = 0;
};

}  // namespace

bool fftTables(const ConvolvePlan& plan, float offset, FftTables& tables) {
    TableBuilder b(plan, offset, tables);
    const int kernels = int(plan.kernels.size());
    if (plan.mode == ConvolveMode::MultiChannel) {
        for (int o = 0; o < plan.outputChannels; ++o) {
            if (!b.beginResponse(o)) return false;
            for (int c = 0; c < plan.inputChannels; ++c)
                if (!b.addTerm(c, o * plan.inputChannels + c)) return false;
        }
    } else if (plan.combine == Combine::Channels) {
        for (int o = 0; o < plan.outputChannels; ++o)
            if (!b.beginResponse(o) || !b.addTerm(0, o)) return false;
    } else {
        for (int c = 0; c < plan.inputChannels; ++c) {
            if (!(plan.channelMask & (1u << c))) continue;
            for (int n = 0; n < kernels; ++n)
                if (!b.beginResponse(c) || !b.addTerm(c, n)) return false;
        }
    }
    b.finish();
    return tables.responses > 0;
}

bool fftSupports(const ConvolvePlan& plan) {
    FftTables t;
    return fftTables(plan, 0.f, t);
}

namespace {

// A batched 2-D real transform of fftHeight × fftWidth planes, densely packed, its work area left to the caller.
std::size_t makePlan(const CufftPlan& plan, const FftGeometry& g, cufftType type, int batch) {
    const CufftLibrary& lib = requireCufft();
    int n[2] = {g.fftHeight, g.fftWidth};
    std::size_t work = 0;
    CUDAFILTERS_CHECK_CUFFT(lib.setAutoAllocation(plan.get(), 0));
    CUDAFILTERS_CHECK_CUFFT(lib.makePlanMany(plan.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work));
    return work;
}

}  // namespace

FftConvolution::FftConvolution(const ConvolvePlan& plan, int width, int height)
    : width_(width), height_(height), geometry_(fftGeometry(plan, width, height)) {
    if (!fftTables(plan, geometry_.offset, tables_))
        throw InvalidArgument("the FFT path takes at most 16 responses (kernels × filtered channels)");
    const CufftLibrary& lib = requireCufft();
    const FftGeometry& g = geometry_;
    const int kernels = int(plan.kernels.size());
    CufftPlan kernelPlan;
    const std::size_t work = std::max({makePlan(forward_, g, CUFFT_R2C, tables_.inputs),
                                       makePlan(inverse_, g, CUFFT_C2R, tables_.responses),
                                       makePlan(kernelPlan, g, CUFFT_R2C, kernels)});
    memory_ = Stream::create();
    cudaStream_t stream = memory_.get();
    work_.reserve(std::max<std::size_t>(work, 1), stream);
    for (const CufftPlan* p : {&forward_, &inverse_, &kernelPlan})
        CUDAFILTERS_CHECK_CUFFT(lib.setWorkArea(p->get(), work_.data()));
    const std::size_t planes = std::size_t(std::max({tables_.inputs, tables_.responses, kernels}));
    planes_.reserve(planes * g.realPlane() * sizeof(float), stream);
    inputSpectra_.reserve(std::size_t(tables_.inputs) * g.spectrumPlane() * sizeof(float2), stream);
    kernelSpectra_.reserve(std::size_t(kernels) * g.spectrumPlane() * sizeof(float2), stream);
    products_.reserve(std::size_t(tables_.responses) * g.spectrumPlane() * sizeof(float2), stream);

    // The kernels' spectra, scaled by 1 / (fftWidth · fftHeight) for the unnormalised inverse.
    std::vector<float> taps(std::size_t(kernels) * g.realPlane(), 0.f);
    const double scale = 1.0 / double(g.realPlane());
    for (int n = 0; n < kernels; ++n) {
        const Kernel2D& k = plan.kernels[std::size_t(n)];
        float* out = taps.data() + std::size_t(n) * g.realPlane();
        for (int y = 0; y < k.height; ++y)
            for (int x = 0; x < k.width; ++x) out[std::size_t(y) * g.fftWidth + x] = float(k.at(x, y) * scale);
    }
    CUDAFILTERS_CHECK(cudaMemcpyAsync(planes_.data(), taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice,
                                      stream));
    CUDAFILTERS_CHECK_CUFFT(lib.setStream(kernelPlan.get(), stream));
    CUDAFILTERS_CHECK_CUFFT(lib.execR2C(kernelPlan.get(), planes_.as<cufftReal>(), kernelSpectra_.as<cufftComplex>()));
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));
}

void FftConvolution::enqueue(SampleType type, const ConvFrame& frame, cudaStream_t stream) {
    const CufftLibrary& lib = *cufftLibrary();
    launchFftPad(type, frame, geometry_, tables_, planes_.as<float>(), stream);
    CUDAFILTERS_CHECK_CUFFT(lib.setStream(forward_.get(), stream));
    CUDAFILTERS_CHECK_CUFFT(lib.execR2C(forward_.get(), planes_.as<cufftReal>(), inputSpectra_.as<cufftComplex>()));
    launchFftMultiply(geometry_, tables_, inputSpectra_.as<float2>(), kernelSpectra_.as<float2>(),
                      products_.as<float2>(), stream);
    CUDAFILTERS_CHECK_CUFFT(lib.setStream(inverse_.get(), stream));
    CUDAFILTERS_CHECK_CUFFT(lib.execC2R(inverse_.get(), products_.as<cufftComplex>(), planes_.as<cufftReal>()));
    launchFftFinish(type, frame, geometry_, tables_, planes_.as<float>(), stream);
}

}  // namespace cudafilters::cuda_detail
