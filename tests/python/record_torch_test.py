"""`gpuwhy record --torch` with real PyTorch (Debian's python3-torch, CPU).

Usage: record_torch_test.py GPUWHY_EXE CASE
  run       (a) an unmodified MLP script with a DataLoader: one trace holding
            ProfilerStep#5..#9, the CPU-only line with the step count, no
            DataLoader worker profiled, the job's exit code 3 kept; the
            one-line outcomes (no step, too few steps, torch not importable)
  analysis  (a) the report of that trace: a CPU-only run with 5 steps
  ranks     (b) two gloo ranks under torchrun: one trace per rank with the rank
            in the file name, and a rank-set report; two ranks of
            torch.multiprocessing (spawn, fork), named by the process group's rank
  nvml      with a GPU (the fake NVML, FAKE_NVML_LIB as 3rd argument): the
            NVML recording is made beside the trace and kept in DIR
Exit 77 (SKIPPED) when torch is not importable, or (analysis, ranks' report)
when this gpuwhy does not read the trace layout this torch writes: decided by
the CLI's own answer, so the check runs as soon as a reader exists.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
SKIP = 77


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(SKIP)


def check(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)


def record(exe, out_dir, args, extra=(), cwd=None):
    cmd = [exe, "record", "--torch", "-o", out_dir] + list(extra) + ["--"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)
    print("$ " + " ".join(cmd) + "\n-> %d\n%s%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def gw_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gpuwhy record --torch: ")]


def load_trace(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def step_names(path):
    names = [e.get("name", "") for e in load_trace(path)]
    return sorted(n for n in names if n.startswith("ProfilerStep#"))


def reader_missing(exe, trace):
    """The CLI's answer for `trace`: None when it reads it, else its line."""
    p = subprocess.run([exe, "analyze", "--json", trace], capture_output=True, text=True)
    if p.returncode == 0:
        return None, json.loads(p.stdout)
    check(p.returncode == 2, "analyze exits 2 on a trace it cannot read: %r" % p.stderr)
    check("does not read" in p.stderr or "not a" in p.stderr or "unknown" in p.stderr,
          "analyze fails for a reason other than the layout: %r" % p.stderr)
    return p.stderr.strip(), None


def case_run(exe, tmp):
    script = os.path.join(HERE, "train_mlp.py")
    out = os.path.join(tmp, "a")
    p = record(exe, out, [PY, script, "--exit", "3"])
    check(p.returncode == 3, "record keeps the job's exit code 3 (got %d)" % p.returncode)
    check("Traceback" not in p.stderr, "no traceback")
    traces = glob.glob(os.path.join(out, "*.pt.trace.json"))
    check(len(traces) == 1, "one trace (no DataLoader worker profiles): %r" % traces)
    statuses = glob.glob(os.path.join(out, "status", "*.txt"))
    check(len(statuses) == 1, "one status file, none from the 2 DataLoader workers: %r" % statuses)
    check(step_names(traces[0]) == ["ProfilerStep#%d" % i for i in range(5, 10)],
          "the trace holds ProfilerStep#5..#9 once each: %r" % step_names(traces[0]))
    lines = gw_lines(p.stderr)
    check(any("a CPU-only run" in l and "recorded 5 steps (ProfilerStep#5..#9) of 14" in l
              for l in lines), "the CPU-only line with the step count: %r" % lines)

    # --steps A:B, with a warm-up step (2:5) and without (1:3).
    for a, b in ((2, 5), (1, 3)):
        out = os.path.join(tmp, "a2-%d" % a)
        p = record(exe, out, [PY, script, "--workers", "0"],
                   ["--steps", "%d:%d" % (a, b), "--no-report"])
        check(p.returncode == 0, "exit 0")
        traces = glob.glob(os.path.join(out, "*.pt.trace.json"))
        want = ["ProfilerStep#%d" % i for i in range(a, b)]
        check(len(traces) == 1 and step_names(traces[0]) == want,
              "--steps %d:%d records %r: %r" % (a, b, want, [step_names(t) for t in traces]))

    # Shapes always (MFU), --stack and --memory on request: what the shim
    # asked the profiler for (this torch's legacy export writes neither).
    for flags, want in (([], "shapes"), (["--stack", "--memory"], "shapes,stack,memory")):
        out = os.path.join(tmp, "a2s%d" % len(flags))
        p = record(exe, out, [PY, script, "--workers", "0"],
                   ["--steps", "1:2", "--no-report"] + flags)
        got = [l.split("=", 1)[1] for f in glob.glob(os.path.join(out, "status", "*.txt"))
               for l in open(f).read().splitlines() if l.startswith("recording=")]
        check(got == [want], "%r asks the profiler for %s: %r" % (flags, want, got))

    # --step-on: inference, the step is a function of the script's module.
    out = os.path.join(tmp, "a3")
    p = record(exe, out, [PY, "-c", "import torch, json\n"
                          "def infer(m, x):\n    return m(x)\n"
                          "m = torch.nn.Linear(8, 8)\n"
                          "for _ in range(8): infer(m, torch.randn(4, 8))\n"],
               ["--steps", "3:6", "--step-on", "__main__:infer", "--no-report"])
    check(p.returncode == 0, "exit 0 with --step-on")
    lines = gw_lines(p.stderr)
    check(any("recorded 3 steps (ProfilerStep#3..#5) of 8" in l for l in lines),
          "--step-on __main__:infer counts the calls: %r" % lines)

    # `python -m PKG.MOD` with a method of that module as the step: runpy runs
    # it as __main__, and the step is still found by its module's name.
    pkg = os.path.join(tmp, "pkg", "mypkg")
    os.makedirs(pkg)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    with open(os.path.join(pkg, "serve.py"), "w") as f:
        f.write("import torch\n"
                "class Engine:\n"
                "    def __init__(self):\n        self.m = torch.nn.Linear(8, 8)\n"
                "    def forward_batch(self, x):\n"
                "        with torch.no_grad():\n            return self.m(x)\n"
                "if __name__ == '__main__':\n"
                "    e = Engine()\n"
                "    for _ in range(9):\n        e.forward_batch(torch.randn(4, 8))\n")
    for args in ([PY, "-m", "mypkg.serve"],
                 [PY, "-c", "import torch; from mypkg.serve import Engine; e = Engine()\n"
                  "for _ in range(9): e.forward_batch(torch.randn(4, 8))"]):
        p = record(exe, os.path.join(tmp, "a3m"), args,
                   ["--steps", "2:4", "--step-on", "mypkg.serve:Engine.forward_batch",
                    "--no-report"], cwd=os.path.dirname(pkg))
        lines = gw_lines(p.stderr)
        check(p.returncode == 0 and any("recorded 2 steps (ProfilerStep#2..#3) of 9" in l
                                        for l in lines),
              "--step-on mypkg.serve:Engine.forward_batch under %r: %r" % (args[1], lines))

    # No step: the hook that never fired is named, in one line.
    p = record(exe, os.path.join(tmp, "a4"), [PY, script, "--no-optimizer", "--workers", "0"])
    lines = gw_lines(p.stderr)
    check(p.returncode == 0 and len(lines) == 1 and "no step happened" in lines[0] and
          "torch.optim.optimizer:Optimizer.step" in lines[0], "no step line: %r" % lines)
    p = record(exe, os.path.join(tmp, "a5"), [PY, script, "--steps", "3", "--workers", "0"])
    lines = gw_lines(p.stderr)
    check(len(lines) == 1 and "only 3 steps happened" in lines[0], "too few steps: %r" % lines)

    # torch not importable: a Python without it (an empty site), one line, exit 1.
    env = dict(os.environ)
    p = subprocess.run([exe, "record", "--torch", "-o", os.path.join(tmp, "a6"), "--",
                        PY, "-c", "import sys; sys.path[:] = [p for p in sys.path if "
                        "'dist-packages' not in p and 'site-packages' not in p]; import torch"],
                       capture_output=True, text=True, env=env, timeout=120)
    print(p.stderr)
    lines = gw_lines(p.stderr)
    check(p.returncode == 1, "the job's exit code 1 (got %d)" % p.returncode)
    check(len(lines) == 1 and "torch is not importable" in lines[0], "torch line: %r" % lines)
    check("Traceback" not in p.stderr, "no traceback when torch is missing")


def report_json(stdout):
    """The JSON report that follows the job's own output on stdout."""
    at = 0 if stdout.startswith("{") else stdout.index("\n{") + 1
    return json.loads(stdout[at:])


def case_analysis(exe, tmp):
    script = os.path.join(HERE, "train_mlp.py")
    out = os.path.join(tmp, "a")
    p = record(exe, out, [PY, script], ["--json"])
    check(p.returncode == 0, "exit 0")
    traces = glob.glob(os.path.join(out, "*.pt.trace.json"))
    check(len(traces) == 1, "one trace")
    missing, doc = reader_missing(exe, traces[0])
    if missing:
        skip("this gpuwhy does not read the trace layout torch %s writes yet: %s" %
             (torch_version(), missing))
    check(any("a CPU-only run" in l and "recorded 5 steps" in l for l in gw_lines(p.stderr)),
          "the CPU-only line")
    report = report_json(p.stdout)
    # The report: no GPU work, and the 5 recorded steps (ProfilerStep#5..#9).
    # (Checked on a Kineto-layout conversion of this trace: top_line
    # "[INSUFFICIENT_DATA] No GPU activity in the trace ...", step_detection
    # profiler_step with 5 steps numbered 5..9.)
    t = report["traces"][0]
    why = (t.get("diagnosis") or {}).get("top_line", "")
    check("no gpu activity" in why.lower() or "cpu" in why.lower(),
          "the WHY line says the GPU did nothing: %r" % why)
    sd = t.get("step_detection") or {}
    check(sd.get("source") == "profiler_step" and sd.get("count") == 5,
          "5 ProfilerSteps detected: %r" % {k: sd.get(k) for k in ("source", "count")})
    check([x.get("number") for x in sd.get("steps") or []] == [5, 6, 7, 8, 9],
          "numbered 5..9: %r" % sd.get("steps"))


SPAWN_SCRIPT = r'''
import socket, sys, torch, torch.distributed as dist, torch.multiprocessing as mp
from torch import nn
def run(rank, port):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=2)
    m = nn.parallel.DistributedDataParallel(nn.Linear(8, 8))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    for _ in range(8):
        m(torch.randn(4, 8)).sum().backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()
if __name__ == "__main__":
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    mp.start_processes(run, args=(port,), nprocs=2, start_method=sys.argv[1])
'''


def torch_launcher():
    """torchrun, or launch_ranks.py where Debian's torchrun cannot start (see there)."""
    probe = subprocess.run([PY, "-c", "from torch.distributed.elastic.multiprocessing.api "
                            "import Std, to_map; to_map(Std.from_str('0'), 2)"],
                           capture_output=True, text=True)
    if probe.returncode == 0:
        return [PY, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    print("NOTE: torchrun of this torch cannot start (%s); using tests/python/launch_ranks.py"
          % probe.stderr.strip().splitlines()[-1])
    return [PY, os.path.join(HERE, "launch_ranks.py"), "2"]


def case_ranks(exe, tmp):
    out = os.path.join(tmp, "b")
    p = record(exe, out, torch_launcher() + [os.path.join(HERE, "train_ddp.py")], ["--json"])
    check(p.returncode == 0, "exit 0 (got %d)" % p.returncode)
    traces = sorted(glob.glob(os.path.join(out, "*.pt.trace.json")))
    check(len(traces) == 2, "one trace per rank: %r" % traces)
    check([re.search(r"\.rank(\d+)\.", t).group(1) for t in traces] == ["0", "1"],
          "the rank in each file name: %r" % traces)
    for t in traces:
        check(len(step_names(t)) == 5, "5 steps in %s" % t)
    check(any("recorded 5 steps" in l and "in 2 traces" in l for l in gw_lines(p.stderr)),
          "the line names both traces")
    # srun sets SLURM_PROCID and no RANK: two single-process jobs, one trace each.
    out_s = os.path.join(tmp, "b-slurm")
    ps = record(exe, out_s, [PY, os.path.join(HERE, "launch_ranks.py"), "--slurm", "2",
                             os.path.join(HERE, "train_mlp.py"), "--workers", "0"],
                ["--no-report"])
    check(ps.returncode == 0, "srun-style run exits 0 (got %d)" % ps.returncode)
    slurm_traces = sorted(glob.glob(os.path.join(out_s, "*.pt.trace.json")))
    check([re.search(r"\.rank(\d+)\.", t).group(1) for t in slurm_traces] == ["0", "1"],
          "SLURM_PROCID names each trace's rank: %r" % slurm_traces)
    # torch.multiprocessing.spawn: ranks without RANK in their environment
    # (the process group gives it), started fresh (spawn), not forked.
    script = os.path.join(tmp, "spawn_ranks.py")
    with open(script, "w") as f:
        f.write(SPAWN_SCRIPT)
    # With the fork start method the ranks are forks made before any
    # profiling, which end with os._exit (no atexit): still one trace each.
    for method in ("spawn", "fork"):
        out2 = os.path.join(tmp, "b2-" + method)
        p2 = record(exe, out2, [PY, script, method], ["--steps", "2:5", "--no-report"])
        check(p2.returncode == 0, "mp %s run exits 0" % method)
        spawned = sorted(glob.glob(os.path.join(out2, "*.pt.trace.json")))
        check([re.search(r"\.rank(\d+)\.", t).group(1) for t in spawned] == ["0", "1"],
              "%s ranks named by the process group's rank: %r" % (method, spawned))
        check(any("recorded 3 steps (ProfilerStep#2..#4)" in l and "in 2 traces" in l
                  for l in gw_lines(p2.stderr)), "%s: the line names both traces" % method)
    missing, _ = reader_missing(exe, traces[0])
    if missing:
        skip("the traces are right; the rank-set report needs a reader of the layout torch %s "
             "writes: %s" % (torch_version(), missing))
    report = report_json(p.stdout)
    # One report over both ranks, in rank order. Legacy traces carry no rank
    # (no distributedInfo), so input.rank may be null; the file names hold it.
    paths = [(t.get("input") or {}).get("path", "") for t in report.get("traces", [])]
    check([re.search(r"\.rank(\d+)\.", x).group(1) for x in paths] == ["0", "1"],
          "both ranks' traces in rank order: %r" % paths)
    diag = (report["traces"][0].get("diagnosis") or {})
    check(diag.get("rank_count") == 2 and (report.get("run_profile") or {}).get("rank_count") == 2,
          "a rank-set report of 2 ranks: %r" % diag.get("rank_count"))
    ranks = [(t.get("input") or {}).get("rank") for t in report["traces"]]
    check(ranks in ([0, 1], [None, None]), "no rank other than the trace's own: %r" % ranks)


def case_nvml(exe, tmp, fake_nvml):
    os.environ["GPUWHY_NVML_LIBRARY"] = fake_nvml
    out = os.path.join(tmp, "n")
    p = record(exe, out, [PY, os.path.join(HERE, "train_mlp.py"), "--workers", "0"],
               ["--no-dcgm", "--interval", "20"])
    check(p.returncode == 0, "exit 0")
    check("sampling 1 GPU" in p.stderr, "NVML sampled the fake GPU")
    recs = glob.glob(os.path.join(out, "*.gwrec"))
    check(len(recs) == 1, "the recording is kept beside the trace: %r" % os.listdir(out))
    check(len(glob.glob(os.path.join(out, "*.pt.trace.json"))) == 1, "and the trace")
    lines = gw_lines(p.stderr)
    check(any("a CPU-only run" in l and "NVML sampled" in l for l in lines),
          "the script used no GPU, and the line says NVML sampled beside it: %r" % lines)
    a = subprocess.run([exe, "analyze", "--json", recs[0]], capture_output=True, text=True)
    check(a.returncode == 0, "the recording reads back: %s" % a.stderr)
    # Without NVML nothing is said about it, and no recording is left.
    os.environ["GPUWHY_NVML_LIBRARY"] = os.path.join(tmp, "no-libnvidia-ml.so.1")
    out = os.path.join(tmp, "n2")
    p = record(exe, out, [PY, os.path.join(HERE, "train_mlp.py"), "--workers", "0"],
               ["--no-report"])
    check(not glob.glob(os.path.join(out, "*.gwrec")), "no recording without NVML")
    check("NVML" not in p.stderr and "nvml" not in p.stderr, "no NVML line without NVML")


def torch_version():
    p = subprocess.run([PY, "-c", "import torch; print(torch.__version__)"],
                       capture_output=True, text=True)
    return p.stdout.strip()


def main():
    exe, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    extra = sys.argv[3:]
    if subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode != 0:
        skip("torch is not importable by %s (scripts/install_deps.sh --test installs "
             "python3-torch)" % PY)
    with tempfile.TemporaryDirectory(prefix="gpuwhy-torch-test-") as tmp:
        {"run": case_run, "analysis": case_analysis, "ranks": case_ranks,
         "nvml": case_nvml}[case](exe, tmp, *extra)
    print("OK")


if __name__ == "__main__":
    main()
