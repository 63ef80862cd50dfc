"""A training loop whose op set is stable from step 1, plus an op without an NPU kernel that only
runs at step 8 (a periodic evaluation-style branch): tracing stops once the op set is stable,
so this op is not seen; the report says from which step tracing was off."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(12):
    x, y = batch("npu")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    if step == 7:
        h = model[0](x)
        loss = loss + 1e-3 * torch.linalg.eigh(h.T @ h / h.shape[0] + torch.eye(h.shape[1], device="npu")).eigenvalues.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
