"""A C++ test harness whose setup.py picks the extension class from a table of source sets keyed by build target
(migrate/source_set_tables.py; label note 45b-9). A small repository written here, not a copy of one.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

REPO = {
    "tests/cpp/setup.py": (
        "import sys\n"
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\n\n"
        "SOURCE_SETS = {\n"
        "    'conv_cpu': [CppExtension, ['conv_test.cpp'], ['-DCPU_ONLY']],\n"
        "    'conv_gpu': [CUDAExtension, ['conv_test.cu'], []],\n"
        "    'key': [CppExtension, ['key_test.cpp'], []],\n"
        "}\n"
        "target = [a for a in sys.argv if a.startswith('--test=')][0].split('=')[1]\n"
        "Extension = SOURCE_SETS[target][0]\n"
        "setup(name='MyLibTest', ext_modules=[Extension(name='MyLibTest._C', sources=SOURCE_SETS[target][1])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    ),
    "tests/cpp/conv_test.cu": "__global__ void conv_kernel(float* x) {}\n",
    "tests/cpp/conv_gpu_test.py": (
        "import MyLibTest._C as _C\n\n\n"
        "def test_conv():\n"
        "    manager = _C.CoordinateMapManager()\n"
        "    return _C.conv_fwd(manager)\n"
    ),
    "tests/cpp/conv_cpu_test.py": (
        "import MyLibTest._C as _C\n\n\n"
        "def test_conv():\n"
        "    return _C.conv_fwd(_C.CoordinateMapManager())\n"
    ),
    "tests/cpp/test_key.py": "import MyLibTest._C as _C\n\nkey = _C.CoordinateMapKey(3)\n",
}


def test_the_cuda_targets_module_is_reported_where_a_cpu_targets_test_is_not(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "tests/cpp/conv_gpu_test.py") == [1, 5, 6]
    # named for the targets whose class is CppExtension: the CPU build of the same module
    assert finding_lines(result, "NPU508", "tests/cpp/conv_cpu_test.py") == []
    assert finding_lines(result, "NPU508", "tests/cpp/test_key.py") == []


def test_a_table_of_cpu_builds_only_defines_no_cuda_module(tmp_path):
    files = dict(REPO)
    files["tests/cpp/setup.py"] = files["tests/cpp/setup.py"].replace("'conv_gpu': [CUDAExtension", "'conv_gpu': [CppExtension")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "tests/cpp/conv_gpu_test.py") == []


def test_an_install_of_a_cpu_target_builds_no_cuda(tmp_path):
    # a launcher building one target at a time (label note 45b b-1): `--test=conv_gpu` installs the CUDA build;
    # `--test=conv_cpu` / `--test=key` pick CppExtension rows of the table, no CUDA
    files = dict(REPO)
    files["tests/cpp/run_all.sh"] = (
        "rm -rf build; python setup.py install --test=conv_cpu\npython -m unittest conv_cpu_test\n"
        "rm -rf build; python setup.py install --test=conv_gpu\npython -m unittest conv_gpu_test\n"
        "rm -rf build; python setup.py install --test=key\n"
    )
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU502", "tests/cpp/run_all.sh") == [3]
