"""torchrun-style 2-process DDP with the hccl backend (gloo on the emulated NPU), a SyncBatchNorm layer
and a barrier on the rank's device."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

from _common import batch, tiny_model

local_rank = int(os.environ["LOCAL_RANK"])
torch.npu.set_device(local_rank)
dist.init_process_group(backend="hccl")
device = torch.device("npu", local_rank)
net = tiny_model(device).append(torch.nn.SyncBatchNorm(2).to(device))  # statistics over both ranks (HCCL)
model = DDP(net, device_ids=[local_rank])
dist.barrier(device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(dist.get_rank())
for step in range(10):
    x, y = batch(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    # each rank sees its own data: running statistics agree only when computed over both ranks
    stats = net[-1].running_mean.clone()
    gathered = [torch.zeros_like(stats) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, stats)
    assert all(torch.equal(g, stats) for g in gathered), "SyncBatchNorm statistics differ between ranks"
# Gradients were all-reduced: both ranks hold the same weights.
w = model.module[0].weight.detach().clone()
others = [torch.zeros_like(w) for _ in range(dist.get_world_size())]
dist.all_gather(others, w)
assert all(torch.equal(o, w) for o in others), "ranks diverged"
dist.destroy_process_group()
