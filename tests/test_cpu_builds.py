"""A compiled op called off CUDA, by whether setup.py also builds its extension without CUDA (migrate/cpu_builds.py,
migrate/cpu_inputs.py, migrate/cpu_fallbacks.py; NPU508, label rulings (L79), (L89)).

The tree is written here in the shape of a geometry library whose extension builds with or without CUDA and whose
tests compare the CUDA kernel with the CPU one, not copied from any repository.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

SETUP = """\
import glob
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

sources = glob.glob("geo/csrc/*.cpp")
extension = CppExtension
if torch.cuda.is_available() and CUDA_HOME is not None:
    extension = CUDAExtension
    sources += glob.glob("geo/csrc/*.cu")
setup(name="geo", ext_modules=[extension("geo._C", sources)], cmdclass={"build_ext": BuildExtension})
"""

OPS = """\
from geo import _C


def pair_dist(points, edges):
    return _C.pair_dist(points, edges)


def find_pairs(edge_num):
    return _C.find_pairs(edge_num.cpu()).to(edge_num.device)
"""

TEST = """\
import torch
from geo import _C


def test_pair_dist_cpu_vs_cuda():
    points = torch.rand(10, 3, device="cuda")
    edges = torch.rand(5, 2, 3, device="cuda")
    points_cpu = points.clone().cpu()
    dists_cuda = _C.pair_dist(points, edges)
    dists_cpu = _C.pair_dist(points_cpu, edges.to("cpu"))
    grad_cpu = _C.pair_dist_backward(points_cpu, edges.cpu(), dists_cuda.cpu(), 5)
    mixed = _C.pair_dist(points.cuda(), edges.cpu())
    points_cpu = points
    again = _C.pair_dist(points_cpu, edges)
"""


def test_a_call_on_host_tensors_runs_the_cpu_build(tmp_path):
    write_files(tmp_path, {
        "setup.py": SETUP, "geo/__init__.py": "", "geo/csrc/ext.cpp": "// dispatch\n",
        "geo/csrc/dist.cu": "__global__ void dist(float* x) {}\n", "geo/ops.py": OPS, "tests/test_dist.py": TEST,
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the import, and the call on the caller's tensors; not `_C.find_pairs(edge_num.cpu())`, a host round trip
    assert finding_lines(result, "NPU508", "geo/ops.py") == [1, 5]
    # the CUDA comparison (9), a call mixing a CUDA placement (12) and one whose name is rebound to an unplaced tensor
    # (14) are reported; the calls on `.cpu()` / `.to("cpu")` inputs and on a name only ever bound to `.cpu()` are not
    assert finding_lines(result, "NPU508", "tests/test_dist.py") == [2, 9, 12, 14]


CUDA_ONLY_SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="det", ext_modules=[CUDAExtension("box_ops_cuda", ["src/box_ops.cpp", "src/box_ops_cpu.cpp", "src/box_ops_kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
"""

BOX_OPS = """\
import box_ops_cuda


def boxes_iou_cpu(boxes_a, boxes_b, out):
    assert not boxes_a.is_cuda, "CPU tensors only"
    box_ops_cuda.boxes_iou_cpu(boxes_a.contiguous(), boxes_b.contiguous(), out)
    return out


def boxes_iou_host(boxes_a, boxes_b, out):
    box_ops_cuda.boxes_iou_cpu(boxes_a.cpu(), boxes_b.cpu(), out)
    return out
"""


def test_an_extension_built_only_with_cuda_has_no_cpu_path(tmp_path):
    write_files(tmp_path, {
        "setup.py": CUDA_ONLY_SETUP, "src/box_ops_kernel.cu": "__global__ void iou(float* x) {}\n", "det/box_ops.py": BOX_OPS,
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # no CppExtension builds box_ops_cuda: the module does not exist without nvcc, so the op called in a function
    # named for the CPU (6) and the one given host tensors (11) are lines to port, like the import (label ruling (L89))
    assert finding_lines(result, "NPU508", "det/box_ops.py") == [1, 6, 11]


HELPER_SETUP = """\
import os
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension


def make_cuda_ext(name, module, sources, sources_cuda=[]):
    define_macros = []
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        define_macros += [("WITH_CUDA", None)]
        extension = CUDAExtension
        sources += sources_cuda
    else:
        extension = CppExtension
    return extension(name=f"{module}.{name}", sources=[os.path.join(*module.split("."), p) for p in sources],
                     define_macros=define_macros)


setup(name="det3d", ext_modules=[
    make_cuda_ext("grid_ext", "det3d.grid", ["src/grid.cpp", "src/grid_cpu.cpp"], ["src/grid_cuda.cu"]),
    make_cuda_ext("inbox_ext", "det3d.inbox", ["src/inbox.cpp", "src/inbox_cpu.cpp"], ["src/inbox_kernel.cu"]),
    make_cuda_ext("bev_ext", "det3d.bev", ["src/bev_api.cpp", "src/bev_cpu.cpp"], ["src/bev_kernel.cu"]),
], cmdclass={"build_ext": BuildExtension})
"""

GRID_BINDING = """\
#include <torch/extension.h>
#include "grid.h"
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("grid_cpu", &grid_cpu); }
"""
GRID_HEADER = "#ifdef WITH_CUDA\nint grid_gpu(at::Tensor x);\n#endif\nint grid_cpu(at::Tensor x);\n"
INBOX_BINDING = """\
#include <torch/extension.h>
int inbox_launcher(const float *boxes, int n);
int inbox_cpu(at::Tensor boxes);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("inbox_cpu", &inbox_cpu); m.def("inbox_gpu", &inbox_launcher); }
"""
BEV_BINDING = """\
#include <torch/extension.h>
#include <cuda.h>
#include "bev_cpu.h"
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("bev_iou_cpu", &bev_iou_cpu); }
"""
HOST_CALLS = """\
from det3d.grid import grid_ext
from det3d.inbox import inbox_ext
from det3d.bev import bev_ext


def grid_on_host(x):
    return grid_ext.grid_cpu(x.cpu())


def inbox_on_host(boxes):
    return inbox_ext.inbox_cpu(boxes.cpu())


def bev_iou_on_host(a, b):
    assert not (a.is_cuda or b.is_cuda)
    return bev_ext.bev_iou_cpu(a.cpu(), b.cpu())
"""


def test_a_helper_cpu_branch_is_a_cpu_build_only_where_the_binding_guards_cuda(tmp_path):
    # label ruling (L89): the helper's `else: extension = CppExtension` builds a module only where the pybind source
    # keeps the CUDA functions behind the macro (grid.h's `#ifdef WITH_CUDA`); inbox binds the `.cu` launcher with
    # no guard and no header of its own, bev includes <cuda.h> unguarded: neither exists off CUDA
    write_files(tmp_path, {
        "setup.py": HELPER_SETUP, "det3d/__init__.py": "", "det3d/grid/__init__.py": "",
        "det3d/inbox/__init__.py": "", "det3d/bev/__init__.py": "",
        "det3d/grid/src/grid.cpp": GRID_BINDING, "det3d/grid/src/grid.h": GRID_HEADER,
        "det3d/inbox/src/inbox.cpp": INBOX_BINDING, "det3d/bev/src/bev_api.cpp": BEV_BINDING,
        "det3d/ops.py": HOST_CALLS,
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the three imports, and the host calls of the two extensions without a CPU build (11, 16); not grid's (7)
    assert finding_lines(result, "NPU508", "det3d/ops.py") == [1, 2, 3, 11, 16]
