// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend of the Convolver: picks a path once per plan, owns the device copy of the taps, and enqueues
// one kernel per frame on the caller's stream (no allocation, no synchronisation on the frame path).
#include "convolve_launch.hpp"
#include "cufft_library.hpp"
#include "fft_convolution.hpp"
#include "kernel_route.hpp"

#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
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

namespace {

// A direct-family route's kernel, launched; false where its launcher finds that it does not apply (the table and the
// launcher's own applies check disagree). bank: the kernels of this launch.
bool launchDirectRoute(KernelRoute route, int k, int bank, const ConvFrame& frame, const float* taps,
                       cudaStream_t stream) {
    switch (route) {
    case KernelRoute::DirectRegisterWindowU8: return launchDirectRegistersU8(k, bank, frame, taps, stream);
    case KernelRoute::DirectInterleavedU8: return launchInterleavedU8(k, bank, frame, taps, stream);
    case KernelRoute::DirectGrayTileU8: return launchGrayTileU8(k, bank, frame, taps, stream);
    case KernelRoute::DirectTileU8: return launchDirectTiledU8(k, bank, frame, taps, stream);
    case KernelRoute::DirectTileU16: return launchDirectU16(k, bank, frame, taps, stream);
    default: return false;
    }
}

[[noreturn]] void routeMismatch(KernelRoute route) {
    throw std::logic_error(std::string("the kernel of route ") + name(route) + " does not apply to the frame");
}

}  // namespace

void launchDirect(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    RouteQuery q;
    q.path = Path::Direct;
    q.type = type;
    q.k = k;
    q.bank = bank;
    q.frame = frame;
    const KernelRoute route = kernelRoute(q);
    if (route == KernelRoute::None)
        throw InvalidArgument("no direct kernel compiled for size " + std::to_string(k) + " and bank " +
                              std::to_string(bank));
    if (!launchDirectRoute(route, k, bank, frame, taps, stream)) routeMismatch(route);
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

// A direct plan's frame: one launch where the direct kernels take the bank; else a bank of kernels written to their
// own output channels (Combine::Channels) in launches of at most two, each writing its channels from its first one on
// (the destination moved on by that many samples): the same sums as one launch would make.
void launchDirectSplit(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps,
                       cudaStream_t stream) {
    if (oneDirectLaunch(k, bank)) return launchDirect(type, k, bank, frame, taps, stream);
    for (int first = 0; first < bank; first += 2) {
        ConvFrame part = frame;
        part.dst += std::size_t(first) * sampleSize(type);
        launchDirect(type, k, std::min(2, bank - first), part, taps + std::size_t(first) * k * k, stream);
    }
}

bool fftPath(const ConvolvePlan& plan, const ConvolvePlan& launch, int width, int height) {
    return cuda_detail::fftPath(plan, launch, width, height, cufftLibrary() != nullptr);
}

// The streaming kernel's row segments: sized for two waves of blocks on frames of 4 Mpixel and more, else one
// (`bench-convolve --ks 15,31`, build-bench).
int streamWaves(const ConvFrame& frame) { return std::int64_t(frame.width) * frame.height >= 4000000 ? 2 : 1; }

// Everything of a CudaConvolver runs on the device that was current when it was made, whatever thread calls it:
// the constructor, process() and the destructor hold a ScopedDevice (retune() makes no CUDA call).
class CudaConvolver final : public Convolver {
public:
    explicit CudaConvolver(ConvolvePlan plan)
        : Convolver(std::move(plan)), launch_(launchPlan(plan_)), path_(choosePath(launch_)) {
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
        if (fftPath(plan_, launch_, width, height))
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
        ConvolvePlan launch = launchPlan(plan);
        if (!launch_.sameShape(launch) || choosePath(launch) != path_) return false;
        if (preparedWidth_ >= 0 && fftPath(plan, launch, preparedWidth_, preparedHeight_) != bool(fft_))
            return false;
        if ((path_ == Path::Generic || fft_) && !tapsEqual(launch)) return false;
        plan_ = plan;
        launch_ = std::move(launch);
        auto out = taps_.begin();
        for (const Kernel2D& k : launch_.kernels) out = std::copy(k.taps.begin(), k.taps.end(), out);
        return true;
    }

private:
    // The frame's kernel: the routing table's (kernel_route.cpp).
    void enqueue(const ImageView& src, const ImageView& dst, GpuStream stream) {
        const cuda_detail::ConvFrame f = cuda_detail::makeFrame(launch_, src, dst);
        const KernelRoute route = planRoute(launch_, f, fft_ != nullptr);
        const SampleType type = launch_.type;
        const int k = launch_.kernelWidth;
        const float* row = launch_.row.data();
        const float* column = launch_.column.data();
        bool launched = true;
        switch (route) {
        case KernelRoute::Fft: fft_->enqueue(plan_.type, cuda_detail::makeFrame(plan_, src, dst), stream); break;
        case KernelRoute::Copy: copyDevicePlane(src, dst, stream); break;
        case KernelRoute::Generic:
            launchGeneric(type, launch_.mode, int(launch_.kernels.size()), k, launch_.kernelHeight, f,
                          deviceTaps_.as<float>(), stream);
            break;
        case KernelRoute::SeparableStagedU8:
            launched = launchSeparableStagedU8(type, k, f, row, column, stream);
            break;
        case KernelRoute::SeparableRegisterWindowU8:
            launched = launchSeparableRegistersU8(k, f, row, column, stream);
            break;
        case KernelRoute::SeparableInterleavedU8:
            launched = launchInterleavedSeparableU8(k, f, taps_.data(), row, column, stream);
            break;
        case KernelRoute::SeparableStreamU8:
        case KernelRoute::SeparableStreamU16:
            launched = launchSeparableStream(type, k, f, row, column, stream, streamWaves(f));
            break;
        case KernelRoute::SeparableTileU8:
        case KernelRoute::SeparableTileU16: launchSeparableTile(type, k, f, row, column, stream); break;
        case KernelRoute::DirectRegisterWindowU8:
        case KernelRoute::DirectInterleavedU8:
        case KernelRoute::DirectGrayTileU8:
        case KernelRoute::DirectTileU8:
        case KernelRoute::DirectTileU16:
            // A separable plan's frame on its full K × K taps in one launch; a direct plan's, split where its bank
            // needs it.
            if (path_ == Path::Separable)
                launched = launchDirectRoute(route, k, 1, f, taps_.data(), stream);
            else
                launchDirectSplit(type, k, int(launch_.kernels.size()), f, taps_.data(), stream);
            break;
        case KernelRoute::None:
            throw InvalidArgument(std::string("no CUDA kernel for this plan (") + pathName(plan_) + ")");
        }
        if (!launched) routeMismatch(route);
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

const char* pathName(const ConvolvePlan& plan, int width, int height) {
    const ConvolvePlan launch = launchPlan(plan);
    if (fftPath(plan, launch, width, height)) return "fft";
    switch (choosePath(launch)) {
    case Path::Copy: return "copy";
    case Path::Direct: return "direct";
    case Path::Separable: return "separable";
    case Path::Generic: return "generic";
    }
    return "unknown";
}

}  // namespace cuda_detail

std::unique_ptr<Convolver> makeCudaConvolver(ConvolvePlan plan) {
    return std::make_unique<cuda_detail::CudaConvolver>(std::move(plan));
}

}  // namespace cudafilters
