// SPDX-License-Identifier: LGPL-2.1-or-later
// Live latency benchmark: the latency each filter adds behind a live camera, as GStreamer's latency tracer measures
// it — from a frame's arrival on the element's sink pad to its push on the src pad — for every filter of a
// gst_parse_launch pipeline (every element but the source, the sink and caps filters), beside an `identity` chain
// in the same run. Also the frames the sink got of those the source sent, and the pipeline's LATENCY answer.
// Default rows: videotestsrc is-live=true 1080p60 NV12 ! cudahisteq mode=clahe ! cudaconvolve preset=gaussian
// size=5 ! fakesink sync=false, in system memory and with CUDA memory between the two, at pipeline-depth 2 and 4.
// The sinks do not sync, so the figures are the elements' own: a syncing sink holds each frame until its render
// time (capture time plus the LATENCY answer), which an element pushing from a thread of its own then waits for.
//
//   GST_PLUGIN_PATH=build/plugin bench-live-latency [--seconds S] [--pipeline 'DESC' …]
#include "filter_latency.hpp"

#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Probe : benchcommon::FilterLatency {
    GstPad* sink = nullptr;
    GstPad* src = nullptr;
};

GstPadProbeReturn countBuffer(GstPad*, GstPadProbeInfo*, gpointer data) {
    ++*static_cast<guint64*>(data);
    return GST_PAD_PROBE_OK;
}

using benchcommon::isFilter;
using benchcommon::percentile;

GstPad* firstPad(GstElement* e, bool sink) {
    GList* pads = sink ? e->sinkpads : e->srcpads;
    return pads ? GST_PAD(gst_object_ref(pads->data)) : nullptr;
}

// Runs `desc` for `seconds` after a one-second warm-up; prints one line per filter.
bool runRow(const std::string& desc, double seconds) {
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
    if (!pipeline) {
        std::printf("%s\n  could not build: %s\n", desc.c_str(), error ? error->message : "?");
        g_clear_error(&error);
        return false;
    }
    std::vector<std::unique_ptr<Probe>> probes;
    guint64 sent = 0, received = 0;
    GstPad* sinkPad = nullptr;
    GstPad* sourcePad = nullptr;
    GstIterator* it = gst_bin_iterate_sorted(GST_BIN(pipeline));
    GValue item = G_VALUE_INIT;
    std::vector<GstElement*> sorted;  // sink first
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        sorted.push_back(GST_ELEMENT(g_value_get_object(&item)));
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    std::reverse(sorted.begin(), sorted.end());
    for (GstElement* e : sorted) {
        if (e->numsinkpads == 0 && e->numsrcpads == 1 && !sourcePad) {
            sourcePad = firstPad(e, false);
            gst_pad_add_probe(sourcePad, GST_PAD_PROBE_TYPE_BUFFER, countBuffer, &sent, nullptr);
        } else if (e->numsinkpads == 1 && e->numsrcpads == 0 && !sinkPad) {
            sinkPad = firstPad(e, true);
            gst_pad_add_probe(sinkPad, GST_PAD_PROBE_TYPE_BUFFER, countBuffer, &received, nullptr);
        } else if (isFilter(e)) {
            auto p = std::make_unique<Probe>();
            p->name = GST_OBJECT_NAME(e);
            p->sink = firstPad(e, true);
            p->src = firstPad(e, false);
            probes.push_back(std::move(p));
        }
    }
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    auto failed = [&](GstClockTime wait) {
        GstMessage* m = gst_bus_timed_pop_filtered(bus, wait, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
        if (!m) return false;
        GError* e = nullptr;
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) gst_message_parse_error(m, &e, nullptr);
        std::printf("%s\n  stopped: %s\n", desc.c_str(), e ? e->message : "end of stream");
        g_clear_error(&e);
        gst_message_unref(m);
        return true;
    };
    bool ok = !failed(GST_SECOND);  // warm-up: negotiation, pools, the slots' first frames
    for (auto& p : probes) {
        gst_pad_add_probe(p->sink, GST_PAD_PROBE_TYPE_BUFFER, benchcommon::onFilterSink,
                          static_cast<benchcommon::FilterLatency*>(p.get()), nullptr);
        gst_pad_add_probe(p->src, GST_PAD_PROBE_TYPE_BUFFER, benchcommon::onFilterSrc,
                          static_cast<benchcommon::FilterLatency*>(p.get()), nullptr);
    }
    const guint64 sent0 = sent, received0 = received;
    ok = ok && !failed(GstClockTime(seconds * GST_SECOND));
    GstClockTime latency = GST_CLOCK_TIME_NONE;  // what the sink is told upstream adds, as a syncing sink asks
    GstQuery* q = gst_query_new_latency();
    if (sinkPad && gst_pad_peer_query(sinkPad, q)) gst_query_parse_latency(q, nullptr, &latency, nullptr);
    gst_query_unref(q);
    if (sinkPad) gst_object_unref(sinkPad);
    GstClockTime sourceLatency = 0;
    q = gst_query_new_latency();
    if (sourcePad && gst_pad_query(sourcePad, q)) gst_query_parse_latency(q, nullptr, &sourceLatency, nullptr);
    gst_query_unref(q);
    if (sourcePad) gst_object_unref(sourcePad);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    if (ok) {
        std::printf("%s\n  %llu of %llu frames reached the sink; LATENCY answer %.2f ms, of which the source's %.2f ms\n",
                    desc.c_str(), (unsigned long long)(received - received0), (unsigned long long)(sent - sent0),
                    GST_CLOCK_TIME_IS_VALID(latency) ? double(latency) / 1e6 : -1.0, double(sourceLatency) / 1e6);
        for (auto& p : probes) {
            std::lock_guard<std::mutex> guard(p->lock);
            std::printf("  %-14s added %.3f ms median, %.3f ms p95, %.3f ms p99, %.3f ms max (%zu frames)\n",
                        p->name.c_str(), percentile(p->addedMs, 0.5), percentile(p->addedMs, 0.95),
                        percentile(p->addedMs, 0.99), percentile(p->addedMs, 1.0), p->addedMs.size());
        }
    }
    std::fflush(stdout);
    for (auto& p : probes) {
        gst_object_unref(p->sink);
        gst_object_unref(p->src);
    }
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    double seconds = 10;
    std::vector<std::string> rows;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--pipeline") && i + 1 < argc) rows.push_back(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench-live-latency [--seconds S] [--pipeline 'DESC' ...]\n");
            return 2;
        }
    }
    if (rows.empty()) {
        const std::string camera =
            "videotestsrc is-live=true pattern=ball ! video/x-raw,format=NV12,width=1920,height=1080,framerate=60/1 ! ";
        const std::string cuda = " ! video/x-raw(memory:CUDAMemory) ! ", sys = " ! video/x-raw ! ";
        rows.push_back(camera + "identity name=identity0 ! identity name=identity1 ! fakesink sync=false");
        for (const char* depth : {"2", "4"}) {
            const std::string histeq = std::string("cudahisteq name=histeq mode=clahe pipeline-depth=") + depth;
            const std::string convolve = std::string("cudaconvolve name=convolve preset=gaussian size=5 pipeline-depth=") + depth;
            rows.push_back(camera + histeq + sys + convolve + sys + "fakesink sync=false");
            rows.push_back(camera + histeq + cuda + convolve + sys + "fakesink sync=false");
        }
    }
    bool ok = true;
    for (const std::string& row : rows) ok = runRow(row, seconds) && ok;
    return ok ? 0 : 1;
}
