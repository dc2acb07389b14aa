#!/usr/bin/env bash
# Builds the HTML report of the bundled example (the one scripts/setup.sh runs)
# and screenshots it into docs/img/report.png with headless Chromium.
#   scripts/screenshot.sh [BUILD_DIR]     (default build/release; built when missing)
# Needs chromium (scripts/install_deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
chromium=${GPUWHY_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "screenshot: $chromium not found (scripts/install_deps.sh --test installs it)" >&2
  exit 1
fi
if [ ! -x "$build/src/cli/gpuwhy" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUWHY_DEV_MODE=OFF >/dev/null
  cmake --build "$build" --target gpuwhy -j"$(nproc)"
fi
example=$(ls examples/*.json.gz | head -n 1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/src/cli/gpuwhy" analyze "$example" --html "$tmp/report.html" >/dev/null
mkdir -p docs/img
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$tmp/profile" --virtual-time-budget=5000 \
  --window-size=1400,2400 --screenshot="$PWD/docs/img/report.png" "file://$tmp/report.html" \
  >/dev/null 2>&1
echo "screenshot: docs/img/report.png ($(stat -c %s docs/img/report.png) bytes) from $example"
