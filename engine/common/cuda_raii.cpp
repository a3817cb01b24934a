// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/cuda_raii.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>
#include <mutex>

namespace cudafilters {

void checkCuda(cudaError_t status, const char* call) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    throw CudaError(call, int(status), cudaGetErrorName(status), cudaGetErrorString(status));
}

int currentDevice() {
    int device = 0;
    CUDAFILTERS_CHECK(cudaGetDevice(&device));
    return device;
}

int currentDeviceMultiprocessors() {
    int count = 0;
    CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, currentDevice()));
    return count;
}

void allowDynamicSharedMemory(const void* kernel, std::size_t bytes) {
    static std::mutex mutex;
    static std::map<std::pair<const void*, int>, std::size_t> allowed;
    const std::pair<const void*, int> key{kernel, currentDevice()};
    std::lock_guard<std::mutex> lock(mutex);
    auto found = allowed.find(key);
    if (found == allowed.end()) {
        // Without the attribute a kernel may take 48 KB of shared memory in all: less its static shared memory.
        cudaFuncAttributes attributes{};
        CUDAFILTERS_CHECK(cudaFuncGetAttributes(&attributes, kernel));
        found = allowed.emplace(key, std::size_t(std::max(attributes.maxDynamicSharedSizeBytes, 0))).first;
    }
    if (found->second >= bytes) return;
    CUDAFILTERS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    found->second = bytes;
}

int residentBlocksPerSm(const void* kernel, int threads, std::size_t bytes) {
    static std::mutex mutex;
    static std::map<std::tuple<const void*, int, int, std::size_t>, int> known;
    const std::tuple<const void*, int, int, std::size_t> key{kernel, currentDevice(), threads, bytes};
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = known.find(key);
    if (found != known.end()) return found->second;
    int blocks = 0;
    CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, bytes));
    return known[key] = std::max(blocks, 1);
}

ScopedDevice::ScopedDevice(int device) : previous_(currentDevice()) {
    if (previous_ == device) return;
    CUDAFILTERS_CHECK(cudaSetDevice(device));
    switched_ = true;
}

ScopedDevice::~ScopedDevice() {
    if (switched_ && cudaSetDevice(previous_) != cudaSuccess) cudaGetLastError();
}

Stream Stream::create() {
    cudaStream_t s = nullptr;
    CUDAFILTERS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return Stream(s);
}

Event Event::create(bool timing) {
    cudaEvent_t e = nullptr;
    CUDAFILTERS_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    return Event(e);
}

namespace {

bool memoryPoolsSupported() {
    int supported = 0;
    CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, currentDevice()));
    return supported != 0;
}

}  // namespace

void DeviceBuffer::reserve(std::size_t bytes, cudaStream_t stream) {
    if (bytes <= size_) return;
    release();
    if (stream && memoryPoolsSupported()) {
        CUDAFILTERS_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
        stream_ = stream;
        size_ = bytes;
        CUDAFILTERS_CHECK(cudaStreamSynchronize(stream));  // usable from any stream on return
        return;
    }
    CUDAFILTERS_CHECK(cudaMalloc(&ptr_, bytes));
    size_ = bytes;
}

void DeviceBuffer::release() noexcept {
    if (ptr_ && stream_) {
        if (cudaFreeAsync(ptr_, stream_) != cudaSuccess) cudaGetLastError();
    } else if (ptr_ && cudaFree(ptr_) != cudaSuccess) {
        cudaGetLastError();
    }
    ptr_ = nullptr;
    size_ = 0;
    stream_ = nullptr;
}

void LastUse::record(cudaStream_t stream) {
    auto use = std::find_if(uses_.begin(), uses_.end(), [&](const Use& u) { return u.stream == stream; });
    if (use == uses_.end()) {
        uses_.push_back({stream, Event::create(false)});
        use = uses_.end() - 1;
    }
    CUDAFILTERS_CHECK(cudaEventRecord(use->event.get(), stream));
}

void LastUse::wait() noexcept {
    for (const Use& use : uses_)
        if (cudaEventSynchronize(use.event.get()) != cudaSuccess) cudaGetLastError();
}

namespace {
std::atomic<std::size_t> pinnedBytes{0};

// Released small pinned blocks, reused by size (cudaFreeHost would wait for the device).
struct RecycledPinned {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> blocks;

    void* take(std::size_t bytes) {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = std::find_if(blocks.begin(), blocks.end(), [&](const auto& b) { return b.second == bytes; });
        if (it == blocks.end()) return nullptr;
        void* ptr = it->first;
        blocks.erase(it);
        return ptr;
    }
    bool keep(void* ptr, std::size_t bytes) {
        if (bytes > kRecycledPinnedBytes) return false;
        std::lock_guard<std::mutex> lock(mutex);
        if (blocks.size() >= kRecycledPinnedBlocks) return false;
        blocks.emplace_back(ptr, bytes);
        return true;
    }
};

// Never destroyed: blocks kept at exit go with the process, as the CUDA runtime's own allocations do.
RecycledPinned& recycledPinned() {
    static auto* recycled = new RecycledPinned;
    return *recycled;
}
}  // namespace

std::size_t pinnedHostBytes() noexcept { return pinnedBytes.load(std::memory_order_relaxed); }
void trackPinnedHostBytes(std::ptrdiff_t delta) noexcept {
    pinnedBytes.fetch_add(std::size_t(delta), std::memory_order_relaxed);
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
    ptr_ = recycledPinned().take(bytes);
    if (!ptr_) CUDAFILTERS_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable));
    size_ = bytes;
    trackPinnedHostBytes(std::ptrdiff_t(bytes));
}

void PinnedBuffer::release() noexcept {
    if (ptr_) {
        if (!recycledPinned().keep(ptr_, size_) && cudaFreeHost(ptr_) != cudaSuccess) cudaGetLastError();
        trackPinnedHostBytes(-std::ptrdiff_t(size_));
    }
    ptr_ = nullptr;
    size_ = 0;
}

}  // namespace cudafilters
