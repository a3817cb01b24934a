// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cufft_library.hpp"

#include <cudafilters/error.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace cudafilters::cuda_detail {
namespace {

struct Loaded {
    CufftLibrary library{};
    bool ok = false;
    std::string error;
};

template <typename F> bool resolve(void* handle, const char* name, F& out, std::string& error) {
    out = reinterpret_cast<F>(dlsym(handle, name));
    if (!out) error = std::string("libcufft.so.12 has no ") + name;
    return out != nullptr;
}

Loaded load() {
    Loaded l;
    // The loader's search path first (LD_LIBRARY_PATH, ld.so.cache), then the toolkit's usual places.
    std::string candidates[] = {"libcufft.so.12", "", "/usr/local/cuda/lib64/libcufft.so.12"};
    if (const char* home = std::getenv("CUDA_HOME")) candidates[1] = std::string(home) + "/lib64/libcufft.so.12";
    void* handle = nullptr;
    for (const std::string& name : candidates) {
        if (name.empty()) continue;
        handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        if (l.error.empty()) l.error = dlerror();
    }
    if (!handle) return l;
    CufftLibrary& c = l.library;
    l.ok = resolve(handle, "cufftCreate", c.create, l.error) && resolve(handle, "cufftDestroy", c.destroy, l.error) &&
           resolve(handle, "cufftSetAutoAllocation", c.setAutoAllocation, l.error) &&
           resolve(handle, "cufftMakePlanMany", c.makePlanMany, l.error) &&
           resolve(handle, "cufftSetWorkArea", c.setWorkArea, l.error) &&
           resolve(handle, "cufftSetStream", c.setStream, l.error) &&
           resolve(handle, "cufftExecR2C", c.execR2C, l.error) && resolve(handle, "cufftExecC2R", c.execC2R, l.error);
    if (l.ok) l.error.clear();
    return l;  // the handle stays open for the life of the process
}

const Loaded& loaded() {
    static const Loaded l = load();
    return l;
}

const char* resultName(cufftResult r) {
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "CUFFT_ERROR";
    }
}

}  // namespace

const CufftLibrary* cufftLibrary() { return loaded().ok ? &loaded().library : nullptr; }

const char* cufftLoadError() { return loaded().error.c_str(); }

const CufftLibrary& requireCufft() {
    if (const CufftLibrary* c = cufftLibrary()) return *c;
    throw CudaError("dlopen(libcufft.so.12)", -1, "cuFFT not found",
                    std::string(cufftLoadError()) +
                        "; algorithm=fft needs the CUDA toolkit's cuFFT 12 on the library path (or use "
                        "algorithm=auto or direct)");
}

void checkCufft(cufftResult status, const char* call) {
    if (status != CUFFT_SUCCESS) throw CudaError(call, int(status), resultName(status), "cuFFT call failed");
}

CufftPlan::CufftPlan() { checkCufft(requireCufft().create(&handle_), "cufftCreate"); }

CufftPlan::~CufftPlan() { cufftLibrary()->destroy(handle_); }  // made only when the library loaded

}  // namespace cudafilters::cuda_detail
