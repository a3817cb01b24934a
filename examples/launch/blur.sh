#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gaussian blur, 9x9, sigma 2, on a test pattern.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES ! video/x-raw,format=RGBA,width=1280,height=720 ! \
  cudaconvolve preset=gaussian size=9 sigma=2 backend=$BACKEND ! $SINK
