"""A small transformer language model as pytorch/examples' word_language_model `--model Transformer` trains one:
nn.TransformerEncoder (its nn.MultiheadAttention built with dropout 0.2: the attention applies it through dropout_p,
no F.dropout call), a causal mask, a few SGD steps on random tokens."""
import argparse

import torch
import torch.nn as nn

VOCAB, BPTT, BATCH, WIDTH = 40, 8, 4, 16


class TransformerLM(nn.Module):
    def __init__(self, dropout=0.2):
        super().__init__()
        self.encoder = nn.Embedding(VOCAB, WIDTH)
        layer = nn.TransformerEncoderLayer(WIDTH, 2, 32, dropout)
        self.transformer = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.decoder = nn.Linear(WIDTH, VOCAB)

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src), device=src.device)
        return self.decoder(self.transformer(self.encoder(src), mask, is_causal=True)).view(-1, VOCAB)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dropout", type=float, default=0.2)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    data = torch.randint(0, VOCAB, (BPTT * 6 + 1, BATCH)).to(device)
    model = TransformerLM(args.dropout).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for i in range(0, BPTT * 6, BPTT):
        source, targets = data[i:i + BPTT], data[i + 1:i + 1 + BPTT].reshape(-1)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(source), targets)
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
