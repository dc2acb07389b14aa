"""(c) The example notebook (examples/gpuwhy.ipynb), executed with
`jupyter nbconvert --execute --to html` on a shared trace, then loaded in
headless Chromium: the page shows that trace's WHY line (the CLI's) and the
inline HTML report.

Usage: notebook_test.py GPUWHY_EXE SOURCE_DIR BUILD_DIR   (PYTHONPATH=<build>/python)
Exit 77 (SKIPPED) when nbconvert/ipykernel, Chromium or the shared trace is missing.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(SKIP)


def check(cond, what):
    if not cond:
        print("FAILED: " + what)
        sys.exit(1)


def main():
    exe, src, build = (os.path.abspath(a) for a in sys.argv[1:4])
    trace = os.path.join(src, "..", "shared", "traces", "kineto", "hta", "df_index_resolver",
                         "df_index_resolver.json.gz")
    if not os.path.exists(trace):
        skip("%s absent (the shared traces)" % trace)
    for mod in ("nbconvert", "ipykernel", "nbformat"):
        if subprocess.run([sys.executable, "-c", "import " + mod],
                          capture_output=True).returncode != 0:
            skip("python3-%s is not installed for %s (scripts/install_deps.sh --test)"
                 % (mod, sys.executable))
    chromium = os.environ.get("GPUWHY_CHROMIUM") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        skip("%s not found (scripts/install_deps.sh --test installs chromium)" % chromium)

    p = subprocess.run([exe, "analyze", "--json", trace], capture_output=True, text=True)
    check(p.returncode == 0, "the CLI reads the shared trace: %s" % p.stderr)
    why = json.loads(p.stdout)["traces"][0]["diagnosis"]["top_line"]

    with tempfile.TemporaryDirectory(prefix="gpuwhy-nb-") as tmp:
        nb = os.path.join(tmp, "gpuwhy.ipynb")
        shutil.copy(os.path.join(src, "examples", "gpuwhy.ipynb"), nb)
        out = os.path.join(build, "browser", "notebook.html")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        env = dict(os.environ, GPUWHY_EXAMPLE_TRACE=os.path.abspath(trace),
                   PYDEVD_DISABLE_FILE_VALIDATION="1")
        # The kernel is this interpreter's (ipykernel's own spec), not a
        # `python3` found on PATH.
        r = subprocess.run([sys.executable, "-m", "nbconvert", "--execute", "--to", "html",
                            "--ExecutePreprocessor.timeout=300",
                            "--ExecutePreprocessor.kernel_name=python3",
                            "--output", out, nb], capture_output=True, text=True, env=env,
                           cwd=tmp, timeout=600)
        print(r.stderr[-2000:])
        check(r.returncode == 0, "nbconvert --execute ran the notebook")
        page = open(out, encoding="utf-8").read()
        check("Traceback" not in page, "no cell failed")

        profile = os.path.join(tmp, "profile")
        shot = os.path.join(build, "browser", "notebook.png")
        cmd = ["timeout", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--disable-extensions",
               "--hide-scrollbars", "--virtual-time-budget=2000",
               "--user-data-dir=" + profile, "--window-size=1400,3000",
               "--screenshot=" + shot, "--dump-dom", "file://" + out]
        c = subprocess.run(cmd, capture_output=True, text=True)
        check(c.returncode == 0, "Chromium loaded the page: %s" % c.stderr[-2000:])
        dom = c.stdout
        check(("WHY: " + html.escape(why, quote=False)) in dom,
              "the page shows the WHY line %r" % why)
        frames = re.findall(r"<iframe[^>]*srcdoc=\"([^\"]*)\"", dom)
        check(frames, "the inline HTML report (an iframe) is on the page")
        check(html.escape(why, quote=False) in html.unescape(frames[-1]),
              "the inline report holds the WHY line")
        print("notebook shows: WHY: " + why)
    print("OK")


if __name__ == "__main__":
    main()
