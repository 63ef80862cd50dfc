"""A migration of loader_gpu.py whose DataLoader shuffles with another seed (SHUFFLE_SEED 1, not 0): the
same samples in another order."""
import torch
import torch_npu
import torch.nn as nn
import torch.nn.functional as F

SHUFFLE_SEED = 1


def main():
    device = torch.device("npu" if torch.npu.is_available() else "cpu")
    torch.manual_seed(0)
    x = torch.randn(64, 8)
    y = (x[:, 0] > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16, shuffle=True,
                                         generator=torch.Generator().manual_seed(SHUFFLE_SEED))
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _epoch in range(3):
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
