// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The property plumbing of the elements: a table that binds each GParamSpec to a member of the element's settings
// struct. Setting a property checks the value on its own (a refused value leaves a warning naming the property and
// keeps the old one), refuses a GST_PARAM_MUTABLE_READY property while the element runs (an element warning naming
// the property and the state), stores the value under the object lock and tells the base that the settings changed;
// getting reads under the object lock. A combination the streaming thread refuses while playing is put back to the
// values in effect (settingsRefused), so a read never returns a refused value. The settings are created in instance
// init and deleted in finalize.
#include "base/gstcffilter.h"

#include <string>
#include <type_traits>
#include <vector>

namespace gstcudafilters {

// Settings that apply from the next frame while playing; those a GstController may also drive; those that apply
// in the NULL and READY states only.
constexpr GParamFlags kLiveFlags = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr GParamFlags kControllableFlags = GParamFlags(kLiveFlags | GST_PARAM_CONTROLLABLE);
constexpr GParamFlags kReadyFlags = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

// GValue ↔ settings member, by the member's type.
inline void readValue(const GValue* v, double& out) { out = g_value_get_double(v); }
inline void readValue(const GValue* v, int& out) { out = g_value_get_int(v); }
inline void readValue(const GValue* v, bool& out) { out = g_value_get_boolean(v); }
inline void readValue(const GValue* v, std::string& out) {
    const gchar* s = g_value_get_string(v);
    out = s ? s : "";
}
template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
void readValue(const GValue* v, E& out) { out = E(g_value_get_enum(v)); }

inline void writeValue(GValue* v, double in) { g_value_set_double(v, in); }
inline void writeValue(GValue* v, int in) { g_value_set_int(v, in); }
inline void writeValue(GValue* v, bool in) { g_value_set_boolean(v, in); }
inline void writeValue(GValue* v, const std::string& in) { g_value_set_string(v, in.c_str()); }
template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
void writeValue(GValue* v, E in) { g_value_set_enum(v, int(in)); }

// Checks a value on its own, before it is stored: an empty string when it is acceptable, otherwise why not.
using ValueCheck = std::string (*)(const GValue* value);

template <class Settings>
struct PropertyBinding {
    GParamSpec* spec;
    void (*store)(Settings& settings, const GValue* value);
    void (*load)(const Settings& settings, GValue* value);
    ValueCheck check;
    const char* allowed;  // what the property accepts, said when a value is refused
};

template <class M> struct MemberOf;
template <class S, class T> struct MemberOf<T S::*> {
    using Owner = S;
    using Type = T;
};

// A property stored in the settings member `Member` (e.g. bind<&ConvolveSettings::bias>(spec)).
template <auto Member>
PropertyBinding<typename MemberOf<decltype(Member)>::Owner> bind(GParamSpec* spec, ValueCheck check = nullptr,
                                                                 const char* allowed = nullptr) {
    using Settings = typename MemberOf<decltype(Member)>::Owner;
    return {spec, [](Settings& s, const GValue* v) { readValue(v, s.*Member); },
            [](const Settings& s, GValue* v) { writeValue(v, s.*Member); }, check, allowed};
}

// Warns (debug log and g_warning) that `property` keeps its value: `why`, and what it allows.
void rejectPropertyValue(GObject* object, const char* property, const char* why, const char* allowed);

// True while the element is above READY or going there. Call with the object lock held.
bool elementRunning(GstElement* element);

// The state a running element is in or going to (PAUSED or PLAYING). Call with the object lock held.
GstState runningState(GstElement* element);

// A value as a user writes it: enums by nick, strings quoted, numbers as gst-launch parses them.
std::string valueText(const GValue* value);

// Refuses a GST_PARAM_MUTABLE_READY property set while the element is in `state` (PAUSED or PLAYING): an element
// warning names the property, the value refused, the state and the value kept in effect. Call without the object
// lock (posting takes it).
void refuseWhileRunning(GstElement* element, GParamSpec* pspec, const GValue* refused, const GValue* kept,
                        GstState state, const char* why);

// The settings of an element: those the properties read and write, the copy the last work was built from and the
// copy the work in use was built from.
template <class S>
struct SettingsStore {
    S current;
    S tried;
    S inEffect;
    bool haveEffect = false;
};

// An enum type whose values are known at run time only (built from an engine table); registered once per name.
GType registerRuntimeEnum(const char* name, const std::vector<GEnumValue>& values);

// The properties of an element class whose instances keep their settings in `SettingsField` (a `Settings*` member
// of the instance struct). Property ids are the bindings' positions from 1.
template <auto SettingsField>
class SettingsProperties {
    using Instance = typename MemberOf<decltype(SettingsField)>::Owner;
    using Store = std::remove_pointer_t<typename MemberOf<decltype(SettingsField)>::Type>;
    using Settings = decltype(Store::current);
    using Binding = PropertyBinding<Settings>;

public:
    // In class_init: installs the properties, the set_property, get_property and finalize handlers, and the base's
    // hooks that learn whether the settings of the last work were applied or refused.
    static void install(GObjectClass* klass, std::vector<Binding> bindings) {
        table() = std::move(bindings);
        parentFinalize() = G_OBJECT_CLASS(g_type_class_peek_parent(klass))->finalize;
        klass->set_property = &setProperty;
        klass->get_property = &getProperty;
        klass->finalize = &finalize;
        GST_CF_FILTER_CLASS(klass)->settings_applied = &applied;
        GST_CF_FILTER_CLASS(klass)->settings_refused = &refused;
        for (std::size_t i = 0; i < table().size(); ++i)
            g_object_class_install_property(klass, guint(i + 1), table()[i].spec);
    }

    // In instance init.
    static void init(Instance* self) { self->*SettingsField = new Store(); }

    // The settings as they are now (checks and caps, from any thread).
    static Settings copy(Instance* self) {
        GST_OBJECT_LOCK(self);
        Settings s = (self->*SettingsField)->current;
        GST_OBJECT_UNLOCK(self);
        return s;
    }

    // The settings a work is built from (make_work): remembered, so that a refusal can put back what it changed.
    static Settings copyForWork(Instance* self) {
        GST_OBJECT_LOCK(self);
        Store& store = *(self->*SettingsField);
        store.tried = store.current;
        Settings s = store.current;
        GST_OBJECT_UNLOCK(self);
        return s;
    }

private:
    static std::vector<Binding>& table() {
        static std::vector<Binding> bindings;
        return bindings;
    }
    static GObjectFinalizeFunc& parentFinalize() {
        static GObjectFinalizeFunc f = nullptr;
        return f;
    }

    static const Binding* find(guint id) { return id >= 1 && id <= table().size() ? &table()[id - 1] : nullptr; }

    static void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
        const Binding* b = find(id);
        if (!b) {
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
            return;
        }
        if (b->check) {
            const std::string why = b->check(value);
            if (!why.empty()) {
                rejectPropertyValue(object, pspec->name, why.c_str(), b->allowed);
                return;
            }
        }
        auto* self = reinterpret_cast<Instance*>(object);
        GValue kept = G_VALUE_INIT;
        GST_OBJECT_LOCK(self);
        const GstState state =
            (pspec->flags & GST_PARAM_MUTABLE_READY) ? runningState(GST_ELEMENT(object)) : GST_STATE_VOID_PENDING;
        if (state == GST_STATE_VOID_PENDING) {
            b->store((self->*SettingsField)->current, value);
        } else {
            g_value_init(&kept, pspec->value_type);
            b->load((self->*SettingsField)->current, &kept);
        }
        GST_OBJECT_UNLOCK(self);
        if (state != GST_STATE_VOID_PENDING) {
            refuseWhileRunning(GST_ELEMENT(object), pspec, value, &kept, state, b->allowed);
            g_value_unset(&kept);
            return;
        }
        gst_cf_filter_settings_changed(GST_CF_FILTER(object));
    }

    static void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
        const Binding* b = find(id);
        if (!b) {
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
            return;
        }
        auto* self = reinterpret_cast<Instance*>(object);
        GST_OBJECT_LOCK(self);
        b->load((self->*SettingsField)->current, value);
        GST_OBJECT_UNLOCK(self);
    }

    // The work built from the last copyForWork is in use.
    static void applied(GstCfFilter* filter) {
        auto* self = reinterpret_cast<Instance*>(filter);
        GST_OBJECT_LOCK(self);
        Store& store = *(self->*SettingsField);
        store.inEffect = store.tried;
        store.haveEffect = true;
        GST_OBJECT_UNLOCK(self);
    }

    // The work built from the last copyForWork was refused and the previous one stays: each property that copy
    // changed, and that no setter changed since, is put back to the value in effect (and notified). Returns the
    // refused values as "name=value", for the warning.
    static std::string refused(GstCfFilter* filter) {
        auto* self = reinterpret_cast<Instance*>(filter);
        std::string described;
        std::vector<GParamSpec*> reverted;
        GValue tried = G_VALUE_INIT, inEffect = G_VALUE_INIT, current = G_VALUE_INIT;
        GST_OBJECT_LOCK(self);
        Store& store = *(self->*SettingsField);
        for (const Binding& b : table()) {
            if (!store.haveEffect) break;
            for (GValue* v : {&tried, &inEffect, &current}) g_value_init(v, b.spec->value_type);
            b.load(store.tried, &tried);
            b.load(store.inEffect, &inEffect);
            b.load(store.current, &current);
            if (gst_value_compare(&tried, &inEffect) != GST_VALUE_EQUAL) {
                described += (described.empty() ? "" : ", ") + std::string(b.spec->name) + "=" + valueText(&tried);
                if (gst_value_compare(&current, &tried) == GST_VALUE_EQUAL) {
                    b.store(store.current, &inEffect);
                    reverted.push_back(b.spec);
                }
            }
            for (GValue* v : {&tried, &inEffect, &current}) g_value_unset(v);
        }
        GST_OBJECT_UNLOCK(self);
        for (GParamSpec* spec : reverted) g_object_notify_by_pspec(G_OBJECT(self), spec);
        return described;
    }

    static void finalize(GObject* object) {
        auto* self = reinterpret_cast<Instance*>(object);
        delete (self->*SettingsField);
        self->*SettingsField = nullptr;
        parentFinalize()(object);
    }
};

}  // namespace gstcudafilters
