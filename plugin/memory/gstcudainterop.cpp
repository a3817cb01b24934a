// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer's CUDA library glue (see gstcudainterop.h).
#include "memory/gstcudainterop.h"

#include "memory/gstcfframepool.h"
#include "memory/driverapi.h"

#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include <gst/cuda/gstcudautils.h>

#include <algorithm>
#include <string>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {

bool cuda_memory_available() {
    static const bool available = [] {
        if (!gst_cuda_load_library()) {
            GST_INFO("GStreamer's CUDA library found no CUDA driver: no memory:CUDAMemory");
            return false;
        }
        gst_cuda_memory_init_once();
        return cudafilters::cudaDeviceCount() > 0;
    }();
    return available;
}

void cuda_memory_set_context(GstElement* element, GstContext* context, int device, GstCudaContext** slot) {
    if (!cuda_memory_available()) return;
    gst_cuda_handle_set_context(element, context, device, slot);
}

gboolean cuda_memory_context_query(GstElement* element, GstQuery* query, GstCudaContext* context) {
    if (!context) return FALSE;
    return gst_cuda_handle_context_query(element, query, context);
}

void cuda_memory_ask_neighbours(GstElement* element) {
    GstQuery* query = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
    bool answered = false;
    for (GList* l = element->pads; l && !answered; l = l->next) {
        if (!gst_pad_peer_query(GST_PAD(l->data), query)) continue;
        GstContext* context = nullptr;
        gst_query_parse_context(query, &context);
        if (context) {
            gst_element_set_context(element, context);
            answered = true;
        }
    }
    gst_query_unref(query);
    if (!answered)
        gst_element_post_message(element, gst_message_new_need_context(GST_OBJECT(element), GST_CUDA_CONTEXT_TYPE));
}

GstCudaContext* cuda_memory_primary_context(GstElement* element, int device) {
    const int ordinal = device < 0 ? 0 : device;
    void* primary = driver::primaryContext(ordinal);
    GstCudaContext* context = gst_cuda_context_new_wrapped(static_cast<CUcontext>(primary),
                                                           CUdevice(driver::deviceHandle(ordinal)));
    if (!context)
        throw cudafilters::CudaError("gst_cuda_context_new_wrapped", 0, "GstCudaContext",
                                     "could not wrap the primary context of device " + std::to_string(ordinal));
    GST_INFO_OBJECT(element, "offering the primary context of device %d to the neighbours", ordinal);
    gst_element_post_message(element,
                             gst_message_new_have_context(GST_OBJECT(element), gst_context_new_cuda_context(context)));
    return context;
}

void* cuda_context_handle(GstCudaContext* context) { return gst_cuda_context_get_handle(context); }

int cuda_context_device(GstCudaContext* context) {
    guint device = 0;
    g_object_get(context, "cuda-device-id", &device, nullptr);
    return int(device);
}

namespace {

// Two GstCudaContext objects may wrap one CUcontext (ours wraps the device's primary context).
bool same_context(GstCudaContext* a, GstCudaContext* b) {
    return a && b && (a == b || gst_cuda_context_get_handle(a) == gst_cuda_context_get_handle(b));
}

}  // namespace

CudaResidence buffer_cuda_residence(GstBuffer* buffer, GstCudaContext* context) {
    const guint n = gst_buffer_n_memory(buffer);
    CudaResidence where = n > 0 ? CudaResidence::Ours : CudaResidence::Host;
    for (guint i = 0; i < n; ++i) {
        GstMemory* mem = gst_buffer_peek_memory(buffer, i);
        if (!gst_is_cuda_memory(mem)) {
            GST_LOG("memory %u of %p is %s memory, not CUDA memory", i, buffer,
                    mem->allocator ? mem->allocator->mem_type : "unknown");
            return CudaResidence::Host;
        }
        GstCudaContext* owner = GST_CUDA_MEMORY_CAST(mem)->context;
        if (!same_context(owner, context)) {
            GST_LOG("memory %u of %p is CUDA memory of context %p (CUcontext %p), not ours %p", i, buffer, owner,
                    gst_cuda_context_get_handle(owner), context);
            where = CudaResidence::Other;
        }
    }
    return where;
}

void buffer_pending_streams(GstBuffer* buffer, GstCudaContext* context, std::vector<void*>& streams) {
#if GST_CHECK_VERSION(1, 24, 0)
    for (guint i = 0, n = gst_buffer_n_memory(buffer); i < n; ++i) {
        GstMemory* mem = gst_buffer_peek_memory(buffer, i);
        if (!gst_is_cuda_memory(mem) || !GST_MEMORY_FLAG_IS_SET(mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC)) continue;
        GstCudaMemory* cmem = GST_CUDA_MEMORY_CAST(mem);
        GstCudaStream* stream = gst_cuda_memory_get_stream(cmem);
        if (!stream) continue;  // the default stream: the writer synchronised before it pushed
        if (!same_context(cmem->context, context)) {
            GST_LOG("memory %u of %p: work queued on a stream of another context, synchronised", i, buffer);
            gst_cuda_memory_sync(cmem);
            continue;
        }
        void* handle = gst_cuda_stream_get_handle(stream);
        if (std::find(streams.begin(), streams.end(), handle) == streams.end()) {
            GST_LOG("memory %u of %p: work queued on stream %p, waited for on the GPU", i, buffer, handle);
            streams.push_back(handle);
        }
    }
#else
    (void)buffer;
    (void)context;
    (void)streams;
#endif
}

GstBufferPool* cuda_memory_pool_new(GstCudaContext* context, GstCaps* caps, guint min_buffers, guint max_buffers,
                                    guint* size) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return nullptr;
    GstBufferPool* pool = gst_cf_frame_pool_is_needed_for(GST_VIDEO_INFO_FORMAT(&info))
                              ? gst_cf_frame_pool_new(context)
                              : gst_cuda_buffer_pool_new(context);
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)), min_buffers, max_buffers);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        // The pool may have adjusted the config (its pitched layout): take it when it still fits.
        config = gst_buffer_pool_get_config(pool);
        const bool fits = gst_buffer_pool_config_validate_params(config, caps, guint(GST_VIDEO_INFO_SIZE(&info)),
                                                                 min_buffers, max_buffers);
        if (!fits) gst_structure_free(config);
        if (!fits || !gst_buffer_pool_set_config(pool, config)) {
            gst_object_unref(pool);
            return nullptr;
        }
    }
    config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_get_params(config, nullptr, size, nullptr, nullptr);
    gst_structure_free(config);
    return pool;
}

bool pool_is_cuda_memory_of(GstBufferPool* pool, GstCudaContext* context, GstCaps* caps) {
    GstCudaContext* owner = nullptr;
    if (pool && GST_IS_CF_FRAME_POOL(pool)) {
        owner = gst_cf_frame_pool_get_context(GST_CF_FRAME_POOL(pool));
    } else if (pool && GST_IS_CUDA_BUFFER_POOL(pool)) {
        // GStreamer's pool asserts on a format its allocator has no layout for.
        GstVideoInfo info;
        if (!gst_video_info_from_caps(&info, caps) || gst_cf_frame_pool_is_needed_for(GST_VIDEO_INFO_FORMAT(&info)))
            return false;
        owner = GST_CUDA_BUFFER_POOL(pool)->context;
    }
    return same_context(owner, context);
}

}  // namespace gstcudafilters
