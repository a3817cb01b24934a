// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine built without the CUDA toolkit: asking for the CUDA backend is an error the caller can report.
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

namespace cudafilters {

std::unique_ptr<Equalizer> makeCudaEqualizer(EqualizePlan) {
    throw CudaError("makeCudaEqualizer", -1, "cudaErrorNotBuilt", "the engine was built without CUDA");
}

}  // namespace cudafilters
