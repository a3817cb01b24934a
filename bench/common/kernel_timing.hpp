// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Kernel timing shared by the kernel benchmarks. medianKernelMicros gives two figures, each the median over `runs`
// launches rotating over `frames` inputs (after `warmups` launches):
//  - gpu: a 256 MB device memset is queued ahead of the start event, so the GPU is still busy when the host enqueues
//    start, the launch and stop: the interval is the work's own time on the GPU (the memset also flushes the L2, so
//    no frame is timed from cache);
//  - launch: start recorded on an idle GPU, launch, stop: the host's launch latency is included.
#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace benchcommon {

struct KernelTiming {
    double gpu = -1;
    double launch = -1;
};

// Median over `runs` launches rotating over `frames` inputs, start and stop events around each; busy: a 256 MB device
// memset queued ahead of the start event (see above).
inline double medianEventMicros(const std::function<void(int frame)>& launch, int frames, int runs, bool busy,
                                cudaStream_t s) {
    using namespace cudafilters;
    Event start = Event::create(true), stop = Event::create(true);
    std::vector<float> times;
    for (int i = 0; i < runs; ++i) {
        if (busy) {
            static DeviceBuffer flush(256u << 20);
            CUDAFILTERS_CHECK(cudaMemsetAsync(flush.data(), i & 0xFF, flush.size(), s));
        }
        CUDAFILTERS_CHECK(cudaEventRecord(start.get(), s));
        launch(i % frames);
        CUDAFILTERS_CHECK(cudaEventRecord(stop.get(), s));
        CUDAFILTERS_CHECK(cudaEventSynchronize(stop.get()));
        float ms = 0;
        CUDAFILTERS_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        times.push_back(ms * 1000.f);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

inline KernelTiming medianKernelMicros(const std::function<void(int frame)>& launch, int frames, int runs,
                                       int warmups, cudaStream_t s) {
    for (int i = 0; i < warmups; ++i) launch(i % frames);
    CUDAFILTERS_CHECK(cudaStreamSynchronize(s));
    KernelTiming t;
    t.gpu = medianEventMicros(launch, frames, runs, true, s);
    t.launch = medianEventMicros(launch, frames, runs, false, s);
    return t;
}

}  // namespace benchcommon
