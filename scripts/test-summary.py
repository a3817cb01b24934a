#!/usr/bin/env python3
"""Counts test cases over every GoogleTest XML report of a build and meson's own log.

A test executable that crashed or timed out without writing a report counts as one failure, so nothing that
did not run can pass. Prints one line: "N passed, N failed, N skipped"; exits 1 when anything failed."""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

build = sys.argv[1] if len(sys.argv) > 1 else "build"
passed = failed = skipped = 0
failures_in = {}  # executable name -> failed cases in its report
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
            # A failing executable whose report shows its failures is already counted; one without is not.
            if failures_in.get(name, 0) == 0:
                failed += 1
                print(f"test-summary: {entry.get('name')} ended {entry.get('result')} with no failed case "
                      "in a report (crash, timeout or missing report)", file=sys.stderr)

print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
