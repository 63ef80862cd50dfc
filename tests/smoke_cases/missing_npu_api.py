"""A bad migration: torch.cuda.nvtx -> torch.npu.nvtx, which torch_npu does not have (it has mstx)."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    torch.npu.nvtx.range_push(f"step{step}")
    x, y = batch("npu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.npu.nvtx.range_pop()
