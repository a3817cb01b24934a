# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes a copy of the separable bytes kernel (argv[1] -> argv[2]) that records, per block, its SM and its start and
# end (globaltimer, ns) in gBlockClocks. argv[3] "skipedge": the bytes of words outside the frame are not staged (for
# timing only: the output is wrong).
import sys

s = open(sys.argv[1]).read()
head = "    separableBytesKernel(const __grid_constant__ BytesParams<K> p) {\n"
assert head in s
s = s.replace(head, head + """    const int blockClock = int(blockIdx.y * gridDim.x + blockIdx.x);
    if (threadIdx.x == 0) {
        unsigned sm;
        unsigned long long g;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        gBlockClocks[blockClock][0] = sm;
        gBlockClocks[blockClock][1] = g;
    }
""", 1)
launcher = "template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP, bool OVERLAP>\nvoid launchBytesO"
end = s.rindex("}\n", 0, s.index(launcher))  # the kernel's closing brace
s = s[:end] + """    if (threadIdx.x == 0) {
        unsigned long long g;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        gBlockClocks[blockClock][2] = g;
    }
""" + s[end:]
namespace = "namespace cudafilters::cuda_detail {"
s = s.replace(namespace, "__device__ unsigned long long gBlockClocks[8192][3];\n" + namespace, 1)
if len(sys.argv) > 3 and sys.argv[3] == "skipedge":
    edge = "        if (!edgeBlock) return;\n"
    assert edge in s
    s = s.replace(edge, "        return;\n")
open(sys.argv[2], "w").write(s)
