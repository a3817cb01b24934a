// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// A GstAllocator whose memory is page-locked host memory (cudaHostAlloc): upstream writes frames straight into
// DMA-able memory, downloads land in the outgoing buffer, and nothing is page-locked per frame.
// Built only with CUDA.
#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_CF_PINNED_MEMORY_TYPE "CudaFiltersPinnedMemory"

#define GST_TYPE_CF_PINNED_ALLOCATOR (gst_cf_pinned_allocator_get_type())
G_DECLARE_FINAL_TYPE(GstCfPinnedAllocator, gst_cf_pinned_allocator, GST, CF_PINNED_ALLOCATOR, GstAllocator)

// The process-wide instance (transfer full), also registered as GST_CF_PINNED_MEMORY_TYPE; its read-only
// "pinned-bytes" property (guint64) is the page-locked host memory the plugin holds now, its "registered-bytes" the
// pageable memory of other elements it holds registered (hostregistration.h).
GstAllocator* gst_cf_pinned_allocator_get(void);

gboolean gst_is_cuda_pinned_memory(GstMemory* mem);
// True when every memory of the buffer is pinned.
gboolean gst_buffer_is_cuda_pinned(GstBuffer* buffer);

// A GstVideoBufferPool on the pinned allocator, configured for `caps` with VIDEO_META (transfer full).
GstBufferPool* gst_cf_pinned_pool_new(GstCaps* caps, guint size, guint min_buffers, guint max_buffers);

G_END_DECLS
