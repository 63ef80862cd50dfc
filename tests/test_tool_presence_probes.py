"""A function that runs nvcc bare only to see whether it is installed (migrate/tool_presence_probes.py; label rule
48c c-1): its run is no use of nvcc (NPU504 / NPU505); the `if` that skips the build without it is the build's gate."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

SETUP = (
    "from subprocess import DEVNULL, call\n"                                  # 1
    "from setuptools import setup\n"                                          # 2
    "from torch.utils.cpp_extension import CUDAExtension\n"                   # 3
    "def toolkit_available():\n"                                              # 4
    "    try:\n"                                                              # 5
    "        call(['nvcc'], stdout=DEVNULL, stderr=DEVNULL)\n"                # 6
    "        return True\n"                                                   # 7
    "    except FileNotFoundError:\n"                                         # 8
    "        return False\n"                                                  # 9
    "def ext_modules():\n"                                                    # 10
    "    if not toolkit_available():\n"                                       # 11
    "        return []\n"                                                     # 12
    "    return [CUDAExtension('pkg_cuda', sources=['pkg/k.cu'])]\n"          # 13
    "setup(name='pkg', ext_modules=ext_modules())\n"                          # 14
)


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")


def test_a_presence_probe_gates_the_build_and_runs_nothing(tmp_path):
    write_files(tmp_path, {"setup.py": SETUP, "pkg/k.cu": "__global__ void k(float* x) {}\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "setup.py") == [11, 13]
    assert finding_lines(result, "NPU504", "setup.py") == []


def test_a_run_given_arguments_is_no_presence_probe(tmp_path):
    # nvcc compiling a file is a build line, and the function asking it is no presence probe: no gate
    write_files(tmp_path, {"setup.py": SETUP.replace("call(['nvcc']", "call(['nvcc', 'k.cu']"),
                           "pkg/k.cu": "__global__ void k(float* x) {}\n"})
    result = _scan(tmp_path)
    assert 11 not in finding_lines(result, "NPU505", "setup.py")
    assert 6 in finding_lines(result, "NPU505", "setup.py")
