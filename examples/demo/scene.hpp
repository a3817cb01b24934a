// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// A synthetic low-contrast, noisy street-at-dusk scene: what equalization and edge detection are for. The demo
// makes it instead of shipping a video; frame t is the same on every machine.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace demo {

class Scene {
public:
    Scene(int width, int height) : width_(width), height_(height), rng_(2026) {}

    // Writes frame t as RGBA into rows of `pitch` bytes.
    void render(int t, std::uint8_t* data, std::size_t pitch) {
        std::normal_distribution<float> noise(0.f, 5.f);
        const float ballX = width_ * (0.15f + 0.7f * (0.5f + 0.5f * std::sin(t * 0.05f)));
        const float ballY = height_ * 0.62f;
        const float ballR = height_ * 0.07f;
        for (int y = 0; y < height_; ++y) {
            std::uint8_t* row = data + std::size_t(y) * pitch;
            for (int x = 0; x < width_; ++x) {
                float r, g, b;
                shade(x, y, t, r, g, b);
                const float dx = x - ballX, dy = y - ballY;
                if (dx * dx + dy * dy < ballR * ballR) {
                    r += 14;
                    g += 6;
                    b -= 4;
                }
                const float n = noise(rng_);
                row[4 * x + 0] = clamp(r + n);
                row[4 * x + 1] = clamp(g + n);
                row[4 * x + 2] = clamp(b + n);
                row[4 * x + 3] = 255;
            }
        }
    }

private:
    // Everything lives between about 85 and 150: a dim, washed-out picture.
    void shade(int x, int y, int t, float& r, float& g, float& b) const {
        const float u = float(x) / width_, v = float(y) / height_;
        float base = 100 + 25 * (1 - v);  // sky gradient
        // skyline: blocks of different heights with a window grid
        const int block = int(u * 9);
        const float top = 0.25f + 0.3f * std::fabs(std::sin(block * 1.7f));
        if (v > top && v < 0.8f) {
            base = 92 + 6 * (block % 3);
            const float wx = std::fmod(u * 9 * 6, 1.f), wy = std::fmod((v - top) * 30, 1.f);
            if (wx > 0.35f && wx < 0.65f && wy > 0.3f && wy < 0.7f && ((block + int(v * 30)) % 4 != 0))
                base += 12 + 4 * std::sin(t * 0.02f + block);
        }
        if (v >= 0.8f) base = 88 + 20 * (v - 0.8f) + 8 * (std::fmod(u * 12 + t * 0.01f, 1.f) < 0.1f);  // street
        r = base + 4;
        g = base;
        b = base - 3 + 6 * (1 - v);
    }

    static std::uint8_t clamp(float v) { return std::uint8_t(std::min(255.f, std::max(0.f, v + 0.5f))); }

    int width_, height_;
    std::mt19937 rng_;
};

}  // namespace demo
