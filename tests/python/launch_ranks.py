"""A minimal launcher, as torchrun and srun are to gpuwhy: starts N copies of a
script with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set and
exits with the first non-zero exit code. Used where Debian's torchrun cannot
run (torch 1.13 on Python 3.11: torch.distributed.elastic's Std.from_str gives
None). With --slurm it sets only what srun sets (SLURM_PROCID, SLURM_LOCALID,
SLURM_NTASKS), no RANK. Usage: launch_ranks.py [--slurm] N SCRIPT ARGS..."""
import os
import socket
import subprocess
import sys


def main():
    args = sys.argv[1:]
    slurm = args[:1] == ["--slurm"]
    if slurm:
        args = args[1:]
    n = int(args[0])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(n):
        if slurm:
            env = dict(os.environ, SLURM_PROCID=str(r), SLURM_LOCALID=str(r),
                       SLURM_NTASKS=str(n))
        else:
            env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(n),
                       MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable] + args[1:], env=env))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c != 0), 0))


if __name__ == "__main__":
    main()
