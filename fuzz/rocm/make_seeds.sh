#!/usr/bin/env bash
# make_seeds.sh: rebuilds the SQLite seeds corpus/*.db from seeds/*.sql with
# the sqlite3 shell (page size 1024 keeps them small).
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
for sql in "$DIR"/seeds/*.sql; do
  db="$DIR/corpus/$(basename "$sql" .sql).db"
  rm -f "$db"
  { echo "PRAGMA page_size=1024;"; cat "$sql"; echo "VACUUM;"; } | sqlite3 "$db"
done
