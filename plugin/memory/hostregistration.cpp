// SPDX-License-Identifier: LGPL-2.1-or-later
// Registration of pageable host memory with the CUDA driver (see hostregistration.h).
#include "memory/hostregistration.h"

#include <cuda_runtime.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {
namespace {

// What the plugin knows about one GstMemory (attached as qdata, so it dies with the memory).
struct Registration {
    enum class State { Seen, Registered, Refused } state = State::Seen;
    const void* data = nullptr;  // the registered range
    gsize size = 0;
};

std::mutex registryLock;
std::atomic<guint64> registeredBytes{0};

GQuark registration_quark() {
    static const GQuark quark = g_quark_from_static_string("cudafilters-host-registration");
    return quark;
}

void release_registration(gpointer data) {
    auto* registration = static_cast<Registration*>(data);
    if (registration->state == Registration::State::Registered) {
        if (cudaHostUnregister(const_cast<void*>(registration->data)) != cudaSuccess) cudaGetLastError();
        registeredBytes.fetch_sub(registration->size, std::memory_order_relaxed);
        GST_LOG("unregistered %" G_GSIZE_FORMAT " bytes at %p", registration->size, registration->data);
    }
    delete registration;
}

// The memory that owns the storage: a shared sub-memory lives no longer than its parent.
GstMemory* root_of(GstMemory* mem) {
    while (mem->parent) mem = mem->parent;
    return mem;
}

bool try_register(Registration& registration, const void* data, gsize size) {
    if (registeredBytes.load(std::memory_order_relaxed) + size > host_registered_limit()) {
        GST_DEBUG("not registering %" G_GSIZE_FORMAT " bytes: %" G_GUINT64_FORMAT " registered already", size,
                  registeredBytes.load());
        return false;
    }
    const cudaError_t status = cudaHostRegister(const_cast<void*>(data), size, cudaHostRegisterPortable);
    if (status != cudaSuccess) {
        cudaGetLastError();
        GST_DEBUG("cudaHostRegister(%p, %" G_GSIZE_FORMAT ") failed: %s; frames in it are copied", data, size,
                  cudaGetErrorName(status));
        registration.state = Registration::State::Refused;
        return false;
    }
    registration.state = Registration::State::Registered;
    registration.data = data;
    registration.size = size;
    registeredBytes.fetch_add(size, std::memory_order_relaxed);
    GST_LOG("registered %" G_GSIZE_FORMAT " bytes at %p", size, data);
    return true;
}

}  // namespace

guint64 host_registered_limit() {
    static const guint64 limit = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
        const guint64 physical = pages > 0 && pageSize > 0 ? guint64(pages) * guint64(pageSize) : 0;
        return std::min<guint64>(physical / 4, guint64(8) << 30);
    }();
    return limit;
}

guint64 host_registered_bytes() { return registeredBytes.load(std::memory_order_relaxed); }

bool host_memory_registered(GstBuffer* owner, GstMemory* mem, const void* data, gsize size) {
    if (!gst_memory_is_type(mem, GST_ALLOCATOR_SYSMEM) || size == 0) return false;
    GstMemory* root = root_of(mem);
    std::lock_guard<std::mutex> lock(registryLock);
    auto* registration =
        static_cast<Registration*>(gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(root), registration_quark()));
    if (!registration) {
        registration = new Registration();
        gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(root), registration_quark(), registration, release_registration);
        // A pool recycles its memory: register at once. Otherwise only once the same memory comes back.
        if (owner->pool == nullptr) return false;
    }
    switch (registration->state) {
    case Registration::State::Registered: {
        const auto* begin = static_cast<const guint8*>(registration->data);
        const auto* want = static_cast<const guint8*>(data);
        return want >= begin && want + size <= begin + registration->size;
    }
    case Registration::State::Refused:
        return false;
    case Registration::State::Seen:
        return try_register(*registration, data, size);
    }
    return false;
}

}  // namespace gstcudafilters
