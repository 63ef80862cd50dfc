"""msprobe's ConfigChecker at training speed (inside the smoke child only).

`ConfigChecker.apply_patches()` wraps the random functions (`torch.rand`, `random.random`,
`np.random.rand`, ...) to record each call's stack, and builds every frame with
`inspect.getframeinfo`, which looks the frame's module up by scanning all of `sys.modules` (torch
has thousands): milliseconds per frame, per random call. A script that draws random numbers in a
loop (pytorch/examples' DDP tutorial builds its dataset from 4096 `torch.rand` calls) then spends
minutes before its first step in both validate runs. `fast_call_stack` returns the same strings
(`File <abspath>, line N, in <function>, <code line>`, outermost first) from the frame objects and
`linecache`, and replaces msprobe's helper as soon as its module is imported.
"""
from __future__ import annotations

import linecache
import os
import sys

RANDOM_CHECKER = "msprobe.core.config_check.checkers.random_checker"


def fast_call_stack(frame) -> list[str]:
    stack = []
    current = frame.f_back  # skip the wrapper's own frame, as msprobe does
    while current is not None:
        code = current.f_code
        filename = os.path.abspath(code.co_filename)
        line = linecache.getline(code.co_filename, current.f_lineno, current.f_globals).strip()
        stack.append(f"File {filename}, line {current.f_lineno}, in {code.co_name}, {line}")
        current = current.f_back
    return stack[::-1]


def _patch(module) -> None:
    if hasattr(module, "get_call_stack"):
        module.get_call_stack = fast_call_stack


def install() -> None:
    if RANDOM_CHECKER in sys.modules:
        _patch(sys.modules[RANDOM_CHECKER])
        return
    from checks.emulation.fakedata import PatchOnImport

    sys.meta_path.insert(0, PatchOnImport({RANDOM_CHECKER: _patch}))
