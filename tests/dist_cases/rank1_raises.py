"""Rank 1 fails at its second step (a shape error only its data triggers); rank 0 would wait for it."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
torch.npu.set_device(local_rank)
dist.init_process_group(backend="hccl")
device = torch.device("npu", local_rank)
model = DDP(torch.nn.Linear(8, 2).to(device))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1, 50):
    width = 7 if (dist.get_rank() == 1 and step == 2) else 8
    loss = model(torch.randn(4, width, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
