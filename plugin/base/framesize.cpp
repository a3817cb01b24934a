// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/framesize.h"

#include <sstream>

namespace gstcudafilters {
namespace {

// 128-bit unsigned as decimal: the sizes of 2^31 × 2^31 frames do not fit 64 bits.
std::string decimal(unsigned __int128 v) {
    if (v == 0) return "0";
    std::string s;
    for (; v > 0; v /= 10) s.insert(s.begin(), char('0' + int(v % 10)));
    return s;
}

}  // namespace

std::string frameSizeProblem(GstCaps* caps, const GstVideoInfo* info) {
    if (info) {
        bool fits = GST_VIDEO_INFO_SIZE(info) <= gsize(G_MAXINT);
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(info); ++p) fits = fits && GST_VIDEO_INFO_PLANE_STRIDE(info, p) > 0;
        if (fits) return {};
    }
    const GstStructure* s = gst_caps_get_structure(caps, 0);
    const gchar* name = gst_structure_get_string(s, "format");
    gint width = 0, height = 0;
    if (!name || !gst_structure_get_int(s, "width", &width) || !gst_structure_get_int(s, "height", &height) ||
        width <= 0 || height <= 0)
        return {};  // not a size problem: the caller reports the caps as invalid
    const GstVideoFormatInfo* finfo = gst_video_format_get_info(gst_video_format_from_string(name));
    if (!finfo || GST_VIDEO_FORMAT_INFO_FORMAT(finfo) == GST_VIDEO_FORMAT_UNKNOWN) return {};
    // The bytes of each plane as GStreamer lays them out (rows padded to 4 bytes), in 128 bits.
    unsigned __int128 frame = 0, widestRow = 0;
    for (guint p = 0; p < GST_VIDEO_FORMAT_INFO_N_PLANES(finfo); ++p) {
        gint components[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component(finfo, p, components);
        const int c = components[0];
        const unsigned __int128 w = unsigned(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo, c, width));
        const unsigned __int128 h = unsigned(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo, c, height));
        const unsigned __int128 row = (w * unsigned(GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, c)) + 3) / 4 * 4;
        widestRow = row > widestRow ? row : widestRow;
        frame += row * h;
    }
    std::ostringstream m;
    m << "the caps describe " << name << " " << width << "x" << height << " frames of " << decimal(frame)
      << " bytes (rows of up to " << decimal(widestRow) << " bytes); GStreamer's video layout (GstVideoInfo) holds "
      << "frames of at most " << G_MAXINT << " bytes: use a smaller width or height";
    return m.str();
}

}  // namespace gstcudafilters
