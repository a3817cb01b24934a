// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// memory:CUDAMemory frames in the formats GStreamer 1.22's CUDA allocator has no layout for (grey, packed 4:2:2,
// xRGB/xBGR, RGBA64_LE): its buffer pool would abort on them. A buffer of this pool holds one GstCudaMemory that the
// allocator lays out as an RGBA image as wide as the frame's widest plane row and as tall as its planes together,
// and a GstVideoMeta that describes the frame in it: every plane at the allocation's pitch, one below the other.
// Host mappings, copies and frees are the allocator's, as for any CUDA memory. Built with gstreamer-cuda-1.0 only.
#include <gst/gst.h>
#include <gst/video/video.h>

typedef struct _GstCudaContext GstCudaContext;

G_BEGIN_DECLS

#define GST_TYPE_CF_FRAME_POOL (gst_cf_frame_pool_get_type())
G_DECLARE_FINAL_TYPE(GstCfFramePool, gst_cf_frame_pool, GST, CF_FRAME_POOL, GstBufferPool)

// A pool of CUDA memory of `context` (transfer full); configure it with caps as any pool. Its buffers always carry
// the video meta: without it the pitch would be lost.
GstBufferPool* gst_cf_frame_pool_new(GstCudaContext* context);

// The context its memory belongs to (transfer none).
GstCudaContext* gst_cf_frame_pool_get_context(GstCfFramePool* pool);

// True when GStreamer's CUDA allocator (and so its GstCudaBufferPool) has no layout for `format`: its frames take
// this pool.
gboolean gst_cf_frame_pool_is_needed_for(GstVideoFormat format);

G_END_DECLS
