#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Equalize, then find edges: the chain a vision pipeline uses on dim footage. smoothing keeps it from flickering.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=RGBA,width=1280,height=720 ! \
  videobalance contrast=0.3 ! cudahisteq mode=clahe smoothing=0.8 backend=$BACKEND ! \
  cudaconvolve preset=sobel backend=$BACKEND ! $SINK
