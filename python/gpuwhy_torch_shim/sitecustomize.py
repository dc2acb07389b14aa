# gpuwhy's torch.profiler shim for `gpuwhy record --torch -- CMD` (docs/python.md).
#
# `gpuwhy record --torch` puts this folder first on PYTHONPATH, so every Python
# process of the job (the launcher, each rank, their children) imports this
# file at start-up. It then chains to the sitecustomize it shadows (Debian's,
# a virtualenv's, the user's), so nothing the user had is lost.
#
# What it does, and why so little at start-up: it imports nothing heavy (not
# torch: a launcher or a tool that never uses torch stays as fast as before).
# It adds one import hook that waits for the module holding the step function
# (torch.optim.optimizer by default; GPUWHY_TORCH_STEP_ON=MODULE:QUALNAME),
# wraps that function once the module has run, and counts its calls. Step i
# ends at call i+1. The profiler starts one call before the first recorded
# step (its warm-up step), records steps A..B-1 (GPUWHY_TORCH_STEPS=A:B) with
# ProfilerStep#A..#B-1, writes the trace, and stops; outside that window the
# wrapper costs one counter increment per step.
#
# Each process that ran it writes a status file when its trace is written and
# at exit (what it saw: torch, steps, GPU use, its trace), from which the CLI says what happened in one line
# when there is no trace. DataLoader workers never profile and write nothing.
# Nothing here may raise into the user's program: every failure turns the shim
# off with one line on stderr.

import os as _gw_os
import sys as _gw_sys


def _gpuwhy_shim():
    # Only what torch imports anyway, so a job's other Python processes
    # (launchers, tools) start nearly as fast as without the shim.
    import atexit
    import threading

    env = _gw_os.environ
    out_dir = env.get("GPUWHY_TORCH_DIR", "")
    if not out_dir:
        return
    steps = env.get("GPUWHY_TORCH_STEPS", "5:10")
    first, _, end = steps.partition(":")
    first, end = int(first), int(end)
    if first < 1 or end <= first:
        raise ValueError("GPUWHY_TORCH_STEPS=%s: want A:B with 1 <= A < B" % steps)
    step_on = env.get("GPUWHY_TORCH_STEP_ON", "") or "torch.optim.optimizer:Optimizer.step"
    module_name, _, qualname = step_on.partition(":")
    stack = env.get("GPUWHY_TORCH_STACK") == "1"
    memory = env.get("GPUWHY_TORCH_MEMORY") == "1"
    # The first Python process of the job is the root; its children inherit this.
    root = "GPUWHY_TORCH_ROOT" not in env
    if root:
        env["GPUWHY_TORCH_ROOT"] = str(_gw_os.getpid())

    st = {
        "calls": 0,        # completed calls of the step function in this process
        "hooked": False,   # the step function was wrapped
        "prof": None,      # the running torch.profiler.profile
        "recording": "",   # what the profiler was asked to record (shapes,stack,memory)
        "done": False,     # the window was written (or profiling gave up)
        "recorded": 0,     # steps in the written trace
        "trace": "",
        "cuda": False,
        "error": "",
        "off": False,      # a forked child of a profiling process, or a DataLoader worker
    }
    depth = threading.local()

    def say(msg):
        try:
            _gw_sys.stderr.write("gpuwhy record --torch: %s\n" % msg)
            _gw_sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass

    def rank():
        for name in ("RANK", "SLURM_PROCID", "LOCAL_RANK"):
            v = env.get(name, "").strip()
            if v.lstrip("-").isdigit():
                return int(v)
        # Ranks started without those variables (torch.multiprocessing.spawn
        # with an explicit rank): the process group knows.
        d = _gw_sys.modules.get("torch.distributed")
        try:
            if d is not None and d.is_available() and d.is_initialized():
                return int(d.get_rank())
        except Exception:  # noqa: BLE001
            pass
        return None

    def in_dataloader_worker():
        m = _gw_sys.modules.get("torch.utils.data")
        try:
            return m is not None and m.get_worker_info() is not None
        except Exception:  # noqa: BLE001
            return False

    def cuda_used():
        t = _gw_sys.modules.get("torch")
        try:
            return bool(t is not None and t.cuda.is_initialized())
        except Exception:  # noqa: BLE001
            return False

    def trace_path():
        r = rank()
        name = "%s.%d%s.pt.trace.json" % (_gw_os.uname().nodename, _gw_os.getpid(),
                                          "" if r is None else ".rank%d" % r)
        return _gw_os.path.join(out_dir, name)

    def on_ready(prof):
        path = trace_path()
        _gw_os.makedirs(out_dir, exist_ok=True)
        prof.export_chrome_trace(path)
        st["trace"] = path
        st["cuda"] = st["cuda"] or cuda_used()
        save_status()

    def start_profiler(step_num):
        import torch
        from torch.profiler import ProfilerAction, ProfilerActivity, profile
        last = end - 1
        # Some releases (1.13) name the step that begins at step() after the
        # step before it ("ProfilerStep#" + the old step_num). There the
        # profiler's count runs one ahead of the script's, so the names come
        # out as the script's steps.
        lag = 0
        try:
            import inspect
            if "str(cur_step)" in inspect.getsource(profile.step):
                lag = 1
        except Exception:  # noqa: BLE001
            pass

        def schedule(k):
            n = k - lag
            if n < first - 1 or n > last:
                return ProfilerAction.NONE
            if n < first:
                return ProfilerAction.WARMUP
            return ProfilerAction.RECORD_AND_SAVE if n == last else ProfilerAction.RECORD

        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
        prof = profile(activities=activities, schedule=schedule, on_trace_ready=on_ready,
                       record_shapes=True, with_stack=stack, profile_memory=memory)
        # Number the profiler's steps as the script's (ProfilerStep#A..#B-1):
        # the profile object counts from 0 and asked the schedule for step 0.
        # Step i is the time from the end of call i to the end of call i+1.
        # start() names the step it opens after step_num as it is, so the
        # count runs ahead (lag) only from then on.
        numbered = hasattr(prof, "step_num") and hasattr(prof, "current_action")
        if numbered:
            prof.step_num = step_num
            prof.current_action = schedule(step_num + lag)
        st["recording"] = ",".join(
            k for k, on in (("shapes", getattr(prof, "record_shapes", False)),
                            ("stack", getattr(prof, "with_stack", False)),
                            ("memory", getattr(prof, "profile_memory", False))) if on)
        prof.start()
        if numbered:
            prof.step_num = step_num + lag
        st["prof"] = prof

    def finish(prof):
        st["prof"] = None
        st["done"] = True
        try:
            prof.stop()
        except Exception as e:  # noqa: BLE001
            st["error"] = st["error"] or "profiler stop: %s" % e

    def after_step():
        # Called after each outermost call of the step function returns.
        st["calls"] += 1
        if st["done"] or st["off"]:
            return
        n = st["calls"]
        try:
            prof = st["prof"]
            if prof is None:
                # Start one call early for the warm-up step (none when A is 1).
                if n == max(first - 1, 1) and not in_dataloader_worker():
                    start_profiler(n)
                return
            if n >= end:
                st["recorded"] = end - first  # before step(): it writes the trace
            prof.step()
            if n >= end:
                finish(prof)
        except Exception as e:  # noqa: BLE001
            st["done"] = True
            st["error"] = "%s: %s" % (type(e).__name__, e)
            say("profiling stopped: %s" % st["error"])

    def wrap(fn):
        import functools

        @functools.wraps(fn)
        def gpuwhy_step(*args, **kwargs):
            if getattr(depth, "n", 0):
                return fn(*args, **kwargs)
            depth.n = 1
            try:
                result = fn(*args, **kwargs)
            finally:
                depth.n = 0
            after_step()
            return result

        gpuwhy_step.__gpuwhy_wrapped__ = True
        return gpuwhy_step

    def wrap_attr(owner, name):
        raw = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name)
        if raw is None:
            raw = getattr(owner, name)
        if isinstance(raw, staticmethod):
            new = staticmethod(wrap(raw.__func__))
        elif isinstance(raw, classmethod):
            new = classmethod(wrap(raw.__func__))
        elif getattr(raw, "__gpuwhy_wrapped__", False):
            return
        else:
            new = wrap(raw)
        setattr(owner, name, new)

    def hook_module(mod):
        parts = qualname.split(".")
        owner = mod
        for p in parts[:-1]:
            owner = getattr(owner, p)
        if step_on == "torch.optim.optimizer:Optimizer.step":
            # Subclasses override step() (SGD, Adam, the user's own): wrap each
            # as it is defined, and the base class's too.
            opt = owner

            def init_subclass(cls, **kw):
                if "step" in cls.__dict__:
                    wrap_attr(cls, "step")
                super(opt, cls).__init_subclass__(**kw)

            opt.__init_subclass__ = classmethod(init_subclass)
            for sub in list(opt.__subclasses__()):
                if "step" in sub.__dict__:
                    wrap_attr(sub, "step")
        wrap_attr(owner, parts[-1])
        st["hooked"] = True

    def safe_hook_error(e):
        st["error"] = "cannot hook %s: %s: %s" % (step_on, type(e).__name__, e)
        say(st["error"])

    def safe_hook(mod):
        try:
            hook_module(mod)
        except Exception as e:  # noqa: BLE001
            safe_hook_error(e)

    def run_as_main():
        # True while runpy looks the module up for `python -m` (it is the one
        # asking: its frame is on the stack, before any user code ran).
        f = _gw_sys._getframe(2)
        while f is not None:
            if f.f_code.co_name == "_run_module_as_main" and \
                    "runpy" in f.f_code.co_filename:  # runpy.py, or "<frozen runpy>"
                return True
            f = f.f_back
        return False

    class Finder:
        # Waits for `module_name`; after its code ran, wraps the step function.
        def find_spec(self, name, path=None, target=None):
            if name != module_name:
                return None
            if run_as_main():
                # `python -m MODULE`: runpy runs its code as __main__, and no
                # module of that name is ever made.
                _gw_sys.meta_path[:] = [f for f in _gw_sys.meta_path if f is not self]
                hook_when_defined()
                st["hooked"] = True
                return None
            for f in _gw_sys.meta_path:
                if f is self or not hasattr(f, "find_spec"):
                    continue
                spec = f.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
            _gw_sys.meta_path[:] = [f for f in _gw_sys.meta_path if f is not self]
            loader = spec.loader
            if loader is None or not hasattr(loader, "exec_module"):
                return spec
            real_exec = loader.exec_module

            def exec_module(module):
                real_exec(module)
                safe_hook(module)

            loader.exec_module = exec_module
            return spec

    def hook_when_defined():
        # The step function is defined by code that has not run yet (a
        # function of the script itself, `__main__:train_step`, or of the
        # module `python -m` runs as __main__): watch calls
        # with a profile function until the first call of it, then wrap it and
        # stop watching when that call returns (which counts as step 1). The
        # watch costs only the time before the first step.
        leaf = qualname.split(".")[-1]
        first_call = {}

        def watch(frame, event, arg):
            if event == "call" and not first_call:
                g = frame.f_globals
                if frame.f_code.co_name != leaf:
                    return
                if g.get("__name__") == module_name:
                    mod = _gw_sys.modules.get(module_name)
                elif g.get("__name__") == "__main__" and \
                        getattr(g.get("__spec__"), "name", None) == module_name:
                    mod = _gw_sys.modules.get("__main__")  # python -m MODULE
                else:
                    return
                if mod is not None:
                    try:
                        hook_module(mod)
                    except Exception:  # noqa: BLE001 - not there yet: keep watching
                        return
                    first_call["frame"] = frame
            elif event == "return" and first_call.get("frame") is frame:
                _gw_sys.setprofile(None)
                first_call["frame"] = None
                after_step()

        _gw_sys.setprofile(watch)

    if module_name in _gw_sys.modules:
        try:
            hook_module(_gw_sys.modules[module_name])
        except AttributeError as e:
            if module_name != "__main__":
                safe_hook_error(e)
            else:
                hook_when_defined()
                st["hooked"] = True  # watched: "never called" if no call comes
        except Exception as e:  # noqa: BLE001
            safe_hook_error(e)
    else:
        _gw_sys.meta_path.insert(0, Finder())

    def forked_child():
        # A fork of a process that profiles (or did) shares its profiler
        # state: the child never drives it. A fork made before any profiling
        # (a rank started with fork) counts its own steps from 0.
        if st["prof"] is not None or st["done"] or st["off"]:
            st["off"] = True
            st["prof"] = None
        else:
            st["calls"] = 0
            st["trace"] = ""

    _gw_os.register_at_fork(after_in_child=forked_child)

    def write_status():
        prof = st["prof"]
        if prof is not None and not st["off"]:
            # The run ended inside the window: write the steps recorded so far.
            st["recorded"] = max(0, st["calls"] - first)
            finish(prof)
        save_status()

    def save_status():
        # Also called when the trace is written: a process that ends with
        # os._exit (a forked multiprocessing child) runs no atexit handler.
        if st["off"] or in_dataloader_worker():
            return
        torch_state = "1" if "torch" in _gw_sys.modules else "0"
        torch_error = ""
        if torch_state == "0":
            try:
                import importlib.util
                if importlib.util.find_spec("torch") is None:
                    torch_state, torch_error = "missing", "No module named 'torch'"
            except Exception as e:  # noqa: BLE001
                torch_state, torch_error = "missing", "%s: %s" % (type(e).__name__, e)
        if not root and torch_state != "1":
            return  # a helper process of the job, not a Python process of interest
        st["cuda"] = st["cuda"] or cuda_used()
        r = rank()
        lines = {
            "pid": _gw_os.getpid(),
            "root": int(root),
            "rank": "" if r is None else r,
            "python": _gw_sys.executable,
            "torch": torch_state,
            "torch_error": torch_error,
            "hook": step_on,
            "hooked": int(st["hooked"]),
            "steps": st["calls"],
            "recorded": st["recorded"] if st["trace"] else 0,
            "trace": st["trace"],
            "cuda": int(st["cuda"]),
            "recording": st["recording"],
            "error": st["error"],
        }
        try:
            d = _gw_os.path.join(out_dir, "status")
            _gw_os.makedirs(d, exist_ok=True)
            tmp = _gw_os.path.join(d, ".%s.%d.tmp" % (_gw_os.uname().nodename, _gw_os.getpid()))
            with open(tmp, "w", encoding="utf-8") as f:
                for k, v in lines.items():
                    f.write("%s=%s\n" % (k, str(v).replace("\n", " ")))
            _gw_os.replace(tmp, _gw_os.path.join(d, "%s.%d.txt" % (_gw_os.uname().nodename,
                                                                  _gw_os.getpid())))
        except Exception as e:  # noqa: BLE001
            say("cannot write the status file: %s" % e)

    atexit.register(write_status)

    # A script that dies on `import torch` gets the CLI's one line (from the
    # status file) instead of a traceback; its exit code stays 1.
    prev_hook = _gw_sys.excepthook

    def excepthook(kind, value, tb):
        name = getattr(value, "name", None) or ""
        if isinstance(value, ImportError) and (name == "torch" or name.startswith("torch.")) \
                and "torch" not in _gw_sys.modules:
            return
        prev_hook(kind, value, tb)

    _gw_sys.excepthook = excepthook


def _gpuwhy_chain():
    # Import the sitecustomize this file shadows, as Python would have.
    import importlib.machinery
    here = _gw_os.path.dirname(_gw_os.path.abspath(__file__))
    path = [p for p in _gw_sys.path
            if _gw_os.path.abspath(p or _gw_os.getcwd()) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = type(_gw_sys)(spec.name)  # importlib.util.module_from_spec, without importing it
    mod.__spec__, mod.__loader__, mod.__file__ = spec, spec.loader, spec.origin
    spec.loader.exec_module(mod)


try:
    _gpuwhy_shim()
except Exception as _gw_e:  # noqa: BLE001
    _gw_sys.stderr.write("gpuwhy record --torch: shim disabled: %s: %s\n"
                         % (type(_gw_e).__name__, _gw_e))
try:
    _gpuwhy_chain()
except Exception as _gw_e:  # noqa: BLE001
    # What the shadowed sitecustomize raised, reported as Python's site.py would.
    _gw_sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                         % (type(_gw_e).__name__, _gw_e))
