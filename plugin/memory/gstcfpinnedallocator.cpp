// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory/gstcfpinnedallocator.h"

#include "memory/hostregistration.h"

#include <cudafilters/cuda_raii.hpp>

#include <cuda_runtime.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

GST_DEBUG_CATEGORY_STATIC(gst_cf_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cf_pinned_allocator_debug

struct _GstCfPinnedAllocator {
    GstAllocator parent;
};

enum { PROP_0, PROP_PINNED_BYTES, PROP_REGISTERED_BYTES };

namespace {

struct PinnedMemory {
    GstMemory mem;
    guint8* data;  // start of the page-locked mapping (owned by the root memory only)
};

GstMemory* pinned_memory_new(GstAllocator* allocator, GstMemory* parent, guint8* data, gsize maxsize,
                             gsize offset, gsize size, GstMemoryFlags flags, gsize align) {
    auto* mem = g_slice_new(PinnedMemory);
    gst_memory_init(GST_MEMORY_CAST(mem), flags, allocator, parent, maxsize, align, offset, size);
    mem->data = data;
    return GST_MEMORY_CAST(mem);
}

gpointer pinned_map(GstMemory* mem, gsize, GstMapFlags) { return reinterpret_cast<PinnedMemory*>(mem)->data; }
void pinned_unmap(GstMemory*) {}

GstMemory* pinned_share(GstMemory* mem, gssize offset, gssize size) {
    GstMemory* parent = mem->parent ? mem->parent : mem;
    if (size == -1) size = gssize(mem->size) - offset;
    return pinned_memory_new(mem->allocator, parent, reinterpret_cast<PinnedMemory*>(mem)->data, mem->maxsize,
                             mem->offset + offset, gsize(size),
                             GstMemoryFlags(GST_MINI_OBJECT_FLAGS(parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY),
                             mem->align);
}

}  // namespace

// Page-locked memory of the calling thread's NUMA node, in huge pages where the kernel has them: an anonymous mapping
// registered with the driver (which faults its pages in on this thread) rather than cudaHostAlloc, whose pages may
// lie on another node and in 4 KiB pages, which made upstream's writes into our pool slower than into its own.
static void* map_pinned(gsize bytes) {
    void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) return nullptr;
    madvise(data, bytes, MADV_HUGEPAGE);
    const cudaError_t status = cudaHostRegister(data, bytes, cudaHostRegisterPortable);
    if (status != cudaSuccess) {
        cudaGetLastError();
        GST_ERROR("cudaHostRegister(%" G_GSIZE_FORMAT ") failed: %s (%s)", bytes, cudaGetErrorName(status),
                  cudaGetErrorString(status));
        munmap(data, bytes);
        return nullptr;
    }
    return data;
}

static void unmap_pinned(void* data, gsize bytes) {
    const cudaError_t status = cudaHostUnregister(data);
    if (status != cudaSuccess) {
        cudaGetLastError();
        GST_WARNING("cudaHostUnregister failed: %s", cudaGetErrorName(status));
    }
    munmap(data, bytes);
}

G_DEFINE_TYPE(GstCfPinnedAllocator, gst_cf_pinned_allocator, GST_TYPE_ALLOCATOR)

static GstMemory* gst_cf_pinned_allocator_alloc(GstAllocator* allocator, gsize size, GstAllocationParams* params) {
    const gsize align = params->align;  // mappings are page-aligned; honour larger alignments too
    const gsize page = gsize(sysconf(_SC_PAGESIZE));
    const gsize maxsize = (size + params->prefix + params->padding + (align > page - 1 ? align : 0) + page - 1) / page * page;
    void* data = map_pinned(maxsize);
    if (!data) return nullptr;
    gsize offset = params->prefix;
    if (align > page - 1) {
        const gsize misalign = (reinterpret_cast<guintptr>(data) + offset) & align;
        if (misalign) offset += align + 1 - misalign;
    }
    cudafilters::trackPinnedHostBytes(std::ptrdiff_t(maxsize));
    GstMemory* mem = pinned_memory_new(allocator, nullptr, static_cast<guint8*>(data), maxsize, offset, size,
                                       params->flags, align);
    if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && offset) memset(data, 0, offset);
    if ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED) && maxsize > offset + size)
        memset(static_cast<guint8*>(data) + offset + size, 0, maxsize - offset - size);
    return mem;
}

static void gst_cf_pinned_allocator_free(GstAllocator*, GstMemory* mem) {
    auto* pinned = reinterpret_cast<PinnedMemory*>(mem);
    if (!mem->parent && pinned->data) {
        unmap_pinned(pinned->data, mem->maxsize);
        cudafilters::trackPinnedHostBytes(-std::ptrdiff_t(mem->maxsize));
    }
    g_slice_free(PinnedMemory, pinned);
}

static void gst_cf_pinned_allocator_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
    if (prop_id == PROP_PINNED_BYTES) g_value_set_uint64(value, cudafilters::pinnedHostBytes());
    else if (prop_id == PROP_REGISTERED_BYTES) g_value_set_uint64(value, gstcudafilters::host_registered_bytes());
    else G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_cf_pinned_allocator_class_init(GstCfPinnedAllocatorClass* klass) {
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    gobject_class->get_property = gst_cf_pinned_allocator_get_property;
    g_object_class_install_property(gobject_class, PROP_PINNED_BYTES,
        g_param_spec_uint64("pinned-bytes", "Pinned bytes",
                            "Page-locked host memory the plugin holds now: pooled frames and the elements' staging "
                            "areas (a leak gauge)",
                            0, G_MAXUINT64, 0, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(gobject_class, PROP_REGISTERED_BYTES,
        g_param_spec_uint64("registered-bytes", "Registered bytes",
                            "Pageable host memory of other elements the plugin holds page-locked now (cudaHostRegister: "
                            "frames recycled by upstream pools, uploaded by DMA where they lie); released with that "
                            "memory (a leak gauge)",
                            0, G_MAXUINT64, 0, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    GstAllocatorClass* allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = gst_cf_pinned_allocator_alloc;
    allocator_class->free = gst_cf_pinned_allocator_free;
    GST_DEBUG_CATEGORY_INIT(gst_cf_pinned_allocator_debug, "cudapinnedallocator", 0,
                            "page-locked host memory for CUDA transfers");
}

static void gst_cf_pinned_allocator_init(GstCfPinnedAllocator* self) {
    GstAllocator* alloc = GST_ALLOCATOR_CAST(self);
    alloc->mem_type = GST_CF_PINNED_MEMORY_TYPE;
    alloc->mem_map = pinned_map;
    alloc->mem_unmap = pinned_unmap;
    alloc->mem_share = pinned_share;
    GST_OBJECT_FLAG_SET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator* gst_cf_pinned_allocator_get(void) {
    static GstAllocator* instance = nullptr;
    if (g_once_init_enter(&instance)) {
        GstAllocator* allocator = GST_ALLOCATOR_CAST(g_object_new(GST_TYPE_CF_PINNED_ALLOCATOR, nullptr));
        gst_object_ref_sink(allocator);
        GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
        // Findable by applications: gst_allocator_find(GST_CF_PINNED_MEMORY_TYPE).
        gst_allocator_register(GST_CF_PINNED_MEMORY_TYPE, GST_ALLOCATOR_CAST(gst_object_ref(allocator)));
        g_once_init_leave(&instance, allocator);
    }
    return GST_ALLOCATOR_CAST(gst_object_ref(instance));
}

gboolean gst_is_cuda_pinned_memory(GstMemory* mem) {
    return mem && mem->allocator && GST_IS_CF_PINNED_ALLOCATOR(mem->allocator);
}

gboolean gst_buffer_is_cuda_pinned(GstBuffer* buffer) {
    const guint n = gst_buffer_n_memory(buffer);
    if (n == 0) return FALSE;
    for (guint i = 0; i < n; ++i)
        if (!gst_is_cuda_pinned_memory(gst_buffer_peek_memory(buffer, i))) return FALSE;
    return TRUE;
}

GstBufferPool* gst_cf_pinned_pool_new(GstCaps* caps, guint size, guint min_buffers, guint max_buffers) {
    GstBufferPool* pool = gst_video_buffer_pool_new();
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min_buffers, max_buffers);
    GstAllocator* allocator = gst_cf_pinned_allocator_get();
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    gst_buffer_pool_config_set_allocator(config, allocator, &params);
    gst_object_unref(allocator);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        GST_WARNING("pinned pool rejected its configuration");
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}
