"""Migrated torchrun DDP script: hccl, device per LOCAL_RANK, DistributedSampler-style rank data."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
torch.npu.set_device(local_rank)
dist.init_process_group(backend="hccl")
device = torch.device("npu", local_rank)
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to(device),
            device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(100 + dist.get_rank())  # each rank its own data
for step in range(50):
    x = torch.randn(16, 8, device=device)
    y = torch.randint(0, 2, (16,), device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
