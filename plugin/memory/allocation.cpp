// SPDX-License-Identifier: LGPL-2.1-or-later
// Memory of a GstCfFilter: the buffer pools it offers upstream (pinned with CUDA, so the upload is a DMA from
// where upstream wrote the frame; CUDA memory of the shared context where memory:CUDAMemory is negotiated) and the
// one it takes for its output (pinned, so the download lands in the outgoing buffer; or CUDA memory, where the
// filter writes in place).
#include "memory/allocation.h"

#include "memory/gstcudainterop.h"

#include "base/filterstate.h"
#include "memory/framefence.h"

#ifdef CUDAFILTERS_HAVE_CUDA
#include "memory/gstcfpinnedallocator.h"
#endif

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

using namespace gstcudafilters;

static bool pool_is_pinned(GstBufferPool* pool) {
#ifdef CUDAFILTERS_HAVE_CUDA
    GstStructure* config = gst_buffer_pool_get_config(pool);
    GstAllocator* allocator = nullptr;
    bool pinned = gst_buffer_pool_config_get_allocator(config, &allocator, nullptr) && allocator &&
                  GST_IS_CF_PINNED_ALLOCATOR(allocator);
    gst_structure_free(config);
    return pinned;
#else
    (void)pool;
    return false;
#endif
}

static GstBufferPool* new_pool(bool pinned, GstCaps* caps, guint size, guint min, guint max) {
#ifdef CUDAFILTERS_HAVE_CUDA
    if (pinned) return gst_cf_pinned_pool_new(caps, size, min, max);
#else
    (void)pinned;
#endif
    GstBufferPool* pool = gst_video_buffer_pool_new();
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}

gboolean gst_cf_filter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query) {
    auto* self = GST_CF_FILTER(trans);
    StreamState& st = stream_state(self);
    if (!GST_BASE_TRANSFORM_CLASS(g_type_class_peek(GST_TYPE_BASE_TRANSFORM))->propose_allocation(trans, decide_query, query))
        return FALSE;
    if (gst_base_transform_is_passthrough(trans)) return TRUE;  // the parent forwarded the query downstream

    GstCaps* caps = nullptr;
    gboolean needPool = FALSE;
    gst_query_parse_allocation(query, &caps, &needPool);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps)) return FALSE;
#ifdef CUDAFILTERS_HAVE_GST_CUDA
    if (caps_are_cuda_memory(caps)) {
        if (needPool && st.cudaContext) {
            guint size = 0;
            GstBufferPool* pool = cuda_memory_pool_new(st.cudaContext.get(), caps, guint(st.depth + 1), 0, &size);
            if (pool) {
                GST_DEBUG_OBJECT(self, "proposing a CUDA memory pool upstream");
                gst_query_add_allocation_pool(query, pool, size, guint(st.depth + 1), 0);
                gst_object_unref(pool);
            }
        }
        gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
        gst_query_add_allocation_meta(query, frame_fence_meta_api_get_type(), nullptr);  // we wait on the GPU
        return TRUE;
    }
#endif
    if (needPool) {
        const bool pinned = st.executor && st.executor->backend() == Backend::Cuda;
        // Upstream's pool must hold the frames we keep in flight plus the one it is writing.
        GstBufferPool* pool = new_pool(pinned, caps, guint(GST_VIDEO_INFO_SIZE(&info)), guint(st.depth + 1), 0);
        if (pool) {
            GST_DEBUG_OBJECT(self, "proposing a %s pool upstream", pinned ? "pinned" : "system memory");
            gst_query_add_allocation_pool(query, pool, guint(GST_VIDEO_INFO_SIZE(&info)), guint(st.depth + 1), 0);
#ifdef CUDAFILTERS_HAVE_CUDA
            if (pinned) {
                GstAllocator* allocator = gst_cf_pinned_allocator_get();
                gst_query_add_allocation_param(query, allocator, nullptr);
                gst_object_unref(allocator);
            }
#endif
            gst_object_unref(pool);
        }
    }
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    return TRUE;
}

// The pool downstream offered in the allocation query (if any), with the size and counts our output needs.
struct OutputPool {
    GstBufferPool* pool = nullptr;  // owned: each step below unrefs it or hands it on
    guint size = 0, min = 0, max = 0;
    bool havePool = false;  // the query holds a pool at index 0 (replaced rather than added)
};

// Puts our pool in the query: in place of downstream's, or as the only one.
static void set_output_pool(GstQuery* query, const OutputPool& out) {
    if (out.havePool) gst_query_set_nth_allocation_pool(query, 0, out.pool, out.size, out.min, out.max);
    else gst_query_add_allocation_pool(query, out.pool, out.size, out.min, out.max);
}

#ifdef CUDAFILTERS_HAVE_GST_CUDA
// Output in CUDA memory: the pool chosen and put in the query; downstream fenced when it takes the fence meta.
static gboolean decide_cuda_memory_allocation(GstCfFilter* self, StreamState& st, GstQuery* query, GstCaps* caps,
                                              OutputPool out) {
    if (!st.cudaContext) {
        if (out.pool) gst_object_unref(out.pool);
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("memory:CUDAMemory negotiated without a CUDA context"), (nullptr));
        return FALSE;
    }
    // Downstream's pool when it is CUDA memory of our context (a neighbour of ours, cudadownload), else our own.
    if (out.pool && !pool_is_cuda_memory_of(out.pool, st.cudaContext.get(), caps)) gst_clear_object(&out.pool);
    if (out.pool) {
        GstStructure* config = gst_buffer_pool_get_config(out.pool);
        gst_buffer_pool_config_set_params(config, caps, out.size, out.min, out.max);
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        if (!gst_buffer_pool_set_config(out.pool, config)) gst_clear_object(&out.pool);
    }
    if (out.pool) {
        GstStructure* config = gst_buffer_pool_get_config(out.pool);
        gst_buffer_pool_config_get_params(config, nullptr, &out.size, nullptr, nullptr);
        gst_structure_free(config);
    } else {
        out.pool = cuda_memory_pool_new(st.cudaContext.get(), caps, out.min, out.max, &out.size);
    }
    if (!out.pool) {
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not create a CUDA memory buffer pool"), (nullptr));
        return FALSE;
    }
    st.fenceDownstream = gst_query_find_allocation_meta(query, frame_fence_meta_api_get_type(), nullptr);
    GST_DEBUG_OBJECT(self, "output in CUDA memory%s",
                     st.fenceDownstream ? ", pushed with a fence before its work ends" : ", pushed complete");
    set_output_pool(query, out);
    gst_object_unref(out.pool);
    return TRUE;
}
#endif

// Output in host memory: the pool chosen and put in the query, with its allocator.
static gboolean decide_host_memory_allocation(GstCfFilter* self, StreamState& st, GstQuery* query, GstCaps* caps,
                                              OutputPool out) {
    // With CUDA the download should land in pinned memory; downstream's pool is used when it is pinned or the
    // backend is the CPU.
    const bool wantPinned = st.executor && st.executor->backend() == Backend::Cuda;
    if (out.pool && wantPinned && !pool_is_pinned(out.pool)) {
        GST_DEBUG_OBJECT(self, "downstream pool is not pinned; using our own");
        gst_object_unref(out.pool);
        out.pool = nullptr;
        out.max = 0;
    }
    if (out.pool) {
        GstStructure* config = gst_buffer_pool_get_config(out.pool);
        gst_buffer_pool_config_set_params(config, caps, out.size, out.min, out.max);
        if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
            gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        if (!gst_buffer_pool_set_config(out.pool, config)) {
            gst_object_unref(out.pool);
            out.pool = nullptr;
        }
    }
    if (!out.pool) out.pool = new_pool(wantPinned, caps, out.size, out.min, out.max);
    if (!out.pool) {
        GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                          ("%s: could not create an output buffer pool of %" G_GSIZE_FORMAT "-byte buffers for the "
                           "negotiated caps",
                           GST_OBJECT_NAME(self), gsize(out.size)),
                          ("caps %" GST_PTR_FORMAT, caps));
        return FALSE;
    }
    set_output_pool(query, out);

    GstStructure* config = gst_buffer_pool_get_config(out.pool);
    GstAllocator* allocator = nullptr;
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    gst_buffer_pool_config_get_allocator(config, &allocator, &params);
    if (gst_query_get_n_allocation_params(query) > 0) gst_query_set_nth_allocation_param(query, 0, allocator, &params);
    else gst_query_add_allocation_param(query, allocator, &params);
    gst_structure_free(config);
    gst_object_unref(out.pool);
    return TRUE;
}

gboolean gst_cf_filter_decide_allocation(GstBaseTransform* trans, GstQuery* query) {
    auto* self = GST_CF_FILTER(trans);
    StreamState& st = stream_state(self);
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo info;
    if (!caps || !gst_video_info_from_caps(&info, caps)) return FALSE;

    st.fenceDownstream = false;
    OutputPool out;
    out.size = guint(GST_VIDEO_INFO_SIZE(&info));
    out.havePool = gst_query_get_n_allocation_pools(query) > 0;
    if (out.havePool) gst_query_parse_nth_allocation_pool(query, 0, &out.pool, &out.size, &out.min, &out.max);
    out.size = MAX(out.size, guint(GST_VIDEO_INFO_SIZE(&info)));
    out.min = MAX(out.min, guint(st.depth + 1));  // the frames in flight hold output buffers too

#ifdef CUDAFILTERS_HAVE_GST_CUDA
    if (caps_are_cuda_memory(caps)) return decide_cuda_memory_allocation(self, st, query, caps, out);
#endif
    return decide_host_memory_allocation(self, st, query, caps, out);
}
