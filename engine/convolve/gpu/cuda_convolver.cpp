// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend of the Convolver: picks a path once per plan, owns the device copy of the taps, and enqueues
// one kernel per frame on the caller's stream (no allocation, no synchronisation on the frame path).
#include "convolve_launch.hpp"
#include "fft_convolution.hpp"
#include "padded_plan.hpp"

#include <cudafilters/convolve_crossover.hpp>
#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudafilters {
namespace cuda_detail {

bool directSizeSupported(int k) { return k == 3 || k == 5 || k == 7 || k == 9 || k == 15 || k == 31; }

bool directBankSupported(int k, int bank) {
    return directSizeSupported(k) && bank >= 1 && (bank <= 2 || (bank <= 8 && k <= 5));
}

ConvFrame makeFrame(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst) {
    ConvFrame f;
    f.src = static_cast<const unsigned char*>(src.data);
    f.dst = static_cast<unsigned char*>(dst.data);
    f.srcPitch = src.pitch;
    f.dstPitch = dst.pitch;
    f.width = src.width;
    f.height = src.height;
    f.inChannels = src.channels;
    f.outChannels = dst.channels;
    f.border = plan.border;
    f.combine = plan.combine;
    f.borderValue = plan.borderValue;
    f.bias = plan.bias;
    f.absolute = plan.absolute ? 1 : 0;
    f.mask = plan.channelMask;
    f.copy = plan.copyMask;
    f.maxLevel = plan.maxLevel();
    f.shift = plan.bits.shift;
    f.vectorRows = sourceRowsAligned(src.data, src.pitch, src.channels, sampleSize(src.type)) ? 1 : 0;
    const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(src.data) | std::uintptr_t(src.pitch);
    f.rowAlign = bits % 16 == 0 ? 16 : bits % 4 == 0 ? 4 : 1;
    return f;
}

void launchDirect(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream,
                  const KernelVariants& variants) {
    const bool launched = type == SampleType::U8 ? launchDirectU8(k, bank, frame, taps, stream, variants)
                                                 : launchDirectU16(k, bank, frame, taps, stream);
    if (!launched)
        throw InvalidArgument("no direct kernel compiled for size " + std::to_string(k) + " and bank " +
                              std::to_string(bank));
}

namespace {

// The bytes an image's rows span: [first, last).
std::pair<std::uintptr_t, std::uintptr_t> byteSpan(const ImageView& v) {
    const auto first = reinterpret_cast<std::uintptr_t>(v.data);
    if (v.width <= 0 || v.height <= 0) return {first, first};
    return {first, first + v.pitch * std::size_t(v.height - 1) + v.rowBytes()};
}

bool overlaps(const ImageView& a, const ImageView& b) {
    const auto [a0, a1] = byteSpan(a);
    const auto [b0, b1] = byteSpan(b);
    return a0 < b1 && b0 < a1;
}

enum class Path { Copy, Direct, Separable, Generic };

// Whether the direct kernels take a bank of k × k kernels in one launch (directBankSupported, under
// KernelVariants::directBanks for more than two).
bool oneDirectLaunch(int k, int bank, const KernelVariants& variants) {
    return bank <= 2 || (variants.directBanks && directBankSupported(k, bank));
}

// Banks the direct kernels take in one launch, and where they do not, banks of three or four kernels written to their
// own output channels as direct launches of at most two kernels (KernelVariants::splitBanks; launchDirectSplit).
Path choosePath(const ConvolvePlan& plan, const KernelVariants& variants) {
    if (plan.isIdentity()) return Path::Copy;
    const bool square = plan.kernelWidth == plan.kernelHeight;
    const bool compiled = square && directSizeSupported(plan.kernelWidth);
    if (plan.mode != ConvolveMode::Filter || !compiled) return Path::Generic;
    if (plan.separable && plan.kernels.size() == 1 && plan.combine != Combine::Channels &&
        int(plan.row.size()) == plan.kernelWidth && int(plan.column.size()) == plan.kernelHeight)
        return Path::Separable;
    const int bank = int(plan.kernels.size());
    if (oneDirectLaunch(plan.kernelWidth, bank, variants)) return Path::Direct;
    if (variants.splitBanks && plan.combine == Combine::Channels && bank <= 4) return Path::Direct;
    return Path::Generic;
}

// A direct plan's frame: one launch where the direct kernels take the bank; else a bank of kernels written to their
// own output channels (Combine::Channels) in launches of at most two, each writing its channels from its first one on
// (the destination moved on by that many samples): the same sums as one launch would make.
void launchDirectSplit(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream,
                       const KernelVariants& variants) {
    if (oneDirectLaunch(k, bank, variants)) return launchDirect(type, k, bank, frame, taps, stream, variants);
    for (int first = 0; first < bank; first += 2) {
        ConvFrame part = frame;
        part.dst += std::size_t(first) * sampleSize(type);
        launchDirect(type, k, std::min(2, bank - first), part, taps + std::size_t(first) * k * k, stream, variants);
    }
}

// The plan the kernels run: padded to the next compiled size where that applies (padded_plan.hpp), else the plan.
ConvolvePlan launchPlan(const ConvolvePlan& plan, const KernelVariants& variants) {
    if (variants.padSizes) {
        std::optional<ConvolvePlan> padded = paddedToCompiledSize(plan);
        if (padded && choosePath(*padded, variants) != Path::Generic) return std::move(*padded);
    }
    return plan;
}

// Whether frames of width × height go through the FFT path: chosen for them (convolve_crossover.hpp) against the
// direct path of the plan the kernels run (`launch`), a plan its tables hold, and cuFFT loaded. The FFT transforms the
// plan as given. algorithm=fft without cuFFT is an error (prepare() throws it); algorithm=auto without cuFFT sums
// directly.
// A full-rank plan padded to 31 × 31 sums 961 taps a sample whatever its own size, while the FFT of a smaller kernel
// costs less than a 31 × 31 one's (the table's compiled rows were measured at 31 × 31): such plans keep the crossover
// of the generic kernel they would run in unpadded. `bench-convolve --padded` (build-bench) times padded plans (e.g.
// 4K GRAY8 13 × 13, 21 × 21, 25 × 25) against the FFT.
bool fftPath(const ConvolvePlan& plan, const ConvolvePlan& launch, int width, int height,
             const KernelVariants& variants) {
    const Path direct = choosePath(launch, variants);
    const bool paddedTo31 =
        direct == Path::Direct && launch.kernelWidth == 31 && plan.kernelWidth * plan.kernelHeight < 31 * 31;
    const bool asGeneric = direct == Path::Generic || paddedTo31;
    return direct != Path::Copy && fftChosen(Backend::Cuda, asGeneric ? plan : launch, width, height, asGeneric) &&
           fftSupports(plan) && cufftLibrary() != nullptr;
}

// Everything of a CudaConvolver runs on the device that was current when it was made, whatever thread calls it:
// the constructor, process() and the destructor hold a ScopedDevice (retune() makes no CUDA call).
class CudaConvolver final : public Convolver {
public:
    CudaConvolver(ConvolvePlan plan, const KernelVariants& variants)
        : Convolver(std::move(plan)), variants_(variants), launch_(launchPlan(plan_, variants_)),
          path_(choosePath(launch_, variants_)) {
        int devices = 0;
        CUDAFILTERS_CHECK(cudaGetDeviceCount(&devices));
        if (devices == 0)
            throw CudaError("cudaGetDeviceCount", int(cudaErrorNoDevice), "cudaErrorNoDevice", "no CUDA device");
        device_ = currentDevice();
        ScopedDevice on(device_);
        for (const Kernel2D& k : launch_.kernels) taps_.insert(taps_.end(), k.taps.begin(), k.taps.end());
        if (path_ == Path::Generic) {
            memory_ = Stream::create();
            deviceTaps_.reserve(taps_.size() * sizeof(float), memory_.get());
            CUDAFILTERS_CHECK(cudaMemcpyAsync(deviceTaps_.data(), taps_.data(), taps_.size() * sizeof(float),
                                              cudaMemcpyHostToDevice, memory_.get()));
            CUDAFILTERS_CHECK(cudaStreamSynchronize(memory_.get()));
        }
    }

    // Waits for the frames this convolver enqueued, not for the device: its memory is freed stream-ordered.
    ~CudaConvolver() override {
        try {
            ScopedDevice on(device_);
            lastUse_.wait();
            fft_.reset();
            deviceTaps_ = DeviceBuffer();
        } catch (const CudaError&) {
            // The device cannot be selected: the buffer goes with the members, on the current device.
        }
    }

    CudaConvolver(const CudaConvolver&) = delete;
    CudaConvolver& operator=(const CudaConvolver&) = delete;

    // The FFT path's plans, buffers and spectra for this size, or none when the frames sum directly. A frame of
    // another size runs once through here (and frees the previous size's once this convolver's frames are done).
    // A failure leaves the convolver unprepared: the next frame tries again (and fails alike), never silently sums
    // directly what algorithm=fft asked of the FFT.
    void prepare(int width, int height) override {
        ScopedDevice on(device_);
        if (fft_) lastUse_.wait();
        fft_.reset();
        preparedWidth_ = preparedHeight_ = -1;
        if (plan_.algorithm == ConvolveAlgorithm::Fft && path_ != Path::Copy && fftSupports(plan_)) requireCufft();
        if (fftPath(plan_, launch_, width, height, variants_))
            fft_ = std::make_unique<FftConvolution>(plan_, width, height);
        preparedWidth_ = width;
        preparedHeight_ = height;
    }

    void process(const ImageView& src, const ImageView& dst, GpuStream stream) override {
        validateImages(plan_, src, dst);
        // Every kernel reads neighbours that other blocks may already have overwritten.
        if (overlaps(src, dst))
            throw InvalidArgument("the CUDA backend cannot filter in place; use separate source and destination");
        ScopedDevice on(device_);
        if (src.width != preparedWidth_ || src.height != preparedHeight_) prepare(src.width, src.height);
        enqueue(src, dst, stream);
        if (ownsDeviceMemory()) lastUse_.record(stream);  // the other paths take everything by value at launch
    }

    // The direct and separable kernels take their taps, and every kernel its bias, |x| and border value, by value
    // at launch: swapping the host copies changes the next launch and none already enqueued. The generic kernel
    // reads its taps from device memory that enqueued frames may still be reading, so there only taps equal to the
    // current ones are accepted (the values of the frame parameters may still change). So do the FFT path's kernel
    // spectra; a plan that would move the prepared size to or from the FFT path is refused too.
    bool retune(const ConvolvePlan& plan) override {
        if (!plan_.sameShape(plan)) return false;
        ConvolvePlan launch = launchPlan(plan, variants_);
        if (!launch_.sameShape(launch) || choosePath(launch, variants_) != path_) return false;
        if (preparedWidth_ >= 0 && fftPath(plan, launch, preparedWidth_, preparedHeight_, variants_) != bool(fft_))
            return false;
        if ((path_ == Path::Generic || fft_) && !tapsEqual(launch)) return false;
        plan_ = plan;
        launch_ = std::move(launch);
        auto out = taps_.begin();
        for (const Kernel2D& k : launch_.kernels) out = std::copy(k.taps.begin(), k.taps.end(), out);
        return true;
    }

private:
    void enqueue(const ImageView& src, const ImageView& dst, GpuStream stream) {
        if (fft_) {
            fft_->enqueue(plan_.type, cuda_detail::makeFrame(plan_, src, dst), stream);
            return;
        }
        if (path_ == Path::Copy) {
            copyDevicePlane(src, dst, stream);
            return;
        }
        const cuda_detail::ConvFrame f = cuda_detail::makeFrame(launch_, src, dst);
        switch (path_) {
        case Path::Direct:
            launchDirectSplit(launch_.type, launch_.kernelWidth, int(launch_.kernels.size()), f, taps_.data(), stream,
                              variants_);
            break;
        case Path::Separable:
            // The u8 streaming separable kernel wherever it applies (K = 7, 9, 15 and 31, 1 to 4 channels), ahead of
            // the register-window and interleaved kernels under their KernelVariants' 0 (they take K ≤ 9 otherwise).
            // It measures faster than those at every channel count (`bench-convolve --ks 7,9` at 1080p and 4K,
            // build-bench: the default rows against the "interleaved separable" and "variant" rows).
            if (variants_.interleaved == 0 && variants_.registerWindow == 0 &&
                cuda_detail::launchSeparableBytes(launch_.type, launch_.kernelWidth, f, launch_.row.data(),
                                                  launch_.column.data(), stream, variants_))
                break;
            // u8 with K ≤ 7: the register-window kernel (KernelVariants::registerWindow).
            if (launch_.type == SampleType::U8 &&
                cuda_detail::launchSeparableRegistersU8(launch_.kernelWidth, f, launch_.row.data(),
                                                        launch_.column.data(), stream, variants_.registerWindow))
                break;
            // One u8 channel at K = 3 below 4 Mpixel: the direct register-window kernel on the full taps (the tile
            // kernel's sums below, in the same order), faster there than the tile kernel (GRAY8 Gaussian 3 × 3 of
            // `bench-convolve --ks 3 --size WxH` from 640x480 to 2560x1440, build-bench).
            if (launch_.type == SampleType::U8 && launch_.kernelWidth == 3 && f.inChannels == 1 &&
                cuda_detail::launchDirectRegistersU8(3, 1, f, taps_.data(), stream, variants_.registerWindow))
                break;
            // One u8 channel with K ≤ 5: the one-channel tile kernel on the full taps (KernelVariants::grayTile).
            if (launch_.type == SampleType::U8 && launch_.kernelWidth <= 5 &&
                cuda_detail::launchGrayTileU8(launch_.kernelWidth, 1, f, taps_.data(), stream, variants_.grayTile))
                break;
            // Interleaved u8 pixels with K ≤ 9: one tile load for every channel (KernelVariants::interleaved)
            // instead of one separable grid layer per channel.
            if (launch_.type == SampleType::U8 &&
                cuda_detail::launchInterleavedSeparableU8(launch_.kernelWidth, f, taps_.data(), launch_.row.data(),
                                                          launch_.column.data(), stream, variants_.interleaved))
                break;
            cuda_detail::launchSeparable(launch_.type, launch_.kernelWidth, f, launch_.row.data(),
                                         launch_.column.data(), stream, variants_);
            break;
        default:
            cuda_detail::launchGeneric(launch_.type, launch_.mode, int(launch_.kernels.size()), launch_.kernelWidth,
                                       launch_.kernelHeight, f, deviceTaps_.as<float>(), stream);
            break;
        }
    }

    bool ownsDeviceMemory() const { return fft_ || path_ == Path::Generic; }

public:
    // The FFT and generic paths record this convolver's last use on an event: a capture would keep that record.
    bool capturable() const override { return !ownsDeviceMemory(); }

private:

    bool tapsEqual(const ConvolvePlan& plan) const {
        auto current = taps_.begin();
        for (const Kernel2D& k : plan.kernels) {
            if (!std::equal(k.taps.begin(), k.taps.end(), current)) return false;
            current += std::ptrdiff_t(k.taps.size());
        }
        return true;
    }

    KernelVariants variants_;
    ConvolvePlan launch_;  // the plan the kernels run: plan_, or plan_ padded to a compiled size (padded_plan.hpp)
    Path path_;
    int device_ = 0;
    std::vector<float> taps_;  // the plan's kernels concatenated (host copy for the by-value parameter blocks)
    LastUse lastUse_;          // the streams process() enqueued on, while it owns device memory
    Stream memory_;            // allocates and frees deviceTaps_ (generic path)
    DeviceBuffer deviceTaps_;  // the same on the device, for the generic path
    int preparedWidth_ = -1, preparedHeight_ = -1;
    std::unique_ptr<FftConvolution> fft_;  // frames of the prepared size, when they take the FFT path
};

}  // namespace

const char* pathName(const ConvolvePlan& plan, int width, int height, const KernelVariants& variants) {
    const ConvolvePlan launch = launchPlan(plan, variants);
    if (fftPath(plan, launch, width, height, variants)) return "fft";
    switch (choosePath(launch, variants)) {
    case Path::Copy: return "copy";
    case Path::Direct: return "direct";
    case Path::Separable: return "separable";
    case Path::Generic: return "generic";
    }
    return "unknown";
}

std::unique_ptr<Convolver> makeCudaConvolver(ConvolvePlan plan, const KernelVariants& variants) {
    return std::make_unique<CudaConvolver>(std::move(plan), variants);
}

}  // namespace cuda_detail

std::unique_ptr<Convolver> makeCudaConvolver(ConvolvePlan plan) {
    return cuda_detail::makeCudaConvolver(std::move(plan), cuda_detail::KernelVariants{});
}

}  // namespace cudafilters
