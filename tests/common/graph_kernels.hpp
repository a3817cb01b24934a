// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The kernels a captured CUDA graph launches (names, grids): which kernel a launcher chose, read back in GPU tests.
#include <cudafilters/cuda_raii.hpp>

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace cudafilters::test {

// One kernel node of a graph: which kernel, on what grid.
struct KernelLaunch {
    std::string name;
    const void* func = nullptr;
    dim3 grid, block;
    unsigned sharedBytes = 0;  // dynamic shared memory
};

inline std::vector<KernelLaunch> kernelLaunchesOf(cudaGraph_t graph) {
    std::size_t count = 0;
    CUDAFILTERS_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CUDAFILTERS_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
    std::vector<KernelLaunch> launches;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDAFILTERS_CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) continue;
        cudaKernelNodeParams params{};
        CUDAFILTERS_CHECK(cudaGraphKernelNodeGetParams(node, &params));
        const char* name = nullptr;
        CUDAFILTERS_CHECK(cudaFuncGetName(&name, params.func));
        launches.push_back({name ? name : "?", params.func, params.gridDim, params.blockDim, params.sharedMemBytes});
    }
    return launches;
}

inline std::vector<std::string> kernelNamesOf(cudaGraph_t graph) {
    std::vector<std::string> names;
    for (const KernelLaunch& launch : kernelLaunchesOf(graph)) names.push_back(launch.name);
    return names;
}

}  // namespace cudafilters::test
