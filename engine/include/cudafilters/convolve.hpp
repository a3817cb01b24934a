// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <cudafilters/backend.hpp>
#include <cudafilters/border.hpp>
#include <cudafilters/image.hpp>

#include <memory>
#include <string>
#include <vector>

namespace cudafilters {

// Taps of a width × height correlation kernel (as cv::filter2D: not flipped), row-major.
// Anchor: (width / 2, height / 2) rounded down, as OpenCV's default anchor. For an even size K the kernel reaches
// K/2 samples before the output pixel and K/2 - 1 after it.
struct Kernel2D {
    int width = 0;
    int height = 0;
    std::vector<float> taps;

    float at(int x, int y) const { return taps[std::size_t(y) * width + x]; }
};

// How the responses of a kernel bank (1:N:N) become output samples.
enum class Combine {
    Magnitude,  // sqrt(sum r_n^2)
    Sum,        // sum r_n
    MaxAbs,     // max |r_n|
    Channels,   // r_n written to output channel n (single-channel input, N-channel output)
};

// How the correlation is computed. Direct: summation over the taps (templated, separable or generic kernels).
// Fft: products of spectra (cuFFT on the GPU, OpenCV's DFT on the CPU), whose cost hardly grows with the kernel.
// Auto: the FFT where the measured crossover of the backend says it is faster (cudafilters/convolve_crossover.hpp).
enum class ConvolveAlgorithm { Auto, Direct, Fft };

// A preset that is an OpenCV function, named so that a backend can compute that function's own arithmetic (8-bit
// cv::GaussianBlur has fixed-point taps and rounding of its own; cv::blur rounds its integer sums its own way) instead
// of the float correlation of the same taps, which differs from it by 1 on some samples.
struct Smoothing {
    enum class Function { None, GaussianBlur, Blur };
    Function function = Function::None;
    int size = 0;      // K: a K×K window
    double sigma = 0;  // GaussianBlur: sigmaX = sigmaY; 0 = from K, as OpenCV derives it
};

enum class ConvolveMode {
    Filter,        // each selected channel filtered by the kernel (or bank, combined); the others copied
    MultiChannel,  // N:M:M — output m = sum over input channels c of kernels[m * N + c] applied to channel c
};

// What the user asks for. Validated by ConvolvePlan::make.
//   per sample: r_n = (sum taps_n · src) / divisor_n;  v = combine(r) + bias;  |v| if absolute;
//   round half to even; saturate to the sample type.
struct ConvolveDesc {
    std::vector<Kernel2D> kernels;  // one kernel, a bank, or outputs × input-channels kernels (MultiChannel)
    std::vector<float> row;         // a separable kernel given as row × column (kernels left empty)
    std::vector<float> column;
    ConvolveMode mode = ConvolveMode::Filter;
    int outputs = 1;                // MultiChannel: number of output channels M
    double divisor = 0;             // 0 = auto: sum of the kernel's taps, or 1 when that sum is 0
    double bias = 0;
    bool absolute = false;
    Border border = Border::Reflect101;
    double borderValue = 0;         // for Border::Constant, in sample units
    Combine combine = Combine::Magnitude;
    unsigned channelMask = 0xF;     // Filter mode: bit c set = channel c filtered, else copied
    // Filter mode, of the channels not filtered: bit c set = copied from src, clear = left as it is in dst. A second
    // pass over other channels of the same pixels clears it (packed 4:2:2: luma pass, then chroma pass).
    unsigned copyMask = 0xF;
    ConvolveAlgorithm algorithm = ConvolveAlgorithm::Auto;
    Smoothing smoothing;            // set by presetDesc for gaussian and box; the kernels above are its taps
};

constexpr int kMaxKernelSize = 255;

// A validated description, normalised for the backends: taps pre-divided, separability decided,
// channel counts fixed.
struct ConvolvePlan {
    std::vector<Kernel2D> kernels;  // taps already divided by their divisor
    bool separable = false;         // single kernel in Filter mode equal to column ⊗ row
    std::vector<float> row;         // separable factors, row ⊗ column == kernels[0] (divisor folded into column)
    std::vector<float> column;
    ConvolveMode mode = ConvolveMode::Filter;
    Combine combine = Combine::Sum;
    float bias = 0;
    bool absolute = false;
    Border border = Border::Reflect101;
    float borderValue = 0;
    SampleType type = SampleType::U8;
    SampleBits bits;                // resolved: where the levels lie in the samples (P010: 10 bits at bit 6)
    int inputChannels = 1;
    int outputChannels = 1;
    unsigned channelMask = 0xF;     // restricted to the input's channels
    unsigned copyMask = 0xF;        // restricted to the input's channels not in channelMask (Filter mode)
    int kernelWidth = 0;            // all kernels share one size
    int kernelHeight = 0;
    ConvolveAlgorithm algorithm = ConvolveAlgorithm::Auto;
    // The description's smoothing, kept only where the plan computes exactly that function: filter mode, one kernel,
    // the function's own divisor, no bias, not absolute, no FFT asked for, levels from bit 0. Otherwise None.
    Smoothing smoothing;

    int bankSize() const { return mode == ConvolveMode::Filter ? int(kernels.size()) : 1; }
    bool isIdentity() const;        // output == input for every pixel (every channel filtered or copied)
    // True when `other` differs from this plan in values only (taps, bias, absolute, border value): same kernel count
    // and sizes, mode, combine, sample type, channel counts and masks, border rule and separability. What every
    // backend's retune requires; a backend may require more (the CUDA one: the same kernel path).
    bool sameShape(const ConvolvePlan& other) const;

    int maxLevel() const { return cudafilters::maxLevel(bits); }

    // Throws InvalidArgument with a message a user can act on. Bias and border value stay in container units (a P010
    // mid-grey is 32768, an I420_10LE one 512); results are rounded to a level and saturated at maxLevel() levels.
    static ConvolvePlan make(const ConvolveDesc& desc, SampleType type, int inputChannels, SampleBits bits = {});
};

// Checks a src/dst pair against a plan: sizes match, types and channel counts as the plan expects.
void validateImages(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst);

// One interface, two backends (the tests add their reference, tests/reference). CUDA: src and dst are device memory
// and the work is enqueued on `stream` (no allocation after the first frame of a size, no synchronisation). CPU: host
// memory, stream ignored.
class Convolver {
public:
    virtual ~Convolver() = default;
    virtual void process(const ImageView& src, const ImageView& dst, GpuStream stream = nullptr) = 0;
    // Makes now what frames of this size need (the FFT path's plans, work areas and kernel spectra), so that the
    // first frame allocates nothing; process() does it itself for a size it was not prepared for.
    virtual void prepare(int width, int height) { (void)width, (void)height; }
    // Takes `plan` in place of the current one when only values change (taps of the same sizes on the same path,
    // divisor, bias, absolute, border value): no allocation, no synchronisation, and work already enqueued keeps the
    // values it was launched with. Returns false, changing nothing, when the new plan needs a new Convolver.
    virtual bool retune(const ConvolvePlan& plan) { (void)plan; return false; }
    // True when process() on a GPU stream only enqueues launches that take everything by value (no allocation, no
    // synchronisation, no event kept to wait on later): a CUDA stream capture records it whole, so a frame's work can
    // run as a graph.
    virtual bool capturable() const { return false; }
    const ConvolvePlan& plan() const { return plan_; }

protected:
    explicit Convolver(ConvolvePlan plan) : plan_(std::move(plan)) {}
    ConvolvePlan plan_;
};

std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan, Backend backend);
inline std::unique_ptr<Convolver> makeConvolver(const ConvolveDesc& desc, SampleType type, int channels,
                                                Backend backend, SampleBits bits = {}) {
    return makeConvolver(ConvolvePlan::make(desc, type, channels, bits), backend);
}

// Factories of the individual backends (declared for tests and benchmarks).
std::unique_ptr<Convolver> makeCpuConvolver(ConvolvePlan plan);
std::unique_ptr<Convolver> makeCudaConvolver(ConvolvePlan plan);  // throws CudaError without a usable device

}  // namespace cudafilters
