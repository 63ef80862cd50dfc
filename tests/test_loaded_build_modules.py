"""A setup.py loading its extensions' build modules by path (migrate/loaded_build_modules.py): a local install of
its folder is a CUDA build's install (NPU502; set 46 d: setup.py importing each listed folder's extension.py)."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

# each listed folder holds an `extension.py` whose get_ext() returns its extension; the setup.py imports them by name
_SETUP = ("import importlib, sys\nfrom pathlib import Path\nfrom setuptools import setup\n"
          "EXTENSION_DIRS = [\n    'qnn/layers/binary/cuda',\n    'qnn/layers/binary/cpp',\n]\n\n"
          "def get_ext_modules():\n    out = []\n    for ext_dir in EXTENSION_DIRS:\n"
          "        module = importlib.import_module((ext_dir + '/extension').replace('/', '.'))\n"
          "        out.append(module.get_ext(Path(ext_dir)))\n    return out\n\n"
          "setup(name='qnn', ext_modules=get_ext_modules())\n")
_CUDA_EXT = ("from torch.utils.cpp_extension import CUDAExtension\n\ndef get_ext(path):\n"
             "    return CUDAExtension('binary_cuda', [str(path / 'binary.cpp'), str(path / 'binary_kernel.cu')])\n")
_CPP_EXT = ("from torch.utils.cpp_extension import CppExtension\n\ndef get_ext(path):\n"
            "    return CppExtension('binary_cpp', [str(path / 'binary.cpp')])\n")


def _scan(path):
    return scan([str(path)], use_cache=False, torch_npu_version=NEWEST)


def test_a_setup_py_importing_its_extension_folders_build_modules_builds_cuda(tmp_path):
    root = tmp_path / "qnn"
    root.mkdir()
    write_files(root, {
        "setup.py": _SETUP, "qnn/layers/binary/cuda/extension.py": _CUDA_EXT,
        "qnn/layers/binary/cuda/binary_kernel.cu": "__global__ void k(float* x) {}\n",
        "qnn/layers/binary/cpp/extension.py": _CPP_EXT,
        "install.sh": 'pip install -e ".[dev]" -v\n',
        "docker/Dockerfile": ('FROM base\nARG GIT_URL="https://github.com/owner/qnn.git"\nARG BUILD_TARGET="."\n'
                              'RUN git clone \\\n    --depth 1 \\\n    "${GIT_URL}" \\\n    /qnn && \\\n'
                              '  cd /qnn && \\\n  FORCE_CUDA="true" pip install -e ${BUILD_TARGET} -v\n'),
    })
    result = _scan(root)
    assert finding_lines(result, "NPU502", "install.sh") == [1]
    assert finding_lines(result, "NPU502", "docker/Dockerfile") == [9]


def test_a_setup_py_naming_folders_without_loading_them_or_cpu_folders_only_is_no_cuda_build(tmp_path):
    # the folders only named (data files), or the dynamic import reaching only the C++ extension's folder
    write_files(tmp_path, {
        "a/setup.py": "from setuptools import setup\nsetup(name='a', package_data={'a': ['qnn/layers/binary/cuda']})\n",
        "a/qnn/layers/binary/cuda/extension.py": _CUDA_EXT, "a/install.sh": "pip install .\n",
        "b/setup.py": _SETUP.replace("    'qnn/layers/binary/cuda',\n", ""),
        "b/qnn/layers/binary/cuda/extension.py": _CUDA_EXT, "b/qnn/layers/binary/cpp/extension.py": _CPP_EXT,
        "b/install.sh": "pip install .\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "a/install.sh") == []
    assert finding_lines(result, "NPU502", "b/install.sh") == []

