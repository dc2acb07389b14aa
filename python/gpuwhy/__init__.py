"""gpuwhy from Python: why the GPU is not doing real work (docs/python.md).

    import gpuwhy
    report = gpuwhy.analyze("trace.pt.trace.json.gz")
    print(report.top_line)          # the WHY line
    report.findings_table()         # a pandas DataFrame when pandas is installed
    report                          # in Jupyter: the full HTML report inline

Every report is the one `gpuwhy analyze` prints: the same engine, in process.
Bad input raises gpuwhy.InputError with the CLI's one-line message.
"""

import json as _json
import os as _os

from . import _gpuwhy
from ._gpuwhy import InputError

__all__ = ["analyze", "diff", "Report", "Diff", "InputError", "__version__"]
__version__ = _gpuwhy.__version__


def _paths(paths):
    if isinstance(paths, (str, bytes, _os.PathLike)):
        paths = [paths]
    out = [_os.fsdecode(p) for p in paths]
    if not out:
        raise ValueError("analyze: no paths given")
    return out


def _frame(rows, columns):
    """A pandas DataFrame of `rows` (dicts) when pandas imports, else the list."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame.from_records(rows, columns=columns)


class Report:
    """One analysis of one run (a trace, a rank set, recordings, .gwsum files).

    .why       the diagnosis (dict, JSON schema `traces[0].diagnosis`): top_line,
               bottleneck, curve_shape, idle per step by cause, findings, fixes
    .curve     the primary device's curve verdict (`utilization.curve`)
    .findings  the ranked findings (list of dicts, `diagnosis.findings`)
    .json()    the `analyze --json` text; .dict() the parsed document
    .html()    the self-contained `analyze --html` page
    .text()    the terminal report
    .kernels(), .steps(), .findings_table(): pandas DataFrames (lists of dicts
    without pandas)
    """

    def __init__(self, impl, paths):
        self._impl = impl
        self._paths = paths
        self._doc = None

    # --- the document -------------------------------------------------
    def json(self):
        """The `gpuwhy analyze --json` document (str), docs/json-schema.md."""
        return self._impl.json()

    def dict(self):
        """The JSON document parsed (cached)."""
        if self._doc is None:
            self._doc = _json.loads(self._impl.json())
        return self._doc

    def html(self):
        """The self-contained HTML report (str), as `gpuwhy analyze --html` writes it."""
        return self._impl.html()

    def text(self, width=100, ascii=False):
        """The terminal report (str), as `gpuwhy analyze` prints it."""
        return self._impl.text(width, ascii)

    def save_html(self, path):
        """Write the HTML report to `path`."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html())

    # --- sections -----------------------------------------------------
    @property
    def top_line(self):
        """The WHY line (str)."""
        return self._impl.top_line()

    @property
    def why(self):
        """The diagnosis of all inputs together (dict)."""
        traces = self.dict().get("traces") or [{}]
        return traces[0].get("diagnosis") or {}

    @property
    def findings(self):
        """The ranked findings (list of dicts)."""
        return list(self.why.get("findings") or [])

    def _primary_device(self):
        # The device the WHY line is about: most kernel time in traces[0].
        traces = self.dict().get("traces") or []
        if not traces:
            return None
        best, best_ns = None, -1
        for d in traces[0].get("devices") or []:
            u = d.get("utilization") or {}
            ns = u.get("kernel_time_ns") or 0
            if u and ns > best_ns:
                best, best_ns = d, ns
        return best

    @property
    def curve(self):
        """The primary device's curve verdict (dict; {} when there is none)."""
        d = self._primary_device()
        if d is None:
            return {}
        return dict((d.get("utilization") or {}).get("curve") or {})

    @property
    def run_profile(self):
        """The figures `gpuwhy diff` compares (dict)."""
        return self.dict().get("run_profile") or {}

    def kernels(self):
        """Top kernels per trace and device (DataFrame, or list without pandas)."""
        cols = ["trace", "rank", "device", "name", "class", "family", "tensor_core",
                "count", "total_ns", "mean_ns", "max_ns", "time_ratio"]
        rows = []
        for ti, t in enumerate(self.dict().get("traces") or []):
            rank = (t.get("input") or {}).get("rank")
            for d in t.get("devices") or []:
                for k in ((d.get("kernels") or {}).get("top") or []):
                    row = {c: k.get(c) for c in cols[3:]}
                    row.update(trace=ti, rank=rank, device=d.get("device_id"))
                    rows.append(row)
        return _frame(rows, cols)

    def steps(self):
        """One row per step window and device: its time split into compute,
        communication, copies and idle by cause (ns)."""
        rows = self._impl.step_rows()
        cols = list(rows[0].keys()) if rows else [
            "trace", "rank", "device", "step", "start_ns", "dur_ns", "compute_ns",
            "comm_ns", "copy_ns"]
        return _frame(rows, cols)

    def findings_table(self):
        """One row per finding, ranked (DataFrame, or list without pandas)."""
        cols = ["id", "category", "severity", "title", "lost_per_step_ns",
                "lost_step_ratio", "predicted_step_ns_after_fix", "rank", "device_id",
                "summary"]
        rows = [{c: f.get(c) for c in cols} for f in self.findings]
        return _frame(rows, cols)

    # --- display ------------------------------------------------------
    def __str__(self):
        return self.text()

    def __repr__(self):
        return "<gpuwhy.Report of %s: %s>" % (", ".join(self._paths), self.top_line)

    def _repr_html_(self):
        # Jupyter shows the full page inline. The report is a whole HTML
        # document with its own script and style, so it goes into an iframe
        # (srcdoc) where it cannot clash with the notebook's page.
        import html as _html
        return ('<iframe style="width:100%;height:900px;border:0" '
                'sandbox="allow-scripts" srcdoc="' + _html.escape(self.html(), quote=True) +
                '"></iframe>')


class Diff:
    """`gpuwhy diff BEFORE AFTER` (docs/diff.md)."""

    def __init__(self, impl):
        self._impl = impl

    def json(self):
        return self._impl.json()

    def dict(self):
        return _json.loads(self._impl.json())

    def text(self):
        return self._impl.text()

    def html(self):
        return self._impl.html()

    @property
    def violations(self):
        """The --fail-if gates that failed (list of str)."""
        return list(self._impl.violations)

    def __str__(self):
        return self.text()

    def _repr_html_(self):
        import html as _html
        return ('<iframe style="width:100%;height:700px;border:0" sandbox="allow-scripts" '
                'srcdoc="' + _html.escape(self.html(), quote=True) + '"></iframe>')


def analyze(paths, *, scenario=None, compat=(), top_kernels=10, threads=0):
    """Analyze traces as `gpuwhy analyze PATHS...` does and return a Report.

    paths: a path or a list of paths (files, folders of rank traces, gpuwhy
    recordings, .gwsum summaries). scenario: "dev", "prod", "shared", "multi"
    or None (inferred). compat: anchor reproductions ("tbplugin", "hta",
    "nsys", "tracelens"). Raises InputError (the CLI's one-line message) on
    bad input, ValueError on bad arguments. Releases the GIL while it works.
    """
    ps = _paths(paths)
    if isinstance(compat, str):
        compat = [compat]
    return Report(_gpuwhy.analyze(ps, scenario, list(compat), int(top_kernels), int(threads)), ps)


def diff(before, after, *, fail_if=()):
    """Compare two runs as `gpuwhy diff BEFORE AFTER` does; each side is a trace,
    a folder of ranks, a recording or a saved `analyze --json` report."""
    if isinstance(fail_if, str):
        fail_if = [fail_if]
    return Diff(_gpuwhy.diff(_os.fsdecode(before), _os.fsdecode(after), list(fail_if)))
