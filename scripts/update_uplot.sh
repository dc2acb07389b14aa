#!/usr/bin/env bash
# Updates the vendored uPlot (third_party/uplot/) from the npm registry.
#   scripts/update_uplot.sh [VERSION]     (default: the version in third_party/uplot/VERSION)
# Why vendored: the HTML report (--html) must work offline and make no network
# request, and the build downloads nothing; CMake embeds these files into the binary
# (cmake/embed_assets.cmake). Commit the result; review the diff of VERSION and LICENSE.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=third_party/uplot
version=${1:-$(cat "$dest/VERSION")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$version" >/dev/null)
tar -xzf "$tmp/uplot-$version.tgz" -C "$tmp"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$dest/"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
echo "$version" > "$dest/VERSION"
sha256sum "$dest/uPlot.iife.min.js" "$dest/uPlot.min.css" > "$dest/SHA256SUMS"
echo "update_uplot: third_party/uplot now holds uPlot $version"
