#!/usr/bin/env bash
# bench/import/run.sh — import throughput, peak RSS and linearity.
# Builds import_bench and make_big_trace (in $BUILD_DIR, default build-bench,
# RelWithDebInfo), makes 1x/2x/5x/10x copies of the largest shared Kineto trace
# under $OUT_DIR (default /tmp/gpuwhy-bench; never inside the repository) when
# missing, and runs the bench on the shared trace and on each copy. Every line
# is measured in this run, next to `gzip -dc` of the same file.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build-bench}"
OUT="${OUT_DIR:-/tmp/gpuwhy-bench}"
REPEAT="${REPEAT:-3}"
SRC="$ROOT/../shared/traces/kineto/hta/df_index_resolver/df_index_resolver.json.gz"

if [ ! -f "$SRC" ]; then echo "SKIPPED: $SRC not present"; exit 0; fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
fi
ninja -C "$BUILD" -j"${JOBS:-2}" import_bench make_big_trace gpuwhy
mkdir -p "$OUT"
for n in 1 2 5 10; do
  f="$OUT/df_index_resolver_x$n.json.gz"
  [ -f "$f" ] || "$BUILD/tools/make_big_trace/make_big_trace" "$SRC" "$f" "$n"
done
"$BUILD/bench/import/import_bench" --repeat "$REPEAT" --gpuwhy "$BUILD/src/cli/gpuwhy" "$SRC" \
  "$OUT/df_index_resolver_x1.json.gz" "$OUT/df_index_resolver_x2.json.gz" \
  "$OUT/df_index_resolver_x5.json.gz" "$OUT/df_index_resolver_x10.json.gz"
# BIG=1: also the 100x copy (21.6 M events, ~5 GB of JSON; ~3 min to make,
# streamed): the CLI on the 10x and 100x copies in one run, for the 100x/10x
# linearity table and both peak RSS figures.
if [ "${BIG:-0}" = "1" ]; then
  f="$OUT/df_index_resolver_x100.json.gz"
  [ -f "$f" ] || "$BUILD/tools/make_big_trace/make_big_trace" "$SRC" "$f" 100
  "$BUILD/bench/import/import_bench" --cli-only --repeat "$REPEAT" --gpuwhy "$BUILD/src/cli/gpuwhy" \
    "$OUT/df_index_resolver_x10.json.gz" "$f"
fi
