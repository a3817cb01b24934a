#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A kernel of your own: rows separated by ';', values by spaces; divisor 0 = sum of the taps.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES ! video/x-raw,format=BGRx,width=640,height=480 ! \
  cudaconvolve kernel="1 2 1; 2 4 2; 1 2 1" divisor=0 border=reflect-101 backend=$BACKEND ! $SINK
