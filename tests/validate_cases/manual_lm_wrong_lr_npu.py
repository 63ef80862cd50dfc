"""manual_lm_npu.py with the learning rate of its update by hand changed by the rewrite (0.6 for 0.5): step 1's update
runs after step 1's backward(), so the loss and the dumped APIs diverge from step 2 (its update by hand, `Tensor.add_`)."""
import argparse

import torch
import torch_npu
import torch.nn as nn
import torch.nn.functional as F

SEED = 0
VOCAB, BPTT, BATCH = 40, 6, 4


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(VOCAB, 16)
        self.rnn = nn.LSTM(16, 16)
        self.decoder = nn.Linear(16, VOCAB)

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.encoder(input), hidden)
        return F.log_softmax(self.decoder(output), dim=-1).view(-1, VOCAB), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return weight.new_zeros(1, bsz, 16), weight.new_zeros(1, bsz, 16)


def batchify(data, bsz, device):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous().to(device)


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def repackage_hidden(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.5)
    args = parser.parse_args()
    device = torch.device("npu" if torch.npu.is_available() else "cpu")
    torch.manual_seed(SEED)
    train_data = batchify(torch.randint(0, VOCAB, (1000,)), BATCH, device)
    model = RNNModel().to(device)
    model.train()
    hidden = model.init_hidden(BATCH)
    for step, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        if step >= args.steps:
            break
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = F.nll_loss(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-args.lr * 1.2)
        print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
