// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes docs/elements.md from what a built plugin registers: its elements, their pads and caps, and every property
// with type, range, default and flags (as gst-inspect-1.0 reports them). The plugin is loaded from its file into a
// private registry, so the page depends on that file alone, not on the plugins installed on the machine.
//   element-docs PLUGIN.so [OUTPUT.md]      (standard output without OUTPUT)
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Owns a g_malloc'ed string.
std::string take(gchar* text) {
    std::string s = text ? text : "";
    g_free(text);
    return s;
}

// Markdown table cells: no pipes or line breaks.
std::string cell(std::string text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string typeName(const GParamSpec* spec) {
    if (G_IS_PARAM_SPEC_ENUM(spec) || G_IS_PARAM_SPEC_FLAGS(spec)) return g_type_name(spec->value_type);
    return g_type_name(G_PARAM_SPEC_VALUE_TYPE(spec));
}

template <typename T>
std::string number(T value) {
    std::ostringstream s;
    s << value;
    return s.str();
}

template <typename T>
std::string range(T min, T max) {
    return number(min) + " – " + number(max);
}

// A value's name in the enum's GType: G_DEFINE_ENUM_TYPE names it after the C constant, which says nothing the nick
// does not; a hand-written table names it in words.
bool namedInWords(const char* valueName) {
    for (const char* c = valueName; *c; ++c)
        if (g_ascii_islower(*c) || *c == ' ') return true;
    return false;
}

std::string enumValues(GType type) {
    auto* klass = static_cast<GEnumClass*>(g_type_class_ref(type));
    std::string s;
    for (guint i = 0; i < klass->n_values; ++i)
        s += std::string(i ? ", " : "") + "`" + klass->values[i].value_nick + "`" +
             (namedInWords(klass->values[i].value_name) ? std::string(" (") + klass->values[i].value_name + ")" : "");
    g_type_class_unref(klass);
    return s;
}

std::string rangeOrValues(const GParamSpec* spec) {
    if (G_IS_PARAM_SPEC_INT(spec)) return range(G_PARAM_SPEC_INT(spec)->minimum, G_PARAM_SPEC_INT(spec)->maximum);
    if (G_IS_PARAM_SPEC_UINT(spec)) return range(G_PARAM_SPEC_UINT(spec)->minimum, G_PARAM_SPEC_UINT(spec)->maximum);
    if (G_IS_PARAM_SPEC_INT64(spec))
        return range(G_PARAM_SPEC_INT64(spec)->minimum, G_PARAM_SPEC_INT64(spec)->maximum);
    if (G_IS_PARAM_SPEC_UINT64(spec))
        return range(G_PARAM_SPEC_UINT64(spec)->minimum, G_PARAM_SPEC_UINT64(spec)->maximum);
    if (G_IS_PARAM_SPEC_FLOAT(spec))
        return range(G_PARAM_SPEC_FLOAT(spec)->minimum, G_PARAM_SPEC_FLOAT(spec)->maximum);
    if (G_IS_PARAM_SPEC_DOUBLE(spec))
        return range(G_PARAM_SPEC_DOUBLE(spec)->minimum, G_PARAM_SPEC_DOUBLE(spec)->maximum);
    if (G_IS_PARAM_SPEC_ENUM(spec)) return enumValues(spec->value_type);
    return "";
}

std::string defaultValue(const GParamSpec* spec) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_PARAM_SPEC_VALUE_TYPE(spec));
    g_param_value_set_default(const_cast<GParamSpec*>(spec), &value);
    std::string s;
    if (G_VALUE_HOLDS_STRING(&value))
        s = g_value_get_string(&value) ? std::string("\"") + g_value_get_string(&value) + "\"" : "NULL";
    else if (G_VALUE_HOLDS_ENUM(&value))
        s = g_enum_get_value(static_cast<GEnumClass*>(g_type_class_peek(spec->value_type)), g_value_get_enum(&value))
                ->value_nick;
    else if (G_VALUE_HOLDS_BOOLEAN(&value)) s = g_value_get_boolean(&value) ? "true" : "false";
    else if (G_VALUE_HOLDS_DOUBLE(&value)) s = number(g_value_get_double(&value));
    else if (G_VALUE_HOLDS_FLOAT(&value)) s = number(g_value_get_float(&value));
    else s = take(g_strdup_value_contents(&value));
    g_value_unset(&value);
    return "`" + s + "`";
}

std::string flags(const GParamSpec* spec) {
    std::vector<std::string> f;
    if (spec->flags & G_PARAM_READABLE) f.push_back("readable");
    if (spec->flags & G_PARAM_WRITABLE) f.push_back("writable");
    if (spec->flags & GST_PARAM_CONTROLLABLE) f.push_back("controllable");
    if (spec->flags & GST_PARAM_MUTABLE_PLAYING) f.push_back("changeable in PLAYING");
    else if (spec->flags & GST_PARAM_MUTABLE_PAUSED) f.push_back("changeable up to PAUSED");
    else if (spec->flags & GST_PARAM_MUTABLE_READY) f.push_back("changeable up to READY");
    else if (spec->flags & G_PARAM_WRITABLE) f.push_back("changeable in NULL");
    std::string s;
    for (std::size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + f[i];
    return s;
}

// One caps structure a line, as gst-inspect-1.0 prints them.
std::string capsLines(GstCaps* caps) {
    std::string s;
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstCaps* one = gst_caps_copy_nth(caps, i);
        s += take(gst_caps_to_string(one)) + "\n";
        gst_caps_unref(one);
    }
    return s;
}

const char* presenceName(GstPadPresence presence) {
    switch (presence) {
    case GST_PAD_ALWAYS: return "always";
    case GST_PAD_SOMETIMES: return "sometimes";
    default: return "on request";
    }
}

// Properties the element adds to GStreamer's classes (GstObject, GstElement, GstBaseTransform), in the order of
// their type hierarchy from the plugin's base class down.
void writeProperties(std::ostream& out, GstElementFactory* factory) {
    auto* klass = static_cast<GObjectClass*>(g_type_class_ref(gst_element_factory_get_element_type(factory)));
    guint count = 0;
    GParamSpec** specs = g_object_class_list_properties(klass, &count);
    std::vector<GParamSpec*> own, inherited;
    for (guint i = 0; i < count; ++i) {
        const std::string owner = g_type_name(specs[i]->owner_type);
        (owner.rfind("GstCuda", 0) == 0 || owner.rfind("GstCf", 0) == 0 ? own : inherited).push_back(specs[i]);
    }
    out << "| property | type | default | range or values | flags | description |\n";
    out << "|---|---|---|---|---|---|\n";
    for (GParamSpec* spec : own)
        out << "| `" << spec->name << "` | " << typeName(spec) << " | " << cell(defaultValue(spec)) << " | "
            << cell(rangeOrValues(spec)) << " | " << flags(spec) << " | " << cell(g_param_spec_get_blurb(spec))
            << " |\n";
    if (!inherited.empty()) {
        out << "\nFrom GStreamer's classes: ";
        for (std::size_t i = 0; i < inherited.size(); ++i)
            out << (i ? ", " : "") << "`" << inherited[i]->name << "` (" << g_type_name(inherited[i]->owner_type) << ")";
        out << ".\n";
    }
    g_free(specs);
    g_type_class_unref(klass);
}

void writeElement(std::ostream& out, GstElementFactory* factory) {
    const auto meta = [factory](const char* key) {
        const gchar* v = gst_element_factory_get_metadata(factory, key);
        return std::string(v ? v : "");
    };
    out << "## " << GST_OBJECT_NAME(factory) << "\n\n";
    out << "**" << meta(GST_ELEMENT_METADATA_LONGNAME) << "** (" << meta(GST_ELEMENT_METADATA_KLASS) << ") — "
        << meta(GST_ELEMENT_METADATA_DESCRIPTION) << "\n\n";
    out << "### Pads\n\n";
    for (const GList* l = gst_element_factory_get_static_pad_templates(factory); l; l = l->next) {
        auto* templ = static_cast<GstStaticPadTemplate*>(l->data);
        GstCaps* caps = gst_static_caps_get(&templ->static_caps);
        out << "`" << templ->name_template << "` (" << (templ->direction == GST_PAD_SRC ? "source" : "sink") << ", "
            << presenceName(templ->presence) << "):\n\n```\n" << capsLines(caps) << "```\n\n";
        gst_caps_unref(caps);
    }
    out << "### Properties\n\n";
    writeProperties(out, factory);
    out << "\n";
}

bool byName(GstPluginFeature* a, GstPluginFeature* b) {
    return g_strcmp0(GST_OBJECT_NAME(a), GST_OBJECT_NAME(b)) < 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s PLUGIN.so [OUTPUT.md]\n", argv[0]);
        return 2;
    }
    gchar* registry = g_build_filename(g_get_tmp_dir(), "cudafilters-element-docs-XXXXXX", nullptr);
    const int fd = g_mkstemp(registry);
    if (fd >= 0) close(fd);
    g_setenv("GST_REGISTRY", registry, TRUE);
    g_setenv("GST_PLUGIN_SYSTEM_PATH_1_0", "", TRUE);
    g_setenv("GST_PLUGIN_PATH_1_0", "", TRUE);
    g_setenv("GST_PLUGIN_PATH", "", TRUE);
    gst_init(nullptr, nullptr);

    GError* error = nullptr;
    GstPlugin* plugin = gst_plugin_load_file(argv[1], &error);
    if (!plugin) {
        std::fprintf(stderr, "element-docs: cannot load %s: %s\n", argv[1], error ? error->message : "?");
        return 1;
    }
    GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), gst_plugin_get_name(plugin));
    std::vector<GstPluginFeature*> elements;
    for (GList* l = features; l; l = l->next)
        if (GST_IS_ELEMENT_FACTORY(l->data)) elements.push_back(GST_PLUGIN_FEATURE(l->data));
    std::sort(elements.begin(), elements.end(), byName);

    std::ostringstream page;
    page << "# Element reference\n\n"
         << "Generated from the registry by `tools/element_docs.cpp` (`ninja -C build element-docs` rewrites it); the "
            "`release` test suite fails when it differs from what the built plugin reports. Do not edit by hand.\n\n"
         << "Plugin `" << gst_plugin_get_name(plugin) << "` " << gst_plugin_get_version(plugin) << ", "
         << gst_plugin_get_license(plugin) << ", " << gst_plugin_get_package(plugin) << " ("
         << gst_plugin_get_origin(plugin) << "): " << gst_plugin_get_description(plugin) << ".\n\n";
    for (GstPluginFeature* element : elements) writeElement(page, GST_ELEMENT_FACTORY(element));
    gst_plugin_feature_list_free(features);
    gst_object_unref(plugin);

    std::string text = page.str();
    text.erase(text.find_last_not_of('\n') + 1);
    text += "\n";
    int status = 0;
    if (argc == 3) {
        std::ofstream file(argv[2], std::ios::binary);
        file << text;
        status = file.good() ? 0 : 1;
    } else {
        std::cout << text;
    }
    g_unlink(registry);
    g_free(registry);
    return status;
}
