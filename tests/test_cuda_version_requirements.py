"""NPU505: the lines of a setup.py that stop the build on a missing or old CUDA toolkit (label ruling (L35)): the raise
under `if CUDA_HOME is None:` in a file that builds CUDA, and each raise of the version requirement nvcc's probed
version decides, also under a nested architecture check (vLLM-style setup.py: mit-han-lab/omniserve kernels/setup.py).

Static tests: torch is never imported here.
"""

from __future__ import annotations

from tests.rule_helpers import analyze
from tests.rule_helpers import of_code as codes

SETUP = (
    "import subprocess\n"                                                           # 1
    "from packaging.version import Version, parse\n"                                # 2
    "from torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\n"              # 3
    "if CUDA_HOME is None:\n"                                                       # 4
    "    raise RuntimeError('Cannot find CUDA_HOME. CUDA must be available.')\n"    # 5
    "def get_nvcc_cuda_version(cuda_dir):\n"                                        # 6
    "    out = subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'], universal_newlines=True).split()\n"  # 7
    "    return parse(out[out.index('release') + 1].split(',')[0])\n"              # 8
    "caps = {'8.0', '8.6', '9.0'}\n"                                                # 9
    "nvcc_cuda_version = get_nvcc_cuda_version(CUDA_HOME)\n"                        # 10
    "if nvcc_cuda_version < Version('11.1'):\n"                                     # 11
    "    caps.remove('8.6')\n"                                                      # 12
    "if nvcc_cuda_version < Version('11.0'):\n"                                     # 13
    "    raise RuntimeError('CUDA 11.0 or higher is required to build the package.')\n"  # 14
    "if nvcc_cuda_version < Version('11.8'):\n"                                     # 15
    "    if any(cc.startswith('8.9') for cc in caps):\n"                            # 16
    "        warnings.warn('Targeting compute capability 8.0 instead.')\n"          # 17
    "    if any(cc.startswith('9.0') for cc in caps):\n"                            # 18
    "        raise RuntimeError('CUDA 11.8 or higher is required for compute capability 9.0.')\n"  # 19
    "ext = CUDAExtension('m', ['k.cpp', 'k.cu'])\n"                                 # 20
)


def test_the_raises_that_stop_a_cuda_build_are_reported_not_the_tests_of_the_version():
    lines = sorted(f.line for f in codes(analyze(SETUP, "setup.py"), "NPU505"))
    assert {5, 14, 19} <= set(lines)
    # the tests of the probed version are no lines of their own, nor a check that only warns or picks architectures
    assert not {11, 12, 13, 15, 16, 17, 18} & set(lines)
    # the test of the toolkit's home is a line (label ruling (L37)), so is the probe handed `CUDA_HOME`
    assert {4, 10} <= set(lines)


def test_a_raise_under_the_toolkit_test_of_a_file_that_builds_nothing_is_not_reported():
    text = "from torch.utils.cpp_extension import CUDA_HOME\nif CUDA_HOME is None:\n    raise RuntimeError('set CUDA_HOME')\n"
    assert [f.line for f in codes(analyze(text), "NPU505")] == [2]


def test_a_build_function_raising_on_an_old_nvcc_is_no_toolkit_locator():
    # Mzero's selective_scan setup.py (TerryPei/EfficientVMamba, labels 69c): `def get_ext():` raises on an old nvcc and
    # names nvcc only as its flags key; `ext_modules = get_ext()` is not the build's gate (the raise is the version
    # requirement), unlike py-faster-rcnn's `CUDA = locate_cuda()`
    source = ("import subprocess\n"                                                     # 1
              "from packaging.version import Version, parse\n"
              "from setuptools import setup\n"
              "from torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\n"
              "def get_cuda_bare_metal_version(cuda_dir):\n"                             # 5
              "    out = subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'], universal_newlines=True).split()\n"
              "    return parse(out[out.index('release') + 1].split(',')[0])\n"
              "def get_ext():\n"
              "    if CUDA_HOME is not None:\n"
              "        version = get_cuda_bare_metal_version(CUDA_HOME)\n"                # 10
              "        if version < Version('11.6'):\n"
              "            raise RuntimeError('nvcc 11.6 or newer')\n"                      # 12
              "    return [CUDAExtension(name='m', sources=['m.cu'],\n"                   # 13
              "                          extra_compile_args={'cxx': ['-O3'], 'nvcc': ['-O3']})]\n"  # 14
              "ext_modules = get_ext()\n"                                                   # 15
              "setup(name='m', ext_modules=ext_modules)\n")
    lines = sorted({f.line for f in codes(analyze(source, filename="setup.py"), "NPU505")})
    assert 12 in lines and 13 in lines and 14 in lines
    assert 15 not in lines
