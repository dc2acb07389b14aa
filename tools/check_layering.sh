#!/usr/bin/env bash
# Enforces the include directions of docs/architecture.md:
#   base <- model <- import / analysis <- report <- cli
# record (collectors) may use base and model; inject (the CUPTI injection
# library) may use base only; live may use record, analysis,
# report. Tests, benches, tools and fuzzers may include anything.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed() {  # allowed LAYER -> list of layers it may include
  case "$1" in
    base) echo "base" ;;
    model) echo "base model" ;;
    import) echo "base model import" ;;
    analysis) echo "base model analysis" ;;
    report) echo "base model analysis report" ;;
    record) echo "base model record" ;;
    inject) echo "base inject" ;;
    live) echo "base model analysis report record live" ;;
    cli) echo "base model import analysis report record live cli" ;;
    *) echo "" ;;
  esac
}

bad=0
while IFS= read -r file; do
  layer=$(echo "$file" | cut -d/ -f2)
  case "$file" in *_test.cc) continue ;; esac
  ok=$(allowed "$layer")
  [ -n "$ok" ] || continue
  while IFS= read -r inc; do
    target=$(echo "$inc" | sed -E 's/#include "([^/"]+)\/.*/\1/')
    [ "$target" = "$inc" ] && continue
    case " $ok " in
      *" $target "*) ;;
      *) echo "layering: $file includes $target/ ($inc)"; bad=1 ;;
    esac
  done < <(grep -E '^#include "[^"]+/' "$file" || true)
done < <(find src -name '*.h' -o -name '*.cc' | sort)

if [ "$bad" -ne 0 ]; then
  echo "layering: violations found (see docs/architecture.md)"
  exit 1
fi
echo "layering: ok"
