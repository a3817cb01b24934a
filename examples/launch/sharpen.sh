#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sharpen the luma of an I420 stream; chroma planes are copied.
. "$(dirname "$0")/common.sh"
launch videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=I420,width=1280,height=720 ! \
  cudaconvolve preset=sharpen planes=luma backend=$BACKEND ! $SINK
