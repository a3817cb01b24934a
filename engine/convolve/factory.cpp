// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/convolve.hpp>

namespace cudafilters {

std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan, Backend backend) {
    switch (backend) {
    case Backend::Cuda: return makeCudaConvolver(std::move(plan));
    case Backend::Cpu: break;
    }
    return makeCpuConvolver(std::move(plan));
}

}  // namespace cudafilters
