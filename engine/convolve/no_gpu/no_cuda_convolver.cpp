// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine built without the CUDA toolkit: asking for the CUDA backend is an error the caller can report.
#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>

namespace cudafilters {

std::unique_ptr<Convolver> makeCudaConvolver(ConvolvePlan) {
    throw CudaError("makeCudaConvolver", -1, "cudaErrorNotBuilt", "the engine was built without CUDA");
}

}  // namespace cudafilters
