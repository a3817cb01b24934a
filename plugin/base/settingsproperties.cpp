// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/settingsproperties.h"

#include <algorithm>
#include <mutex>

GST_DEBUG_CATEGORY_STATIC(cuda_filter_properties_debug);
#define GST_CAT_DEFAULT cuda_filter_properties_debug

namespace gstcudafilters {

namespace {

void initDebug() {
    static std::once_flag once;
    std::call_once(once, [] {
        GST_DEBUG_CATEGORY_INIT(cuda_filter_properties_debug, "cudafilterproperties", 0, "element properties");
    });
}

}  // namespace

void rejectPropertyValue(GObject* object, const char* property, const char* why, const char* allowed) {
    initDebug();
    const std::string also = allowed ? std::string("; ") + allowed : std::string();
    GST_WARNING_OBJECT(object, "invalid value for property '%s': %s%s. Keeping the previous value.", property, why,
                       also.c_str());
    g_warning("%s: invalid value for property '%s': %s%s. Keeping the previous value.", GST_OBJECT_NAME(object),
              property, why, also.c_str());
}

bool elementRunning(GstElement* element) { return runningState(element) != GST_STATE_VOID_PENDING; }

GstState runningState(GstElement* element) {
    const GstState state = std::max(GST_STATE(element), GST_STATE_PENDING(element));
    return state > GST_STATE_READY ? state : GST_STATE_VOID_PENDING;
}

std::string valueText(const GValue* value) {
    if (G_VALUE_HOLDS_ENUM(value)) {
        auto* klass = static_cast<GEnumClass*>(g_type_class_ref(G_VALUE_TYPE(value)));
        const GEnumValue* v = g_enum_get_value(klass, g_value_get_enum(value));
        std::string s = v ? v->value_nick : std::to_string(g_value_get_enum(value));
        g_type_class_unref(klass);
        return s;
    }
    if (G_VALUE_HOLDS_STRING(value)) {
        const gchar* s = g_value_get_string(value);
        return std::string("\"") + (s ? s : "") + "\"";
    }
    gchar* text = gst_value_serialize(value);
    std::string s = text ? text : "?";
    g_free(text);
    return s;
}

void refuseWhileRunning(GstElement* element, GParamSpec* pspec, const GValue* refused, const GValue* kept,
                        GstState state, const char* why) {
    initDebug();
    const std::string because = why ? std::string(" (") + why + ")" : std::string();
    const std::string text = std::string(pspec->name) + " can change in the NULL and READY states only" + because +
                             ": " + valueText(refused) + " is refused while " + gst_element_state_get_name(state) +
                             " and " + valueText(kept) + " stays in effect; set it before the element starts, or "
                             "set the element to READY first";
    GST_WARNING_OBJECT(element, "%s", text.c_str());
    GST_ELEMENT_WARNING(element, LIBRARY, SETTINGS, ("%s: %s", GST_OBJECT_NAME(element), text.c_str()), (nullptr));
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
