#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A bank of kernels separated by '|': Prewitt x and y combined as max |response|.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES pattern=pinwheel ! video/x-raw,format=GRAY8,width=640,height=480 ! \
  cudaconvolve kernel="-1 0 1; -1 0 1; -1 0 1 | -1 -1 -1; 0 0 0; 1 1 1" combine=max-abs backend=$BACKEND ! $SINK
