"""A shared library a shell script links with nvcc, loaded with ctypes and called through (migrate/nvcc_libraries.py)."""

from __future__ import annotations

from migrate import nvcc_libraries, verdict
from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"
REPOSITORY = {
    "kernels/build.sh": (
        "#!/bin/bash\n"
        "nvcc -std=c++17 --compiler-options -fPIC --shared gemm.cu -lcuda \\\n"
        "    -gencode=arch=compute_80,code=compute_80 -o libgemm.so\n"
        "nvcc -c helpers.cu -o helpers.o  # an object, linked by another build\n"
        "nvcc --version\n"
    ),
    "kernels/gemm.cu": "__global__ void gemm_int8(char* a) {}\n",
    "model.py": (
        "import ctypes\nimport torch\n"
        "gemm_lib = ctypes.CDLL('kernels/libgemm.so')\n"
        "other = ctypes.CDLL('libm.so')\n"
        "def gemm(a, out):\n"
        "    gemm_lib.gemm_int8(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(out.data_ptr()))\n"
        "    other.cos(1.0)\n"
        "    return out\n"
    ),
    # a Python module of the library's stem is not the library
    "gemm.py": "def run():\n    pass\n",
    "main.py": "import gemm\ngemm.run()\n",
}


def test_facts_name_the_shared_library_an_nvcc_command_links():
    defs = nvcc_libraries.facts("kernels/build.sh", REPOSITORY["kernels/build.sh"])
    assert [(d.name, d.line, d.cuda, d.mode) for d in defs] == [("libgemm.so", 2, True, "library")]
    assert nvcc_libraries.facts("make.sh", "nvcc -c k.cu -o k.o\ng++ -shared k.o -o libk.so\n") == []


def test_the_ctypes_load_and_the_calls_through_it_are_extension_uses(tmp_path):
    write_files(tmp_path, REPOSITORY)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "model.py") == [3, 6]  # not libm, not its call
    assert finding_lines(result, "NPU508", "main.py") == []
    rows = {r["extension"]: r for r in verdict.summary(result)["kernels_to_port"]}
    assert rows["libgemm.so"]["built_at"].endswith("kernels/build.sh:2")


def test_a_python_build_step_linking_the_library_with_nvcc_names_it_too(tmp_path):
    # label note 67a (DeepLink-org/DLBlas tests/kernels/cutlass/test_fp8_convert.py): `subprocess.check_call('nvcc
    # k.cu -shared ... -o k.so', shell=True)` in a Python test, then `ctypes.CDLL('k.so')`: the load is an extension use
    write_files(tmp_path, {
        "k.cu": "__global__ void k(float* x) {}\n",
        "test_k.py": ("import ctypes\nimport subprocess\n"
                      "subprocess.check_call('nvcc k.cu -shared -std=c++17 --compiler-options=-fPIC -o k.so', shell=True)\n"
                      "lib = ctypes.CDLL('./k.so')\nlib.launch(1)\n"),
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "test_k.py") == [4, 5]
