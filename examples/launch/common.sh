# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the launch examples. SINK picks the display (autovideosink) or fakesink in the tests;
# FRAMES bounds the run; BACKEND=auto|cuda|cpu; everything else is the pipeline each script shows.
SINK=${SINK:-"videoconvert ! autovideosink"}
FRAMES=${FRAMES:-300}
BACKEND=${BACKEND:-auto}
launch() { echo "+ gst-launch-1.0 $*" >&2; gst-launch-1.0 -q "$@"; }
# A small clip to work on when none is given: a moving test pattern as MJPEG in AVI.
sample_clip() {
  local clip=${1:-${TMPDIR:-/tmp}/cudafilters-sample.avi}
  [ -s "$clip" ] || gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=60 ! \
    video/x-raw,width=320,height=240,framerate=30/1 ! videobalance contrast=0.4 ! jpegenc ! avimux ! \
    filesink location="$clip"
  echo "$clip"
}
