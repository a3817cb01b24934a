// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/inputlayout.h"

#include <sstream>
#include <vector>

namespace gstcudafilters {
namespace {

// Rows and bytes per row of plane `plane` of `info` (the components it holds share them).
void planeSize(const GstVideoInfo& info, guint plane, gsize& rows, gsize& rowBytes) {
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(info.finfo, plane, components);
    rows = gsize(GST_VIDEO_INFO_COMP_HEIGHT(&info, components[0]));
    rowBytes = gsize(GST_VIDEO_INFO_COMP_WIDTH(&info, components[0])) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, components[0]);
}

// Bytes a buffer needs to hold planes at `offsets` with `strides` (the last row of a plane without its padding).
gsize bytesNeeded(const GstVideoInfo& info, const gsize* offsets, const gint* strides) {
    gsize needed = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        gsize rows = 0, rowBytes = 0;
        planeSize(info, p, rows, rowBytes);
        if (rows > 0) needed = MAX(needed, offsets[p] + gsize(MAX(strides[p], 0)) * (rows - 1) + rowBytes);
    }
    return needed;
}

// The planes whose stride in `strides` is shorter than a row of the plane (negative strides are not taken).
std::vector<guint> shortStrides(const GstVideoInfo& info, const gint* strides) {
    std::vector<guint> planes;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        gsize rows = 0, rowBytes = 0;
        planeSize(info, p, rows, rowBytes);
        if (strides[p] < 0 || gsize(strides[p]) < rowBytes) planes.push_back(p);
    }
    return planes;
}

std::string frameName(GstVideoFormat format, guint width, guint height) {
    std::ostringstream s;
    s << gst_video_format_to_string(format) << ' ' << width << 'x' << height;
    return s.str();
}

std::string strideList(const gint* strides, guint planes) {
    std::ostringstream s;
    for (guint p = 0; p < planes; ++p) s << (p ? ", " : "") << strides[p];
    return s.str();
}

}  // namespace

std::string inputLayoutProblem(const GstVideoInfo& info, GstBuffer* buffer) {
    const guint planes = GST_VIDEO_INFO_N_PLANES(&info);
    const gsize size = gst_buffer_get_size(buffer);
    // The message is built only for a buffer that does not fit: this runs for every frame (1080p NV12 in CUDA
    // memory spent 6 % of its streaming thread here, formatting a message it then dropped).
    auto problem = [&](auto detail) {
        const std::string caps =
            frameName(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
        std::ostringstream s;
        s << "The input buffer (" << size << " bytes) does not hold a whole " << caps << " frame: ";
        detail(s, caps);
        return s.str();
    };
    if (const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer)) {
        const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
        const bool otherFormat = meta->format != format;
        const bool smaller = meta->width < guint(GST_VIDEO_INFO_WIDTH(&info)) ||
                             meta->height < guint(GST_VIDEO_INFO_HEIGHT(&info));
        if (otherFormat || smaller || meta->n_planes != planes)
            return problem([&](std::ostream& s, const std::string& caps) {
                s << "its GstVideoMeta describes " << frameName(meta->format, meta->width, meta->height) << " in "
                  << meta->n_planes << (meta->n_planes == 1 ? " plane" : " planes") << ", the caps " << caps << " in "
                  << planes << (planes == 1 ? " plane" : " planes") << " (";
                const char* separator = "";
                if (otherFormat) {
                    s << "the format differs";
                    separator = "; ";
                }
                if (smaller) {
                    s << separator << "the meta's frame is smaller";
                    separator = "; ";
                }
                if (meta->n_planes != planes) s << separator << "the number of planes differs";
                s << "); the meta must describe the negotiated frame: add it with the caps' format, size and "
                  << planes << (planes == 1 ? " plane" : " planes");
            });
        if (const std::vector<guint> tooShort = shortStrides(info, meta->stride); !tooShort.empty())
            return problem([&](std::ostream& s, const std::string&) {
                for (std::size_t i = 0; i < tooShort.size(); ++i) {
                    const guint p = tooShort[i];
                    gsize rows = 0, rowBytes = 0;
                    planeSize(info, p, rows, rowBytes);
                    s << (i ? "; " : "") << "its GstVideoMeta's stride for plane " << p << " (" << meta->stride[p]
                      << " bytes) is shorter than a row of the plane (" << rowBytes << " bytes)";
                }
                s << ". Give each plane a stride of at least its row's bytes (GStreamer's default layout pads them to "
                  << strideList(info.stride, planes) << ")";
            });
        if (size < bytesNeeded(info, meta->offset, meta->stride))
            return problem([&](std::ostream& s, const std::string&) {
                s << "its GstVideoMeta (strides " << strideList(meta->stride, planes) << ") needs "
                  << bytesNeeded(info, meta->offset, meta->stride) << " bytes; make the buffer that large or give "
                  << "the strides its rows really have";
            });
        return {};
    }
    if (size >= GST_VIDEO_INFO_SIZE(&info)) return {};
    return problem([&](std::ostream& s, const std::string&) {
        s << "without a GstVideoMeta the caps imply " << GST_VIDEO_INFO_SIZE(&info) << " bytes, rows of "
          << strideList(info.stride, planes) << " bytes (GStreamer's default layout pads rows to 4 bytes). Attach a "
          << "GstVideoMeta with the real strides (gst_buffer_add_video_meta_full; GstVideo.buffer_add_video_meta_full "
          << "in Python) or pad each row to " << strideList(info.stride, planes) << " bytes";
    });
}

}  // namespace gstcudafilters
