#!/usr/bin/env bash
# run_golden.sh GPUWHY ROOT EXPECTED MODE INPUT...
# Runs `gpuwhy analyze [--json] INPUT...` from ROOT (so paths in the report are
# the relative ones in cases.txt) and diffs stdout against EXPECTED.
set -uo pipefail
gpuwhy=$1 root=$2 expected=$3 mode=$4
shift 4
cd "$root" || exit 1
args=()
[ "$mode" = json ] && args+=(--json)
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$gpuwhy" analyze "${args[@]}" "$@" > "$actual"
rc=$?
if [ $rc -ne 0 ]; then
  echo "gpuwhy analyze exited with $rc"
  exit 1
fi
if ! diff -u "$expected" "$actual"; then
  echo "golden mismatch: $expected (regenerate with tools/update_goldens.sh if intended)"
  exit 1
fi
