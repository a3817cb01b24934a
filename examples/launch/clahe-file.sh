#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CLAHE on a video file: clahe-file.sh [input] — decodes, equalizes luma with an 8x8 grid, shows it.
. "$(dirname "$0")/common.sh"
input=$(sample_clip "${1:-}")
launch filesrc location="$input" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! \
  cudahisteq mode=clahe clip-limit=2.5 tiles-x=8 tiles-y=8 backend=$BACKEND ! $SINK
