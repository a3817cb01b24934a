// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include "base/gstcffilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CONVOLVE (gst_cuda_convolve_get_type())
G_DECLARE_FINAL_TYPE(GstCudaConvolve, gst_cuda_convolve, GST, CUDA_CONVOLVE, GstCfFilter)

GST_ELEMENT_REGISTER_DECLARE(cudaconvolve);

G_END_DECLS
