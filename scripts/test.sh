#!/usr/bin/env bash
# README command 2 (and what .ci/run calls): build and pass every test.
#   1. the normal build (RelWithDebInfo) and its ctest suite;
#   2. the ASan+UBSan build and the same suite, less the slow tests, the
#      browser tests (Chromium is not instrumented; the renderer's own unit
#      tests, src/report/html, run under ASan) and the package tests
#      (tests/package: they check the install layout and the .deb, which is
#      made from step 1's build);
#   3. the layering check;
#   4. a short libFuzzer run of every parser's fuzzer (when clang is present),
#      one fuzzer per core at a time.
# Set GPUWHY_QUICK=1 to run step 1 and 3 only (local iteration).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

./scripts/install_deps.sh --test

# Unity builds (16 sources of a target per compile), the project's default
# (CMakeLists.txt), stated here so that a cached setting cannot change it:
# each target's headers are parsed once per batch instead of once per file,
# which is most of the compile time here. The fuzz build (step 4) and
# setup.sh's build use the same default.
unity="-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16"
# stage: print the stage name and the seconds since this script started.
stage() { echo "== $1 (at ${SECONDS} s)"; }

stage "build (RelWithDebInfo)"
# -g1 (line tables): the tests need no variable-level debug info, and full -g
# made each compile about a third slower (src/cli/analyze_command.cc: 17.0 s
# against 11.7 s, one `time` run each on this 2-core machine).
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" $unity >/dev/null
cmake --build build/test -j"$jobs"
stage "tests"
ctest --test-dir build/test --output-on-failure -j"$jobs" --timeout 300

stage "layering"
./tools/check_layering.sh

if [ "${GPUWHY_QUICK:-0}" = "1" ]; then
  exit 0
fi

stage "build (ASan+UBSan)"
# No benchmarks, and no test sets of the labels this stage leaves out (-LE
# below): they were about 70 s of compile and link CPU in this build.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUWHY_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" $unity -DGPUWHY_BENCH=OFF \
  -DGPUWHY_SKIP_TEST_LABELS="slow;browser;package" >/dev/null
cmake --build build/asan -j"$jobs"
stage "tests under ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs" --timeout 600 -LE "slow|browser|package"

if command -v clang++ >/dev/null && [ -x fuzz/run_fuzzers.sh ]; then
  # 10 s each, two at a time: a smoke run that keeps CI under its 25-minute budget
  # (the fuzz build alone takes about 3.4 min); longer runs: fuzz/run_fuzzers.sh 300.
  stage "fuzzers (${GPUWHY_FUZZ_SECONDS:-10} s each)"
  ./fuzz/run_fuzzers.sh "${GPUWHY_FUZZ_SECONDS:-10}"
fi
stage "all tests passed"
