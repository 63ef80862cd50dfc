"""Uses of a compiled extension's CPU-only ops (migrate/cpu_only_ops.py) and an import probed in `try:`/`else:`
(migrate/flagged_extensions.py). A small repository written here (a setup.py CUDAExtension holding a CUDA op and a
plain C++ metric), not a copy of one.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

REPO = {
    "setup.py": (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import CUDAExtension\n\n"
        "setup(name='pkg', ext_modules=[CUDAExtension('pkg._ext', ['csrc/bind.cpp', 'csrc/metric.cpp',"
        " 'csrc/blur.cu'])])\n"
    ),
    "csrc/blur.cu": "__global__ void blur_kernel(float* x) {}\n",
    "csrc/blur.cpp": "#include <torch/extension.h>\nat::Tensor blur_cuda(at::Tensor x);\n"
                     "at::Tensor blur(at::Tensor x) { return blur_cuda(x); }\n",
    "csrc/metric.cpp": (
        "#include <vector>\n"
        "namespace pkg {\nnamespace Metric {\n"
        "double Score(const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s; }\n"
        "}  // namespace Metric\n}  // namespace pkg\n"
    ),
    "csrc/bind.cpp": (
        "#include <torch/extension.h>\n"
        "namespace pkg {\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        "  m.def(\"blur\", &blur, \"blur\");\n"
        "  m.def(\"MetricScore\", &Metric::Score, \"Metric::Score\");\n"
        "  pybind11::class_<Metric::Sample>(m, \"Sample\");\n"
        "}\n}\n"
    ),
    "pkg/__init__.py": "",
    "pkg/metric.py": (
        "from pkg import _ext\n\n\n"
        "def score(values):\n"
        "    sample = _ext.Sample()\n"
        "    return _ext.MetricScore(values)\n"
    ),
    "pkg/blur.py": (
        "from pkg import _ext\n\n\n"
        "def blur(x):\n"
        "    return _ext.blur(x)\n\n\n"
        "def score(values):\n"
        "    return _ext.MetricScore(values)\n"
    ),
    "pkg/env.py": (
        "def report():\n"
        "    data = []\n"
        "    try:\n"
        "        import pkg._ext as _ext\n"
        "    except ImportError as e:\n"
        "        data.append(('pkg._ext', f'not built: {e}'))\n"
        "    else:\n"
        "        data.append(('blur', _ext.blur))\n"
        "    return data\n"
    ),
    "pkg/env_used_after.py": (
        "def report():\n"
        "    try:\n"
        "        import pkg._ext as _ext\n"
        "    except ImportError:\n"
        "        print('failed')\n"
        "    else:\n"
        "        print('ok')\n"
        "    return _ext.blur\n"
    ),
}


def test_cpu_only_ops_and_their_import_are_not_reported(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # pkg/metric.py uses only the plain C++ metric (namespace opened only in a CUDA-free .cpp): nothing to port
    assert finding_lines(result, "NPU508", "pkg/metric.py") == []
    # a file calling the CUDA op keeps its import and that call; the metric call is dropped
    assert finding_lines(result, "NPU508", "pkg/blur.py") == [1, 5]


def test_an_import_probed_with_an_else_is_optional(tmp_path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "pkg/env.py") == []
    # the name read after the try (where the failed import leaves it unbound) keeps the import and its use reported
    assert finding_lines(result, "NPU508", "pkg/env_used_after.py") == [3, 8]


def test_a_metric_namespace_that_mentions_cuda_is_not_cpu_only(tmp_path):
    files = dict(REPO)
    files["csrc/metric.cpp"] = files["csrc/metric.cpp"].replace("#include <vector>", "#include <cuda_runtime.h>")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert finding_lines(result, "NPU508", "pkg/metric.py") == [1, 5, 6]


# a C++ class bound unqualified in a pybind submodule (`class_<Grid>(conv, "Grid")`, its methods `&Grid::refine`), defined
# only in a CUDA-free .h/.cpp pair, beside a CUDA op of the same submodule
CLASS_REPO = {
    "setup.py": REPO["setup.py"].replace("'csrc/metric.cpp'", "'csrc/grid.cpp'"),
    "csrc/blur.cu": REPO["csrc/blur.cu"],
    "csrc/grid.h": "#include <torch/extension.h>\nnamespace pkg {\nstruct Grid : torch::CustomClassHolder {\n"
                   "  Grid(int res);\n  at::Tensor refine(at::Tensor v);\n  int res;\n};\n}\n",
    "csrc/grid.cpp": "#include \"grid.h\"\nnamespace pkg {\nGrid::Grid(int r) : res(r) {}\n"
                     "at::Tensor Grid::refine(at::Tensor v) { return v * 2; }\n}\n",
    "csrc/bind.cpp": (
        "#include <torch/extension.h>\n#include \"grid.h\"\n"
        "namespace pkg {\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
        "  py::module conv = m.def_submodule(\"conv\");\n"
        "  conv.def(\"blur_cuda\", &blur_cuda);\n"
        "  py::class_<Grid>(conv, \"Grid\")\n"
        "    .def(py::init<int>())\n"
        "    .def(\"refine\", &Grid::refine);\n"
        "}\n}\n"
    ),
    "pkg/__init__.py": "",
    "pkg/grid.py": (
        "from pkg import _ext\n\n\n"
        "def refine(values, res):\n"
        "    grid = _ext.conv.Grid(res)\n"
        "    return grid.refine(values)\n\n\n"
        "def blur(x):\n"
        "    return _ext.conv.blur_cuda(x)\n"
    ),
}


def test_a_cpu_only_class_bound_unqualified_and_its_methods_are_not_reported(tmp_path):
    write_files(tmp_path, CLASS_REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the class and the object's method go; the CUDA op of the same submodule and the import stay
    assert finding_lines(result, "NPU508", "pkg/grid.py") == [1, 10]
