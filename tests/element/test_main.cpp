// SPDX-License-Identifier: LGPL-2.1-or-later
// GoogleTest main for the element tests: GStreamer is initialised once; the plugin comes from GST_PLUGIN_PATH.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kUnderThreadSanitizer = true;
#else
constexpr bool kUnderThreadSanitizer = false;
#endif
#else
constexpr bool kUnderThreadSanitizer = false;
#endif

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    const char* backend = g_getenv("CUDAFILTERS_TEST_BACKEND");
    std::printf("element tests on backend %s\n", backend && *backend ? backend : "cpu");
    GstElementFactory* factory = gst_element_factory_find("cudaconvolve");
    if (!factory) {
        std::fprintf(stderr, "cudaconvolve is not registered: set GST_PLUGIN_PATH to the build's plugin folder\n");
        return 1;
    }
    gst_object_unref(factory);
    // The pipelines of the frame-flow tests need GStreamer's own elements; the suite's registry holds only the
    // plugin under test (GST_PLUGIN_SYSTEM_PATH_1_0 is empty so an installed copy cannot shadow the build's).
    // Not under ThreadSanitizer: registering their types from the uninstrumented GObject takes its locks in an order
    // TSan reports; the TSan run (scripts/tsan.sh) leaves out the tests that need them.
    const char* dir = g_getenv("CUDAFILTERS_TEST_GST_PLUGINS_DIR");
    for (const char* name : {"coreelements", "videotestsrc", "app"}) {
        if (kUnderThreadSanitizer) break;
        const char* element = std::string(name) == "coreelements" ? "fakesink" : std::string(name) == "app" ? "appsrc" : name;
        if (GstElementFactory* f = gst_element_factory_find(element)) {
            gst_object_unref(f);
            continue;
        }
        gchar* file = g_strdup_printf("%s/libgst%s.so", dir && *dir ? dir : CUDAFILTERS_TEST_GST_PLUGINS_DIR, name);
        GError* error = nullptr;
        if (GstPlugin* plugin = gst_plugin_load_file(file, &error)) gst_object_unref(plugin);
        else std::fprintf(stderr, "could not load %s: %s\n", file, error ? error->message : "?");
        g_clear_error(&error);
        g_free(file);
    }
    const int result = RUN_ALL_TESTS();
    gst_deinit();
    return result;
}
