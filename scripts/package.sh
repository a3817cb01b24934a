#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Debian package gstreamer1.0-cuda-filters with `dpkg-buildpackage -b` from a copy of the source files
# (tracked and new, not ignored: the working tree stays clean) into package-output/, and unpacks it into
# package-output/root. Extra arguments go to dpkg-buildpackage, e.g. -Ppkg.gst-cuda-filters.nocuda for the CPU-only
# plugin. Installs the packaging tools when missing.
#   scripts/package.sh [-Ppkg.gst-cuda-filters.nocuda]      then: sudo apt install ./package-output/*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
if ! command -v dh >/dev/null || ! command -v dpkg-buildpackage >/dev/null ||
   ! dpkg-query -W -f='${Status}' build-essential 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends debhelper dpkg-dev build-essential >/dev/null
fi
out=$PWD/package-output
rm -rf "$out" && mkdir -p "$out/src"
git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$out/src"
start=$SECONDS
(cd "$out/src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -b -us -uc "$@") \
  >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
deb=$(ls "$out"/gstreamer1.0-cuda-filters_*.deb)
grep -E 'CUDA backend|OpenCV CPU' "$out/build.log" | head -2
echo "package: $(basename "$deb") built in $((SECONDS - start)) s"
dpkg-deb --contents "$deb" | awk '{print $NF}' | grep '\.so$'
dpkg -x "$deb" "$out/root"
rm -rf "$out/src"
