// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// memory:CUDAMemory through GStreamer's CUDA library (gstreamer-cuda-1.0): the GstCudaContext an element shares with
// its neighbours, the CUDA buffer pools on its pads, and which frames can be filtered where they lie. Defined only in
// a build with that library (CUDAFILTERS_HAVE_GST_CUDA); without it the elements move frames through host memory.
#include <gst/gst.h>

#include <vector>

typedef struct _GstCudaContext GstCudaContext;

namespace gstcudafilters {

// The caps feature of frames in CUDA device memory, and the map flag that maps them on the device (GST_MAP_CUDA).
constexpr const char* kCudaMemoryFeature = "memory:CUDAMemory";
constexpr GstMapFlags kMapCuda = GstMapFlags(GST_MAP_FLAG_LAST << 1);

// True when the first structure of `caps` carries memory:CUDAMemory. (Needs no CUDA library.)
inline bool caps_are_cuda_memory(const GstCaps* caps) {
    if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
    GstCapsFeatures* features = gst_caps_get_features(caps, 0);
    return features && !gst_caps_features_is_any(features) && gst_caps_features_contains(features, kCudaMemoryFeature);
}

#ifdef CUDAFILTERS_HAVE_GST_CUDA

// The library loads (it finds libcuda) and a device exists: CUDA memory can be offered on the pads.
bool cuda_memory_available();

// A context offered by the application or a neighbour (GstElement::set_context): kept in `*context` when it is a
// CUDA context for `device` (-1: any).
void cuda_memory_set_context(GstElement* element, GstContext* context, int device, GstCudaContext** slot);

// Answers a neighbour's CONTEXT query with `context` (may be null: not answered).
gboolean cuda_memory_context_query(GstElement* element, GstQuery* query, GstCudaContext* context);

// Asks the neighbours for their CUDA context: the peers of both pads (CONTEXT query), then the application and the
// bin (NEED_CONTEXT). An answer arrives through the element's set_context.
void cuda_memory_ask_neighbours(GstElement* element);

// A new context wrapping the primary context of `device` (-1: device 0), announced with HAVE_CONTEXT so that the
// neighbours share it (transfer full). Throws cudafilters::CudaError when the device cannot be used.
GstCudaContext* cuda_memory_primary_context(GstElement* element, int device);

// The context's CUcontext and device ordinal.
void* cuda_context_handle(GstCudaContext* context);
int cuda_context_device(GstCudaContext* context);

// Where the memory of a buffer lies for an element working in `context`:
// - Ours: every memory is CUDA memory of `context`, read or written on the device as it lies;
// - Other: every memory is CUDA memory, some of another context or device; the GPU copies it to ours (unified
//   addressing), where a host mapping would stage it through host memory;
// - Host: some memory is not CUDA memory (or there is none).
enum class CudaResidence { Host, Ours, Other };
CudaResidence buffer_cuda_residence(GstBuffer* buffer, GstCudaContext* context);

// GStreamer 1.24 and later: CUDA memory carries the stream its writer works on, and a writer that has queued work
// there flags it GST_CUDA_MEMORY_TRANSFER_NEED_SYNC; a device mapping does not wait for that work. Call this once
// `buffer` is mapped on the device (the mapping itself may queue an upload). For memory of `context` the streams
// with queued work are appended to `streams` (CUstreams, each once): the element's stream waits for them on the GPU.
// Memory of another context is synchronised on the host (an event of ours cannot be recorded on its stream).
// GStreamer 1.22's memory has no stream: nothing is waited for.
void buffer_pending_streams(GstBuffer* buffer, GstCudaContext* context, std::vector<void*>& streams);

// A pool of CUDA memory of `context` configured for `caps` with video metas (transfer full; null on failure): a
// GstCudaBufferPool, or a GstCfFramePool for the formats GStreamer's allocator has no layout for. `*size` is set to
// its buffers' size (pitched).
GstBufferPool* cuda_memory_pool_new(GstCudaContext* context, GstCaps* caps, guint min_buffers, guint max_buffers,
                                    guint* size);

// True when `pool` gives CUDA memory of `context` in the layout of `caps`: a GstCfFramePool, or a GstCudaBufferPool
// for a format its allocator lays out.
bool pool_is_cuda_memory_of(GstBufferPool* pool, GstCudaContext* context, GstCaps* caps);

#endif

}  // namespace gstcudafilters
