"""Rank 1 skips the loss all-reduce at step 3 and goes on with local work: rank 0 waits in all_reduce."""
import os
import time

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
    loss = model(torch.randn(4, 8, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    logged = loss.detach().clone()
    if dist.get_rank() == 1 and step == 3:
        while True:  # the rank that skipped the collective: busy with something else
            time.sleep(0.1)
    dist.all_reduce(logged)
