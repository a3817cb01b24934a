// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <stdexcept>
#include <string>

namespace cudafilters {

// Raised for a description or image the engine cannot process; the message names what is wrong.
class InvalidArgument : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Raised when a CUDA runtime call fails; carries the call and the runtime's error name.
class CudaError : public std::runtime_error {
public:
    CudaError(std::string call, int code, std::string name, std::string description);
    const std::string& call() const noexcept { return call_; }
    int code() const noexcept { return code_; }
    const std::string& name() const noexcept { return name_; }

private:
    std::string call_;
    int code_;
    std::string name_;
};

}  // namespace cudafilters
