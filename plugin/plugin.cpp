// Registers the elements of gst-cuda-filters; nothing else.
#include "gstcudaconvolve.h"
#include "gstcudahisteq.h"

static gboolean plugin_init(GstPlugin* plugin) {
    gboolean ok = FALSE;
    ok |= GST_ELEMENT_REGISTER(cudaconvolve, plugin);
    ok |= GST_ELEMENT_REGISTER(cudahisteq, plugin);
    return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, cudafilters,
                  "Convolution and histogram equalization on CUDA GPUs, with a CPU fallback", plugin_init, VERSION,
                  GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
