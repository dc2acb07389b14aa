#!/usr/bin/env bash
# README command 1: install what is missing (Debian packages), build gpuwhy,
# and run the main job on the bundled example trace.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUWHY_DEV_MODE=OFF >/dev/null
cmake --build build/release --target gpuwhy -j"$(nproc)"

example=$(ls examples/*.json.gz 2>/dev/null | head -n 1 || true)
if [ -z "$example" ]; then
  echo "setup: no bundled example found under examples/" >&2
  exit 1
fi
echo
echo "\$ build/release/src/cli/gpuwhy analyze $example"
build/release/src/cli/gpuwhy analyze "$example"
