"""Imports a helper module that sizes a progress bar from the terminal at import time and fails
(term_helper/progressbar.py): smoke must name the helper's failing line, then this import line."""
import torch
import torch_npu  # noqa: F401

import progressbar  # noqa: F401  (the entry line that leads to the error)

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
