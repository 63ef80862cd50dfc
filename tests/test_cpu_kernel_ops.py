"""Registered ops with only a CPU kernel in an extension that also has a CPU build (migrate/cpu_kernel_ops.py; label
rule 48a a-3): their `torch.ops` uses are off CUDA; an op whose CUDA branch runs a kernel stays reported."""

from __future__ import annotations

from migrate import cpu_kernel_ops
from migrate.engine import scan
from tests.helpers import finding_lines, write_files

SAMPLE_CPP = """#include <torch/script.h>
#include "cpu/sample_cpu.h"
#ifdef WITH_CUDA
#include "cuda/walk_cuda.h"
#endif

std::tuple<torch::Tensor, torch::Tensor> sample(torch::Tensor rowptr, torch::Tensor idx) {
  if (rowptr.device().is_cuda()) {
#ifdef WITH_CUDA
    AT_ERROR("No CUDA version supported");
#else
    AT_ERROR("Not compiled with CUDA support");
#endif
  } else {
    return sample_cpu(rowptr, idx);
  }
}

torch::Tensor hop(torch::Tensor rowptr) {
  return hop_cpu(rowptr);  // the CPU kernel only
}

torch::Tensor walk(torch::Tensor rowptr) {
  if (rowptr.device().is_cuda()) {
#ifdef WITH_CUDA
    return walk_cuda(rowptr);
#else
    AT_ERROR("Not compiled with CUDA support");
#endif
  } else {
    return walk_cpu(rowptr);
  }
}

torch::Tensor spmm(torch::Tensor a) {
  return SpmmSum::apply(a)[0];
}

static auto registry = torch::RegisterOperators()
    .op("graph::sample", &sample)
    .op("graph::hop", &hop)
    .op("graph::walk", &walk)
    .op("graph::spmm", &spmm);
"""

SETUP = (
    "import glob\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
    "exts = []\nfor suffix in ['cpu', 'cuda']:\n    Extension = CppExtension if suffix == 'cpu' else CUDAExtension\n"
    "    srcs = glob.glob('csrc/*.cpp') + (glob.glob('csrc/cuda/*.cu') if suffix == 'cuda' else [])\n"
    "    exts += [Extension(f'graph._ops_{suffix}', srcs)]\n"
    "setup(name='graph', ext_modules=exts)\n"
)


def test_the_registered_functions_with_only_a_cpu_kernel():
    names = [d.name for d in cpu_kernel_ops.cpp_facts("csrc/sample.cpp", SAMPLE_CPP)]
    assert names == ["cpukernelop:graph::sample", "cpukernelop:graph::hop"]


def test_calls_of_cpu_kernel_ops_are_off_cuda(tmp_path):
    write_files(tmp_path, {
        "setup.py": SETUP,
        "csrc/sample.cpp": SAMPLE_CPP,
        "csrc/cuda/walk_cuda.cu": "__global__ void k(float* x) {}\n",
        "graph/__init__.py": "",
        "graph/ops.py": (
            "import torch\n"
            "def sample(rowptr, idx):\n    return torch.ops.graph.sample(rowptr.cpu(), idx.cpu())\n"
            "def walk(rowptr):\n    return torch.ops.graph.walk(rowptr)\n"
            "hop = torch.ops.graph.hop\n"
            "def hops(rowptr):\n    return hop(rowptr)\n"),
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU508", "graph/ops.py") == [5]
