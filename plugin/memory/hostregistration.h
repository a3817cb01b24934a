// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Pageable frames by DMA: system memory that upstream recycles (a buffer pool, or the same memory pushed again) is
// page-locked with cudaHostRegister the first time that pays, and stays registered while that memory lives, so its
// upload (or the download into it) is a DMA from where upstream wrote the frame. The registration is released when
// the GstMemory is freed, before its storage goes. Memory seen once outside a pool is left alone (the caller
// copies it): registering costs about as much as copying the frame a few times. Built only with CUDA.
#include <gst/gst.h>

namespace gstcudafilters {

// True when [data, data + size) of `mem` (host memory of `owner`, mapped by the caller) can be given to the copy
// engines directly: it is registered now. Never throws; false means copy it through pinned memory.
bool host_memory_registered(GstBuffer* owner, GstMemory* mem, const void* data, gsize size);

// Host memory the plugin holds registered now, across all elements (the registered-bytes gauge).
guint64 host_registered_bytes();

// The most the plugin registers at once (a quarter of physical memory, at most 8 GiB); beyond it frames are copied.
guint64 host_registered_limit();

}  // namespace gstcudafilters
