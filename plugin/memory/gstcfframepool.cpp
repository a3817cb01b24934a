// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory for formats GStreamer's CUDA allocator has no layout for (see gstcfframepool.h).
#include "memory/gstcfframepool.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudastream.h>
#endif

#include <algorithm>
#include <iterator>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

struct _GstCfFramePool {
    GstBufferPool parent;
    GstCudaContext* context;
    GstCudaAllocator* allocator;
    GstVideoInfo info;     // the frame as negotiated
    GstVideoInfo storage;  // the RGBA image the allocator lays out
#if GST_CHECK_VERSION(1, 24, 0)
    GstCudaStream* stream;  // the config's stream (null: the default stream), carried by the memory as
                            // GstCudaBufferPool's memory carries it
#endif
};

G_DEFINE_TYPE(GstCfFramePool, gst_cf_frame_pool, GST_TYPE_BUFFER_POOL)

// The formats GStreamer 1.22's gst_cuda_allocator_alloc lays out (any other asserts there).
static const GstVideoFormat kAllocatorLayouts[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,      GST_VIDEO_FORMAT_RGBx,      GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,      GST_VIDEO_FORMAT_RGB,       GST_VIDEO_FORMAT_BGR,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE,
};

gboolean gst_cf_frame_pool_is_needed_for(GstVideoFormat format) {
    return std::find(std::begin(kAllocatorLayouts), std::end(kAllocatorLayouts), format) == std::end(kAllocatorLayouts);
}

static guint plane_rows(const GstVideoInfo* info, guint plane) {
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(info->finfo, plane, components);
    return guint(GST_VIDEO_INFO_COMP_HEIGHT(info, components[0]));
}

// The frame's layout in memory of pitch `pitch`: plane p at the rows of the planes before it.
static void lay_out(const GstVideoInfo* info, gsize pitch, gsize offsets[GST_VIDEO_MAX_PLANES],
                    gint strides[GST_VIDEO_MAX_PLANES]) {
    gsize row = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(info); ++p) {
        offsets[p] = row * pitch;
        strides[p] = gint(pitch);
        row += plane_rows(info, p);
    }
}

static GstMemory* alloc_frame_memory(GstCfFramePool* self) {
#if GST_CHECK_VERSION(1, 24, 0)
    return gst_cuda_allocator_alloc(self->allocator, self->context, self->stream, &self->storage);
#else
    return gst_cuda_allocator_alloc(self->allocator, self->context, &self->storage);
#endif
}

static const gchar** gst_cf_frame_pool_get_options(GstBufferPool*) {
    static const gchar* options[] = {GST_BUFFER_POOL_OPTION_VIDEO_META, nullptr};
    return options;
}

static gboolean gst_cf_frame_pool_set_config(GstBufferPool* pool, GstStructure* config) {
    auto* self = GST_CF_FRAME_POOL(pool);
    GstCaps* caps = nullptr;
    guint size = 0, min = 0, max = 0;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps) return FALSE;
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) {
        GST_WARNING_OBJECT(pool, "caps %" GST_PTR_FORMAT " are not raw video", caps);
        return FALSE;
    }
    if (!self->allocator) {
        GST_WARNING_OBJECT(pool, "GStreamer's CUDA allocator is not registered");
        return FALSE;
    }
    self->info = info;
#if GST_CHECK_VERSION(1, 24, 0)
    gst_clear_cuda_stream(&self->stream);
    self->stream = gst_buffer_pool_config_get_cuda_stream(config);
#endif
    gint widest = 0;
    guint rows = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        rows += plane_rows(&info, p);
        widest = std::max(widest, GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
    }
    gst_video_info_set_format(&self->storage, GST_VIDEO_FORMAT_RGBA, guint((widest + 3) / 4), rows);

    // One allocation tells the pitch, so that the pool's size is the buffers' size.
    GstMemory* probe = alloc_frame_memory(self);
    if (!probe) {
        GST_WARNING_OBJECT(pool, "could not allocate %d × %u bytes of CUDA memory", widest, rows);
        return FALSE;
    }
    const gsize pitch = gsize(GST_CUDA_MEMORY_CAST(probe)->info.stride[0]);
    gst_memory_unref(probe);
    if (pitch * rows > G_MAXUINT) {
        GST_WARNING_OBJECT(pool, "a %s frame of %" G_GSIZE_FORMAT " × %u bytes is too large for a buffer pool",
                           GST_VIDEO_INFO_NAME(&info), pitch, rows);
        return FALSE;
    }
    gst_buffer_pool_config_set_params(config, caps, guint(pitch * rows), min, max);
    GST_DEBUG_OBJECT(pool, "%s %dx%d in CUDA memory of pitch %" G_GSIZE_FORMAT ", %u rows",
                     GST_VIDEO_INFO_NAME(&info), GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info), pitch, rows);
    return GST_BUFFER_POOL_CLASS(gst_cf_frame_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn gst_cf_frame_pool_alloc_buffer(GstBufferPool* pool, GstBuffer** buffer,
                                                     GstBufferPoolAcquireParams*) {
    auto* self = GST_CF_FRAME_POOL(pool);
    GstMemory* mem = alloc_frame_memory(self);
    if (!mem) {
        GST_ERROR_OBJECT(pool, "could not allocate CUDA memory for a %s frame", GST_VIDEO_INFO_NAME(&self->info));
        return GST_FLOW_ERROR;
    }
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    lay_out(&self->info, gsize(GST_CUDA_MEMORY_CAST(mem)->info.stride[0]), offsets, strides);
    GstBuffer* out = gst_buffer_new();
    gst_buffer_append_memory(out, mem);
    gst_buffer_add_video_meta_full(out, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&self->info),
                                   GST_VIDEO_INFO_WIDTH(&self->info), GST_VIDEO_INFO_HEIGHT(&self->info),
                                   GST_VIDEO_INFO_N_PLANES(&self->info), offsets, strides);
    *buffer = out;
    return GST_FLOW_OK;
}

static void gst_cf_frame_pool_finalize(GObject* object) {
    auto* self = GST_CF_FRAME_POOL(object);
    gst_clear_object(&self->context);
    gst_clear_object(&self->allocator);
#if GST_CHECK_VERSION(1, 24, 0)
    gst_clear_cuda_stream(&self->stream);
#endif
    G_OBJECT_CLASS(gst_cf_frame_pool_parent_class)->finalize(object);
}

static void gst_cf_frame_pool_class_init(GstCfFramePoolClass* klass) {
    G_OBJECT_CLASS(klass)->finalize = gst_cf_frame_pool_finalize;
    GstBufferPoolClass* pool_class = GST_BUFFER_POOL_CLASS(klass);
    pool_class->get_options = gst_cf_frame_pool_get_options;
    pool_class->set_config = gst_cf_frame_pool_set_config;
    pool_class->alloc_buffer = gst_cf_frame_pool_alloc_buffer;
}

static void gst_cf_frame_pool_init(GstCfFramePool*) {}

GstBufferPool* gst_cf_frame_pool_new(GstCudaContext* context) {
    auto* self = GST_CF_FRAME_POOL(g_object_new(GST_TYPE_CF_FRAME_POOL, nullptr));
    gst_object_ref_sink(self);
    self->context = GST_CUDA_CONTEXT(gst_object_ref(context));
    gst_cuda_memory_init_once();
    if (GstAllocator* allocator = gst_allocator_find(GST_CUDA_MEMORY_TYPE_NAME)) {
        if (GST_IS_CUDA_ALLOCATOR(allocator)) self->allocator = GST_CUDA_ALLOCATOR(allocator);
        else gst_object_unref(allocator);
    }
    return GST_BUFFER_POOL(self);
}

GstCudaContext* gst_cf_frame_pool_get_context(GstCfFramePool* pool) { return pool->context; }
