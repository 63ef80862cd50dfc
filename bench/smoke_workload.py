"""A small CPU training loop used by the smoke-overhead benchmark (an already-migrated script)."""

import argparse

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    torch.manual_seed(0)
    device = torch.device("npu" if hasattr(torch, "npu") and torch.npu.is_available() else "cpu")
    # big enough that steps 2..N take seconds: per-step overhead is then measurable above noise
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    import time

    started = None
    for step in range(args.steps):
        if step == 1:
            started = time.perf_counter()  # steady state: steps 2..N, as smoke's per-step times
        x = torch.randn(256, 512, device=device)
        y = torch.randint(0, 10, (256,), device=device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    if started is not None:
        print(f"STEADY_STATE_S={time.perf_counter() - started:.6f}")


if __name__ == "__main__":
    main()
    # smoke ends its child with os._exit right after the last step; end the baseline the same way
    # so the ratio measures the harness, not interpreter teardown
    import os
    import sys

    sys.stdout.flush()
    os._exit(0)
