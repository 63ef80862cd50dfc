"""Sparse-attention kernels behind their own availability probes, reached only from a dispatcher that checks first
(label rulings (L42)/(L97)/(L27)). Shaped after Tencent/AngelSlim's sparsity algorithms: a probe module answers
`kernels_available()` from an import attempt (`try: import flash_attn, triton / except Exception: return False`,
migrate/availability_predicates.py `_import_probe_line`), the dispatcher binds the answer to a local
(`_kernel_ok = kernels_available(head_dim)`, NPU501 `_local_flag`) and calls private functions only under it (which
call others: optional_modules.py `checked_callees`, grown to a fixpoint), one of which imports a submodule of a
package whose `__init__` relays the Triton kernels (`from .modules.forward import f` runs `modules/__init__.py`);
tests skip by hand where flash_attn does not import (skip_decorators.py `_import_skipping_tests`)."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

CHECK = """def kernels_available(head_dim=None):
    try:
        import flash_attn  # noqa: F401
        import triton  # noqa: F401
    except Exception:
        return False
    if head_dim is None:
        return True
    return head_dim in (64, 128)


def torch_available():
    try:
        import torch  # noqa: F401
    except Exception:
        return False
    return True
"""

PREFILL = """import torch

from .kernels_check import kernels_available


def _dense(q, k, v):
    from flash_attn import flash_attn_func

    return flash_attn_func(q, k, v)


def _kernel_prefill(q, k, v):
    if q.shape[0] == 0:
        return _dense(q, k, v)
    from .modules.forward import sparse_forward

    return sparse_forward(q, k, v)


def prefill(q, k, v, head_dim):
    _kernel_ok = kernels_available(head_dim)
    if _kernel_ok:
        return _kernel_prefill(q, k, v)
    return torch.softmax(q @ k.transpose(-1, -2), -1) @ v
"""

UNCHECKED = """import torch

from .kernels_check import torch_available


def _dense(q, k, v):
    from flash_attn import flash_attn_func

    return flash_attn_func(q, k, v)


def prefill(q, k, v):
    ok = torch_available()
    if ok:
        return _dense(q, k, v)
    return q
"""

FORWARD = """from ..ops.kernel import sparse_kernel


def sparse_forward(q, k, v):
    return sparse_kernel(q, k, v)
"""

KERNEL = """import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs))


def sparse_kernel(q, k, v):
    _kernel[(1,)](q, BLOCK=128)
    return q
"""

TEST = """from unittest import SkipTest as _Skip


def test_flash_path():
    'Skips without flash_attn.'
    if 1 > 2:
        raise _Skip("never")
    try:
        import flash_attn
    except Exception:
        raise _Skip("flash_attn not installed")
    flash_attn.flash_attn_func(1, 2, 3)


def test_flash_path_unskipped():
    try:
        import flash_attn
    except Exception:
        raise RuntimeError("install flash_attn")
    flash_attn.flash_attn_func(1, 2, 3)
"""

REPO = {
    "algo/__init__.py": "",
    "algo/sparse/__init__.py": "",
    "algo/sparse/kernels_check.py": CHECK,
    "algo/sparse/prefill.py": PREFILL,
    "algo/sparse/unchecked.py": UNCHECKED,
    "algo/sparse/modules/__init__.py": "from .forward import sparse_forward\n",
    "algo/sparse/modules/forward.py": FORWARD,
    "algo/sparse/ops/__init__.py": "",
    "algo/sparse/ops/kernel.py": KERNEL,
    "tests/test_flash.py": TEST,
}


def _scan(tmp_path: Path):
    write_files(tmp_path, REPO)
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_private_functions_called_only_under_a_local_bound_to_an_import_probe_are_optional(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "sparse/prefill.py") == []
    assert finding_lines(result, "NPU507", "sparse/prefill.py") == []
    # a probe of a package that runs on the NPU (torch) checks nothing GPU-only
    assert finding_lines(result, "NPU501", "sparse/unchecked.py") == [7]


def test_triton_kernels_relayed_by_a_package_init_reached_only_behind_the_check_are_optional(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "ops/kernel.py") == []
    assert finding_lines(result, "NPU507", "ops/kernel.py") == []


def test_a_test_that_skips_by_hand_where_the_package_does_not_import_is_no_label(tmp_path: Path):
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "tests/test_flash.py") == [17]


def test_an_import_probe_answers_like_an_availability_check():
    import ast

    from migrate.availability_predicates import predicates
    from migrate.context import PythonContext

    ctx = PythonContext("algo/sparse/kernels_check.py", CHECK, ast.parse(CHECK), None)
    assert predicates(ctx) == frozenset({"kernels_available"})


KERNELS_INIT = """def kernels_available(head_dim=None):
    try:
        import triton  # noqa: F401
    except Exception:
        return False
    return head_dim is None or head_dim <= 256


def get_streaming_forward():
    from .streaming import streaming_forward

    return streaming_forward


def get_other_forward():
    from .other import other_forward

    return other_forward
"""

DISPATCH = """import torch

from . import kernels as _k


def _kernel_prefill(q):
    sf = _k.get_streaming_forward()
    return sf(q)


def prefill(q, head_dim):
    if _k.kernels_available(head_dim):
        return _kernel_prefill(q)
    return torch.softmax(q, -1)


def other(q):
    return _k.get_other_forward()(q)
"""


def accessor_repo(**files: str) -> dict[str, str]:
    """minference's layout: kernels/__init__.py's lazy accessors, their kernel modules, the dispatcher prefill.py."""
    return {
        "algo/__init__.py": "",
        "algo/minf/__init__.py": "",
        "algo/minf/kernels/__init__.py": KERNELS_INIT,
        "algo/minf/kernels/streaming.py": KERNEL.replace("sparse_kernel", "streaming_forward"),
        "algo/minf/kernels/other.py": KERNEL.replace("sparse_kernel", "other_forward"),
        "algo/minf/prefill.py": DISPATCH,
        **files,
    }


def test_triton_kernels_behind_lazy_accessors_called_only_behind_the_probe_are_optional(tmp_path: Path):
    # minference kernels/__init__.py shape: the accessors import the kernels' modules in their bodies; the dispatcher
    # reaches `get_streaming_forward()` only from `_kernel_prefill`, called only under `_k.kernels_available(...)` (a
    # predicate of the module imported as `_k`), and `get_other_forward()` with no check
    write_files(tmp_path, accessor_repo())
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "kernels/streaming.py") == []
    assert finding_lines(result, "NPU507", "kernels/streaming.py") == []
    assert finding_lines(result, "NPU501", "kernels/other.py") == [1, 2]


def test_a_warm_run_reads_no_file_again_for_the_lazy_accessors(tmp_path: Path, monkeypatch):
    # the accessors of kernels/__init__.py and their calls in prefill.py are derived from those files after the first
    # pass; the answers are kept in the cache under each file's content, so a warm run does not read them again for
    # it (on the torch corpus this pass re-read hundreds of files on every run: 43 s warm), and an edit of the caller
    # is seen
    import os
    import time

    from migrate import engine

    repo, cache = tmp_path / "repo", tmp_path / "cache"
    files = accessor_repo()
    old = time.time() - 60
    for name, body in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(body)
        os.utime(repo / name, (old, old))  # the stat shortcut of the cache applies
    reads = []
    real = engine._read_target
    monkeypatch.setattr(engine, "_read_target", lambda target, limit: reads.append(target.path) or real(target, limit))

    def run():
        reads.clear()
        result = scan([str(repo)], cache_dir=cache, torch_npu_version="2.14.0")
        return finding_lines(result, "NPU507", "kernels/streaming.py"), finding_lines(result, "NPU501", "kernels/other.py"), \
            sorted(p.rsplit("/", 1)[-1] for p in reads)

    cold = run()
    assert cold[:2] == ([], [1, 2]) and len(cold[2]) == len(files)
    warm = run()  # the same findings; prefill.py (the accessors' caller) is not read again; kernels/__init__.py
    # is, by another pass (imported_kernels: a file naming another module's kernels is analysed with them known)
    assert warm[:2] == ([], [1, 2]) and "prefill.py" not in warm[2] and len(warm[2]) <= 1, warm
    (repo / "algo/minf/prefill.py").write_text(DISPATCH.replace("    if _k.kernels_available(head_dim):\n        return _kernel_prefill(q)\n",
                                                                  "    return _kernel_prefill(q)\n"))
    os.utime(repo / "algo/minf/prefill.py", (old + 1, old + 1))
    streaming, _, _ = run()
    assert streaming != []  # the caller no longer checks: the kernels are required again


def test_triton_kernels_relayed_by_the_module_a_lazy_accessor_imports_are_optional(tmp_path: Path):
    # AngelSlim xattention: the accessor imports kernels/xattention.py, which imports its Triton helpers from
    # xattn_utils.py at its top (a relay with no kernel of its own); the helpers are reached only where the probe
    # passes, as the accessor's own module is (a first speed change asked accessors of kernel modules only and lost it)
    write_files(tmp_path, accessor_repo(**{
        "algo/minf/kernels/streaming.py": "from .streaming_utils import streaming_forward  # noqa: F401\n",
        "algo/minf/kernels/streaming_utils.py": KERNEL.replace("sparse_kernel", "streaming_forward"),
    }))
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "kernels/streaming_utils.py") == []
    assert finding_lines(result, "NPU507", "kernels/streaming_utils.py") == []
    assert finding_lines(result, "NPU501", "kernels/other.py") == [1, 2]
