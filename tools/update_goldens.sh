#!/usr/bin/env bash
# update_goldens.sh: regenerate the golden-test inputs (tests/data, with
# synth_trace and fixed seeds), the bundled example, and the expected outputs
# (tests/golden/expected/<case>.txt and .json) from the current gpuwhy.
#
# usage: tools/update_goldens.sh [BUILD_DIR]     (default: build)
# Review the diff (git diff tests/golden) before committing: every change in
# the expected files must be one you meant.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-"$root/build"}
case "$build" in /*) ;; *) build="$root/$build" ;; esac

cmake --build "$build" --target gpuwhy synth_trace synth_smi make_big_nsys -- -j2
gpuwhy="$build/src/cli/gpuwhy"
synth="$build/tools/synth_trace/synth_trace"
synth_smi="$build/tools/synth_smi/synth_smi"
make_big_nsys="$build/tools/make_big_nsys/make_big_nsys"
cd "$root"

# ---- inputs (fixed seeds; small enough to commit) ----
mkdir -p tests/data/multi_rank tests/data/bad tests/golden/expected examples
for s in healthy dataloader_stall sync_every_step fragmented pageable_h2d memory_bound \
         host_busy launch_cadence one_off_gap hip_blocking_copy; do
  "$synth" "$s" --seed 1 -o "tests/data/$s.pt.trace.json.gz"
done
"$synth" multi_rank --seed 1 --rank 0 --world-size 2 -o tests/data/multi_rank/rank0.pt.trace.json.gz
"$synth" multi_rank --seed 1 --rank 1 --world-size 2 -o tests/data/multi_rank/rank1.pt.trace.json.gz
"$synth" healthy --seed 1 --steps 3 --legacy -o tests/data/legacy_2021.pt.trace.json
# A trace and the nvidia-smi log of the same run (local time UTC+8, 100 ms):
# the log alone, and both together (merged on wall clock).
mkdir -p tests/data/with_smi
"$synth" dataloader_stall --seed 1 --steps 40 -o tests/data/with_smi/dataloader.pt.trace.json.gz \
  --smi tests/data/with_smi/nvidia_smi.csv --smi-period-ms 100 --smi-tz-hours 8
# nvidia-smi full reports (tools/synth_smi, gzip -n so bytes are reproducible): a table
# loop of the 550 layout, a corrupted dump, a two-GPU log with one idle GPU, a
# four-GPU imbalance, and -q -x XML snapshots.
mkdir -p tests/data/smi_table
for c in table_r550 table_corrupt two_gpu_idle imbalance q_xml; do
  "$synth_smi" "$c" -o "tests/data/smi_table/$c.log"
  gzip -9nf "tests/data/smi_table/$c.log"
done
# A Unified Memory program export (nsys-like SQLite with UVM migrations).
mkdir -p tests/data/uvm
"$make_big_nsys" --uvm tests/data/uvm/uvm_program.sqlite > /dev/null
# Bad inputs for the exit-code test: a JSON trace cut mid-event, and random text.
head -c 1500 tests/data/legacy_2021.pt.trace.json > tests/data/bad/truncated.pt.trace.json
printf 'this is not a trace\n' > tests/data/bad/not_a_trace.txt
# An XSpace (JAX/XLA profiler protobuf) cut inside its first plane.
head -c 500 fuzz/xplane/corpus/gpu_streams > tests/data/bad/truncated.xplane.pb
# A table header whose rows match no layout, and -q -x XML cut inside a GPU block.
printf 'Thu Dec  3 14:46:09 2026\n+----+\n| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |\n| garbage | row |\n' \
  > tests/data/bad/smi_table_broken.log
printf '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<gpu id="00000000:07:00.0">\n<utilization><gpu_util>5 %%</gpu_util>\n</gpu>\n' \
  > tests/data/bad/smi_q_broken.xml

# ---- the bundled example ----
"$synth" dataloader_stall --seed 7 --steps 8 -o examples/dataloader_stall.pt.trace.json.gz

# ---- expected outputs ----
grep -v '^[[:space:]]*#' tests/golden/cases.txt | while read -r name inputs; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086  # inputs is a list of paths without spaces
  "$gpuwhy" analyze $inputs > "tests/golden/expected/$name.txt"
  # shellcheck disable=SC2086
  "$gpuwhy" analyze --json $inputs > "tests/golden/expected/$name.json"
  echo "updated $name"
done
grep -v '^[[:space:]]*#' tests/golden/diff_cases.txt | while read -r name before after; do
  [ -n "$name" ] || continue
  "$gpuwhy" diff "$before" "$after" > "tests/golden/expected/diff_$name.txt"
  "$gpuwhy" diff --json "$before" "$after" > "tests/golden/expected/diff_$name.json"
  echo "updated diff_$name"
done
