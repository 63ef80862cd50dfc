"""Writes what torch.cuda answers under the CUDA twin to the JSON file named in argv[1], then trains one step."""
import json
import sys

import torch
import torch.nn as nn
import torch.utils._triton

model = nn.Linear(8, 8).cuda()
x = torch.randn(4, 8, device="cuda")
with torch.autocast("cuda"):
    autocast_dtype = str(model(x).dtype)
with torch.cuda.amp.autocast():
    cuda_amp_dtype = str(model(x).dtype)
facts = {
    "available": torch.cuda.is_available(),
    "count": torch.cuda.device_count(),
    "capability": list(torch.cuda.get_device_capability()),
    "major": torch.cuda.get_device_properties(0).major,
    "version": torch.version.cuda,
    "is_cuda": x.is_cuda,
    "param_is_cuda": model.weight.is_cuda,
    "memory": torch.cuda.memory_allocated() > 0,
    "bf16": torch.cuda.is_bf16_supported(),
    "autocast": autocast_dtype,
    "cuda_amp": cuda_amp_dtype,
    "accelerator": str(torch.accelerator.current_accelerator()),
    "nccl": torch.distributed.is_nccl_available(),
    # torch.compile's probe: triton's CUDA kernels cannot run on the twin's CPU tensors
    "triton": torch.utils._triton.has_triton(),
}
with open(sys.argv[1], "w") as f:
    json.dump(facts, f)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(x).sum().backward()
opt.step()
