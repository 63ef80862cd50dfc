"""Variable-length sequences padded to each batch's longest: the collate function (host work) makes a
batch whose shape varies, which enters the training step at the loop; every op of the model downstream
sees a new shape (one finding, at the loop line)."""
import torch
import torch_npu  # noqa: F401
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def collate(batch):
    return pad_sequence(batch, batch_first=True)


def main():
    device = torch.device("npu:0")
    generator = torch.Generator().manual_seed(0)
    # lengths 4..7 in even batches, 5..8 in odd ones: the padded batch alternates between 7 and 8 rows
    sequences = [torch.randn(4 + i % 4 + (i // 4) % 2, 8, generator=generator) for i in range(512)]
    loader = DataLoader(sequences, batch_size=4, collate_fn=collate)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1)).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
    for x in loader:  # PITFALL: dynamic_shape
        x = x.to(device)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
