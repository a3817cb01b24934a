// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Histogram equalization: global (as cv::equalizeHist) and CLAHE (as cv::createCLAHE), bit-exact to OpenCV 4.6 on
// 8-bit images, with optional temporal smoothing for video and per-frame statistics.
#include <cudafilters/backend.hpp>
#include <cudafilters/image.hpp>

#include <array>
#include <cstdint>
#include <memory>

namespace cudafilters {

enum class EqualizeMode {
    Global,  // one histogram over the frame → LUT exactly as cv::equalizeHist (uniform frame: unchanged)
    Clahe,   // tiles × clip-limited histograms → bilinear blend of tile LUTs, exactly as cv::createCLAHE
};

enum class ColorMode {
    Luma,        // 3/4 channels: equalize Y of BT.601 YCrCb (cv::cvtColor's fixed point), rebuild RGB, keep alpha
    PerChannel,  // 3/4 channels: equalize R, G and B independently, keep alpha
};

// What the temporal smoothing averages from frame to frame.
enum class SmoothTarget {
    Histogram,  // EMA of the (tile) histograms; each LUT is a true equalization of the averaged content (default)
    Lut,        // EMA of the LUTs built per frame (as steady for global, slightly steadier for CLAHE: see
                // docs/performance.md)
};

// Where red, green and blue sit in an interleaved pixel: RGB(A) {0,1,2}, BGR(A) {2,1,0}, ARGB {1,2,3},
// ABGR {3,2,1}. In a 4-channel pixel the remaining channel (alpha or padding) is copied unchanged.
struct ChannelOrder {
    int red = 0;
    int green = 1;
    int blue = 2;

    static constexpr ChannelOrder rgb() { return {0, 1, 2}; }
    static constexpr ChannelOrder bgr() { return {2, 1, 0}; }
    static constexpr ChannelOrder argb() { return {1, 2, 3}; }
    static constexpr ChannelOrder abgr() { return {3, 2, 1}; }
};

// What the user asks for. Validated by EqualizePlan::make.
struct EqualizeDesc {
    EqualizeMode mode = EqualizeMode::Global;
    double clipLimit = 2.0;   // CLAHE: clip at clipLimit · tilePixels / 256 (as OpenCV), 0 = no clipping
    int tilesX = 8;           // CLAHE grid; each must be ≥ 1 and ≤ the frame's size in that direction
    int tilesY = 8;
    double smoothing = 0.0;   // α ∈ [0, 1): state = α · state + (1 − α) · this frame; 0 = exactly per frame
    SmoothTarget smoothTarget = SmoothTarget::Histogram;
    ColorMode colorMode = ColorMode::Luma;
    bool statistics = false;  // compute FrameStatistics for every frame (GPU: alongside, into pinned memory)
};

constexpr int kMaxTiles = 256;               // per direction
// CLAHE keeps a histogram and a LUT of bins() entries per tile (16-bit: 65 536): tiles × bins is bounded so that a
// 16-bit grid cannot ask for gigabytes (u8: every grid up to 256 × 256 fits; u16: up to 256 tiles, e.g. 16 × 16).
constexpr long long kMaxClaheTableEntries = 1LL << 24;
constexpr int kStatisticsBins = 256;
constexpr int kStatisticsDepth = 8;          // statistics of the last 8 frames are kept (pipelined callers)

// A validated description for one sample type and channel layout.
//   u8:  global = cv::equalizeHist; CLAHE = cv::createCLAHE on CV_8U (256 bins).
//   u16: CLAHE = cv::createCLAHE on CV_16U (65536 bins, clip at clipLimit · tilePixels / 65536 per bin, as OpenCV);
//        global = cv::equalizeHist's formula on a 65536-bin histogram (one bin per level, LUT scaled to 65535):
//        the binning is the identity, nothing is lost.
//   fewer significant bits (SampleBits, 1 channel only: I420_10LE, P010_10LE luma): one bin per level of the real
//        depth (10 bits: 1024 bins, LUT scaled to 1023 levels, CLAHE clip at clipLimit · tilePixels / 1024), read as
//        sample >> shift (levels above the depth saturate) and stored as level << shift.
struct EqualizePlan {
    EqualizeMode mode = EqualizeMode::Global;
    double clipLimit = 2.0;
    int tilesX = 8;
    int tilesY = 8;
    float smoothing = 0.0f;
    SmoothTarget smoothTarget = SmoothTarget::Histogram;
    ColorMode colorMode = ColorMode::Luma;  // irrelevant for 1 channel
    bool statistics = false;
    SampleType type = SampleType::U8;
    SampleBits bits;  // resolved
    int channels = 1;
    ChannelOrder order{};
    int lumaChannel = 0;  // 2 channels (packed 4:2:2 seen as Y/chroma pairs): the channel equalized, the other kept

    int bins() const { return 1 << bits.depth; }
    int tiles() const { return mode == EqualizeMode::Clahe ? tilesX * tilesY : 1; }
    // True when `other` differs from this plan in values only: clip limit, smoothing strength (smoothing stays on or
    // off: turning it on needs state tables) and tile counts. Mode, sample type, channels, order, colour mode,
    // smoothing target and statistics are the same. What every backend's retune requires besides a tile grid that
    // fits its tables.
    bool sameShape(const EqualizePlan& other) const;
    // Channels the histogram is taken of: 1 (a plane, Y of Y/chroma pairs, or Y in luma mode) or 3 (per-channel mode).
    int equalizedChannels() const { return channels <= 2 || colorMode == ColorMode::Luma ? 1 : 3; }

    // Throws InvalidArgument with a message a user can act on (u8/u16 only; 1, 3 or 4 channels, or 2 u8 channels of
    // which lumaChannel is equalized (YUY2, UYVY, YVYU as pixel pairs); distinct channel indices inside the pixel; clip ≥ 0 and finite; tiles in [1, kMaxTiles]; CLAHE tiles × bins ≤
    // kMaxClaheTableEntries; α in [0, 1); SampleBits other than the full container only for 1 channel, 8 to 16 bits).
    static EqualizePlan make(const EqualizeDesc& desc, SampleType type, int channels, ChannelOrder order = {},
                             SampleBits bits = {}, int lumaChannel = 0);
};

// Checks a src/dst pair against a plan: equal sizes, the plan's type and channels, and for CLAHE tiles ≤ the frame's
// width / height. Throws InvalidArgument.
void validateImages(const EqualizePlan& plan, const ImageView& src, const ImageView& dst);

// Of the equalized input: the plane (1 channel), Y (luma mode) or R, G and B pooled (per-channel mode).
// Values in levels (sample >> SampleBits::shift); histogram bin = level >> (depth − 8) (u16: level >> 8); min, max
// and mean in levels.
struct FrameStatistics {
    std::uint64_t frame = 0;   // index of the frame since the Equalizer was made (process() calls, reset() or not)
    std::uint64_t samples = 0; // samples counted (pixels × equalized channels)
    std::array<std::uint32_t, kStatisticsBins> histogram{};
    double mean = 0;
    std::uint32_t min = 0;
    std::uint32_t max = 0;
};

// One interface, two backends (the tests add their reference, tests/reference). CUDA: src and dst are device memory,
// the work is enqueued on `stream` with no allocation after the first frame of a size, no synchronisation and no host
// round trip (histograms and LUTs stay on the GPU). Successive process() calls may use different streams: each waits
// (cudaStreamWaitEvent) for the previous one, so the temporal state and scratch are used in frame order. CPU: host
// memory, stream ignored.
// src == dst (in place) is allowed.
class Equalizer {
public:
    virtual ~Equalizer() = default;
    virtual void process(const ImageView& src, const ImageView& dst, GpuStream stream = nullptr) = 0;

    // Forgets the temporal state (scene cut, seek): the next frame is equalized as if it were the first.
    virtual void reset() = 0;

    // Takes `plan` in place of the current one when only values change (clip limit, smoothing, tile counts within
    // the grid already allocated): no allocation, no synchronisation, the temporal state kept, and work already
    // enqueued keeps the values it was launched with. Returns false, changing nothing, when the new plan needs a new
    // Equalizer (mode, sample type, channels, statistics, a larger grid).
    // Every backend: the same shape (EqualizePlan::sameShape) and, for CLAHE, tilesX · tilesY at most the tile count
    // of the plan the Equalizer was made with. A CLAHE grid of other dimensions restarts the temporal state (the
    // tile histograms no longer correspond), as reset() does; any other change keeps it.
    virtual bool retune(const EqualizePlan& plan) { (void)plan; return false; }

    // True when process() on a GPU stream only enqueues work a CUDA stream capture records whole (launches by value,
    // copies, the wait for the previous frame and the record for the next as event nodes): the caller may capture
    // frames into a graph and launch it in place of the calls. Every frame must then be enqueued (launched or
    // captured and launched): the equalizer's frame order, temporal state and statistics advance per process() call.
    virtual bool capturable() const { return false; }

    // Number of process() calls so far; the next frame gets this index.
    virtual std::uint64_t frameCount() const = 0;

    // Statistics of frame `frame` (one of the last kStatisticsDepth). CUDA: computed on the GPU during process() and
    // copied to pinned memory on that frame's stream — valid once the caller has synchronised that stream (or an
    // event recorded after process()). CPU backends: valid when process() returns. False when plan().statistics is
    // off or the frame is not (any more) held.
    virtual bool statistics(FrameStatistics& out, std::uint64_t frame) const = 0;
    // The last frame's statistics (same validity rule).
    bool statistics(FrameStatistics& out) const {
        return frameCount() > 0 && statistics(out, frameCount() - 1);
    }

    const EqualizePlan& plan() const { return plan_; }

protected:
    explicit Equalizer(EqualizePlan plan) : plan_(std::move(plan)) {}
    EqualizePlan plan_;
};

std::unique_ptr<Equalizer> makeEqualizer(EqualizePlan plan, Backend backend);
inline std::unique_ptr<Equalizer> makeEqualizer(const EqualizeDesc& desc, SampleType type, int channels,
                                                Backend backend, ChannelOrder order = {}, SampleBits bits = {}) {
    return makeEqualizer(EqualizePlan::make(desc, type, channels, order, bits), backend);
}

// Factories of the individual backends (declared for tests and benchmarks).
std::unique_ptr<Equalizer> makeCpuEqualizer(EqualizePlan plan);
std::unique_ptr<Equalizer> makeCudaEqualizer(EqualizePlan plan);  // throws CudaError without a usable device

const char* equalizeModeName(EqualizeMode mode);   // "global", "clahe"
const char* colorModeName(ColorMode mode);         // "luma", "per-channel"

}  // namespace cudafilters
