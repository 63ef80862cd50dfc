"""FSDP2 on a model built on the meta device and materialised on the NPU (to_empty + reset_parameters),
as large-model recipes (and pytorch/examples' FSDP2 example) do; migrated style, default mesh."""
import os

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401
from torch.distributed.fsdp import fully_shard

local_rank = int(os.environ["LOCAL_RANK"])
torch.npu.set_device(local_rank)
device = torch.device("npu", local_rank)
dist.init_process_group(backend="hccl", device_id=device)
torch.manual_seed(0)
with torch.device("meta"):
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
for layer in model:
    if isinstance(layer, torch.nn.Linear):
        fully_shard(layer)
fully_shard(model)
model.to_empty(device=device)
for layer in model:
    if isinstance(layer, torch.nn.Linear):
        layer.reset_parameters()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
torch.manual_seed(100 + dist.get_rank())
for step in range(50):
    x = torch.randn(16, 8, device=device)
    y = torch.randint(0, 2, (16,), device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
