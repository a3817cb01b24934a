// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The latency a filter adds: how long each of the recent frames took from submit to push. The LATENCY query answers
// the largest of them (never less than kLatencyFloor), so a live sink's deadline covers the slowest recent frame; a
// frame's first use of a slot after configuration allocates and is left out.
#include <gst/gst.h>

#include <algorithm>
#include <array>

namespace gstcudafilters {

// What the LATENCY query answers before a frame was measured (and at least afterwards): a frame of the small sizes
// a camera sends takes longer than this on either backend only when the machine is loaded.
constexpr GstClockTime kLatencyFloor = GST_MSECOND;

class LatencyWindow {
public:
    void add(GstClockTime took) {
        samples_[next_++ % samples_.size()] = took;
        count_ = std::min<std::size_t>(count_ + 1, samples_.size());
    }
    GstClockTime max() const {
        GstClockTime m = 0;
        for (std::size_t i = 0; i < count_; ++i) m = std::max(m, samples_[i]);
        return m;
    }

private:
    std::array<GstClockTime, 32> samples_{};
    std::size_t next_ = 0, count_ = 0;
};

}  // namespace gstcudafilters
