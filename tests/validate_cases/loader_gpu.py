"""Tiny CUDA training script with a shuffling DataLoader (its own generator, seed SHUFFLE_SEED): the
baseline of the shuffled-data-order test of validate --baseline."""
import torch
import torch.nn as nn
import torch.nn.functional as F

SHUFFLE_SEED = 0


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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
