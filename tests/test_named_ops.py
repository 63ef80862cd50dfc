"""Ops of the repository's CUDA extension fetched by their registered name through a project accessor
(migrate/named_ops.py). A small repository written here, shaped like a JIT-extension registry (a loader class, a
registry module whose `op(name, op_name)` returns the torch.ops handle, wrappers calling it), not a copy of one.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

REPO = {
    "pkg/__init__.py": "",
    "csrc/gemm.cu": "__global__ void k() {}\n",
    "csrc/bind.cpp": (
        "#include <torch/library.h>\n"
        "TORCH_LIBRARY(pkg_gemm, m) {\n"
        "  m.def(\"gemm_forward(Tensor x, Tensor w) -> Tensor\");\n"
        "  m.def(\n"
        "      \"gemm_repack(Tensor w) -> Tensor\");\n"
        "}\n"
        "TORCH_LIBRARY_IMPL(pkg_gemm, CUDA, m) {\n"
        "  m.impl(\"gemm_forward\", &gemm_forward);\n"
        "}\n"
    ),
    # a CPU-only namespace: its ops run on an NPU host's CPU
    "csrc/pack_cpu.cpp": (
        "TORCH_LIBRARY(pkg_pack, m) {\n  m.def(\"pack_rows(Tensor x) -> Tensor\");\n}\n"
        "TORCH_LIBRARY_IMPL(pkg_pack, CPU, m) {\n  m.impl(\"pack_rows\", &pack_rows);\n}\n"
    ),
    "pkg/registry.py": (
        "import torch\n\n\n"
        "def op(name, op_name):\n"
        "    return getattr(getattr(torch.ops, 'pkg_' + name), op_name)\n"
    ),
    "pkg/gemm.py": (
        "def _api():\n"
        "    from pkg import registry\n\n"
        "    return registry\n\n\n"
        "def gemm(x, w):\n"
        "    return _api().op(\"gemm\", \"gemm_forward\")(x, w)\n\n\n"
        "def _resolve(op_name):\n"
        "    return _api().op(\"gemm\", op_name)\n\n\n"
        "def repack(w, fast):\n"
        "    if fast:\n"
        "        op_name = \"gemm_repack\"\n"
        "    else:\n"
        "        op_name = \"gemm_repack\"\n"
        "    op = _resolve(op_name=op_name)\n"
        "    return op(w)\n\n\n"
        "def pack(x):\n"
        "    return _api().op(\"pack\", \"pack_rows\")(x)\n\n\n"
        "def label(x):\n"
        "    fmt = str.format(\"gemm_forward\")\n"
        "    return fmt\n"
    ),
    # a loader CLASS given the build's parameters: its object builds on demand, its attributes are Python
    "pkg/jit.py": (
        "from torch.utils.cpp_extension import load\n\n\n"
        "class JitExtension:\n"
        "    def __init__(self, name, sources, extra_cuda_cflags):\n"
        "        self.kwargs = dict(name=name, sources=sources, extra_cuda_cflags=extra_cuda_cflags)\n\n"
        "    def load(self):\n"
        "        load(**self.kwargs)\n\n"
        "    def clear_cache(self):\n"
        "        pass\n"
    ),
    "pkg/gemm_ext.py": (
        "from pkg.jit import JitExtension\n\n"
        "_GEMM = JitExtension(name=\"pkg_gemm_ops\", sources=[\"csrc/gemm.cu\"], extra_cuda_cflags=[\"-O3\"])\n\n\n"
        "def clear():\n"
        "    _GEMM.clear_cache()\n"
    ),
    "tests/test_gemm_ext.py": "from pkg import gemm_ext\n\n\ndef test_load():\n    assert gemm_ext._GEMM.load()\n",
}


def test_an_op_fetched_by_its_registered_name_is_reported_where_it_is_called(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the call of the fetched op (8), the local bound to it and its call (20, 21); not the accessor returning the
    # handle (12), not the CPU-only namespace's op (25), not a name passed to a call whose result is never called (29)
    assert finding_lines(result, "NPU508", "pkg/gemm.py") == [8, 20, 21]
    message = next(f.message for f in result.findings if f.code == "NPU508" and f.line == 8)
    assert "torch.ops.pkg_gemm.gemm_forward" in message and "csrc/bind.cpp:3" in message


def test_no_cuda_registration_no_finding(tmp_path):
    files = dict(REPO)
    files["csrc/bind.cpp"] = files["csrc/bind.cpp"].replace("CUDA, m", "CPU, m")
    del files["csrc/gemm.cu"]
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "pkg/gemm.py") == []


def test_stable_abi_fragments_register_ops_too():
    from migrate.named_ops import cpp_facts

    text = "STABLE_TORCH_LIBRARY_FRAGMENT(ns, ops) {\n  ops.def(\n    \"mm(Tensor a) -> Tensor\");\n}\n" \
           "STABLE_TORCH_LIBRARY_IMPL(ns, CUDA, m) {\n  m.impl(\"mm\", &mm);\n}\n"
    found = [(d.name, d.line, d.cuda) for d in cpp_facts("b.cpp", text)]
    assert found == [("ns::mm", 3, False), ("ns::mm", 6, True)]


def test_the_object_of_a_loader_class_is_not_the_compiled_module(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert 3 in finding_lines(result, "NPU505", "pkg/gemm_ext.py")  # the build, at the construction
    assert finding_lines(result, "NPU508", "pkg/gemm_ext.py") == []  # `_GEMM.clear_cache()`: the class's own method
    assert finding_lines(result, "NPU508", "tests/test_gemm_ext.py") == []


def test_a_type_factorys_name_is_no_op_name(tmp_path):
    # set 62 (FlagGems' ops/max.py): `Max_out = namedtuple("max", [...])` then `Max_out(values=v, indices=i)` builds a
    # named tuple whose type name happens to be an op's registered name (`flag_gems::max`): no op is fetched
    files = dict(REPO)
    files["csrc/bind.cpp"] += "TORCH_LIBRARY_FRAGMENT(pkg_gemm, m) {\n  m.def(\"max(Tensor x) -> Tensor\");\n}\n"
    files["pkg/reduce.py"] = (
        "import collections\nimport typing\nfrom collections import namedtuple\n\n\n"
        "def reduce_max(v, i):\n"
        "    Max_out = namedtuple(\"max\", [\"values\", \"indices\"])\n"
        "    out = Max_out(values=v, indices=i)\n"
        "    Pair = collections.namedtuple(\"max\", \"a b\")\n"
        "    T = typing.NamedTuple(\"max\", [(\"a\", int)])\n"
        "    return out, Pair(1, 2), T(1)\n")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "pkg/reduce.py") == []
