// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Host images for tests: pitched with poisoned padding, random content, sample-wise comparison.
#include <cudafilters/image.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace cudafilters::test {

constexpr std::uint8_t kPoison = 0xA5;

class HostImage {
public:
    HostImage() = default;
    // extraPitch: bytes of padding after each row, filled with kPoison and expected to stay untouched.
    HostImage(int width, int height, int channels, SampleType type, std::size_t extraPitch = 13)
        : width_(width), height_(height), channels_(channels), type_(type) {
        // Padding rounded to whole samples, as video rows are.
        const std::size_t unit = sampleSize(type);
        pitch_ = std::size_t(width) * channels * unit + (extraPitch + unit - 1) / unit * unit;
        storage_.assign(pitch_ * std::max(height, 0) + 64, kPoison);
    }

    ImageView view() {
        ImageView v;
        v.data = storage_.data();
        v.width = width_;
        v.height = height_;
        v.pitch = pitch_;
        v.type = type_;
        v.channels = channels_;
        return v;
    }
    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }
    SampleType type() const { return type_; }
    std::size_t pitch() const { return pitch_; }
    std::size_t rowBytes() const { return std::size_t(width_) * channels_ * sampleSize(type_); }
    std::uint8_t* bytes() { return storage_.data(); }
    const std::uint8_t* bytes() const { return storage_.data(); }

    int maxValue() const { return type_ == SampleType::U8 ? 255 : 65535; }

    double sample(int x, int y, int c) const {
        const std::uint8_t* row = storage_.data() + std::size_t(y) * pitch_;
        const std::size_t i = std::size_t(x) * channels_ + c;
        if (type_ == SampleType::U8) return row[i];
        if (type_ == SampleType::U16) {
            std::uint16_t v;
            std::memcpy(&v, row + 2 * i, 2);
            return v;
        }
        float f;
        std::memcpy(&f, row + 4 * i, 4);
        return f;
    }
    void setSample(int x, int y, int c, double value) {
        std::uint8_t* row = storage_.data() + std::size_t(y) * pitch_;
        const std::size_t i = std::size_t(x) * channels_ + c;
        if (type_ == SampleType::U8) row[i] = static_cast<std::uint8_t>(value);
        else if (type_ == SampleType::U16) {
            const std::uint16_t v = static_cast<std::uint16_t>(value);
            std::memcpy(row + 2 * i, &v, 2);
        } else {
            const float f = static_cast<float>(value);
            std::memcpy(row + 4 * i, &f, 4);
        }
    }

    void fillRandom(std::uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> dist(0, maxValue());
        for (int y = 0; y < height_; ++y)
            for (int x = 0; x < width_; ++x)
                for (int c = 0; c < channels_; ++c) setSample(x, y, c, dist(rng));
    }
    // Fills rows (not padding) with a value, to poison an output before a run.
    void fillRows(std::uint8_t byte) {
        for (int y = 0; y < height_; ++y) std::memset(storage_.data() + std::size_t(y) * pitch_, byte, rowBytes());
    }

    // True when every byte after each row (and after the last row) still holds kPoison.
    bool paddingIntact() const {
        for (int y = 0; y < height_; ++y)
            for (std::size_t b = rowBytes(); b < pitch_; ++b)
                if (storage_[std::size_t(y) * pitch_ + b] != kPoison) return false;
        for (std::size_t b = pitch_ * height_; b < storage_.size(); ++b)
            if (storage_[b] != kPoison) return false;
        return true;
    }

private:
    int width_ = 0, height_ = 0, channels_ = 1;
    SampleType type_ = SampleType::U8;
    std::size_t pitch_ = 0;
    std::vector<std::uint8_t> storage_;
};

struct Difference {
    double maxAbs = 0;
    long differing = 0;
    int x = -1, y = -1, c = -1;  // first position of the largest difference
};

inline Difference compareImages(const HostImage& a, const HostImage& b) {
    Difference d;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            for (int c = 0; c < a.channels(); ++c) {
                const double diff = std::abs(a.sample(x, y, c) - b.sample(x, y, c));
                if (diff > 0) ++d.differing;
                if (diff > d.maxAbs) {
                    d.maxAbs = diff;
                    d.x = x;
                    d.y = y;
                    d.c = c;
                }
            }
    return d;
}

inline std::string describe(const Difference& d) {
    return "max |diff| " + std::to_string(d.maxAbs) + " at (" + std::to_string(d.x) + "," + std::to_string(d.y) +
           ") channel " + std::to_string(d.c) + ", " + std::to_string(d.differing) + " samples differ";
}

}  // namespace cudafilters::test
