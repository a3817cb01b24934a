// SPDX-License-Identifier: LGPL-2.1-or-later
// The executor factory of the test build of the plugin (see executorfactory.h), linked in place of the product's:
// the fault seam. CUDAFILTERS_TEST_INJECT_FAULT="<call>@<frame>[:fatal]", read at start, makes the first call of
// that kind at or after frame <frame> throw InjectedFault, once per element run, on whichever executor runs. Calls:
// alloc (device or pinned allocation), stream (stream/event creation or recording), upload, launch (the filter
// kernels), download, sync (frame completion), build (making the engine objects for new settings). ":fatal" (or
// backend=cuda/cpu) makes it an element error; otherwise backend=auto switches to a fresh CPU executor as after a real
// CUDA failure, on the CPU executor too, so that CPU-only CI proves the fallback. Unset, the run gets the plain factory.
//
// The executors are wrapped, not changed: the wrapper fails a call just before the wrapped executor's configure,
// submit or complete where the CUDA executor makes that call before any work of the frame is enqueued (alloc,
// upload, launch: the frame's work is then not started), and just after a submit where the call comes last (download,
// stream: the frame is then filtered, as the CPU executor has done before its own download point). Either way the
// frame that fails, the error and a fallback's redoing of every frame in flight are those of a failure inside.
#include "executors/executorfactory.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

GST_DEBUG_CATEGORY_EXTERN(gst_cf_filter_debug);
#define GST_CAT_DEFAULT gst_cf_filter_debug

namespace gstcudafilters {
namespace {

enum class FaultCall { Alloc, Stream, Upload, Launch, Download, Sync, Build };

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

// What the seam throws: a CudaError naming the call, so every caller handles it as a real CUDA failure.
class InjectedFault : public cudafilters::CudaError {
public:
    InjectedFault(std::string call, bool fatal)
        : CudaError(std::move(call), 999, "cudaErrorInjected", "fault injected by CUDAFILTERS_TEST_INJECT_FAULT"),
          fatal_(fatal) {}
    bool fatal() const noexcept { return fatal_; }

private:
    bool fatal_;
};

// The run's armed fault, shared by its factory and every executor the factory makes, so that it fires once per run
// whichever executor meets it.
struct FaultSeam {
    FaultCall call = FaultCall::Upload;
    guint64 frame = 0;
    bool fatal = false;
    bool fired = false;
    guint64 submitted = 0;  // frames the base has started (the highest frame index submitted, plus one)
    std::mutex lock;

    // Parses "<call>@<frame>[:fatal]"; false when the text is not one.
    static bool parse(const char* text, FaultSeam& seam) {
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
                seam.fired = false;
                seam.submitted = 0;
                seam.call = f.call;
                seam.frame = frame;
                seam.fatal = fatal;
                return true;
            }
        return false;
    }

    // Throws InjectedFault when armed for `at` and frame `frameIndex` has reached the armed one.
    void hit(FaultCall at, guint64 frameIndex) {
        std::lock_guard<std::mutex> guard(lock);  // submit (streaming thread) and complete (output task) both hit
        if (fired || at != call || frameIndex < frame) return;
        fired = true;
        for (const FaultName& f : kFaultNames)
            if (f.call == call)
                throw InjectedFault(std::string(f.cudaCall) + " (injected at frame " + std::to_string(frameIndex) + ")",
                                    fatal);
    }

    // The frame a configure happens at: the latest one submitted (0 before any).
    guint64 latest() const { return submitted == 0 ? 0 : submitted - 1; }
};

// A run's executor with the seam's calls failed around it.
class FaultInjectingExecutor final : public FrameExecutor {
public:
    FaultInjectingExecutor(std::unique_ptr<FrameExecutor> inner, std::shared_ptr<FaultSeam> seam)
        : inner_(std::move(inner)), seam_(std::move(seam)) {}

    Backend backend() const override { return inner_->backend(); }

    // Where the CUDA executor creates the slots' streams and allocates their images.
    void configure(const GstVideoInfo& in, const std::vector<PlaneLayout>& inPlanes, const GstVideoInfo& out,
                   const std::vector<PlaneLayout>& outPlanes, int slots) override {
        seam_->hit(FaultCall::Stream, seam_->latest());
        seam_->hit(FaultCall::Alloc, seam_->latest());
        inner_->configure(in, inPlanes, out, outPlanes, slots);
    }

    void submit(FrameInFlight& frame) override {
        seam_->submitted = std::max(seam_->submitted, frame.index + 1);  // a fallback submits earlier frames again
        seam_->hit(FaultCall::Alloc, frame.index);  // staging allocation
        seam_->hit(FaultCall::Upload, frame.index);
        seam_->hit(FaultCall::Launch, frame.index);
        inner_->submit(frame);
        seam_->hit(FaultCall::Download, frame.index);
        seam_->hit(FaultCall::Stream, frame.index);  // the slot's completion event
    }

    bool ready(const FrameInFlight& frame) override { return inner_->ready(frame); }

    void complete(FrameInFlight& frame) override {
        seam_->hit(FaultCall::Sync, frame.index);
        inner_->complete(frame);
    }

    void synchronize() noexcept override { inner_->synchronize(); }
    void makeCurrent() override { inner_->makeCurrent(); }
    void makeCurrentForRelease() noexcept override { inner_->makeCurrentForRelease(); }

private:
    std::unique_ptr<FrameExecutor> inner_;
    std::shared_ptr<FaultSeam> seam_;
};

class FaultInjectingFactory final : public ExecutorFactory {
public:
    explicit FaultInjectingFactory(std::shared_ptr<FaultSeam> seam) : seam_(std::move(seam)) {}

    std::unique_ptr<FrameExecutor> make(Backend backend, int device, void* context) override {
        return std::make_unique<FaultInjectingExecutor>(ExecutorFactory::make(backend, device, context), seam_);
    }

    // New settings are built at the frame about to be submitted.
    std::shared_ptr<FilterWork> build(const std::function<std::shared_ptr<FilterWork>()>& build) override {
        seam_->hit(FaultCall::Build, seam_->submitted);
        return build();
    }

    // An injected fault stands for a CUDA failure on either executor (it fires on the CPU executor too), unless it
    // was injected as fatal.
    bool fallsBack(const cudafilters::CudaError& error, Backend backend) const override {
        if (const auto* injected = dynamic_cast<const InjectedFault*>(&error)) return !injected->fatal();
        return ExecutorFactory::fallsBack(error, backend);
    }

private:
    std::shared_ptr<FaultSeam> seam_;
};

}  // namespace

std::shared_ptr<ExecutorFactory> makeExecutorFactory(GstCfFilter* self) {
    const char* inject = g_getenv("CUDAFILTERS_TEST_INJECT_FAULT");
    if (!inject) return std::make_shared<ExecutorFactory>();
    auto seam = std::make_shared<FaultSeam>();
    if (!FaultSeam::parse(inject, *seam)) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                          ("CUDAFILTERS_TEST_INJECT_FAULT=%s: expected <call>@<frame>[:fatal], call one of alloc, "
                           "stream, upload, launch, download, sync, build", inject),
                          (nullptr));
        return nullptr;
    }
    GST_WARNING_OBJECT(self, "test fault seam armed: %s", inject);
    return std::make_shared<FaultInjectingFactory>(std::move(seam));
}

}  // namespace gstcudafilters
