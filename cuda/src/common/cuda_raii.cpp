// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/cuda_raii.hpp>

#include <atomic>

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

void DeviceBuffer::reserve(std::size_t bytes) {
    if (bytes <= size_) return;
    release();
    CUDAFILTERS_CHECK(cudaMalloc(&ptr_, bytes));
    size_ = bytes;
}

void DeviceBuffer::release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
}

namespace {
std::atomic<std::size_t> pinnedBytes{0};
}  // namespace

std::size_t pinnedHostBytes() noexcept { return pinnedBytes.load(std::memory_order_relaxed); }
void trackPinnedHostBytes(std::ptrdiff_t delta) noexcept {
    pinnedBytes.fetch_add(std::size_t(delta), std::memory_order_relaxed);
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
    CUDAFILTERS_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable));
    size_ = bytes;
    trackPinnedHostBytes(std::ptrdiff_t(bytes));
}

void PinnedBuffer::release() noexcept {
    if (ptr_) {
        cudaFreeHost(ptr_);
        trackPinnedHostBytes(-std::ptrdiff_t(size_));
    }
    ptr_ = nullptr;
    size_ = 0;
}

}  // namespace cudafilters
