"""A wrong migration of ddp_gpu_fallback.py: rank 1 draws its data from another seed (rank 0 unchanged)."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

local_rank = int(os.environ["LOCAL_RANK"])
if torch.npu.is_available():
    torch.npu.set_device(local_rank)
    device = torch.device("npu", local_rank)
else:
    device = torch.device("cpu")
dist.init_process_group("hccl" if torch.npu.is_available() else "gloo")
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to(device))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(100 + 2 * dist.get_rank())
for step in range(100):
    x = torch.randn(32, 8, generator=g).to(device)
    y = torch.randint(0, 4, (32,), generator=g).to(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
