#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where a kernel's issued instructions and stalls go, from Nsight Compute's SASS source page
(`ncu --import R.ncu-rep --page source --csv --print-source sass`, a report taken with --set full).

usage: instruction_mix.py SASS.csv [--regions]
Prints the warp instructions executed per opcode (share of all, share of the stall samples), the stall reasons,
and with --regions the straight runs of instructions executed equally often (a loop body, a branch), with their
instructions and stall samples: the row pass and the column pass of a kernel stand out as two such runs."""
import collections
import csv
import sys


def load(path):
    rows = list(csv.reader(open(path, newline="")))
    header = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    names = rows[header]
    col = {n: i for i, n in enumerate(names)}
    out = []
    for r in rows[header + 1:]:
        if len(r) != len(names):
            continue
        try:
            executed = int(r[col["Instructions Executed"]])
        except ValueError:
            continue
        source = r[col["Source"]].strip()
        words = source.split()
        op = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "?")
        stalls = {n[6:]: int(r[i]) for n, i in col.items()
                  if n.startswith("stall_") and "Not Issued" not in n and r[i].isdigit()}
        out.append({"address": r[col["Address"]], "source": source, "op": op.split(".")[0], "executed": executed,
                    "samples": int(r[col["Warp Stall Sampling (All Samples)"]] or 0), "stalls": stalls})
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sass = load(sys.argv[1])
    total = sum(i["executed"] for i in sass)
    samples = sum(i["samples"] for i in sass) or 1
    print(f"warp instructions executed: {total:,}; stall samples: {samples:,}")
    ops, opSamples, reasons = collections.Counter(), collections.Counter(), collections.Counter()
    for i in sass:
        ops[i["op"]] += i["executed"]
        opSamples[i["op"]] += i["samples"]
        reasons.update(i["stalls"])
    print("\n| opcode | executed | share | stall samples |\n|---|---|---|---|")
    for op, n in ops.most_common(24):
        print(f"| {op} | {n:,} | {100 * n / total:.1f} % | {100 * opSamples[op] / samples:.1f} % |")
    allReasons = sum(reasons.values()) or 1
    print("\nstall reasons: " + ", ".join(f"{r} {100 * n / allReasons:.1f} %" for r, n in reasons.most_common(10)))
    if "--regions" in sys.argv:
        print("\n| first address | times run | instructions | executed | stall samples | first instruction |\n"
              "|---|---|---|---|---|---|")
        run = []
        for i in sass + [None]:
            if run and (i is None or i["executed"] != run[0]["executed"]):
                executed = sum(x["executed"] for x in run)
                if executed >= total // 50 or sum(x["samples"] for x in run) >= samples // 50:
                    print(f"| {run[0]['address'][-6:]} | {run[0]['executed']:,} | {len(run)} | {executed:,} | "
                          f"{sum(x['samples'] for x in run)} | `{run[0]['source'][:48]}` |")
                run = []
            if i is not None:
                run.append(i)


if __name__ == "__main__":
    main()
