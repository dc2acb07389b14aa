"""gpuwhy.analyze against the CLI on the same trace, measured in the same run.

Usage: PYTHONPATH=<build>/python /usr/bin/python3 analyze_speed.py GPUWHY_EXE TRACE [REPEAT]

Both sides do the same work: import + analysis + the terminal report.
  cli      `gpuwhy analyze TRACE > /dev/null` as a process (wall, includes exec)
  py       gpuwhy.analyze(TRACE).text() in this process (wall)
  py-proc  `python3 -c "import gpuwhy; gpuwhy.analyze(TRACE).text()"` as a process
           (wall, includes the interpreter's start-up and the import)
Runs alternate (cli, py, py-proc, cli, ...). Medians and minimums are both
compared; on a loaded machine the minimum is the steadier figure, and it is
the one judged: exit 1 when the in-process minimum is more than 10% over the
CLI's.
"""
import os
import statistics
import subprocess
import sys
import time

import gpuwhy


def wall(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    exe, trace = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    env = dict(os.environ)
    code = "import sys, gpuwhy; gpuwhy.analyze(sys.argv[1]).text()"
    cli, py, proc = [], [], []
    # One warm-up of each (page cache, lazy binding).
    subprocess.run([exe, "analyze", trace], stdout=subprocess.DEVNULL, check=True)
    gpuwhy.analyze(trace).text()
    for _ in range(repeat):
        cli.append(wall(lambda: subprocess.run([exe, "analyze", trace],
                                               stdout=subprocess.DEVNULL, check=True)))
        py.append(wall(lambda: gpuwhy.analyze(trace).text()))
        proc.append(wall(lambda: subprocess.run([sys.executable, "-c", code, trace], env=env,
                                                check=True)))
    size = os.path.getsize(trace)
    print("trace: %s (%.1f MB), %d runs each, medians (min..max):" % (trace, size / 1e6, repeat))
    for name, xs in (("cli", cli), ("py", py), ("py-proc", proc)):
        print("  %-8s %8.1f ms  (%.1f..%.1f)" % (name, statistics.median(xs) * 1e3,
                                                 min(xs) * 1e3, max(xs) * 1e3))
    for label, f in (("median", statistics.median), ("min", min)):
        print("%s: py / cli = %.3f; py-proc / cli = %.3f" % (label, f(py) / f(cli),
                                                            f(proc) / f(cli)))
    ratio = min(py) / min(cli)
    print("gpuwhy.analyze within %+.1f%% of the CLI (limit +10%%)" % ((ratio - 1) * 100))
    sys.exit(0 if ratio <= 1.10 else 1)


if __name__ == "__main__":
    main()
