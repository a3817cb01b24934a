// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend of the frame pipeline. Work whose slots may run at once (FilterWork::slotsConcurrent) is filtered
// on worker threads (one per slot, as many as the cores allow), so that the frames in flight are filtered side by
// side as the CUDA executor's streams do; other work (state carried from frame to frame) is filtered when submitted.
#include "executors/frameexecutor.h"

#include <cudafilters/error.hpp>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gstcudafilters {
namespace {

// What filtering one frame on the host needs besides the frame: its layouts and aligned copies for odd strides.
class HostFilter {
public:
    void configure(const std::vector<PlaneLayout>& inPlanes, const std::vector<PlaneLayout>& outPlanes) {
        inPlanes_ = inPlanes;
        outPlanes_ = outPlanes;
        sameLayout_ = sameLayout(inPlanes, outPlanes);
    }

    void run(FrameInFlight& frame) {
        const std::vector<ImageView> src = frameViews(inPlanes_, frame.inFrame);
        const std::vector<ImageView> dst = frameViews(outPlanes_, frame.outFrame);
        alignViews(src, inScratch_, true, alignedSrc_);
        alignViews(dst, outScratch_, false, alignedDst_);
        frame.work->process(frame.slot, alignedSrc_, alignedDst_, nullptr);
        for (std::size_t p = 0; p < dst.size(); ++p)
            if (alignedDst_[p].data != dst[p].data && frame.work->writesPlane(int(p))) copyPlane(alignedDst_[p], dst[p]);
        for (std::size_t p = 0; p < outPlanes_.size(); ++p) {
            if (frame.work->writesPlane(int(p))) continue;
            if (!sameLayout_)
                throw cudafilters::InvalidArgument("output plane " + std::to_string(p) +
                                                   " is not written and the input has another layout");
            copyPlane(src[p], dst[p]);
        }
    }

private:
    // The engine reads whole samples: a plane whose start or stride is off the sample size (a 16-bit format with an
    // odd stride in its GstVideoMeta) goes through an aligned copy, kept between frames.
    static void alignViews(const std::vector<ImageView>& views, std::vector<std::vector<std::uint8_t>>& scratch,
                           bool copyIn, std::vector<ImageView>& out) {
        out = views;
        scratch.resize(views.size());
        for (std::size_t p = 0; p < views.size(); ++p) {
            if (cudafilters::sampleAligned(views[p])) continue;
            scratch[p].resize(views[p].rowBytes() * std::size_t(views[p].height));
            out[p].data = scratch[p].data();
            out[p].pitch = views[p].rowBytes();
            if (copyIn) copyPlane(views[p], out[p]);
        }
    }

    std::vector<PlaneLayout> inPlanes_, outPlanes_;
    std::vector<std::vector<std::uint8_t>> inScratch_, outScratch_;
    std::vector<ImageView> alignedSrc_, alignedDst_;  // the views handed to the engine (kept: no allocation per frame)
    bool sameLayout_ = true;
};

// A thread that filters the frames given to it, one at a time, in the order they were submitted.
class Worker {
public:
    Worker() : thread_([this] { loop(); }) {}
    ~Worker() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }

    void start(HostFilter& filter, FrameInFlight& frame) {
        std::lock_guard<std::mutex> lock(mutex_);
        jobs_.push_back({&filter, &frame, nullptr, false});
        changed_.notify_all();
    }

    // Waits for `frame`'s job and forgets it; rethrows what filtering it threw.
    void finish(const FrameInFlight& frame) {
        std::unique_lock<std::mutex> lock(mutex_);
        auto job = [&] {
            return std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.frame == &frame; });
        };
        changed_.wait(lock, [&] { return job() == jobs_.end() || job()->done; });
        if (job() == jobs_.end()) return;
        const std::exception_ptr failure = job()->failure;
        jobs_.erase(job());
        if (failure) std::rethrow_exception(failure);
    }

    bool finished(const FrameInFlight& frame) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Job& j : jobs_)
            if (j.frame == &frame) return j.done;
        return true;
    }

    // Waits for every job and forgets them all (their frames are dropped or redone).
    void drain() noexcept {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return std::all_of(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.done; }); });
        jobs_.clear();
    }

private:
    struct Job {
        HostFilter* filter;
        FrameInFlight* frame;  // in the element's queue, which keeps it in place until finish() or drain()
        std::exception_ptr failure;
        bool done;
    };

    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            auto next = std::find_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return !j.done; });
            if (next == jobs_.end()) {
                if (quit_) return;
                changed_.wait(lock);
                continue;
            }
            HostFilter* filter = next->filter;
            FrameInFlight* frame = next->frame;
            lock.unlock();
            std::exception_ptr failure;
            try {
                filter->run(*frame);
            } catch (...) {
                failure = std::current_exception();
            }
            lock.lock();
            for (Job& j : jobs_)
                if (j.frame == frame && !j.done) {
                    j.failure = failure;
                    j.done = true;
                    break;
                }
            changed_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Job> jobs_;  // in submit order
    bool quit_ = false;
    std::thread thread_;     // last: started once the members it uses exist
};

class CpuExecutor final : public FrameExecutor {
public:
    Backend backend() const override { return Backend::Cpu; }

    void configure(const GstVideoInfo&, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo&,
                   const std::vector<PlaneLayout>& outPlanes, int slots) override {
        synchronize();
        filters_.assign(std::size_t(std::max(slots, 1)), HostFilter());
        for (HostFilter& filter : filters_) filter.configure(inPlanes, outPlanes);
        // One frame in flight has nothing to overlap with: it is filtered when submitted, without a thread hop.
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const std::size_t threads = slots > 1 ? std::min<std::size_t>(std::size_t(slots), cores) : 0;
        if (workers_.size() != threads) {
            workers_.clear();
            for (std::size_t t = 0; t < threads; ++t) workers_.push_back(std::make_unique<Worker>());
        }
    }

    void submit(FrameInFlight& frame) override {
        HostFilter& filter = filters_.at(std::size_t(frame.slot));
        if (workers_.empty() || !frame.work->slotsConcurrent()) {
            filter.run(frame);
            return;
        }
        workerOf(frame).start(filter, frame);
    }

    bool ready(const FrameInFlight& frame) override { return workers_.empty() || workerOf(frame).finished(frame); }
    void complete(FrameInFlight& frame) override {
        if (!workers_.empty()) workerOf(frame).finish(frame);
    }
    void synchronize() noexcept override {
        for (auto& worker : workers_) worker->drain();
    }

private:
    Worker& workerOf(const FrameInFlight& frame) { return *workers_[std::size_t(frame.slot) % workers_.size()]; }

    std::vector<HostFilter> filters_;  // per slot
    std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace

std::unique_ptr<FrameExecutor> makeCpuExecutor() { return std::make_unique<CpuExecutor>(); }

}  // namespace gstcudafilters
