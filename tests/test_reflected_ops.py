"""Ops of the repository's CUDA extension called through an object the project fills with the compiled module's
members (migrate/reflected_ops.py). A small repository written here, shaped like a per-backend kernel registry (a
holder class copying `getmembers(module)` into `self`, a CUDA and a SYCL backend), not a copy of one.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

REPO = {
    "setup.py": (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(name='kern', ext_modules=[CUDAExtension('_kern_cuda', ['csrc/bind.cpp', 'csrc/kern.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    ),
    "csrc/kern.cu": "__global__ void splat_kernel() {}\n",
    "csrc/bind.cpp": (
        "#include <torch/extension.h>\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        "    m.def(\"splat_forward\", &splat_forward, \"splat_forward (CUDA)\");\n"
        "    m.def(\"splat_backward\", static_cast<void (*)(at::Tensor)>(&splat_backward), \"splat_backward (CUDA)\");\n"
        "    m.def(\"describe\", &describe, \"describe\");\n"
        "}\n"
    ),
    # another backend's module: its ops are not the CUDA extension's
    "sycl/bind.cpp": (
        "PYBIND11_MODULE(_kern_sycl, m) {\n"
        "    m.def(\"splat_forward\", &splat_forward);\n"
        "    m.def(\"pick_queue\", &pick_queue);\n"
        "}\n"
    ),
    "kern/__init__.py": "",
    "kern/backend.py": (
        "from inspect import getmembers\n\n\n"
        "class Ops:\n"
        "    def __init__(self, module):\n"
        "        for name, func in getmembers(module):\n"
        "            if not name.startswith('__'):\n"
        "                setattr(self, name, func)\n\n"
        "    def describe(self):\n"
        "        return 'ops'\n\n\n"
        "class CudaBackend:\n"
        "    def __init__(self):\n"
        "        self.ops = Ops(__import__('_kern_cuda'))\n\n\n"
        "REGISTRY = {'cuda': CudaBackend}\n"
    ),
    "kern/splat.py": (
        "from kern.backend import REGISTRY\n\n\n"
        "class Splat:\n"
        "    def __init__(self, name):\n"
        "        self.backend = REGISTRY[name]()\n\n"
        "    def forward(self, x):\n"
        "        self.backend.ops.splat_forward(x)\n"
        "        self.backend.ops.describe()\n"
        "        self.backend.ops.pick_queue()\n"
        "        return self.backend.other.splat_backward(x)\n\n"
        "    def backward(self, g):\n"
        "        backend = self.backend\n"
        "        backend.ops.splat_backward(g)\n"
    ),
}


def test_an_op_called_through_an_object_filled_with_the_module_members_is_reported(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the CUDA ops through the holder (9, 16); not the holder class's own method (10), not an op only the SYCL module
    # registers (11), not an op name through another object (12)
    assert finding_lines(result, "NPU508", "kern/splat.py") == [9, 16]
    assert 16 in finding_lines(result, "NPU508", "kern/backend.py")  # the import of the compiled module
    message = next(f.message for f in result.findings if f.code == "NPU508" and f.path.endswith("splat.py"))
    assert "`ops`" in message and "csrc/bind.cpp:3" in message


def test_no_member_copy_no_finding(tmp_path):
    files = dict(REPO)
    files["kern/backend.py"] = files["kern/backend.py"].replace("setattr(self, name, func)", "self.funcs = func")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "kern/splat.py") == []


def test_the_holder_needs_the_compiled_module_import(tmp_path):
    files = dict(REPO)
    files["kern/backend.py"] = files["kern/backend.py"].replace("__import__('_kern_cuda')", "__import__('json')")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "kern/splat.py") == []


def test_the_classes_filling_self_are_those_around_a_computed_setting():
    """`_classes_filling_self` reads the file's assignments and calls once: a class counts where any statement of
    its body (a nested class's too) sets `self` under a computed name, as walking each class found it."""
    import ast

    from migrate import knowledge
    from migrate.context import PythonContext
    from migrate.reflected_ops import _classes_filling_self

    source = (
        "class Outer:\n"
        "    class Inner:\n"
        "        def __init__(self, names):\n"
        "            for n in names:\n"
        "                setattr(self, n, 1)\n"
        "    def plain(self):\n"
        "        setattr(self, 'x', 1)\n"
        "class ByDict:\n"
        "    def fill(self, members):\n"
        "        for name, value in members:\n"
        "            self.__dict__[name] = value\n"
        "class Constant:\n"
        "    def set(self):\n"
        "        self.__dict__['x'] = 1\n"
    )
    ctx = PythonContext("m.py", source, ast.parse(source), knowledge.load(NEWEST))
    filled = _classes_filling_self(ctx)
    assert sorted(c.name for c in ctx.nodes[ast.ClassDef] if id(c) in filled) == ["ByDict", "Inner", "Outer"]
