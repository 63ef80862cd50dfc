"""Label ruling (L50): CUDA op builders reached only through the repository's own accelerator abstraction, which has an
NPU side (migrate/accelerator_builders.py). The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import write_files

_ACCEL = {
    "proj/accelerator/cuda_accelerator.py": (
        "from .abstract import Accelerator\n\n\nclass CUDA_Accelerator(Accelerator):\n"
        "    def op_builder_dir(self):\n        try:\n            from op_builder import __proj__\n"
        "            return 'op_builder'\n        except ImportError:\n            return 'proj.ops.op_builder'\n"),
    "proj/accelerator/npu_accelerator.py": (
        "import torch_npu\nfrom .abstract import Accelerator\n\n\nclass NPU_Accelerator(Accelerator):\n"
        "    def op_builder_dir(self):\n        try:\n            from op_builder import __proj__\n"
        "            return 'op_builder.npu'\n        except ImportError:\n            return 'proj.ops.op_builder.npu'\n"),
    "proj/accelerator/real_accelerator.py": (
        "from .cuda_accelerator import CUDA_Accelerator\nfrom .npu_accelerator import NPU_Accelerator\n\n\n"
        "def get_accelerator():\n    import importlib.util\n"
        "    if importlib.util.find_spec('torch_npu'):\n        return NPU_Accelerator()\n    return CUDA_Accelerator()\n"),
    "op_builder/__init__.py": "",
    "op_builder/builder.py": (
        "import torch\nfrom torch.utils.cpp_extension import CUDA_HOME\n\n\nclass CUDAOpBuilder:\n"
        "    def builder(self):\n        from torch.utils.cpp_extension import CUDAExtension\n"
        "        assert CUDA_HOME is not None\n        return CUDAExtension(name=self.NAME, sources=self.sources(),\n"
        "                             extra_compile_args={'nvcc': ['-O3']})\n"),
    "op_builder/fused_adam.py": (
        "from .builder import CUDAOpBuilder\n\n\nclass FusedAdamBuilder(CUDAOpBuilder):\n    NAME = 'fused_adam'\n\n"
        "    def sources(self):\n        return ['csrc/adam/fused_adam.cu']\n"),
    "op_builder/fused_ln.py": (
        "from .builder import CUDAOpBuilder\n\n\nclass FusedLnBuilder(CUDAOpBuilder):\n    NAME = 'fused_ln'\n\n"
        "    def sources(self):\n        return ['csrc/ln/fused_ln.cu']\n"),
    "op_builder/npu/__init__.py": "",
    "op_builder/npu/fused_adam.py": "import torch_npu\n\n\nclass FusedAdamBuilder:\n    NAME = 'fused_adam'\n",
    "csrc/adam/fused_adam.cu": "__global__ void adam_kernel(float* p) { p[threadIdx.x] = 0; }\n",
    "csrc/ln/fused_ln.cu": "__global__ void ln_kernel(float* p) { p[threadIdx.x] = 0; }\n",
    # a copyright script lists every `*.cu` for its header check: it builds nothing
    "scripts/fix_headers.py": "import glob\n\nFILES = glob.glob('**/*.cu', recursive=True)\n",
}


def _found(root):
    return sorted((f.path.replace("\\", "/").split("/", 1)[-1] if f.path.startswith(".") else f.path, f.code)
                  for f in scan([str(root)], use_cache=False).findings)


def test_cuda_builders_behind_an_accelerator_with_an_npu_side_are_no_findings(tmp_path):
    write_files(tmp_path, _ACCEL)
    found = [(p.split(str(tmp_path))[-1].lstrip("/"), c) for p, c in _found(tmp_path)]
    assert not [f for f in found if f[0].startswith(("op_builder/", "csrc/"))], found


def test_a_builder_module_imported_directly_stays_reported(tmp_path):
    # proj/train.py loads the layer-norm builder by its own module: that code bypasses the abstraction
    write_files(tmp_path, {**_ACCEL, "proj/train.py": "from proj.ops.op_builder.fused_ln import FusedLnBuilder\n\n"
                                                 "ln = FusedLnBuilder().load()\n"})
    found = [(p.split(str(tmp_path))[-1].lstrip("/"), c) for p, c in _found(tmp_path)]
    assert ("csrc/ln/fused_ln.cu", "NPU506") in found, found
    assert ("csrc/adam/fused_adam.cu", "NPU506") not in found, found


def test_without_an_npu_side_the_builders_stay_reported(tmp_path):
    files = {k: v for k, v in _ACCEL.items() if "npu" not in k}
    files["proj/accelerator/real_accelerator.py"] = (
        "from .cuda_accelerator import CUDA_Accelerator\n\n\ndef get_accelerator():\n    return CUDA_Accelerator()\n")
    write_files(tmp_path, files)
    found = [(p.split(str(tmp_path))[-1].lstrip("/"), c) for p, c in _found(tmp_path)]
    assert ("csrc/adam/fused_adam.cu", "NPU506") in found, found
    assert any(p == "op_builder/builder.py" for p, _ in found), found
