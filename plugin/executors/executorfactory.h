// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Where a run of a GstCfFilter gets its frame executors and its work, and how it treats a CUDA failure. One factory
// per run, made at start. The shipped plugin links executorfactory.cpp, whose factory does the plain thing; the
// uninstalled test build of the plugin links test-seam/faultexecutorfactory.cpp in its place, whose factory wraps the
// same executors to fail chosen calls. So the product's sources carry no test code and the tests run its objects.
#include "executors/frameexecutor.h"
#include "base/gstcffilter.h"

#include <cudafilters/error.hpp>

#include <functional>
#include <memory>

namespace gstcudafilters {

class ExecutorFactory {
public:
    virtual ~ExecutorFactory() = default;

    // A new executor for `backend` (CUDA: on `device`, working in `context`, a CUcontext or null for the device's
    // primary context). Throws cudafilters::CudaError.
    virtual std::unique_ptr<FrameExecutor> make(Backend backend, int device, void* context) {
#ifdef CUDAFILTERS_HAVE_CUDA
        if (backend == Backend::Cuda) return makeCudaExecutor(device, context);
#else
        (void)backend;
        (void)device;
        (void)context;
#endif
        return makeCpuExecutor();
    }

    // Builds the work for new settings: `build` calls the subclass's make_work. Throws what it throws.
    virtual std::shared_ptr<FilterWork> build(const std::function<std::shared_ptr<FilterWork>()>& build) {
        return build();
    }

    // backend=auto: true when `error`, met while running on `backend`, lets the run continue on the CPU. A CUDA
    // failure does on the CUDA backend; on the CPU there is nothing to fall back to.
    virtual bool fallsBack(const cudafilters::CudaError& error, Backend backend) const {
        (void)error;
        return backend == Backend::Cuda;
    }
};

// The factory for a run of `self`, made at start (the streaming thread is not running yet). Null, with an element
// error posted, when the run cannot start.
std::shared_ptr<ExecutorFactory> makeExecutorFactory(GstCfFilter* self);

}  // namespace gstcudafilters
