"""A module that defines PyTorch's extension build helpers themselves is a build library, not a build (NPU504/NPU505).

pytorch/pytorch torch/utils/cpp_extension.py defines at module level `CppExtension` / `CUDAExtension` (the setuptools
extension factories), `class BuildExtension(build_ext)` (picks nvcc per `.cu` source), `load` / `load_inline` (the JIT
builders), `_jit_compile`, `_write_ninja_file` (writes the `nvcc = $CUDA_HOME/bin/nvcc` rule) and
`_get_cuda_arch_flags` (`-gencode` flags). Projects vendor copies of it (Sense-GVT/Fast-BEV mmcv_custom/cpp_extension.py,
which mmcv_custom/remove.sh copies over the installed torch's; set 72b): the copy builds nothing itself, its nvcc
command, `.cu` tests and `extra_cuda_cflags=` lines run only when a project's setup.py or `load(...)` call asks for a
CUDA build, and that call is the finding (label note 72b, (L61)/(L107): a vendored library's internals are no build).

Read as: at least three of those names defined at module level (a `def` or a `class`); a setup.py that defines its own
`BuildExtension` subclass, or a project helper named `load`, holds one of them, not three. A cheap text test first:
the source must spell `def _write_ninja_file`, `def load_inline` or `def _jit_compile`.
"""

from __future__ import annotations

import ast

# the helper names of torch/utils/cpp_extension.py (pytorch/pytorch, v1.x-2.x: each defined at module level there)
_HELPERS = frozenset({"CppExtension", "CUDAExtension", "BuildExtension", "load", "load_inline", "_jit_compile",
                      "_write_ninja_file", "_write_ninja_file_and_build_library", "_get_cuda_arch_flags"})
_TEXT_HINTS = ("def _write_ninja_file", "def load_inline", "def _jit_compile")
_ENOUGH = 3

# a shortened copy of torch's cpp_extension as a project vendors it (the Valid example of NPU504 and NPU505)
EXAMPLE = ("import os\nimport subprocess\nfrom setuptools.command.build_ext import build_ext\n"
           "CUDA_HOME = os.environ.get('CUDA_HOME')\n"
           "def _find_cuda_home():\n    return subprocess.check_output(['which', 'nvcc']).decode()\n"
           "class BuildExtension(build_ext):\n    def build_extensions(self):\n"
           "        self.compiler.set_executable('compiler_so', os.path.join(CUDA_HOME, 'bin', 'nvcc'))\n"
           "def CUDAExtension(name, sources, *args, **kwargs):\n    kwargs['libraries'] = ['cudart']\n"
           "    return Extension(name, sources, *args, **kwargs)\n"
           "def load_inline(name, cpp_sources, cuda_sources=None, extra_cuda_cflags=None):\n"
           "    return _jit_compile(name, ['main.cpp', 'cuda.cu'], extra_cuda_cflags, with_cuda=True)\n"
           "def _write_ninja_file(path, with_cuda):\n    nvcc = os.path.join(CUDA_HOME, 'bin', 'nvcc')\n"
           "    return 'nvcc = ' + nvcc\n")


def is_build_library(ctx) -> bool:
    """Whether the Python module of `ctx` defines torch's extension build helpers (a copy of torch's cpp_extension)."""
    if ctx.tree is None or not any(hint in ctx.source for hint in _TEXT_HINTS):
        return False
    defined = {node.name for node in ctx.tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in _HELPERS}
    return len(defined) >= _ENOUGH
