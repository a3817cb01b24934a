// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>

#include <cmath>
#include <numeric>
#include <sstream>
#include <string>

namespace cudafilters {
namespace {

// Below this a divisor is taken for a mistake: it would make taps of 1 larger than 1e30.
constexpr double kMinDivisor = 1e-30;

std::string kernelName(std::size_t index, std::size_t count) {
    return count > 1 ? "kernel " + std::to_string(index + 1) : std::string("kernel");
}

void validateKernel(const Kernel2D& k, const std::string& name) {
    if (k.width <= 0 || k.height <= 0 || k.taps.empty()) throw InvalidArgument(name + " is empty");
    if (k.width > kMaxKernelSize || k.height > kMaxKernelSize)
        throw InvalidArgument(name + " is " + std::to_string(k.width) + "x" + std::to_string(k.height) +
                              "; the largest supported size is " + std::to_string(kMaxKernelSize) + "x" +
                              std::to_string(kMaxKernelSize));
    if (k.taps.size() != std::size_t(k.width) * k.height)
        throw InvalidArgument(name + " has " + std::to_string(k.taps.size()) + " taps, expected " +
                              std::to_string(k.width) + "x" + std::to_string(k.height));
    for (std::size_t i = 0; i < k.taps.size(); ++i)
        if (!std::isfinite(k.taps[i]))
            throw InvalidArgument(name + " tap " + std::to_string(i + 1) + " (row " + std::to_string(i / k.width + 1) +
                                  ") is not a finite number");
}

void requireFinite(double value, const char* what) {
    if (!std::isfinite(value)) throw InvalidArgument(std::string(what) + " must be a finite number");
}

double tapSum(const Kernel2D& k) {
    double sum = 0;
    for (float t : k.taps) sum += t;
    return sum;
}

double autoDivisor(double sum) { return sum == 0 ? 1.0 : sum; }

void scaleTaps(Kernel2D& k, double divisor) {
    for (float& t : k.taps) t = static_cast<float>(t / divisor);
}

// Rank-1 within 1e-6 of the largest tap: K = column ⊗ row, reconstructed from the row and column through the
// largest tap (exact for a true outer product).
bool factorise(const Kernel2D& k, std::vector<float>& column, std::vector<float>& row) {
    std::size_t pivot = 0;
    for (std::size_t i = 1; i < k.taps.size(); ++i)
        if (std::fabs(k.taps[i]) > std::fabs(k.taps[pivot])) pivot = i;
    const double maxTap = std::fabs(k.taps[pivot]);
    if (maxTap == 0) return false;
    const int py = int(pivot / k.width), px = int(pivot % k.width);
    // row = pivot row / s, column = pivot column · s / pivot. With integer taps s is the gcd of the pivot row, so
    // integer kernels get integer factors and both passes stay exact; otherwise s is the pivot itself.
    double s = k.at(px, py);
    bool integral = true;
    long long divisor = 0;
    for (int x = 0; x < k.width && integral; ++x) {
        const double t = k.at(x, py);
        integral = t == std::floor(t) && std::fabs(t) < 1e9;
        if (integral) divisor = std::gcd(divisor, static_cast<long long>(std::fabs(t)));
    }
    if (integral && divisor > 0) s = (k.at(px, py) < 0 ? -1.0 : 1.0) * double(divisor);
    column.resize(k.height);
    row.resize(k.width);
    for (int y = 0; y < k.height; ++y) column[y] = static_cast<float>(double(k.at(px, y)) * s / k.at(px, py));
    for (int x = 0; x < k.width; ++x) row[x] = static_cast<float>(double(k.at(x, py)) / s);
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (std::fabs(double(column[y]) * row[x] - k.at(x, y)) > 1e-6 * maxTap) return false;
    return true;
}

// The checks on the scalar inputs, made before any kernel is looked at.
void validateScalars(const ConvolveDesc& desc, int inputChannels) {
    if (inputChannels < 1 || inputChannels > 4)
        throw InvalidArgument("images have 1 to 4 channels, not " + std::to_string(inputChannels));
    requireFinite(desc.divisor, "divisor");
    requireFinite(desc.bias, "bias");
    requireFinite(desc.borderValue, "border value");
}

// A row and a column given: both present, valid, no bank beside them and filter mode.
void validateSeparable(const ConvolveDesc& desc) {
    if (!desc.kernels.empty()) throw InvalidArgument("give either kernels or a row and a column, not both");
    if (desc.row.empty() || desc.column.empty())
        throw InvalidArgument(std::string("separable kernel has no ") + (desc.row.empty() ? "row" : "column"));
    Kernel2D rowKernel{int(desc.row.size()), 1, desc.row};
    Kernel2D columnKernel{1, int(desc.column.size()), desc.column};
    validateKernel(rowKernel, "separable row");
    validateKernel(columnKernel, "separable column");
    if (desc.mode != ConvolveMode::Filter) throw InvalidArgument("a separable kernel works in filter mode only");
}

// A bank given: at least one kernel, each valid, all of one size.
void validateBank(const ConvolveDesc& desc) {
    if (desc.kernels.empty()) throw InvalidArgument("no kernel given");
    for (std::size_t i = 0; i < desc.kernels.size(); ++i)
        validateKernel(desc.kernels[i], kernelName(i, desc.kernels.size()));
    for (std::size_t i = 1; i < desc.kernels.size(); ++i)
        if (desc.kernels[i].width != desc.kernels[0].width || desc.kernels[i].height != desc.kernels[0].height)
            throw InvalidArgument("kernel " + std::to_string(i + 1) + " is " + std::to_string(desc.kernels[i].width) +
                                  "x" + std::to_string(desc.kernels[i].height) + " but kernel 1 is " +
                                  std::to_string(desc.kernels[0].width) + "x" +
                                  std::to_string(desc.kernels[0].height) + "; a bank needs one size");
}

// The plan's fields copied from the description, before any kernel is planned.
void copySettings(ConvolvePlan& plan, const ConvolveDesc& desc, SampleType type, int inputChannels, SampleBits bits) {
    plan.mode = desc.mode;
    plan.bias = static_cast<float>(desc.bias);
    plan.absolute = desc.absolute;
    plan.border = desc.border;
    plan.borderValue = static_cast<float>(desc.borderValue);
    plan.type = type;
    plan.bits = resolveBits(type, bits);
    plan.inputChannels = inputChannels;
    plan.combine = desc.combine;
    plan.algorithm = desc.algorithm;
}

// Filter mode with a given row and column: the full kernel is their outer product, the divisor folded into the column.
void planGivenSeparable(ConvolvePlan& plan, const ConvolveDesc& desc) {
    Kernel2D k;
    k.width = int(desc.row.size());
    k.height = int(desc.column.size());
    k.taps.resize(std::size_t(k.width) * k.height);
    double sum = 0;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x) {
            const double t = double(desc.column[y]) * desc.row[x];
            k.taps[std::size_t(y) * k.width + x] = static_cast<float>(t);
            sum += t;
        }
    const double divisor = desc.divisor != 0 ? desc.divisor : autoDivisor(sum);
    plan.kernels.push_back(k);
    plan.row = desc.row;
    plan.column = desc.column;
    for (float& t : plan.column) t = static_cast<float>(t / divisor);
    scaleTaps(plan.kernels[0], divisor);
    plan.separable = true;
}

// Filter mode with a bank: each kernel divided by its divisor; a single kernel is made separable where it factorises.
void planBank(ConvolvePlan& plan, const ConvolveDesc& desc) {
    for (const Kernel2D& k : desc.kernels) {
        Kernel2D scaled = k;
        scaleTaps(scaled, desc.divisor != 0 ? desc.divisor : autoDivisor(tapSum(k)));
        plan.kernels.push_back(std::move(scaled));
    }
    if (plan.kernels.size() == 1) {
        std::vector<float> column, row;
        // Factorise the undivided taps so integer kernels keep integer factors (exact arithmetic);
        // the divisor is folded into the column.
        if (factorise(desc.kernels[0], column, row)) {
            const double divisor = desc.divisor != 0 ? desc.divisor : autoDivisor(tapSum(desc.kernels[0]));
            for (float& t : column) t = static_cast<float>(t / divisor);
            plan.column = std::move(column);
            plan.row = std::move(row);
            plan.separable = true;
        }
    }
}

// Filter mode's output channels: one per kernel with combine=channels, else as many as the input has.
void planFilterOutputs(ConvolvePlan& plan, int inputChannels) {
    if (plan.combine == Combine::Channels) {
        if (inputChannels != 1)
            throw InvalidArgument("combine=channels writes one output channel per kernel and needs a "
                                  "single-channel input, not " + std::to_string(inputChannels) + " channels");
        if (plan.kernels.size() > 4)
            throw InvalidArgument("combine=channels supports at most 4 kernels, got " +
                                  std::to_string(plan.kernels.size()));
        plan.outputChannels = int(plan.kernels.size());
        plan.channelMask = (1u << plan.outputChannels) - 1;
        plan.separable = false;
    } else {
        plan.outputChannels = inputChannels;
    }
}

// Filter mode: the channel masks, then the kernels (given separable or a bank), then the output channels.
void planFilter(ConvolvePlan& plan, const ConvolveDesc& desc, int inputChannels, bool givenSeparable) {
    const unsigned channelBits = (1u << inputChannels) - 1;
    if (desc.channelMask & ~0xFu)
        throw InvalidArgument("channel mask " + std::to_string(desc.channelMask) + " names channels beyond 4");
    plan.channelMask = desc.channelMask & channelBits;
    plan.copyMask = desc.copyMask & channelBits & ~plan.channelMask;
    if (givenSeparable)
        planGivenSeparable(plan, desc);
    else
        planBank(plan, desc);
    planFilterOutputs(plan, inputChannels);
}

// Multi-channel mode: outputs × inputChannels kernels, each output's kernels sharing one divisor.
void planMultiChannel(ConvolvePlan& plan, const ConvolveDesc& desc, int inputChannels) {
    if (desc.outputs < 1 || desc.outputs > 4)
        throw InvalidArgument("multi-channel mode makes 1 to 4 outputs, not " + std::to_string(desc.outputs));
    const std::size_t expected = std::size_t(desc.outputs) * inputChannels;
    if (desc.kernels.size() != expected)
        throw InvalidArgument("multi-channel mode with " + std::to_string(desc.outputs) + " outputs and " +
                              std::to_string(inputChannels) + " input channels needs " + std::to_string(expected) +
                              " kernels, got " + std::to_string(desc.kernels.size()));
    for (int m = 0; m < desc.outputs; ++m) {
        double sum = 0;
        for (int c = 0; c < inputChannels; ++c) sum += tapSum(desc.kernels[std::size_t(m) * inputChannels + c]);
        const double divisor = desc.divisor != 0 ? desc.divisor : autoDivisor(sum);
        for (int c = 0; c < inputChannels; ++c) {
            Kernel2D scaled = desc.kernels[std::size_t(m) * inputChannels + c];
            scaleTaps(scaled, divisor);
            plan.kernels.push_back(std::move(scaled));
        }
    }
    plan.outputChannels = desc.outputs;
    plan.channelMask = (1u << desc.outputs) - 1;
    plan.combine = Combine::Sum;
}

// After division every tap must still be a float: a divisor near 0 (or taps that nearly cancel, for the automatic
// one) can push them past 3.4e38. The message names the divisor, since that is what to change.
void checkDividedTaps(const ConvolvePlan& plan, const ConvolveDesc& desc) {
    const auto finite = [](const std::vector<float>& taps) {
        for (float t : taps)
            if (!std::isfinite(t)) return false;
        return true;
    };
    bool ok = finite(plan.row) && finite(plan.column);
    for (const Kernel2D& k : plan.kernels) ok = ok && finite(k.taps);
    if (ok) return;
    std::ostringstream s;
    s.precision(6);
    if (desc.divisor != 0 && std::fabs(desc.divisor) >= 1)
        s << "the taps" << (plan.separable ? " (products of a row and a column tap)" : "")
          << " are larger than a float holds (3.4e38); use smaller taps, or a divisor of larger magnitude";
    else if (desc.divisor != 0)
        s << "divisor " << desc.divisor << " makes taps larger than a float holds (3.4e38); use a divisor of larger "
          << "magnitude, or 0 (automatic)";
    else
        s << "the automatic divisor (the sum of the taps) is so close to 0 that the divided taps are larger than a "
          << "float holds (3.4e38); set divisor";
    throw InvalidArgument(s.str());
}

// The divisor the function itself applies: GaussianBlur's taps sum to 1, blur divides by K².
bool ownDivisor(const Smoothing& s, const ConvolveDesc& desc) {
    if (s.function == Smoothing::Function::GaussianBlur) return desc.divisor == 1;
    return desc.divisor == 0 || desc.divisor == double(s.size) * s.size;
}

Smoothing keptSmoothing(const ConvolvePlan& plan, const ConvolveDesc& desc) {
    const Smoothing& s = desc.smoothing;
    const bool kept = s.function != Smoothing::Function::None && plan.mode == ConvolveMode::Filter &&
                      plan.kernels.size() == 1 && plan.kernelWidth == s.size && plan.kernelHeight == s.size &&
                      ownDivisor(s, desc) && desc.bias == 0 && !desc.absolute &&
                      desc.algorithm != ConvolveAlgorithm::Fft && plan.bits.shift == 0;
    return kept ? s : Smoothing{};
}

}  // namespace

bool ConvolvePlan::isIdentity() const {
    if (mode != ConvolveMode::Filter || kernels.size() != 1 || bias != 0) return false;
    if (inputChannels != outputChannels) return false;
    const unsigned all = (1u << inputChannels) - 1;
    if (((channelMask | copyMask) & all) != all) return false;  // channels left as they are in dst
    const Kernel2D& k = kernels[0];
    const int cx = k.width / 2, cy = k.height / 2;
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (k.at(x, y) != ((x == cx && y == cy) ? 1.0f : 0.0f)) return false;
    return true;
}

bool ConvolvePlan::sameShape(const ConvolvePlan& other) const {
    return kernels.size() == other.kernels.size() && kernelWidth == other.kernelWidth &&
           kernelHeight == other.kernelHeight && separable == other.separable && row.size() == other.row.size() &&
           column.size() == other.column.size() && mode == other.mode && combine == other.combine &&
           type == other.type && inputChannels == other.inputChannels && outputChannels == other.outputChannels &&
           channelMask == other.channelMask && copyMask == other.copyMask && border == other.border && bits == other.bits;
}

ConvolvePlan ConvolvePlan::make(const ConvolveDesc& desc, SampleType type, int inputChannels, SampleBits bits) {
    validateScalars(desc, inputChannels);

    ConvolvePlan plan;
    copySettings(plan, desc, type, inputChannels, bits);

    const bool givenSeparable = !desc.row.empty() || !desc.column.empty();
    if (givenSeparable)
        validateSeparable(desc);
    else
        validateBank(desc);
    if (desc.divisor != 0 && std::fabs(desc.divisor) < kMinDivisor) {
        std::ostringstream s;
        s.precision(6);
        s << "divisor " << desc.divisor << " is too close to 0: use 0 (automatic) or a magnitude of at least "
          << kMinDivisor;
        throw InvalidArgument(s.str());
    }

    switch (desc.mode) {
    case ConvolveMode::Filter:
        planFilter(plan, desc, inputChannels, givenSeparable);
        break;
    case ConvolveMode::MultiChannel:
        planMultiChannel(plan, desc, inputChannels);
        break;
    }
    checkDividedTaps(plan, desc);
    if (plan.kernels.size() == 1 && plan.combine != Combine::Channels) plan.combine = Combine::Sum;
    plan.kernelWidth = plan.kernels[0].width;
    plan.kernelHeight = plan.kernels[0].height;
    plan.smoothing = keptSmoothing(plan, desc);
    return plan;
}

void validateImages(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst) {
    validateImage(src, "source");
    validateImage(dst, "destination");
    if (src.width != dst.width || src.height != dst.height)
        throw InvalidArgument("source is " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                              " but destination is " + std::to_string(dst.width) + "x" + std::to_string(dst.height));
    if (src.type != plan.type || dst.type != plan.type)
        throw InvalidArgument(std::string("the plan is for ") + sampleTypeName(plan.type) + " samples, got source " +
                              sampleTypeName(src.type) + " and destination " + sampleTypeName(dst.type));
    if (src.channels != plan.inputChannels)
        throw InvalidArgument("the plan expects " + std::to_string(plan.inputChannels) +
                              "-channel sources, got " + std::to_string(src.channels));
    if (dst.channels != plan.outputChannels)
        throw InvalidArgument("the plan writes " + std::to_string(plan.outputChannels) +
                              "-channel destinations, got " + std::to_string(dst.channels));
}

}  // namespace cudafilters
