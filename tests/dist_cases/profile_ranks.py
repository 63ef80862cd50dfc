"""Migrated torchrun DDP script for `profile --nproc-per-node 2`: a host sync every step on every rank,
and one on rank 0 only (logging), so the merged findings must say which ranks showed each."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
torch.npu.set_device(local_rank)
dist.init_process_group(backend="hccl")
rank = dist.get_rank()
device = torch.device("npu", local_rank)
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to(device),
            device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
torch.manual_seed(100 + rank)
seen = 0
for step in range(50):
    x = torch.randn(16, 8, device=device)
    y = torch.randint(0, 2, (16,), device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    seen += int((y == 1).sum())  # PITFALL: host_sync ranks 0,1
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}")  # PITFALL: host_sync ranks 0
dist.destroy_process_group()
