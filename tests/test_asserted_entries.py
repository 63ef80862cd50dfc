"""A compiled extension's uses reached only through entry functions that assert its availability first are optional
(migrate/asserted_entries.py, label note 46c HALF-10 / c-10). The fixture is a small repository written here, shaped
like an attention library whose backends wrap their ops in autograd Functions behind `assert can_run_*(...)`."""

from __future__ import annotations

import ast
from pathlib import Path

from migrate.asserted_entries import guarded_lines
from migrate.engine import scan
from tests.helpers import finding_lines, write_files

SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='mylib', ext_modules=[CUDAExtension('mylib._C', ['csrc/attn.cpp', 'csrc/attn_kernel.cu'])],\n"
         "      cmdclass={'build_ext': BuildExtension})\n")

FUSED = """from torch.autograd import Function
from mylib._C import attn_backward, attn_forward
from mylib.checks import can_run_fused_attention


def make_fn(dim):
    OPS = {
        1: attn_forward,
    }

    class Fn(Function):
        @staticmethod
        def forward(ctx, q, k, v):
            return OPS[dim](q, k, v)

        @staticmethod
        def backward(ctx, g):
            return attn_backward(g)

    return Fn


Fn1D = make_fn(1)
FNS = {1: Fn1D}


def fused_attention(q, k, v):
    assert can_run_fused_attention(q, raise_error=True)
    return FNS[1].apply(q, k, v)
"""

# the same ops called by an entry without a check: on an NPU host the raising stand-in is reached
REFERENCE = """from mylib._C import attn_forward


def reference_attention(q, k, v):
    return attn_forward(q, k, v)
"""

# a check after the reading does not guard it
LATE = """from mylib._C import attn_forward


def _run(q):
    return attn_forward(q, q, q)


def late_attention(q):
    out = _run(q)
    assert can_run_fused_attention(q)
    return out
"""


def test_uses_reached_only_past_an_availability_assert_are_optional(tmp_path: Path):
    write_files(tmp_path, {"setup.py": SETUP, "csrc/attn.cpp": "// binding\n",
                           "csrc/attn_kernel.cu": "__global__ void k() {}\n",
                           "mylib/__init__.py": "", "mylib/checks.py": "def can_run_fused_attention(q, raise_error=False):\n    return True\n",
                           "mylib/fused.py": FUSED, "mylib/reference.py": REFERENCE, "mylib/late.py": LATE})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    # the module-level import runs at import time and stays; the uses inside the Function go
    assert finding_lines(result, "NPU508", "mylib/fused.py") == [2]
    assert finding_lines(result, "NPU508", "mylib/reference.py") == [1, 5]
    assert finding_lines(result, "NPU508", "mylib/late.py") == [1, 5]


def test_guarded_lines_follow_module_level_bindings_and_keep_exported_chains():
    tree = ast.parse(FUSED)
    assert guarded_lines(tree, {8, 18}) == {8, 18}
    # a name of the chain another module imports (or `__all__` lists): its own callers are not read here
    assert guarded_lines(tree, {8, 18}, frozenset({"Fn1D"})) == set()
    assert guarded_lines(ast.parse(FUSED + "__all__ = ['FNS']\n"), {8, 18}) == set()
    # a module-level reading outside any function keeps it
    assert guarded_lines(ast.parse(FUSED + "warmup = FNS[1]\nwarmup.apply(1, 2, 3)\n"), {8, 18}) == set()
    # `if not can_run_x(...): raise` is such a check too
    raising = FUSED.replace("    assert can_run_fused_attention(q, raise_error=True)\n",
                            "    if not can_run_fused_attention(q):\n        raise RuntimeError('no ext')\n")
    assert guarded_lines(ast.parse(raising), {8, 18}) == {8, 18}
    # an entry checking something else (not an availability predicate) does not guard
    other = FUSED.replace("can_run_fused_attention(q, raise_error=True)", "q.dim() == 4")
    assert guarded_lines(ast.parse(other), {8, 18}) == set()


def test_an_entry_s_own_uses_after_its_check_and_a_function_nothing_in_its_module_reads():
    entry = ("from mylib._C import attn_forward\n\n\ndef fused(q):\n    assert can_run_fused(q)\n"
             "    return attn_forward(q, q, q)\n")
    assert guarded_lines(ast.parse(entry), {6}) == {6}
    # no check, and no function of the module reads it: its callers are elsewhere, not read here
    assert guarded_lines(ast.parse(REFERENCE), {5}) == set()


# a capability probe of the compiled module itself (label note 49c c-5): it cannot run without the build and asks
# about the GPU, so it guards nothing; the op after it stays a use
PROBED = """from mylib import _C


def adam_bf16(p, g):
    if not _C.is_bf16_supported():
        raise NotImplementedError("bfloat16 is not supported on this GPU")
    _C.adam_bf16_launcher(p, g)
"""


def test_a_probe_of_the_extension_itself_guards_nothing(tmp_path: Path):
    assert guarded_lines(ast.parse(PROBED), {1, 5, 7}) == set()
    # the same check through a Python predicate of the library does guard its entry's uses
    python_check = PROBED.replace("_C.is_bf16_supported()", "is_bf16_supported()")
    assert guarded_lines(ast.parse(python_check), {1, 7}) == {7}
    write_files(tmp_path, {"setup.py": SETUP, "csrc/attn.cpp": "// binding\n",
                           "csrc/attn_kernel.cu": "__global__ void k() {}\n",
                           "mylib/__init__.py": "", "mylib/adam.py": PROBED})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    # the import and the op; not the probe (migrate/compiled_values.py)
    assert finding_lines(result, "NPU508", "mylib/adam.py") == [1, 7]
