// SPDX-License-Identifier: LGPL-2.1-or-later
// The GstMeta that carries a FrameFence (see framefence.h). Tagged "memory": it describes the buffer's memory, so
// transforms that write new memory drop it; a copy of the buffer that shares the memory keeps the fence.
#include "memory/framefence.h"

namespace gstcudafilters {
namespace {

gboolean fence_meta_init(GstMeta* meta, gpointer, GstBuffer*) {
    reinterpret_cast<FrameFenceMeta*>(meta)->fence = nullptr;
    return TRUE;
}

void fence_meta_free(GstMeta* meta, GstBuffer*) {
    auto* m = reinterpret_cast<FrameFenceMeta*>(meta);
    delete m->fence;
    m->fence = nullptr;
}

gboolean fence_meta_transform(GstBuffer* dest, GstMeta* meta, GstBuffer*, GQuark type, gpointer data) {
    if (!GST_META_TRANSFORM_IS_COPY(type)) return FALSE;
    const auto* copy = static_cast<const GstMetaTransformCopy*>(data);
    const auto* m = reinterpret_cast<FrameFenceMeta*>(meta);
    if (copy->region || !m->fence) return FALSE;  // a region is other memory than the one the fence covers
    buffer_add_frame_fence(dest, *m->fence);
    return TRUE;
}

const GstMetaInfo* fence_meta_info() {
    static const GstMetaInfo* info = [] {
        return gst_meta_register(frame_fence_meta_api_get_type(), "GstCfFrameFenceMeta",
                                 sizeof(FrameFenceMeta), fence_meta_init, fence_meta_free, fence_meta_transform);
    }();
    return info;
}

}  // namespace

GType frame_fence_meta_api_get_type() {
    static const GType type = [] {
        static const gchar* tags[] = {GST_META_TAG_MEMORY_STR, nullptr};
        return gst_meta_api_type_register(kFrameFenceMetaApiName, tags);
    }();
    return type;
}

void buffer_add_frame_fence(GstBuffer* buffer, std::shared_ptr<FrameFence> fence) {
    auto* m = reinterpret_cast<FrameFenceMeta*>(gst_buffer_add_meta(buffer, fence_meta_info(), nullptr));
    if (m) m->fence = new std::shared_ptr<FrameFence>(std::move(fence));
}

std::shared_ptr<FrameFence> buffer_frame_fence(GstBuffer* buffer) {
    auto* m = reinterpret_cast<FrameFenceMeta*>(gst_buffer_get_meta(buffer, frame_fence_meta_api_get_type()));
    return m && m->fence ? *m->fence : nullptr;
}

}  // namespace gstcudafilters
