#!/usr/bin/env bash
# run_fuzzers.sh SECONDS
# Configures and builds every libFuzzer target under fuzz/*/ (files named
# *_fuzzer.cc, target = file name) in build-fuzz with clang, then runs each for
# SECONDS seconds on a scratch copy of its seed corpus (fuzz/<name>/corpus) with
# its dictionary (fuzz/<name>/*.dict) when present. Exits non-zero when a target
# fails to build or a fuzzer finds a crash (the reproducer stays in build-fuzz/crashes).
set -euo pipefail
SECONDS_EACH="${1:-30}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${JOBS:-2}"

mkdir -p "$BUILD"
# -O1 with line tables only: libFuzzer's recommended optimisation, and the
# build (which now compiles the analysis for the .gwsum and HTTP fuzzers) is
# the larger part of this step's CI time; crash stacks keep file:line. A unity
# build, the project's default: one file per compile took this build 544 s of
# CPU (CI of 2026-12-05), most of it parsing the same headers again.
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DGPUWHY_FUZZ=ON \
  -DGPUWHY_DEV_MODE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" > "$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log"; exit 1; }

mapfile -t SOURCES < <(find "$ROOT/fuzz" -mindepth 2 -maxdepth 2 -name '*_fuzzer.cc' | sort)
if [ "${#SOURCES[@]}" -eq 0 ]; then echo "no fuzzers found"; exit 1; fi
TARGETS=()
for src in "${SOURCES[@]}"; do TARGETS+=("$(basename "$src" .cc)"); done
ninja -C "$BUILD" -j"$JOBS" "${TARGETS[@]}"

mkdir -p "$BUILD/crashes"
# run_one NAME SRC: one fuzzer for SECONDS_EACH; its summary goes to
# $BUILD/NAME.summary so that parallel runs print in a stable order.
run_one() {
  local name="$1" src="$2" dir bin work dict
  rm -f "$BUILD/$name.failed"
  dir="$(dirname "$src")"
  bin="$(find "$BUILD" -type f -name "$name" -perm -u+x | head -n1)"
  work="$BUILD/corpus/$name"
  mkdir -p "$work"
  if [ -d "$dir/corpus" ]; then cp -n "$dir"/corpus/* "$work"/ 2>/dev/null || true; fi
  # seeds_from: other fuzz folders whose seeds this target also starts from
  # (one name per line), so that no seed is committed twice.
  if [ -f "$dir/seeds_from" ]; then
    local other
    while read -r other; do
      [ -n "$other" ] && cp -n "$ROOT/fuzz/$other"/corpus/* "$work"/ 2>/dev/null || true
    done < "$dir/seeds_from"
  fi
  local args=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$BUILD/crashes/$name-")
  dict="$(find "$dir" -maxdepth 1 -name '*.dict' | head -n1)"
  if [ -n "$dict" ]; then args+=(-dict="$dict"); fi
  {
    echo "== $name for ${SECONDS_EACH}s"
    if ! "$bin" "${args[@]}" "$work" > "$BUILD/$name.log" 2>&1; then
      echo "FAILED: $name (see $BUILD/$name.log and $BUILD/crashes/)"
      tail -n 40 "$BUILD/$name.log"
      touch "$BUILD/$name.failed"
      return 1
    fi
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$BUILD/$name.log" || true
  } > "$BUILD/$name.summary" 2>&1
}

# One fuzzer per core at a time: each still gets SECONDS_EACH of its own.
status=0
names=()
for src in "${SOURCES[@]}"; do
  name="$(basename "$src" .cc)"
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_one "$name" "$src" &
  names+=("$name")
done
wait || true
# The exit status comes from marker files: `wait -n` may already have reaped a job.
for name in "${names[@]}"; do
  cat "$BUILD/$name.summary"
  if [ -e "$BUILD/$name.failed" ]; then status=1; fi
done
exit $status
