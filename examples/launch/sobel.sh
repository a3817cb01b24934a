#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sobel gradient magnitude (a two-kernel bank combined in one pass) on grayscale.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES pattern=ball ! video/x-raw,format=GRAY8,width=1280,height=720 ! \
  cudaconvolve preset=sobel size=3 backend=$BACKEND ! $SINK
