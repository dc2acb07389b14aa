#!/usr/bin/env bash
# completion_test.sh bash|zsh GPUWHY FILE: the generated completion works.
#   bash: completing `gpuwhy ` offers every subcommand of `gpuwhy --help`, and
#         `gpuwhy CMD --` offers every option of `gpuwhy CMD --help`;
#   zsh:  the file parses (zsh -n); skipped when zsh is not installed.
set -uo pipefail
shell=$1 gpuwhy=$2 file=$3
[ -f "$file" ] || { echo "FAIL: $file missing (cmake --build BUILD --target gpuwhy_docs)"; exit 1; }
mapfile -t commands < <("$gpuwhy" --help | awk '/^commands:/{c=1; next} c && /^$/{exit} c && /^  [a-z]/{print $1}')
[ ${#commands[@]} -gt 0 ] || { echo "FAIL: no subcommands in gpuwhy --help"; exit 1; }

if [ "$shell" = zsh ]; then
  if ! command -v zsh >/dev/null; then echo "SKIPPED: zsh not installed"; exit 77; fi
  zsh -n "$file" || { echo "FAIL: zsh -n $file"; exit 1; }
  head -n 1 "$file" | grep -qx '#compdef gpuwhy' || { echo "FAIL: first line is not '#compdef gpuwhy'"; exit 1; }
  for cmd in "${commands[@]}"; do
    grep -q "^    $cmd)" "$file" || { echo "FAIL: no case for $cmd in $file"; exit 1; }
  done
  echo "OK: $file parses"
  exit 0
fi

# complete WORDS...: what _gpuwhy offers for the last word, one per line.
complete_words() {
  bash --norc --noprofile -c '
    source "$1"; shift
    complete -p gpuwhy >/dev/null || { echo "no complete spec for gpuwhy" >&2; exit 1; }
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _gpuwhy; printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$@"
}
status=0
offered=$(complete_words gpuwhy "") || exit 1
for cmd in "${commands[@]}"; do
  grep -qx "$cmd" <<< "$offered" || { echo "FAIL: 'gpuwhy <TAB>' does not offer $cmd"; status=1; }
done
for cmd in "${commands[@]}"; do
  offered=$(complete_words gpuwhy "$cmd" "-") || exit 1
  for opt in $("$gpuwhy" "$cmd" --help | awk '/^ +-/ {sub(/^ +/, ""); sub(/ .*/, ""); gsub(/,/, " "); print}'); do
    grep -qxe "$opt" <<< "$offered" || { echo "FAIL: 'gpuwhy $cmd -<TAB>' does not offer $opt"; status=1; }
  done
done
# An option's value and a positional are file names.
offered=$(complete_words gpuwhy analyze "$(dirname "$file")/gpuwhy.b") || exit 1
grep -q "gpuwhy.bash$" <<< "$offered" || { echo "FAIL: 'gpuwhy analyze FILE<TAB>' does not complete file names"; status=1; }
[ $status -eq 0 ] && echo "OK: bash completion offers ${#commands[@]} subcommands and their options"
exit $status
