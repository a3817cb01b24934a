#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what gst-cuda-filters needs on Debian 12 or 13 (idempotent: only missing packages are installed); the
# package names are the same on both.
# The CUDA toolkit is optional: with nvcc on PATH (or in /usr/local/cuda/bin) the CUDA backend is built too. It is
# NVIDIA's (/usr/local/cuda) or, on Debian 13, Debian's nvidia-cuda-toolkit (12.4, in non-free).
# libgstreamer-plugins-bad1.0-dev brings GStreamer's CUDA library (gstreamer-cuda-1.0): memory:CUDAMemory on the pads.
# The Python example (examples/python) and its test need python3-gi, the GStreamer introspection data, numpy and
# OpenCV's Python module: on Debian 12 the -dev packages above already pull in all but python3-numpy and
# python3-opencv.
set -euo pipefail
packages=(
  meson ninja-build pkg-config g++ python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libgstrtspserver-1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  libopencv-core-dev libopencv-imgproc-dev
  libgtest-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 python3-numpy python3-opencv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
