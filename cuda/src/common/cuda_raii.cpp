#include <cudafilters/cuda_raii.hpp>

namespace cudafilters {

void checkCuda(cudaError_t status, const char* call) {
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    throw CudaError(call, int(status), cudaGetErrorName(status), cudaGetErrorString(status));
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

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
    CUDAFILTERS_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable));
    size_ = bytes;
}

void PinnedBuffer::release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    size_ = 0;
}

}  // namespace cudafilters
