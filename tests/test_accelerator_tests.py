"""Label ruling (L50), set 40 note 40d-1: a CUDA test asked of DeepSpeed's device-pluggable accelerator
(`get_accelerator().device_name() == 'cuda'`) is the CUDA side of a chain that handles the NPU: the abstraction answers
"npu" there (migrate/accelerator_tests.py). The snippets are written for these tests."""

from migrate.engine import scan
from tests.helpers import write_files

_REPO = {
    "proj/__init__.py": "",
    "proj/optim.py": (
        "from deepspeed.accelerator import get_accelerator\n"
        "if get_accelerator().device_name() == 'cuda':\n"
        "    from apex.optimizers import FusedAdam as Adam\n"
        "    from apex.multi_tensor_apply import multi_tensor_applier\n"
        "    import amp_C\n"
        "else:\n"
        "    from torch.optim import Adam\n\n\n"
        "def scale(grads, coeff, buf):\n"
        "    if get_accelerator().device_name() == 'cuda' and buf is not None:\n"
        "        multi_tensor_applier(amp_C.multi_tensor_scale, buf, [grads, grads], coeff)\n"
        "    else:\n"
        "        for g in grads:\n"
        "            g.mul_(coeff)\n\n\n"
        "def setup():\n"
        "    if not get_accelerator().device_name() == 'cuda':\n"
        "        return\n"
        "    from apex.normalization import FusedLayerNorm\n"
        "    return FusedLayerNorm(8)\n"),
    "proj/norms.py": (
        "from deepspeed.accelerator import get_accelerator\n"
        "if get_accelerator().device_name() == 'cuda':\n"
        "    from apex.normalization import MixedFusedRMSNorm as RMSNorm\n"
        "else:\n"
        "    from .rmsnorm import RMSNorm\n"),
    "proj/rmsnorm.py": "import torch\n\n\nclass RMSNorm(torch.nn.Module):\n    pass\n",
    "proj/model.py": "from .norms import RMSNorm\n\n\ndef build():\n    return RMSNorm(8)\n",
}

_CODES = {"NPU501", "NPU507", "NPU510"}


def _findings(root):
    return sorted((f.path.replace("\\", "/").split("/")[-1], f.line, f.code)
                  for f in scan([str(root)], use_cache=False).findings if f.code in _CODES)


def test_cuda_branch_of_a_pluggable_accelerator_test_is_no_finding(tmp_path):
    write_files(tmp_path, _REPO)
    assert _findings(tmp_path) == []


def test_an_import_outside_the_cuda_branch_stays_reported(tmp_path):
    files = dict(_REPO)
    files["proj/optim.py"] += "\n\nfrom apex.optimizers import FusedLAMB\n"
    write_files(tmp_path, files)
    assert ("optim.py", 25, "NPU501") in _findings(tmp_path)


def test_a_project_function_named_like_the_factory_is_no_abstraction(tmp_path):
    files = dict(_REPO)
    files["proj/accel.py"] = "def get_accelerator():\n    return None\n"
    files["proj/optim.py"] = files["proj/optim.py"].replace("from deepspeed.accelerator import", "from .accel import")
    write_files(tmp_path, files)
    found = _findings(tmp_path)
    assert ("optim.py", 3, "NPU501") in found and ("optim.py", 12, "NPU507") in found


def test_a_module_imported_in_the_cuda_branch_and_by_its_own_unit_test_is_no_finding(tmp_path):
    files = dict(_REPO)
    files["proj/norms.py"] = files["proj/norms.py"].replace(
        "    from apex.normalization import MixedFusedRMSNorm as RMSNorm\n",
        "    from apex.normalization import MixedFusedRMSNorm as RMSNorm\n    from .fused_ln import FusedLN\n")
    files["proj/fused_ln.py"] = (
        "import torch\nfrom apex.normalization.fused_layer_norm import FusedLayerNormAffineFunction\n\n\n"
        "class FusedLN(torch.nn.Module):\n    def forward(self, x):\n"
        "        return FusedLayerNormAffineFunction.apply(x, self.weight, self.bias, (8,), 1e-5)\n")
    files["tests/test_fused_ln.py"] = "from proj.fused_ln import FusedLN\n\n\ndef test_ln():\n    FusedLN()\n"
    write_files(tmp_path, files)
    assert [f for f in _findings(tmp_path) if f[0] == "fused_ln.py"] == []
    files["proj/other.py"] = "from proj.fused_ln import FusedLN\n"  # a product importer outside the branch keeps it
    write_files(tmp_path, files)
    assert ("fused_ln.py", 2, "NPU501") in _findings(tmp_path)


_EXT_REPO = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(name='proj', ext_modules=[CUDAExtension('fastq_kernels', ['csrc/q.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"),
    "csrc/q.cu": "__global__ void k(float* x) { x[0] = 1; }\n",
    "proj/__init__.py": "",
    "proj/select.py": (
        "try:\n    import fastq_kernels\n    FASTQ_KERNELS_AVAILABLE = True\nexcept ImportError:\n"
        "    FASTQ_KERNELS_AVAILABLE = False\n\n\n"
        "def linear_class(bits):\n    if bits == 4 and FASTQ_KERNELS_AVAILABLE:\n"
        "        from .fastq import QuantLinear\n    else:\n        from .plain import QuantLinear\n"
        "    return QuantLinear\n"),
    "proj/fastq.py": (
        "from fastq_kernels import q4_matmul\n\n\nclass QuantLinear:\n"
        "    def forward(self, x, out):\n        q4_matmul(x, self.q, out)\n        return out\n"),
    "proj/plain.py": "class QuantLinear:\n    def forward(self, x, out):\n        return x\n",
}


def _ext_uses(root):
    return sorted((f.path.replace("\\", "/").split("/")[-1], f.line)
                  for f in scan([str(root)], use_cache=False).findings if f.code == "NPU508")


def test_extension_uses_of_a_module_reached_only_behind_an_availability_flag_are_no_findings(tmp_path):
    """Vendored-AutoGPTQ-like: the exllama layer is imported only under its kernels' availability flag (note 40d-9)."""
    write_files(tmp_path, _EXT_REPO)
    assert [u for u in _ext_uses(tmp_path) if u[0] == "fastq.py"] == []
    files = dict(_EXT_REPO)
    files["proj/model.py"] = "from .fastq import QuantLinear\n"  # an unguarded way in keeps them
    write_files(tmp_path, files)
    assert ("fastq.py", 1) in _ext_uses(tmp_path)
