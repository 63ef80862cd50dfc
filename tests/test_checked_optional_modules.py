"""A module whose every importer reaches it only behind an availability check that leaves without the package is
optional, its whole body included (migrate/optional_modules.py, label rulings (L26)/(L34)/(L97)). The fixture is a
small kernel package written here: a helper module asks `importlib.util.find_spec` for the DSL runtime
(migrate/availability_predicates.py), op wrappers call a raising check of it (or test a module flag built from it) and
only then import the kernels' module, which imports the GPU-only DSL at its top."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

RUNTIME = """import importlib.util

import torch

_PACKAGES = {"cutlass": "nvidia-cutlass-dsl", "cuda.bindings.driver": "cuda-python"}


def _missing_packages():
    missing = []
    for module, package in _PACKAGES.items():
        try:
            spec = importlib.util.find_spec(module)
        except (ModuleNotFoundError, ValueError):
            spec = None
        if spec is None:
            missing.append(package)
    return missing


def _dsl_runtime_available():
    return len(_missing_packages()) == 0


def dsl_kernels_available():
    return torch.cuda.is_available() and _dsl_runtime_available()


def raise_if_dsl_unavailable(op):
    if not dsl_kernels_available():
        raise NotImplementedError(f"{op} needs the CuTe DSL runtime")


if _dsl_runtime_available():
    import cutlass

    HALF = cutlass.Float32(0.5)
"""

IMPL = """import cutlass
import cutlass.cute as cute


@cute.kernel
def scale_kernel(x):
    return x * cutlass.Float32(2.0)
"""

IMPL2 = """import cutlass.cute as cute


@cute.kernel
def copy_kernel(x):
    return x
"""

IMPL3 = """import cutlass.cute as cute


@cute.kernel
def cast_kernel(x):
    return x
"""

# the public wrapper checks first (a raising check of another module), then imports the kernels
OPS = """import torch

from .runtime import raise_if_dsl_unavailable


def dsl_scale(x):
    raise_if_dsl_unavailable("dsl_scale")
    if x.ndim != 2:
        raise ValueError("2-D only")
    from .impl import scale_kernel

    return scale_kernel(x)
"""

# a private op body imports the kernels; the module calls it only after `if not <module flag>: raise`, and a benchmark
# script imports the kernels' module at its top
QUANT = """import torch

from .runtime import _dsl_runtime_available

_dsl_ok = torch.cuda.is_available() and _dsl_runtime_available()


@torch.library.custom_op("demo::copy", mutates_args=())
def _copy_op(x: torch.Tensor) -> torch.Tensor:
    from .impl2 import copy_kernel

    return copy_kernel(x)


@_copy_op.register_fake
def _(x):
    return torch.empty_like(x)


def dsl_copy(x):
    if not _dsl_ok:
        raise NotImplementedError("dsl_copy needs the CuTe DSL runtime")
    return _copy_op(x)


def _cast(x):
    from .impl3 import cast_kernel

    return cast_kernel(x)


def dsl_cast(x):
    return _cast(x)
"""

BENCH = """import torch

from kern.impl2 import copy_kernel

print(copy_kernel(torch.randn(4, 4)))
"""

REPO = {
    "kern/__init__.py": "",
    "kern/runtime.py": RUNTIME,
    "kern/impl.py": IMPL,
    "kern/impl2.py": IMPL2,
    "kern/impl3.py": IMPL3,
    "kern/ops.py": OPS,
    "kern/quant.py": QUANT,
    "benchmarks/bench_copy.py": BENCH,
}


def _scan(tmp_path: Path):
    write_files(tmp_path, REPO)
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_a_block_under_a_find_spec_predicate_is_an_optional_path(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "kern/runtime.py") == []
    assert finding_lines(result, "NPU507", "kern/runtime.py") == []


def test_a_module_imported_only_after_a_raising_check_of_another_module_is_optional(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "kern/impl.py") == []
    assert finding_lines(result, "NPU507", "kern/impl.py") == []


def test_a_module_imported_in_a_private_function_called_only_behind_a_check_is_optional(tmp_path: Path):
    # impl2.py: its one product importer is `_copy_op`, called only after `if not _dsl_ok: raise` (the benchmark's
    # unguarded import measures that side, as a unit test does); impl3.py: `_cast` is called with no check first
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "kern/impl2.py") == []
    assert finding_lines(result, "NPU501", "kern/impl3.py") == [1]
