"""`import gpuwhy` (the pybind11 module) against the build tree.

Usage: module_test.py GPUWHY_EXE SOURCE_DIR CASE   (PYTHONPATH=<build>/python)
  api      analyze(): the CLI's report (JSON, WHY line), sections, tables,
           _repr_html_, diff(), gpuwhy.torch.on_trace_ready with real torch
  threads  (d) two threads analyze two traces at once: the same results as
           one at a time, and the GIL is released meanwhile
  bad      (e) bad input raises InputError with the CLI's line; a fuzz-style
           loop over the bad-input set (cut, flipped, empty, gzip-broken
           traces and the project's bad files) never crashes the interpreter
"""
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

import gpuwhy

SKIP = 77


def check(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)


def cli(exe, *args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True)


def case_api(exe, src, tmp):
    data = os.path.join(src, "tests", "data")
    healthy = os.path.join(data, "healthy.pt.trace.json.gz")
    stall = os.path.join(data, "dataloader_stall.pt.trace.json.gz")
    r = gpuwhy.analyze(healthy)
    p = cli(exe, "analyze", "--json", healthy)
    check(p.returncode == 0, "CLI analyze")
    want, got = json.loads(p.stdout), r.dict()
    for d in (want, got):  # the only field that may differ: none expected, but be exact
        d.pop("generated_at", None)
    check(got == want, "analyze() gives the CLI's JSON document")
    check(r.top_line == want["traces"][0]["diagnosis"]["top_line"], "top_line is the WHY line")
    check(r.why["top_line"] == r.top_line and isinstance(r.findings, list), ".why/.findings")
    check(r.curve.get("class") == "HEALTHY", ".curve of the healthy trace: %r" % r.curve)
    html = r.html()
    check(html.startswith("<!DOCTYPE html") or html.lstrip().lower().startswith("<!doctype"),
          ".html() is a page")
    check(r.top_line.split("]")[0] in r._repr_html_(), "_repr_html_ holds the report")
    check(r.text() == cli(exe, "analyze", healthy).stdout, ".text() is the CLI's report")
    try:
        import pandas  # noqa: F401
        have_pandas = True
    except ImportError:
        have_pandas = False
    for name in ("kernels", "steps", "findings_table"):
        t = getattr(r, name)()
        check(len(t) > 0 or name == "findings_table", "%s() has rows" % name)
        if have_pandas:
            check(type(t).__name__ == "DataFrame", "%s() is a DataFrame" % name)
    # Without pandas: plain lists of dicts.
    code = ("import sys, gpuwhy; sys.modules['pandas'] = None\n"
            "r = gpuwhy.analyze(sys.argv[1])\n"
            "for t in (r.kernels(), r.steps(), r.findings_table()):\n"
            "    assert isinstance(t, list) and all(isinstance(x, dict) for x in t), type(t)\n"
            "print(len(r.kernels()))")
    p = subprocess.run([sys.executable, "-c", code, healthy], capture_output=True, text=True)
    check(p.returncode == 0 and int(p.stdout) > 0, "lists without pandas: %s" % p.stderr)
    check(len(r.steps()) == r.dict()["run_profile"]["step_count"],
          "one steps() row per step: %d vs %r" % (len(r.steps()), r.dict()["run_profile"]))
    # Several inputs: a rank set.
    ranks = gpuwhy.analyze(os.path.join(data, "multi_rank"))
    p = cli(exe, "analyze", "--json", os.path.join(data, "multi_rank"))
    check(ranks.json() == p.stdout.rstrip("\n") or ranks.dict() == json.loads(p.stdout),
          "a folder of ranks as the CLI reads it")
    # diff
    d = gpuwhy.diff(healthy, stall)
    p = cli(exe, "diff", "--json", healthy, stall)
    check(d.dict() == json.loads(p.stdout), "diff() is the CLI's diff")
    check(gpuwhy.diff(healthy, stall, fail_if="step_time>+5%").violations != [],
          "a violated gate is listed")
    # Argument errors are ValueError, not InputError.
    for bad in (lambda: gpuwhy.analyze(healthy, scenario="nope"),
                lambda: gpuwhy.analyze([]),
                lambda: gpuwhy.analyze(healthy, compat=["nope"])):
        try:
            bad()
            check(False, "a bad argument raises")
        except gpuwhy.InputError:
            check(False, "a bad argument is not an InputError")
        except ValueError:
            pass
    # gpuwhy.torch.on_trace_ready with a real profiler.
    try:
        import torch
    except ImportError:
        print("NOTE: torch not importable; on_trace_ready not exercised")
        return
    import io
    import gpuwhy.torch as gt
    log = io.StringIO()
    handler = gt.on_trace_ready(os.path.join(tmp, "otr"), file=log)
    sched = torch.profiler.schedule(wait=1, warmup=1, active=2)
    m = torch.nn.Linear(16, 16)
    with torch.profiler.profile(schedule=sched, on_trace_ready=handler) as prof:
        for _ in range(5):
            m(torch.randn(8, 16)).sum().backward()
            prof.step()
    check(handler.last_path and os.path.exists(handler.last_path), "on_trace_ready wrote a trace")
    check(log.getvalue().startswith("gpuwhy: "), "on_trace_ready printed one line: %r" % log.getvalue())
    check(log.getvalue().count("\n") == 1, "exactly one line")


def case_threads(exe, src, tmp):
    data = os.path.join(src, "tests", "data")
    paths = [os.path.join(data, n) for n in ("launch_cadence.pt.trace.json.gz",
                                              "fragmented.pt.trace.json.gz")]
    alone = [gpuwhy.analyze(p).json() for p in paths]
    for _ in range(3):
        results = [None, None]
        ticks = []
        stop = threading.Event()

        def work(i):
            results[i] = gpuwhy.analyze(paths[i]).json()

        def ticker():
            # Runs Python code while both analyses run: it gets the GIL only
            # when analyze() released it.
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.0005)

        t = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        tk = threading.Thread(target=ticker)
        tk.start()
        start = time.perf_counter()
        for x in t:
            x.start()
        for x in t:
            x.join()
        end = time.perf_counter()
        stop.set()
        tk.join()
        check(results == alone, "two threads give the results of one at a time")
        inside = [x for x in ticks if start < x < end]
        check(end - start < 0.02 or len(inside) >= 2,
              "the GIL is released during analysis (%d ticks in %.3f s)" % (len(inside),
                                                                           end - start))


def bad_inputs(src, tmp):
    """The bad-input set: the project's bad files and cuts, flips and breaks of
    a good trace (generated here, fixed seed)."""
    data = os.path.join(src, "tests", "data")
    out = [os.path.join(data, "bad", n) for n in sorted(os.listdir(os.path.join(data, "bad")))]
    with gzip.open(os.path.join(data, "healthy.pt.trace.json.gz"), "rb") as f:
        good = f.read()
    rng = random.Random(41)

    def put(name, blob):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(blob)
        out.append(p)

    put("empty.json", b"")
    put("nul.json", b"\0" * 64)
    put("brace.json", b"{")
    put("array.json", b"[1, 2")
    put("gz_cut.json.gz", gzip.compress(good)[:200])
    put("gz_garbage.json.gz", b"\x1f\x8b\x08\x00" + bytes(rng.randrange(256) for _ in range(300)))
    for i in range(40):
        put("cut%02d.json" % i, good[:rng.randrange(1, len(good))])
    for i in range(40):
        b = bytearray(good)
        for _ in range(rng.randrange(1, 20)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        put("flip%02d.json" % i, bytes(b))
    out.append(os.path.join(tmp, "does_not_exist.json"))
    return out


def case_bad(exe, src, tmp):
    errors = 0
    for p in bad_inputs(src, tmp):
        c = cli(exe, "analyze", "--json", p)
        try:
            r = gpuwhy.analyze(p)
            r.json()
            r.text()
            ok = True
        except gpuwhy.InputError as e:
            ok = False
            msg = str(e)
            errors += 1
            check("\n" not in msg, "one line: %r" % msg)
            check(c.returncode == 2, "the CLI fails too on %s" % p)
            check(c.stderr.strip() == "gpuwhy: " + msg,
                  "the CLI's line for %s:\n  py:  %r\n  cli: %r" % (p, msg, c.stderr.strip()))
        if ok:
            check(c.returncode == 0, "the CLI reads %s too (%r)" % (p, c.stderr))
    check(errors >= 10, "the bad-input set holds errors (%d)" % errors)
    # An InputError is a ValueError; the interpreter goes on.
    check(issubclass(gpuwhy.InputError, ValueError), "InputError is a ValueError")
    print("bad inputs: %d errors, all with the CLI's line" % errors)


def main():
    exe, src, case = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory(prefix="gpuwhy-py-test-") as tmp:
        {"api": case_api, "threads": case_threads, "bad": case_bad}[case](exe, src, tmp)
    print("OK")


if __name__ == "__main__":
    main()
