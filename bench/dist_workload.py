"""A 2-rank DDP training loop for the distributed smoke-overhead benchmark (torchrun env vars).

Runs plain under torchrun (gloo on the CPU) and under `npu-migrate smoke --nproc-per-node` (hccl on
the emulated NPU); rank 0 prints the steady-state time of steps 2..N.
"""

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    npu = hasattr(torch, "npu") and torch.npu.is_available()
    local_rank = int(os.environ["LOCAL_RANK"])
    if npu:
        torch.npu.set_device(local_rank)
    device = torch.device("npu", local_rank) if npu else torch.device("cpu")
    dist.init_process_group("hccl" if npu else "gloo")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    model = DDP(model.to(device))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    torch.manual_seed(100 + dist.get_rank())
    started = None
    for step in range(args.steps):
        if step == 1:
            started = time.perf_counter()
        x = torch.randn(256, 512, device=device)
        y = torch.randint(0, 10, (256,), device=device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if started is not None and dist.get_rank() == 0:
        print(f"STEADY_STATE_S={time.perf_counter() - started:.6f}")


if __name__ == "__main__":
    main()
    # smoke ends each rank with os._exit right after its last step; end the baseline the same way
    sys.stdout.flush()
    os._exit(0)
