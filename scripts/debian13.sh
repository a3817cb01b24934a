#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The project on Debian 13 "trixie" from any Debian machine, as a new user there would build it: a minimal root made
# by debootstrap from Debian's packages (GStreamer 1.26, OpenCV 4.10, g++ 14, and Debian's own CUDA toolkit 12.4 from
# non-free), the source files copied in (tracked and new, not ignored, as scripts/package.sh copies them), then inside
# it the README's two commands (scripts/test.sh, which installs the rest through scripts/install-deps.sh, and
# scripts/demo.sh) and the
# Debian package with the CUDA backend for the default architecture list, checked from its installed files.
# The reports land in ci-results/debian13/ for scripts/test-summary.py. Needs root (debootstrap, chroot).
#   scripts/debian13.sh                  DEBIAN13_ROOT=dir (default debian13-root/, reused when already made)
#   DEBIAN13_STEPS="tests"               only the test command (default: "tests package"); "prepare": only the root
#                                        with the dependencies and the toolkit (CI makes it while other steps run)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(realpath -m "${DEBIAN13_ROOT:-debian13-root}")
steps=${DEBIAN13_STEPS-tests package}
results=$PWD/ci-results/debian13
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(\[[^]]*\] \)\?\(http[^ ]*\) .*/\2/p' \
  /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null |
  grep -v security | head -1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ ! -x "$root/usr/bin/apt-get" ] || [ ! -f "$root/.debian13-ready" ]; then
  command -v debootstrap >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  rm -rf "$root"
  start=$SECONDS
  debootstrap --variant=minbase trixie "$root" "$mirror" >/dev/null
  echo "deb $mirror trixie main contrib non-free non-free-firmware" >"$root/etc/apt/sources.list"
  echo "debian13: root made in $((SECONDS - start)) s from $mirror"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

mounted=()
mount_in() {  # source, target below the root, mount arguments
  local target=$root/$2; shift 2
  mountpoint -q "$target" && return 0
  mkdir -p "$target" && mount "$@" "$target" && mounted+=("$target")
}
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" || true; done; }
trap cleanup EXIT
mount_in proc proc -t proc proc
mount_in dev dev --bind /dev
mount_in shm dev/shm -t tmpfs tmpfs
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 "$@"; }

src=$root/src/gst-cuda-filters
rm -rf "$src" && mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$src"
git -C "$src" init -q
if [ ! -f "$root/.debian13-ready" ]; then
  start=$SECONDS
  # The project's dependencies first (scripts/install-deps.sh, as the README's commands run it), then Debian's CUDA
  # toolkit: installed the other way round, the GL alternatives that the toolkit's driver libraries bring leave
  # libEGL.so.1 (which GStreamer's GL and CUDA libraries need) without its link.
  in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    git ca-certificates >/dev/null && bash /src/gst-cuda-filters/scripts/install-deps.sh &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit >/dev/null'
  touch "$root/.debian13-ready"
  echo "debian13: dependencies and CUDA toolkit installed in $((SECONDS - start)) s"
fi
in_root nvcc --version | tail -1
[ "$steps" = prepare ] && exit 0
rm -rf "$results" && mkdir -p "$results"
status=0
for step in $steps; do
  start=$SECONDS
  case $step in
    tests)
      # The README's two commands: the tests, then the demo on the same build (CPU backend: no GPU here).
      in_root bash -c 'cd /src/gst-cuda-filters && ./scripts/test.sh' || status=1
      in_root bash -c 'cd /src/gst-cuda-filters && ./scripts/demo.sh --frames 30' || status=1
      mkdir -p "$results/build/tests/results" "$results/build/meson-logs"
      cp "$src"/build/tests/results/*.xml "$results/build/tests/results/" 2>/dev/null || true
      cp "$src/build/meson-logs/testlog.json" "$results/build/meson-logs/" 2>/dev/null || true
      ;;
    package)
      mkdir -p "$results/package/tests/results"
      in_root bash -c 'cd /src/gst-cuda-filters && ./scripts/package.sh &&
        ./scripts/check-installed-plugin.sh deb-package-debian13 \
          "package-output/root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/gstreamer-1.0" \
          package-output/deb-package-debian13.xml &&
        grep -q "CUDA backend *: YES" package-output/build.log' || status=1
      cp "$src"/package-output/*.xml "$results/package/tests/results/" 2>/dev/null || true
      ;;
    *) echo "debian13: unknown step $step" >&2; exit 2 ;;
  esac
  echo "debian13: $step $([ $status -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
done
exit $status
