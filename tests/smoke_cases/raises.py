import torch
import torch_npu  # noqa: F401

from _common import batch, tiny_model


def train():
    model = tiny_model("npu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x, y = batch("npu")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 1:
            raise ValueError("bad batch shape in step 2")  # the line the report must point at


if __name__ == "__main__":
    train()
