"""The cost of `record --torch`'s shim outside the profiled steps.

Usage: /usr/bin/python3 shim_overhead.py SHIM_DIR [STEPS] [REPEAT]

Runs one training script (an MLP, STEPS optimizer steps, default 3000, no
DataLoader workers) in three ways, alternating, REPEAT times (default 7):
  plain    python3 bench_train.py: no shim
  idle     with the shim on PYTHONPATH and a window past the end of the run
           (GPUWHY_TORCH_STEPS=10^9:10^9+1): the import hook, the wrapped step
           function and its counter, the status file at exit; no profiling
  window   the default window (5:10): profiles 5 steps, writes the trace
Prints wall-time medians and (idle - plain) / plain, which must be <= 2%
(exit 1 otherwise). `window` shows what the profiled steps themselves cost.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SCRIPT = r'''
import sys, torch
from torch import nn
torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(32, 64)
y = torch.randint(0, 10, (32,))
for _ in range(int(sys.argv[1])):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def main():
    shim = os.path.abspath(sys.argv[1])
    steps = sys.argv[2] if len(sys.argv) > 2 else "3000"
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    tmp = tempfile.mkdtemp(prefix="gpuwhy-shim-bench-")
    try:
        script = os.path.join(tmp, "bench_train.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        base = {k: v for k, v in os.environ.items() if not k.startswith("GPUWHY_TORCH")}
        base["OMP_NUM_THREADS"] = "1"
        shimmed = dict(base, PYTHONPATH=shim + (":" + base["PYTHONPATH"]
                                                if base.get("PYTHONPATH") else ""))
        runs = {
            "plain": base,
            "idle": dict(shimmed, GPUWHY_TORCH_DIR=os.path.join(tmp, "idle"),
                         GPUWHY_TORCH_STEPS="1000000000:1000000001"),
            "window": dict(shimmed, GPUWHY_TORCH_DIR=os.path.join(tmp, "window"),
                           GPUWHY_TORCH_STEPS="5:10"),
        }
        times = {k: [] for k in runs}
        cmd = [sys.executable, script, steps]
        subprocess.run(cmd, env=base, check=True)  # warm the page cache
        for _ in range(repeat):
            for name, env in runs.items():
                t = time.perf_counter()
                subprocess.run(cmd, env=env, check=True)
                times[name].append(time.perf_counter() - t)
        med = {k: statistics.median(v) for k, v in times.items()}
        print("%s steps, %d runs each, wall medians (min..max):" % (steps, repeat))
        for k, v in times.items():
            print("  %-7s %8.1f ms  (%.1f..%.1f)" % (k, med[k] * 1e3, min(v) * 1e3, max(v) * 1e3))
        idle = (med["idle"] - med["plain"]) / med["plain"]
        window = (med["window"] - med["plain"]) / med["plain"]
        print("shim outside profiled steps: %+.2f%% of wall (limit 2%%); with the 5-step "
              "window: %+.2f%%" % (idle * 100, window * 100))
        sys.exit(0 if idle <= 0.02 else 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
