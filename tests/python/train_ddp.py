"""A small, unmodified torch.distributed training script (gloo, CPU): DDP over
an MLP, one process per rank under torchrun. Used by the `record --torch`
rank test; it knows nothing about gpuwhy. Usage: train_ddp.py [--steps N]."""
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=12)
    a = ap.parse_args()
    dist.init_process_group("gloo")
    torch.manual_seed(dist.get_rank())
    model = DistributedDataParallel(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(a.steps):
        x = torch.randn(16, 32)
        y = torch.randint(0, 4, (16,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
