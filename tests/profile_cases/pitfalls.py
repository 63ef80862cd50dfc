"""One planted performance pitfall of every kind `npu-migrate profile` reports (emulated NPU)."""
import time

import torch
import torch_npu  # noqa: F401
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    """Every sample costs 20 ms of host time: with num_workers=0 the step waits for it."""

    def __len__(self):
        return 100_000

    def __getitem__(self, i):
        time.sleep(0.02)
        label = torch.tensor(i % 4)
        _ = label.item()  # host work inside the Dataset: not a device sync
        return torch.randn(16), label


def main():
    device = torch.device("npu:0")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)  # PITFALL: optimizer
    loader = DataLoader(SlowDataset(), batch_size=8, num_workers=0)
    for step, (x, y) in enumerate(loader):  # PITFALL: data_loading
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        extra = torch.randn(4 + step % 3, 16, device=device)  # PITFALL: dynamic_shape
        loss = loss + model(extra).mean() * 0.0
        peak = torch.fmax(out.detach(), out.detach())  # PITFALL: cpu_fallback
        gate, up = out.chunk(2, dim=-1)  # PITFALL: fusion
        loss = loss + (nn.functional.silu(gate) * up).mean() * 0.0
        scale = out.detach().double().abs().mean()  # PITFALL: float64
        positive = out[out > 0]  # PITFALL: host_sync
        if loss.item() > 1e6:  # PITFALL: host_sync
            break
        if (peak > 1e6).any():  # PITFALL: host_sync
            break
        print(scale)  # PITFALL: host_sync
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        del positive


if __name__ == "__main__":
    main()
