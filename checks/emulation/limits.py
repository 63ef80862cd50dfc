"""Errors that come from the emulation itself, not from the script: said as such in the smoke report.

A CPU-backed emulation (torch_npu stand-in, CUDA twin) maps every device argument it knows to the CPU.
A call it does not know hands torch the emulated device type itself, and torch then fails with what
reads like a hardware fault ("Could not run 'aten::empty.memory_format' with arguments from the 'npu'
backend", "Found no NVIDIA driver"). `explain` names those: the stand-in cannot emulate that call,
the script is not at fault, and what to do. Torch-free (the parent side uses it).
"""
from __future__ import annotations

import re

# (backend, pattern of the message, what could not be emulated)
_ARTIFACTS = (
    ("emulated", re.compile(r"with arguments from the '(?:npu|PrivateUse1)' backend"),
     "a tensor or op reached torch's npu device type itself, which has no kernels here (every "
     "emulated tensor lives on the CPU)"),
    ("cuda-emulated", re.compile(r"Found no NVIDIA driver|no CUDA-capable device|Torch not compiled with CUDA enabled"
                                 r"|with arguments from the 'CUDA' backend"),
     "the call reached the real CUDA runtime, which this host does not have"),
)
_NAMES = {"emulated": "the torch_npu stand-in", "cuda-emulated": "the CUDA twin"}


def explain(backend: str, message: str) -> str | None:
    """The sentence to add to a failure reason that is an emulation artifact; None otherwise."""
    for kind, pattern, what in _ARTIFACTS:
        if kind == backend and pattern.search(message or ""):
            return (f"{_NAMES[kind]} cannot emulate this call: {what}. Not a fault of the script; run it on the "
                    "real device to exercise this call, and report the call at the line above to npu-migrate")
    return None
