// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Move-only owners of CUDA runtime objects, and the device guard. Include only from code built with the CUDA toolkit.
//
// Device affinity: a Stream, Event, DeviceBuffer or PinnedBuffer belongs to the device (context) that was current
// when it was made, and its destructor calls cudaStreamDestroy / cudaEventDestroy / cudaFree(Async) / cudaFreeHost on
// whatever device is current on the destroying thread. Making that the owner's device is the caller's job: an
// object holding these (CudaConvolver, CudaEqualizer) keeps its device and holds a ScopedDevice wherever it
// creates, uses or releases them, destructor included.
#include <cudafilters/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace cudafilters {

// Throws CudaError naming `call` when `status` is not cudaSuccess.
void checkCuda(cudaError_t status, const char* call);
#define CUDAFILTERS_CHECK(expr) ::cudafilters::checkCuda((expr), #expr)
// After a kernel launch: reports launch-configuration errors without synchronising.
#define CUDAFILTERS_CHECK_LAUNCH(name) ::cudafilters::checkCuda(cudaGetLastError(), name)

// The current device of the calling thread (cudaGetDevice), checked.
int currentDevice();
// Its multiprocessor count (kernels size their grids by it), checked.
int currentDeviceMultiprocessors();
// Lets `kernel` (a __global__ function) launch with `bytes` of dynamic shared memory on the current device: above what
// it may take by default (48 KB less its static shared memory), raises its cudaFuncAttributeMaxDynamicSharedMemorySize,
// once per kernel and device (checked).
void allowDynamicSharedMemory(const void* kernel, std::size_t bytes);
template <typename... Args> void allowDynamicSharedMemory(void (*kernel)(Args...), std::size_t bytes) {
    allowDynamicSharedMemory(reinterpret_cast<const void*>(kernel), bytes);
}
// Blocks of `threads` threads and `bytes` of dynamic shared memory that one SM of the current device holds at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, at least 1), asked once per kernel, block shape and device. Over
// 48 KB, allowDynamicSharedMemory first.
int residentBlocksPerSm(const void* kernel, int threads, std::size_t bytes);
template <typename... Args> int residentBlocksPerSm(void (*kernel)(Args...), int threads, std::size_t bytes) {
    return residentBlocksPerSm(reinterpret_cast<const void*>(kernel), threads, bytes);
}

// Makes `device` current for the scope and restores the previous one after: cudaSetDevice only when it differs, so a
// context pushed by the caller (the plugin's GstCudaContext) stays current when it already is the device's. The
// constructor throws CudaError when the device cannot be selected; the destructor never throws. Neither copied nor
// moved: it restores on the thread and in the scope that made it.
class ScopedDevice {
public:
    explicit ScopedDevice(int device);
    ~ScopedDevice();
    ScopedDevice(const ScopedDevice&) = delete;
    ScopedDevice& operator=(const ScopedDevice&) = delete;

private:
    int previous_ = 0;
    bool switched_ = false;
};

template <typename Handle, typename Deleter>
class UniqueHandle {
public:
    UniqueHandle() = default;
    explicit UniqueHandle(Handle handle) : handle_(handle) {}
    UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
    UniqueHandle& operator=(UniqueHandle&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, Handle{});
        }
        return *this;
    }
    UniqueHandle(const UniqueHandle&) = delete;
    UniqueHandle& operator=(const UniqueHandle&) = delete;
    ~UniqueHandle() { reset(); }

    Handle get() const noexcept { return handle_; }
    explicit operator bool() const noexcept { return handle_ != Handle{}; }
    void reset() noexcept {
        if (handle_ != Handle{}) Deleter{}(handle_);
        handle_ = Handle{};
    }

private:
    Handle handle_{};
};

struct StreamDeleter { void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); } };
struct EventDeleter { void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); } };

class Stream : public UniqueHandle<cudaStream_t, StreamDeleter> {
public:
    Stream() = default;
    static Stream create();  // non-blocking with respect to the legacy default stream
private:
    using UniqueHandle::UniqueHandle;
};

class Event : public UniqueHandle<cudaEvent_t, EventDeleter> {
public:
    Event() = default;
    static Event create(bool timing = false);
private:
    using UniqueHandle::UniqueHandle;
};

// Untyped device allocation; grows only, so a steady stream of frames allocates once.
// Without a stream: cudaMalloc / cudaFree (which waits for the whole device). With `stream` (an owner's own stream,
// see LastUse): stream-ordered, cudaMallocAsync from the device's pool, waited for on that stream only, and freed by
// cudaFreeAsync on it, which waits for nothing: the owner must know that no work still uses the memory (LastUse),
// and the stream must outlive the buffer. Devices without memory pools fall back to cudaMalloc / cudaFree.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) { reserve(bytes); }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)),
          stream_(std::exchange(o.stream_, nullptr)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
            stream_ = std::exchange(o.stream_, nullptr);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { release(); }

    // Reallocates only when bytes exceed the capacity; the memory is ready on return.
    void reserve(std::size_t bytes, cudaStream_t stream = nullptr);
    void* data() const noexcept { return ptr_; }
    template <typename T> T* as() const noexcept { return static_cast<T*>(ptr_); }
    std::size_t size() const noexcept { return size_; }

private:
    void release() noexcept;
    void* ptr_ = nullptr;
    std::size_t size_ = 0;
    cudaStream_t stream_ = nullptr;  // set when the memory came from cudaMallocAsync on it
};

// Where an owner's GPU work was last enqueued: one event per stream it ran on, recorded after its work there. wait()
// blocks until that work (and only that work) is done, so the owner can then free its memory without cudaFree's
// wait for the whole device (other elements' and other slots' frames keep running).
class LastUse {
public:
    void record(cudaStream_t stream);  // after enqueuing work on `stream`; throws CudaError
    void wait() noexcept;              // errors are left to the next call that fails

private:
    struct Use {
        cudaStream_t stream;
        Event event;
    };
    std::vector<Use> uses_;
};

// Page-locked host allocation (cudaHostAlloc), for DMA-able uploads and downloads. cudaFreeHost waits for the whole
// device, so blocks of up to kRecycledPinnedBytes are kept on release (at most kRecycledPinnedBlocks of them) and
// handed to the next PinnedBuffer of the same size: the releasing owner must know that no work still uses the block
// (LastUse). Larger blocks are freed.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t bytes);
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() { release(); }

    void* data() const noexcept { return ptr_; }
    std::size_t size() const noexcept { return size_; }

private:
    void release() noexcept;
    void* ptr_ = nullptr;
    std::size_t size_ = 0;
};

// Page-locked host bytes this module holds right now: every live PinnedBuffer (not the recycled blocks kept for
// reuse, at most kRecycledPinnedBlocks × kRecycledPinnedBytes), plus what other cudaHostAlloc users report
// through trackPinnedHostBytes (the plugin's allocator). A gauge for soaks and leak tests.
std::size_t pinnedHostBytes() noexcept;
void trackPinnedHostBytes(std::ptrdiff_t delta) noexcept;
constexpr std::size_t kRecycledPinnedBytes = 256 * 1024;
constexpr std::size_t kRecycledPinnedBlocks = 16;

}  // namespace cudafilters
