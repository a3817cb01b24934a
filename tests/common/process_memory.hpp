// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// What a process holds, for the soak and the many-stream benchmark: a /proc/self/status figure, the host memory the
// plugin keeps page-locked and the device memory in use.
#include <gst/gst.h>

#ifdef CUDAFILTERS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace cudafilters::test {

// A kB figure of /proc/self/status, e.g. statusKiB("VmRSS:").
inline long statusKiB(const char* key) {
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(status, line))
        if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
    return 0;
}

// The plugin's page-locked host memory (its allocator's "pinned-bytes"); -1 without a CUDA build of the plugin.
inline long pinnedKiB() {
    GstAllocator* allocator = gst_allocator_find("CudaFiltersPinnedMemory");  // registered by a CUDA build's plugin
    if (!allocator) return -1;
    guint64 bytes = 0;
    g_object_get(allocator, "pinned-bytes", &bytes, nullptr);
    gst_object_unref(allocator);
    return long(bytes >> 10);
}

// Device memory in use on the current device; -1 without CUDA or a device.
inline long deviceUsedMiB() {
#ifdef CUDAFILTERS_HAVE_CUDA
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        std::size_t free = 0, total = 0;
        if (cudaMemGetInfo(&free, &total) == cudaSuccess) return long((total - free) >> 20);
    }
#endif
    return -1;
}

}  // namespace cudafilters::test
