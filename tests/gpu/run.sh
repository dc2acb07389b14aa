#!/usr/bin/env bash
# GPU check for live sampling (needs an NVIDIA GPU, its driver and PyTorch).
# Runs small workloads that each show one curve type under `gpuwhy record`,
# with `gpuwhy watch --json` and nvidia-smi sampling beside them, then prints
# per workload: gpuwhy's live curve class, NVML/GPM means, nvidia-smi's means,
# and the WHY line of the recording's analysis. Then compares `record --trace`
# with torch.profiler on three pathology workloads (kernel counts and time, top
# finding, step-time overhead). About 6-9 minutes in total.
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

# ---- record --trace vs torch.profiler (issue 17) ---------------------------
# Each pathology workload runs a fixed number of steps three ways: plain (step
# time), under `gpuwhy record --trace` (CUPTI injection, no code change) and
# under torch.profiler (Kineto, CPU+CUDA activities). Compared: kernel count and
# total kernel time, the top finding of each trace, and the step-time overhead
# of tracing (target <= 5% on the launch-bound worst case, tiny_kernels).
read -r -d '' TR_COMMON <<'PYEOF'
import os, sys, time, torch
dev = torch.device("cuda"); steps = int(os.environ.get("STEPS", "50"))
def run(step):
    for _ in range(5): step()                    # warm-up
    torch.cuda.synchronize(); times = []
    ctx = None
    if os.environ.get("KINETO_OUT"):
        from torch.profiler import profile, ProfilerActivity
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]); ctx.__enter__()
    for i in range(steps):
        t = time.perf_counter()
        torch.cuda.nvtx.range_push(f"step {i}"); step(); torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize(); times.append(time.perf_counter() - t)
    if ctx:
        ctx.__exit__(None, None, None); ctx.export_chrome_trace(os.environ["KINETO_OUT"])
    times.sort(); print(f"STEP_MS {1000 * times[len(times) // 2]:.3f}")
PYEOF
read -r -d '' TR_SYNC <<'PYEOF'
x = torch.randn(2048, 2048, device=dev)
def step():
    for _ in range(10): y = x @ x
    float(y.sum().item()); time.sleep(0.003)      # .item(): a host sync every step
run(step)
PYEOF
read -r -d '' TR_TINY <<'PYEOF'
x = torch.randn(32, device=dev)
def step():
    global x
    for _ in range(1000): x = x * 1.0001          # launch-bound tiny kernels
run(step)
PYEOF
read -r -d '' TR_PAGEABLE <<'PYEOF'
host = torch.randn(16 << 20); w = torch.randn(4096, 4096, device=dev)
def step():
    d = host.to(dev)                              # 64 MiB from pageable memory per step
    for _ in range(5): y = w @ w
run(step)
PYEOF
# kernels_of FILE: "count total_ms" of a recording's trace streams or of a Kineto JSON.
kernels_of() {
  python3 - "$1" <<'PYEOF'
import json, struct, sys
p = sys.argv[1]
try:
    if p.endswith(".json"):
        ev = [e for e in json.load(open(p))["traceEvents"] if e.get("cat") == "kernel"]
        print(len(ev), f"{sum(e.get('dur', 0) for e in ev) / 1000:.1f}")
        sys.exit()
    b = open(p, "rb").read(); off = 16; n = 0; ns = 0
    while off + 12 <= len(b):
        ln, ty = struct.unpack_from("<IH", b, off); pay = b[off + 12: off + 12 + ln]; off += 12 + ln
        if ty == 12:                              # kernels frame: u32 n, n x 76-byte records
            (k,) = struct.unpack_from("<I", pay, 0)
            for i in range(k):
                s, e = struct.unpack_from("<qq", pay, 4 + 76 * i); n += 1; ns += e - s
    print(n, f"{ns / 1e6:.1f}")
except (OSError, ValueError, KeyError) as e:
    print("n/a", f"({e})")
PYEOF
}
top_finding() {
  python3 -c 'import re,sys; m=re.search(r"\"findings\":\s*\[\s*\{\s*\"id\":\s*\"([^\"]+)\"", sys.stdin.read()); print(m.group(1) if m else "none")' 2>/dev/null || echo "n/a"
}

trace_compare() {  # name, body
  local name=$1 body=$2 py="$OUT/trace_$1.py"
  printf '%s\n%s\n' "$TR_COMMON" "$body" > "$py"
  log "trace comparison: $name"
  local plain traced kin
  plain=$(STEPS=50 timeout 300 python3 "$py" | sed -n 's/STEP_MS //p')
  traced=$(STEPS=50 timeout 300 "$GW" record --trace --json -o "$OUT/trace_$name.gwrec" -- python3 "$py" \
           2> "$OUT/trace_$name.err" | tee "$OUT/trace_$name.report.json" | sed -n 's/^STEP_MS //p')
  STEPS=50 KINETO_OUT="$OUT/trace_$name.kineto.json" timeout 300 python3 "$py" > "$OUT/trace_$name.kineto.out"
  kin=$(sed -n 's/STEP_MS //p' "$OUT/trace_$name.kineto.out")
  "$GW" analyze --json "$OUT/trace_$name.gwrec" 2>/dev/null > "$OUT/trace_$name.gw.json"
  "$GW" analyze --json "$OUT/trace_$name.kineto.json" 2>/dev/null > "$OUT/trace_$name.kin.json"
  echo "  step ms: plain ${plain:-n/a}  record --trace ${traced:-n/a}  torch.profiler ${kin:-n/a}"
  python3 -c 'import sys
p, t, k = [float(x) if x else float("nan") for x in sys.argv[1:4]]
print(f"  overhead: record --trace {100*(t/p-1):+.1f}%  torch.profiler {100*(k/p-1):+.1f}%")' \
    "$plain" "$traced" "$kin"
  echo "  kernels (count, total ms): record --trace $(kernels_of "$OUT/trace_$name.gwrec");" \
       "torch.profiler $(kernels_of "$OUT/trace_$name.kineto.json")"
  echo "  top finding: record --trace $(top_finding < "$OUT/trace_$name.gw.json");" \
       "torch.profiler $(top_finding < "$OUT/trace_$name.kin.json")"
  grep -h "gpuwhy trace\|nothing was traced\|traced " "$OUT/trace_$name.err" | sed 's/^/  /'
}
trace_compare sync_every_step "$TR_SYNC"
trace_compare tiny_kernels "$TR_TINY"
trace_compare pageable_copy "$TR_PAGEABLE"

log "recordings and logs in $OUT"
ls -la "$OUT"
