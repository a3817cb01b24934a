// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/device.hpp>

#include <cuda_runtime.h>

namespace cudafilters {

bool cudaBuilt() { return true; }

int cudaDeviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

std::string cudaDeviceDescription(int device) {
    cudaDeviceProp prop{};
    const cudaError_t status = cudaGetDeviceProperties(&prop, device);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return std::string("no CUDA device: ") + cudaGetErrorName(status);
    }
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
}

}  // namespace cudafilters
