#!/usr/bin/env bash
# Vendors dagre, the graph-layout library of the HTML report's graph view, unmodified.
#
#   tools/fetch_dagre.sh
#
# From: Debian's package node-dagre-layout (dagre 0.8.5, MIT/Expat; its dist/dagre.min.js bundles
# graphlib and lodash), fetched with `apt-get download` from the machine's Debian mirror and unpacked
# with dpkg-deb. Writes python/opdiff/report/html/vendor/: dagre.min.js, LICENSE (the package's
# copyright file) and VERSION (upstream version, Debian package version and the file's sha256).
# Needs apt-get and dpkg-deb (run `apt-get update` first on a fresh machine).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/python/opdiff/report/html/vendor"
PACKAGE=node-dagre-layout
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
chmod a+rwx "$WORK"  # apt-get downloads as its own user where it can
cd "$WORK"
echo "fetch_dagre: apt-get download $PACKAGE from $(apt-get download --print-uris "$PACKAGE" | cut -d"'" -f2)"
apt-get download "$PACKAGE"
deb=$(ls ./*.deb)
dpkg-deb -x "$deb" unpacked
source_js=unpacked/usr/share/nodejs/dagre/dist/dagre.min.js
upstream=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' unpacked/usr/share/nodejs/dagre/package.json)
mkdir -p "$DEST"
cp "$source_js" "$DEST/dagre.min.js"
cp unpacked/usr/share/doc/$PACKAGE/copyright "$DEST/LICENSE"
{
  echo "dagre $upstream"
  echo "debian package: $PACKAGE $(dpkg-deb -f "$deb" Version)"
  echo "file: usr/share/nodejs/dagre/dist/dagre.min.js, unmodified"
  echo "sha256: $(sha256sum "$DEST/dagre.min.js" | cut -d' ' -f1)"
  echo "homepage: https://github.com/dagrejs/dagre"
} >"$DEST/VERSION"
echo "fetch_dagre: wrote $DEST (dagre $upstream)"
