#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `meson install` of a build into a scratch DESTDIR (no rebuild), then the installed-plugin checks on what it put in
# <prefix>/<libdir>/gstreamer-1.0 there.
#   scripts/install-check.sh BUILD_DIR REPORT.xml
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 report=$2
destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT
meson install -C "$build" --destdir "$destdir" --no-rebuild >"$destdir.log" 2>&1 || { cat "$destdir.log"; exit 1; }
grep -E '^Installing' "$destdir.log"; rm -f "$destdir.log"
option() { meson introspect "$build" --buildoptions | python3 -c "import json,sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'))"; }
bash scripts/check-installed-plugin.sh meson-install "$destdir$(option prefix)/$(option libdir)/gstreamer-1.0" "$report"
