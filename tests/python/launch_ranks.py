"""A minimal launcher, as torchrun and srun are to gpuwhy: starts N copies of a
script with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set and
exits with the first non-zero exit code. Used where Debian's torchrun cannot
run (torch 1.13 on Python 3.11: torch.distributed.elastic's Std.from_str gives
None). Usage: launch_ranks.py N SCRIPT ARGS..."""
import os
import socket
import subprocess
import sys


def main():
    n = int(sys.argv[1])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(n):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(n),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable] + sys.argv[2:], env=env))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c != 0), 0))


if __name__ == "__main__":
    main()
