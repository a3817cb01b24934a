#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CPU peers of bench-histeq: OpenCV's equalizeHist and CLAHE 8x8 clip 2 on GRAY8, 1080p and 4K, timed on the
host's cores (cv2's default thread count), median of N runs over rotating random-content frames after warm-up."""
import sys
import time

import cv2
import numpy as np

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
print(f"OpenCV {cv2.__version__}, threads {cv2.getNumThreads()}, runs {runs}")
rng = np.random.default_rng(17)
print("| work | size | OpenCV CPU (us) |")
print("|---|---|---|")
for w, h in ((1920, 1080), (3840, 2160)):
    yy, xx = np.mgrid[0:h, 0:w]
    frames = []
    for f in range(4):
        base = 110 + 70 * np.sin(xx * (0.003 + 0.002 * f) + f) * np.cos(yy * 0.004)
        frames.append(np.clip(base + rng.integers(-40, 41, size=(h, w)), 0, 255).astype(np.uint8))
    clahe = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))
    for name, fn in (("equalizeHist", cv2.equalizeHist), ("clahe 8x8 clip 2", clahe.apply)):
        for i in range(5):
            fn(frames[i % 4])
        t = []
        for i in range(runs):
            s = time.perf_counter()
            fn(frames[i % 4])
            t.append((time.perf_counter() - s) * 1e6)
        print(f"| {name} | {w}x{h} | {sorted(t)[len(t) // 2]:.0f} |")
