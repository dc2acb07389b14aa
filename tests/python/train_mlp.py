"""A small, unmodified training script: an MLP on random data with a
DataLoader (2 workers). Used by the `record --torch` tests; it knows nothing
about gpuwhy. Usage: train_mlp.py [--steps N] [--exit CODE] [--workers W]."""
import argparse
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=14)
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-optimizer", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(0)
    x = torch.randn(a.steps * 16, 32)
    y = torch.randint(0, 4, (a.steps * 16,))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, num_workers=a.workers)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        if a.no_optimizer:
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("trained: loss %.3f" % loss.item())
    sys.exit(a.exit)


if __name__ == "__main__":
    main()
