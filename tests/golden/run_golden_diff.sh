#!/usr/bin/env bash
# run_golden_diff.sh GPUWHY ROOT EXPECTED MODE BEFORE AFTER
# Runs `gpuwhy diff [--json] BEFORE AFTER` from ROOT and diffs stdout against EXPECTED.
set -uo pipefail
gpuwhy=$1 root=$2 expected=$3 mode=$4 before=$5 after=$6
cd "$root" || exit 1
args=()
[ "$mode" = json ] && args+=(--json)
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$gpuwhy" diff "${args[@]}" "$before" "$after" > "$actual"
rc=$?
if [ $rc -ne 0 ]; then
  echo "gpuwhy diff exited with $rc"
  exit 1
fi
if ! diff -u "$expected" "$actual"; then
  echo "golden mismatch: $expected (regenerate with tools/update_goldens.sh if intended)"
  exit 1
fi
