// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/planelayout.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include <cstring>

namespace gstcudafilters {

std::vector<PlaneLayout> planeLayouts(const GstVideoInfo& info) {
    const GstVideoFormatInfo* finfo = info.finfo;
    std::vector<PlaneLayout> planes(GST_VIDEO_INFO_N_PLANES(&info));
    for (std::size_t p = 0; p < planes.size(); ++p) planes[p].plane = int(p);

    for (guint comp = 0; comp < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++comp) {
        PlaneLayout& plane = planes[GST_VIDEO_FORMAT_INFO_PLANE(finfo, comp)];
        const int depth = GST_VIDEO_FORMAT_INFO_DEPTH(finfo, comp);
        const int sampleBytes = depth > 8 ? 2 : 1;
        plane.type = depth > 8 ? SampleType::U16 : SampleType::U8;
        plane.bits = {depth, int(GST_VIDEO_FORMAT_INFO_SHIFT(finfo, comp))};
        plane.width = GST_VIDEO_INFO_COMP_WIDTH(&info, comp);
        plane.height = GST_VIDEO_INFO_COMP_HEIGHT(&info, comp);
        plane.channels = GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, comp) / sampleBytes;
        plane.rowBytes = std::size_t(plane.width) * plane.channels * sampleBytes;
        plane.yuv = GST_VIDEO_FORMAT_INFO_IS_YUV(finfo);
        plane.rgb = GST_VIDEO_FORMAT_INFO_IS_RGB(finfo);
        // Offsets are in bytes, except where GStreamer 1.22 counts them in samples: P010_10LE's and P016_LE's V has
        // offset 1 in a 4-byte UV pair, i.e. the second 16-bit sample.
        const int offset = int(GST_VIDEO_FORMAT_INFO_POFFSET(finfo, comp));
        const int channel = offset % sampleBytes ? offset : offset / sampleBytes;
        plane.componentChannel[comp] = channel;
        // Packed 4:2:2: Y every 2 bytes, U and V (the components after it, in the same plane) every 4.
        const bool pairedLuma = comp == 0 && GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo) > 1 &&
                                GST_VIDEO_FORMAT_INFO_PLANE(finfo, 1) == GST_VIDEO_FORMAT_INFO_PLANE(finfo, 0) &&
                                GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, 1) == 2 * GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, 0);
        if (pairedLuma) {
            plane.pairsWidth = plane.width;
            plane.pairsLumaChannel = channel;
            plane.colorMask |= 1u << (channel + 2);  // Y1 of the macropixel
        }
        const bool alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA(finfo) && comp == GST_VIDEO_COMP_A;
        if (!alpha) plane.colorMask |= 1u << channel;
        if (comp == 0 && !plane.rgb) plane.luma = true;
    }
    return planes;
}

std::string layoutProblem(const GstVideoInfo& info, const std::vector<PlaneLayout>& planes) {
    for (const PlaneLayout& plane : planes)
        if (plane.packed422() && plane.pairsWidth % 2 != 0)
            return std::string(GST_VIDEO_INFO_NAME(&info)) + " frames of odd width (" + std::to_string(plane.pairsWidth) +
                   ") are not supported: packed 4:2:2 carries chroma for pairs of pixels; use an even width";
    return {};
}

ImageView lumaPairs(const ImageView& plane, const PlaneLayout& layout) {
    ImageView pairs = plane;
    pairs.width = layout.pairsWidth;
    pairs.channels = 2;
    return pairs;
}

bool sameLayout(const std::vector<PlaneLayout>& a, const std::vector<PlaneLayout>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t p = 0; p < a.size(); ++p)
        if (a[p].width != b[p].width || a[p].height != b[p].height || a[p].channels != b[p].channels ||
            a[p].type != b[p].type)
            return false;
    return true;
}

std::vector<ImageView> frameViews(const std::vector<PlaneLayout>& planes, const GstVideoFrame& frame) {
    std::vector<ImageView> views(planes.size());
    for (std::size_t p = 0; p < planes.size(); ++p) {
        ImageView& v = views[p];
        v.data = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
        v.width = planes[p].width;
        v.height = planes[p].height;
        v.pitch = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
        v.type = planes[p].type;
        v.channels = planes[p].channels;
    }
    return views;
}

std::vector<ImageView> bufferViews(const std::vector<PlaneLayout>& planes, void* base,
                                   const std::vector<std::size_t>& offsets, const std::vector<std::size_t>& pitches) {
    std::vector<ImageView> views(planes.size());
    for (std::size_t p = 0; p < planes.size(); ++p) {
        ImageView& v = views[p];
        v.data = static_cast<std::uint8_t*>(base) + offsets[p];
        v.width = planes[p].width;
        v.height = planes[p].height;
        v.pitch = pitches[p];
        v.type = planes[p].type;
        v.channels = planes[p].channels;
    }
    return views;
}

void copyPlane(const ImageView& src, const ImageView& dst) {
    if (src.data == dst.data) return;
    const std::size_t bytes = src.rowBytes();
    if (src.pitch == dst.pitch && src.pitch == bytes) {
        std::memcpy(dst.data, src.data, bytes * std::size_t(src.height));
        return;
    }
    for (int y = 0; y < src.height; ++y) std::memcpy(dst.row<std::uint8_t>(y), src.row<const std::uint8_t>(y), bytes);
}

namespace {

// Helper threads for large host copies, started once for the process (never per frame) and shared by all elements: a
// call queues its bands, copies one itself and waits for the others.
class CopyWorkers {
public:
    static CopyWorkers& instance() {
        static CopyWorkers* workers = new CopyWorkers();  // never destroyed: its threads outlive static destruction
        return *workers;
    }
    int helpers() const { return int(threads_.size()); }

    void run(int bands, const std::function<void(int)>& band) {
        struct Pending {
            std::mutex lock;
            std::condition_variable done;
            int left;
        } pending;
        pending.left = bands - 1;
        {
            std::lock_guard<std::mutex> guard(lock_);
            for (int k = 1; k < bands; ++k)
                tasks_.push_back([&band, &pending, k] {
                    band(k);
                    std::lock_guard<std::mutex> g(pending.lock);
                    if (--pending.left == 0) pending.done.notify_one();
                });
        }
        wake_.notify_all();
        band(0);
        std::unique_lock<std::mutex> wait(pending.lock);
        pending.done.wait(wait, [&pending] { return pending.left == 0; });
    }

private:
    CopyWorkers() {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned k = 0; k + 1 < std::min(cores / 2, 4u); ++k) threads_.emplace_back([this] { work(); });
    }
    [[noreturn]] void work() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> wait(lock_);
                wake_.wait(wait, [this] { return !tasks_.empty(); });
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    std::mutex lock_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> threads_;
};

}  // namespace

void copyPlaneParallel(const ImageView& src, const ImageView& dst) {
    constexpr std::size_t kBytesPerBand = std::size_t(4) << 20;  // below this a band costs more than it saves
    const std::size_t total = src.rowBytes() * std::size_t(src.height);
    CopyWorkers& workers = CopyWorkers::instance();
    const int bands = int(std::min<std::size_t>(total / kBytesPerBand, std::size_t(workers.helpers()) + 1));
    if (bands < 2 || src.data == dst.data) {
        copyPlane(src, dst);
        return;
    }
    workers.run(bands, [&](int k) {  // rows [k·h/n, (k+1)·h/n)
        const int y0 = int(std::int64_t(src.height) * k / bands), y1 = int(std::int64_t(src.height) * (k + 1) / bands);
        ImageView s = src, d = dst;
        s.data = const_cast<void*>(static_cast<const void*>(src.row<const std::uint8_t>(y0)));
        d.data = dst.row<std::uint8_t>(y0);
        s.height = d.height = y1 - y0;
        copyPlane(s, d);
    });
}

}  // namespace gstcudafilters
