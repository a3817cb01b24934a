// SPDX-License-Identifier: LGPL-2.1-or-later
// Which SM each block of the separable bytes kernel ran on, and when it started and ended, on a 4K GRAY8 frame at
// K = 31 and 15 (the launcher's choice and one barrier a chunk): the SMs' end times by how many blocks they held, and
// one CSV of every block per case in the folder argv[1]. Built by run.sh from a clocked copy of the kernel.
#include "bytes_clocked.cu"
#include <cstdio>
#include <vector>
#include <map>
#include <algorithm>
#include <random>
using namespace cudafilters;
using namespace cudafilters::cuda_detail;
int main(int argc, char** argv) {
    const int width = 3840, height = 2160;
    const char* outDir = argc > 1 ? argv[1] : ".";
    unsigned char *src, *dst;
    cudaMalloc(&src, std::size_t(width) * height);
    cudaMalloc(&dst, std::size_t(width) * height);
    std::vector<unsigned char> host(std::size_t(width) * height);
    std::mt19937 rng(7);
    for (auto& v : host) v = rng() & 0xFF;
    cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice);
    ConvFrame f;
    f.src = src; f.dst = dst; f.srcPitch = width; f.dstPitch = width; f.width = width; f.height = height;
    f.inChannels = 1; f.outChannels = 1; f.border = Border::Reflect101; f.mask = 1; f.copy = 0; f.rowAlign = 16;
    f.vectorRows = 1;
    for (int k : {31, 15}) {
        std::vector<float> taps(k);
        float sum = 0;
        for (int i = 0; i < k; ++i) sum += taps[i] = std::exp(-0.5f * (i - k / 2) * (i - k / 2) / (0.3f * k * 0.3f * k));
        for (auto& v : taps) v /= sum;
        for (int choice = 0; choice < 2; ++choice) {
            const BytesChoice c = choice == 0 ? BytesChoice::Best : BytesChoice::OneBarrier;
            std::vector<unsigned long long> clocks(8192 * 3);
            for (int rep = 0; rep < 6; ++rep) {
                cudaMemset(dst, 0, std::size_t(width) * height);
                launchSeparableBytes(SampleType::U8, k, f, taps.data(), taps.data(), nullptr, c);
                cudaDeviceSynchronize();
                cudaMemcpyFromSymbol(clocks.data(), gBlockClocks, clocks.size() * 8);
                cudaMemset(dst, 0, 1);
                cudaMemcpyToSymbol(gBlockClocks, std::vector<unsigned long long>(8192 * 3, 0).data(), 8192 * 24);
            }
            int n = 0; while (n < 8192 && clocks[3 * n + 2] != 0) ++n;
            unsigned long long t0 = ~0ull, t1 = 0;
            for (int b = 0; b < n; ++b) t0 = std::min(t0, clocks[3 * b + 1]), t1 = std::max(t1, clocks[3 * b + 2]);
            std::map<int, std::vector<int>> perSm;
            for (int b = 0; b < n; ++b) perSm[int(clocks[3 * b])].push_back(b);
            char name[256]; snprintf(name, sizeof name, "%s/blocks-k%d-%s.csv", outDir, k, choice ? "one" : "best");
            FILE* csv = fopen(name, "w");
            fprintf(csv, "block,sm,start_ns,end_ns\n");
            for (int b = 0; b < n; ++b) fprintf(csv, "%d,%llu,%llu,%llu\n", b, clocks[3 * b], clocks[3 * b + 1] - t0, clocks[3 * b + 2] - t0);
            fclose(csv);
            std::vector<double> smEnd, dur; std::map<int, std::vector<double>> byCount;
            for (auto& [sm, bs] : perSm) {
                double e = 0; for (int b : bs) e = std::max(e, double(clocks[3 * b + 2] - t0));
                smEnd.push_back(e); byCount[int(bs.size())].push_back(e);
            }
            for (int b = 0; b < n; ++b) dur.push_back(double(clocks[3 * b + 2] - clocks[3 * b + 1]));
            std::sort(smEnd.begin(), smEnd.end()); std::sort(dur.begin(), dur.end());
            double startMax = 0; for (int b = 0; b < n; ++b) startMax = std::max(startMax, double(clocks[3 * b + 1] - t0));
            printf("K=%d %s: blocks %d on %zu SMs, span %.1f us, last block start %.2f us; SM end min/median/max %.1f/%.1f/%.1f us; block duration min/median/max %.1f/%.1f/%.1f us\n",
                   k, choice ? "one-barrier" : "best", n, perSm.size(), (t1 - t0) / 1e3, startMax / 1e3, smEnd.front() / 1e3,
                   smEnd[smEnd.size() / 2] / 1e3, smEnd.back() / 1e3, dur.front() / 1e3, dur[dur.size() / 2] / 1e3, dur.back() / 1e3);
            for (auto& [cnt, v] : byCount) {
                std::sort(v.begin(), v.end());
                printf("   SMs with %d blocks: %zu, end min/median/max %.1f/%.1f/%.1f us\n", cnt, v.size(), v.front() / 1e3, v[v.size() / 2] / 1e3, v.back() / 1e3);
            }
        }
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
