#!/usr/bin/env bash
# nsys_bad_input_cli.sh GPUWHY MAKE_BIG_NSYS RUN_BAD_INPUT
# CLI bad-input checks for nsys exports, on files generated here in a temp dir:
# a truncated export, an export with garbled kernel pages, a SQLite database
# that is not an nsys export, an export without StringIds, and a .nsys-rep /
# .qdrep given by mistake. Each `gpuwhy analyze FILE` must exit 2 with nothing
# on stdout and one stderr line that names the file (run_bad_input.sh checks
# the exit code and line count; the path is checked here).
set -uo pipefail
gpuwhy=$1 make_big=$2 run_bad=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$make_big" "$dir/good.sqlite" 20000 > /dev/null || { echo "make_big_nsys failed"; exit 1; }
"$make_big" --fuzz-seeds "$dir" > /dev/null || { echo "make_big_nsys --fuzz-seeds failed"; exit 1; }
size=$(stat -c %s "$dir/good.sqlite")
head -c $((size * 6 / 10)) "$dir/good.sqlite" > "$dir/truncated.sqlite"
cp "$dir/good.sqlite" "$dir/garbled.sqlite"
# 8 pages of fixed junk in the middle of the kernel table (page type byte invalid).
yes garbage-page | head -c 32768 | dd of="$dir/garbled.sqlite" bs=4096 seek=$((size / 8192)) conv=notrunc status=none
cp "$dir/foreign.sqlite" "$dir/not_nsys.sqlite"
# An export that lost StringIds: drop it from a copy of the full seed.
cp "$dir/full.sqlite" "$dir/no_strings.sqlite"
printf 'NVIDIA Tegra Profiler Report 1.\n\x0b' > "$dir/report1.nsys-rep"
printf '\x00\x01old report' > "$dir/old.qdrep"
fail=0
check() {  # check FILE: exit 2, one stderr line naming FILE
  local f=$1 out
  out=$(bash "$run_bad" "$gpuwhy" "$dir" 2 analyze "$f")
  local rc=$?
  echo "$(basename "$f"): $out"
  if [ $rc -ne 0 ]; then fail=1; fi
  if ! grep -qF "$f" <<< "$out"; then echo "  message does not name $f"; fail=1; fi
}
# Prefer the sqlite3 CLI to drop the table; without it the check is skipped.
if command -v sqlite3 > /dev/null; then
  sqlite3 "$dir/no_strings.sqlite" "DROP TABLE StringIds;" && check "$dir/no_strings.sqlite"
else
  echo "SKIPPED: no_strings (no sqlite3 CLI)"
fi
for f in truncated garbled not_nsys; do check "$dir/$f.sqlite"; done
check "$dir/report1.nsys-rep"
check "$dir/old.qdrep"
# The untouched export imports (exit 0), so the failures above are the damage.
if ! "$gpuwhy" analyze "$dir/good.sqlite" > /dev/null 2>&1; then
  echo "good.sqlite did not import"; fail=1
fi
exit $fail
