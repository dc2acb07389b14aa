#!/usr/bin/env bash
# README command 1: install what is missing (Debian packages), build gpuwhy,
# and run the main job on the bundled example trace.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUWHY_DEV_MODE=OFF >/dev/null
cmake --build build/release --target gpuwhy -j"$(nproc)"
# `import gpuwhy` for /usr/bin/python3 (skipped by CMake without pybind11-dev).
have_py=0
if ninja -C build/release -t targets all 2>/dev/null | grep -q '^gpuwhy_python:'; then
  cmake --build build/release --target gpuwhy_python -j"$(nproc)"
  have_py=1
fi

example=$(ls examples/*.json.gz 2>/dev/null | head -n 1 || true)
if [ -z "$example" ]; then
  echo "setup: no bundled example found under examples/" >&2
  exit 1
fi
echo
echo "\$ build/release/src/cli/gpuwhy analyze $example"
build/release/src/cli/gpuwhy analyze "$example"
if [ $have_py = 1 ]; then
  echo
  echo "\$ PYTHONPATH=build/release/python /usr/bin/python3 -c 'import gpuwhy; ...'"
  PYTHONPATH=build/release/python /usr/bin/python3 -c '
import sys, gpuwhy
report = gpuwhy.analyze(sys.argv[1])
print(report.top_line)
for f in report.findings[:3]:
    print("  -", f["title"])
' "$example"
fi
