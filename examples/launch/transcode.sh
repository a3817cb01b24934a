#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# File to file: transcode.sh [input] [output.avi] — decode, equalize and sharpen, encode MJPEG.
. "$(dirname "$0")/common.sh"
input=$(sample_clip "${1:-}")
output=${2:-${TMPDIR:-/tmp}/cudafilters-transcoded.avi}
launch filesrc location="$input" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! \
  cudahisteq mode=global backend=$BACKEND ! cudaconvolve preset=sharpen backend=$BACKEND ! \
  jpegenc ! avimux ! filesink location="$output"
echo "wrote $output"
