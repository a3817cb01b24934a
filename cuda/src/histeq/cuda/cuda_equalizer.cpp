// CUDA backend: owns its scratch (allocated once per plan: histograms, LUTs, temporal state, statistics), enqueues
// two kernels per frame on the caller's stream and never synchronises. Successive frames are ordered through an event
// even when the caller rotates streams, so the temporal state is used in frame order.
#include "histeq_launch.hpp"
#include "histeq_core.hpp"

#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace cudafilters {
namespace {

using detail::DeviceStatistics;
using detail::HisteqKind;
using detail::HisteqParams;

bool aligned16(const void* p, std::size_t pitch) {
    return (reinterpret_cast<std::uintptr_t>(p) % 16) == 0 && pitch % 16 == 0;
}

DeviceStatistics emptyStatistics() {
    DeviceStatistics s;
    std::memset(&s, 0, sizeof s);
    s.min = 0xffffffffu;
    return s;
}

class CudaEqualizer final : public Equalizer {
public:
    explicit CudaEqualizer(EqualizePlan plan) : Equalizer(std::move(plan)) {
        if (cudaDeviceCount() == 0)
            throw CudaError("cudaGetDeviceCount", 100, "cudaErrorNoDevice", "no CUDA device is usable");
        const std::size_t k = std::size_t(plan_.equalizedChannels());
        const std::size_t tiles = plan_.mode == EqualizeMode::Clahe ? std::size_t(plan_.tilesX) * plan_.tilesY : 1;
        const std::size_t entries = k * tiles * std::size_t(plan_.bins());
        const std::size_t sample = sampleSize(plan_.type);
        hist_.reserve(entries * sizeof(std::uint32_t));
        counters_.reserve((tiles + 1) * sizeof(std::uint32_t));
        luts_.reserve(entries * sample);
        CUDAFILTERS_CHECK(cudaMemset(hist_.data(), 0, entries * sizeof(std::uint32_t)));
        CUDAFILTERS_CHECK(cudaMemset(counters_.data(), 0, (tiles + 1) * sizeof(std::uint32_t)));
        if (plan_.smoothing > 0.0f) {
            if (plan_.smoothTarget == SmoothTarget::Histogram) state_.reserve(entries * sizeof(unsigned long long));
            else state_.reserve(entries * sizeof(std::uint32_t));
        }
        if (plan_.statistics) {
            stats_.reserve(2 * sizeof(DeviceStatistics));
            pinned_ = PinnedBuffer(kStatisticsDepth * sizeof(DeviceStatistics));
            std::memset(pinned_.data(), 0, pinned_.size());
            const DeviceStatistics init = emptyStatistics();
            CUDAFILTERS_CHECK(cudaMemcpy(stats_.data(), &init, sizeof init, cudaMemcpyHostToDevice));
        }
        CUDAFILTERS_CHECK(cudaStreamSynchronize(nullptr));  // construction only: scratch ready before any stream
        done_ = Event::create(false);
    }

    void process(const ImageView& src, const ImageView& dst, GpuStream gpuStream) override {
        validateImages(plan_, src, dst);
        const cudaStream_t stream = gpuStream;
        HisteqParams p;
        p.src = src.data;
        p.srcPitch = src.pitch;
        p.dst = dst.data;
        p.dstPitch = dst.pitch;
        p.width = src.width;
        p.height = src.height;
        p.u16 = plan_.type == SampleType::U16;
        p.channels = plan_.channels;
        p.kind = plan_.channels == 1                    ? HisteqKind::Plane
                 : plan_.colorMode == ColorMode::Luma ? HisteqKind::Luma
                                                        : HisteqKind::PerChannel;
        p.red = plan_.order.red;
        p.green = plan_.order.green;
        p.blue = plan_.order.blue;
        p.clahe = plan_.mode == EqualizeMode::Clahe;
        if (p.clahe) {
            const core::ClaheGrid g =
                core::claheGrid(src.width, src.height, plan_.tilesX, plan_.tilesY, plan_.bins(), plan_.clipLimit);
            p.tilesX = g.tilesX;
            p.tilesY = g.tilesY;
            p.tileWidth = g.tileWidth;
            p.tileHeight = g.tileHeight;
            p.clipLimit = g.clipLimit;
            p.lutScale = g.lutScale;
            p.invTileWidth = 1.0f / float(g.tileWidth);
            p.invTileHeight = 1.0f / float(g.tileHeight);
        } else {
            p.tileWidth = src.width;
            p.tileHeight = src.height;
        }
        const int tiles = p.tilesX * p.tilesY;
        // Enough blocks to fill the GPU twice over, each with at least a few rows of its tile.
        p.splits = std::clamp(2 * multiprocessors() / tiles, 1, std::max(1, p.tileHeight / 2));
        p.smoothTarget = plan_.smoothing > 0.0f ? (plan_.smoothTarget == SmoothTarget::Histogram ? 1 : 2) : 0;
        p.alphaFixed = core::smoothingFactor(plan_.smoothing);
        p.first = first_ ? 1 : 0;
        p.hist = hist_.as<std::uint32_t>();
        p.tileCounters = counters_.as<std::uint32_t>();
        p.doneCounter = p.tileCounters + tiles;
        p.luts = luts_.data();
        p.histState = p.smoothTarget == 1 ? state_.as<unsigned long long>() : nullptr;
        p.lutState = p.smoothTarget == 2 ? state_.as<std::uint32_t>() : nullptr;
        if (plan_.statistics) {
            p.statsAccumulator = stats_.as<DeviceStatistics>();
            p.statsOut = p.statsAccumulator + 1;
        }
        p.vectorized = plan_.channels == 1 && plan_.type == SampleType::U8 && aligned16(src.data, src.pitch) &&
                       aligned16(dst.data, dst.pitch);

        if (frames_ > 0) CUDAFILTERS_CHECK(cudaStreamWaitEvent(stream, done_.get(), 0));
        detail::launchHistogram(p, stream);
        detail::launchApply(p, stream);
        if (plan_.statistics) {
            auto* slot = static_cast<DeviceStatistics*>(pinned_.data()) + frames_ % kStatisticsDepth;
            CUDAFILTERS_CHECK(
                cudaMemcpyAsync(slot, p.statsOut, sizeof(DeviceStatistics), cudaMemcpyDeviceToHost, stream));
        }
        CUDAFILTERS_CHECK(cudaEventRecord(done_.get(), stream));
        first_ = false;
        ++frames_;
    }

    void reset() override { first_ = true; }
    std::uint64_t frameCount() const override { return frames_; }

    bool statistics(FrameStatistics& out, std::uint64_t frame) const override {
        if (!plan_.statistics || frame >= frames_ || frames_ - frame > std::uint64_t(kStatisticsDepth)) return false;
        const auto& s = static_cast<const DeviceStatistics*>(pinned_.data())[frame % kStatisticsDepth];
        out.frame = frame;
        out.samples = s.count;
        std::copy(std::begin(s.histogram), std::end(s.histogram), out.histogram.begin());
        out.mean = s.count ? double(s.sum) / double(s.count) : 0.0;
        out.min = s.count ? s.min : 0;
        out.max = s.max;
        return true;
    }

private:
    static int multiprocessors() {
        static const int count = [] {
            int device = 0, sms = 0;
            cudaGetDevice(&device);
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
            return sms > 0 ? sms : 80;
        }();
        return count;
    }

    DeviceBuffer hist_, counters_, luts_, state_, stats_;
    PinnedBuffer pinned_;
    Event done_;
    bool first_ = true;
    std::uint64_t frames_ = 0;
};

}  // namespace

std::unique_ptr<Equalizer> makeCudaEqualizer(EqualizePlan plan) {
    return std::make_unique<CudaEqualizer>(std::move(plan));
}

}  // namespace cudafilters
