// SPDX-License-Identifier: LGPL-2.1-or-later
// Registers the elements of gst-cuda-filters and, with CUDA, their pinned-memory allocator.
#include "elements/gstcudaconvolve.h"
#include "elements/gstcudahisteq.h"
#ifdef CUDAFILTERS_HAVE_CUDA
#include "memory/gstcfpinnedallocator.h"
#endif

static gboolean plugin_init(GstPlugin* plugin) {
    gboolean ok = FALSE;
    ok |= GST_ELEMENT_REGISTER(cudaconvolve, plugin);
    ok |= GST_ELEMENT_REGISTER(cudahisteq, plugin);
#ifdef CUDAFILTERS_HAVE_CUDA
    gst_object_unref(gst_cf_pinned_allocator_get());  // registers it (no CUDA call): findable before any pool exists
#endif
    return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cudafilters,
                  "Convolution and histogram equalization on CUDA GPUs, with a CPU fallback", plugin_init, VERSION,
                  GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
