#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The per-row comparison of scripts/gpu/compare.sh: for each benchmark table row present in both trees' logs, the
# better of each tree's rounds and new against old as a speed ratio (> 1: the new tree is faster).
#   scripts/gpu/compare-rows.py OUT_DIR [--all] [--same] [--tags OLD,NEW]   (--all: every row, not only the slower
#   ones; --same: first the rows whose route or exactness differ; --tags: the two trees' log tags, old and new)
import glob
import re
import statistics
import sys

# benchmark -> (metric column header, True when higher is better)
METRICS = {
    "convolve": ("ours µs", False),
    "histeq": ("CUDA equalizer (us)", False),
    "pipeline": ("fps", True),
}


def table(path, header):
    """(row key, cells, header cells) of each table row under a header that names `header`; the key is the cells
    before that column."""
    head, seen = None, {}
    for line in open(path, errors="replace"):
        if not line.startswith("|"):
            head = None if not line.strip() else head
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header in cells:
            head = cells
            continue
        if head is None or len(cells) < len(head) or set(cells[0]) <= set("-: "):  # (notes may hold "|")
            continue
        key = " | ".join(cells[: head.index(header)])
        seen[key] = seen.get(key, 0) + 1
        yield (f"{key} #{seen[key]}" if seen[key] > 1 else key), cells, head


def rows(path, header):
    """{row key: value} of the table rows whose header names `header`."""
    found = {}
    for key, cells, head in table(path, header):
        m = re.match(r"[0-9][0-9 ]*(\.[0-9]+)?", cells[head.index(header)])
        if m:
            found[key] = float(m.group(0).replace(" ", ""))
    return found


# benchmark -> the column that must read the same in both trees (bench-convolve's route, bench-histeq's exactness)
SAME = {"convolve": "notes", "histeq": "exact vs reference"}


def same(out, tags=("old", "new")):
    """Lists the rows whose SAME column differs between the first log of each tree."""
    for name, column in SAME.items():
        logs = [sorted(glob.glob(f"{out}/{name}-{tag}-*.log")) for tag in tags]
        if not all(logs):
            continue
        old, new = ({key: cells[head.index(column)].split(")")[0] for key, cells, head in
                     table(paths[0], METRICS[name][0])} for paths in logs)
        both = [k for k in old if k in new]
        differ = [k for k in both if old[k] != new[k]]
        print(f"{name}: {len(both)} rows in both trees, {len(differ)} with another {column}; "
              f"{len(old) - len(both)} rows only in the {tags[0]} tree, {len(new) - len(both)} only in the {tags[1]}")
        for k in differ:
            print(f"  {k}: {tags[0]} {old[k]!r}, {tags[1]} {new[k]!r}")


def main(out, every=False, tags=("old", "new")):
    worst_all = []
    for name, (header, higher) in METRICS.items():
        best = {}
        for tag in tags:
            for path in sorted(glob.glob(f"{out}/{name}-{tag}-*.log")):
                for key, v in rows(path, header).items():
                    prev = best.setdefault(tag, {}).get(key)
                    best[tag][key] = v if prev is None else (max(prev, v) if higher else min(prev, v))
        old, new = best.get(tags[0], {}), best.get(tags[1], {})
        common = [k for k in old if k in new and old[k] > 0 and new[k] > 0]
        if not common:
            print(f"{name}: no rows in both trees")
            continue
        ratio = {k: (new[k] / old[k]) if higher else (old[k] / new[k]) for k in common}
        slower = sorted((r, k) for k, r in ratio.items() if r < 0.97)
        print(f"{name} {tags[1]}/{tags[0]}: {len(common)} rows, speed median {statistics.median(ratio.values()):.3f}, "
              f"min {min(ratio.values()):.3f}, max {max(ratio.values()):.3f}; {len(slower)} rows more than 3 % slower")
        listed = sorted((r, k) for k, r in ratio.items()) if every else slower[:15]
        for r, k in listed:
            print(f"  {r:.3f}  {k.split(' `')[0] if every else k}: {tags[0]} {old[k]:g}, {tags[1]} {new[k]:g}")
        worst_all += slower
    return 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    tags = ("old", "new")
    if "--tags" in argv:
        i = argv.index("--tags")
        tags = tuple(argv[i + 1].split(","))
        del argv[i : i + 2]
    args = [a for a in argv if a not in ("--all", "--same")]
    if "--same" in argv:
        same(args[0] if args else "out", tags)
    sys.exit(main(args[0] if args else "out", "--all" in argv, tags))
