// SPDX-License-Identifier: LGPL-2.1-or-later
// GoogleTest main for the element tests: GStreamer is initialised once; the plugin comes from GST_PLUGIN_PATH.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>

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
    const int result = RUN_ALL_TESTS();
    gst_deinit();
    return result;
}
