// SPDX-License-Identifier: LGPL-2.1-or-later
// What ships: the plugin that meson installs (and the Debian package carries) has no test seam (the uninstalled
// test build beside it has one, which shows the search would find it), nor do the product's sources, docs/elements.md
// describes it, and every source names its licence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

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

// The product's sources carry no test seam: the element tests' fault injection lives in plugin/test-seam/, whose
// executor factory the uninstalled test build links in place of the product's, so nothing else under plugin/, nor
// the engine under engine/, has a seam's define or fault point to compile in or out.
TEST(Sources, ProductHasNoTestCode) {
    namespace fs = std::filesystem;
    const fs::path root = env("SOURCE_ROOT");
    const fs::path seamDir = root / "plugin" / "test-seam";
    std::vector<std::string> found;
    int checked = 0;
    for (const char* dir : {"plugin", "engine"}) {
        ASSERT_TRUE(fs::is_directory(root / dir)) << root / dir;
        for (auto it = fs::recursive_directory_iterator(root / dir); it != fs::recursive_directory_iterator(); ++it) {
            if (it->is_directory() && it->path() == seamDir) it.disable_recursion_pending();
            if (!it->is_regular_file()) continue;
            const std::string text = fileBytes(it->path().string());
            ++checked;
            for (const char* needle : {"CUDAFILTERS_TEST_SEAM", "faultPoint", "Backend::Reference"})
                if (text.find(needle) != std::string::npos)
                    found.push_back(fs::relative(it->path(), root).string() + " (" + needle + ")");
        }
    }
    EXPECT_GT(checked, 50);
    std::string list;
    for (const std::string& f : found) list += "\n  " + f;
    EXPECT_TRUE(found.empty()) << "test code in product sources (seams belong in plugin/test-seam/, references in "
                                  "tests/reference/):"
                               << list;
}

// The tree says what the code is, not how it came to be: work periods, tracker numbers and raw logs stay in git.
TEST(Sources, TreeCarriesNoWorkHistory) {
    namespace fs = std::filesystem;
    const fs::path root = env("SOURCE_ROOT");
    const fs::path self = fs::path(__FILE__).filename();
    // "session" as a word: GStreamer's RTSP API names (GstRTSPSessionPool, gst_rtsp_session_…) are not history.
    const std::regex history("\\bsessions?\\b|twenty|nineteenth|eighteenth|seventeenth|sixteenth|fifteenth|\\bissue [0-9]",
                             std::regex::icase);
    std::vector<std::string> found;
    int checked = 0;
    auto scan = [&](const fs::path& file) {
        if (file.filename() == self) return;
        const std::string text = fileBytes(file.string());
        ++checked;
        std::smatch m;
        if (std::regex_search(text, m, history)) {
            const auto line = std::count(text.begin(), text.begin() + m.position(0), '\n') + 1;
            found.push_back(fs::relative(file, root).string() + ":" + std::to_string(line) + " '" + m.str(0) + "'");
        }
    };
    for (const char* dir : {"plugin", "engine", "bench", "scripts", "tests", "tools", "examples", "docs", "debian"}) {
        if (!fs::is_directory(root / dir)) continue;
        for (auto it = fs::recursive_directory_iterator(root / dir); it != fs::recursive_directory_iterator(); ++it) {
            if (it->is_directory() && it->path() == root / "tests" / "fuzz") it.disable_recursion_pending();
            const std::string ext = it->path().extension().string();
            if (it->is_regular_file() && ext != ".png" && ext != ".jpg") scan(it->path());
        }
    }
    for (const char* file : {"README.md", "meson.build", "meson_options.txt"}) scan(root / file);
    EXPECT_GT(checked, 100);
    std::string list;
    for (const std::string& f : found) list += "\n  " + f;
    EXPECT_TRUE(found.empty()) << "history in the tree (it belongs in commit messages):" << list;
    EXPECT_FALSE(fs::exists(root / "docs" / "raw")) << "raw logs belong out of the tree";
    const auto lines = [&](const char* file) {
        const std::string text = fileBytes((root / file).string());
        return std::count(text.begin(), text.end(), '\n');
    };
    EXPECT_LE(lines("README.md"), 250);
    EXPECT_LE(lines("docs/performance.md"), 400);
}

// docs/elements.md is what tools/element_docs.cpp writes for the built plugin.
TEST(ElementDocs, MatchWhatTheBuiltPluginReports) {
    const std::string generated = ::testing::TempDir() + "elements-generated.md";
    const std::string command = env("ELEMENT_DOCS_EXE") + " " + env("RELEASE_PLUGIN") + " " + generated;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const std::string want = fileBytes(generated);
    const std::string have = fileBytes(env("ELEMENT_DOCS_PAGE"));
    std::remove(generated.c_str());
    if (have == want) return;
    std::size_t at = 0;
    while (at < have.size() && at < want.size() && have[at] == want[at]) ++at;
    const std::size_t line = std::size_t(std::count(have.begin(), have.begin() + std::ptrdiff_t(at), '\n')) + 1;
    const std::size_t lineStart = have.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t from = lineStart == std::string::npos ? 0 : lineStart + 1;
    const std::string message = "docs/elements.md differs from the plugin from line " + std::to_string(line) +
                                ":\n  page:   " + have.substr(from, have.find('\n', from) - from) +
                                "\n  plugin: " + want.substr(from, want.find('\n', from) - from) +
                                "\nRegenerate it: ninja -C <build> element-docs";
    if (env("RELEASE_BUILD_HAS_CUDA") != "1")
        GTEST_SKIP() << "the page describes the CUDA build and this build has no CUDA backend; " << message;
    FAIL() << message;
}

// Every source, header, script and meson file says its licence in its first lines (LICENSE holds the text).
TEST(Sources, EachNamesItsLicense) {
    namespace fs = std::filesystem;
    const fs::path root = env("SOURCE_ROOT");
    ASSERT_TRUE(fs::exists(root / "LICENSE"));
    std::vector<std::string> unnamed;
    int checked = 0;
    for (const char* dir : {"engine", "plugin", "tests", "tools", "examples", "bench", "scripts", "debian"}) {
        if (!fs::exists(root / dir)) continue;
        for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
            const fs::path& path = entry.path();
            const std::string ext = path.extension().string();
            const bool source = ext == ".cpp" || ext == ".h" || ext == ".hpp" || ext == ".cu" || ext == ".cuh" ||
                                ext == ".c" || ext == ".py" || ext == ".sh" || path.filename() == "meson.build";
            if (!entry.is_regular_file() || !source) continue;
            std::ifstream in(path);
            std::string head(512, '\0');
            in.read(head.data(), std::streamsize(head.size()));
            head.resize(std::size_t(in.gcount()));
            ++checked;
            if (head.find("SPDX-License-Identifier: LGPL-2.1-or-later") == std::string::npos)
                unnamed.push_back(fs::relative(path, root).string());
        }
    }
    EXPECT_GT(checked, 100);
    std::string list;
    for (const std::string& f : unnamed) list += "\n  " + f;
    EXPECT_TRUE(unnamed.empty()) << "no 'SPDX-License-Identifier: LGPL-2.1-or-later' line in the first lines of:"
                                 << list;
}
