// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include "base/gstcffilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HISTEQ (gst_cuda_histeq_get_type())
G_DECLARE_FINAL_TYPE(GstCudaHistEq, gst_cuda_histeq, GST, CUDA_HISTEQ, GstCfFilter)

GST_ELEMENT_REGISTER_DECLARE(cudahisteq);

G_END_DECLS
