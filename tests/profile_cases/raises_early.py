"""Raises in step 1: nothing can be measured (profile exits 2)."""
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(2, 4)).sum().backward()
optimizer.step()
raise RuntimeError("broken after the first step")
