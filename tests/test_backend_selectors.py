"""A backend selector returning a value only where the package is, asked through a comparison, is an availability check
(migrate/availability_predicates.py `selectors`, label ruling (L42)). The fixture is shaped after Tencent/AngelSlim's
compressor/_platform.py: `get_default_backend()` returns `Backend.TRITON` only under `if is_triton_available():`,
`use_triton()` compares it, and package `__init__`s import the Triton kernels only `if use_triton():`, the PyTorch
module bound to the same name otherwise, while another module imports that name from the package unguarded."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

PLATFORM = """import os
from enum import Enum

import torch


class Backend(Enum):
    TRITON = "triton"
    PYTORCH = "pytorch"


def is_triton_available():
    if not torch.cuda.is_available():
        return False
    try:
        import triton  # noqa: F401
        return True
    except ImportError:
        return False


def get_default_backend():
    if is_triton_available():
        return Backend.TRITON
    return Backend.PYTORCH


def forced_backend():
    if os.environ.get("FORCE") == "triton":
        return Backend.TRITON
    if is_triton_available():
        return Backend.TRITON
    return Backend.PYTORCH


def use_triton():
    return get_default_backend() == Backend.TRITON


def forced_triton():
    return forced_backend() == Backend.TRITON
"""

KERNEL = """import triton
import triton.language as tl


@triton.jit
def _scale_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)


def scale_triton(x):
    _scale_kernel[(1,)](x, BLOCK=128)
    return x
"""

TORCH = """def scale_torch(x):
    return x * 2
"""

SELECTED = """from pkg.platform import use_triton

if use_triton():
    from .kernel import scale_triton
else:
    from .reference import scale_torch as scale_triton
"""

FORCED = """from pkg.platform import forced_triton

if forced_triton():
    from .kernel import scale_triton
else:
    from .reference import scale_torch as scale_triton
"""

USER = """from pkg.{package} import scale_triton


def run(x):
    return scale_triton(x)
"""

PROBE = """import torch


def is_triton_available():
    if not torch.cuda.is_available():
        return False
    try:
        import triton  # noqa: F401
        return _test_triton_jit()
    except ImportError:
        return False


def _test_triton_jit():
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def _test_kernel(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)

        x = torch.zeros(128, device="cuda")
        _test_kernel[(1,)](x, BLOCK=128)
        return bool(torch.all(x == 1))
    except Exception:
        return False
"""

WARM = """import torch


def warm_up():
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def _warm_kernel(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)

        _warm_kernel[(1,)](torch.zeros(128, device="cuda"), BLOCK=128)
    except Exception:
        return False
    return None
"""

REPO = {
    "pkg/probe.py": PROBE,
    "pkg/warm.py": WARM,
    "pkg/__init__.py": "",
    "pkg/platform.py": PLATFORM,
    "pkg/selected/__init__.py": SELECTED,
    "pkg/selected/kernel.py": KERNEL,
    "pkg/selected/reference.py": TORCH,
    "pkg/forced/__init__.py": FORCED,
    "pkg/forced/kernel.py": KERNEL,
    "pkg/forced/reference.py": TORCH,
    "pkg/use_selected.py": USER.format(package="selected"),
    "pkg/use_forced.py": USER.format(package="forced"),
}


def _scan(tmp_path: Path):
    write_files(tmp_path, REPO)
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_triton_kernels_selected_by_a_backend_selector_with_a_torch_fallback_are_optional(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/selected/kernel.py") == []
    assert finding_lines(result, "NPU507", "pkg/selected/kernel.py") == []


def test_a_selector_that_can_pick_triton_without_the_check_guards_nothing(tmp_path: Path):
    # `forced_backend()` returns Backend.TRITON also under an environment switch: without triton the import fails
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/forced/kernel.py") == [1, 2]
    assert finding_lines(result, "NPU507", "pkg/forced/kernel.py") != []


def test_selectors_record_the_values_returned_only_under_an_availability_test():
    import ast

    from migrate.availability_predicates import predicates, selectors
    from migrate.context import PythonContext

    ctx = PythonContext("pkg/platform.py", PLATFORM, ast.parse(PLATFORM), None)
    assert selectors(ctx) == {"get_default_backend": frozenset({"Backend.TRITON"})}
    assert "use_triton" in predicates(ctx) and "forced_triton" not in predicates(ctx)


def test_the_imports_and_test_kernel_of_an_availability_probe_are_the_probe(tmp_path: Path):
    # `is_triton_available()` (by its name) and `_test_triton_jit()` (answering False without triton) ask whether
    # triton works; `warm_up()` answers None: no probe, its kernel stays
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/probe.py") == []
    assert finding_lines(result, "NPU507", "pkg/probe.py") == []
    assert finding_lines(result, "NPU501", "pkg/warm.py") == [6, 7]
    assert finding_lines(result, "NPU507", "pkg/warm.py") != []


LAZY = """import torch

from pkg.platform import use_triton


def _ensure_triton():
    if not use_triton():
        raise ImportError("Triton is not available")
    import triton
    import triton.language as tl

    return triton, tl


def _get_kernel():
    triton, tl = _ensure_triton()

    @triton.jit
    def scale_kernel(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)

    return scale_kernel


def _scale_triton(x):
    kernel = _get_kernel()
    kernel[(1,)](x, BLOCK=128)
    return x


def scale(x):
    if use_triton() and x.is_cuda:
        return _scale_triton(x)
    return x * 2
"""


def test_own_kernels_defined_and_launched_only_behind_a_selector_check_are_optional(tmp_path: Path):
    # quant/core/quant_func.py shape: the kernels live in private functions reached only under `if use_triton()`;
    # the same file whose public function calls the Triton path with no check keeps them
    write_files(tmp_path, {"pkg/lazy.py": LAZY,
                           "pkg/lazy_unchecked.py": LAZY.replace("if use_triton() and x.is_cuda:", "if x.is_cuda:")})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/lazy.py") == []
    assert finding_lines(result, "NPU507", "pkg/lazy.py") == []
    assert finding_lines(result, "NPU501", "pkg/lazy_unchecked.py") == [9, 10]
    assert finding_lines(result, "NPU507", "pkg/lazy_unchecked.py") != []
