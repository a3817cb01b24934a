// SPDX-License-Identifier: LGPL-2.1-or-later
// The test-only fault seam of the frame executors (see FaultSeam in frameexecutor.h).
#include "frameexecutor.h"

#include <cstring>
#include <string>

namespace gstcudafilters {
namespace {

struct FaultName {
    FaultCall call;
    const char* name;      // as written in CUDAFILTERS_TEST_INJECT_FAULT
    const char* cudaCall;  // what the CUDA executor calls there, named in the error
};

constexpr FaultName kFaultNames[] = {
    {FaultCall::Alloc, "alloc", "cudaMalloc / cudaMallocHost"},
    {FaultCall::Stream, "stream", "cudaStreamCreate / cudaEventRecord"},
    {FaultCall::Upload, "upload", "cudaMemcpy2DAsync (upload)"},
    {FaultCall::Launch, "launch", "cudaLaunchKernel (filter)"},
    {FaultCall::Download, "download", "cudaMemcpy2DAsync (download)"},
    {FaultCall::Sync, "sync", "cudaEventSynchronize (frame completion)"},
    {FaultCall::Build, "build", "cudaMalloc (engine objects for new settings)"},
};

}  // namespace

bool FaultSeam::parse(const char* text, FaultSeam& seam) {
    if (!text) return false;
    const char* at = std::strchr(text, '@');
    if (!at) return false;
    const std::string name(text, at);
    char* end = nullptr;
    const guint64 frame = g_ascii_strtoull(at + 1, &end, 10);
    if (end == at + 1) return false;
    bool fatal = false;
    if (*end == ':' && std::strcmp(end + 1, "fatal") == 0) fatal = true;
    else if (*end) return false;
    for (const FaultName& f : kFaultNames)
        if (name == f.name) {
            seam = FaultSeam();
            seam.call = f.call;
            seam.frame = frame;
            seam.fatal = fatal;
            return true;
        }
    return false;
}

void FaultSeam::hit(FaultCall at, guint64 frameIndex) {
    if (fired || at != call || frameIndex < frame) return;
    fired = true;
    for (const FaultName& f : kFaultNames)
        if (f.call == call)
            throw InjectedFault(std::string(f.cudaCall) + " (injected at frame " + std::to_string(frameIndex) + ")",
                                fatal);
}

}  // namespace gstcudafilters
