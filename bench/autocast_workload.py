"""An AMP training loop for the autocast-emulation benchmark: the usual guard, autocast only on a device.

On the plain CPU its autocast region is disabled (float32); on an emulated device (torch_npu stand-in,
CUDA twin) the region is entered and the stand-in's autocast policy decides the dtype.
"""

import argparse
import os
import sys
import time

import torch
import torch.nn as nn


def pick_device() -> torch.device:
    if hasattr(torch, "npu") and torch.npu.is_available():
        return torch.device("npu")
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    torch.manual_seed(0)
    device = pick_device()
    use_amp = device.type != "cpu"
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp)
    started = None
    for step in range(args.steps):
        if step == 1:
            started = time.perf_counter()  # steady state: steps 2..N, as smoke's per-step times
        x = torch.randn(256, 512, device=device)
        y = torch.randint(0, 10, (256,), device=device)
        with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=use_amp):
            loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    if started is not None:
        print(f"STEADY_STATE_S={time.perf_counter() - started:.6f}")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # as smoke ends its child: the ratio measures the harness, not interpreter teardown
