// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA backend: owns its scratch (allocated once per plan: histograms, LUTs, temporal state, statistics), enqueues
// two kernels per frame on the caller's stream and never synchronises. Successive frames are ordered through an event
// even when the caller rotates streams, so the temporal state is used in frame order. A frame enqueued under a stream
// capture waits for and records that event as external event nodes of the graph, so frames run as graphs keep the
// same order (the driver refuses those flags outside a capture).
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

bool alignedTo(std::size_t bytes, const void* p, std::size_t pitch) {
    return (reinterpret_cast<std::uintptr_t>(p) % bytes) == 0 && pitch % bytes == 0;
}
bool aligned16(const void* p, std::size_t pitch) { return alignedTo(16, p, pitch); }

// The legacy default stream cannot be captured; asking about it while another thread captures a blocking stream
// would be an error of its own (cudaErrorStreamCaptureImplicit).
bool capturing(cudaStream_t stream) {
    if (stream == nullptr) return false;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDAFILTERS_CHECK(cudaStreamIsCapturing(stream, &status));
    return status == cudaStreamCaptureStatusActive;
}

// The luma chunk kernels for frames of 16-byte aligned rows: global u8 luma of 4 or 3 channels.
bool takesLumaChunks(const EqualizePlan& plan) {
    return plan.mode == EqualizeMode::Global && plan.type == SampleType::U8 &&
           (plan.channels == 4 || plan.channels == 3) && plan.colorMode == ColorMode::Luma;
}

// The CLAHE luma chunk kernels for frames of 16-byte aligned rows whose band quads fit: CLAHE of u8 luma of 4 or 3
// channels.
bool takesClaheLumaChunks(const EqualizePlan& plan) {
    return plan.mode == EqualizeMode::Clahe && plan.type == SampleType::U8 &&
           (plan.channels == 4 || plan.channels == 3) && plan.colorMode == ColorMode::Luma;
}

DeviceStatistics emptyStatistics() {
    DeviceStatistics s;
    std::memset(&s, 0, sizeof s);
    s.min = 0xffffffffu;
    return s;
}

// Everything of a CudaEqualizer runs on the device that was current when it was made, whatever thread calls it: the
// constructor, process() and the destructor hold a ScopedDevice (retune(), reset() and statistics() make no CUDA
// call: host state and pinned memory only).
class CudaEqualizer final : public Equalizer {
public:
    explicit CudaEqualizer(EqualizePlan plan) : Equalizer(std::move(plan)), tileCapacity_(plan_.tiles()) {
        if (cudaDeviceCount() == 0)
            throw CudaError("cudaGetDeviceCount", 100, "cudaErrorNoDevice", "no CUDA device is usable");
        device_ = currentDevice();
        ScopedDevice on(device_);
        CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_));
        dependentLaunch_ = detail::overlapSupported();
        overlapped_ = dependentLaunch_;
        if (lumaChunksPlan()) lumaBlocksPerSm_ = detail::globalLuma8BlocksPerSm(plan_.channels);
        const std::size_t k = std::size_t(plan_.equalizedChannels());
        const std::size_t tiles = std::size_t(tileCapacity_);
        const std::size_t entries = k * tiles * std::size_t(plan_.bins());
        const std::size_t sample = sampleSize(plan_.type);
        memory_ = Stream::create();
        const cudaStream_t m = memory_.get();
        hist_.reserve(entries * sizeof(std::uint32_t), m);
        counters_.reserve((tiles + 1) * sizeof(std::uint32_t), m);
        luts_.reserve(entries * sample, m);
        CUDAFILTERS_CHECK(cudaMemsetAsync(hist_.data(), 0, entries * sizeof(std::uint32_t), m));
        CUDAFILTERS_CHECK(cudaMemsetAsync(counters_.data(), 0, (tiles + 1) * sizeof(std::uint32_t), m));
        // The block-LUT and luma chunk kernels' histogram pair (a retuned plan may come to take them).
        histPair_.reserve(kHistPairBytes, m);
        CUDAFILTERS_CHECK(cudaMemsetAsync(histPair_.data(), 0, kHistPairBytes, m));
        if (plan_.smoothing > 0.0f) {
            if (plan_.smoothTarget == SmoothTarget::Histogram) state_.reserve(entries * sizeof(unsigned long long), m);
            else state_.reserve(entries * sizeof(std::uint32_t), m);
        }
        const DeviceStatistics init = emptyStatistics();
        if (plan_.statistics) {
            stats_.reserve(2 * sizeof(DeviceStatistics), m);
            pinned_ = PinnedBuffer(kStatisticsDepth * sizeof(DeviceStatistics));
            std::memset(pinned_.data(), 0, pinned_.size());
            CUDAFILTERS_CHECK(cudaMemcpyAsync(stats_.data(), &init, sizeof init, cudaMemcpyHostToDevice, m));
        }
        CUDAFILTERS_CHECK(cudaStreamSynchronize(m));  // construction only: scratch ready before any stream
        done_ = Event::create(false);
    }

    // Waits for the frames this equalizer enqueued (they are ordered through done_), not for the device: its memory
    // is freed stream-ordered and its pinned statistics block recycled.
    ~CudaEqualizer() override {
        try {
            ScopedDevice on(device_);
            if (frames_ > 0 && cudaEventSynchronize(done_.get()) != cudaSuccess) cudaGetLastError();
            releaseDeviceObjects();
        } catch (const CudaError&) {
            // The device cannot be selected: the objects go with the members, on the current device.
        }
    }

    CudaEqualizer(const CudaEqualizer&) = delete;
    CudaEqualizer& operator=(const CudaEqualizer&) = delete;

    void process(const ImageView& src, const ImageView& dst, GpuStream gpuStream) override {
        validateImages(plan_, src, dst);
        ScopedDevice on(device_);
        const cudaStream_t stream = gpuStream;
        HisteqParams p = frameParams(src, dst);

        const bool captured = capturing(stream);
        if (frames_ > 0)
            CUDAFILTERS_CHECK(
                cudaStreamWaitEvent(stream, done_.get(), captured ? cudaEventWaitExternal : cudaEventWaitDefault));
        launchKernels(p, src, dst, stream);
        if (plan_.statistics) {
            auto* slot = static_cast<DeviceStatistics*>(pinned_.data()) + frames_ % kStatisticsDepth;
            CUDAFILTERS_CHECK(
                cudaMemcpyAsync(slot, p.statsOut, sizeof(DeviceStatistics), cudaMemcpyDeviceToHost, stream));
        }
        CUDAFILTERS_CHECK(cudaEventRecordWithFlags(done_.get(), stream,
                                                   captured ? cudaEventRecordExternal : cudaEventRecordDefault));
        first_ = false;
        ++frames_;
    }

    void reset() override { first_ = true; }
    bool capturable() const override { return true; }

    // Clip limit, smoothing factor, grid and the first-frame flag reach the kernels as launch parameters, so the next
    // process() launches with the new values and frames already enqueued keep theirs. A smaller grid uses a prefix of
    // the tables, which the kernels leave zeroed; the state is re-seeded by the next frame when the grid changes.
    bool retune(const EqualizePlan& plan) override {
        const core::Retune kind = core::retuneKind(plan_, plan, tileCapacity_);
        if (kind == core::Retune::Refused) return false;
        if (kind == core::Retune::ResetState) first_ = true;
        plan_ = plan;
        return true;
    }
    std::uint64_t frameCount() const override { return frames_; }

    bool statistics(FrameStatistics& out, std::uint64_t frame) const override {
        if (!core::statisticsHeld(plan_, frames_, frame)) return false;
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
    static constexpr std::size_t kHistPairBytes = 2 * 256 * sizeof(std::uint32_t);
    static constexpr int kHistogramBlocksPerSm = 2;
    // The CLAHE luma chunk kernels: 4 histogram blocks per SM, chosen against 2 and 8 on RGBA CLAHE 8×8 clip 2 at 1080p
    // and 4K (`bench-histeq --only clahe`, built by scripts/gpu/build-bench-histeq.sh).
    static constexpr int kClaheLumaHistogramBlocksPerSm = 4;

    // The launch parameters of the frame src → dst under the current plan.
    HisteqParams frameParams(const ImageView& src, const ImageView& dst) {
        HisteqParams p = frameLayout(src, dst);
        setTileGrid(p, src);
        setScratch(p, src, dst);
        setChunkPaths(p, src, dst);
        return p;
    }

    // The images, the sample type and depth, and which channels are equalized how.
    HisteqParams frameLayout(const ImageView& src, const ImageView& dst) const {
        HisteqParams p;
        p.src = src.data;
        p.srcPitch = src.pitch;
        p.dst = dst.data;
        p.dstPitch = dst.pitch;
        p.width = src.width;
        p.height = src.height;
        p.u16 = plan_.type == SampleType::U16;
        p.bins = plan_.bins();
        p.shift = plan_.bits.shift;
        p.statsShift = plan_.bits.depth - 8;
        p.channels = plan_.channels;
        p.kind = plan_.channels <= 2                    ? HisteqKind::Plane
                 : plan_.colorMode == ColorMode::Luma ? HisteqKind::Luma
                                                        : HisteqKind::PerChannel;
        p.lumaChannel = plan_.lumaChannel;
        p.red = plan_.order.red;
        p.green = plan_.order.green;
        p.blue = plan_.order.blue;
        return p;
    }

    // CLAHE's tile grid and LUT formula for the frame's size; global equalization: one tile of the frame.
    void setTileGrid(HisteqParams& p, const ImageView& src) const {
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
    }

    // The histogram pass's blocks per tile, temporal smoothing, and the scratch of the tile kernels.
    void setScratch(HisteqParams& p, const ImageView& src, const ImageView& dst) const {
        const int tiles = p.tilesX * p.tilesY;
        // Enough blocks to fill the GPU, each with at least a few rows of its tile.
        p.claheLumaChunks = detail::claheLumaChunksApply(plan_, src, dst);
        const int blocksPerSm = p.claheLumaChunks ? kClaheLumaHistogramBlocksPerSm : kHistogramBlocksPerSm;
        p.splits = std::clamp(blocksPerSm * multiprocessors_ / tiles, 1, std::max(1, p.tileHeight / 2));
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
    }

    // What the images' alignment allows: 16-byte chunks, 4-byte pixels, CLAHE's band kernel (and its bands).
    void setChunkPaths(HisteqParams& p, const ImageView& src, const ImageView& dst) {
        p.vectorized = (plan_.type == SampleType::U8 ? plan_.channels <= 2 : plan_.channels == 1) &&
                       aligned16(src.data, src.pitch) && aligned16(dst.data, dst.pitch);
        p.pixelWords = plan_.type == SampleType::U8 && plan_.channels == 4 && alignedTo(4, src.data, src.pitch) &&
                       alignedTo(4, dst.data, dst.pitch);
        const int rows = bandRowsForOneWave(p);
        p.bandSharedBytes = detail::claheBandSharedBytes(p, rows);
        p.bandRows = p.bandSharedBytes > 0 ? rows : 0;
        p.overlapped = p.bandRows > 0 && dependentLaunch_;
    }

    // The frame's kernels: the block-LUT pair (GRAY8), the luma chunk pair (4- and 3-channel luma), else the tile
    // kernels.
    void launchKernels(HisteqParams& p, const ImageView& src, const ImageView& dst, cudaStream_t stream) {
        if (blockLutApplies()) {
            launchBlockLut(p, src, dst, stream);
        } else if (detail::globalLumaChunksApply(plan_, src, dst)) {
            launchLumaChunks(p, src, stream);
        } else {
            detail::launchHistogram(p, stream);
            detail::launchApply(p, stream);
        }
    }

    void launchBlockLut(HisteqParams& p, const ImageView& src, const ImageView& dst, cudaStream_t stream) {
        // The frame counts into histPair_[pairIndex_], left zeroed by the frame before; its histogram kernel
        // zeroes the other half for the next frame.
        p.hist = histPair_.as<std::uint32_t>() + pairIndex_ * 256;
        p.histNext = histPair_.as<std::uint32_t>() + (pairIndex_ ^ 1) * 256;
        const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(src.data) % 16;
        p.chunksPerRow = int(src.pitch % 16 == 0 ? (misalignment + std::size_t(src.width) + 15) / 16
                                                 : (std::size_t(src.width) + 30) / 16);
        p.sameAlignment = reinterpret_cast<std::uintptr_t>(src.data) % 16 ==
                              reinterpret_cast<std::uintptr_t>(dst.data) % 16 &&
                          src.pitch % 16 == dst.pitch % 16;
        p.multiprocessors = multiprocessors_;
        p.overlapped = overlapped_;
        detail::launchGlobalGray8(p, stream);
        pairIndex_ ^= 1;
    }

    void launchLumaChunks(HisteqParams& p, const ImageView& src, cudaStream_t stream) {
        // Without smoothing as launchBlockLut (the pair); with it the tile scratch, state and LUT of the tile kernels,
        // so that frames of either alignment follow each other with one temporal state.
        const bool pair = p.smoothTarget == 0;
        if (pair) {
            p.hist = histPair_.as<std::uint32_t>() + pairIndex_ * 256;
            p.histNext = histPair_.as<std::uint32_t>() + (pairIndex_ ^ 1) * 256;
        }
        const int chunkPixels = plan_.channels == 3 ? 16 : 4;  // 48 or 16 bytes
        p.chunksPerRow = (src.width + chunkPixels - 1) / chunkPixels;
        p.multiprocessors = multiprocessors_;
        p.lumaBlocksPerSm = lumaBlocksPerSm_;
        p.overlapped = dependentLaunch_;
        detail::launchGlobalLuma8(p, stream);
        if (pair) pairIndex_ ^= 1;
    }

    bool blockLutApplies() const {
        return plan_.mode == EqualizeMode::Global && plan_.type == SampleType::U8 && plan_.channels == 1 &&
               plan_.smoothing == 0.0f;
    }

    bool lumaChunksPlan() const { return takesLumaChunks(plan_); }

    // Bands as tall as one wave of the band kernel's blocks allows (at 1.4 waves its tail is a quarter of its time),
    // within [8, kMaxBandRows] rows.
    int bandRowsForOneWave(const HisteqParams& p) {
        const int sharedBytes = detail::claheBandSharedBytes(p, detail::kMaxBandRows);
        if (sharedBytes == 0) return 8;
        BandOccupancy& o = bandOccupancy_[p.channels - 1];
        if (o.sharedBytes != sharedBytes) o = {sharedBytes, detail::claheBandBlocksPerSm(p.channels, sharedBytes)};
        const int bands = std::max(1, o.blocksPerSm * multiprocessors_ / detail::claheBandStrips(p));
        return std::clamp((p.height + bands - 1) / bands, 8, detail::kMaxBandRows);
    }

    void releaseDeviceObjects() noexcept {
        hist_ = DeviceBuffer();
        histPair_ = DeviceBuffer();
        counters_ = DeviceBuffer();
        luts_ = DeviceBuffer();
        state_ = DeviceBuffer();
        stats_ = DeviceBuffer();
        memory_.reset();
        pinned_ = PinnedBuffer();
        done_.reset();
    }

    int tileCapacity_;          // tiles the tables were allocated for
    bool overlapped_ = false;   // the block-LUT apply kernel overlapped: the device runs it
    detail::GlobalLumaBlocks lumaBlocksPerSm_;  // the luma chunk kernels, where the plan can take it
    bool dependentLaunch_ = false;  // the device runs apply kernels as programmatic dependents (the band kernel)
    struct BandOccupancy {
        int sharedBytes = 0, blocksPerSm = 0;
    };
    BandOccupancy bandOccupancy_[4];  // band kernel blocks an SM holds (1 to 4 channels) for the last shared size
    int device_ = 0;
    int multiprocessors_ = 0;   // of device_
    Stream memory_;             // allocates and frees the buffers below
    DeviceBuffer hist_, counters_, luts_, state_, stats_;
    DeviceBuffer histPair_;     // The block-LUT kernels: two 256-bin histograms, used by turns
    int pairIndex_ = 0;
    PinnedBuffer pinned_;
    Event done_;
    bool first_ = true;
    std::uint64_t frames_ = 0;
};

}  // namespace

namespace detail {

bool globalLumaChunksApply(const EqualizePlan& plan, const ImageView& src, const ImageView& dst) {
    return takesLumaChunks(plan) && aligned16(src.data, src.pitch) && aligned16(dst.data, dst.pitch);
}

bool claheLumaChunksApply(const EqualizePlan& plan, const ImageView& src, const ImageView& dst) {
    if (!takesClaheLumaChunks(plan) || !aligned16(src.data, src.pitch) || !aligned16(dst.data, dst.pitch))
        return false;
    const core::ClaheGrid g = core::claheGrid(src.width, src.height, plan.tilesX, plan.tilesY, plan.bins(),
                                              plan.clipLimit);
    return claheBandBytes(plan.channels, g.tileWidth, g.tileHeight, g.tilesX, g.tilesY, 8) > 0;
}

}  // namespace detail

std::unique_ptr<Equalizer> makeCudaEqualizer(EqualizePlan plan) {
    return std::make_unique<CudaEqualizer>(std::move(plan));
}

}  // namespace cudafilters
