"""Writes what the start-up probes of a script read on the emulated Ascend host to the JSON file named
in argv[1] (TorchScript, cudnn, capability, device properties, a barrier on a device), then trains.

Order matters: torch.jit.script runs once before transfer_to_npu (TorchScript compiles a function that
calls device-mapped factories) and once after (transfer_to_npu turns torch.jit.script off)."""
import json
import os
import sys
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401

from _common import batch, tiny_model


def fill(x):
    return torch.ones_like(x) + torch.zeros(x.shape[0])


facts = {"scripted_before": str(torch.jit.script(fill)(torch.randn(3)).tolist())}
from torch_npu.contrib import transfer_to_npu  # noqa: E402,F401

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    facts.update(
        scripted_after_is_function=torch.jit.script(fill) is fill,
        cudnn_version=torch.backends.cudnn.version(),
        cudnn_available=torch.backends.cudnn.is_available(),
        cuda_built=torch.backends.cuda.is_built(),
        version_cuda=torch.version.cuda,
        cuda_available=torch.cuda.is_available(),
        capability=torch.cuda.get_device_capability(),
        triton=torch.utils._triton.has_triton(),
        props={k: getattr(torch.cuda.get_device_properties(0), k, "MISSING")
               for k in ("name", "total_memory", "cube_core_num", "vector_core_num", "L2_cache_size", "gcnArchName")},
    )
with tempfile.TemporaryDirectory() as tmp:
    dist.init_process_group("nccl", init_method=f"file://{os.path.join(tmp, 'rendezvous')}", world_size=1, rank=0)
    dist.barrier(device_ids=[0])
    dist.destroy_process_group()
facts["barrier"] = True
# inputs cast to float16 by the script, weights left to autocast (the default policy keeps that working)
layer = torch.nn.Linear(4, 4).cuda()
with torch.autocast("cuda"):
    facts["autocast_half_input"] = str(layer(torch.randn(2, 4).cuda().half()).dtype)
with open(sys.argv[1], "w") as f:
    json.dump(facts, f)

model = tiny_model("cuda")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x, y = batch("cuda")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
