#!/usr/bin/env bash
# GPU check for live sampling (needs an NVIDIA GPU, its driver and PyTorch).
# Runs small workloads that each show one curve type under `gpuwhy record`,
# with `gpuwhy watch --json` and nvidia-smi sampling beside them, then prints
# per workload: gpuwhy's live curve class, NVML/GPM means, nvidia-smi's means,
# and the WHY line of the recording's analysis. About 4-6 minutes in total.
#
# usage: tests/gpu/run.sh [BUILD_DIR]      (default build/gpu; built if missing)
#   env: OUT=dir for results (default $OUT or /tmp/gpuwhy-gpu-check)
#        SECONDS_PER_WORKLOAD (default 20), GPU (CUDA device index, default 0)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/gpu}
OUT=${OUT:-/tmp/gpuwhy-gpu-check}
DUR=${SECONDS_PER_WORKLOAD:-20}
GPU=${GPU:-0}
mkdir -p "$OUT"
log() { echo "== $*"; }

command -v nvidia-smi >/dev/null || { echo "run.sh: nvidia-smi not found: not a GPU machine"; exit 1; }
python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null \
  || { echo "run.sh: PyTorch with CUDA not available"; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,utilization.gpu,memory.used --format=csv | tee "$OUT/gpus.csv"

if [ ! -x "$BUILD/src/cli/gpuwhy" ]; then
  log "building gpuwhy in $BUILD"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUWHY_DEV_MODE=OFF >/dev/null || exit 1
  cmake --build "$BUILD" --target gpuwhy -j"$(nproc)" >/dev/null || exit 1
fi
GW=$(realpath "$BUILD/src/cli/gpuwhy")
export CUDA_VISIBLE_DEVICES=$GPU

log "watch --once --json (idle GPU)"
timeout 30 "$GW" watch --once --json > "$OUT/idle.json"; echo "rc=$?"
head -c 600 "$OUT/idle.json"; echo

# Workloads: each runs for $DUR seconds.
read -r -d '' PY_COMMON <<'EOF'
import os, sys, time, torch
dur = float(os.environ["DUR"]); dev = torch.device("cuda")
t_end = time.time() + dur
EOF
read -r -d '' W_SYNC <<'EOF'
x = torch.randn(4096, 4096, device=dev)
while time.time() < t_end:          # short GPU burst, sync, CPU work: bursts and gaps
    y = x @ x; torch.cuda.synchronize(); time.sleep(0.02)
EOF
read -r -d '' W_TINY <<'EOF'
x = torch.randn(32, device=dev)
while time.time() < t_end:          # launch-bound tiny kernels: GPU-Util high, SMs idle
    for _ in range(1000): x = x * 1.0001
    torch.cuda.synchronize()
EOF
read -r -d '' W_MEM <<'EOF'
a = torch.randn(1 << 28, device=dev); b = torch.randn_like(a)
while time.time() < t_end:          # memory-bound elementwise: DRAM high, tensor 0
    for _ in range(20): a.mul_(1.0001).add_(b)
    torch.cuda.synchronize()
EOF
read -r -d '' W_MATMUL <<'EOF'
a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16); b = torch.randn_like(a)
while time.time() < t_end:          # healthy: bf16 tensor-core matmuls back to back
    for _ in range(20): c = a @ b
    torch.cuda.synchronize()
EOF

run_workload() {  # name, python body, [copies]
  local name=$1 body=$2 copies=${3:-1}
  local py="$OUT/$name.py"
  printf '%s\n%s\n' "$PY_COMMON" "$body" > "$py"
  log "workload $name ($copies process(es), ${DUR}s)"
  nvidia-smi -i "$GPU" --query-gpu=timestamp,utilization.gpu,utilization.memory,power.draw,clocks.sm \
    --format=csv,noheader,nounits -lms 200 > "$OUT/$name.smi.csv" 2>/dev/null &
  local smi=$!
  timeout $((DUR + 30)) "$GW" watch --json --interval 500 --iterations $((DUR * 2 + 4)) \
    > "$OUT/$name.watch.ndjson" 2>"$OUT/$name.watch.err" &
  local watch=$!
  local cmd="DUR=$DUR python3 $py"
  if [ "$copies" -gt 1 ]; then
    cmd=""
    for _ in $(seq "$copies"); do cmd+="DUR=$DUR python3 $py & "; done
    cmd+="wait"
  fi
  timeout $((DUR + 60)) "$GW" record -o "$OUT/$name.gwrec" --interval 100 -- sh -c "$cmd" \
    > "$OUT/$name.report.txt" 2> "$OUT/$name.record.err"
  echo "record rc=$?  ($(stat -c %s "$OUT/$name.gwrec" 2>/dev/null || echo 0) bytes)"
  kill "$smi" 2>/dev/null; wait "$watch" 2>/dev/null; wait "$smi" 2>/dev/null
  python3 - "$OUT/$name" <<'EOF'
import json, sys, statistics as st
base = sys.argv[1]
def mean(xs):
    xs = [x for x in xs if x is not None]
    return f"{100*st.mean(xs):5.1f}%" if xs else "  n/a"
rows = []
for line in open(base + ".watch.ndjson"):
    try: rows.append(json.loads(line)["devices"][0])
    except Exception: pass
m = lambda k: [r["metrics"][k]["value"] for r in rows]
src = lambda k: (rows[-1]["metrics"][k]["source"] if rows else None)
cls = rows[-1]["curve"] if rows else {"class": "n/a", "reason": ""}
print(f"  gpuwhy class: {cls['class']}  ({cls['reason']})")
print(f"  gpuwhy  GPU-Util {mean(m('gpu_util'))} [{src('gpu_util')}]  SM active {mean(m('sm_active'))}"
      f"  occupancy {mean(m('sm_occupancy'))}  tensor {mean(m('tensor_active'))}"
      f"  DRAM {mean(m('dram_active'))} [{src('sm_active')}]")
smi = []
for line in open(base + ".smi.csv"):
    p = [x.strip() for x in line.split(",")]
    try: smi.append((float(p[1]) / 100, float(p[2]) / 100, float(p[3])))
    except Exception: pass
if smi:
    print(f"  nvidia-smi GPU-Util {mean([s[0] for s in smi])}  mem {mean([s[1] for s in smi])}"
          f"  power {st.mean(s[2] for s in smi):.0f} W  ({len(smi)} samples)")
for line in open(base + ".report.txt"):
    if line.startswith("WHY") or "curve" in line:
        print("  analysis:", line.rstrip())
EOF
}

run_workload sync_every_step "$W_SYNC"
run_workload tiny_kernels "$W_TINY"
run_workload memory_bound "$W_MEM"
run_workload bf16_matmul "$W_MATMUL"
run_workload two_processes "$W_MATMUL" 2

log "recordings and logs in $OUT"
ls -la "$OUT"
