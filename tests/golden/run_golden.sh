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
# tool.version is the build's git describe (cmake/version.cmake), different in
# every commit; the expected files hold the one they were made with.
if [ "$mode" = json ]; then
  want=$(sed -n 's/^    "version": "\(.*\)",\{0,1\}$/\1/p' "$expected" | head -n 1)
  sed -i "s/^\(    \"version\": \)\"[^\"]*\"/\1\"$want\"/" "$actual"
fi
if [ $rc -ne 0 ]; then
  echo "gpuwhy analyze exited with $rc"
  exit 1
fi
if ! diff -u "$expected" "$actual"; then
  echo "golden mismatch: $expected (regenerate with tools/update_goldens.sh if intended)"
  exit 1
fi
