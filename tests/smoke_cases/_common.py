"""Tiny model and batches shared by the smoke cases (migrated style: torch_npu, device "npu")."""
import torch


def tiny_model(device):
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to(device)


def batch(device, n=16):
    x = torch.randn(n, 8, device=device)
    y = torch.randint(0, 2, (n,), device=device)
    return x, y
