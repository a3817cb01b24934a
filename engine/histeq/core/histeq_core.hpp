// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The integer core of histogram equalization that every backend shares
// (LUT formulas, CLAHE geometry, colour conversion, temporal smoothing), so that all three agree bit for bit.
#include <cudafilters/histeq.hpp>

#include <cstdint>
#include <vector>

namespace cudafilters::core {

// cv::borderInterpolate(p, len, BORDER_REFLECT_101), including borders wider than the image.
int reflect101(int p, int len);

// BT.601 YCrCb as cv::cvtColor computes it for integer samples (14-bit fixed point; half = 128 or 32768).
struct YCrCb { int y, cr, cb; };
YCrCb rgbToYCrCb(int r, int g, int b, int maxValue);
void yCrCbToRgb(int y, int cr, int cb, int maxValue, int& r, int& g, int& b);  // saturated to [0, maxValue]

// cv::equalizeHist's LUT for a histogram of `bins` levels (output scaled to bins − 1); a histogram with a single
// occupied level maps everything to that level. An empty histogram gives the identity.
void equalizeLut(const std::uint32_t* hist, int bins, std::uint16_t* lut);

// CLAHE geometry as cv::createCLAHE derives it: when the frame is not divisible by the grid, OpenCV pads *both*
// directions (right by tilesX − width % tilesX, bottom by tilesY − height % tilesY) with BORDER_REFLECT_101.
struct ClaheGrid {
    int tilesX = 1, tilesY = 1;
    int tileWidth = 0, tileHeight = 0;
    bool padded = false;
    int clipLimit = 0;     // per bin, 0 = none
    float lutScale = 0;    // (bins − 1) / tile area
};
ClaheGrid claheGrid(int width, int height, int tilesX, int tilesY, int bins, double clipLimit);

// Clip, redistribute (batch then residual step) and accumulate exactly as OpenCV; `hist` is modified.
void claheLut(std::uint32_t* hist, int bins, const ClaheGrid& grid, std::uint16_t* lut);

// Bilinear blend of the four tile LUTs around (x, y) with OpenCV's float arithmetic (no fused multiply-add).
// `luts` holds tilesY × tilesX LUTs of `bins` entries.
int claheInterpolate(const std::uint16_t* luts, int bins, const ClaheGrid& grid, int x, int y, int value);

// Temporal smoothing in 16.16 fixed point (so that every backend computes the same bits):
//   state = (a · state + (65536 − a) · (x << 16) + 32768) >> 16,  a = round(α · 65536);  used value = round(state).
// The first frame after a reset loads x. A static input converges to exactly x.
std::uint32_t smoothingFactor(float alpha);
void smoothHistogram(std::uint64_t* state, std::uint32_t* hist, int n, std::uint32_t a, bool first);  // hist ← used
void smoothLut(std::uint32_t* state, std::uint16_t* lut, int n, std::uint32_t a, bool first);         // lut ← used

// Statistics of K planes of `count` samples each (values < bins).
void planeStatistics(const std::vector<std::vector<std::uint16_t>>& planes, int bins, FrameStatistics& out);

// The whole algorithm on planes: `planes` (K planes, width × height, values < bins) are equalized in place.
// `state` holds the temporal state between calls (resized as needed); `valid = false` forgets it. `scratch` keeps the
// per-frame histograms and LUTs between calls so that a stream of frames allocates them once (16-bit CLAHE: tiles ×
// 65 536 entries).
struct SmoothingState {
    std::vector<std::uint64_t> hist;
    std::vector<std::uint32_t> lut;
    bool valid = false;
};
struct FrameScratch {
    std::vector<std::uint32_t> hist;
    std::vector<std::uint16_t> luts;
};
void equalizePlanes(const EqualizePlan& plan, int width, int height, std::vector<std::vector<std::uint16_t>>& planes,
                    SmoothingState& state, FrameScratch& scratch);

// Splits a frame into the planes that are equalized (1 plane, Y, or R, G, B) and rebuilds the frame from them.
void extractPlanes(const EqualizePlan& plan, const ImageView& src, std::vector<std::vector<std::uint16_t>>& planes);
void rebuildFrame(const EqualizePlan& plan, const ImageView& src, const std::vector<std::vector<std::uint16_t>>& planes,
                  const ImageView& dst);

// What Equalizer::retune does with `next` in place of `current` for an equalizer whose tables hold `tileCapacity`
// tiles: refuse it, take it keeping the temporal state, or take it restarting the state (a CLAHE grid of other
// dimensions).
enum class Retune { Refused, KeepState, ResetState };
Retune retuneKind(const EqualizePlan& current, const EqualizePlan& next, int tileCapacity);

// True when an equalizer that has processed `frames` frames still holds the statistics of frame `frame` (the plan
// computes them, the frame was processed, and it is one of the last kStatisticsDepth).
inline bool statisticsHeld(const EqualizePlan& plan, std::uint64_t frames, std::uint64_t frame) {
    return plan.statistics && frame < frames && frames - frame <= std::uint64_t(kStatisticsDepth);
}

}  // namespace cudafilters::core
