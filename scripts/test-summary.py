#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Counts test cases over every JUnit XML report (GoogleTest, sanitizer and fuzz runs) of one or more build folders,
and meson's own log where there is one.

A test executable that crashed or timed out without a failed case in its report counts as one failure, so nothing
that did not run can pass. Prints one line: "N passed, N failed, N skipped"; exits 1 when anything failed.
    scripts/test-summary.py build [build-asan build-fuzz ...]"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET


def count(build):
    passed = failed = skipped = 0
    failures_in = {}  # report name -> failed cases in it
    for path in sorted(glob.glob(os.path.join(build, "tests", "results", "*.xml"))):
        name = os.path.splitext(os.path.basename(path))[0]
        failures_in.setdefault(name, 0)
        for case in ET.parse(path).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failures_in[name] += 1
            elif case.get("result") == "skipped" or case.find("skipped") is not None or case.get("status") == "notrun":
                skipped += 1
            else:
                passed += 1
    log = os.path.join(build, "meson-logs", "testlog.json")
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                entry = json.loads(line)
                if entry.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
                    continue
                name = os.path.basename((entry.get("command") or entry.get("cmd") or [""])[0])
                if failures_in.get(name, 0) == 0:
                    failed += 1
                    print(f"test-summary: {entry.get('name')} ended {entry.get('result')} with no failed case "
                          "in a report (crash, timeout or missing report)", file=sys.stderr)
    return passed, failed, skipped


totals = [0, 0, 0]
for build in sys.argv[1:] or ["build"]:
    for i, n in enumerate(count(build)):
        totals[i] += n
print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
sys.exit(1 if totals[1] else 0)
