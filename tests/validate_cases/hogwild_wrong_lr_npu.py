"""A deliberately wrong migration of hogwild_gpu.py: learning rate changed from 0.05 to 0.5."""
import os
import time

import torch
import torch_npu
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

LR = 0.5


def train(rank, model, x, y, device, start):
    torch.manual_seed(rank)
    start.wait()  # both workers begin together: a slow process start does not decide the interleaving
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    for _ in range(50):
        time.sleep(os.urandom(1)[0] / 255 * 0.01)  # scheduling jitter: not seeded on purpose
        idx = torch.randint(0, 256, (32,))
        data, target = x[idx].to(device), y[idx].to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    mp.set_start_method("fork", force=True)
    device = torch.device("npu" if torch.npu.is_available() else "cpu")
    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
    model.share_memory()
    start = mp.Barrier(2)
    workers = [mp.Process(target=train, args=(rank, model, x, y, device, start)) for rank in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
