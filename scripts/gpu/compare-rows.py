#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The per-row comparison of scripts/gpu/compare.sh: for each benchmark table row present in both trees' logs, the
# better of each tree's rounds and new against old as a speed ratio (> 1: the new tree is faster).
#   scripts/gpu/compare-rows.py OUT_DIR [--all] [--tags OLD,NEW]   (--all: every row, not only the slower ones;
#   --tags: the two trees' log tags, old and new by default)
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


def rows(path, header):
    """{row key: value} of the table rows whose header names `header`."""
    found, column, seen = {}, None, {}
    for line in open(path, errors="replace"):
        if not line.startswith("|"):
            column = None if not line.strip() else column
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header in cells:
            column = cells.index(header)
            continue
        if column is None or column >= len(cells) or set(cells[0]) <= set("-: "):
            continue
        m = re.match(r"[0-9][0-9 ]*(\.[0-9]+)?", cells[column])
        if not m:
            continue
        key = " | ".join(cells[:column])
        seen[key] = seen.get(key, 0) + 1
        found[f"{key} #{seen[key]}" if seen[key] > 1 else key] = float(m.group(0).replace(" ", ""))
    return found


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
    args = [a for a in argv if a != "--all"]
    sys.exit(main(args[0] if args else "out", "--all" in argv, tags))
