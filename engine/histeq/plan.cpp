// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <cmath>
#include <string>

namespace cudafilters {

const char* equalizeModeName(EqualizeMode mode) { return mode == EqualizeMode::Global ? "global" : "clahe"; }
const char* colorModeName(ColorMode mode) { return mode == ColorMode::Luma ? "luma" : "per-channel"; }

EqualizePlan EqualizePlan::make(const EqualizeDesc& desc, SampleType type, int channels, ChannelOrder order,
                                SampleBits bits, int lumaChannel) {
    if (channels < 1 || channels > 4)
        throw InvalidArgument("histogram equalization supports 1 to 4 interleaved channels, not " +
                              std::to_string(channels));
    if (channels == 2 && (type != SampleType::U8 || lumaChannel < 0 || lumaChannel > 1))
        throw InvalidArgument("2-channel (Y/chroma pair) equalization needs u8 samples and the Y channel 0 or 1, got " +
                              std::string(sampleTypeName(type)) + " and channel " + std::to_string(lumaChannel));
    if (!std::isfinite(desc.clipLimit) || desc.clipLimit < 0)
        throw InvalidArgument("clip limit must be a finite number >= 0 (0 = no clipping), got " +
                              std::to_string(desc.clipLimit));
    if (desc.tilesX < 1 || desc.tilesX > kMaxTiles || desc.tilesY < 1 || desc.tilesY > kMaxTiles)
        throw InvalidArgument("CLAHE tile grid must be 1.." + std::to_string(kMaxTiles) + " in each direction, got " +
                              std::to_string(desc.tilesX) + "x" + std::to_string(desc.tilesY));
    if (!(desc.smoothing >= 0.0 && desc.smoothing < 1.0))
        throw InvalidArgument("smoothing must be in [0, 1) (0 = none), got " + std::to_string(desc.smoothing));
    if (channels > 2) {
        const int idx[3] = {order.red, order.green, order.blue};
        for (int i = 0; i < 3; ++i) {
            if (idx[i] < 0 || idx[i] >= channels)
                throw InvalidArgument("channel order: index " + std::to_string(idx[i]) + " is outside a " +
                                      std::to_string(channels) + "-channel pixel");
            for (int j = 0; j < i; ++j)
                if (idx[i] == idx[j])
                    throw InvalidArgument("channel order: red, green and blue must be distinct channels");
        }
    }
    EqualizePlan plan;
    plan.mode = desc.mode;
    plan.clipLimit = desc.clipLimit;
    plan.tilesX = desc.tilesX;
    plan.tilesY = desc.tilesY;
    plan.smoothing = float(desc.smoothing);
    plan.smoothTarget = desc.smoothTarget;
    plan.colorMode = desc.colorMode;
    plan.statistics = desc.statistics;
    plan.type = type;
    plan.bits = resolveBits(type, bits);
    if (!(plan.bits == resolveBits(type, {})) && (channels != 1 || plan.bits.depth < 8))
        throw InvalidArgument("histogram equalization of " + std::to_string(plan.bits.depth) +
                              "-bit samples inside " + sampleTypeName(type) +
                              " needs one channel and at least 8 bits");
    plan.channels = channels;
    plan.order = channels <= 2 ? ChannelOrder{} : order;
    plan.lumaChannel = channels == 2 ? lumaChannel : 0;
    const long long tableEntries = static_cast<long long>(plan.tilesX) * plan.tilesY * plan.bins();
    if (plan.mode == EqualizeMode::Clahe && tableEntries > kMaxClaheTableEntries)
        throw InvalidArgument("CLAHE tile grid " + std::to_string(plan.tilesX) + "x" + std::to_string(plan.tilesY) +
                              " on " + sampleTypeName(type) + " samples needs " + std::to_string(tableEntries) +
                              " histogram entries (" + std::to_string(plan.bins()) + " bins per tile), more than the " +
                              std::to_string(kMaxClaheTableEntries) + " allowed; use at most " +
                              std::to_string(kMaxClaheTableEntries / plan.bins()) + " tiles (e.g. 16x16)");
    return plan;
}

bool EqualizePlan::sameShape(const EqualizePlan& other) const {
    return mode == other.mode && type == other.type && bits == other.bits && channels == other.channels && order.red == other.order.red &&
           order.green == other.order.green && order.blue == other.order.blue && lumaChannel == other.lumaChannel && colorMode == other.colorMode &&
           smoothTarget == other.smoothTarget && statistics == other.statistics &&
           (smoothing > 0.0f) == (other.smoothing > 0.0f);
}

void validateImages(const EqualizePlan& plan, const ImageView& src, const ImageView& dst) {
    validateImage(src, "source");
    validateImage(dst, "destination");
    if (src.width != dst.width || src.height != dst.height)
        throw InvalidArgument("source (" + std::to_string(src.width) + "x" + std::to_string(src.height) +
                              ") and destination (" + std::to_string(dst.width) + "x" + std::to_string(dst.height) +
                              ") differ in size");
    for (const ImageView* v : {&src, &dst}) {
        if (v->type != plan.type || v->channels != plan.channels)
            throw InvalidArgument(std::string(v == &src ? "source" : "destination") + " is " +
                                  std::to_string(v->channels) + "-channel " + sampleTypeName(v->type) +
                                  "; the equalizer was planned for " + std::to_string(plan.channels) + "-channel " +
                                  sampleTypeName(plan.type));
    }
    if (plan.mode == EqualizeMode::Clahe && (plan.tilesX > src.width || plan.tilesY > src.height))
        throw InvalidArgument("CLAHE tile grid " + std::to_string(plan.tilesX) + "x" + std::to_string(plan.tilesY) +
                              " is larger than the " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                              " frame");
}

std::unique_ptr<Equalizer> makeEqualizer(EqualizePlan plan, Backend backend) {
    switch (backend) {
    case Backend::Cuda: return makeCudaEqualizer(std::move(plan));
    case Backend::Cpu: break;
    }
    return makeCpuEqualizer(std::move(plan));
}

}  // namespace cudafilters
