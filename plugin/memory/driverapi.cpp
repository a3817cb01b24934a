// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA driver calls through the runtime's driver entry points (see driverapi.h).
#include "memory/driverapi.h"

#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/error.hpp>

#include <cuda.h>

#include <string>

namespace gstcudafilters::driver {
namespace {

#if CUDART_VERSION >= 12050
constexpr unsigned kDriverApiVersion = 12000;  // the signatures below are those of CUDA 12.0 and later
#endif

template <typename Fn>
Fn entryPoint(const char* symbol) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudafilters::checkCuda(cudaGetDriverEntryPointByVersion(symbol, &fn, kDriverApiVersion, cudaEnableDefault, &found),
                           "cudaGetDriverEntryPointByVersion");
#else
    // Toolkits before 12.5 have only the unversioned lookup: it returns the newest ABI of the symbol the toolkit knows,
    // which for these calls is the 12.0 one asked for above.
    cudafilters::checkCuda(cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &found), "cudaGetDriverEntryPoint");
#endif
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
        throw cudafilters::CudaError(symbol, int(cudaErrorSymbolNotFound), "cudaErrorSymbolNotFound",
                                     std::string("the driver has no ") + symbol);
    return reinterpret_cast<Fn>(fn);
}

void checkDriver(CUresult status, const char* call) {
    if (status != CUDA_SUCCESS)
        throw cudafilters::CudaError(call, int(status), "CUresult " + std::to_string(int(status)),
                                     std::string(call) + " failed");
}

using CtxGetCurrent = CUresult (*)(CUcontext*);
using CtxSetCurrent = CUresult (*)(CUcontext);
using DeviceGet = CUresult (*)(CUdevice*, int);

}  // namespace

Context currentContext() {
    static const auto get = entryPoint<CtxGetCurrent>("cuCtxGetCurrent");
    CUcontext context = nullptr;
    checkDriver(get(&context), "cuCtxGetCurrent");
    return context;
}

void setCurrentContext(Context context) {
    static const auto set = entryPoint<CtxSetCurrent>("cuCtxSetCurrent");
    checkDriver(set(static_cast<CUcontext>(context)), "cuCtxSetCurrent");
}

bool trySetCurrentContext(Context context) noexcept {
    try {
        setCurrentContext(context);
        return true;
    } catch (const cudafilters::CudaError&) {
        cudaGetLastError();
        return false;
    }
}

Context primaryContext(int device) {
    cudafilters::checkCuda(cudaSetDevice(device), "cudaSetDevice");
    cudafilters::checkCuda(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
    return currentContext();
}

int deviceHandle(int device) {
    static const auto get = entryPoint<DeviceGet>("cuDeviceGet");
    CUdevice handle = 0;
    checkDriver(get(&handle, device), "cuDeviceGet");
    return int(handle);
}

}  // namespace gstcudafilters::driver
