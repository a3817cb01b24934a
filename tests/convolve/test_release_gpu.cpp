// SPDX-License-Identifier: LGPL-2.1-or-later
// Engine objects are made and freed without waiting for the whole device: while another stream is held busy (a host
// function that returns only when the test lets it, or after kHold), building and destroying a CUDA convolver
// (generic path with device taps) or equalizer (CLAHE tables, smoothing state, pinned statistics) returns at once,
// and the busy stream is still busy afterwards. The control: cudaFree does wait for it. (The FFT path's cuFFT plans
// are not covered: cufftDestroy waits for the device.) Skipped without a CUDA device.
#include "cuda_test_images.hpp"

#include <cudafilters/histeq.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

#ifdef CUDAFILTERS_HAVE_CUDA
using Clock = std::chrono::steady_clock;
constexpr auto kHold = std::chrono::milliseconds(1500);
constexpr auto kPrompt = std::chrono::milliseconds(500);  // far below kHold, far above any allocation

// A stream whose work cannot finish until release() (or kHold has passed).
class BusyStream {
public:
    BusyStream() : stream_(Stream::create()) {
        CUDAFILTERS_CHECK(cudaLaunchHostFunc(stream_.get(), &BusyStream::hold, this));
        // The host function has started: the stream is busy from here on.
        while (!started_.load()) std::this_thread::yield();
    }
    ~BusyStream() {
        release();
        cudaStreamSynchronize(stream_.get());
    }
    bool busy() const { return cudaStreamQuery(stream_.get()) == cudaErrorNotReady; }
    void release() { released_.store(true); }

private:
    static void CUDART_CB hold(void* self) {
        auto* busy = static_cast<BusyStream*>(self);
        busy->started_.store(true);
        const auto until = Clock::now() + kHold;
        while (!busy->released_.load() && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    Stream stream_;
    std::atomic<bool> started_{false}, released_{false};
};

template <typename F> std::chrono::milliseconds timed(F&& f) {
    const auto start = Clock::now();
    f();
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

// A random frame and its output, uploaded before the busy stream starts (cudaMalloc and cudaMemcpy2D wait for the
// device), and a stream of its own: run() waits for that stream only.
struct Frame {
    HostImage host;
    DevicePlane src, dst;
    Stream stream = Stream::create();

    Frame(int width, int height)
        : host(width, height, 1, SampleType::U8), src(width, height, 1, SampleType::U8, false),
          dst(width, height, 1, SampleType::U8, false) {
        host.fillRandom(7);
        src.upload(host);
    }
    template <typename Filter> void run(Filter& filter) {
        filter.process(src.view, dst.view, stream.get());
        CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    }
};

// The first launch of a kernel in the process loads its module (lazy loading, CUDA's default), which waits for the
// device: a one-time cost, taken here before the busy stream starts.
template <typename Filter> void warmUp(std::unique_ptr<Filter> filter, Frame& frame) { frame.run(*filter); }
#endif

TEST(StreamOrderedRelease, CudaFreeWaitsForTheWholeDevice) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    void* memory = nullptr;
    CUDAFILTERS_CHECK(cudaMalloc(&memory, 1 << 20));
    BusyStream busy;
    const auto took = timed([&] { cudaFree(memory); });
    // If cudaFree returned early here, the tests below could not tell a device-wide wait from none.
    EXPECT_GE(took, kHold - std::chrono::milliseconds(200)) << "cudaFree took " << took.count() << " ms";
#endif
}

TEST(StreamOrderedRelease, GenericConvolverIsMadeAndFreedWithoutWaitingForTheDevice) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    ConvolveDesc desc;
    desc.kernels = {randomKernel(33, 33, 5, false)};
    desc.combine = Combine::Sum;
    desc.algorithm = ConvolveAlgorithm::Direct;
    const ConvolvePlan plan = ConvolvePlan::make(desc, SampleType::U8, 1);
    ASSERT_STREQ(cuda_detail::pathName(plan, 301, 201), "generic");
    Frame frame(301, 201);
    warmUp(makeCudaConvolver(plan), frame);
    BusyStream busy;
    std::unique_ptr<Convolver> convolver;
    EXPECT_LT(timed([&] { convolver = makeCudaConvolver(plan); }), kPrompt);
    frame.run(*convolver);
    EXPECT_LT(timed([&] { convolver.reset(); }), kPrompt);
    EXPECT_TRUE(busy.busy());
#endif
}

TEST(StreamOrderedRelease, EqualizerIsMadeAndFreedWithoutWaitingForTheDevice) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    EqualizeDesc desc;
    desc.mode = EqualizeMode::Clahe;
    desc.smoothing = 0.5;
    desc.statistics = true;
    const EqualizePlan plan = EqualizePlan::make(desc, SampleType::U8, 1);
    Frame frame(333, 222);
    warmUp(makeCudaEqualizer(plan), frame);
    BusyStream busy;
    std::unique_ptr<Equalizer> equalizer;
    EXPECT_LT(timed([&] { equalizer = makeCudaEqualizer(plan); }), kPrompt);
    frame.run(*equalizer);
    EXPECT_LT(timed([&] { equalizer.reset(); }), kPrompt);
    // The recycled statistics block serves the next equalizer, which starts from its own zeroed statistics.
    equalizer = makeCudaEqualizer(plan);
    FrameStatistics stats;
    EXPECT_FALSE(equalizer->statistics(stats, 0));
    frame.run(*equalizer);
    ASSERT_TRUE(equalizer->statistics(stats, 0));
    EXPECT_EQ(stats.samples, 333u * 222u);
    EXPECT_LT(timed([&] { equalizer.reset(); }), kPrompt);
    EXPECT_TRUE(busy.busy());
#endif
}

}  // namespace
