// SPDX-License-Identifier: LGPL-2.1-or-later
// Each example runs to completion and leaves what it promises.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// Runs a shell command with output captured into the test log; returns the exit status.
int run(const std::string& command) {
    const std::string full =
        "SINK=fakesink FRAMES=12 BACKEND=${CUDAFILTERS_TEST_BACKEND:-auto} timeout 120 " + command + " 2>&1";
    std::printf("$ %s\n", full.c_str());
    std::fflush(stdout);
    const int status = std::system(full.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

fs::path scratch(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("cudafilters-examples-" + std::to_string(::getpid())) / name;
    fs::create_directories(dir);
    return dir;
}

class LaunchScript : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(LaunchScript, RunsToTheEnd) {
    const fs::path dir = scratch(GetParam());
    const std::string script = env("EXAMPLES_SOURCE_DIR") + "/launch/" + GetParam() + ".sh";
    ASSERT_TRUE(fs::exists(script)) << script;
    EXPECT_EQ(run("env TMPDIR=" + dir.string() + " bash " + script), 0);
}

INSTANTIATE_TEST_SUITE_P(Examples, LaunchScript,
                         ::testing::Values("blur", "sharpen", "sobel", "custom-kernel", "kernel-bank", "clahe-file",
                                           "histeq-edges", "transcode"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

TEST(Examples, TranscodeWritesAFile) {
    const fs::path dir = scratch("transcode-output");
    const fs::path out = dir / "out.avi";
    ASSERT_EQ(run("env TMPDIR=" + dir.string() + " bash " + env("EXAMPLES_SOURCE_DIR") + "/launch/transcode.sh '' " +
                  out.string()),
              0);
    ASSERT_TRUE(fs::exists(out));
    EXPECT_GT(fs::file_size(out), 1000u);
}

TEST(Examples, EmbeddingAppShowsTheSigmaSweep) { EXPECT_EQ(run(env("LIVE_TUNING_EXE") + " 60"), 0); }

TEST(Examples, CameraFallsBackToTestSource) {
    EXPECT_EQ(run(env("CAMERA_EXE") + " --test-source --headless --seconds 2"), 0);
}

TEST(Examples, DemoWritesVideoAndSnapshots) {
    const fs::path dir = scratch("demo");
    ASSERT_EQ(run(env("DEMO_EXE") + " --frames 45 --size 160x96 --output " + dir.string()), 0);
    ASSERT_TRUE(fs::exists(dir / "demo.avi"));
    EXPECT_GT(fs::file_size(dir / "demo.avi"), 1000u);
    EXPECT_TRUE(fs::exists(dir / "snapshot-00.png"));
    EXPECT_TRUE(fs::exists(dir / "snapshot-01.png"));
}
