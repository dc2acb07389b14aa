#!/usr/bin/env bash
# bench/python/run.sh — the Python side's two figures (docs/python.md):
#   shim_overhead.py   record --torch's shim outside the profiled steps (<= 2% of wall)
#   analyze_speed.py   gpuwhy.analyze vs the CLI on the 1x df_index_resolver trace
#                      (within 10%)
# Builds gpuwhy and the module in $BUILD_DIR (default build-bench, RelWithDebInfo).
# Both run under /usr/bin/python3, the interpreter the module is built for.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build-bench}"
PY=/usr/bin/python3
SRC="$ROOT/../shared/traces/kineto/hta/df_index_resolver/df_index_resolver.json.gz"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
fi
ninja -C "$BUILD" -j"${JOBS:-2}" gpuwhy gpuwhy_python
rc=0
if "$PY" -c "import torch" 2>/dev/null; then
  "$PY" "$ROOT/bench/python/shim_overhead.py" "$BUILD/python/gpuwhy_torch_shim" \
    "${STEPS:-3000}" "${REPEAT:-7}" || rc=1
else
  echo "SKIPPED: shim_overhead: torch is not importable by $PY"
fi
if [ -f "$SRC" ]; then
  PYTHONPATH="$BUILD/python" "$PY" "$ROOT/bench/python/analyze_speed.py" \
    "$BUILD/src/cli/gpuwhy" "$SRC" "${REPEAT:-7}" || rc=1
else
  echo "SKIPPED: analyze_speed: $SRC not present"
fi
exit $rc
