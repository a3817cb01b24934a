// SPDX-License-Identifier: LGPL-2.1-or-later
// What ships: the plugin that meson installs (and the Debian package carries) has no test seam; the uninstalled
// test build beside it has one, which shows the search would find it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(ReleasePlugin, HasNoTestSeam) {
    const std::string plugin = fileBytes(env("RELEASE_PLUGIN"));
    ASSERT_GT(plugin.size(), 10000u);
    EXPECT_EQ(plugin.find("TEST_INJECT"), std::string::npos) << env("RELEASE_PLUGIN");
    EXPECT_EQ(plugin.find("CUDAFILTERS_TEST"), std::string::npos) << env("RELEASE_PLUGIN");
}

TEST(TestSeamPlugin, HasTheFaultSeam) {
    if (env("TEST_SEAM_PLUGIN").empty()) GTEST_SKIP() << "no test-seam plugin in this build (-Dtest-seams=disabled)";
    EXPECT_NE(fileBytes(env("TEST_SEAM_PLUGIN")).find("CUDAFILTERS_TEST_INJECT_FAULT"), std::string::npos);
}
