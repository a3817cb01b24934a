#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints a summary table of the kernel and element benchmark outputs (markdown as bench-convolve and bench-element
print them) and draws a PNG: kernel time vs kernel size (ours, NPP) at 1080p and 4K, and element fps by pipeline
depth against the PCIe bound and the CPU backend.
    scripts/bench-plot.py CONVOLVE.md ELEMENT.md [OUT.png]"""
import sys


def rows(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("|") and not line.startswith("|---"):
                out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out[1:] if out else out  # drop the header


def number(text):
    try:
        return float(text.replace(" ", ""))
    except ValueError:
        return None


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    conv, element = rows(sys.argv[1]), rows(sys.argv[2])
    png = sys.argv[3] if len(sys.argv) > 3 else "benchmarks.png"
    kernels = {}  # size -> K -> (ours, npp)
    for r in conv:
        if len(r) > 4 and r[0] == "direct":
            kernels.setdefault(r[1], {})[int(r[2])] = (number(r[3]), number(r[4]))
    print("| size | K | ours µs | NPP µs | ours/NPP |\n|---|---|---|---|---|")
    for size, ks in kernels.items():
        for k, (ours, npp) in sorted(ks.items()):
            print(f"| {size} | {k} | {ours} | {npp} | {ours / npp:.2f} |")
    fps = {}  # case -> label -> fps
    for r in element:
        if len(r) > 4 and number(r[4]) is not None:
            label = "PCIe bound" if r[1].startswith("PCIe") else f"{r[1]} depth {r[2]}"
            fps.setdefault(r[0], {})[label] = number(r[4])
    print("\n| case | configuration | fps |\n|---|---|---|")
    for case, values in fps.items():
        for label, v in values.items():
            print(f"| {case} | {label} | {v:g} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-plot: matplotlib is not installed; table only", file=sys.stderr)
        return 0
    fig, axes = plt.subplots(1, 1 + len(fps), figsize=(6 + 5 * len(fps), 4.5))
    ax = axes[0]
    for size, ks in kernels.items():
        k = sorted(ks)
        ax.plot(k, [ks[x][0] for x in k], "o-", label=f"ours {size}")
        ax.plot(k, [ks[x][1] for x in k], "s--", label=f"NPP {size}")
    ax.set_xlabel("kernel size K (K×K, GRAY8)")
    ax.set_ylabel("kernel time (µs, log)")
    ax.set_yscale("log")
    ax.set_title("2D convolution: ours vs NPP")
    ax.legend(fontsize=8)
    for ax, (case, values) in zip(axes[1:], fps.items()):
        labels = list(values)
        colours = ["grey" if l == "PCIe bound" else "tab:orange" if l.startswith("cpu") else "tab:green" for l in labels]
        ax.bar(range(len(labels)), [values[l] for l in labels], color=colours)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("frames per second (log)")
        ax.set_title(f"cudaconvolve gaussian 5×5, {case}")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"bench-plot: wrote {png}")
    return 0


sys.exit(main())
