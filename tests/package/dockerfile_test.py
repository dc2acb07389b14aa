#!/usr/bin/env python3
"""dockerfile_test.py GPUWHY SOURCE_DIR: the exporter image's structure.

Base images cannot be pulled on CI machines, so the image is not built; this
checks deploy/docker/Dockerfile instead:
  - the base is a Debian image;
  - the package built by cpack is what gets installed (COPY of dist/gpuwhy_*.deb,
    which .dockerignore lets into the context);
  - the last USER is not root;
  - EXPOSE names the port the command listens on;
  - ENTRYPOINT is the installed binary, and the command names a real subcommand
    (`gpuwhy --help`) and real flags of it (`gpuwhy <cmd> --help`).
When deploy/kubernetes/gpuwhy-exporter-daemonset.yaml exists, its image is the
tag of the documented `docker build` command and its containerPort is the
exposed port, and its args pass the same command check.
"""
import json
import os
import re
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def instructions(text):
    """(KEYWORD, arguments) per Dockerfile instruction; continuation lines joined."""
    out = []
    joined = re.sub(r"\\\n", " ", text)
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(" ")
        out.append((key.upper(), rest.strip()))
    return out


def exec_form(arg, what):
    """The JSON array of an exec-form ENTRYPOINT/CMD, else None (and a failure)."""
    try:
        value = json.loads(arg)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        fail(f"{what} is not in exec form (a JSON array): {arg}")
        return None
    return value


def help_text(gpuwhy, *args):
    return subprocess.run([gpuwhy, *args, "--help"], capture_output=True, text=True,
                          check=False).stdout


def daemonset_args(ds):
    """The container's args: a flow list (args: ["watch", ...]) or a block list
    (args: then "- watch" lines); None when there are none."""
    m = re.search(r"^([ \t]*)args:[ \t]*(.*)$", ds, re.M)
    if not m:
        return None
    if m.group(2).startswith("["):
        try:
            return json.loads(m.group(2))
        except json.JSONDecodeError:
            return [a.strip().strip("\"'") for a in m.group(2).strip("[] ").split(",")]
    out = []
    for line in ds[m.end():].splitlines()[1:]:
        item = re.match(r"^\s*-\s+(.*?)\s*$", line)
        if not item or len(line) - len(line.lstrip()) < len(m.group(1)):
            break
        out.append(item.group(1).strip("\"'"))
    return out


def check_args(gpuwhy, args, ports, what):
    """args (after the binary) name a real subcommand and its real flags, and a
    --prometheus address reachable from outside on an exposed port."""
    if not args:
        fail(f"no subcommand in {what}")
        return
    top = help_text(gpuwhy)
    commands = re.findall(r"^  ([a-z]+)\b", top.split("commands:", 1)[-1], re.M)
    sub = args[0]
    if sub not in commands:
        fail(f"{what}: '{sub}' is not a subcommand of gpuwhy ({commands})")
        return
    sub_help = help_text(gpuwhy, sub)
    known = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", sub_help))
    for a in args[1:]:
        if a.startswith("-") and a.split("=")[0] not in known:
            fail(f"{what}: '{a}' is not an option of 'gpuwhy {sub} --help'")
    if "--prometheus" in args:
        i = args.index("--prometheus")
        addr = args[i + 1] if i + 1 < len(args) else ""
        m = re.match(r"^(.*):(\d+)$", addr)
        if not m:
            fail(f"{what}: --prometheus address '{addr}' has no port")
            return
        if m.group(1) in ("127.0.0.1", "localhost", "[::1]"):
            fail(f"{what}: --prometheus {addr} listens on loopback only: unreachable from outside the pod")
        if int(m.group(2)) not in ports:
            fail(f"{what}: --prometheus port {m.group(2)} is not EXPOSEd ({ports})")


def main():
    gpuwhy, root = sys.argv[1], sys.argv[2]
    path = os.path.join(root, "deploy/docker/Dockerfile")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ins = instructions(text)
    by_key = {}
    for key, arg in ins:
        by_key.setdefault(key, []).append(arg)

    froms = by_key.get("FROM", [])
    if not froms or not re.match(r"^debian:[a-z0-9.-]+$", froms[-1].split()[0]):
        fail(f"the final base is not a Debian image: {froms}")

    copies = " ".join(by_key.get("COPY", []))
    if "dist/gpuwhy_*.deb" not in copies:
        fail("the Dockerfile does not COPY dist/gpuwhy_*.deb (the cpack package)")
    runs = " ".join(by_key.get("RUN", []))
    if not re.search(r"apt-get install\b[^&]*gpuwhy_\*\.deb", runs):
        fail("the package is not installed with apt-get install (which resolves its Depends)")
    ignore_path = os.path.join(root, ".dockerignore")
    if not os.path.exists(ignore_path):
        fail(".dockerignore missing: the build context would hold the build folders")
    else:
        with open(ignore_path, encoding="utf-8") as f:
            if "!dist/gpuwhy_*.deb" not in f.read():
                fail(".dockerignore does not let dist/gpuwhy_*.deb into the context")

    users = by_key.get("USER", [])
    if not users:
        fail("no USER: the exporter would run as root")
    else:
        user = users[-1].split(":")[0]
        if user in ("root", "0"):
            fail(f"USER {users[-1]} is root")

    ports = [int(p.split("/")[0]) for arg in by_key.get("EXPOSE", []) for p in arg.split()]
    if not ports:
        fail("no EXPOSE")

    entry = exec_form(by_key.get("ENTRYPOINT", ["null"])[-1], "ENTRYPOINT")
    cmd = exec_form(by_key.get("CMD", ["null"])[-1], "CMD")
    argv = (entry or []) + (cmd or [])
    if entry is not None and entry[:1] != ["/usr/bin/gpuwhy"]:
        fail(f"ENTRYPOINT is not the packaged binary /usr/bin/gpuwhy: {entry}")
    check_args(gpuwhy, argv[1:], ports, "the image's ENTRYPOINT/CMD")

    # The DaemonSet that runs the image (written separately; may not exist yet).
    ds_path = os.path.join(root, "deploy/kubernetes/gpuwhy-exporter-daemonset.yaml")
    if not os.path.exists(ds_path):
        print(f"note: {os.path.relpath(ds_path, root)} not present; DaemonSet not checked")
    else:
        with open(ds_path, encoding="utf-8") as f:
            ds = f.read()
        tag = re.search(r"docker build -f deploy/docker/Dockerfile -t (\S+) \.", text)
        if not tag:
            fail("the Dockerfile does not document its 'docker build ... -t IMAGE .' command")
        else:
            images = re.findall(r"^\s*(?:-\s*)?image:\s*[\"']?([^\s\"']+)", ds, re.M)
            if tag.group(1) not in images:
                fail(f"the DaemonSet runs {images}, not the documented image {tag.group(1)}")
        ds_args = daemonset_args(ds)
        if ds_args is None:
            print("note: the DaemonSet has no args; the image's CMD applies")
        else:
            check_args(gpuwhy, ds_args, ports, "the DaemonSet's args")
        cports = [int(p) for p in re.findall(r"containerPort:\s*(\d+)", ds)]
        if not set(cports) & set(ports):
            fail(f"the DaemonSet's containerPort {cports} is none of the EXPOSEd {ports}")

    if failures:
        return 1
    print(f"OK: {os.path.relpath(path, root)}: {froms[-1]}, USER {users[-1]}, "
          f"EXPOSE {ports}, runs {' '.join(argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
