"""Uses torch.linalg.eigh (aten::_linalg_eigh has no NPU kernel) inside the training step."""
import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model

model = tiny_model("npu")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    x, y = batch("npu")
    h = model[0](x)
    cov = h.T @ h / h.shape[0]
    evals = torch.linalg.eigh(cov + torch.eye(cov.shape[0], device="npu")).eigenvalues
    loss = torch.nn.functional.cross_entropy(model(x), y) + 1e-3 * evals.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
