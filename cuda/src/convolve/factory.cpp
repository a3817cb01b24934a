#include <cudafilters/convolve.hpp>
#include <cudafilters/device.hpp>

namespace cudafilters {

const char* backendName(Backend backend) {
    switch (backend) {
    case Backend::Cuda: return "cuda";
    case Backend::Cpu: return "cpu";
    case Backend::Reference: return "reference";
    }
    return "unknown";
}

bool backendAvailable(Backend backend) {
    return backend != Backend::Cuda || (cudaBuilt() && cudaDeviceCount() > 0);
}

std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan, Backend backend) {
    switch (backend) {
    case Backend::Cuda: return makeCudaConvolver(std::move(plan));
    case Backend::Reference: return makeReferenceConvolver(std::move(plan));
    case Backend::Cpu: break;
    }
    return makeCpuConvolver(std::move(plan));
}

}  // namespace cudafilters
