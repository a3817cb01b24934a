// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The few CUDA driver calls the plugin makes (contexts), found through the runtime's entry-point query so that the
// plugin links no libcuda and still loads on a machine without a driver. Built only with CUDA.
namespace gstcudafilters::driver {

using Context = void*;  // CUcontext

// The calling thread's current context; null when there is none. Throws cudafilters::CudaError.
Context currentContext();

// Makes `context` current on the calling thread, as cudaSetDevice does for a device's primary context: the runtime
// then makes its streams, events and allocations in it. Throws cudafilters::CudaError.
void setCurrentContext(Context context);

// The same on release paths: false when it failed (the error is cleared).
bool trySetCurrentContext(Context context) noexcept;

// The primary context of `device`, made current on the calling thread. Throws cudafilters::CudaError.
Context primaryContext(int device);

// The driver's handle of device ordinal `device` (CUdevice). Throws cudafilters::CudaError.
int deviceHandle(int device);

}  // namespace gstcudafilters::driver
