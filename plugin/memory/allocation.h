// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The allocation queries of GstCfFilter (see allocation.cpp).
#include "base/gstcffilter.h"

gboolean gst_cf_filter_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query);
gboolean gst_cf_filter_decide_allocation(GstBaseTransform* trans, GstQuery* query);
