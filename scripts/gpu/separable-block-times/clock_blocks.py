# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes a copy of the separable bytes kernel (argv[1] -> argv[2]) that records, per block, its SM and its start and
# end (globaltimer, ns) in gBlockClocks. argv[3] "skipedge": the bytes of words outside the frame are not staged (for
# timing only: the output is wrong).
import sys
s = open(sys.argv[1]).read()
a = "    const int t = int(threadIdx.x);\n"
assert a in s
s = s.replace(a, a + """    const int blockClock = int(blockIdx.y * gridDim.x + blockIdx.x);
    if (t == 0) {
        unsigned sm; unsigned long long g;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        gBlockClocks[blockClock][0] = sm; gBlockClocks[blockClock][1] = g;
    }
""", 1)
b = "template <int K, int C, bool ADJUST, int MIN_BLOCKS, int SKIP, bool OVERLAP>\nvoid launchBytesO"
i = s.index(b); j = s.rindex("}\n", 0, i)
s = s[:j] + """    if (t == 0) { unsigned long long g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)); gBlockClocks[blockClock][2] = g; }
""" + s[j:]
k = s.index("namespace cudafilters::cuda_detail {")
s = s[:k] + "__device__ unsigned long long gBlockClocks[8192][3];\n" + s[k:]
open(sys.argv[2], "w").write(s)
if len(sys.argv) > 3 and sys.argv[3] == "skipedge":
    s2 = open(sys.argv[2]).read()
    a = "        if (!edgeBlock) return;\n"
    assert a in s2
    open(sys.argv[2], "w").write(s2.replace(a, "        return;\n"))
