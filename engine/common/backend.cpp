// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/backend.hpp>
#include <cudafilters/device.hpp>

namespace cudafilters {

const char* backendName(Backend backend) {
    switch (backend) {
    case Backend::Cuda: return "cuda";
    case Backend::Cpu: return "cpu";
    }
    return "unknown";
}

bool backendAvailable(Backend backend) {
    return backend != Backend::Cuda || (cudaBuilt() && cudaDeviceCount() > 0);
}

}  // namespace cudafilters
