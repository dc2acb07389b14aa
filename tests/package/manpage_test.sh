#!/usr/bin/env bash
# manpage_test.sh GPUWHY PAGE: gpuwhy(1) has a section per subcommand of
# `gpuwhy --help` and names every option of each `gpuwhy CMD --help`, and man
# renders it without warnings (when man is installed).
# The page is generated from --help (packaging/gen_docs.sh), so a failure here
# means the generator missed a form of help text; a stale page is rebuilt by
# `cmake --build BUILD --target gpuwhy_docs`.
set -uo pipefail
gpuwhy=$1 page=$2
[ -f "$page" ] || { echo "FAIL: $page missing (cmake --build BUILD --target gpuwhy_docs)"; exit 1; }
# Roff to text: \- is a minus, font switches go.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
status=0
mapfile -t commands < <("$gpuwhy" --help | awk '/^commands:/{c=1; next} c && /^$/{exit} c && /^  [a-z]/{print $1}')
[ ${#commands[@]} -gt 0 ] || { echo "FAIL: no subcommands in gpuwhy --help"; exit 1; }
for cmd in "${commands[@]}"; do
  upper=$(tr '[:lower:]' '[:upper:]' <<< "$cmd")
  if ! grep -qx ".SH \"GPUWHY $upper\"" <<< "$text"; then
    echo "FAIL: no section GPUWHY $upper in $page"; status=1; continue
  fi
  # This subcommand's section: from its .SH to the next .SH.
  section=$(awk -v h=".SH \"GPUWHY $upper\"" '$0 == h {s=1; next} s && /^\.SH/ {exit} s' <<< "$text")
  for opt in $("$gpuwhy" "$cmd" --help | awk '/^ +-/ {sub(/^ +/, ""); sub(/ .*/, ""); gsub(/,/, " "); print}'); do
    if ! grep -qe "$opt\b" <<< "$section"; then
      echo "FAIL: option $opt of 'gpuwhy $cmd --help' is missing from section GPUWHY $upper"; status=1
    fi
  done
done
if command -v man >/dev/null; then
  warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
  if [ -n "$warnings" ]; then echo "FAIL: man --warnings:"; echo "$warnings"; status=1; fi
else
  echo "note: man not installed; rendering not checked"
fi
[ $status -eq 0 ] && echo "OK: ${#commands[@]} subcommand sections, every --help option present"
exit $status
