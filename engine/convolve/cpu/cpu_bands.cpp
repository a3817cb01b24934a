// SPDX-License-Identifier: LGPL-2.1-or-later
// Bands of rows on threads of the engine's own, joined before returning. (OpenCV's parallel_for_ would serve as well,
// but Debian builds it on TBB, whose joins ThreadSanitizer cannot see, so every band's work would read as a race.)
#include "cpu_responses.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace cudafilters::cpu {

int bandCount(int rows, int kernelHeight) {
    const int minRows = std::max(16, 4 * kernelHeight);
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, std::min(rows / minRows, threads));
}

void forEachBand(int rows, int kernelHeight, const std::function<void(int, int, int)>& body) {
    const int bands = bandCount(rows, kernelHeight);
    const auto bandRows = [&](int b) { return int(std::int64_t(rows) * b / bands); };
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(bands));
    std::vector<std::thread> workers;
    for (int b = 1; b < bands; ++b)
        workers.emplace_back([&, b] {
            try {
                body(b, bandRows(b), bandRows(b + 1));
            } catch (...) {
                failures[std::size_t(b)] = std::current_exception();
            }
        });
    try {
        body(0, 0, bandRows(1));
    } catch (...) {
        failures[0] = std::current_exception();
    }
    for (std::thread& t : workers) t.join();
    for (const std::exception_ptr& f : failures)
        if (f) std::rethrow_exception(f);
}

}  // namespace cudafilters::cpu
