"""A kernel backend a selector offers only past its own support check, with another backend where the check fails,
is an optional path (label ruling (L42), second sentence; migrate/optional_modules.py `checked_selections`), and so is
a module a package's own safe-import helper loads in a `try:` (`helper_imports`). The fixture is vipshop/cache-dit
@f86744af's layout, cut down: kernels/ops.py picks CuTe DSL (where CUDA and cutlass are) else Triton, and imports
each backend's package in the branch of that backend; kernels/cutedsl/__init__.py loads its op registry through
`_safe_import("._ops_registery", ...)`, whose stand-in raises. The CuTe DSL kernels go, the Triton fallback's stay
((L42), first sentence: the resolver raises where triton is missing); Triton kernels a selector offers only where
triton imports, a PyTorch backend otherwise, go too."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

BACKEND = """from enum import Enum

import torch


class KernelBackend(Enum):
    TRITON = "Triton"
    CUTEDSL = "CuteDSL"

    @classmethod
    def is_supported(cls, backend):
        if backend == cls.TRITON:
            try:
                import triton  # noqa F401
                return True
            except ImportError:
                return False
        if backend == cls.CUTEDSL:
            if not torch.cuda.is_available():
                return False
            try:
                import cutlass.cute  # noqa F401
                return True
            except ImportError:
                return False
        return False
"""

OPS = """from .backend import KernelBackend


def _select_kernel_backend():
    if not KernelBackend.is_supported(KernelBackend.CUTEDSL):
        return KernelBackend.TRITON
    return KernelBackend.CUTEDSL


def _resolve_backend():
    backend = _select_kernel_backend()
    if not KernelBackend.is_supported(backend):
        raise ValueError(f"kernel backend: {backend} is not supported now!")
    return backend


def merge(x):
    backend = _resolve_backend()
    if backend == KernelBackend.TRITON:
        from .triton import merge_states
        return merge_states(x)
    if backend == KernelBackend.CUTEDSL:
        from .cutedsl import merge_states
        return merge_states(x)
    raise ValueError(backend)
"""

TRITON_INIT = "from ._kernels import merge_states\n"

TRITON_KERNELS = """import triton
import triton.language as tl


@triton.jit
def _merge_kernel(x_ptr):
    pass


def merge_states(x):
    _merge_kernel[(1,)](x)
    return x
"""

CUTE_INIT = """import importlib


def _unavailable(*args, **kwargs):
    raise ImportError("CuTe DSL backend requires the `nvidia-cutlass-dsl` runtime to be installed.")


def _safe_import(module_name, func_name):
    try:
        module = importlib.import_module(module_name, package=__package__)
        return getattr(module, func_name)
    except (ImportError, AttributeError):
        return _unavailable


merge_states = _safe_import(
    "._ops_registery",
    "merge_states",
)
"""

CUTE_REGISTRY = """from ._kernels import merge_states
"""

CUTE_KERNELS = """import cutlass
import cutlass.cute as cute


@cute.kernel
def _merge_kernel(x):
    pass


@cute.jit
def _launch(x):
    _merge_kernel(x).launch(grid=[1, 1, 1])


def merge_states(x):
    compiled = cute.compile(_launch, x)
    return compiled(x)
"""

REPO = {
    "src/pkg/__init__.py": "",
    "src/pkg/kernels/__init__.py": "from .ops import merge\n",
    "src/pkg/kernels/backend.py": BACKEND,
    "src/pkg/kernels/ops.py": OPS,
    "src/pkg/kernels/triton/__init__.py": TRITON_INIT,
    "src/pkg/kernels/triton/_kernels.py": TRITON_KERNELS,
    "src/pkg/kernels/cutedsl/__init__.py": CUTE_INIT,
    "src/pkg/kernels/cutedsl/_ops_registery.py": CUTE_REGISTRY,
    "src/pkg/kernels/cutedsl/_kernels.py": CUTE_KERNELS,
    "tests/test_merge.py": "import pkg\nfrom pkg.kernels import merge\n",
}


def _scan(tmp_path: Path):
    write_files(tmp_path, REPO)
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_the_backend_a_selector_offers_only_past_its_support_check_is_optional(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "cutedsl/_kernels.py") == []
    assert finding_lines(result, "NPU507", "cutedsl/_kernels.py") == []


def test_the_fallback_backend_whose_resolver_raises_stays_reported(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "triton/_kernels.py") == [1, 2]
    assert 5 in finding_lines(result, "NPU507", "triton/_kernels.py")


TORCH_FALLBACK_OPS = """from .backend import KernelBackend


def _select_kernel_backend():
    if not KernelBackend.is_supported(KernelBackend.TRITON):
        return KernelBackend.TORCH
    return KernelBackend.TRITON


def merge(x):
    backend = _select_kernel_backend()
    if backend == KernelBackend.TRITON:
        from .triton import merge_states
        return merge_states(x)
    return x
"""


def test_triton_kernels_a_selector_offers_only_past_their_support_check_are_optional(tmp_path: Path):
    # Triton where triton imports, a plain PyTorch backend otherwise: the kernels are reached only through a check
    # that falls back to a working backend ((L42), second sentence)
    write_files(tmp_path, {"src/pkg/kernels/ops.py": TORCH_FALLBACK_OPS,
                           "src/pkg/kernels/backend.py": BACKEND.replace('    CUTEDSL = "CuteDSL"', '    TORCH = "Torch"')})
    result = _scan_written(tmp_path)
    assert finding_lines(result, "NPU501", "triton/_kernels.py") == []
    assert finding_lines(result, "NPU507", "triton/_kernels.py") == []


def test_without_the_support_check_the_selected_backend_stays_reported(tmp_path: Path):
    # the same selector returning Triton unconditionally: nothing checks triton before the import
    write_files(tmp_path, {"src/pkg/kernels/ops.py": TORCH_FALLBACK_OPS.replace(
        "    if not KernelBackend.is_supported(KernelBackend.TRITON):\n        return KernelBackend.TORCH\n", ""),
        "src/pkg/kernels/backend.py": BACKEND.replace('    CUTEDSL = "CuteDSL"', '    TORCH = "Torch"')})
    result = _scan_written(tmp_path)
    assert finding_lines(result, "NPU501", "triton/_kernels.py") == [1, 2]


def test_a_check_that_returns_the_member_where_it_passes_is_the_same_selection(tmp_path: Path):
    # `if KernelBackend.is_supported(KernelBackend.TRITON): return KernelBackend.TRITON` / `return KernelBackend.TORCH`
    write_files(tmp_path, {"src/pkg/kernels/ops.py": TORCH_FALLBACK_OPS.replace(
        "    if not KernelBackend.is_supported(KernelBackend.TRITON):\n        return KernelBackend.TORCH\n"
        "    return KernelBackend.TRITON\n",
        "    if KernelBackend.is_supported(KernelBackend.TRITON):\n        return KernelBackend.TRITON\n"
        "    return KernelBackend.TORCH\n"),
        "src/pkg/kernels/backend.py": BACKEND.replace('    CUTEDSL = "CuteDSL"', '    TORCH = "Torch"')})
    result = _scan_written(tmp_path)
    assert finding_lines(result, "NPU501", "triton/_kernels.py") == []


def test_a_helper_that_imports_without_a_try_is_no_guard(tmp_path: Path):
    # `_safe_import` importing outside a `try:` (a failure stops the import of the package): the module it loads keeps
    # its findings where the package itself is imported unguarded
    write_files(tmp_path, REPO)
    write_files(tmp_path, {
        "src/pkg/kernels/cutedsl/__init__.py": CUTE_INIT.replace(
            "    try:\n        module = importlib.import_module(module_name, package=__package__)\n"
            "        return getattr(module, func_name)\n    except (ImportError, AttributeError):\n"
            "        return _unavailable\n",
            "    module = importlib.import_module(module_name, package=__package__)\n"
            "    return getattr(module, func_name)\n"),
        "src/pkg/kernels/__init__.py": "from .ops import merge\nfrom . import cutedsl\n"})
    result = _scan_written(tmp_path)
    assert finding_lines(result, "NPU501", "cutedsl/_kernels.py") == [1, 2]


def _scan_written(tmp_path: Path):
    files = {name: text for name, text in REPO.items() if not (tmp_path / name).exists()}
    write_files(tmp_path, files)
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
