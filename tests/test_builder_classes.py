"""migrate/builder_classes.py: compiled modules an op-builder class's method JIT-builds (NPU508)."""

from migrate.engine import scan

BASE = (
    "from torch.utils.cpp_extension import load\n"
    "class OpBuilder:\n"
    "    def load(self):\n"
    "        return self.jit_load()\n"
    "    def jit_load(self):\n"
    "        mod = load(name=self.name, sources=self.sources(), extra_cuda_cflags=self.nvcc_args())\n"
    "        return mod\n"
)
CUDA = "from .builder import OpBuilder\nclass AdamBuilder(OpBuilder):\n    def sources(self):\n        return ['adam.cpp', 'adam.cu']\n"
CPP = "from .builder import OpBuilder\nclass UtilBuilder(OpBuilder):\n    def sources(self):\n        return ['util.cpp']\n"
USE = (
    "from ops.op_builder import AdamBuilder, UtilBuilder\n"
    "_mod = None\n"
    "class Adam:\n"
    "    def __init__(self):\n"
    "        self.ext = AdamBuilder().load()\n"
    "        util = UtilBuilder().load()\n"
    "        util.flatten(1)\n"
    "    def step(self):\n"
    "        self.ext.adam_update(1)\n"
    "def run():\n"
    "    global _mod\n"
    "    builder = AdamBuilder()\n"
    "    _mod = builder.load()\n"
    "def other():\n"
    "    return _mod.adam_update(2)\n"
)


def _npu508(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((r.path.rsplit("/", 1)[-1], f.line) for r in result.files for f in r.findings if f.code == "NPU508")


def test_builder_class_sites(tmp_path):
    found = _npu508(tmp_path, {"op_builder/builder.py": BASE, "op_builder/adam.py": CUDA,
                               "op_builder/util.py": CPP, "ops/adam.py": USE})
    # the bindings and calls of the CUDA builder's module; none of the C++-only builder's
    assert found == [("adam.py", 5), ("adam.py", 9), ("adam.py", 13), ("adam.py", 15)]


def test_no_cuda_source_no_site(tmp_path):
    assert _npu508(tmp_path, {"op_builder/builder.py": BASE, "op_builder/util.py": CPP, "ops/adam.py": USE}) == []
