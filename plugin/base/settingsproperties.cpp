// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/settingsproperties.h"

#include <algorithm>
#include <mutex>

GST_DEBUG_CATEGORY_STATIC(cuda_filter_properties_debug);
#define GST_CAT_DEFAULT cuda_filter_properties_debug

namespace gstcudafilters {

void rejectPropertyValue(GObject* object, const char* property, const char* why, const char* allowed) {
    static std::once_flag once;
    std::call_once(once, [] {
        GST_DEBUG_CATEGORY_INIT(cuda_filter_properties_debug, "cudafilterproperties", 0, "element properties");
    });
    const std::string also = allowed ? std::string("; ") + allowed : std::string();
    GST_WARNING_OBJECT(object, "invalid value for property '%s': %s%s. Keeping the previous value.", property, why,
                       also.c_str());
    g_warning("%s: invalid value for property '%s': %s%s. Keeping the previous value.", GST_OBJECT_NAME(object),
              property, why, also.c_str());
}

bool elementRunning(GstElement* element) {
    return GST_STATE(element) > GST_STATE_READY || GST_STATE_PENDING(element) > GST_STATE_READY;
}

GType registerRuntimeEnum(const char* name, const std::vector<GEnumValue>& values) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (GType known = g_type_from_name(name)) return known;
    // GLib keeps the table for the life of the type: a copy that is never freed, with its terminator.
    auto* table = new GEnumValue[values.size() + 1];
    std::copy(values.begin(), values.end(), table);
    table[values.size()] = {0, nullptr, nullptr};
    return g_enum_register_static(name, table);
}

}  // namespace gstcudafilters
