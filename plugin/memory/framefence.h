// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Frames in CUDA memory handed from one element of this plugin to the next before their GPU work has finished. The
// element that writes a frame attaches a FrameFenceMeta with a fence on that work (a CUDA event recorded after it);
// the next element of ours makes its own stream wait on the fence, so no host thread waits between the two. A
// downstream element asks for this by listing the meta's API in its answer to the ALLOCATION query; every other
// consumer gets frames whose work is complete. GStreamer >= 1.24's alternative, pushing the frame with its memory's
// stream made to wait for the work (NEED_SYNC), costs each frame a cross-stream wait and another when the pool hands
// the buffer back, and orders the slots through the pool's one stream: slower at high frame rates
// (`bench-pipeline --only c-`, one element into CUDA memory), so it is not used.
#include <gst/gst.h>

#include <memory>

namespace gstcudafilters {

class FrameFence {
public:
    virtual ~FrameFence() = default;
    virtual void* event() const = 0;    // the cudaEvent_t recorded after the frame's work
    virtual bool done() noexcept = 0;   // the work is over (finished or failed; the writer reports a failure)
    virtual void wait() noexcept = 0;   // blocks until done()
};

// The meta's layout (the element tests read it through the API's registered name).
struct FrameFenceMeta {
    GstMeta meta;
    std::shared_ptr<FrameFence>* fence;
};

constexpr const char* kFrameFenceMetaApiName = "GstCfFrameFenceMetaAPI";

GType frame_fence_meta_api_get_type();

// Attaches `fence` to a writable buffer.
void buffer_add_frame_fence(GstBuffer* buffer, std::shared_ptr<FrameFence> fence);

// The fence a buffer carries; null when it carries none.
std::shared_ptr<FrameFence> buffer_frame_fence(GstBuffer* buffer);

}  // namespace gstcudafilters
