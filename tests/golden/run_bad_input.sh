#!/usr/bin/env bash
# run_bad_input.sh GPUWHY ROOT EXPECTED_RC ARGS...
# Checks that `gpuwhy ARGS...` exits with EXPECTED_RC; for exit code 2 (bad
# input) also that stdout is empty and stderr is exactly one line.
set -uo pipefail
gpuwhy=$1 root=$2 want=$3
shift 3
cd "$root" || exit 1
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$gpuwhy" "$@" > "$out" 2> "$err"
rc=$?
fail=0
if [ "$rc" -ne "$want" ]; then echo "exit code $rc, want $want"; fail=1; fi
if [ "$want" -eq 2 ]; then
  if [ -s "$out" ]; then echo "stdout not empty:"; cat "$out"; fail=1; fi
  lines=$(wc -l < "$err")
  if [ "$lines" -ne 1 ]; then echo "stderr has $lines lines, want 1:"; cat "$err"; fail=1; fi
fi
echo "stderr: $(head -c 300 "$err")"
exit $fail
