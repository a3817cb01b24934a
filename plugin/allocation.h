// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The allocation queries of GstCudaFilter (see allocation.cpp).
#include "gstcudafilter.h"

gboolean gst_cuda_filter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query);
gboolean gst_cuda_filter_decide_allocation(GstBaseTransform* trans, GstQuery* query);
