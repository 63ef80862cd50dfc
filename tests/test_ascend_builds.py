"""What the repository builds for Ascend is NPU code, not a CUDA extension (migrate/ascend_builds.py)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

# sgl-project/sgl-kernel-npu's shape: a CMake library on torch_npu / ascendcl registering `torch.ops.<ns>` ops
_ASCEND_CMAKE = ("set(OP_PLUGIN_NAME my_kernel_npu)\nadd_library(${OP_PLUGIN_NAME} SHARED ${BASE}/pytorch_extensions.cpp)\n"
                 "target_link_libraries(${OP_PLUGIN_NAME} PRIVATE torch_npu ascendcl)\n")
_CUDA_CMAKE = ("project(k LANGUAGES CXX CUDA)\nadd_library(my_kernel_npu SHARED pytorch_extensions.cpp kern.cu)\n"
               "target_link_libraries(my_kernel_npu PRIVATE torch_npu)\n")
_REGISTRATION = ("#include <torch/library.h>\nTORCH_LIBRARY_FRAGMENT(myops, m)\n{\n"
                 "    m.def(\"helloworld(Tensor x, Tensor y) -> Tensor\");\n}\n")
_LOADER = ("import os\n\nimport torch\n\n\ndef _load():\n"
           "    torch.ops.load_library(os.path.join(os.path.dirname(__file__), \"lib\", \"libmy_kernel_npu.so\"))\n\n\n"
           "_load()\n")
_USE = "import torch\n\n\ndef test_hello(x, y):\n    return torch.ops.myops.helloworld(x, y)\n"


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False)


def _repo(tmp_path, cmake, extra=None):
    files = {"csrc/CMakeLists.txt": cmake, "csrc/pytorch_extensions.cpp": _REGISTRATION,
             "python/mykern/mykern/__init__.py": _LOADER, "tests/test_hello.py": _USE}
    files.update(extra or {})
    write_files(tmp_path, files)
    return _scan(tmp_path)


def test_ops_and_a_library_built_for_ascend_are_no_cuda_extension(tmp_path):
    result = _repo(tmp_path, _ASCEND_CMAKE)
    assert finding_lines(result, "NPU508", "tests/test_hello.py") == []
    assert finding_lines(result, "NPU505", "python/mykern/mykern/__init__.py") == []


def test_ops_built_with_cuda_stay_reported(tmp_path):
    result = _repo(tmp_path, _CUDA_CMAKE, {"csrc/kern.cu": "__global__ void k() {}\n"})
    assert finding_lines(result, "NPU508", "tests/test_hello.py") == [5]
    assert finding_lines(result, "NPU505", "python/mykern/mykern/__init__.py") == [7]


def test_a_cuda_registration_of_the_namespace_keeps_it_reported(tmp_path):
    result = _repo(tmp_path, _ASCEND_CMAKE, {"csrc/cuda/ops.cu": _REGISTRATION.replace("_FRAGMENT", "")})
    assert finding_lines(result, "NPU508", "tests/test_hello.py") == [5]


def test_a_source_including_only_npu_headers_registers_npu_ops(tmp_path):
    # no Ascend build names it, but it includes torch_npu's headers and none of CUDA's
    source = "#include \"torch_npu/csrc/core/npu/NPUStream.h\"\n" + _REGISTRATION
    write_files(tmp_path, {"csrc/CMakeLists.txt": "add_library(other SHARED x.cpp)\ntarget_link_libraries(other ascendcl)\n",
                           "ops/reg.cpp": source, "tests/test_hello.py": _USE})
    assert finding_lines(_scan(tmp_path), "NPU508", "tests/test_hello.py") == []
    write_files(tmp_path, {"ops/reg.cpp": _REGISTRATION})
    assert finding_lines(_scan(tmp_path), "NPU508", "tests/test_hello.py") == [5]


# the repository's own deep_ep package beside an Ascend build of its compiled module deep_ep_cpp (the catalogue's
# deep_ep / deep_ep_cpp are DeepSeek's CUDA DeepEP)
_DEEPEP_CMAKE = ("find_package(pybind11 REQUIRED)\nfile(GLOB SOURCES_DEEPEP *.cpp)\n"
                 "pybind11_add_module(deep_ep_cpp pybind_extension.cpp ${SOURCES_DEEPEP})\n"
                 "target_link_libraries(deep_ep_cpp PRIVATE torch_python ascendcl hccl torch_npu)\n")
_DEEPEP_FILES = {"python/deep_ep/setup.py": "import setuptools\n\nsetuptools.setup(name=\"deep_ep\")\n",
                 "python/deep_ep/deep_ep/__init__.py": "from deep_ep_cpp import Config\n\nfrom .buffer import Buffer\n",
                 "python/deep_ep/deep_ep/buffer.py": "import deep_ep_cpp\n\n\nclass Buffer:\n    cfg = deep_ep_cpp.Config()\n",
                 "tests/python/deepep/test_intranode.py": "import deep_ep\n\nbuffer = deep_ep.Buffer()\n"}


def test_a_catalogued_package_the_repository_builds_for_ascend_is_its_own(tmp_path):
    write_files(tmp_path, {"csrc/deepep/CMakeLists.txt": _DEEPEP_CMAKE, "csrc/deepep/pybind_extension.cpp": "int x;\n",
                           **_DEEPEP_FILES})
    result = _scan(tmp_path)
    for code in ("NPU501", "NPU507", "NPU510"):
        assert finding_lines(result, code, "tests/python/deepep/test_intranode.py") == []
        assert finding_lines(result, code, "python/deep_ep/deep_ep/buffer.py") == []
        assert finding_lines(result, code, "python/deep_ep/deep_ep/__init__.py") == []


def test_without_an_ascend_build_the_catalogued_package_stays_reported(tmp_path):
    write_files(tmp_path, {"csrc/deepep/CMakeLists.txt": _DEEPEP_CMAKE.replace("ascendcl hccl torch_npu", "CUDA::cudart"),
                           "csrc/deepep/pybind_extension.cpp": "int x;\n", **_DEEPEP_FILES})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "tests/python/deepep/test_intranode.py") == [1]
