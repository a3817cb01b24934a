// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>

namespace cudafilters {

CudaError::CudaError(std::string call, int code, std::string name, std::string description)
    : std::runtime_error(call + " failed: " + name + " (" + description + ")"),
      call_(std::move(call)), code_(code), name_(std::move(name)) {}

}  // namespace cudafilters
