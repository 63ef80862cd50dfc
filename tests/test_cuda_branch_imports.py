"""An import in a CUDA-device branch whose name the module then reads outside every such branch guards nothing
(label ruling (L74), set 46 note 46c HALF-3/4; migrate/optional_modules.py `_used_outside_cuda_branch`). The snippets
are written for these tests."""

from migrate.engine import scan
from tests.helpers import write_files

_REPO = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(name='proj', ext_modules=[CUDAExtension('proj.nms_ext', ['csrc/nms.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"),
    "csrc/nms.cu": "__global__ void k(float* x) { x[0] = 1; }\n",
    "proj/__init__.py": "",
    "proj/nms_gpu.py": "from proj import nms_ext\n\n\ndef nms_gpu(dets, thresh):\n    return nms_ext.nms(dets, thresh)\n",
    "proj/nms_cpu.py": "def nms_cpu(dets, thresh):\n    return dets\n",
    "proj/wrapper.py": (
        "import torch\nif torch.cuda.is_available():\n    from proj.nms_gpu import nms_gpu\n"
        "from proj.nms_cpu import nms_cpu\n\n\n"
        "def nms(dets, thresh, force_cpu=False):\n"
        "    return nms_gpu(dets, thresh) if not force_cpu else nms_cpu(dets, thresh)\n"),
}


def _ext_uses(tmp_path, files):
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], jobs=1)
    return sorted(f.line for f in result.findings if f.code == "NPU508" and f.path.endswith("nms_gpu.py"))


def test_a_cuda_branch_import_called_under_a_user_switch_guards_nothing(tmp_path):
    assert _ext_uses(tmp_path, _REPO) == [1, 5]


def test_a_cuda_branch_import_called_under_the_same_check_stays_optional(tmp_path):
    files = dict(_REPO)
    files["proj/wrapper.py"] = (
        "import torch\nif torch.cuda.is_available():\n    from proj.nms_gpu import nms_gpu\n"
        "from proj.nms_cpu import nms_cpu\n\n\n"
        "def nms(dets, thresh):\n    if torch.cuda.is_available():\n        return nms_gpu(dets, thresh)\n"
        "    return nms_cpu(dets, thresh)\n")
    assert _ext_uses(tmp_path, files) == []


def test_a_name_the_other_branch_binds_too_stays_optional(tmp_path):
    files = dict(_REPO)
    files["proj/wrapper.py"] = (
        "import torch\nif torch.cuda.is_available():\n    from proj.nms_gpu import nms_gpu as nms\n"
        "else:\n    from proj.nms_cpu import nms_cpu as nms\n\n\n"
        "def run(dets, thresh):\n    return nms(dets, thresh)\n")
    assert _ext_uses(tmp_path, files) == []
