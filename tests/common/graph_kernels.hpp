// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The names of the kernels a captured CUDA graph launches: which kernel a launcher chose, read back in GPU tests.
#include <cudafilters/cuda_raii.hpp>

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace cudafilters::test {

inline std::vector<std::string> kernelNamesOf(cudaGraph_t graph) {
    std::size_t count = 0;
    CUDAFILTERS_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CUDAFILTERS_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
    std::vector<std::string> names;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDAFILTERS_CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) continue;
        cudaKernelNodeParams params{};
        CUDAFILTERS_CHECK(cudaGraphKernelNodeGetParams(node, &params));
        const char* name = nullptr;
        CUDAFILTERS_CHECK(cudaFuncGetName(&name, params.func));
        names.emplace_back(name ? name : "?");
    }
    return names;
}

}  // namespace cudafilters::test
