// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The latency one filter adds, as GStreamer's latency tracer measures it: from a frame's arrival on the element's
// sink pad to its push on the src pad, matched by PTS. Shared by the live-latency and many-stream benchmarks.
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace benchcommon {

struct FilterLatency {
    std::string name;
    std::atomic<bool> measuring{true};
    std::mutex lock;
    std::map<GstClockTime, gint64> arrived;  // PTS → monotonic µs
    std::vector<double> addedMs;
};

inline GstPadProbeReturn onFilterSink(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* p = static_cast<FilterLatency*>(data);
    if (!p->measuring) return GST_PAD_PROBE_OK;
    std::lock_guard<std::mutex> guard(p->lock);
    p->arrived[GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info))] = g_get_monotonic_time();
    return GST_PAD_PROBE_OK;
}

inline GstPadProbeReturn onFilterSrc(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* p = static_cast<FilterLatency*>(data);
    const gint64 now = g_get_monotonic_time();
    std::lock_guard<std::mutex> guard(p->lock);
    auto it = p->arrived.find(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info)));
    if (it == p->arrived.end()) return GST_PAD_PROBE_OK;
    p->addedMs.push_back(double(now - it->second) / 1000.0);
    p->arrived.erase(p->arrived.begin(), std::next(it));
    return GST_PAD_PROBE_OK;
}

// Probes `element`'s first sink and src pads into `p`.
inline void watchFilter(GstElement* element, FilterLatency* p) {
    gst_pad_add_probe(GST_PAD(element->sinkpads->data), GST_PAD_PROBE_TYPE_BUFFER, onFilterSink, p, nullptr);
    gst_pad_add_probe(GST_PAD(element->srcpads->data), GST_PAD_PROBE_TYPE_BUFFER, onFilterSrc, p, nullptr);
}

inline double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))];
}

// One sink pad and one src pad, neither a source nor a sink nor a caps filter.
inline bool isFilter(GstElement* e) {
    GstElementFactory* f = gst_element_get_factory(e);
    if (!f || std::strcmp(GST_OBJECT_NAME(f), "capsfilter") == 0) return false;
    const char* klass = gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS);
    return e->numsinkpads == 1 && e->numsrcpads == 1 && klass && !std::strstr(klass, "Source") &&
           !std::strstr(klass, "Sink");
}

}  // namespace benchcommon
