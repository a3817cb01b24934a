// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Which implementation of a filter to build: the same choice for every filter (Convolver, Equalizer).

namespace cudafilters {

// The tests' naive references are no Backend: they live in tests/reference, outside the engine.
enum class Backend { Cuda, Cpu };

const char* backendName(Backend backend);
bool backendAvailable(Backend backend);  // Cuda: built with CUDA and a device is usable

}  // namespace cudafilters
