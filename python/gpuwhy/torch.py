"""gpuwhy for scripts that drive torch.profiler themselves.

    from torch.profiler import profile, schedule
    import gpuwhy.torch
    with profile(schedule=schedule(wait=5, warmup=1, active=5),
                 on_trace_ready=gpuwhy.torch.on_trace_ready("traces/")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

To profile a script without editing it, use `gpuwhy record --torch -- python
train.py` instead (docs/python.md).
"""

import os
import socket
import sys
import time

__all__ = ["on_trace_ready", "rank_from_env"]


def rank_from_env():
    """The process's rank from the launcher's environment (RANK, SLURM_PROCID,
    LOCAL_RANK), or None outside a launcher."""
    for name in ("RANK", "SLURM_PROCID", "LOCAL_RANK"):
        v = os.environ.get(name, "")
        if v.strip().lstrip("-").isdigit():
            return int(v)
    return None


def trace_file_name(rank=None, when=None):
    """`<host>.<pid>[.rank<R>].<ms>.pt.trace.json`: one file per process and
    trace, the rank in the name under a launcher."""
    when = time.time() if when is None else when
    r = "" if rank is None else ".rank%d" % rank
    return "%s.%d%s.%d.pt.trace.json" % (socket.gethostname(), os.getpid(), r, int(when * 1000))


def on_trace_ready(dir_name, *, print_why=True, file=None):
    """A drop-in `on_trace_ready` handler: writes each trace into `dir_name`
    (one file per rank and trace) and prints gpuwhy's WHY line for it.

    An analysis error is printed as one line ("gpuwhy: ...") and never raised:
    a profiling report must not stop a training run. The handler's
    `.last_path` and `.last_report` hold the latest trace and Report.
    """
    dir_name = os.fspath(dir_name)

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        path = os.path.join(dir_name, trace_file_name(rank_from_env()))
        prof.export_chrome_trace(path)
        handler.last_path = path
        if not print_why:
            return
        out = file if file is not None else sys.stderr
        try:
            import gpuwhy
            report = gpuwhy.analyze(path)
        except Exception as e:  # noqa: BLE001 - never break the training loop
            print("gpuwhy: %s" % e, file=out)
            return
        handler.last_report = report
        print("gpuwhy: %s: %s" % (path, report.top_line), file=out)

    handler.last_path = None
    handler.last_report = None
    return handler
