"""Patches a chat model's linear layers for 4-bit inference on the GPU (written for Python 3.12+:
PEP 701 f-strings, PEP 695 type parameters and aliases). A fixture for tests/test_newer_syntax.py,
shaped like model patchers read in real repositories, not copied from one."""
import logging

import bitsandbytes as bnb
import torch

logger = logging.getLogger(__name__)

type StateDict = dict[str, torch.Tensor]
type Pair[T] = tuple[T, T]


def describe[T](items: list[T], sep: str = "\n") -> str:
    return f"{sep.join(f"{i}: {item!r}" for i, item in enumerate(items))}"


class Cache[K, V]:
    def __init__(self) -> None:
        self.data: dict[K, V] = {}

    def __repr__(self) -> str:
        return f"Cache({", ".join(f"{k}={v}" for k, v in self.data.items())})"


def quantized_forward(self, x, rank):
    device = torch.device(f"cuda:{rank}")
    logger.info(f"moving {self.weight.shape} to {device} ({
        "4-bit" if self.quant_state is not None else "16-bit"  # quantized weights keep a state
    })")
    x = x.to(device)
    if self.quant_state is not None:
        out = bnb.matmul_4bit(x, self.weight.t(), bias=None, quant_state=self.quant_state)
    else:
        out = x @ self.weight.t()
    torch.cuda.synchronize()
    logger.debug(f"{out.shape=} {out.dtype!s:>10} {'\t'.join(map(str, out.stride()))}")
    return out
