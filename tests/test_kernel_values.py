"""Issue 24: values standing for compiled CUDA code followed across a repository's own modules
(migrate/kernel_values.py), lines inside multi-line build calls (NPU505), and the open-world
inventory (migrate/deps.py): dependencies npu-migrate does not know, kernels to port.

The fixtures are small multi-file repositories written here, shaped like the layouts read in real
repositories (a JIT-built `_backend` re-imported by sibling modules; a `make_cuda_ext` helper in
setup.py; a JIT module named like its own package file), not copies of them.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from migrate import verdict
from migrate.engine import scan
from migrate.report import sarif, text
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"


def _scan(tmp_path):
    return scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)


def _cuda_setup(name: str, ext: str, sources: list[str]) -> str:
    """A setup.py building one CUDAExtension, as the extension folders of the launcher tests have it."""
    return ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
            f"setup(name={name!r}, ext_modules=[CUDAExtension({ext!r}, {sources!r})],\n"
            "      cmdclass={'build_ext': BuildExtension})\n")


# ---- a module variable bound to a JIT build, imported by its siblings ------------------------------------
JIT_BACKEND = {
    "enc/__init__.py": "from .grid import GridEncoder\n",
    "enc/backend.py": (
        "import os\nfrom torch.utils.cpp_extension import load\n"
        "_src = os.path.dirname(__file__)\n"
        "flags = ['-O3']\n"
        "_backend = load(name='_grid_encoder',\n"
        "                extra_cuda_cflags=flags,\n"
        "                sources=[os.path.join(_src, 'src', f) for f in [\n"
        "                    'gridencoder.cu',\n"
        "                    'bindings.cpp',\n"
        "                ]],\n"
        "                )\n"
        "__all__ = ['_backend']\n"
    ),
    "enc/grid.py": (
        "import torch\n"
        "from .backend import _backend\n"
        "class GridEncoder(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        out = torch.empty_like(x)\n"
        "        _backend.grid_encode_forward(x, out)\n"
        "        return out\n"
    ),
    "enc/src/gridencoder.cu": "__global__ void k(float* x) {}\n",
    "enc/src/bindings.cpp": "// pybind11 bindings\n",
    "train.py": "import acme_imaging as ai\nfrom enc import GridEncoder\nimport flash_attn\n",
}


def test_a_variable_bound_to_a_jit_build_is_followed_into_the_modules_that_import_it(tmp_path):
    write_files(tmp_path, JIT_BACKEND)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "enc/grid.py") == [2, 6]
    messages = [f.message for f in result.findings if f.code == "NPU508"]
    assert all("`_grid_encoder`" in m and "enc/backend.py:5" in m for m in messages)
    # the JIT build's own lines: the call, the nvcc flags keyword, the .cu source line
    assert finding_lines(result, "NPU505", "enc/backend.py") == [5, 6, 8]


def test_a_from_import_of_the_extension_does_not_bind_its_name_in_the_importing_module(tmp_path):
    # `from cmult import sym_fwd` binds `sym_fwd` only; the module's own `def cmult` (a Python wrapper named like the
    # extension) is what `from cauchy import cmult` elsewhere imports (label rule 39b-5)
    write_files(tmp_path, {
        "cauchy.py": (
            "try:\n"
            "    from cmult import sym_fwd\n"
            "except ImportError:\n"
            "    from torch.utils.cpp_extension import load\n"
            "    ext = load(name='cmult', sources=['cmult_cuda.cu'])\n"
            "    sym_fwd = ext.sym_fwd\n"
            "\n\n"
            "def cmult(v):\n"
            "    return sym_fwd(v)\n"
        ),
        "cmult_cuda.cu": "__global__ void k(float* x) {}\n",
        "bench.py": "from cauchy import cmult\ncmult(1)\n",
        "direct.py": "import cmult\ncmult.sym_fwd(1)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "cauchy.py") == [2, 10]
    assert finding_lines(result, "NPU508", "bench.py") == []
    assert finding_lines(result, "NPU508", "direct.py") == [1, 2]


def test_a_jit_build_bound_to_a_function_local_is_followed_into_closures_nested_there(tmp_path):
    # a model's __init__ builds under a user switch and an autograd.Function class defined right there calls the ops
    # through the closure; a nested parameter of that name is another object
    write_files(tmp_path, {
        "model.py": (
            "import os\n"
            "import torch\n"
            "from torch.utils.cpp_extension import load\n"
            "\n\n"
            "class Model(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        if os.environ.get('USE_KERNEL') == '1':\n"
            "            wkv = load(name='wkv', sources=['wkv.cpp', 'wkv.cu'])\n"
            "            wkv.warmup()\n"
            "\n"
            "            class WKV(torch.autograd.Function):\n"
            "                @staticmethod\n"
            "                def forward(ctx, x):\n"
            "                    y = torch.empty_like(x)\n"
            "                    wkv.forward_fp32(x, y)\n"
            "                    return y\n"
            "\n"
            "                @staticmethod\n"
            "                def backward(ctx, wkv):\n"
            "                    return wkv.sum()\n"
            "\n"
            "            self.op = WKV\n"
            "\n\n"
            "def other(wkv):\n"
            "    return wkv.forward_fp32(1)\n"
        ),
        "wkv.cu": "__global__ void k(float* x) {}\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "model.py") == [11, 17]


def test_kernels_to_port_name_the_extension_its_sources_and_its_call_sites(tmp_path):
    write_files(tmp_path, JIT_BACKEND)
    rows = verdict.summary(_scan(tmp_path))["kernels_to_port"]
    assert [(r["extension"], r["uses"], [Path(s).name for s in r["sources"]]) for r in rows] == [
        ("_grid_encoder", 2, ["gridencoder.cu"])]
    assert rows[0]["built_at"].endswith("enc/backend.py:5")


def test_unknown_dependencies_are_listed_with_where_they_are_imported(tmp_path):
    write_files(tmp_path, JIT_BACKEND)
    result = _scan(tmp_path)
    unknown = verdict.summary(result)["unknown_dependencies"]
    # acme_imaging (made up) is unknown; enc is the repository's own package, flash_attn is in the knowledge base,
    # os is the standard library, torch is the subject, _grid_encoder is built by the repository
    assert list(unknown) == ["acme_imaging"]
    assert unknown["acme_imaging"] == [f"{tmp_path}/train.py:1"]
    stream = io.StringIO()
    text.report(result, stream, verdict=verdict.judge(result.findings), rules={})
    out = stream.getvalue()
    assert "1 dependency npu-migrate does not know: verify they run on Ascend (acme_imaging)" in out
    assert "Kernel to port: _grid_encoder" in out
    stream = io.StringIO()
    sarif.report(result, stream, verdict=verdict.judge(result.findings), rules={})
    properties = json.loads(stream.getvalue())["runs"][0]["properties"]
    assert list(properties["unknown_dependencies"]) == ["acme_imaging"]
    assert properties["kernels_to_port"][0]["extension"] == "_grid_encoder"
    assert verdict.judge(result.findings).status == verdict.MANUAL


# ---- a project build helper computes the extension's name ------------------------------------------------
HELPER = {
    "setup.py": (
        "import os\nfrom setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\n"
        "def make_cuda_ext(name, module, sources, sources_cuda=None):\n"
        "    define_macros = []\n"
        "    extra_compile_args = {'cxx': []}\n"
        "    if os.getenv('FORCE_CUDA', '0') == '1':\n"
        "        define_macros += [('WITH_CUDA', None)]\n"
        "        extension = CUDAExtension\n"
        "        sources += sources_cuda\n"
        "    else:\n"
        "        extension = CppExtension\n"
        "    return extension(\n"
        "        name=f'{module}.{name}',\n"
        "        sources=[os.path.join(*module.split('.'), p) for p in sources],\n"
        "        define_macros=define_macros)\n"
        "setup(name='proj', ext_modules=[\n"
        "    make_cuda_ext(\n"
        "        name='dcn_ext',\n"
        "        module='proj.ops.dcn',\n"
        "        sources=['src/dcn.cpp'],\n"
        "        sources_cuda=['src/dcn_kernel.cu']),\n"
        "], cmdclass={'build_ext': BuildExtension})\n"
    ),
    "proj/__init__.py": "",
    "proj/ops/__init__.py": "",
    "proj/ops/dcn/__init__.py": "from .dcn import deform_conv\n",
    "proj/ops/dcn/dcn.py": (
        "from . import dcn_ext\n"
        "def deform_conv(x, w):\n"
        "    return dcn_ext.deform_conv_forward(x, w)\n"
    ),
    "proj/ops/dcn/src/dcn_kernel.cu": "__global__ void k() {}\n",
}


def test_python_2_standard_modules_are_not_unknown_dependencies(tmp_path):
    # partly-Python-2 repositories (set 22: MVIG-SJTU/AlphaPose, vid2vid's flownet2 copy) import the 2.7 standard
    # library's StringIO / cPickle / sets / ConfigParser / urllib2 (data/python2_stdlib.toml, the 2.7 module index)
    write_files(tmp_path, {"io_utils.py": (
        "import StringIO\nimport cPickle as pickle\nfrom sets import Set\nimport ConfigParser\n"
        "from urllib2 import urlopen\nimport acme_imaging\n")})
    assert list(verdict.summary(_scan(tmp_path))["unknown_dependencies"]) == ["acme_imaging"]


def test_the_ascend_plugins_of_known_packages_are_not_unknown_dependencies(tmp_path):
    # vllm-ascend, triton-ascend, MindSpeed are the NPU side of packages the catalogue knows (its `npu_plugin`
    # fields): a repository that already installs them is not asked to verify they run on Ascend
    write_files(tmp_path, {
        "requirements.txt": "vllm-ascend==0.9.1\ntriton-ascend\nmindspeed\nacme-imaging\n",
        "serve.py": "import vllm_ascend\nimport mindspeed.megatron_adaptor\nimport acme_imaging\n"})
    unknown = verdict.summary(_scan(tmp_path))["unknown_dependencies"]
    assert list(unknown) == ["acme_imaging"]
    assert unknown["acme_imaging"] == sorted([f"{tmp_path}/requirements.txt:4", f"{tmp_path}/serve.py:3"])


def test_a_build_helper_call_defines_the_module_its_arguments_name(tmp_path):
    write_files(tmp_path, HELPER)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "dcn/dcn.py") == [1, 3]
    assert all("`proj.ops.dcn.dcn_ext`" in f.message for f in result.findings if f.code == "NPU508")
    # the helper's build lines: the WITH_CUDA macro, `extension = CUDAExtension` (not the call through the variable, whose
    # own line carries no CUDA content: label ruling (L9)); the helper's call (a build call of its own: set 16, CodeFormer
    # basicsr/setup.py) and its .cu source
    assert finding_lines(result, "NPU505", "setup.py") == [8, 9, 18, 22]
    rows = verdict.summary(result)["kernels_to_port"]
    assert [(r["extension"], r["uses"], [Path(s).name for s in r["sources"]]) for r in rows] == [
        ("proj.ops.dcn.dcn_ext", 2, ["dcn_kernel.cu"])]


@pytest.mark.parametrize("template", [
    "'{}.{}'.format(module, name)",  # MVIG-SJTU/AlphaPose c60106d setup.py make_cuda_ext (issue 24, set 22)
    "'{0}.{1}'.format(module, name)",
    "'{module}.{name}'.format(module=module, name=name)",
    "'%s.%s' % (module, name)",
    "'.'.join([module, name])",  # Gorilla-Lab-SCUT/SSTNet 53edd443 pointgroup_ops/setup.py make_extension (set 57)
    "'.'.join((module, name))",
])
def test_a_build_helper_name_made_by_str_format_or_percent_defines_the_module(tmp_path, template):
    files = dict(HELPER)
    files["setup.py"] = files["setup.py"].replace("f'{module}.{name}'", template)
    assert template in files["setup.py"]
    write_files(tmp_path, files)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "dcn/dcn.py") == [1, 3]
    assert all("`proj.ops.dcn.dcn_ext`" in f.message for f in result.findings if f.code == "NPU508")


def test_a_build_helper_call_with_cpp_sources_only_defines_no_cuda_module(tmp_path):
    # MVIG-SJTU/AlphaPose c60106d setup.py: `make_cuda_ext(name='nms_cpu', sources=['src/nms_cpu.cpp'])` beside the
    # CUDA one; `nms_cpu.nms(` is the CPU path (set 22 label rule), `nms_cuda.nms(` the kernel
    files = dict(HELPER)
    files["setup.py"] = files["setup.py"].replace(
        "    make_cuda_ext(\n", "    make_cuda_ext(name='nms_cpu', module='proj.ops.dcn', sources=['src/nms_cpu.cpp']),\n"
        "    make_cuda_ext(\n", 1)
    files["proj/ops/dcn/dcn.py"] += "from . import nms_cpu\ndef nms(x):\n    return nms_cpu.nms(x)\n"
    write_files(tmp_path, files)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "dcn/dcn.py") == [1, 3]


def test_a_build_helper_name_with_a_format_spec_or_unknown_field_defines_no_module(tmp_path):
    files = dict(HELPER)
    files["setup.py"] = files["setup.py"].replace("f'{module}.{name}'", "'{}.{!r}'.format(module, name)")
    write_files(tmp_path, files)
    assert finding_lines(_scan(tmp_path), "NPU508", "dcn/dcn.py") == []


def test_a_jit_module_named_like_its_package_file_is_not_its_relative_import(tmp_path):
    write_files(tmp_path, {
        "proj/__init__.py": "",
        "proj/upfirdn2d/__init__.py": "from .upfirdn2d import upfirdn2d\n",
        "proj/upfirdn2d/upfirdn2d.py": (
            "from torch.utils.cpp_extension import load\n"
            "ext = load('upfirdn2d', sources=['a.cpp', 'k.cu'])\n"
            "def upfirdn2d(x):\n"
            "    return ext.run(x)\n"
        ),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "upfirdn2d/__init__.py") == []
    assert finding_lines(result, "NPU508", "upfirdn2d/upfirdn2d.py") == [4]


def test_git_installed_gpu_packages_are_in_the_catalogue(tmp_path):
    write_files(tmp_path, {"net.py": "import tinycudann as tcnn\nimport nvdiffrast.torch as dr\nenc = tcnn.Encoding(3, {})\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "net.py") == [1, 2]
    assert finding_lines(result, "NPU507", "net.py") == [3]
    assert verdict.summary(result)["unknown_dependencies"] == {}


def test_low_bit_matmul_kernel_libraries_are_in_the_catalogue(tmp_path):
    # mobiusml/hqq examples and backends: GemLite (Triton kernels) and BitBLAS (generated CUDA/HIP kernels)
    write_files(tmp_path, {"demo.py": "import gemlite\nimport bitblas\ngemlite.core.GemLiteLinear.load_config('c.json')\n"
                                 "cfg = bitblas.MatmulConfig(M=1)\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "demo.py") == [1, 2]
    assert finding_lines(result, "NPU507", "demo.py") == [3, 4]
    assert verdict.summary(result)["unknown_dependencies"] == {}


def test_gpu_only_packages_read_from_their_wheels_are_in_the_catalogue(tmp_path):
    # one package per family of the c16 catalogue pass (issue 24), each imported and used the way training code does:
    # apex's compiled multi-tensor kernels, Deformable-DETR's deformable attention, FlashInfer, NVML through py3nvml,
    # the cuDNN frontend graph API, RAPIDS memory manager, and NATTEN (partial with a CPU path: known, so not an unknown
    # dependency, but not reported)
    write_files(tmp_path, {
        "train.py": (
            "import amp_C\n"
            "import MultiScaleDeformableAttention as MSDA\n"
            "import flashinfer\n"
            "import py3nvml\n"
            "import cudnn\n"
            "import rmm\n"
            "import natten\n"
            "def step(v, s, w, a, bufs, grads):\n"
            "    norm = amp_C.multi_tensor_l2norm(65536, bufs, [grads], False)\n"
            "    out = MSDA.ms_deform_attn_forward(v, s, w, a, 64)\n"
            "    o = flashinfer.single_decode_with_kv_cache(v, s, w)\n"
            "    py3nvml.grab_gpus(num_gpus=1)\n"
            "    g = cudnn.pygraph()\n"
            "    rmm.reinitialize(pool_allocator=True)\n"
            "    return natten.na2d(v, s, w, kernel_size=7), norm, out, o, g\n"),
        "requirements.txt": "flashinfer-python\nms-deform-attn\nnvidia-cudnn-frontend\nrmm-cu12\npy3nvml\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "train.py") == [1, 2, 3, 4, 5, 6]  # natten (line 7): partial, info, not reported
    assert finding_lines(result, "NPU507", "train.py") == [9, 10, 11, 12, 13, 14]
    assert finding_lines(result, "NPU502", "requirements.txt") == [1, 2, 3, 4, 5]
    assert verdict.summary(result)["unknown_dependencies"] == {}


# ---- NPU-aware code through a helper predicate (transformers / accelerate style) -------------------------
def test_a_cuda_branch_after_an_npu_helper_predicate_is_not_reported(tmp_path):
    write_files(tmp_path, {"t.py": (
        "import torch\n"
        "from transformers.utils import is_torch_npu_available\n"
        "from .utils import is_npu_available\n"
        "def empty_cache():\n"
        "    if is_torch_npu_available():\n"
        "        torch.npu.empty_cache()\n"
        "    elif torch.cuda.is_available():\n"
        "        torch.cuda.empty_cache()\n"       # line 8: the NPU is handled first
        "def pick():\n"
        "    if is_npu_available():\n"
        "        return torch.device('npu:0')\n"
        "    return torch.device('cuda:0')\n"      # line 12: not in a branch of the chain, still reported
        "def sync():\n"
        "    if is_fast_available():\n"            # a predicate that names no device
        "        torch.npu.synchronize()\n"
        "    elif torch.cuda.is_available():\n"
        "        torch.cuda.synchronize()\n"       # line 17: still reported
    )})
    lines = {f.line for f in _scan(tmp_path).findings if f.code.startswith(("NPU1", "NPU2"))}
    assert not {7, 8} & lines
    assert {12, 16, 17} <= lines


def test_a_gpu_only_import_in_the_cuda_branch_of_an_npu_test_is_not_reported(tmp_path):
    # the shapes of Open-Sora's opensora/models/layers/blocks.py (hpcaitech/Open-Sora, set 17; rewritten here)
    write_files(tmp_path, {"t.py": (
        "import torch\n"
        "from .device_utils import is_npu_available\n"
        "if is_npu_available():\n"
        "    import torch_npu\n"
        "else:\n"
        "    import xformers.ops\n"                              # line 6: the CUDA side
        "if not is_npu_available():\n"
        "    from flash_attn import flash_attn_func\n"           # line 8: the CUDA side (negated test)
        "else:\n"
        "    import torch_npu\n"
        "def attn(q, k, v):\n"
        "    if is_npu_available() and q.dtype in [torch.float16, torch.bfloat16]:\n"
        "        return torch_npu.npu_fusion_attention(q, k, v)\n"
        "    else:\n"
        "        from flash_attn import flash_attn_func as f\n"  # line 15: the CUDA side of a compound test
        "        return f(q, k, v)\n"
        "if use_fast():\n"
        "    from flash_attn import flash_attn_varlen_func\n"    # line 18: a test naming no device: reported
        "from apex.normalization import FusedLayerNorm\n"        # line 19: outside any branch: reported
    )})
    lines = finding_lines(_scan(tmp_path), "NPU501", "t.py")
    assert not {6, 8, 15} & set(lines)
    assert {18, 19} <= set(lines)


def test_a_gpu_only_package_after_an_npu_branch_that_returns_is_not_reported(tmp_path):
    # a ring-attention block: the NPU tensor takes its own kernel and returns; the flash_attn import and call below
    # are the CUDA path beside it (written here after the shape of such sequence-parallel helpers)
    write_files(tmp_path, {"t.py": (
        "import torch\n"
        "from .ring_npu import is_npu_tensor, npu_block\n"
        "def block(q, k, v, causal):\n"
        "    if is_npu_tensor(q):\n"
        "        return npu_block(q, k, v, causal)\n"
        "    from flash_attn.flash_attn_interface import _flash_attn_forward\n"  # line 6
        "    return _flash_attn_forward(q, k, v, causal=causal)\n"            # line 7
        "def other(q, k, v):\n"
        "    from flash_attn import flash_attn_func\n"                         # line 9: no NPU branch: reported
        "    return flash_attn_func(q, k, v)\n"
    )})
    result = _scan(tmp_path)
    assert not {6, 7} & set(finding_lines(result, "NPU501", "t.py") + finding_lines(result, "NPU507", "t.py"))
    assert 9 in finding_lines(result, "NPU501", "t.py")


def test_backend_dispatch_availability_ifs_and_device_tuples_that_name_the_npu_are_not_reported(tmp_path):
    # the shapes of an NPU-aware inference engine (read in jianzhnie/mini-vllm @0b278b8, rewritten here)
    write_files(tmp_path, {"t.py": (
        "import torch\n"
        "from .device import is_torch_npu_available\n"
        "def setup(backend, rank):\n"
        "    if backend == 'hccl':\n"
        "        torch.npu.set_device(rank)\n"
        "    elif backend == 'nccl':\n"              # line 6
        "        torch.cuda.set_device(rank)\n"      # line 7
        "def seed(s):\n"
        "    if torch.cuda.is_available():\n"        # line 9
        "        torch.cuda.manual_seed_all(s)\n"    # line 10
        "    if is_torch_npu_available():\n"
        "        torch.npu.manual_seed_all(s)\n"
        "def accel(device):\n"
        "    return device.type in ('cuda', 'npu')\n"  # line 14
        "def compile_ok():\n"
        "    return not (torch.npu.is_available() or not torch.cuda.is_available())\n"  # 16: not an if
        "def lone(rank):\n"
        "    if torch.cuda.is_available():\n"        # line 18: no NPU sibling
        "        torch.cuda.set_device(rank)\n"      # line 19
        "    if backend_is_ready():\n"
        "        torch.npu.synchronize()\n"
    )})
    lines = {f.line for f in _scan(tmp_path).findings if f.code.startswith(("NPU1", "NPU2", "NPU3"))}
    assert not {6, 7, 9, 10, 14} & lines
    assert {16, 18, 19} <= lines



def test_an_enum_dispatch_with_an_npu_member_is_npu_aware(tmp_path):
    # the shapes of yunchang's attention dispatch (feifeibear/long-context-attention, read in set 10; rewritten here)
    write_files(tmp_path, {"t.py": (
        "import torch\n"
        "from enum import Enum\n"
        "from flash_attn import flash_attn_func\n"
        "class AttnType(Enum):\n"
        "    FA = 'fa'\n"
        "    TORCH = 'torch'\n"
        "    NPU = 'npu'\n"
        "def attention(impl, q, k, v):\n"
        "    if impl == AttnType.NPU:\n"
        "        return torch.ops.npu.npu_fusion_attention(q, k, v)\n"
        "    elif impl == AttnType.FA:\n"                        # line 11
        "        torch.cuda.synchronize()\n"                     # line 12
        "        return flash_attn_func(q, k, v)\n"              # line 13
        "    elif impl in (AttnType.TORCH,):\n"
        "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
        "class Layer:\n"
        "    def forward(self, q, k, v):\n"
        "        if self.attn_type is AttnType.NPU:\n"
        "            return q\n"
        "        else:\n"
        "            return flash_attn_func(q, k, v)\n"          # line 21
        "IMPLS = {AttnType.NPU: torch.nn.functional.scaled_dot_product_attention,\n"
        "         AttnType.FA: flash_attn_func}\n"               # line 23
        "def other(mode, q, k, v):\n"
        "    if mode == Mode.FAST:\n"                            # an enum without an NPU member: still reported
        "        return flash_attn_func(q, k, v)\n"              # line 26
        "    torch.cuda.synchronize()\n"                         # line 27: outside any dispatch
    )})
    found = {(f.code, f.line) for f in _scan(tmp_path).findings}
    assert not {("NPU102", 12), ("NPU507", 13), ("NPU507", 21), ("NPU507", 23)} & found
    assert {("NPU501", 3), ("NPU507", 26), ("NPU102", 27)} <= found


# ---- launchers: Python inside `python -c`, CUDA-family variables the table does not list ------------------
def test_python_inside_a_launcher_is_analysed_at_its_place(tmp_path):
    write_files(tmp_path, {"run.sh": (
        "#!/bin/bash\n"
        "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
        "python3 -u -c \"import torch; torch.cuda.set_device(0); print(\\\"ok\\\")\"\n"
        "python -c 'import torch; x = torch.zeros(1).cuda()' && echo done\n"
        "python train.py -c configs/a.yaml\n"
    )})
    result = _scan(tmp_path)
    found = sorted((f.line, f.column, f.code, f.fixable) for f in result.findings)
    assert (2, 8, "NPU703", False) in found
    assert (3, 30, "NPU102", False) in found  # `torch.cuda.set_device` at its column in the shell line
    assert (4, 44, "NPU101", False) in found  # `.cuda` of the single-quoted snippet
    assert not [f for f in found if f[0] == 5]


def test_one_kernel_built_by_a_jit_load_and_by_setup_is_one_kernel_to_port(tmp_path):
    files = dict(JIT_BACKEND)
    files["enc/setup.py"] = (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='enc', ext_modules=[CUDAExtension(name='_gridencoder', sources=['src/gridencoder.cu', 'src/bindings.cpp'])])\n"
    )
    files["enc/grid.py"] = (  # the prebuilt module first, the JIT build as the fallback
        "try:\n    import _gridencoder as _backend\nexcept ImportError:\n    from .backend import _backend\n"
        "def forward(x, out):\n    _backend.grid_encode_forward(x, out)\n"
    )
    write_files(tmp_path, files)
    rows = verdict.summary(_scan(tmp_path))["kernels_to_port"]
    assert len(rows) == 1 and rows[0]["extension"] in ("_grid_encoder / _gridencoder", "_gridencoder / _grid_encoder")
    assert rows[0]["uses"] >= 3


# ---- second pass: wrappers of a kernel op defined in another module ---------------------------------------
WRAPPERS = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "setup(ext_modules=[CUDAExtension('pkg.ops._C', ['pkg/ops/k.cu', 'pkg/ops/b.cpp'])])\n"
    ),
    "pkg/__init__.py": "",
    "pkg/ops/__init__.py": "",
    "pkg/ops/k.cu": "__global__ void k(float* x) {}\n",
    "pkg/ops/fn.py": (
        "import functools\nfrom torch.autograd import Function\nfrom . import _C\n"
        "class ScatterFn(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return _C.scatter_forward(x)\n"
        "scatter = ScatterFn.apply\n"
        "gather = functools.partial(_C.gather, dim=0)\n"
        "def run(x):\n    return scatter(x) + gather(x)\n"
    ),
    "pkg/ops/backend.py": (
        "from torch.utils.cpp_extension import load\n_backend = load(name='_rm', sources=['pkg/ops/rm.cu'])\n"
        "def get_backend():\n    return _backend\n"
    ),
    "pkg/ops/plain.py": (  # the same shapes over torch: nothing to port
        "import functools\nimport torch\nfrom torch.autograd import Function\n"
        "class Twice(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return torch.mul(x, 2)\n"
        "twice = Twice.apply\nsummed = functools.partial(torch.sum, dim=0)\n"
        "def get_module():\n    return torch.nn\n"
    ),
    "pkg/model.py": (
        "from .ops.fn import scatter, gather\nfrom .ops.backend import get_backend\nfrom .ops.plain import twice, summed, get_module\n"
        "def f(x):\n    y = get_backend().march(x)\n    z = twice(summed(y)) + get_module().Linear(2, 2)(y)\n"
        "    return scatter(y) + gather(z)\n"
    ),
}


def test_accessors_function_apply_aliases_and_partials_of_a_kernel_op_are_followed_across_modules(tmp_path):
    write_files(tmp_path, WRAPPERS)
    result = _scan(tmp_path)
    # model.py: the import naming an op (the partial), the accessor's import and call, the partial's call; not torch's
    assert finding_lines(result, "NPU508", "pkg/model.py") == [1, 2, 5, 7]
    # fn.py: the extension's import, the op call in the Function, the partial, its call in the defining file
    assert finding_lines(result, "NPU508", "pkg/ops/fn.py") == [3, 7, 9, 11]
    assert finding_lines(result, "NPU508", "pkg/ops/plain.py") == []
    messages = {f.line: f.message for f in result.findings if f.code == "NPU508" and f.path.endswith("model.py")}
    assert "`_rm`" in messages[5] and "pkg/ops/backend.py:2" in messages[5]
    assert "`pkg.ops._C`" in messages[7] and "setup.py:3" in messages[7]
    # the partial is the op itself (error); the Function.apply alias wraps it: its calls run once the kernel
    # inside the Function is ported and the line need not change, so they are no findings but the kernel's
    # call sites in the summary (lead's decision, session 24e)
    on_7 = sorted((f.column, f.severity.name) for f in result.findings if f.code == "NPU508" and f.path.endswith("model.py") and f.line == 7)
    assert on_7 == [(25, "ERROR")]
    assert [f.severity.name for f in result.findings if f.path.endswith("model.py") and f.line == 1] == ["ERROR"]
    assert not [f for f in result.findings if str(f.severity) == "info" and f.code == "NPU508"]
    rows = verdict.summary(result)["kernels_to_port"]
    row = next(r for r in rows if "pkg.ops._C" in r["extension"])
    assert sorted(s.rsplit("/", 1)[1] for s in row["wrapper_calls"]) == ["fn.py:11", "model.py:7"]
    assert {"fn.py:3", "fn.py:7", "fn.py:9", "fn.py:11", "model.py:1", "model.py:7"} <= {s.rsplit("/", 1)[1] for s in row["call_sites"]}
    stream = io.StringIO()
    text.report(result, stream, verdict=verdict.judge(result.findings), rules={})
    assert "2 more lines call it through a wrapper of the repository" in stream.getvalue()


# ---- second pass: dynamic loads, CMake builds, a kernel's own source list ---------------------------------
DYNAMIC = {
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.18)\nproject(fastops LANGUAGES CXX CUDA)  # CUDA language\n"
        "find_package(pybind11 REQUIRED)\n"
        "pybind11_add_module(fastops_cuda csrc/bind.cpp csrc/k.cu)\n"
        "add_library(rasterizer SHARED csrc/raster.cu)\n"
        "add_library(helpers STATIC csrc/h.cpp)\n"
        "# add_library(commented SHARED csrc/c.cu)\n"
    ),
    "csrc/k.cu": "__global__ void k(float* x) {}\n",
    "csrc/raster.cu": "__global__ void r(float* x) {}\n",
    "csrc/bind.cpp": "// bindings\n",
    "pkg/__init__.py": "",
    "pkg/ops.py": (
        "import ctypes\nimport importlib\nimport os\n"
        "_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), 'build', 'librasterizer.so'))\n"
        "_helpers = ctypes.CDLL('build/libhelpers.so')\n"
        "_fast = importlib.import_module(f'{__package__}_cuda')\n"
        "_other = importlib.import_module(f'{__package__}_utils')\n"
        "def raster(x):\n    _lib.rasterize(x)\n    _helpers.noop()\n    return _fast.run(x)\n"
    ),
}


def test_cmake_targets_ctypes_libraries_and_fstring_imports_are_kernel_uses(tmp_path):
    write_files(tmp_path, DYNAMIC)
    result = _scan(tmp_path)
    # the CDLL of the CUDA library, the f-string import of the pybind11 module, and the calls through both;
    # not the static C++ helpers' library, nor an f-string naming no module the scan builds
    assert finding_lines(result, "NPU508", "pkg/ops.py") == [4, 6, 9, 11]
    rows = {r["extension"]: r for r in verdict.summary(result)["kernels_to_port"]}
    assert sorted(rows) == ["fastops_cuda", "rasterizer"]
    assert rows["rasterizer"]["built_at"].endswith("CMakeLists.txt:5")
    assert [Path(s).name for s in rows["rasterizer"]["sources"]] == ["raster.cu"]  # its own list, not the directory


def test_an_fstring_hole_stands_for_one_name_part(tmp_path):
    # megvii-research/NAFNet basicsr/models/__init__.py:22 (set 21a): `import_module(f'basicsr.models.{file_name}')` over the
    # package's `*_model.py` files names a module OF the package, not the extension declared three levels below it; a
    # literal part after the package (`ops.{name}`) still pins it, and so does a dotted hole (`{__package__}`)
    write_files(tmp_path, {
        "setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                     "setup(ext_modules=[CUDAExtension('pkg.models.ops.dcn.dcn_ext', ['pkg/models/ops/dcn/k.cu'])])\n"),
        "pkg/models/ops/dcn/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "",
        "pkg/models/__init__.py": ("import importlib\n"
                                   "mods = [importlib.import_module(f'pkg.models.{n}') for n in names]\n"
                                   "ext = importlib.import_module(f'pkg.models.ops.dcn.{name}')\n"
                                   "ext2 = importlib.import_module(f'{__package__}.ops.dcn.dcn_ext')\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/models/__init__.py") == [3, 4]


def test_a_cmake_source_list_variable_makes_its_target_a_kernel_module(tmp_path):
    # k2-fsa/fast_rnnt: `set(srcs a.cu)` / `list(APPEND srcs b.cu)` then `pybind11_add_module(_ext ${srcs})` in a
    # subdirectory's CMakeLists.txt (the CUDA language is switched on elsewhere): the module's import and calls are kernel uses
    write_files(tmp_path, {
        "csrc/CMakeLists.txt": "set(ext_srcs\n  bind.cu\n)\nlist(APPEND ext_srcs mi.cu)\npybind11_add_module(_ext ${ext_srcs})\n",
        "csrc/bind.cu": "// bindings\n", "csrc/mi.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "", "pkg/mi.py": "import _ext\ndef f(x):\n    return _ext.forward(x)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "csrc/CMakeLists.txt") == [2, 4, 5]
    assert finding_lines(result, "NPU508", "pkg/mi.py") == [1, 3]


# IST-DASLab/QUIK's layout (set 18): setup.py's `CMakeExtension('quik._C')` (an Extension subclass with no sources, built
# by a build_ext running cmake) is the CMake target `pybind11_add_module(_C MODULE binding.cpp)`, which compiles no `.cu`
# but links `${_C_LIBRARIES}`: STATIC libraries built from `.cu` in subdirectories, handed up with PARENT_SCOPE
CMAKE_BUILT = {
    "setup.py": (
        "import os\nimport subprocess\nfrom setuptools import Extension, setup\n"
        "from setuptools.command.build_ext import build_ext\n"
        "class CMakeExtension(Extension):\n"
        "    def __init__(self, name, source_dir='.'):\n"
        "        super().__init__(name, sources=[])\n        self.source_dir = os.path.abspath(source_dir)\n"
        "class cmake_build(build_ext):\n"
        "    def build_extension(self, ext):\n"
        "        subprocess.check_call(['cmake', '--build', '.', '--target', ext.name.rpartition('.')[-1]])\n"
        "setup(name='qk', ext_modules=[CMakeExtension('qk._C', source_dir='.')], cmdclass={'build_ext': cmake_build})\n"
    ),
    "CMakeLists.txt": "project(qk LANGUAGES CXX)\nfind_package(CUDA REQUIRED)\nenable_language(CUDA)\nadd_subdirectory(src)\n",
    "src/CMakeLists.txt": (
        "set(_C_LIBS \"\")\nadd_subdirectory(gemm)\nadd_subdirectory(cpu)\n"
        "pybind11_add_module(_C MODULE bind.cpp)\ntarget_link_libraries(\n    _C PUBLIC\n    ${TORCH_LIBRARIES}\n    ${_C_LIBS}\n)\n"
    ),
    "src/bind.cpp": "// bindings\n",
    "src/gemm/CMakeLists.txt": (
        "set(SRCS gemm.cpp)\nif (CUDA_FOUND)\n    list(APPEND SRCS gemm.cu)\nendif ()\n"
        "add_library(_C_GEMM STATIC \"${SRCS}\")\ntarget_link_libraries(_C_GEMM PRIVATE ${TORCH_LIBRARIES})\n"
        "list(APPEND _C_LIBS _C_GEMM)\nset(_C_LIBS \"${_C_LIBS}\" PARENT_SCOPE)\n"
    ),
    "src/gemm/gemm.cu": "__global__ void k(int* x) {}\n", "src/gemm/gemm.cpp": "// host\n",
    "src/cpu/CMakeLists.txt": "add_library(_C_CPU STATIC pack.cpp)\nlist(APPEND _C_LIBS _C_CPU)\nset(_C_LIBS \"${_C_LIBS}\" PARENT_SCOPE)\n",
    "src/cpu/pack.cpp": "// pack\n",
    "qk/__init__.py": "from qk._C import gemm, cpu\n",
    "run.py": "import torch\nimport qk\n\ndef f(a, b):\n    c = qk.gemm.int4_matmul(a, b)\n    return c\n",
}


def test_a_cmake_extension_linking_cuda_libraries_is_a_kernel_module(tmp_path):
    write_files(tmp_path, CMAKE_BUILT)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "qk/__init__.py") == [1]
    # the op call; `import qk` binds what qk/__init__.py imports from the compiled module (label rulings (L81), (L85))
    assert finding_lines(result, "NPU508", "run.py") == [5]
    rows = verdict.summary(result)["kernels_to_port"]
    assert [r["extension"] for r in rows] == ["qk._C"]  # not the static libraries linked into it
    assert rows[0]["built_at"].endswith("setup.py:12") and [Path(s).name for s in rows[0]["sources"]] == ["gemm.cu"]


def test_a_cmake_extension_of_a_cuda_target_is_the_build_line_and_its_image_install_too(tmp_path):
    # the `CMakeExtension(...)` call is the project helper building the CUDA extension (label ruling (L10), note 49c
    # c-1), and a Dockerfile running `python3 setup.py install` in the folder the context was added to installs it
    files = dict(CMAKE_BUILT, Dockerfile="FROM ubuntu:22.04\nWORKDIR /build\nADD . .\nRUN python3 setup.py install\n")
    write_files(tmp_path, files)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "setup.py") == [12]
    assert finding_lines(result, "NPU502", "Dockerfile") == [4]


def test_a_cmake_extension_linking_only_cpp_libraries_is_no_kernel_module(tmp_path):
    files = dict(CMAKE_BUILT)
    files["src/gemm/CMakeLists.txt"] = files["src/gemm/CMakeLists.txt"].replace("gemm.cu", "gemm_avx.cpp")
    del files["src/gemm/gemm.cu"]
    write_files(tmp_path, files)
    result = _scan(tmp_path)
    assert not [f for f in result.findings if f.code in ("NPU508", "NPU505")]


def test_a_pip_install_of_a_folder_that_builds_cuda_is_reported(tmp_path):
    # pointMLP-pytorch environment.yml: `- pointnet2_ops_lib/.` in the pip section installs the vendored folder whose
    # setup.py builds a CUDAExtension; so do `-e ./folder` in a requirements file and `pip install ./folder` in a script.
    # A local folder that builds no CUDA (a plain package) is no such install.
    write_files(tmp_path, {
        "ops_lib/setup.py": _cuda_setup('ops', 'ops._ext', ['src/ball.cpp', 'src/ball_gpu.cu']),
        "ops_lib/src/ball_gpu.cu": "__global__ void k(float* x) {}\n", "ops_lib/src/ball.cpp": "// host\n",
        "tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "environment.yml": "name: pm\ndependencies:\n  - python=3.7\n  - pip\n  - pip:\n    - numpy\n    - ops_lib/.\n    - tools/.\n",
        "requirements.txt": "numpy\n-e ./ops_lib\n-e ./tools\n",
        "install.sh": "pip install ./ops_lib\npip install ./tools\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "environment.yml") == [7]
    assert finding_lines(result, "NPU502", "requirements.txt") == [2]
    assert finding_lines(result, "NPU502", "install.sh") == [1]


def test_a_setup_py_file_reference_to_a_cuda_build_folder_is_reported(tmp_path):
    # a setup.py requiring a vendored folder by a PEP 508 direct reference, its absolute prefix computed
    # (`f"ops @ file://localhost/{os.getcwd()}/third_party/ops_lib/"`: label note 49b b-7): pip installs that folder,
    # whose setup.py builds a CUDAExtension; the same reference to a plain package's folder is no such install
    write_files(tmp_path, {
        "third_party/ops_lib/setup.py": _cuda_setup('ops', 'ops._ext', ['src/ball.cpp', 'src/ball_gpu.cu']),
        "third_party/ops_lib/src/ball_gpu.cu": "__global__ void k(float* x) {}\n",
        "third_party/ops_lib/src/ball.cpp": "// host\n",
        "third_party/tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "setup.py": "import os\nfrom setuptools import setup\nsetup(name='proj', install_requires=[\n"
                    "    'numpy',\n    f'ops @ file://localhost/{os.getcwd()}/third_party/ops_lib/',\n"
                    "    f'tools @ file://localhost/{os.getcwd()}/third_party/tools/',\n])\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "setup.py") == [5]


def test_a_launcher_running_setup_py_of_a_cuda_build_is_reported(tmp_path):
    # MaskDINO ops/make.sh (set 25a-1): `python setup.py build install` in the extension's folder installs the CUDA build;
    # so does a script one folder up naming the path. `python setup.py --version`, an echo and a folder whose setup.py
    # builds no CUDA are not.
    write_files(tmp_path, {
        "ops/setup.py": _cuda_setup('ops', 'MSDA', ['src/attn.cpp', 'src/attn_cuda.cu']),
        "ops/src/attn_cuda.cu": "__global__ void k(float* x) {}\n", "ops/src/attn.cpp": "// host\n",
        "ops/make.sh": "#!/usr/bin/env bash\n# python setup.py install\npython setup.py build install\npython setup.py --version\n",
        "tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "build_all.sh": "echo 'python setup.py install'\npython3 ops/setup.py develop && python tools/setup.py install\n",
        "ops/Makefile": "all:\n\tpython setup.py build_ext --inplace\n\trm -rf build\n",  # a side build (L19)
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "ops/make.sh") == [3]
    assert finding_lines(result, "NPU502", "build_all.sh") == [2]
    assert finding_lines(result, "NPU502", "ops/Makefile") == []


def test_a_scripts_folder_launcher_running_setup_py_without_cd_builds_the_root_setup_py(tmp_path):
    # ByteDance-Seed/ShadowKV e51904c scripts/build_env.sh (label note 70d), run as `bash scripts/build_env.sh` from the
    # root: `python setup.py build_ext --inplace` with no `cd` before it, in a folder without a setup.py, builds the root
    # setup.py's CUDA extension. After a computed `cd` (another checkout), or in a folder with its own (CPU) setup.py,
    # it is not that build.
    write_files(tmp_path, {
        "setup.py": _cuda_setup('skv', 'skv', ['kernels/main.cu']), "kernels/main.cu": "__global__ void k(float* x) {}\n",
        "scripts/build_env.sh": "pip install wheel\npython setup.py build_ext --inplace\n",
        "scripts/other.sh": "cd $HOME/other && python setup.py install\ncd /opt/x\npython setup.py install\n",
        "tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "tools/build.sh": "python setup.py install\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "scripts/build_env.sh") == [2]
    assert finding_lines(result, "NPU502", "scripts/other.sh") == []
    assert finding_lines(result, "NPU502", "tools/build.sh") == []


def test_loop_folders_make_and_echoed_dockerfile_installs_of_a_cuda_build_are_reported(tmp_path):
    # imaginaire scripts (label note 52b): `cd ext/${p};` on its own line in `for p in a b; do` enters each item's
    # folder; `make all` in a folder whose Makefile's target runs its setup.py installs the CUDA build (the Makefile
    # itself stays a side build (L19)); a launcher echoing Dockerfile RUN lines writes the image's installs. A `make`
    # whose target does not run setup.py, a Makefile-less folder, and an echoed message are not installs.
    write_files(tmp_path, {
        "ext/a/setup.py": _cuda_setup('a', 'a_cuda', ['a_kernel.cu']), "ext/a/a_kernel.cu": "__global__ void k() {}\n",
        "ext/b/setup.py": _cuda_setup('b', 'b_cuda', ['b_kernel.cu']), "ext/b/b_kernel.cu": "__global__ void k() {}\n",
        "ext/b/Makefile": "all:\n\tpython setup.py build_ext --inplace\n\tpython setup.py install\n\nclean:\n\trm -rf build\n",
        "scripts/install.sh": "#!/bin/sh\nCURRENT=$(pwd)\nfor p in a b; do\n  cd ext/${p};\n  python setup.py install;\n"
                              "  cd ${CURRENT};\ndone\ncd ext/b\nmake all\nmake clean\ncd ${CURRENT}\n"
                              "echo 'then run python setup.py install'\n",
        "scripts/build_docker.sh": "#!/bin/bash\nfor p in a b; do\n  echo \"COPY ext/$p $p\" >> Dockerfile\n"
                                   "  echo \"RUN cd $p && python setup.py install\" >> Dockerfile\ndone\n"
                                   "echo \"RUN cd b && make\" >> Dockerfile\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "scripts/install.sh") == [5, 9]
    assert finding_lines(result, "NPU502", "scripts/build_docker.sh") == [4, 6]
    assert finding_lines(result, "NPU502", "ext/b/Makefile") == []


def test_a_windows_batch_launcher_installing_a_cuda_build_is_read_like_a_shell_script(tmp_path):
    # D3Dnet code/dcn/make.bat `python setup.py build install` beside the CUDA build's setup.py, imaginaire
    # scripts/install.bat (label notes 52b, 58b): a `.bat` / `.cmd` file is a launcher, its `for %%p in (a b) do (`
    # loop's `cd ext\%%p` enters each item's folder and `cd %ROOT%` (a variable) the script's own; its CUDA-pinned
    # torch install is read as in a shell script. A batch file installing a C++-only build is no line.
    write_files(tmp_path, {
        "dcn/setup.py": _cuda_setup('dcn', 'D3D', ['src/k.cu']), "dcn/src/k.cu": "__global__ void k() {}\n",
        "dcn/make.bat": "python setup.py build install\n",
        "ext/a/setup.py": _cuda_setup('a', 'a_cuda', ['a_kernel.cu']), "ext/a/a_kernel.cu": "__global__ void k() {}\n",
        "ext/b/setup.py": _cuda_setup('b', 'b_cuda', ['b_kernel.cu']), "ext/b/b_kernel.cu": "__global__ void k() {}\n",
        "cpu/setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension\n"
                         "setup(name='c', ext_modules=[CppExtension('c_ext', ['c.cpp'])])\n"),
        "cpu/make.cmd": "python setup.py install\n",
        "scripts/install.bat": "@ECHO OFF\nset ROOT=%cd%\n"
                               "pip install torch==1.9.0+cu111 -f https://download.pytorch.org/whl/torch_stable.html\n"
                               "FOR %%p IN (a b) DO (\n  cd %ROOT%\n  cd ext\\%%p\n  python setup.py install\n"
                               "  cd %ROOT%\n)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "dcn/make.bat") == [1]
    assert finding_lines(result, "NPU502", "cpu/make.cmd") == []
    assert finding_lines(result, "NPU502", "scripts/install.bat") == [3, 7]


def test_an_extension_reached_only_through_an_attempt_recording_a_flag_of_any_name_is_optional(tmp_path):
    # Sparse4D-shaped (label note 52c, (L60)/(L97)): the ops package imports its extension unguarded, and the one
    # importer tries it and records the outcome in a flag bound True after the import and False in the handler, which
    # it asserts before the ops are used (a plain-PyTorch path otherwise): the package's uses of the extension are no
    # lines. An unguarded importer elsewhere keeps them.
    files = {
        "pkg/__init__.py": "", "pkg/ops/setup.py": _cuda_setup('agg', 'agg_ext', ['src/agg.cpp', 'src/agg_cuda.cu']),
        "pkg/ops/src/agg_cuda.cu": "__global__ void k(float* x) {}\n", "pkg/ops/src/agg.cpp": "// host\n",
        "pkg/ops/__init__.py": "from .agg import aggregate\n",
        "pkg/ops/agg.py": "from . import agg_ext\n\n\ndef aggregate(x):\n    return agg_ext.forward(x)\n",
        "pkg/models/__init__.py": "",
        "pkg/models/head.py": ("try:\n    from ..ops import aggregate\n    AGG_VALID = True\nexcept:\n    AGG_VALID = False\n\n\n"
                              "class Head:\n    def __init__(self, fast=False):\n        if fast:\n"
                              "            assert AGG_VALID, 'build the ops first'\n        self.fast = fast\n\n"
                              "    def __call__(self, x):\n        return aggregate(x) if self.fast else x.mean(1)\n"),
    }
    write_files(tmp_path, files)
    assert finding_lines(_scan(tmp_path), "NPU508", "pkg/ops/agg.py") == []
    write_files(tmp_path, {"pkg/models/tail.py": "from ..ops import aggregate\n\n\ndef tail(x):\n    return aggregate(x)\n"})
    assert finding_lines(_scan(tmp_path), "NPU508", "pkg/ops/agg.py") == [1, 5]


def test_a_chain_through_the_package_to_its_compiled_module_is_a_use(tmp_path):
    # kaolin tests: `import kaolin as kal` then `kal._C.render.mesh.dibr_soft_mask_forward_cuda(...)`, the `_C`
    # attribute set on the package by any module importing it (label note 46b, (L79)); a chain to another
    # submodule is none
    write_files(tmp_path, {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('pkg._C', ['pkg/csrc/k.cu'])\n",
        "pkg/csrc/k.cu": "__global__ void k(float* x) {}\n", "pkg/__init__.py": "", "pkg/util.py": "def f(x):\n    return x\n",
        "pkg/ops.py": "from pkg import _C\ndef f(x):\n    return _C.ops.f(x)\n",
        "tests/test_ops.py": "import pkg as p\ndef test_f(x):\n    x = x.cuda()\n    y = \\\n        p._C.ops.f(x)\n"
                             "    return p.util.f(y)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "tests/test_ops.py") == [5]


def test_a_setup_py_running_a_cffi_cuda_build_is_a_cuda_build_for_its_installs(tmp_path):
    # PWC-Net correlation-pytorch (label rule 46b-3): setup.py builds through `cffi_modules=[... "build.py:ffi"]`, and
    # build.py is torch.utils.ffi's CUDA build; the make script's `python setup.py build install` installs it. A
    # setup.py naming a cffi module of another folder, or a build.py with no CUDA, is no such build.
    ffi = ("import os\nfrom torch.utils.ffi import create_extension\nffi = create_extension(\n    '_ext.corr',\n"
           "    sources=['src/corr.c'],\n    with_cuda=True,\n    extra_objects=['src/corr_kernel.cu.o'])\n")
    setup = ("import os\nfrom setuptools import setup\nthis_file = os.path.dirname(__file__)\n"
             "setup(name='corr', cffi_modules=[os.path.join(this_file, '{}:ffi')])\n")
    write_files(tmp_path, {
        "corr/build.py": ffi, "corr/setup.py": setup.format("build.py"),
        "make.sh": "cd corr/src\nnvcc -c -o corr_kernel.cu.o corr_kernel.cu -x cu\ncd ..\npython setup.py build install\n",
        "corr/src/corr_kernel.cu": "__global__ void k(float* x) {}\n",
        "other/build.py": ffi.replace("with_cuda=True", "with_cuda=False").replace("'src/corr_kernel.cu.o'", "'x.o'"),
        "other/setup.py": setup.format("build.py"), "other/make.sh": "python setup.py build install\n",
        "third/setup.py": setup.format("../corr/build.py"), "third/make.sh": "python setup.py build install\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "make.sh") == [4]
    assert finding_lines(result, "NPU502", "other/make.sh") == []
    assert finding_lines(result, "NPU502", "third/make.sh") == []


def test_a_pip_install_of_the_folder_a_command_runs_in_is_reported(tmp_path):
    # an install.sh beside the CUDA build's setup.py runs `pip install .`; a script one folder up enters the extension's
    # folder first (`cd ops && pip install -e .`). A Dockerfile's `RUN pip install .` installs from the image's WORKDIR,
    # no folder of the repository; a `cd` into a folder named for a catalogued GPU-only package installs that package
    # (`COPY fast-hadamard-transform ...` then `RUN cd fast-hadamard-transform && pip install -e .`).
    write_files(tmp_path, {
        "setup.py": _cuda_setup('mm', 'mm_cuda', ['mm/mm.cpp', 'mm/mm_kernel.cu']),
        "mm/mm_kernel.cu": "__global__ void k(float* x) {}\n", "mm/mm.cpp": "// host\n",
        "ops/setup.py": _cuda_setup('ops', 'ops_cuda', ['k.cu']),
        "ops/k.cu": "__global__ void k(float* x) {}\n",
        "tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "install.sh": "pip uninstall -y mm\nrm -rf build\npip install .\n",
        "scripts/build.sh": "cd ops && pip install -e .\ncd tools && pip install .\n",
        "Dockerfile_cu124": ("FROM base\nWORKDIR /workspace\nRUN pip install .\nCOPY fast-hadamard-transform /workspace/fht\n"
                             "RUN cd fast-hadamard-transform && pip install --no-cache-dir -v -e .\n"
                             "RUN cd tools && pip install -e .\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "install.sh") == [3]
    assert finding_lines(result, "NPU502", "scripts/build.sh") == [1]
    assert finding_lines(result, "NPU502", "Dockerfile_cu124") == [5]


def test_a_dockerfile_whose_workdir_is_the_copied_context_installs_the_repository(tmp_path):
    # `COPY . /home/app/proj/` then `WORKDIR /home/app/proj`: `RUN pip install -e .` runs in the repository (its root
    # or the Dockerfile's folder, the build context) and `-e ops` installs the folder ops/ (pip's editable option takes a
    # folder by any name); after `WORKDIR /mmdet3d`, a clone's folder, `pip install .` is no folder of the repository.
    # A lower-case `dockerfile` is a Dockerfile too.
    write_files(tmp_path, {
        "setup.py": _cuda_setup('mm', 'mm_cuda', ['mm/mm.cpp', 'mm/mm_kernel.cu']),
        "mm/mm_kernel.cu": "__global__ void k(float* x) {}\n", "mm/mm.cpp": "// host\n",
        "ops/setup.py": _cuda_setup('ops', 'ops_cuda', ['k.cu']),
        "ops/k.cu": "__global__ void k(float* x) {}\n",
        "docker/dockerfile": ("FROM base\nRUN pip install .\nCOPY . /home/app/proj/\nWORKDIR /home/app/proj\n"
                              "RUN python -m pip install -e .\nRUN python -m pip install --no-build-isolation -e ops\n"
                              "RUN git clone https://github.com/open-mmlab/mmdetection3d.git /mmdet3d\n"
                              "WORKDIR /mmdet3d\nRUN pip install -e .\n"),
        "tools/ci.sh": "cd $HOME/work\npip install .\ncd ../..\npip install .\n",  # no folder of the repository
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "docker/dockerfile") == [5, 6]
    assert finding_lines(result, "NPU502", "tools/ci.sh") == []


def test_a_dockerfile_pip_install_of_an_image_folder_the_repository_was_copied_into(tmp_path):
    # `COPY csrc /tmp/mm/csrc` + `COPY *.py *.toml /tmp/mm` put the repository's top files (its setup.py) in /tmp/mm:
    # `pip install /tmp/mm` installs the CUDA build (label ruling (L72)); `COPY ops /src/ops` then `pip install
    # /src/ops` installs ops/. A folder of a clone (`git clone ... /opt/lib`) or one no COPY filled is none of ours.
    write_files(tmp_path, {
        "setup.py": _cuda_setup('mm', 'mm_cuda', ['csrc/mm.cpp', 'csrc/mm_kernel.cu']),
        "csrc/mm_kernel.cu": "__global__ void k(float* x) {}\n", "csrc/mm.cpp": "// host\n",
        "ops/setup.py": _cuda_setup('ops', 'ops_cuda', ['k.cu']),
        "ops/k.cu": "__global__ void k(float* x) {}\n",
        "Dockerfile": ("FROM base\nCOPY csrc /tmp/mm/csrc\nCOPY *.py *.toml /tmp/mm\n"
                       "RUN TORCH_CUDA_ARCH_LIST=\"8.0\" pip install /tmp/mm --no-build-isolation\n"
                       "COPY ops /src/ops\nRUN pip install /src/ops\n"
                       "RUN git clone https://github.com/example/lib /opt/lib\nRUN pip install /opt/lib /tmp/other\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "Dockerfile") == [4, 6]


def test_the_cd_lines_of_a_script_are_followed_in_turn(tmp_path):
    # install.sh enters `cd lib/cpp/ops_a` to build, comes back one folder (`cd ../`), enters ops_b from there; a `cd`
    # under the variable holding the project's root (`DIR=$(pwd)` ... `cd $DIR/lib/cpp/ops_a && pip install -e .`)
    # enters that folder of the repository.
    write_files(tmp_path, {
        "lib/cpp/ops_a/setup.py": _cuda_setup('a', 'a_cuda', ['k.cu']), "lib/cpp/ops_a/k.cu": "__global__ void k(float* x) {}\n",
        "lib/cpp/ops_b/setup.py": _cuda_setup('b', 'b_cuda', ['k.cu']), "lib/cpp/ops_b/k.cu": "__global__ void k(float* x) {}\n",
        "install.sh": ("DIR=$(pwd)\ncd lib/cpp/ops_a\npython setup.py install\ncd ../\ncd ops_b\npython setup.py install --user\n"
                       "cd ../../..\ncd $DIR/lib/cpp/ops_a && rm -rf build && pip install -e .\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "install.sh") == [3, 6, 8]


def test_a_module_every_importer_imports_in_try_except_is_an_optional_path(tmp_path):
    # mobiusml/hqq: backends/marlin.py imports marlin at its top; models/base.py and utils/patching.py import it only as
    # `try: from ..backends.marlin import X / except Exception: pass`: optional on a host without marlin. A sibling
    # module that one file imports outside a try keeps its findings.
    write_files(tmp_path, {
        "pkg/__init__.py": "", "pkg/backends/__init__.py": "",
        "pkg/backends/quick.py": "import marlin\ndef mul(a, b):\n    return marlin.mul(a, b)\n",
        "pkg/backends/eager.py": "import marlin\ndef mul(a, b):\n    return marlin.mul(a, b)\n",
        "pkg/utils/__init__.py": "",
        "pkg/utils/patching.py": "try:\n    from ..backends.quick import mul\nexcept Exception:\n    mul = None\n"
                                 "try:\n    from pkg.backends import eager\nexcept ImportError:\n    eager = None\n",
        "pkg/run.py": "from .backends.eager import mul\n",
        # softmax-splatting run.py: the handler imports the same module another way; it is needed either way
        "pkg/backends/twice.py": "import marlin\ndef mul(a, b):\n    return marlin.mul(a, b)\n",
        "pkg/backends/demo.py": "try:\n    from .twice import mul\nexcept:\n    import twice\n",
        # GPTQ-for-LLaMa quant/fused_mlp.py: the repository's own Triton kernels stay work even when imported in a try
        "pkg/kernels/__init__.py": "", "pkg/kernels/tk.py": "import triton\n@triton.jit\ndef k(x):\n    pass\n",
        "pkg/kernels/use.py": "try:\n    from . import tk\nexcept ImportError:\n    tk = None\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "backends/quick.py") == [] and finding_lines(result, "NPU507", "backends/quick.py") == []
    assert finding_lines(result, "NPU501", "backends/eager.py") == [1] and finding_lines(result, "NPU507", "backends/eager.py") == [3]
    assert finding_lines(result, "NPU501", "backends/twice.py") == [1]
    assert finding_lines(result, "NPU501", "kernels/tk.py") == [1] and finding_lines(result, "NPU507", "kernels/tk.py") == [2]


def test_an_attempt_with_no_fallback_whose_name_is_read_after_it_is_no_guard(tmp_path):
    # mit-han-lab/x-attention (labeller note 70e): every importer of the flashinfer prefill module tries it, but the
    # handler only prints or sets a flag nothing reads, and the imported function is called after the try: a NameError
    # without flashinfer, so the module stays required. An attempt whose name nothing reads stays a guard ((L110)).
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/full.py": "import flashinfer\ndef full(q):\n    return flashinfer.single_prefill_with_kv_cache(q, q, q)\n",
        "pkg/patch.py": "try:\n    from pkg.full import full\nexcept:\n    print('Full Prefill Import Fail')\n"
                        "def forward(q, mode):\n    if mode == 'full':\n        return full(q)\n    return q\n",
        "pkg/bench.py": "try:\n    from pkg.full import full\n    FULL = True\nexcept:\n    FULL = False\n"
                        "def run(q):\n    return full(q)\n",
        "pkg/quiet.py": "import flashinfer\ndef f(q):\n    return flashinfer.single_decode_with_kv_cache(q, q, q)\n",
        "pkg/probe.py": "try:\n    from pkg.quiet import f\nexcept:\n    print('no quiet')\n",
        "pkg/flagged.py": "import flashinfer\ndef g(q):\n    return flashinfer.single_decode_with_kv_cache(q, q, q)\n",
        "pkg/tested.py": "try:\n    from pkg.flagged import g\n    HAS_G = True\nexcept:\n    HAS_G = False\n"
                         "def run(q):\n    return g(q) if HAS_G else q\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/full.py") == [1] and finding_lines(result, "NPU507", "pkg/full.py") == [3]
    assert finding_lines(result, "NPU501", "pkg/quiet.py") == [] and finding_lines(result, "NPU501", "pkg/flagged.py") == []


def test_an_extension_wrapper_whose_importer_defines_a_substitute_in_its_handler_is_optional(tmp_path):
    # naver/croco (label note 41a-1): models/pos_embed.py imports the compiled-RoPE wrapper in a try whose ImportError
    # handler defines a pure-PyTorch class of the same name; the wrapper's package imports it, and the wrapper imports
    # the compiled module through its own package (`from . import rope_ext`), which is no way into that package.
    # A wrapper whose importer's handler binds None keeps its extension uses ((L42)); the build stays reported.
    write_files(tmp_path, {
        "models/__init__.py": "",
        "models/rope/setup.py": _cuda_setup("rope_ext", "rope_ext", ["kernels.cu"]),
        "models/rope/kernels.cu": "__global__ void rope(float* x) {}\n",
        "models/rope/__init__.py": "from .wrapper import cuRoPE\n",
        "models/rope/wrapper.py": ("import torch\ntry:\n    import rope_ext as _k\nexcept ModuleNotFoundError:\n"
                                   "    from . import rope_ext as _k\n"
                                   "class cuRoPE(torch.nn.Module):\n    def forward(self, x):\n        _k.rope(x)\n"
                                   "        return x\n"),
        "models/pos.py": ("import torch\ntry:\n    from models.rope import cuRoPE\n    RoPE = cuRoPE\n"
                          "except ImportError:\n    class RoPE(torch.nn.Module):\n        def forward(self, x):\n"
                          "            return x\n"),
        "other/__init__.py": "",
        "other/rope/__init__.py": "from .wrapper import fused\n",
        "other/rope/setup.py": _cuda_setup("other_ext", "other_ext", ["k.cu"]),
        "other/rope/k.cu": "__global__ void k(float* x) {}\n",
        "other/rope/wrapper.py": "from . import other_ext\ndef fused(x):\n    return other_ext.run(x)\n",
        "other/use.py": "try:\n    from other.rope import fused\nexcept ImportError:\n    fused = None\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "models/rope/wrapper.py") == []
    assert finding_lines(result, "NPU505", "models/rope/setup.py") != []
    assert finding_lines(result, "NPU508", "other/rope/wrapper.py") == [1, 3]


def test_a_module_every_importer_imports_under_an_availability_check_is_an_optional_path(tmp_path):
    # xdit-project/xDiT: xfuser/core/distributed/fp4_quantize.py imports flashinfer at its top; its only importer,
    # attention_backend.py, imports it under `if env_info["has_flash_attn_4_fp4"]:`. A module imported under a test that
    # names no package (`if args.fast:`) keeps its findings, and so does one whose import sits in the else branch.
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/fp4.py": "from flashinfer.quantization import nvfp4_quantize\ndef q(x):\n    return nvfp4_quantize(x)\n",
        "pkg/fast.py": "import flashinfer\ndef d(q, k, v):\n    return flashinfer.single_decode_with_kv_cache(q, k, v)\n",
        "pkg/other.py": "import flashinfer\ndef p(x):\n    return flashinfer.sampling.top_p_sampling_from_probs(x, 0.9)\n",
        "pkg/backend.py": (
            "from .env import env_info, HAS_FLASHINFER, args\n"
            "if env_info[\"has_flash_attn_4_fp4\"]:\n"
            "    from pkg.fp4 import q\n"
            "if HAS_FLASHINFER and args.decode:\n"
            "    from pkg import fp4\n"
            "if args.fast:\n"
            "    from pkg.fast import d\n"
            "if is_flashinfer_available():\n"
            "    pass\n"
            "else:\n"
            "    from pkg.other import p\n"),
        "pkg/env.py": "env_info = {}\nHAS_FLASHINFER = False\nargs = None\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/fp4.py") == [] and finding_lines(result, "NPU507", "pkg/fp4.py") == []
    assert finding_lines(result, "NPU501", "pkg/fast.py") == [1] and finding_lines(result, "NPU507", "pkg/fast.py") == [3]
    assert finding_lines(result, "NPU501", "pkg/other.py") == [1]


def test_a_module_imported_only_by_the_methods_of_a_self_probing_backend_class_is_an_optional_path(tmp_path):
    # a serving framework's vLLM backend answers for itself (`check_lib`, asked by the engine registry elsewhere) and
    # imports, in a method, a module of its own built on vLLM internals: that module runs only where vllm is (label
    # rule 46e e-4). A module the probe method itself imports, or one a class without a probe imports, stays; so do the
    # Triton kernels of a module reached so (the probe asks about vllm, not triton).
    write_files(tmp_path, {
        "srv/__init__.py": "",
        "srv/backend.py": (
            "import importlib\n"
            "try:\n    import vllm\n    HAVE_VLLM = True\nexcept ImportError:\n    HAVE_VLLM = False\n"
            "class VLLMModel:\n"
            "    @classmethod\n"
            "    def check_lib(cls):\n"
            "        try:\n            importlib.import_module(\"vllm\")\n"
            "        except ImportError as exc:\n            return False, f\"no vLLM: {exc}\"\n"
            "        return True\n"
            "    def load(self):\n"
            "        from .custom_engine import CustomEngine\n"
            "        from .fused import fused\n"
            "        return CustomEngine(fused)\n"
            "class PlainModel:\n"
            "    def load(self):\n"
            "        from .plain_engine import PlainEngine\n"
            "        return PlainEngine()\n"),
        "srv/custom_engine.py": (
            "from vllm.engine.async_llm_engine import AsyncLLMEngine\n"
            "from .scheduler import Sched\n"
            "class CustomEngine(AsyncLLMEngine):\n    pass\n"),
        "srv/scheduler.py": "from vllm.core.scheduler import Scheduler\nclass Sched(Scheduler):\n    pass\n",
        "srv/plain_engine.py": "from vllm.engine.async_llm_engine import AsyncLLMEngine\nclass PlainEngine(AsyncLLMEngine):\n    pass\n",
        "srv/fused.py": (
            "import triton\nimport triton.language as tl\n"
            "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n"
            "def fused(x):\n    k[(1,)](x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "srv/custom_engine.py") == []
    assert finding_lines(result, "NPU507", "srv/custom_engine.py") == []
    assert finding_lines(result, "NPU501", "srv/scheduler.py") == []  # relayed by the backend's module
    assert finding_lines(result, "NPU501", "srv/plain_engine.py") == [1]
    assert finding_lines(result, "NPU507", "srv/fused.py") != []


def test_a_module_imported_in_the_else_of_an_import_attempt_of_the_package_is_an_optional_path(tmp_path):
    # `try: from megablocks import ops / except ModuleNotFoundError: pass / else: from .sparse_moe import SparseMoE`:
    # the `else:` runs only where the package imported, like the body of an availability check. An `else:` of an
    # attempt at a package the catalogue does not know (a CPU dependency) checks nothing GPU-only: the module stays.
    write_files(tmp_path, {
        "moe/__init__.py": (
            "try:\n    from megablocks import ops\nexcept ModuleNotFoundError:\n    pass\n"
            "else:\n    from moe.sparse_moe import SparseMoE\n"
            "try:\n    import yaml\nexcept ImportError:\n    pass\nelse:\n    from moe.dense_moe import DenseMoE\n"),
        "moe/sparse_moe.py": "from megablocks import ops\ndef route(x, bins):\n    return ops.histogram(x, bins)\n",
        "moe/dense_moe.py": "from megablocks import ops\ndef route(x, bins):\n    return ops.histogram(x, bins)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "moe/sparse_moe.py") == []
    assert finding_lines(result, "NPU507", "moe/sparse_moe.py") == []
    assert finding_lines(result, "NPU501", "moe/dense_moe.py") == [1]


def test_own_triton_kernels_reached_only_through_a_checked_backend_selection_are_an_optional_path(tmp_path):
    # label ruling (L42): a backend registry offers its Triton backend only where `require_version` of the registered
    # requirements passes; the dispatcher imports the backend's layer only in that key's branch, and the layer imports
    # the kernels in a try whose stand-in raises. The kernels go; so do kernels whose every importer records an
    # availability flag. A layer some plain module imports keeps its kernels (rule (y5): the stand-in fails the call).
    write_files(tmp_path, {
        "pkg/__init__.py": "", "pkg/tk/__init__.py": "",
        "pkg/tk/dequant.py": "import triton\n@triton.jit\ndef k(x):\n    pass\ndef mm(x):\n    k[(1,)](x)\n",
        "pkg/tk/plain.py": "import triton\n@triton.jit\ndef k(x):\n    pass\n",
        "pkg/tk/flagged.py": "import triton\n@triton.jit\ndef k(x):\n    pass\n",
        "pkg/qlinear_triton.py": ("try:\n    from pkg.tk.dequant import mm\nexcept ImportError as e:\n"
                                  "    def mm(*args):\n        raise ValueError('install triton')\n"),
        "pkg/qlinear_plain.py": "try:\n    from pkg.tk.plain import k\nexcept ImportError:\n    k = None\n",
        "pkg/torch_layer.py": ("try:\n    from pkg.tk.flagged import k\n    _TRITON_AVAILABLE = True\n"
                               "except Exception:\n    k = None\n    _TRITON_AVAILABLE = False\n"),
        "pkg/backend.py": (
            "from transformers.utils.versions import require_version\n"
            "class BackendInfo:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n"
            "BackendInfos = {}\n"
            "BackendInfos['acme:triton'] = BackendInfo(device=['cuda'], requirements=['triton>=2.0'])\n"
            "BackendInfos['acme:torch'] = BackendInfo(device=['cpu', 'cuda'], requirements=['torch'])\n"
            "def compatible(name):\n    for requirement in BackendInfos[name].requirements:\n"
            "        try:\n            require_version(requirement)\n        except ImportError:\n            return False\n"
            "    return True\n"
            "def layer(backend):\n"
            "    if backend == 'acme:triton':\n        from pkg.qlinear_triton import mm\n        return mm\n"
            "    if backend == 'acme:torch':\n        from pkg.qlinear_plain import k\n        return k\n"),
        "pkg/run.py": "from pkg.qlinear_plain import k\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "tk/dequant.py") == [] and finding_lines(result, "NPU507", "tk/dequant.py") == []
    assert finding_lines(result, "NPU501", "tk/flagged.py") == [] and finding_lines(result, "NPU507", "tk/flagged.py") == []
    assert finding_lines(result, "NPU501", "tk/plain.py") == [1] and finding_lines(result, "NPU507", "tk/plain.py") == [2]


def test_kernels_whose_none_stand_in_every_importer_tests_are_an_optional_path(tmp_path):
    # label ruling 40b-3/40b-4: an SSM block imports its Triton step kernel and norm in a try whose handler binds None,
    # then tests the stand-in (`if step is None:` takes a torch path, `assert Norm is not None` before the fused
    # path): the kernels are reached only where triton is. A module that binds None and never tests it keeps its
    # kernels (rule (y5): the None call fails on an NPU host)
    write_files(tmp_path, {
        "ssm/__init__.py": "", "ssm/ops/__init__.py": "",
        "ssm/ops/step.py": "import triton\n@triton.jit\ndef _k(x):\n    pass\ndef step(x):\n    _k[(1,)](x)\n",
        "ssm/ops/norm.py": "import triton\n@triton.jit\ndef _n(x):\n    pass\nclass Norm:\n    pass\n",
        "ssm/ops/untested.py": "import triton\n@triton.jit\ndef _u(x):\n    pass\n",
        "ssm/block.py": (
            "try:\n    from ssm.ops.step import step\nexcept ImportError:\n    step = None\n"
            "try:\n    from ssm.ops.norm import Norm\nexcept ImportError:\n    Norm, other = None, None\n"
            "try:\n    from ssm.ops.untested import _u\nexcept ImportError:\n    _u = None\n"
            "def forward(x, fused):\n    if step is None:\n        return x * 2\n"
            "    if fused:\n        assert Norm is not None, 'Norm import fails'\n    return step(x), _u\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "ops/step.py") == [] and finding_lines(result, "NPU507", "ops/step.py") == []
    assert finding_lines(result, "NPU501", "ops/norm.py") == [] and finding_lines(result, "NPU507", "ops/norm.py") == []
    assert finding_lines(result, "NPU501", "ops/untested.py") == [1] and finding_lines(result, "NPU507", "ops/untested.py") == [2]


def test_kernels_behind_a_tested_stand_in_in_a_package_that_needs_their_language_stay(tmp_path):
    # mamba_ssm 2.0.4 (vendored by PointMamba, labels 65b): modules/mamba_simple.py imports its Triton step kernel in a
    # try whose None stand-in it tests ((L59)), but the package `__init__` imports mamba2.py, which imports the Triton
    # combined-scan module unguarded: without triton the package (and so the importer) does not import, the check never
    # takes its torch path, and where triton is there the step kernel runs. A kernel module whose importer lies outside
    # that package keeps the (L59) reading.
    write_files(tmp_path, {
        "ssm/__init__.py": "from ssm.mamba2 import Mamba2\n",
        "ssm/ops/__init__.py": "",
        "ssm/ops/combined.py": "import triton\n@triton.jit\ndef _c(x):\n    pass\ndef scan(x):\n    _c[(1,)](x)\n",
        "ssm/ops/step.py": "import triton\n@triton.jit\ndef _k(x):\n    pass\ndef step(x):\n    _k[(1,)](x)\n",
        "ssm/ops/norm.py": "import triton\n@triton.jit\ndef _n(x):\n    pass\ndef norm(x):\n    _n[(1,)](x)\n",
        "ssm/mamba2.py": "from ssm.ops.combined import scan\nclass Mamba2:\n    pass\n",
        "ssm/simple.py": (
            "try:\n    from ssm.ops.step import step\nexcept ImportError:\n    step = None\n"
            "def forward(x):\n    if step is None:\n        return x * 2\n    return step(x)\n"),
        # a device selection inside the same package (AngelSlim's `if use_triton():`, label note 61c) stays one
        "ssm/ops/sel.py": "import triton\n@triton.jit\ndef _s(x):\n    pass\ndef sel(x):\n    _s[(1,)](x)\n",
        "ssm/dispatch.py": (
            "import torch\nif torch.cuda.is_available():\n    from ssm.ops.sel import sel\nelse:\n    sel = None\n"),
        "app/run.py": (
            "try:\n    from ssm.ops.norm import norm\nexcept ImportError:\n    norm = None\n"
            "def forward(x):\n    if norm is None:\n        return x\n    return norm(x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "ops/combined.py") == [1]
    assert finding_lines(result, "NPU501", "ops/step.py") == [1] and finding_lines(result, "NPU507", "ops/step.py") == [2, 6]
    assert finding_lines(result, "NPU501", "ops/norm.py") == [] and finding_lines(result, "NPU507", "ops/norm.py") == []
    assert finding_lines(result, "NPU501", "ops/sel.py") == [] and finding_lines(result, "NPU507", "ops/sel.py") == []


def test_a_guarded_reexport_that_a_plain_import_needs_is_no_guard(tmp_path):
    # label ruling (L42): the kernels package `__init__` binds its Triton kernels only `if HAS_TRITON:`, but the
    # engine imports `from eng.kernels import attention` at its top: where triton is absent the name is missing and
    # that import fails, so attn.py's kernels are reached with no check. softmax.py, bound under the same check but
    # imported by nobody, and norm.py, whose only importer asks for the flag first, stay an optional path.
    write_files(tmp_path, {
        "eng/__init__.py": "",
        "eng/kernels/__init__.py": (
            "try:\n    import triton\n    HAS_TRITON = True\nexcept ImportError:\n    HAS_TRITON = False\n"
            "if HAS_TRITON:\n    from .attn import attention\n    from .softmax import softmax\n"
            "    from .norm import rms_norm\n"),
        "eng/kernels/attn.py": "import triton\n@triton.jit\ndef _k(x):\n    pass\ndef attention(x):\n    _k[(1,)](x)\n",
        "eng/kernels/softmax.py": "import triton\n@triton.jit\ndef _k(x):\n    pass\ndef softmax(x):\n    _k[(1,)](x)\n",
        "eng/kernels/norm.py": "import triton\n@triton.jit\ndef _k(x):\n    pass\ndef rms_norm(x):\n    _k[(1,)](x)\n",
        "eng/backend.py": "from eng.kernels import attention\ndef prefill(x):\n    return attention(x)\n",
        "eng/layers.py": ("from eng.kernels import HAS_TRITON\nif HAS_TRITON:\n    from eng.kernels import rms_norm\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "kernels/attn.py") == [1]
    assert finding_lines(result, "NPU507", "kernels/attn.py") == [2, 6]
    assert finding_lines(result, "NPU507", "kernels/softmax.py") == []
    assert finding_lines(result, "NPU507", "kernels/norm.py") == []


def test_a_flag_of_any_name_set_false_by_a_failed_import_of_the_package_checks_it(tmp_path):
    # a repository copies a Triton kernel package and imports its entry module only under `if WITH_TRITON:`, the flag
    # set False by the module's own failed `import triton` (a torch implementation is selected otherwise): the kernels
    # and the modules they relay go. A flag set False by a failed import of a CPU dependency checks nothing GPU-only.
    write_files(tmp_path, {
        "ops/__init__.py": "",
        "ops/kern.py": "import triton\n@triton.jit\ndef k(x):\n    pass\ndef run(x):\n    k[(1,)](x)\n",
        "ops/combined.py": "import triton\nfrom .kern import run\ndef scan(x):\n    return run(x)\n",
        "ops/other.py": "import triton\n@triton.jit\ndef k(x):\n    pass\n",
        "ops/minimal.py": (
            "WITH_TRITON = True\ntry:\n    import triton\nexcept ImportError:\n    WITH_TRITON = False\n"
            "if WITH_TRITON:\n    from .combined import scan\n"
            "WITH_YAML = True\ntry:\n    import yaml\nexcept ImportError:\n    WITH_YAML = False\n"
            "if WITH_YAML:\n    from .other import k\n"
            "def scan_torch(x):\n    return x.cumsum(-1)\n"
            "def pick(x):\n    return (scan if WITH_TRITON and x.is_cuda else scan_torch)(x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "ops/kern.py") == [] and finding_lines(result, "NPU507", "ops/kern.py") == []
    assert finding_lines(result, "NPU501", "ops/combined.py") == []
    assert finding_lines(result, "NPU501", "ops/other.py") == [1] and finding_lines(result, "NPU507", "ops/other.py") == [2]


def test_a_module_imported_under_a_check_of_another_package_stays_required(tmp_path):
    # huggingface/trl d708ec27 trainer/__init__.py: `if is_diffusers_available(): from .ddpo_trainer import DDPOTrainer`;
    # ddpo_trainer.py imports bitsandbytes for its 8-bit Adam option. diffusers is no GPU-only package (it runs on an NPU
    # host), so the check does not make the module optional: its findings stay (set 23, (s23a-5)). A check of the package
    # the module uses (`is_bitsandbytes_available()`) or of an accelerator still does.
    write_files(tmp_path, {
        "pkg/__init__.py": "from .utils import is_diffusers_available, is_bitsandbytes_available\n",
        "pkg/utils.py": "def is_diffusers_available():\n    return True\ndef is_bitsandbytes_available():\n    return True\n",
        "pkg/trainer/__init__.py": (
            "from ..utils import is_diffusers_available, is_bitsandbytes_available\n"
            "if is_diffusers_available():\n    from .ddpo import DDPOTrainer\n"
            "if is_bitsandbytes_available():\n    from .quant import Quant\n"
            "if is_torch_cuda_available():\n    from .fast import Fast\n"),
        "pkg/trainer/ddpo.py": "import bitsandbytes\nopt = bitsandbytes.optim.AdamW8bit\nclass DDPOTrainer: pass\n",
        "pkg/trainer/quant.py": "import bitsandbytes\nopt = bitsandbytes.optim.AdamW8bit\nclass Quant: pass\n",
        "pkg/trainer/fast.py": "import bitsandbytes\nopt = bitsandbytes.optim.AdamW8bit\nclass Fast: pass\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "pkg/trainer/ddpo.py") == [1]
    assert finding_lines(result, "NPU501", "pkg/trainer/quant.py") == [] and finding_lines(result, "NPU501", "pkg/trainer/fast.py") == []


def test_a_check_named_after_the_packages_alias_is_an_availability_check(tmp_path):
    # a LoRA-style library: tuners/lora/quant8.py imports bitsandbytes at its top, and its importers ask through a helper
    # named after the package's import alias (`import bitsandbytes as bnb`): `is_bnb_available()`, `is_bnb_4bit_available()`,
    # alone or in an `and` inside a module `__getattr__`. A check named after nothing in the catalogue keeps the findings.
    write_files(tmp_path, {
        "lib/__init__.py": "", "lib/tuners/__init__.py": "",
        "lib/checks.py": "import importlib.util\ndef is_bnb_available():\n    return importlib.util.find_spec('bitsandbytes') is not None\n",
        "lib/tuners/lora/__init__.py": (
            "from lib.checks import is_bnb_available, is_bnb_4bit_available\n"
            "def __getattr__(name):\n"
            "    if name == 'Linear8bit' and is_bnb_available():\n"
            "        from .quant8 import Linear8bit\n"
            "        return Linear8bit\n"
            "    raise AttributeError(name)\n"),
        "lib/tuners/lora/model.py": (
            "from lib.checks import is_bnb_4bit_available, is_quant_available\n"
            "def dispatchers():\n"
            "    out = []\n"
            "    if is_bnb_4bit_available():\n"
            "        from .quant8 import dispatch_4bit\n"
            "        out.append(dispatch_4bit)\n"
            "    if is_quant_available():\n"
            "        from .quant_other import dispatch\n"
            "        out.append(dispatch)\n"
            "    return out\n"),
        "lib/tuners/lora/quant8.py": (
            "import bitsandbytes as bnb\n"
            "class Linear8bit(bnb.nn.Linear8bitLt):\n    pass\n"
            "def dispatch_4bit(target):\n    return isinstance(target, bnb.nn.Linear4bit)\n"),
        "lib/tuners/lora/quant_other.py": "import bitsandbytes as bnb\ndef dispatch(t):\n    return bnb.nn.Linear4bit\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "lora/quant8.py") == [] and finding_lines(result, "NPU507", "lora/quant8.py") == []
    assert finding_lines(result, "NPU501", "lora/quant_other.py") == [1] and finding_lines(result, "NPU507", "lora/quant_other.py") == [3]


def test_kernels_built_side_by_side_keep_their_own_sources(tmp_path):
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(ext_modules=[CUDAExtension('a_ext', ['ops/a.cpp', 'ops/a.cu']),\n"
            "                   CUDAExtension('b_ext', ['ops/b.cpp', 'ops/b_kernel.cu'])])\n"
        ),
        "ops/a.cu": "__global__ void a(float* x) {}\n",
        "ops/b_kernel.cu": "__global__ void b(float* x) {}\n",
        "model.py": "import a_ext\nimport b_ext\ny = a_ext.run(1) + b_ext.run(2)\n",
    })
    rows = {r["extension"]: r for r in verdict.summary(_scan(tmp_path))["kernels_to_port"]}
    assert {name: [Path(s).name for s in row["sources"]] for name, row in rows.items()} == {
        "a_ext": ["a.cu"], "b_ext": ["b_kernel.cu"]}


def test_second_pass_kernel_libraries_are_in_the_catalogue(tmp_path):
    write_files(tmp_path, {"train.py": (
        "from gsplat import rasterization\nfrom simple_knn._C import distCUDA2\nimport marlin\n"
        "import spconv.pytorch as spconv\nfrom exllamav2 import ExLlamaV2\nfrom pytorch3d.ops import knn_points\n"
        "d = distCUDA2(x)\nlayer = marlin.Layer(4096, 4096)\nconv = spconv.SubMConv3d(16, 32, 3)\nk = knn_points(a, b)\n"
    )})
    result = _scan(tmp_path)
    errors = {f.line for f in result.findings if f.code == "NPU501" and f.severity.name == "ERROR"}
    assert errors == {1, 2, 3, 5}
    # pytorch3d builds its C++ ops for the CPU without CUDA, and spconv publishes a CPU build on PyPI (cumm, not
    # cumm-cu1xx): partial `info` by the catalogue's partial-package policy, so neither import nor use is reported
    # (label rulings (ee), (L23); set 22, MVIG-SJTU/AlphaPose render_pytorch3d.py)
    assert not [f for f in result.findings if f.line in (4, 6, 9, 10)]
    assert finding_lines(result, "NPU507", "train.py") == [7, 8]
    assert verdict.summary(result)["unknown_dependencies"] == {}
    assert "npu_weight_quant_batchmatmul" in next(f.message for f in result.findings if f.code == "NPU501" and f.line == 3)


def test_unsloth_is_in_the_catalogue(tmp_path):
    # unsloth accepts CUDA / HIP / XPU / MPS devices only (its device_type.py) and patches models with Triton kernels:
    # its import, the model built from its class, and its requirement line (a git direct reference with an extra)
    write_files(tmp_path, {
        "train.py": ("from unsloth import FastLanguageModel\n"
                     "model, tok = FastLanguageModel.from_pretrained(model_name=name, max_seq_length=2048)\n"),
        "requirements.txt": "peft\nunsloth[colab] @ git+https://github.com/unslothai/unsloth.git\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "train.py") == [1] and finding_lines(result, "NPU507", "train.py") == [2]
    assert finding_lines(result, "NPU502", "requirements.txt") == [2]


def test_git_installed_point_cloud_ops_and_deepspeed_cpu_adagrad_in_the_catalogue(tmp_path):
    # P4Transformer's pointnet2_utils.py imports erikwijmans' pointnet2_ops (a CUDAExtension-only package installed
    # from git) under a `try:` whose handler raises; a copy of DeepSpeed's engine builds DeepSpeedCPUAdagrad, a host
    # optimizer DeepSpeed builds for the NPU too; its other ops stay unsupported
    write_files(tmp_path, {"utils.py": (
        "try:\n    import pointnet2_ops._ext as _ext\nexcept ImportError:\n    raise ImportError('build the ops')\n"
        "def fps(xyz, n):\n    return _ext.furthest_point_sampling(xyz, n)\n"
    ), "engine.py": (
        "from deepspeed.ops.adagrad import DeepSpeedCPUAdagrad\nfrom deepspeed.ops.transformer import DeepSpeedTransformerLayer\n"
        "opt = DeepSpeedCPUAdagrad(params)\nlayer = DeepSpeedTransformerLayer(cfg)\n"
    )})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "utils.py") == [2] and finding_lines(result, "NPU507", "utils.py") == [6]
    assert finding_lines(result, "NPU501", "engine.py") == [2] and finding_lines(result, "NPU507", "engine.py") == [4]
    assert "pointnet2_ops" not in verdict.summary(result)["unknown_dependencies"]


def test_an_extension_built_in_place_is_imported_relatively_beside_its_setup_py(tmp_path):
    # DUSt3R/CroCo's curope (Open-Sora-Plan copies it): `python setup.py build_ext --inplace` puts `curope` beside
    # the setup.py, and the fallback import of curope3d.py reaches it relatively; a JIT `load(name=...)` module is
    # top-level only, so a relative import of that name elsewhere stays a plain module of the repository
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/curope/__init__.py": "from .curope3d import cuRoPE3D\n",
        "pkg/curope/setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='curope', ext_modules=[CUDAExtension(name='curope', sources=['curope.cpp', 'kernels.cu'])])\n"),
        "pkg/curope/kernels.cu": "__global__ void k(float* x) {}\n",
        "pkg/curope/curope3d.py": (
            "try:\n    import curope as _kernels\nexcept ModuleNotFoundError:\n    from . import curope as _kernels\n"
            "def f(t):\n    _kernels.rope_3d(t)\n"),
        "jit/ops.py": "from torch.utils.cpp_extension import load\nfused = load(name='fused', sources=['f.cu'])\n",
        "jit/user.py": "from . import fused\ny = fused.run(1)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "curope3d.py") == [2, 4, 6]
    assert finding_lines(result, "NPU508", "user.py") == []


def test_an_extension_built_in_place_by_a_setup_script_of_another_name_is_imported_relatively_or_qualified(tmp_path):
    # leoxiaobin/deep-high-resolution-net.pytorch 6f69e46 lib/nms/setup_linux.py: `Extension('gpu_nms', [...cu, ...pyx])`
    # built `--inplace` in the package folder lib/nms/; nms.py imports `from .gpu_nms import gpu_nms` and calls it.
    # The bare name resolves from the setup script's folder: relatively, and qualified by the packages above it.
    write_files(tmp_path, {
        "lib/__init__.py": "",
        "lib/nms/__init__.py": "",
        "lib/nms/setup_linux.py": (
            "from setuptools import setup, Extension\n"
            "setup(ext_modules=[Extension('gpu_nms', ['nms_kernel.cu', 'gpu_nms.pyx'])])\n"),
        "lib/nms/nms_kernel.cu": "__global__ void k(float* x) {}\n",
        "lib/nms/nms.py": "from .gpu_nms import gpu_nms\ndef nms(d, t):\n    return gpu_nms(d, t, 0)\n",
        "tools/run.py": "from lib.nms.gpu_nms import gpu_nms\nkeep = gpu_nms(1, 2, 0)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "nms/nms.py") == [1, 3]
    assert finding_lines(result, "NPU508", "tools/run.py") == [1, 2]


def test_a_top_level_extension_the_build_places_in_a_folder_is_imported_from_that_folder(tmp_path):
    # ByteDance-Seed/ShadowKV e51904c setup.py: `CUDAExtension(name='shadowkv', sources=['kernels/main.cu', ...])`, then
    # `shutil.move(so_file, os.path.join('kernels', so_file))`; models/*.py import `from kernels import shadowkv` (kernels/
    # holds the .cu files and no __init__.py). A folder's real module of that name, or an __init__.py that could bind
    # it, is what the import finds instead.
    write_files(tmp_path, {
        "setup.py": (
            "import os, shutil\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='skv', ext_modules=[CUDAExtension(name='skv', sources=['kernels/main.cu'])])\n"
            "for so in (f for f in os.listdir('.') if f.endswith('.so')):\n    shutil.move(so, os.path.join('kernels', so))\n"),
        "kernels/main.cu": "__global__ void k(float* x) {}\n",
        "models/__init__.py": "",
        "models/ops.py": "from kernels import skv\ndef f(t):\n    skv.rope(t)\n",
        "other/setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(ext_modules=[CUDAExtension(name='fused', sources=['k.cu']), CUDAExtension(name='packed', sources=['k.cu'])])\n"),
        "other/k.cu": "__global__ void k(float* x) {}\n",
        "wrappers/fused.py": "def run(t):\n    return t\n",
        "pkg/__init__.py": "from .impl import packed\n",
        "pkg/impl.py": "def packed(t):\n    return t\n",
        "models/more.py": "from wrappers import fused\nfrom pkg import packed\nfused.run(1)\npacked(2)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "models/ops.py") == [1, 3]
    assert finding_lines(result, "NPU508", "models/more.py") == []


# ---- unknown dependencies also from manifests and literal importlib imports ------------------------------
DECLARED = {
    "requirements.txt": "acme_imaging>=1.24\nflash-attn==2.5.0\ntorch\n-e .\nacme-vision  # image io\n",
    "requirements-dev.txt": "acme-lint\n",
    "pyproject.toml": '[project]\nname = "proj"\ndependencies = [\n  "acme-ops",\n  "proj-utils",\n]\n',
    "setup.py": "from setuptools import setup\nsetup(name='proj', install_requires=['acme-bar', 'triton'])\n",
    "proj/__init__.py": "",
    "proj_utils/__init__.py": "",
    "proj/train.py": "import importlib\nimport acme_imaging as ai\nloader = importlib.import_module('acme_loader.tariterators')\n"
                     "own = importlib.import_module('.model', 'proj')\n",
}


def test_unknown_dependencies_come_from_manifests_and_literal_importlib_imports(tmp_path):
    write_files(tmp_path, DECLARED)
    unknown = verdict.summary(_scan(tmp_path))["unknown_dependencies"]
    # declared and imported under one name: one entry with both places; flash-attn (catalogue pip
    # name), torch, proj-utils (the repository's own package), `-e .` and a relative importlib
    # import are not unknown; triton is in the knowledge base
    assert unknown["acme_imaging"] == [f"{tmp_path}/proj/train.py:2", f"{tmp_path}/requirements.txt:1"]
    assert unknown["acme_loader"] == [f"{tmp_path}/proj/train.py:3"]
    assert unknown["acme-vision"] == [f"{tmp_path}/requirements.txt:5"]
    assert unknown["acme-lint"] == [f"{tmp_path}/requirements-dev.txt:1"]
    assert unknown["acme-ops"] == [f"{tmp_path}/pyproject.toml:4"]
    assert unknown["acme-bar"] == [f"{tmp_path}/setup.py:2"]
    assert set(unknown) == {"acme_imaging", "acme_loader", "acme-vision", "acme-lint", "acme-ops", "acme-bar"}


def test_device_neutral_packages_are_known_and_gpu_only_ones_still_reported(tmp_path):
    """A train script of the usual stack (numpy, PIL, cv2, yaml, sklearn, scipy, tqdm; pillow, opencv-python,
    PyYAML, scikit-learn in its requirements): each was verified from its own wheel to run without CUDA
    (knowledge/data/device_neutral.toml), so none is among the dependencies npu-migrate does not know; a made-up
    package still is, and the GPU-only ones stay findings: onnxruntime-gpu's pin (NPU502) though `onnxruntime`,
    the CPU build's import name, is device-neutral, and pycuda (NPU501)."""
    write_files(tmp_path, {
        "requirements.txt": "numpy\npillow>=9\nopencv-python\nPyYAML\nscikit-learn\nonnxruntime-gpu\nacme-vision\n",
        "train.py": "import numpy as np\nfrom PIL import Image\nimport cv2\nimport yaml\nfrom sklearn.metrics import f1_score\n"
                    "from scipy import ndimage\nfrom tqdm import tqdm\nimport onnxruntime\nimport acme_imaging\n"
                    "import pycuda.driver as drv\n"})
    result = _scan(tmp_path)
    assert verdict.summary(result)["unknown_dependencies"] == {
        "acme-vision": [f"{tmp_path}/requirements.txt:7"], "acme_imaging": [f"{tmp_path}/train.py:9"]}
    assert finding_lines(result, "NPU502", "requirements.txt") == [6]
    assert finding_lines(result, "NPU501", "train.py") == [10]

def test_a_single_scanned_script_owns_the_modules_beside_it(tmp_path):
    """`analyze main.py` of kuangliu/pytorch-cifar: main.py imports its own `models/` package and `utils.py`,
    which were not scanned; they are the script's (its folder is sys.path[0]), not unknown dependencies. A
    package that is not beside it still is."""
    write_files(tmp_path, {"main.py": "import acme_imaging\nimport torch\nfrom models import *\nfrom utils import progress_bar\n",
                      "utils.py": "def progress_bar(): pass\n", "models/__init__.py": "", "models/dla.py": ""})
    result = scan([str(tmp_path / "main.py")], use_cache=False, torch_npu_version=NEWEST)
    assert verdict.summary(result)["unknown_dependencies"] == {"acme_imaging": [f"{tmp_path / 'main.py'}:1"]}


def test_a_jit_build_whose_cuda_sources_are_a_module_level_list_read_by_a_comprehension(tmp_path):
    """DirectVoxGO lib/masked_adam.py's shape: `sources = ['cuda/a.cpp', 'cuda/a_kernel.cu']` at module level, then
    `load(name=..., sources=[os.path.join(d, p) for p in sources])`: a CUDA build (NPU505 on the call), and the
    calls of its module are kernel uses (NPU508)."""
    write_files(tmp_path, {"lib/adam.py": (
        "import os\nfrom torch.utils.cpp_extension import load\nd = os.path.dirname(os.path.abspath(__file__))\n"
        "sources = ['cuda/adam_upd.cpp', 'cuda/adam_upd_kernel.cu']\n"
        "adam_upd_cuda = load(name='adam_upd_cuda', sources=[os.path.join(d, p) for p in sources], verbose=True)\n"
        "def step(p, g):\n    adam_upd_cuda.adam_upd(p, g)\n")})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "adam.py") == [4, 5]
    assert finding_lines(result, "NPU508", "adam.py") == [7]


def test_a_broken_link_into_an_absent_submodule_is_no_own_module(tmp_path):
    """fla-org/native-sparse-attention commits `fla -> 3rdparty/flash-linear-attention/fla` into a git submodule
    that a plain checkout lacks: the link is NPU903 (broken), and its name is the external package's, not the
    repository's own module. An unknown name behind such a link is an unknown dependency; a catalogued one (fla)
    is reported where it is imported."""
    write_files(tmp_path, {"train.py": "import flame\nfrom fla.ops.utils import prepare_lens\n"})
    (tmp_path / "flame").symlink_to("3rdparty/flame/flame")
    (tmp_path / "fla").symlink_to("3rdparty/flash-linear-attention/fla")
    result = _scan(tmp_path)
    assert sorted(e.path for e in result.errors if e.code == "NPU903") == [str(tmp_path / "fla"), str(tmp_path / "flame")]
    assert verdict.summary(result)["unknown_dependencies"] == {"flame": [f"{tmp_path / 'train.py'}:1"]}
    assert finding_lines(result, "NPU501", "train.py") == [2]


def test_torchvision_is_known_and_not_reported(tmp_path):
    """torchvision (the catalogue's entry: PyTorch code, its ops through Ascend's Torchvision Adapter) is not an
    unknown dependency of every image script, and importing it is no finding; a package nothing knows still is unknown."""
    write_files(tmp_path, {"train.py": "import acme_imaging as ai\nimport torchvision\nfrom torchvision import transforms\n"
                                  "model = torchvision.models.resnet18()\n"})
    result = _scan(tmp_path)
    assert list(verdict.summary(result)["unknown_dependencies"]) == ["acme_imaging"]
    assert [f for f in result.findings if f.code in ("NPU501", "NPU507")] == []


# ---- exllama's shape: a JIT build named by a module constant, reached as `cuda_ext.exllama_ext.op` -----------
EXLLAMA = {
    "cuda_ext.py": (
        "import os\nfrom torch.utils.cpp_extension import load\nextension_name = 'exllama_ext'\n"
        "exllama_ext = load(name=extension_name, sources=['exllama_ext/q4.cu', 'exllama_ext/b.cpp'])\n"
        "from exllama_ext import q4_matmul\n"
        "def ext_q4_matmul(x, q4):\n    return q4_matmul(x, q4)\n"
        "from exllama_ext import rep_penalty\n"
        "def ext_rep_penalty_mask_cpu(seq, mask):\n    rep_penalty(seq, mask)\n"
    ),
    "exllama_ext/q4.cu": "__global__ void q4(float* x) {}\n",
    "model.py": "import cuda_ext\ndef f(x, q4):\n    cuda_ext.exllama_ext.q4_mlp(x)\n    return cuda_ext.ext_q4_matmul(x, q4)\n",
    "generator.py": "import cuda_ext\ndef g(x, q4):\n    return cuda_ext.ext_q4_matmul(x, q4)\n",
}


def test_a_kernel_module_held_by_another_module_is_followed_through_its_attribute(tmp_path):
    write_files(tmp_path, EXLLAMA)
    result = _scan(tmp_path)
    # the build's name is a module constant: the import of the extension and its op call are its uses,
    # reported once (NPU508), not also as the catalogue's exllama_ext package (NPU501 / NPU507)
    # the op called in the wrapper named for the CPU (its C++ is a host loop in the same extension) is a use too: the
    # JIT build has CUDA sources only and no CPU build, so the module does not exist without nvcc (label ruling (L89)
    # over set 25a-4)
    assert finding_lines(result, "NPU508", "cuda_ext.py") == [5, 7, 8, 10]
    assert finding_lines(result, "NPU501", "cuda_ext.py") == [] and finding_lines(result, "NPU507", "cuda_ext.py") == []
    # model.py reaches the kernel through cuda_ext's attribute: the op call is a use; `import cuda_ext` imports a Python
    # wrapper module (it holds the extension as an attribute), no compiled module: not reported (set 25a-4)
    assert finding_lines(result, "NPU508", "model.py") == [3]
    # generator.py calls only cuda_ext's Python function: not a kernel use
    assert finding_lines(result, "NPU508", "generator.py") == []


# ---- a CUDA file nothing builds is no work item (lead's decision (a), session 24e) --------------------------
UNBUILT = {
    "lib/make.sh": "cd model/nms/src\nnvcc -c -o nms_cuda_kernel.cu.o nms_cuda_kernel.cu -x cu -Xcompiler -fPIC\n",
    "lib/model/nms/src/nms_cuda_kernel.cu": '#include "nms_cuda_kernel.h"\n#include "box_iou.cuh"\n__global__ void nms_kernel() {}\n',
    "lib/model/nms/src/box_iou.cuh": "__device__ float iou(float a) { return a; }\n",
    "lib/model/nms/nms_kernel.cu": "__global__ void nms_kernel() {}\n",  # an older copy: nothing compiles it
}


def test_a_cuda_file_that_nothing_builds_or_includes_is_not_reported(tmp_path):
    write_files(tmp_path, UNBUILT)
    result = _scan(tmp_path)
    reported = sorted(f.path.split("/nms/", 1)[1] for f in result.findings if f.code == "NPU506")
    # built by make.sh's nvcc command, and a header it includes: kernels to port; the stray copy is not
    assert reported == ["src/box_iou.cuh", "src/nms_cuda_kernel.cu"]


def test_a_header_included_only_by_an_unbuilt_header_is_not_reported(tmp_path):
    # QuaRot @5008669b's flashinfer headers (set 23): mma.cuh is included only by prefill.cuh (and by permuted_smem.cuh,
    # itself included only by prefill.cuh), and no built source includes prefill.cuh: the include graph is walked from
    # the built sources
    write_files(tmp_path, dict(UNBUILT, **{
        "lib/model/nms/src/prefill.cuh": '#include "mma.cuh"\n#include "smem.cuh"\n',
        "lib/model/nms/src/smem.cuh": '#include "mma.cuh"\n__device__ int s() { return 0; }\n',
        "lib/model/nms/src/mma.cuh": "__device__ int m() { return 1; }\n",
    }))
    reported = sorted(f.path.split("/nms/", 1)[1] for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["src/box_iou.cuh", "src/nms_cuda_kernel.cu"]


def test_a_cuda_file_only_a_makefile_builds_is_not_reported(tmp_path):
    # label ruling (L19): a Makefile beside the kernels builds a developer's test program; neither its nvcc line nor
    # the test source it alone names is porting work (the kernel the package's setup.py builds stays reported)
    write_files(tmp_path, {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('pk._kernels', ['csrc/norm.cu'])\n",
        "csrc/norm.cu": '#include "norm.h"\n__global__ void norm() {}\n',
        "csrc/test_norm.cu": '#include "norm.h"\nint main() { return 0; }\n',
        "csrc/Makefile": "NVCC = nvcc\nSRC = test_norm.cu\nall: test_norm\ntest_norm: $(SRC)\n\t$(NVCC) -arch=sm_86 $< -o $@\n",
    })
    result = _scan(tmp_path)
    assert sorted(f.path.rsplit("/", 1)[1] for f in result.findings if f.code == "NPU506") == ["norm.cu"]
    assert not [f for f in result.findings if f.path.endswith("Makefile")]


def test_a_glob_under_a_folder_builds_that_folder_only(tmp_path):
    # `glob("pk/csrc/gen/*.cu")` in pk's setup.py builds the .cu files of pk/csrc/gen, not a test program elsewhere
    # that only a Makefile compiles; a pattern under a folder the scan does not hold still names any .cu file
    write_files(tmp_path, {
        "pk/setup.py": "from glob import glob\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                       "ext = CUDAExtension('pk._kernels', glob('pk/csrc/gen/*.cu'))\n",
        "pk/pk/csrc/gen/a.cu": "__global__ void a() {}\n",
        "pk/pk/csrc/gen/b.cu": "__global__ void b() {}\n",
        "pk/pk/csrc/norm/test_norm.cu": "int main() { return 0; }\n",
        "pk/pk/csrc/norm/Makefile": "test_norm: test_norm.cu\n\tnvcc $< -o $@\n",
    })
    reported = sorted(f.path.rsplit("/", 1)[1] for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["a.cu", "b.cu"]
    other = tmp_path / "other"
    write_files(other, {"setup.py": "from glob import glob\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                               "ext = CUDAExtension('m', glob('build/gen/*.cu'))\n", "src/k.cu": "__global__ void k() {}\n"})
    assert [f.path.rsplit("/", 1)[1] for f in _scan(other).findings if f.code == "NPU506"] == ["k.cu"]


def test_a_glob_joined_under_literal_folders_builds_the_folders_so_named(tmp_path):
    # Deformable-DETR-style ops setup.py: `glob(os.path.join(extensions_dir, "cuda", "*.cu"))`, the folder before
    # "cuda" a variable: the .cu files of folders ending in cuda/ are built, not a plugin's kernel shipped elsewhere
    # for another project's build (label rule 27d-5); `join(extensions_dir, "*.cu")` alone still names any .cu file
    setup = ("import glob, os\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "extensions_dir = os.path.join(os.path.dirname(__file__), 'src')\n"
             "srcs = glob.glob(os.path.join(extensions_dir, 'cuda', '*.cu'))\next = CUDAExtension('MSDA', srcs)\n")
    kernel = "__global__ void k() {}\n"
    write_files(tmp_path, {"ops/setup.py": setup, "ops/src/cuda/ms_deform.cu": kernel,
                      "trt_plugin/deform_kernel.cu": kernel})
    reported = sorted(os.path.relpath(f.path, tmp_path) for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["ops/src/cuda/ms_deform.cu"]
    other = tmp_path / "other"
    write_files(other, {"ops/setup.py": setup.replace("'cuda', ", ""), "ops/src/ms_deform.cu": kernel,
                   "trt_plugin/deform_kernel.cu": kernel})
    assert len([f for f in _scan(other).findings if f.code == "NPU506"]) == 2


def test_a_glob_joined_under_literal_folders_prefers_the_folders_under_the_naming_file(tmp_path):
    # OpenGVLab/Vision-RWKV (set 72c): detection/ops/setup.py globs `join(extensions_dir, 'cuda', '*.cu')` with
    # extensions_dir its own src/; the old backbones/cuda/wkv_cuda.cu copies of another project of the repository,
    # which nothing loads any more, are not built by it; with no cuda/ folder under the setup.py, any cuda/ folder is
    setup = ("import glob, os\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "extensions_dir = os.path.join(os.path.dirname(__file__), 'src')\n"
             "srcs = glob.glob(os.path.join(extensions_dir, 'cuda', '*.cu'))\next = CUDAExtension('MSDA', srcs)\n")
    kernel = "__global__ void k() {}\n"
    write_files(tmp_path, {"detection/ops/setup.py": setup, "detection/ops/src/cuda/ms_deform.cu": kernel,
                           "classification/backbones/cuda/wkv_cuda.cu": kernel})
    reported = sorted(os.path.relpath(f.path, tmp_path) for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["detection/ops/src/cuda/ms_deform.cu"]
    other = tmp_path / "other"
    write_files(other, {"tools/setup.py": setup, "lib/cuda/ms_deform.cu": kernel})
    assert [os.path.relpath(f.path, other) for f in _scan(other).findings if f.code == "NPU506"] == ["lib/cuda/ms_deform.cu"]


def test_a_cuda_header_named_cu_h_is_ported_with_the_built_source_that_includes_it(tmp_path):
    # spconv 1.x's naming: include/spconv/indice.cu.h holds kernels the built indice_cuda.cu includes; the labelling
    # rule names `.cu` / `.cuh` files (label notes of sets 54 and 61e on these headers; 27c-5 had labelled them): the
    # built .cu is reported, the `.cu.h` header is not, nor one nothing includes, and a plain `.h` is not a CUDA file
    write_files(tmp_path, {
        "setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
                    "ext = CUDAExtension('sparse_conv_ext', ['src/indice_cuda.cu'])\n",
        "src/indice_cuda.cu": "#include <spconv/indice.cu.h>\n#include <tensorview/tensorview.h>\nvoid launch() {}\n",
        "include/spconv/indice.cu.h": "#pragma once\n__global__ void gather(float* a) { a[0] = 1; }\n",
        "include/spconv/unused.cu.h": "#pragma once\n__global__ void old(float* a) { a[0] = 1; }\n",
        "include/tensorview/tensorview.h": "#pragma once\n#define TV_HOST_DEVICE __host__ __device__\n",
    })
    reported = sorted(os.path.relpath(f.path, tmp_path) for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["src/indice_cuda.cu"]


def test_every_cuda_file_stays_reported_where_a_build_could_name_it_unseen(tmp_path):
    # a glob could compile any of them
    write_files(tmp_path, dict(UNBUILT, **{"lib/setup.py": "import glob\nsrcs = glob.glob('model/**/*.cu')\n"}))
    assert len([f for f in _scan(tmp_path).findings if f.code == "NPU506"]) == 3
    # no build the tool recognises: the build is somewhere it does not read (a Makefile), nothing is dropped
    other = tmp_path / "other"
    write_files(other, {k: v for k, v in UNBUILT.items() if k != "lib/make.sh"})
    assert len([f for f in _scan(other).findings if f.code == "NPU506"]) == 3


@pytest.mark.parametrize("pattern", ["*.c*", "*.c?"])
def test_a_glob_whose_extension_pattern_matches_cu_files_keeps_every_cuda_file_reported(tmp_path, pattern):
    # Gorilla-Lab-SCUT/SSTNet 53edd443 pointgroup_ops/setup.py (set 57): `get_sources(module, surfix="*.c*")` globs the
    # .cpp and the .cu files of src/ alike; its cuda.cu (and what that includes) is built though no text names it
    setup = ("from glob import glob\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             f"def get_sources(src_dir, surfix={pattern!r}):\n    return glob(src_dir + '/' + surfix)\n"
             "ext = CUDAExtension('pk._ext', get_sources('src'))\n")
    write_files(tmp_path, {"setup.py": setup, "src/cuda.cu": '#include "vox/vox.cu"\n', "src/vox/vox.cu": "__global__ void v() {}\n"})
    assert sorted(f.path.rsplit("/", 1)[1] for f in _scan(tmp_path).findings if f.code == "NPU506") == ["cuda.cu", "vox.cu"]
    # a pattern of C++ files only (`*.cpp`, `*.c`) or of any file (`*.*`) names no CUDA file: the stray copy stays dropped
    for other_pattern in ("*.cpp", "*.c", "*.*"):
        other = tmp_path / other_pattern.replace("*", "x")
        write_files(other, dict(UNBUILT, **{"lib/setup.py": f"import glob\nsrcs = glob.glob({other_pattern!r})\n"}))
        reported = sorted(f.path.split("/nms/", 1)[1] for f in _scan(other).findings if f.code == "NPU506")
        assert reported == ["src/box_iou.cuh", "src/nms_cuda_kernel.cu"]


def test_a_cuda_extension_listed_by_a_source_walker_keeps_every_cuda_file_reported(tmp_path):
    # inplace_abn's shape: setup.py walks src/ and keeps files whose extension is in [".cpp", ".cu"];
    # the bare ".cu" names any CUDA file, so none may be dropped as unbuilt
    setup = (
        "import os\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "def find_sources(root):\n"
        "    exts = ['.cpp', \".cu\"]\n"
        "    return [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if os.path.splitext(f)[1] in exts]\n"
        "ext = CUDAExtension(name='pkg._backend', sources=find_sources('src'))\n"
    )
    write_files(tmp_path, {"setup.py": setup, "src/k.cu": "__global__ void k() {}\n", "src/k.cpp": "int f();\n"})
    assert [f.path.rsplit("/", 2)[-2:] for f in _scan(tmp_path).findings if f.code == "NPU506"] == [["src", "k.cu"]]
    # faster-rcnn.pytorch's lib/setup.py tells the compiler how listed sources compile (`append('.cu')`,
    # `splitext(src)[1] == '.cu'`): not a wildcard, the stray copy nothing builds stays dropped
    nvcc_compiler = "def customize(self):\n    self.src_extensions.append('.cu')\n    return os.path.splitext(src)[1] == '.cu'\n"
    other = tmp_path / "other"
    write_files(other, dict(UNBUILT, **{"lib/setup.py": nvcc_compiler}))
    reported = sorted(f.path.split("/nms/", 1)[1] for f in _scan(other).findings if f.code == "NPU506")
    assert reported == ["src/box_iou.cuh", "src/nms_cuda_kernel.cu"]


def test_a_relative_cuda_source_path_builds_only_the_copies_it_resolves_to(tmp_path):
    # RWKV-LM's shape (set 21): v5/src/model.py JIT-loads "cuda/k.cu" (run from v5/); v7/train has its own cuda/k.cu
    # beside the file its script loads, and nothing there names cuda/k.cu
    load = "from torch.utils.cpp_extension import load\nload(name='{n}', sources=['cuda/{f}'], extra_cuda_cflags=['-O3'])\n"
    kernel = "__global__ void k() {}\n"
    write_files(tmp_path, {
        "v5/src/model.py": load.format(n="k", f="k.cu"), "v5/cuda/k.cu": kernel,
        "v7/train/src/model.py": load.format(n="k32", f="k32.cu"), "v7/train/cuda/k32.cu": kernel,
        "v7/train/cuda/k.cu": kernel,  # a copy no build of its folder names
        "other/build.py": load.format(n="h", f="h.cu").replace("cuda/", "include/"),  # resolves to no file of the scan
        "other/src/h.cu": kernel,
    })
    reported = sorted(os.path.relpath(f.path, tmp_path) for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["other/src/h.cu", "v5/cuda/k.cu", "v7/train/cuda/k32.cu"]


# ---- nvcc architecture flags: one finding per flag list (lead's decision, session 24f) -----------------------
FLAG_LISTS = (
    "import subprocess\nfrom torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"  # 1-2
    "nvcc_args = [\n    '-gencode', 'arch=compute_52,code=sm_52',\n    '-gencode', 'arch=compute_70,code=sm_70',\n]\n"  # 3-6
    "def flags():\n    out = subprocess.check_output([CUDA_HOME + '/bin/nvcc', '-V'])\n    cc_flag = []\n"  # 7-9
    "    cc_flag.append('-gencode')\n    cc_flag.append('arch=compute_80,code=sm_80')\n"  # 10-11
    "    if out:\n        cc_flag.append('-gencode')\n        cc_flag.append('arch=compute_90,code=sm_90')\n"  # 12-14
    "    return cc_flag\n"  # 15
    "ext = CUDAExtension('m', [\n    'm.cpp',\n    'k.cu',\n], extra_compile_args={'cxx': [],\n"  # 16-19
    "    'nvcc': ['-O3', '-gencode', 'arch=compute_80,code=sm_80']})\n"  # 20
    "args = {'cxx': [], 'nvcc': threads([\n    '--expt-relaxed-constexpr',\n]) + nvcc_args}\n"  # 21-23
    "cc = flags()\n"  # 24: the helper runs (a setup.py helper nothing calls reads no CUDA_HOME)
)


def test_an_nvcc_flag_list_is_reported_once_where_it_starts(tmp_path):
    # fast-hadamard-transform's `cc_flag.append(...)` statements: one finding (the first append) naming how many
    # flags; nvcc itself, CUDA_HOME, the build call, its `.cu` line and its "nvcc" key stay as they were;
    # causal-conv1d's `{"nvcc": threads([...])}`: the key only, and so for the `nvcc_args` list joined into that key
    # (`threads([...]) + nvcc_args`: one nvcc list, reported at the key, label rule (L2); flownet2-pytorch's
    # `'nvcc': nvcc_args` is labelled at its key line, set 9)
    write_files(tmp_path, {"setup.py": FLAG_LISTS})
    result = _scan(tmp_path)
    # line 8: CUDA_HOME; the nvcc run there only reads the version (`-V`) and is no build line (ruling L14, set 19)
    assert finding_lines(result, "NPU505", "setup.py") == [8, 10, 16, 18, 20, 21]
    counts = {f.line: f.message for f in result.findings if f.code == "NPU505" and f.line == 10}
    assert "holding 4 CUDA-only flags" in counts[10]


def _setup_with_functions(n: int) -> str:
    """A setup.py with a build helper (through a variable bound to CUDAExtension) and `n` other functions,
    each with its own assignments, as in torch's testing/_internal/common_utils.py."""
    lines = ["from torch.utils.cpp_extension import CUDAExtension", "extension = CUDAExtension", "",
             "def make_ext(name, module, sources):", "    return extension(name=f'{module}.{name}', sources=sources)", ""]
    for i in range(n):
        lines += [f"def helper_{i}(x):", f"    y_{i} = len(x) + {i}", f"    z_{i} = y_{i} * 2", f"    return z_{i}", ""]
    lines.append("ext = make_ext(name='dcn_ext', module='proj.ops.dcn', sources=['src/dcn.cu'])")
    return "\n".join(lines) + "\n"


def test_a_files_build_facts_cost_grows_linearly_with_its_functions():
    """helper_builds asks about every function of a file whether it builds CUDA code: answering from one pass
    over the file's calls and assignments keeps the facts linear in the file's size (they were quadratic:
    every function asked again for the whole file's assignments bound to CUDAExtension)."""
    import ast

    from migrate import engine, repo_index
    from migrate.context import PythonContext

    def resolutions(n: int) -> tuple[int, list[str]]:
        text = _setup_with_functions(n)
        ctx = PythonContext("proj/setup.py", text, ast.parse(text), engine._kb(None))
        calls = 0
        real = ctx.qualname

        def counted(node):
            nonlocal calls
            calls += 1
            return real(node)

        ctx.qualname = counted
        names = [d.name for d in repo_index.python_defs(ctx) if d.kind == "module"]
        return calls, names

    small, names = resolutions(100)
    large, names_large = resolutions(400)
    assert names == names_large == ["proj.ops.dcn.dcn_ext"]
    assert large < 5 * small, (small, large)  # 4x the functions: linear is ~4x, quadratic ~16x


# ---- an accessor in another module returns the compiled module: `_C = utils.get_ext()` ----------------------
ACCESSOR_ELSEWHERE = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "setup(ext_modules=[CUDAExtension('vox.csrc', ['vox/csrc/k.cu'])])\n"
    ),
    "vox/__init__.py": "",
    "vox/csrc/k.cu": "__global__ void k(float* x) {}\n",
    "vox/helpers.py": (
        "import torch\n"
        "def load_ext():\n    try:\n        import vox.csrc as ext\n    except ImportError:\n        ext = None\n    return ext\n"
        "def plain():\n    return torch.nn\n"
    ),
    "vox/grid.py": (  # the module attribute form, as svox2's `_C = utils._get_c_extension()`
        "from . import helpers\n_K = helpers.load_ext()\n_P = helpers.plain()\n"
        "def f(x):\n    if _K is None:\n        return x\n    opts = _K.Options()\n    return _K.sample(x, opts) + _P.Linear(2, 2)(x)\n"
    ),
    "vox/render.py": (  # the imported-function form
        "from .helpers import load_ext\nbackend = load_ext()\n"
        "def g(x):\n    return backend.trace(x)\n"
    ),
}


def test_a_compiled_module_returned_by_an_accessor_in_another_module_binds_the_callers_name(tmp_path):
    write_files(tmp_path, ACCESSOR_ELSEWHERE)
    result = _scan(tmp_path)
    # grid.py: the accessor's call (where the module enters) and each op use; not the None probe, not torch.nn's
    assert finding_lines(result, "NPU508", "vox/grid.py") == [2, 7, 8]
    # render.py: the import naming the accessor, the call binding it, the op call
    assert finding_lines(result, "NPU508", "vox/render.py") == [1, 2, 4]
    rows = verdict.summary(result)["kernels_to_port"]
    row = next(r for r in rows if r["extension"].startswith("vox.csrc"))
    sites = {s.rsplit("/", 1)[1] for s in row["call_sites"]}
    assert {"grid.py:2", "grid.py:7", "grid.py:8", "render.py:4"} <= sites


def test_a_declared_dependency_a_rule_reports_is_not_unknown(tmp_path):
    """KIVI's pip-freeze requirements: NPU502 reports each `nvidia-*-cu12` pin as an NVIDIA CUDA runtime wheel,
    so the verdict line does not also list it among the dependencies npu-migrate does not know."""
    write_files(tmp_path, {"requirements.txt": "nvidia-cublas-cu12==12.1.3.1\nnvidia-cudnn-cu12==8.9.2.26\nacme-bar==13.7.0\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "requirements.txt") == [1, 2]
    assert verdict.summary(result)["unknown_dependencies"] == {"acme-bar": [f"{tmp_path}/requirements.txt:3"]}


# a package whose `__init__` re-exports the ops of its compiled extension (built under another top-level name)
# by name, and a script beside the package calling them as `pkg.op(...)`; the relative spelling of the same
# re-export in a second package; a Python helper the package also defines is no kernel
PACKAGE_REEXPORT = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='gemmx', ext_modules=[CUDAExtension(name='gemmx_cuda', sources=['gemmx/k.cu']),\n"
                "      CUDAExtension(name='packy._C', sources=['packy/p.cu'])])\n",
    "gemmx/__init__.py": "from gemmx_cuda import gemm_cuda, pack_cpu as pack\n\ndef waves(n):\n    return n // 2\n",
    "packy/__init__.py": "from ._C import pack_rows\nfrom os import path\n",
    "bench/run.py": "import torch\nimport gemmx\nimport packy\n\nw = gemmx.pack(torch.zeros(4))\ny = gemmx.gemm_cuda(w)\n"
                    "print(gemmx.waves(3))\nz = packy.pack_rows(w)\nprint(packy.path)\n",
    "bench/plain.py": "import gemmx\nprint(gemmx.waves(2))\n",
    # one op each: the call is the line whichever re-exported op the script calls; the import of the repository's own
    # package binds the re-exported members like an alias (label rulings (L81), (L85))
    "bench/gemm_only.py": "import gemmx\ny = gemmx.gemm_cuda(1)\n",
    "bench/pack_only.py": "import gemmx\ny = gemmx.pack(1)\n",
    # the op reached through a name imported from the package, not through `gemmx.`: `import gemmx` is no kernel line,
    # and the name imported again through the package only binds it (label note 44b b-4): the call is the line
    "bench/by_name.py": "import gemmx\nfrom gemmx import gemm_cuda\nprint(gemmx.waves(1))\ny = gemm_cuda(1)\n",
}


def test_ops_a_package_init_reexports_are_kernels_where_the_package_is_used(tmp_path):
    write_files(tmp_path, PACKAGE_REEXPORT)
    result = _scan(tmp_path)
    # each op call; not `gemmx.waves`, not `packy.path` (os.path); not the imports of the repository's own packages,
    # which bind what their `__init__` imported from the compiled module (label rulings (L81), (L85))
    assert finding_lines(result, "NPU508", "bench/run.py") == [5, 6, 8]
    # only the package's Python helper used: no kernel reached
    assert finding_lines(result, "NPU508", "bench/plain.py") == []
    assert finding_lines(result, "NPU508", "bench/gemm_only.py") == [2]
    assert finding_lines(result, "NPU508", "bench/pack_only.py") == [2]
    assert finding_lines(result, "NPU508", "bench/by_name.py") == [4]


# ---- a compiled module bound under an `as` name in a package `__init__` --------------------------------------
INIT_MODULE_ALIAS = {
    "pts/cpp/p2/setup.py": _cuda_setup("p2_batch_cuda", "p2_batch_cuda", ["src/api.cpp", "src/ball.cu"]),
    "pts/cpp/p2/src/ball.cu": "__global__ void k(float* x) {}\n",
    "pts/__init__.py": "",
    # PointNeXt openpoints/cpp/pointnet2_batch/__init__.py binds the compiled module by another name ...
    "pts/cpp/p2/__init__.py": "import torch\nimport p2_batch_cuda as p2_cuda\n",
    # ... re-exported once more by the package above it (openpoints/cpp/__init__.py)
    "pts/cpp/__init__.py": "from .p2 import p2_cuda\n",
    "pts/layers/__init__.py": "",
    "pts/layers/group.py": (
        "from pts.cpp import p2_cuda\n"
        "def ball(x, out):\n    p2_cuda.ball_query_wrapper(x, out)\n    return out\n"
    ),
    "pts/layers/sample.py": (
        "from pts.cpp.p2 import p2_cuda\n"
        "def fps(x, out):\n    p2_cuda.furthest_point_sampling_wrapper(x, out)\n    return out\n"
    ),
    # a package `__init__` binding a plain Python module under an `as` name: no extension, nothing reported
    "pts/util/__init__.py": "import numpy as np\nimport json as js\n",
    "pts/layers/plain.py": "from pts.util import np\ndef f(x):\n    return np.sum(x)\n",
}


def test_a_compiled_module_bound_by_an_as_name_in_a_package_init_is_followed_to_its_calls(tmp_path):
    """PointNeXt (vendored by ULIP): `import pointnet2_batch_cuda as pointnet2_cuda` in a package `__init__`, imported
    by that name through the package (`from openpoints.cpp.pointnet2_batch import pointnet2_cuda`) and through the
    package above it (`from openpoints.cpp import pointnet2_cuda`): the op calls are calls of the compiled module
    (label set 65c). The re-imports of the compiled module itself stay reported, as the tool reads exllamav2's
    `from exllamav2.ext import exllamav2_ext` (open question (d) of sets 61/62)."""
    write_files(tmp_path, INIT_MODULE_ALIAS)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pts/cpp/p2/__init__.py") == [2]
    assert finding_lines(result, "NPU508", "pts/layers/group.py") == [1, 3]
    assert finding_lines(result, "NPU508", "pts/layers/sample.py") == [1, 3]
    assert finding_lines(result, "NPU508", "pts/layers/plain.py") == []


# ---- torch.library ops a Python function of the repository implements ----------------------------------
TORCH_LIBRARY_OPS = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "setup(ext_modules=[CUDAExtension('qt_cuda', ['qt/k.cpp', 'qt/k.cu'])])\n"
    ),
    "qt/k.cu": "__global__ void k(float* x) {}\n",
    "lib/__init__.py": "",
    "lib/ops.py": (  # quip-sharp lib/codebook/__init__.py: the CUDA implementation is a Python function calling the op
        "import torch\nimport qt_cuda\n"
        "torch.library.define('qt::decode', '(Tensor x) -> Tensor')\n"
        "@torch.library.impl('qt::decode', 'cuda')\ndef decode_cuda(x):\n    return qt_cuda.decode(x)\n"
        "def scale_impl(x):\n    return qt_cuda.scale(x)\n"
        "torch.library.define('qt::scale', '(Tensor x) -> Tensor')\n"
        "torch.library.impl('qt::scale', 'default', scale_impl)\n"
        # AQLM cuda_kernel.py: the compiled op itself is the implementation
        "torch.library.define('qt::gemm', '(Tensor x) -> Tensor')\n"
        "torch.library.impl('qt::gemm', 'default', qt_cuda.gemm)\n"
    ),
    "lib/model.py": (
        "import torch\nfrom . import ops\n"
        "def f(x):\n    y = torch.ops.qt.decode(x)\n    z = torch.ops.qt.scale(y)\n    return torch.ops.qt.gemm(z)\n"
    ),
}


def test_an_op_implemented_by_a_python_function_is_called_like_a_wrapper(tmp_path):
    """quip-sharp calls `torch.ops.quip_lib.decode_matvec_e8p(...)`, an op whose registered implementation is a
    Python function of the repository (its body calls the compiled op, reported there): the call itself need
    not change, like a `Function.apply` alias's. An op registered with the compiled op itself stays a finding."""
    write_files(tmp_path, TORCH_LIBRARY_OPS)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "model.py") == [6]
    assert sorted(f.line for f in result.wrapper_calls if f.path.endswith("model.py")) == [4, 5]
    assert finding_lines(result, "NPU508", "ops.py") == [2, 6, 8, 12]  # the import and the compiled-op uses


def test_an_op_registered_under_a_module_constant_name_is_a_python_op(tmp_path):
    """xDiT inductor_passes.py: `_REALIZE_OP_NAME = "xfuser::_realize_for_inductor"` then
    `@torch.library.custom_op(_REALIZE_OP_NAME, ...)` over a Python function, then `torch.ops.xfuser._realize_for_inductor`;
    the namespace is also registered elsewhere by a literal name. The op is a Python function of the repository: its use
    is no NPU508 (before, the constant left the op unknown and the namespace, known from the other file, was reported)."""
    write_files(tmp_path, {
        "xf/__init__.py": "",
        "xf/attn.py": "import torch\n@torch.library.custom_op('xf::attn', mutates_args=())\n"
                      "def attn(q: torch.Tensor) -> torch.Tensor:\n    return q.clone()\n",
        "xf/passes.py": "import torch\n_NAME = 'xf::realize'\n@torch.library.custom_op(_NAME, mutates_args=())\n"
                        "def realize(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n"
                        "def target():\n    return torch.ops.xf.realize.default\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "passes.py") == []


def test_an_op_registered_through_a_decorator_chosen_at_import_time_is_a_python_op(tmp_path):
    """NATTEN-style torch_wrappers.py: `register_op = torch.library.custom_op` (a local stand-in on old torch) decorates
    the Python wrapper that calls the compiled op; `torch.ops.mylib.attn_forward` calls that wrapper (label ruling
    (L83)): no NPU508 there, the compiled call inside the wrapper stays one (migrate/op_register_aliases.py)."""
    write_files(tmp_path, {
        "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                    "setup(ext_modules=[CUDAExtension('mylib._C', ['mylib/k.cpp', 'mylib/k.cu'])])\n",
        "mylib/k.cu": "__global__ void k(float* x) {}\n",
        "mylib/k.cpp": "TORCH_LIBRARY(mylib, m) { m.def(\"attn_forward_cxx(Tensor q) -> Tensor\"); }\n",
        "mylib/__init__.py": "",
        "mylib/wrappers.py": (
            "import torch\nfrom mylib._C import attn_forward_cxx\nOLD_TORCH = False\n"
            "def disabled_register_op(name, fn=None, /, *, mutates_args, device_types=None):\n"
            "    return fn if fn is not None else (lambda f: f)\n"
            "if OLD_TORCH:\n    register_op = disabled_register_op\nelse:\n    register_op = torch.library.custom_op\n"
            "@register_op('mylib::attn_forward', mutates_args=(), device_types='cuda')\n"
            "def attn_forward_op(q: torch.Tensor) -> torch.Tensor:\n    return attn_forward_cxx(q)\n"
            "attn_forward = attn_forward_op if OLD_TORCH else torch.ops.mylib.attn_forward\n"
            "def run(q):\n    return torch.ops.mylib.attn_forward(q)\n"
            # one op per dimension from a factory, named by an f-string: `mylib::na*d_forward`
            "def make_na_ops(na_dim):\n    @register_op(f'mylib::na{na_dim}d_forward', mutates_args=())\n"
            "    def na_forward_op(q: torch.Tensor) -> torch.Tensor:\n        return attn_forward_cxx(q)\n"
            "    return na_forward_op\nmake_na_ops(1)\nna1d_forward = torch.ops.mylib.na1d_forward\n"
        ),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "wrappers.py") == [2, 12, 19]  # the import and the compiled calls


# ops re-exported by a plain module (not a package `__init__`), a chain of two, and star imports of the
# repository's own modules: one honouring `__all__` (nms is left out), one of a module without `__all__`
MODULE_REEXPORT = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='roix', ext_modules=[CUDAExtension(name='roix._C', sources=['roix/csrc/roi.cu'])])\n",
    "roix/__init__.py": "",
    "roix/ops.py": "from ._C import roi_align_forward, nms\n\n__all__ = ['roi_align_forward', 'roi_pool']\n\n"
                   "def roi_pool(x):\n    return x\n",
    "roix/layers.py": "from .ops import roi_align_forward\n\n\ndef roi_align(x):\n    return roi_align_forward(x)\n",
    "roix/starred.py": "from .ops import *\n",
    "roix/nomore.py": "from .layers import *\n",
    "tools/run.py": "from roix import ops\nfrom roix.layers import roi_align_forward, roi_align\n"
                    "y = ops.roi_align_forward(1)\nz = roi_align_forward(2)\nprint(roi_align(3))\n",
    "tools/star.py": "from roix.starred import roi_align_forward, nms, roi_pool\n"
                     "a = roi_align_forward(1)\nb = nms(2)\nc = roi_pool(3)\n",
    "tools/chain.py": "import roix.nomore as nm\nprint(nm.roi_align(1))\nw = nm.roi_align_forward(2)\n",
}


def test_ops_any_module_reexports_and_star_imports_of_own_modules_are_kernels(tmp_path):
    write_files(tmp_path, MODULE_REEXPORT)
    result = _scan(tmp_path)
    # the call of the op the plain module re-exports; its import from ops.py only binds the name again (label note
    # 44b b-4: the import from the compiled module, ops.py's `from ._C import ...`, is the import line)
    assert finding_lines(result, "NPU508", "roix/layers.py") == [5]
    # `ops.roi_align_forward(...)` (through the module imported) and the op called by name; not the Python wrapper, nor
    # `from roix import ops`, which binds what ops.py imported from the compiled module (label rulings (L81), (L85))
    assert finding_lines(result, "NPU508", "tools/run.py") == [3, 4]
    # through `from .ops import *`: roi_align_forward (in ops' __all__), not nms (left out of it), not roi_pool (Python)
    assert finding_lines(result, "NPU508", "tools/star.py") == [2]
    # a star import of a module without __all__, of a module that re-exports the op by name: the op call (the import
    # of the repository's own module binds the name, label rulings (L81), (L85))
    assert finding_lines(result, "NPU508", "tools/chain.py") == [3]


# what a module re-exports is what `from X import a` binds: not the last part of a plain `import pkg.cuda.raster
# as raster_cuda` beside a Python `rasterize` (neural_renderer, SoftRas), and a `Function.apply` alias reached
# through a star import keeps its wrapper status (torch-ngp's `raymarching/__init__.py: from .raymarching import *`)
PLAIN_IMPORT_BESIDE = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='rend', ext_modules=[CUDAExtension(name='rend.cuda.raster', sources=['rend/raster.cu'])])\n",
    "rend/__init__.py": "from .raster import rasterize\nfrom .march import *\n",
    "rend/raster.py": "import rend.cuda.raster as raster_cuda\n\n\ndef raster(x):\n    return raster_cuda.forward(x)\n\n\n"
                      "def rasterize(x):\n    return raster(x)\n",
    "rend/march.py": "from torch.autograd import Function\nimport rend.cuda.raster as raster_cuda\n\n\nclass _March(Function):\n"
                     "    @staticmethod\n    def forward(ctx, x):\n        return raster_cuda.march(x)\n\n\nmarch_rays = _March.apply\n",
    "tools/render.py": "import rend\nfrom rend import rasterize\ny = rend.rasterize(1)\nz = rasterize(2)\nw = rend.march_rays(3)\n",
}


def test_a_plain_import_and_a_wrapper_are_not_read_as_reexported_ops(tmp_path):
    write_files(tmp_path, PLAIN_IMPORT_BESIDE)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "rend/raster.py") == [1, 5]  # the module's own import and op call
    assert finding_lines(result, "NPU508", "tools/render.py") == []


# flute's layout: the extension's name an f-string of a module constant, the package `__init__` binding a name
# to a registered op through `typing.cast`, and the op reached through that name from the package's modules
# and from scripts beside it
OP_ALIAS = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "LIBRARY_NAME = 'lutq'\n"
        "setup(ext_modules=[CUDAExtension(f'{LIBRARY_NAME}._C', ['lutq/csrc/q.cpp', 'lutq/csrc/q.cu'])])\n"
    ),
    "lutq/csrc/q.cu": "__global__ void k(float* x) {}\n",
    "lutq/csrc/q.cpp": "#include <torch/library.h>\nTORCH_LIBRARY(lutq, m) { m.def(\"gemm(Tensor x) -> Tensor\"); }\n"
                       "TORCH_LIBRARY_IMPL(lutq, CUDA, m) { m.impl(\"gemm\", &gemm); }\n",
    "lutq/__init__.py": (
        "import torch\nfrom typing import Callable, cast\nfrom . import _C\n"
        "qgemm = cast(Callable[[torch.Tensor], torch.Tensor], torch.ops.lutq.gemm)\n"
        "plain = torch.ops.lutq.gemm\n"
    ),
    "lutq/utils.py": "from . import qgemm\n\ndef pack(w):\n    return w\n\ndef rebuild(w):\n    return qgemm(w)\n",
    "bench/run.py": "import torch\nimport lutq\nimport lutq.utils\ny = lutq.qgemm(torch.zeros(2))\n"
                    "torch.library.opcheck(lutq.qgemm, (y,))\nz = lutq.plain(y)\n",
    "bench/helpers_only.py": "import lutq\nimport lutq.utils\nw = lutq.utils.pack(1)\n",
}


def test_a_name_bound_to_a_registered_op_through_cast_is_the_op_where_it_is_used(tmp_path):
    write_files(tmp_path, OP_ALIAS)
    result = _scan(tmp_path)
    # `f"{LIBRARY_NAME}._C"` is `lutq._C`: the package's relative import of it is a kernel line
    assert finding_lines(result, "NPU508", "lutq/__init__.py") == [3, 4, 5]
    assert finding_lines(result, "NPU508", "lutq/utils.py") == [1, 7]
    # the package import, the call, the op passed as a value, the direct alias's call
    assert finding_lines(result, "NPU508", "bench/run.py") == [2, 4, 5, 6]
    assert finding_lines(result, "NPU508", "bench/helpers_only.py") == []


def test_a_manifest_entry_installing_the_repositorys_own_cuda_extension_is_reported(tmp_path):
    # DAIN environment.yaml: the pip section lists the extensions its setup.py files build (`correlation-cuda==0.0.0`
    # for CUDAExtension('correlation_cuda', ...)); a CppExtension's name and other packages are not reported
    (tmp_path / "corr").mkdir()
    (tmp_path / "corr" / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension, CppExtension\n"
        "setup(name='correlation_cuda', ext_modules=[\n"
        "    CUDAExtension('correlation_cuda', ['correlation_cuda.cc', 'correlation_cuda_kernel.cu']),\n"
        "    CppExtension('resample_cpu', ['resample.cpp'])],\n"
        "    cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "environment.yaml").write_text(
        "name: env\ndependencies:\n  - python=3.6\n  - pip:\n    - correlation-cuda==0.0.0\n    - dask==1.1.1\n"
        "    - resample-cpu==0.0.0\n")
    (tmp_path / "requirements.txt").write_text("numpy\ncorrelation_cuda\n")
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    got = sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU502")
    assert got == [("environment.yaml", 5), ("requirements.txt", 2)]
    assert "correlation_cuda" in next(f.message for f in result.findings if f.code == "NPU502")
    assert "corr/setup.py:4" in next(f.message for f in result.findings if f.code == "NPU502")


# ---- a setuptools Extension made CUDA by its `.cu` source (tf-faster-rcnn style custom build_ext) -------------
PLAIN_EXTENSION = {
    "lib/setup.py": (
        "from distutils.core import setup\nfrom distutils.extension import Extension\n"
        "from Cython.Distutils import build_ext\n"
        "def customize(self):\n    self.src_extensions.append('.cu')\n"
        "ext_modules = [\n"
        "    Extension('nms.cpu_nms', ['nms/cpu_nms.pyx']),\n"
        "    Extension('nms.gpu_nms',\n"
        "        ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],\n"
        "        extra_compile_args={'gcc': ['-O2'],\n"
        "                            'nvcc': ['-arch=sm_61']}),\n"
        "]\n"
        "setup(name='x', ext_modules=ext_modules, cmdclass={'build_ext': build_ext})\n"
    ),
    "lib/nms/nms_kernel.cu": "__global__ void k() {}\n",
    "lib/model/nms_wrapper.py": (
        "from nms.gpu_nms import gpu_nms\nfrom nms.cpu_nms import cpu_nms\n"
        "def nms(dets, t, cpu=False):\n    return cpu_nms(dets, t) if cpu else gpu_nms(dets, t, device_id=0)\n"
    ),
}


def test_setuptools_extension_with_cuda_sources_is_a_cuda_build(tmp_path):
    # CenterNet src/tools/voc_eval_lib (tf-faster-rcnn): the build, its `.cu` and `'nvcc'` lines, and the compiled
    # module's import and call; the CPU Cython extension and the nvcc hook (`src_extensions.append('.cu')`) are not
    write_files(tmp_path, PLAIN_EXTENSION)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "lib/setup.py") == [8, 9, 11]
    assert finding_lines(result, "NPU508", "nms_wrapper.py") == [1, 4]


def test_a_relative_import_of_the_package_binding_a_jit_build(tmp_path):
    # hszhao/semseg lib/psa: the package __init__ binds `gpu = load(... .cu)` (and a C++-only `cpu = load(...)`);
    # psamask.py imports the package relatively (`from .. import src`) and calls `src.gpu.op(...)`
    write_files(tmp_path, {
        "lib/__init__.py": "",
        "lib/psa/__init__.py": "",
        "lib/psa/src/__init__.py": (
            "import torch\nfrom torch.utils.cpp_extension import load\n"
            "cpu = load('psamask_cpu', ['cpu/operator.cpp'])\n"
            "if torch.cuda.is_available():\n"
            "    gpu = load('psamask_gpu', ['gpu/operator.cpp', 'gpu/psamask_cuda.cu'])\n"
        ),
        "lib/psa/functions/__init__.py": "",
        "lib/psa/functions/psamask.py": (
            "from .. import src\nfrom .. import functions\n"
            "def f(x, y):\n    src.cpu.psamask_forward(x, y)\n    src.gpu.psamask_forward(x, y)\n"
        ),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "functions/psamask.py") == [1, 5]
    assert "from .. import src" in next(f.message for f in result.findings if f.code == "NPU508" and f.line == 1)


def test_a_build_whose_sources_are_computed_lists_the_cuda_files_beside_it_in_a_fixed_choice(tmp_path):
    """inplace_abn's setup.py: `CUDAExtension(name="inplace_abn._backend", sources=find_sources("src"))`, a list made at
    run time, the `.cu` files in `src/` beside setup.py, the package folder `inplace_abn/` holding none. The kernels to
    port name `src/abn.cu` (they were empty: the package folder was taken for the sources' home), and the same when the
    checkout's own folder is named like the package (two folders so named: the pick once changed with the hash seed)."""
    files = {
        "setup.py": "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                    "def find_sources(d, exts=('.cpp', '.cu')):\n    return [os.path.join(d, f) for f in os.listdir(d) if f.endswith(exts)]\n"
                    "setup(ext_modules=[CUDAExtension(name='inplace_abn._backend', sources=find_sources('src'))])\n",
        "src/abn.cu": "__global__ void k(float* x) {}\n",
        "inplace_abn/__init__.py": "from . import _backend\n",
        "inplace_abn/functions.py": "from . import _backend\ndef f(x):\n    return _backend.forward(x)\n",
    }
    for root in (tmp_path / "checkout", tmp_path / "inplace_abn"):
        write_files(root, files)
        rows = verdict.summary(scan([str(root)], use_cache=False, torch_npu_version=NEWEST))["kernels_to_port"]
        assert [(r["extension"], [Path(s).relative_to(root).as_posix() for s in r["sources"]]) for r in rows] == [
            ("inplace_abn._backend", ["src/abn.cu"])], root


def test_a_build_accessor_returning_a_local_build_binds_the_module_where_another_file_calls_it(tmp_path):
    # NVIDIA/BigVGAN alias_free_activation/cuda/load.py: `def load(): ... m = _helper("m", sources, flags); return m`;
    # activation1d.py `from alias_free_activation.cuda import load` then `m = load.load()` and `m.forward(...)`: the
    # binding and the op call are the lines (the import of the accessor's module is not, label rule set 18 R1)
    write_files(tmp_path, {
        "afa/__init__.py": "", "afa/cuda/__init__.py": "",
        "afa/cuda/load.py": (
            "from torch.utils import cpp_extension\n"
            "def load():\n"
            "    def _helper(name, sources, flags):\n"
            "        return cpp_extension.load(name=name, sources=sources, extra_cuda_cflags=['-O3'] + flags)\n"
            "    sources = ['k.cpp', 'k_cuda.cu']\n"
            "    m = _helper('afa_cuda', sources, ['--use_fast_math'])\n"
            "    return m\n"),
        "afa/cuda/activation1d.py": (
            "import torch\n"
            "from afa.cuda import load\n"
            "m = load.load()\n"
            "def act(x):\n"
            "    return m.forward(x)\n"),
        "tests/test_act.py": "from afa.cuda import load\nload.load()\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "afa/cuda/activation1d.py") == [3, 5]
    assert finding_lines(result, "NPU508", "tests/test_act.py") == [2]


def test_a_module_imported_only_through_a_relay_under_a_cuda_branch_is_an_optional_path(tmp_path):
    # 2noise/ChatTTS: model/cuda/te_llama.py imports transformer_engine at its top; model/cuda/__init__.py relays it
    # (`from .te_llama import TELlamaModel`) and gpt.py imports that package only under `if ... "cuda" in
    # str(self.device_gpt) ...:`: on an NPU device the other branch runs. The same module behind a relay that one
    # file imports outside such a branch keeps its findings.
    write_files(tmp_path, {
        "pkg/__init__.py": "", "pkg/model/__init__.py": "",
        "pkg/model/cuda/__init__.py": "from .te_llama import TELlamaModel\n",
        "pkg/model/cuda/te_llama.py": "import transformer_engine as te\nclass TELlamaModel:\n    layer = te.pytorch.Linear\n",
        "pkg/model/gpt.py": (
            "import platform\n"
            "def build(self, experimental):\n"
            "    if experimental and 'cuda' in str(self.device) and platform.system() == 'Linux':\n"
            "        from .cuda import TELlamaModel\n"
            "        return TELlamaModel\n"),
        "pkg/other/__init__.py": "from .te_fast import Fast\n",
        "pkg/other/te_fast.py": "import transformer_engine as te\nclass Fast:\n    layer = te.pytorch.Linear\n",
        "pkg/run.py": "def build(device):\n    if device.type == 'cuda':\n        from .other import Fast\n    from .other import Fast\n",
        # an ordinary module relays too (label rule 30d-1: reached only from the CUDA branch); one that another file
        # imports outside a guard keeps what it relays
        "pkg/mid.py": "from .model.cuda.te_mid import Mid\n",
        "pkg/model/cuda/te_mid.py": "import transformer_engine as te\nclass Mid:\n    layer = te.pytorch.Linear\n",
        "pkg/use.py": "import torch\nif torch.cuda.is_available():\n    from .mid import Mid\n",
        # (outside model/cuda: importing a module of that package runs its __init__, which imports te_llama)
        "pkg/mid2.py": "from .model.gpu.te_mid2 import Mid2\n",
        "pkg/model/gpu/te_mid2.py": "import transformer_engine as te\nclass Mid2:\n    layer = te.pytorch.Linear\n",
        "pkg/use2.py": "import torch\nif torch.cuda.is_available():\n    from .mid2 import Mid2\n",
        "pkg/plain.py": "from .mid2 import Mid2\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU501", "cuda/te_llama.py") == [] and finding_lines(result, "NPU507", "cuda/te_llama.py") == []
    assert finding_lines(result, "NPU501", "other/te_fast.py") == [1] and finding_lines(result, "NPU507", "other/te_fast.py") == [3]
    assert finding_lines(result, "NPU501", "cuda/te_mid.py") == []
    assert finding_lines(result, "NPU501", "gpu/te_mid2.py") == [1]


def test_triton_kernels_reached_only_from_the_cuda_branch_of_a_device_dispatch_are_an_optional_path(tmp_path):
    # a device dispatch naming the NPU (`if device == "cuda": from .cuda import gemm / elif device == "npu": ...`):
    # the CUDA package's __init__ imports an ordinary module, which imports the Triton kernels' package: reached
    # only where the CUDA branch runs (label rule 30d-1, (L42)); the same kernels imported at a module's top stay
    kernel = ("import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pass\n"
              "def run(x):\n    k[(1,)](x, 4)\n")
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops/__init__.py": (
            "def get_gemm(device):\n    if device == 'cpu':\n        return None\n    elif device == 'cuda':\n"
            "        from .cuda import gemm\n        return gemm\n    elif device == 'npu':\n"
            "        from .npu import gemm\n        return gemm\n"),
        "pkg/ops/npu.py": "def gemm(a, b):\n    return a @ b\n",
        "pkg/ops/cuda/__init__.py": "from .group_gemm import gemm\n",
        "pkg/ops/cuda/group_gemm.py": "from .kernels import run\ndef gemm(a, b):\n    return run(a)\n",
        "pkg/ops/cuda/kernels/__init__.py": "from .tk import run\n",
        "pkg/ops/cuda/kernels/tk.py": kernel,
        "pkg/other/__init__.py": "",
        "pkg/other/plain.py": "from .tk2 import run\n",
        "pkg/other/tk2.py": kernel,
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU507", "cuda/kernels/tk.py") == [] and finding_lines(result, "NPU501", "cuda/kernels/tk.py") == []
    assert finding_lines(result, "NPU507", "other/tk2.py") == [3, 7]


def test_triton_kernels_imported_only_under_the_projects_gpu_support_probe_are_an_optional_path(tmp_path):
    # a project function probing the CUDA device (`is_fp8_supported_gpu()`: False without torch.cuda, then the compute
    # capability) selects Triton kernels, a torch module otherwise (label rule 30d-9, (L42)): the kernels go. A
    # function of such a name defined beside the import whose body never asks about CUDA selects nothing GPU-only
    kernel = ("import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pass\n"
              "def run(x):\n    k[(1,)](x, 4)\n")
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": ("import torch\ndef is_fp8_supported_gpu():\n    if not torch.cuda.is_available():\n"
                         "        return False\n    major, minor = torch.cuda.get_device_capability(0)\n"
                         "    return major >= 9\n"),
        "pkg/quant.py": "def run(x):\n    return x\n",
        "pkg/kernel.py": kernel,
        "pkg/awq.py": "from .utils import is_fp8_supported_gpu\nif is_fp8_supported_gpu():\n    from .kernel import run\n"
                      "else:\n    from .quant import run\n",
        "pkg/kernel2.py": kernel,
        "pkg/other.py": ("import os\ndef is_fast_gpu():\n    return os.environ.get('FAST') == '1'\n"
                         "if is_fast_gpu():\n    from .kernel2 import run\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU507", "pkg/kernel.py") == [] and finding_lines(result, "NPU501", "pkg/kernel.py") == []
    assert finding_lines(result, "NPU507", "pkg/kernel2.py") == [3, 7]


def test_a_triton_kernel_imported_from_another_module_is_launched_where_it_is_imported(tmp_path):
    # openai/whisper timing.py: `from .triton_ops import dtw_kernel` inside the function, then `dtw_kernel[(1,)](...)`,
    # in a file that never imports triton; the same for a kernel reached through its module, not for a plain function
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/triton_ops.py": ("import triton\nimport triton.language as tl\n@triton.jit\ndef dtw_kernel(x_ptr, n: tl.constexpr):\n"
                              "    pass\ndef helper(x):\n    return x\n"),
        "pkg/timing.py": ("import torch\ndef dtw_cuda(x):\n    from .triton_ops import dtw_kernel, helper\n"
                          "    dtw_kernel[(1,)](x, 4)\n    return helper[0](x)\n"),
        "pkg/other.py": "from pkg import triton_ops as ops\ndef run(x):\n    ops.dtw_kernel[(2,)](x, 4)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU507", "pkg/timing.py") == [4]
    assert finding_lines(result, "NPU507", "pkg/other.py") == [3]


def test_a_numba_cuda_kernel_of_another_module_is_launched_where_it_is_imported(tmp_path):
    # titu1994/warprnnt_numba gpu_rnnt.py and its tests: `from ...cuda_utils import gpu_rnnt_kernel` then
    # `gpu_rnnt_kernel.compute_alphas_kernel[grid, block, stream, 0](...)`, and a kernel imported by name; a device
    # function of that module called inside a kernel, and a plain function subscripted, are no launches
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/kernels.py": ("from numba import cuda\n@cuda.jit(device=True)\ndef add(a, b):\n    return a + b\n"
                           "@cuda.jit()\ndef alphas_kernel(x):\n    i = cuda.grid(1)\n    x[i] = add(x[i], 1)\n"
                           "def helper(x):\n    return x\n"),
        "pkg/loss.py": ("import torch\nfrom pkg import kernels\ndef run(x, s):\n    kernels.alphas_kernel[4, 32, s, 0](x)\n"
                        "    return kernels.helper[0](x)\n"),
        "pkg/other.py": "def run(x):\n    from .kernels import alphas_kernel as k\n    k[(2,)](x)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU507", "pkg/loss.py") == [4]
    assert finding_lines(result, "NPU507", "pkg/other.py") == [3]
    assert finding_lines(result, "NPU507", "pkg/kernels.py") == [2, 5]
    # the launched kernel is a kernel to port (its .py file the source, its launches the call sites); the device
    # function, launched nowhere, is ported with it and gets no row
    rows = verdict.summary(result)["kernels_to_port"]
    assert [(r["extension"], r["uses"], [Path(s).name for s in r["sources"]]) for r in rows] == [
        ("kernels.alphas_kernel (numba.cuda)", 2, ["kernels.py"])]
    assert rows[0]["built_at"].endswith("pkg/kernels.py:6")
    assert sorted(Path(s).name for s in rows[0]["call_sites"]) == ["loss.py:4", "other.py:3"]


# a compiled module bound by a plain `import` (inside a try, as run-time-optional kernels are) in a repository module,
# then imported by name from that module elsewhere: the layout of a MoE library's `impls/jit_compiler.py`
# (`try: import <ext>` ... `from .jit_compiler import <ext>` in its siblings); not a copy of it
PLAIN_IMPORT_RELAY = {
    "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                "setup(name='moe', ext_modules=[CUDAExtension('moe_kernel', ['moe/k.cpp', 'moe/k.cu'])])\n",
    "moe/__init__.py": "",
    "moe/impls/__init__.py": "",
    "moe/impls/jit.py": "try:\n    import moe_kernel\nexcept ImportError:\n    pass\n",
    "moe/impls/comm.py": "from .jit import moe_kernel\n\n\ndef f(x):\n    return moe_kernel.all_to_all(x)\n",
    "moe/kernels/gating.py": "from ..impls.jit import moe_kernel\nmoe_kernel.cumsum(1)\n",
    "moe/kernels/plain.py": "from ..impls.jit import os_name\n",
}


def test_a_compiled_module_bound_by_a_plain_import_is_followed_where_it_is_imported_by_name(tmp_path):
    write_files(tmp_path, PLAIN_IMPORT_RELAY)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "impls/jit.py") == [2]
    assert finding_lines(result, "NPU508", "impls/comm.py") == [1, 5]
    assert finding_lines(result, "NPU508", "kernels/gating.py") == [1, 2]
    assert finding_lines(result, "NPU508", "kernels/plain.py") == []


# a CMake CUDA library named through a variable and named like the Python package beside it (the layout of a
# quantization library's csrc/CMakeLists.txt: `set(TARGET "pkg")`, `cuda_add_library(${TARGET} SHARED ${SOURCES})`
# of a quoted glob, the module `libpkg.so` imported as `pkg.libpkg`); not a copy of it
CMAKE_LIB_LIKE_PACKAGE = {
    "CMakeLists.txt": "project(vq LANGUAGES C CXX CUDA)\nadd_subdirectory(csrc)\n",
    "csrc/CMakeLists.txt": "set(TARGET \"vq\")\nfile(GLOB_RECURSE SOURCES \"*.cu\" \"*.cc\")\n"
                           "cuda_add_library(${TARGET} SHARED ${SOURCES})\ntarget_link_libraries(${TARGET} \"${TORCH_LIBRARIES}\")\n",
    "csrc/gemv.cu": "__global__ void k(float* x) {}\n",
    "vq/__init__.py": "from vq.layers import Linear\n",
    "vq/layers.py": "class Linear:\n    pass\n",
    "vq/ops.py": "try:\n    import vq.libvq as vq_ops\nexcept ImportError:\n    vq_ops = None\n\n\n"
                 "def gemv(x):\n    return vq_ops.quant_gemv(x)\n",
}


def test_a_cmake_library_named_through_a_variable_like_its_package_is_imported_as_lib_name(tmp_path):
    write_files(tmp_path, CMAKE_LIB_LIKE_PACKAGE)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU511", "csrc/CMakeLists.txt") == [2, 3]  # the quoted glob, the target
    assert finding_lines(result, "NPU508", "vq/ops.py") == [2, 8]
    assert finding_lines(result, "NPU508", "vq/__init__.py") == []  # the package is not the library


# a CMake glob of `.cu` files only (`file(GLOB_RECURSE SOURCES "*.cu" "*.cc")`) and a formatter's file list in a shell
# script (`find csrc/ -name '*.cuh' | xargs clang-format -i`): every `.cu` is built; a header only where a source
# includes it (the layout of a quantization library's csrc/, not a copy of it)
CU_ONLY_GLOB = {
    "CMakeLists.txt": "project(q LANGUAGES CXX CUDA)\nadd_subdirectory(csrc)\n",
    "csrc/CMakeLists.txt": "file(GLOB_RECURSE SOURCES \"*.cu\" \"*.cc\")\ncuda_add_library(q SHARED ${SOURCES})\n",
    "csrc/gemv.cu": "#include \"kernels/gemv.cuh\"\n__global__ void k() {}\n",
    "csrc/other.cu": "__global__ void j() {}\n",
    "csrc/kernels/gemv.cuh": "__device__ float f(float a) { return a; }\n",
    "csrc/util/debug.cuh": "__device__ void dump() {}\n",
    "scripts/format.sh": "find csrc/ \\( -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \\) -print | xargs clang-format -i\n",
}


def test_a_glob_of_cu_files_builds_every_cu_file_and_only_the_headers_they_include(tmp_path):
    write_files(tmp_path, CU_ONLY_GLOB)
    reported = sorted(f.path.split("/csrc/", 1)[1] for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["gemv.cu", "kernels/gemv.cuh", "other.cu"]
    # a glob that can match headers keeps every one of them
    (tmp_path / "csrc" / "CMakeLists.txt").write_text("file(GLOB_RECURSE SOURCES *.cu *.cuh)\ncuda_add_library(q SHARED ${SOURCES})\n")
    assert len([f for f in _scan(tmp_path).findings if f.code == "NPU506"]) == 4


def test_a_cmake_cuda_source_that_links_to_a_cpp_file_reports_the_real_file(tmp_path):
    # an RNN-T loss library's layout: `CUDA_ADD_LIBRARY(rt SHARED src/entry.cu)`, the .cu a symbolic link to entry.cpp
    # (nvcc compiles the C++ file as CUDA); the CPU build of the ELSE branch compiles the .cpp itself
    write_files(tmp_path, {
        "CMakeLists.txt": "FIND_PACKAGE(CUDA)\nIF (WITH_GPU)\n  CUDA_ADD_LIBRARY(rt SHARED src/entry.cu)\nELSE()\n"
                          "  ADD_LIBRARY(rt SHARED src/entry.cpp)\nENDIF()\n",
        "src/entry.cpp": "#include <cstddef>\nint entry() { return 0; }\n",
        "src/other.cpp": "int other() { return 1; }\n",
    })
    (tmp_path / "src" / "entry.cu").symlink_to("entry.cpp")
    result = _scan(tmp_path)
    assert [(f.path.rsplit("/", 2)[-2:], f.line) for f in result.findings if f.code == "NPU506"] == [(["src", "entry.cpp"], 1)]
    assert finding_lines(result, "NPU511", "CMakeLists.txt") == [1, 3]  # not the CPU library of the ELSE branch


def test_a_cpp_extension_linking_the_repositorys_cmake_cuda_library_is_a_cuda_module(tmp_path):
    # an RNN-T loss library's binding: the CMake CUDA library `rt`, a CppExtension linking it (`libraries=['rt']`), and
    # the package re-exporting the binding; a CppExtension linking a system library stays a CPU build
    write_files(tmp_path, {
        "CMakeLists.txt": "FIND_PACKAGE(CUDA)\nCUDA_ADD_LIBRARY(rt SHARED src/rt.cu)\n",
        "src/rt.cu": "__global__ void k() {}\n",
        "binding/setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension\n"
                            "setup(ext_modules=[CppExtension(name='rt_torch.rt', sources=['b.cpp'], libraries=['rt']),\n"
                            "                   CppExtension(name='rt_torch.cpu', sources=['c.cpp'], libraries=['m'])])\n",
        "binding/rt_torch/__init__.py": "from .rt import *\nfrom .cpu import *\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "rt_torch/__init__.py") == [1]


def test_a_package_reading_its_star_imported_compiled_ops_through_its_own_name_uses_them(tmp_path):
    # an RNN-T binding's `__init__`: `import rt_torch as rt` (the package itself) after `from .rt import *` (the
    # compiled module), then `rt.gpu_loss if cuda else rt.cpu_loss`; the file's own `rt.Loss` class is not an op, and a
    # package star-importing a plain module reads nothing compiled
    write_files(tmp_path, {
        "setup.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                    "setup(ext_modules=[CUDAExtension(name='rt_torch.rt', sources=['b.cpp', 'k.cu'])])\n",
        "rt_torch/__init__.py": "import torch\nimport rt_torch as rt\n\nfrom .rt import *\n\nclass Loss:\n    pass\n"
                                "def loss(x, cuda):\n    f = rt.gpu_loss if cuda else rt.cpu_loss\n    return f(x), rt.Loss\n",
        "other/__init__.py": "import other as o\nfrom .helpers import *\nprint(o.thing)\n",
        "other/helpers.py": "thing = 1\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "rt_torch/__init__.py") == [2, 4, 9, 9]  # both ops read on line 9
    assert finding_lines(result, "NPU508", "other/__init__.py") == []


def test_a_module_variable_aliasing_an_imported_compiled_module_is_the_module_where_it_is_imported(tmp_path):
    # issue 24's own example: `_backend = K` after `import <ext> as K`, then `from .backend import _backend`
    write_files(tmp_path, dict(PLAIN_IMPORT_RELAY, **{
        "moe/impls/backend.py": "import numpy as np\nimport moe_kernel as K\n_backend = K\nnp_alias = np\n",
        "moe/impls/user.py": "from .backend import _backend, np_alias\n_backend.op(1)\nnp_alias.zeros(2)\n",
    }))
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "impls/user.py") == [1, 2]


def test_a_cmake_target_named_through_an_unknown_variable_is_left_out(tmp_path):
    # SIBR viewers' tools: `add_executable(${PROJECT_NAME} main.cpp)` linked with `target_link_libraries(${PROJECT_NAME} ...)`,
    # the variable set by `project(...)`, not by a `set(...)` the file holds: no target name, no crash
    write_files(tmp_path, {
        "tools/CMakeLists.txt": "project(prep)\nadd_executable(${PROJECT_NAME} main.cpp)\n"
                                "target_link_libraries(${PROJECT_NAME} ${Boost_LIBRARIES} core)\n",
        "CMakeLists.txt": "enable_language(CUDA)\nadd_library(core SHARED k.cu)\n",
        "k.cu": "__global__ void k() {}\n",
        "run.py": "import os\n",
    })
    assert finding_lines(_scan(tmp_path), "NPU511", "/CMakeLists.txt") == [1, 2]


# ---- a generic JIT build helper: sources, name and nvcc flags arrive as parameters (issue 24, set 20) -----------
def test_a_build_helper_called_with_cuda_sources_reports_its_own_load_and_import(tmp_path):
    """StyleGAN3 / EG3D torch_utils/custom_ops.py shape: `get_plugin(module_name, sources, **build_kwargs)` calls
    `cpp_extension.load(name=module_name, sources=sources, **build_kwargs)` and `importlib.import_module(module_name)`;
    only its callers (another module) pass the `.cu` sources and nvcc flags."""
    helper = ("import importlib\nimport torch.utils.cpp_extension\n"
              "def get_plugin(module_name, sources, **build_kwargs):\n"
              "    torch.utils.cpp_extension.load(name=module_name, sources=sources, **build_kwargs)\n"  # line 4
              "    return importlib.import_module(module_name)\n")  # line 5
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/torch_utils/__init__.py": "",
        "pkg/torch_utils/custom_ops.py": helper,
        "pkg/torch_utils/ops/__init__.py": "",
        "pkg/torch_utils/ops/bias_act.py": (
            "from .. import custom_ops\n"
            "def _init():\n"
            "    return custom_ops.get_plugin(module_name='bias_act_plugin', sources=['bias_act.cpp', 'bias_act.cu'],\n"
            "                                 extra_cuda_cflags=['--use_fast_math'])\n"),
        # the same helper called only with C++ sources and flags elsewhere: nothing to report there
        "other/__init__.py": "",
        "other/custom_ops.py": helper,
        "other/use.py": "from . import custom_ops\np = custom_ops.get_plugin('cpu_plugin', ['m.cpp'], extra_cflags=['-O3'])\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "pkg/torch_utils/custom_ops.py") == [4, 5]
    assert finding_lines(result, "NPU505", "other/custom_ops.py") == []


def test_a_build_helper_with_its_own_nvcc_classes_is_a_jit_build(tmp_path):
    """Label ruling (L96): a project helper that compiles through classes of its own (`Nvcc`, a CUDA link step), not
    cpp_extension, called with a positional source list holding a `.cu.cc` unit and `cuda=True`: the call, its
    source line and the switch are build lines; in the helper, the constructions and the raise on its CUDA path,
    not the assert, the plain call `out(s)`, nor the `else` branch. A file calling the helper without importing it
    (the name is bound nowhere in it) is read the same; one given only C++ sources is no build."""
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/build/__init__.py": "",
        "pkg/build/steps.py": "class Nvcc:\n    pass\nclass CudaLink:\n    pass\nclass Link:\n    pass\n",
        "pkg/build/jit.py": (
            "from .steps import CudaLink, Link, Nvcc\n"
            "def out(s):\n    return s + '.o'\n"
            "def load_ext(sources, target, cwd='.', cuda=False, arch=None):\n"  # line 4
            "    cmds = []\n"
            "    for s in sources:\n"
            "        if '.cu' in s:\n"
            "            assert cuda is True, 'cuda must be true'\n"  # line 8: not reported
            "            cmds.append(Nvcc(s, out(s), arch))\n"  # line 9
            "    if cuda is True and arch is None:\n"
            "        raise ValueError('no arch')\n"  # line 11
            "    if cuda:\n"
            "        cmds.append(CudaLink(sources, target))\n"  # line 13
            "    else:\n"
            "        cmds.append(Link(sources, target))\n"
            "    return cmds\n"),
        "pkg/ops/__init__.py": "",
        "pkg/ops/nms_gpu.py": (
            "from pkg.build.jit import load_ext\n"
            "load_ext(\n"  # line 2
            "    ['./nms_kernel.cu.cc', './nms.cc'],\n"  # line 3
            "    'nms.so',\n"
            "    cuda=True,\n"  # line 5
            ")\n"),
        "pkg/ops/nms_cpu.py": "load_ext(\n    ['./nms_kernel.cu.cc', './nms.cc'],\n    'nms.so',\n    cuda=True,\n)\n",
        "pkg/ops/plain.py": "from pkg.build.jit import load_ext\nload_ext(['./a.cc', './b.cc'], 'ab.so')\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "pkg/ops/nms_gpu.py") == [2, 3, 5]
    assert finding_lines(result, "NPU505", "pkg/ops/nms_cpu.py") == [1, 2, 4]
    assert finding_lines(result, "NPU505", "pkg/ops/plain.py") == []
    assert finding_lines(result, "NPU505", "pkg/build/jit.py") == [9, 11, 13]


def test_a_loop_cd_into_extension_folders_runs_each_setup_py(tmp_path):
    # a build script beside two CUDA-extension folders (set 28c-10): `for ext in a b; do cd $ext && python setup.py
    # install && cd -; done` installs each folder's CUDA build: one finding at the line; a `cd` into a folder without a
    # CUDA build is not one
    write_files(tmp_path, {
        "ext/k_cuda/setup.py": _cuda_setup('k_cuda', 'k_cuda', ['k.cu']),
        "ext/k_cuda/k.cu": "__global__ void k(float* x) {}\n",
        "ext/tools/setup.py": "from setuptools import setup\nsetup(name='tools', packages=['tools'])\n",
        "ext/build.sh": "for ext in k_cuda; do\n    cd $ext && python setup.py clean --all install --user && cd -\ndone\n"
                        "cd tools && python setup.py install\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU502", "ext/build.sh") == [2]


def test_a_cmake_python_extension_copied_into_a_package_is_the_kernel_module(tmp_path):
    # a pybind11 module built by CMake in pkg/ops/ and linked into the package by a build script (`ln -s
    # build/_kern*.so ../`): `import pkg._kern`, calls through an alias (`f(...)`; not the binding `f = _kern.op`, (L52)),
    # methods of an object
    # of its compiled class, and the module reached through the package that imported it (`pkg.util._kern.op`) are
    # kernel uses; `torch._C` is not the repository's `_C`-like module, nor is a Python wrapper of the package
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops/CMakeLists.txt": "project(_kern LANGUAGES CUDA CXX)\nfile(GLOB SRCS \"csrc/*.cu\")\n"
                                  "pybind11_add_module(_kern MODULE ${SRCS})\n",
        "pkg/ops/csrc/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/util/__init__.py": (
            "import torch\nimport pkg._kern as _kern\n\n\ndef norm(x, w):\n    f = _kern.norm_forward\n    f(x, w)\n"
            "    return torch._C._get_tracing_state()\n\n\nclass Decode:\n    def __init__(self):\n"
            "        self._impl = _kern.DecodeImpl(0)\n\n    def run(self, q):\n        self._impl.forward(q)\n"
        ),
        "pkg/tests/test_k.py": "import pkg.util\n\n\ndef test_norm(x, w):\n    pkg.util._kern.norm_forward(x, w)\n"
                               "    pkg.util.norm(x, w)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/util/__init__.py") == [2, 7, 13, 16]
    # the package `__init__` binds the compiled module itself (`import pkg._kern as _kern`, since fix65b read like
    # `from pkg import _kern`): the import of the package whose module the file calls through is reported with the
    # call, as exllama's `import cuda_ext` then `cuda_ext.exllama_ext.q4_mlp(...)` (NPU508 `_reaches`)
    assert finding_lines(result, "NPU508", "pkg/tests/test_k.py") == [1, 5]


def test_an_extension_imported_under_a_deeper_package_of_its_own_is_that_extension(tmp_path):
    # a relative import with one dot too few (`from .._CUDA import op` in pkg/layers/nn/, resolving to the
    # nonexistent pkg.layers._CUDA) can only mean the one compiled `pkg._CUDA` the setup.py builds (label rule 32b-3);
    # a name the repository has a Python module of (`_utils`) is that module, and a name two builds share is not guessed
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg._CUDA', ['csrc/k.cu']),\n"
            "    CUDAExtension('pkg._utils', ['csrc/u.cu']), CUDAExtension('pkg.a._C', ['csrc/a.cu']),\n"
            "    CUDAExtension('pkg.b._C', ['csrc/b.cu'])])\n"),
        "csrc/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "",
        "pkg/layers/__init__.py": "",
        "pkg/layers/_utils.py": "def helper(x):\n    return x\n",
        "pkg/layers/nn/__init__.py": "",
        "pkg/layers/nn/bmm.py": (
            "import torch\nfrom .._CUDA import bmm_s8t\nfrom .._utils import helper\nfrom .._C import other\n"
            "def f(a, b):\n    return bmm_s8t(a, b)\ndef g(a):\n    return helper(a) + other(a)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "bmm.py") == [2, 6]


def test_a_name_imported_from_a_module_file_is_that_files_attribute_not_an_extension(tmp_path):
    # detectron-style configs: pkg/config/__init__.py `from .defaults import _C as cfg` takes the yacs node `_C = CN()`
    # of pkg/config/defaults.py, a Python file: no compiled module sits inside a file, so it is not the `pkg._C` the
    # setup.py builds (Index._misplaced), and neither are `cfg` re-imported elsewhere nor its method calls (set 58,
    # microsoft/GLIP: 41 FP); the compiled `pkg._C` itself, imported from the package, stays reported
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', ['pkg/csrc/nms.cu'])])\n"),
        "pkg/csrc/nms.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "",
        "pkg/config/__init__.py": "from .defaults import _C as cfg\n",
        "pkg/config/defaults.py": "class CN(dict):\n    pass\n\n_C = CN()\n_C.MODEL = CN()\n",
        "pkg/layers/__init__.py": "",
        "pkg/layers/nms.py": "from pkg import _C\n\n\ndef nms(b, s):\n    return _C.nms(b, s)\n",
        "tools/train.py": (
            "from pkg.config import cfg\nfrom pkg.config.defaults import _C\n\ncfg.merge_from_file('x')\n"
            "cfg.freeze()\n_C.clone()\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/config/__init__.py") == []
    assert finding_lines(result, "NPU508", "tools/train.py") == []
    assert finding_lines(result, "NPU508", "pkg/layers/nms.py") == [1, 5]


def test_a_cpp_extension_with_a_cu_source_is_a_cuda_extension(tmp_path):
    # hahnyuan/TorchQuantExtension: `cpp_extension.CppExtension("ext", ["a.cpp", "k.cu"])` with BuildExtension: torch
    # compiles each `.cu` with nvcc whatever the class (repo_index.plain_cuda_extension): the build call, its `.cu`
    # line, and the compiled module's import and op calls; a C++-only CppExtension stays a CPU build
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils import cpp_extension\n\n"
            "ext = cpp_extension.CppExtension(\n    'quant_ext',\n    ['quant.cpp', 'quant_kernel.cu'],\n)\n"
            "cpu = cpp_extension.CppExtension('cpu_ext', ['cpu.cpp'])\n"
            "setup(name='quant_ext', ext_modules=[ext, cpu], cmdclass={'build_ext': cpp_extension.BuildExtension})\n"),
        "quant_kernel.cu": "__global__ void k(float* x) {}\n",
        "testing/test_q.py": (
            "import torch\nimport quant_ext\nimport cpu_ext\n\n\ndef run(t):\n"
            "    cpu_ext.helper(t)\n    return quant_ext.quant_forward(t)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU505", "setup.py") == [4, 6]
    assert finding_lines(result, "NPU508", "testing/test_q.py") == [2, 8]


def test_a_cpu_extension_of_that_name_is_not_another_packages_cuda_extension(tmp_path):
    # libs/segm builds `segm._C` as a CppExtension beside libs/ops building the CUDA `ops._C`: `from segm._C import f`
    # is the CPU build (nothing to port), not the one CUDA `_C` the scan builds (Index._misplaced, label note 34a-1)
    write_files(tmp_path, {
        "libs/ops/setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='ops', ext_modules=[CUDAExtension('ops._C', ['src/k.cu'])])\n"),
        "libs/ops/src/k.cu": "__global__ void k(float* x) {}\n",
        "libs/ops/ops/__init__.py": "from ops._C import knn\n",
        "libs/segm/setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension\n"
            "setup(name='segm', ext_modules=[CppExtension(name='segm._C', sources=['src/s.cpp'])])\n"),
        "libs/segm/segm/__init__.py": "",
        "libs/segm/segm/functions.py": "from segm._C import segment_fn\ndef segment(v):\n    return segment_fn(v)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "libs/segm/segm/functions.py") == []
    assert finding_lines(result, "NPU508", "libs/ops/ops/__init__.py") == [1]


def test_a_global_cache_of_the_compiled_module_calls_its_ops(tmp_path):
    # a loader function stores the compiled module in a module-level cache bound to None at the top (imported
    # prebuilt, else JIT-built by a project helper whose sources list is built in its body): each `_plugin.op(...)`
    # of the file, through a submodule too, and the methods of the object a class of it builds are the uses
    # (migrate/callable_aliases.py global_module_caches); the cache lines themselves run nothing
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/setup_ext.py": (
            "import os\nfrom pkg import jit\n"
            "def setup_ext(conf):\n    source_files = ['src/tracer.cpp', 'src/k.cu']\n"
            "    jit.compile_kernel(kernel_files=['k.slang'], output_file='include/k.cuh')\n"
            "    paths = [os.path.join(os.path.dirname(__file__), f) for f in source_files]\n"
            "    return jit.load(name='libext_cc', sources=paths)\n"),
        "pkg/jit.py": (
            "from torch.utils.cpp_extension import load as _load\n"
            "def load(name, sources, with_cuda=True):\n    return _load(name=name, sources=sources, with_cuda=with_cuda)\n"
            "def compile_kernel(kernel_files, output_file):\n    pass\n"),
        "pkg/src/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/tracer.py": (
            "_plugin = None\n"
            "def load_plugin(conf):\n    global _plugin\n    if _plugin is None:\n        try:\n"
            "            from . import libext_cc as ext\n        except ImportError:\n"
            "            from .setup_ext import setup_ext\n            ext = setup_ext(conf)\n"
            "        _plugin = ext\n"
            "class Tracer:\n    def __init__(self, conf):\n        load_plugin(conf)\n"
            "        self.impl = _plugin.OptixTracer(conf)\n"
            "    def run(self, x):\n        self.impl.build_bvh(x)\n        return _plugin.cuda.render(x)\n"),
    })
    result = _scan(tmp_path)
    tracer = finding_lines(result, "NPU508", "tracer.py")
    assert {6, 14, 16, 17} <= set(tracer) and 10 not in tracer
    # the sources list built in the helper's body makes the helper call a CUDA build; the generator's output header is none
    assert finding_lines(result, "NPU505", "setup_ext.py") == [4, 7]


def test_class_attributes_naming_ops_are_called_through_cls_in_the_base(tmp_path):
    # subclasses of an autograd Function bind their ops as class attributes (a tuple, one None stand-in); the base
    # calls them through `cls`: those calls are the uses, the bindings only name the ops (label ruling (L52), rule
    # 48a a-6; migrate/callable_aliases.py class_attribute_aliases)
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='geo', ext_modules=[CUDAExtension('geo_ops', ['src/geo.cu'])])\n"),
        "src/geo.cu": "__global__ void k(float* x) {}\n",
        "geo/__init__.py": "",
        "geo/ops.py": (
            "import torch\nimport geo_ops\n"
            "class Op(torch.autograd.Function):\n"
            "    @classmethod\n    def forward(cls, ctx, x):\n        return cls.fwd(x)\n"
            "    @classmethod\n    def backward(cls, ctx, g):\n        assert cls.bwd is not None\n        return cls.bwd(g)\n"
            "class Exp(Op):\n    fwd, bwd = geo_ops.expm, geo_ops.expm_backward\n"
            "class ToMatrix(Op):\n    fwd, bwd = geo_ops.as_matrix, None\n"
            "def project(x):\n    return geo_ops.projector(x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "geo/ops.py") == [2, 6, 10, 16]


def test_a_class_attribute_rebound_on_the_instance_is_no_alias(tmp_path):
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='geo', ext_modules=[CUDAExtension('geo_ops', ['src/geo.cu'])])\n"),
        "src/geo.cu": "__global__ void k(float* x) {}\n",
        "geo/ops.py": (
            "import geo_ops\n"
            "class Op:\n    fwd = geo_ops.expm\n"
            "    def __init__(self, f=None):\n        if f is not None:\n            self.fwd = f\n"
            "    def run(self, x):\n        return self.fwd(x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "geo/ops.py") == [1, 3]


def test_an_extension_named_by_a_variable_of_a_shared_version_file(tmp_path):
    # setup.py and the package module both `exec` version.py, which binds the extension's name: the build defines
    # `{__cuda_pkg_name__}` and `importlib.import_module(__cuda_pkg_name__)` loads it (migrate/shared_names.py, rule
    # 48c c-3); the module-level aliases in the try are called in the autograd Function (their binding lines are not
    # reported), and the package's imports of the wrapper module import no compiled name
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "exec(open('pkg/version.py').read())\n"
            "setup(name='pkg', ext_modules=[CUDAExtension(__cuda_pkg_name__, sources=['pkg/k.cu'])])\n"),
        "pkg/version.py": "__version__ = '0.1'\n__cuda_pkg_name__ = f'pkg_cuda_{__version__.replace(\".\", \"_\")}'\n",
        "pkg/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "from pkg.attn import attention\n",
        "pkg/attn.py": (
            "import os\nimport importlib\nfrom torch.autograd import Function\n"
            "exec(open(os.path.dirname(__file__) + '/version.py').read())\n"
            "try:\n    cuda_pkg = importlib.import_module(__cuda_pkg_name__)\n    forward = cuda_pkg.forward\n"
            "except ImportError:\n    print('not compiled')\n"
            "class Attn(Function):\n    @staticmethod\n    def forward(ctx, q):\n        return forward(q)\n"
            "def attention(q):\n    return Attn.apply(q)\n"),
        "train.py": "from pkg import attention\nimport importlib\nm = importlib.import_module(name)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/attn.py") == [6, 13]
    assert finding_lines(result, "NPU508", "pkg/__init__.py") == []
    assert finding_lines(result, "NPU508", "train.py") == []


def test_a_build_through_a_variable_bound_to_the_extension_class_is_no_use(tmp_path):
    # `Extension = CppExtension if suffix == 'cpu' else CUDAExtension`, then `extension = Extension(...)`: the build
    # (NPU505 at the choice), not a project helper handing the compiled module out (rule 48a a-1)
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
            "def get_extensions():\n    extensions = []\n    for suffix in ['cpu', 'cuda']:\n"
            "        Extension = CppExtension if suffix == 'cpu' else CUDAExtension\n"
            "        extension = Extension(f'pkg._ops_{suffix}', ['csrc/ops.cpp', 'csrc/ops.cu'])\n"
            "        extensions += [extension]\n    return extensions\n"
            "setup(name='pkg', ext_modules=get_extensions())\n"),
        "csrc/ops.cu": "__global__ void k(float* x) {}\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "setup.py") == []
    assert 6 in finding_lines(result, "NPU505", "setup.py")


def test_a_global_cache_bound_to_something_else_too_is_no_module(tmp_path):
    write_files(tmp_path, {
        "setup.py": (
            "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg.lib_cc', ['csrc/k.cu'])])\n"),
        "csrc/k.cu": "__global__ void k(float* x) {}\n",
        "pkg/__init__.py": "",
        "pkg/use.py": (
            "import numpy\n_plugin = None\ndef load():\n    global _plugin\n    try:\n        from . import lib_cc as ext\n"
            "    except ImportError:\n        ext = numpy\n    _plugin = ext\n"
            "def run(x):\n    return _plugin.render(x)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "use.py") == [6]


# ---- one build per GPU architecture under an f-string name, loaded in a loop, imported elsewhere --------
PER_ARCH = {
    "bindings/setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "def make_extension(cc):\n"
        "    return CUDAExtension(name=f'pkg_bindings._{cc}_C', sources=['../src/k.cu'])\n"
        "setup(name='pkg', ext_modules=[make_extension(cc) for cc in (70, 86)],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    ),
    "src/k.cu": "__global__ void k() {}\n",
    "bindings/pkg/__init__.py": "",
    "bindings/pkg/modules.py": (
        "import importlib\n_C = None\n"
        "for cc in (86, 70):\n"
        "    try:\n"
        "        _C = importlib.import_module(f'pkg_bindings._{cc}_C')\n"
        "        break\n"
        "    except ModuleNotFoundError:\n"
        "        pass\n"
        "def free_memory():\n"
        "    _C.free_temporary_memory()\n"
    ),
    "scripts/check.py": "from pkg.modules import _C\nprint(_C.preferred_precision())\n",
}


def test_per_architecture_build_reached_by_fstring_import_and_its_importers(tmp_path):
    write_files(tmp_path, PER_ARCH)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/modules.py") == [5, 10]
    assert finding_lines(result, "NPU508", "scripts/check.py") == [1, 2]


# a CMake shared library whose own source defines the pybind11 module of its name (`add_library(k SHARED w.cu)` beside
# `PYBIND11_MODULE(k, m)`), copied into the package by the build script and imported relatively (set 42c, 42c-7)
def test_cmake_shared_library_defining_its_pybind_module_is_imported_from_the_package(tmp_path):
    write_files(tmp_path, {
        "csrc/CMakeLists.txt": "project(k CXX)\nenable_language(CUDA)\nadd_library(my_kernels SHARED ${CMAKE_CURRENT_SOURCE_DIR}/w.cu)\n",
        "csrc/w.cu": "__global__ void g(float* x) {}\nPYBIND11_MODULE(my_kernels, m) {\n  m.def(\"gemm\", &gemm);\n}\n",
        "build.sh": "cd csrc/build && cmake .. && make\ncp libmy_kernels.so ../../pkg/my_kernels.so\n",
        "pkg/__init__.py": "",
        "pkg/linear.py": "import torch\nfrom .my_kernels import gemm\n\ndef forward(x, w):\n    return gemm(x, w)\n",
        "pkg/other.py": "from .helpers import gemm\n\ndef f(x):\n    return gemm(x)\n",
        "pkg/helpers.py": "def gemm(x):\n    return x\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/linear.py") == [2, 5]
    assert finding_lines(result, "NPU508", "pkg/other.py") == []


# a C++-only pybind11 module (a CGAL triangulation moving its input to the CPU) in a CMake project that enables CUDA:
# a relative import does not reach it as a CUDA extension, so a script importing the package's binding of it reports
# nothing, nor does the package binding it (label rule 34d-1: a match inside a package needs the target's own .cu sources)
def test_relative_import_of_cpp_only_cmake_python_extension_is_not_a_cuda_use(tmp_path):
    write_files(tmp_path, {
        "tri/CMakeLists.txt": "project(tri LANGUAGES CXX CUDA)\nenable_language(CUDA)\n"
                              "pybind11_add_module(tri_ext src/triangulation.cpp src/binding.cpp)\n"
                              "target_link_libraries(tri_ext PRIVATE CGAL::CGAL)\n",
        "tri/src/binding.cpp": "#include <torch/extension.h>\ntorch::Tensor tri(const torch::Tensor& p) {\n"
                               "  auto q = p.cpu().contiguous();\n  return q;\n}\n"
                               "PYBIND11_MODULE(tri_ext, m) {\n  m.def(\"triangulate\", &tri);\n}\n",
        "tri/src/triangulation.cpp": "#include <CGAL/Delaunay_triangulation_3.h>\n",
        "tri/trilib/__init__.py": "",
        "tri/trilib/extension/__init__.py": "from . import tri_ext as cpp\ntriangulate = cpp.triangulate\n",
        "mesh.py": "from trilib.extension import cpp\n\ndef cells(points):\n    return cpp.triangulate(points)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "mesh.py") == []
    assert finding_lines(result, "NPU508", "tri/trilib/extension/__init__.py") == []


# a C++-only pybind11 module that links TensorRT's runtime (the Python interface of a TensorRT engine): imported from
# the CMake build tree that mirrors its folder (`from build.pyi.Engine import Engine`), its construction and the methods
# of the object run the GPU engine (label note 48d; (L95)); the class wraps TensorRT's C++ API, so it is no CPU-only class
def test_cpp_pybind_module_linking_a_gpu_runtime_is_a_cuda_use_from_the_build_tree(tmp_path):
    write_files(tmp_path, {
        "rt/pyi/CMakeLists.txt": "find_package(CUDA REQUIRED)\npybind11_add_module(Engine engine.cpp)\n"
                                 "target_link_libraries(Engine PRIVATE ${ENGINE_LIB} nvinfer)\n",
        "rt/pyi/engine.cpp": "#include <pybind11/pybind11.h>\n#include \"NvInfer.h\"\nusing namespace nvinfer1;\n"
                             "class Engine {\npublic:\n  Engine(int d);\n  int build(const std::string &f);\n};\n"
                             "PYBIND11_MODULE(Engine, m) {\n  py::class_<Engine>(m, \"Engine\")\n"
                             "    .def(py::init<int>())\n    .def(\"build\", &Engine::build);\n}\n",
        "rt/pyi/run.py": "import sys\nsys.path.append('../')\nfrom build.pyi.Engine import Engine\n\n"
                         "if __name__ == '__main__':\n    m = Engine(0)\n    m.build('a.engine')\n    bench(m)\n",
        # the object handed to a function of the file: its parameter (and a local bound to it) holds it (L95)
        "rt/pyi/bench.py": "from build.pyi.Engine import Engine\n\ndef bench(wrapper):\n    model = wrapper\n"
                           "    return model.infer(1)\n\nbench(Engine(0))\ne = Engine(1)\nbench(e)\n",
        # the same C++-only module linking no GPU runtime stays C++ (label rule 34d-1)
        "cpu/pyi/CMakeLists.txt": "find_package(CUDA REQUIRED)\npybind11_add_module(Geo geo.cpp)\n"
                                  "target_link_libraries(Geo PRIVATE CGAL::CGAL)\n",
        "cpu/pyi/run.py": "from build.pyi.Geo import Geo\ng = Geo(1)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "rt/pyi/run.py") == [3, 6, 7]
    assert finding_lines(result, "NPU508", "rt/pyi/bench.py") == [1, 5, 7, 8]
    assert finding_lines(result, "NPU508", "cpu/pyi/run.py") == []


def test_a_relative_source_a_helper_joins_to_its_package_builds_that_copy_not_one_in_a_temp_folder(tmp_path):
    # mmdet's make_cuda_ext joins `src/x_cuda.cu` to the module's folder: the copy under src/temp/ is built by nothing
    # (label note 48b b-10); the one whose path ends with the written name is
    setup = ("import os\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "def make_cuda_ext(name, module, sources, sources_cuda=[]):\n"
             "    return CUDAExtension(name=f'{module}.{name}', sources=[os.path.join(*module.split('.'), p) for p in sources + sources_cuda])\n"
             "exts = [make_cuda_ext(name='x_ext', module='pkg.ops.x', sources=['src/x.cpp'], sources_cuda=['src/x_cuda.cu'])]\n")
    kernel = "__global__ void k() {}\n"
    write_files(tmp_path, {"setup.py": setup, "pkg/ops/x/src/x.cpp": "int f();\n", "pkg/ops/x/src/x_cuda.cu": kernel,
                           "pkg/ops/x/src/temp/x_cuda.cu": kernel})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU506", "pkg/ops/x/src/x_cuda.cu") == [1]
    assert finding_lines(result, "NPU506", "pkg/ops/x/src/temp/x_cuda.cu") == []


# mmdet's make_cuda_ext builds each extension with CppExtension where there is no CUDA: its ops run on host tensors
# (`torch.from_numpy(...)`, `.cpu()`) and in the `else:` of an `is_cuda` test on that CPU build (label rulings (L28),
# (L69); label note 48b b-4); the CUDA branch and an op on tensors of unknown device stay reported
def test_ops_of_a_helper_built_extension_with_a_cpp_fallback_off_cuda_are_not_reported(tmp_path):
    setup = ("import os\nimport torch\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
             "def make_cuda_ext(name, module, sources, sources_cuda=[]):\n"
             "    if torch.cuda.is_available():\n        extension = CUDAExtension\n        sources += sources_cuda\n"
             "    else:\n        extension = CppExtension\n"
             "    return extension(name=f'{module}.{name}', sources=[os.path.join(*module.split('.'), p) for p in sources])\n"
             "exts = [make_cuda_ext(name='nms_ext', module='pkg.nms', sources=['src/nms.cpp'], sources_cuda=['src/nms_kernel.cu'])]\n")
    wrapper = ("import numpy as np\nimport torch\nfrom . import nms_ext\n\ndef nms(dets, thr):\n    if dets.is_cuda:\n"
               "        return nms_ext.nms(dets, thr)\n    else:\n        return nms_ext.nms(dets, thr)\n\n"
               "def soft_nms(dets, thr):\n    if isinstance(dets, torch.Tensor):\n        d = dets.detach().cpu()\n"
               "    else:\n        d = torch.from_numpy(dets)\n    return nms_ext.soft_nms(d, thr)\n\n"
               "def match(dets, thr):\n    return nms_ext.nms_match(dets, thr)\n")
    write_files(tmp_path, {"setup.py": setup, "pkg/__init__.py": "", "pkg/nms/__init__.py": "", "pkg/nms/wrapper.py": wrapper,
                           "pkg/nms/src/nms.cpp": "int f();\n", "pkg/nms/src/nms_kernel.cu": "__global__ void k() {}\n"})
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/nms/wrapper.py") == [3, 7, 19]


def test_a_bare_name_builds_the_copy_under_the_naming_file_not_a_same_named_copy_elsewhere(tmp_path):
    # a vendored op ships its kernel twice (label note 44c c-3): roi/src/ at the top (nothing builds or includes it)
    # and roi/pytorch/roi_pool/src/, which functional.py's load() joins to its own folder; the bare `#include
    # "roi_impl.cuh"` of the built .cu names the header beside it. A bare name with no copy under the naming file's
    # folder still names any file so called
    load = ("import os\nfrom torch.utils.cpp_extension import load\nroot_dir = os.path.join(os.path.dirname(__file__), 'src')\n"
            "_ext = load('_roi', [os.path.join(root_dir, 'roi.c'), os.path.join(root_dir, 'roi_impl.cu')])\n")
    kernel, header = '#include "roi_impl.cuh"\n__global__ void k() {}\n', "#pragma once\n__device__ int h();\n"
    write_files(tmp_path, {"roi/pytorch/roi_pool/functional.py": load, "roi/pytorch/roi_pool/src/roi_impl.cu": kernel,
                           "roi/pytorch/roi_pool/src/roi_impl.cuh": header, "roi/src/roi_impl.cu": kernel,
                           "roi/src/roi_impl.cuh": header})
    reported = sorted(os.path.relpath(f.path, tmp_path) for f in _scan(tmp_path).findings if f.code == "NPU506")
    assert reported == ["roi/pytorch/roi_pool/src/roi_impl.cu", "roi/pytorch/roi_pool/src/roi_impl.cuh"]
    other = tmp_path / "other"
    write_files(other, {"tools/build.py": load, "csrc/roi_impl.cu": kernel, "csrc/roi_impl.cuh": header})
    assert len([f for f in _scan(other).findings if f.code == "NPU506"]) == 2


def test_a_dockerfile_that_clones_the_repository_itself_installs_it(tmp_path):
    # `git clone https://github.com/owner/det.git /det` then `WORKDIR /det` and `RUN pip install -e .`: the image
    # installs the scanned repository (its folder is named det), whose setup.py builds CUDA (label ruling (L72), s2anet's
    # docker/Dockerfile). A clone of another project (`/mmdet3d`) is not the repository.
    root = tmp_path / "det"
    root.mkdir()
    write_files(root, {
        "setup.py": _cuda_setup('det', 'det_cuda', ['det/k.cpp', 'det/k_kernel.cu']),
        "det/k_kernel.cu": "__global__ void k(float* x) {}\n", "det/k.cpp": "// host\n",
        "docker/Dockerfile": ("FROM base\nRUN git clone https://github.com/owner/det.git /det\nWORKDIR /det\n"
                              "RUN pip install --no-cache-dir -e .\n"
                              "RUN git clone https://github.com/open-mmlab/mmdetection3d.git /mmdet3d\n"
                              "WORKDIR /mmdet3d\nRUN pip install -e .\n"),
    })
    result = _scan(root)
    assert finding_lines(result, "NPU502", "docker/Dockerfile") == [4]


def test_a_dockerfile_that_clones_the_repository_and_enters_it_installs_it(tmp_path):
    # `RUN git clone --recursive "https://github.com/owner/det"` (a quoted URL) then `RUN cd det; python setup.py
    # install`: the clone is the scanned repository (its folder is named det), as with a WORKDIR (label ruling (L72));
    # a clone of another project entered the same way is not
    root = tmp_path / "det"
    root.mkdir()
    write_files(root, {
        "setup.py": _cuda_setup('det', 'det_cuda', ['det/k.cpp', 'det/k_kernel.cu']),
        "det/k_kernel.cu": "__global__ void k(float* x) {}\n", "det/k.cpp": "// host\n",
        "docker/Dockerfile": ('FROM base\nRUN git clone --recursive "https://github.com/owner/det"\n'
                              "RUN cd det; python setup.py install --force_cuda\n"
                              "RUN git clone https://github.com/acme/other\nRUN cd other; python setup.py install\n"),
    })
    result = _scan(root)
    assert finding_lines(result, "NPU502", "docker/Dockerfile") == [3]


def test_a_compiled_op_imported_again_through_python_packages_is_reported_at_its_calls_not_at_each_import(tmp_path):
    # label note 44b b-4: `from .nms_cuda import rotated_nms` in the op's package `__init__` is the import of the
    # compiled op; `from .rotated import rotated_nms` in ops/__init__.py and `from det.ops import rotated_nms` in the
    # post-processing only bind the name again (an alias, (L46)/(L52)); the call is reported. The compiled module itself
    # re-imported through a Python module (`from det.ops.backend import _ext`) stays an import of the extension.
    write_files(tmp_path, {
        "setup.py": _cuda_setup("det", "det.ops.rotated.nms_cuda", ["det/ops/rotated/src/nms_kernel.cu"])
        .replace("ext_modules=[", "ext_modules=[CUDAExtension('det.ops.backend_ext', ['det/ops/src/b.cu']), "),
        "det/__init__.py": "",
        "det/ops/__init__.py": "from .rotated import rotated_nms\n\n__all__ = ['rotated_nms']\n",
        "det/ops/rotated/__init__.py": "from .nms_cuda import rotated_nms\n",
        "det/ops/rotated/src/nms_kernel.cu": "__global__ void k(float* x) {}\n",
        "det/ops/src/b.cu": "__global__ void k(float* x) {}\n",
        "det/ops/backend.py": "from . import backend_ext as _ext\n",
        "det/post.py": "from det.ops import rotated_nms\n\n\ndef nms(boxes, scores):\n"
                       "    return rotated_nms(boxes, scores, 0.5)\n",
        "det/layer.py": "from det.ops.backend import _ext\n\n\ndef run(x):\n    return _ext.forward(x)\n",
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "det/ops/rotated/__init__.py") == [1]
    assert finding_lines(result, "NPU508", "det/ops/__init__.py") == []
    assert finding_lines(result, "NPU508", "det/post.py") == [5]
    assert finding_lines(result, "NPU508", "det/layer.py") == [1, 5]


def test_a_vcs_install_of_the_repository_itself_installs_its_cuda_build(tmp_path):
    # A tutorial notebook's install cell falls back to `!pip install 'git+https://github.com/owner/det.git@stable'`:
    # pip builds the scanned repository (its folder is named det), whose setup.py builds CUDA (label ruling (L82)); so
    # does the same URL in a requirements file. Another project's URL, and one folder of a repository
    # (`#subdirectory=`), are not the repository.
    import json as _json

    root = tmp_path / "det"
    root.mkdir()
    cell = ["import torch\n", "try:\n", "    import det\n", "except ImportError:\n",
            "    !pip install ninja\n", "    !pip install 'git+https://github.com/owner/det.git@stable'\n",
            "!pip install git+https://github.com/other/lib.git\n"]
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Tutorial"]},
                          {"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": None}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write_files(root, {
        "setup.py": _cuda_setup('det', 'det._C', ['det/k.cpp', 'det/k_kernel.cu']),
        "det/k_kernel.cu": "__global__ void k(float* x) {}\n", "det/k.cpp": "// host\n",
        "docs/tutorial.ipynb": _json.dumps(notebook),
        "requirements/dev.txt": ("numpy\ngit+https://github.com/owner/det.git\n"
                                 "git+https://github.com/owner/det.git#subdirectory=tools\n"),
    })
    result = _scan(root)
    assert sorted((f.cell, f.line) for f in result.findings
                  if f.code == "NPU502" and f.path.endswith("tutorial.ipynb")) == [(1, 6)]
    assert finding_lines(result, "NPU502", "requirements/dev.txt") == [2]


def test_a_project_build_helper_given_its_own_sources_keyword_is_a_build(tmp_path):
    # set 46d (label L10): `get_cuda_extension(path, relative_name=..., relative_sources=[... ".cu"])`, a helper of another
    # module returning `CUDAExtension(name=PREFIX + relative_name, ...)`: the call and its `.cu` line are the build
    write_files(tmp_path, {
        "proj/__init__.py": "", "proj/utils/__init__.py": "", "proj/ops/__init__.py": "",
        "proj/utils/cuda_build.py": (
            "from torch.utils.cpp_extension import CUDAExtension\nPREFIX = 'proj.ext.'\n\n"
            "def get_cuda_extension(root, relative_name, relative_sources):\n"
            "    return CUDAExtension(name=PREFIX + relative_name, sources=[str(root / s) for s in relative_sources])\n"),
        "proj/ops/extension.py": (
            "from proj.utils.cuda_build import get_cuda_extension\n\ndef get_ext(path):\n    return get_cuda_extension(\n"
            "        path,\n        relative_name='pack_cuda',\n        relative_sources=[\n            'pack.cpp',\n"
            "            'pack_kernel.cu',\n        ],\n    )\n\n"
            "def get_cpu_ext(path):\n    return get_cuda_extension(path, relative_name='pack_cpu', relative_sources=['pack.cpp'])\n"),
        "proj/ops/pack_kernel.cu": "__global__ void k(int* x) {}\n",
    })
    assert finding_lines(_scan(tmp_path), "NPU505", "proj/ops/extension.py") == [4, 9]


# a package that builds each extension through a helper of its own and imports it back through another: the build
# helper `get_cuda_extension(path, relative_name=..., relative_sources=[...])` returns `CUDAExtension(name=PREFIX +
# relative_name, ...)`, and `import_extension("pack_cuda")` imports `PREFIX + name` (a placeholder raising on use when
# the module is missing); set 46d (label notes d-10, L10)
HELPER_IMPORTS = {
    "proj/__init__.py": "", "proj/ext/__init__.py": 'EXTENSION_PREFIX = "proj.ext."\n', "proj/utils/__init__.py": "",
    "proj/utils/loader.py": (
        "import importlib\nfrom proj.ext import EXTENSION_PREFIX\n\n"
        "class Missing:\n    def __init__(self, name):\n        self.name = name\n"
        "    def __getattr__(self, item):\n        raise RuntimeError(self.name)\n\n"
        "def import_extension(module_name):\n    try:\n        return importlib.import_module(EXTENSION_PREFIX + module_name)\n"
        "    except ModuleNotFoundError:\n        return Missing(module_name)\n"
    ),
    "proj/utils/cuda_build.py": (
        "from torch.utils.cpp_extension import CUDAExtension\nfrom proj.ext import EXTENSION_PREFIX\n\n"
        "def get_cuda_extension(root, relative_name, relative_sources):\n"
        "    return CUDAExtension(name=EXTENSION_PREFIX + relative_name, sources=[str(root / s) for s in relative_sources])\n"
    ),
    "proj/ops/__init__.py": "",
    "proj/ops/extension.py": (
        "from proj.utils.cuda_build import get_cuda_extension\n\ndef get_ext(path):\n    return get_cuda_extension(\n"
        "        path,\n        relative_name='pack_cuda',\n        relative_sources=[\n            'pack.cpp',\n"
        "            'pack_kernel.cu',\n        ],\n    )\n"
    ),
    "proj/ops/pack_kernel.cu": "__global__ void k(int* x) {}\n",
    "proj/ops/functions.py": (
        "from proj.utils.loader import import_extension\n\n"
        "pack_cuda = import_extension('pack_cuda')\npack_cpu = import_extension('pack_cpu')\n\n"
        "def pack(x):\n    return pack_cuda.pack(x)\n\ndef pack_on_cpu(x):\n    return pack_cpu.pack(x)\n"
    ),
    "proj/ops/user.py": "from proj.ops.functions import pack_cuda\n\ndef run(x):\n    return pack_cuda.pack(x)\n",
}


def test_a_project_build_helper_and_import_helper_reach_the_extension(tmp_path):
    write_files(tmp_path, HELPER_IMPORTS)
    result = _scan(tmp_path)
    # the helper's call and its `.cu` line are the build (its own `relative_sources=` keyword)
    assert finding_lines(result, "NPU505", "proj/ops/extension.py") == [4, 9]
    # the import helper's binding and the calls through it, here and after a re-import; not the CPU module's
    assert finding_lines(result, "NPU508", "proj/ops/functions.py") == [3, 7]
    assert finding_lines(result, "NPU508", "proj/ops/user.py") == [1, 4]


def test_an_import_helper_naming_no_extension_of_the_scan_is_nothing(tmp_path):
    files = dict(HELPER_IMPORTS)
    files["proj/ops/functions.py"] = files["proj/ops/functions.py"].replace("'pack_cuda'", "'pack_other'")
    # a standard-library function named like an importer is no project helper (`find_spec` only looks the module up)
    files["proj/ops/more.py"] = "from importlib.util import find_spec as import_spec\nspec = import_spec('pack_cuda')\n"
    write_files(tmp_path, files)
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "proj/ops/functions.py") == []
    assert finding_lines(result, "NPU508", "proj/ops/more.py") == []


# ---- a module-level alias of a compiled op, re-exported and imported by name elsewhere (cvpods layers/nms.py) ----
REEXPORTED_OP_ALIAS = {
    "setup.py": _cuda_setup("pkg", "pkg._C", ["pkg/csrc/vision.cpp", "pkg/csrc/ml_nms.cu"]),
    "pkg/__init__.py": "",
    "pkg/csrc/ml_nms.cu": "__global__ void k(int* x) {}\n",
    "pkg/layers/__init__.py": "",
    "pkg/layers/nms.py": (
        "import torch\nfrom pkg import _C\n\nml_nms = _C.ml_nms\nsoft = _C.soft_nms\n\n"
        "__all__ = ['ml_nms', 'soft']\n\n\ndef local(b):\n    return soft(b)\n"
    ),
    "pkg/layers/use.py": "from pkg.layers.nms import ml_nms\n\n\ndef f(b, s):\n    return ml_nms(b, s, 0.5)\n",
}


def test_a_module_level_op_alias_is_used_where_it_is_called(tmp_path):
    write_files(tmp_path, REEXPORTED_OP_ALIAS)
    result = _scan(tmp_path)
    # the import of the compiled module and the call through the alias called here; neither binding (label rulings
    # (L52)/(L104): `ml_nms = _C.ml_nms` is only re-exported in this file)
    assert finding_lines(result, "NPU508", "pkg/layers/nms.py") == [2, 11]
    # the module importing the alias by name calls the op through it
    assert finding_lines(result, "NPU508", "pkg/layers/use.py") == [5]


def test_an_op_alias_of_an_extension_with_a_cpu_build_called_on_host_tensors_is_its_cpu_build(tmp_path):
    # GLIP/maskrcnn-benchmark: setup.py builds `pkg._C` with CppExtension where there is no CUDA; layers/nms.py binds
    # `soft_nms = _C.soft_nms`, layers/__init__ re-exports it, and box_aug.py calls `soft_nms(boxes.cpu(), ...)`: the
    # CPU build's op on host tensors (label note 58b, as `_C.soft_nms(boxes.cpu())` itself, migrate/cpu_inputs.py);
    # the op called on the device's tensors through the same alias stays reported
    write_files(tmp_path, {
        "setup.py": (
            "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
            "sources = ['pkg/csrc/vision.cpp']\nextension = CppExtension\n"
            "if torch.cuda.is_available() and CUDA_HOME is not None:\n"
            "    extension = CUDAExtension\n    sources += ['pkg/csrc/cuda/nms.cu']\n"
            "setup(name='pkg', ext_modules=[extension('pkg._C', sources)])\n"),
        "pkg/csrc/cuda/nms.cu": "__global__ void k(int* x) {}\n",
        "pkg/__init__.py": "",
        "pkg/layers/__init__.py": "from .nms import ml_nms\nfrom .nms import soft_nms\n",
        "pkg/layers/nms.py": "from pkg import _C\n\nml_nms = _C.ml_nms\nsoft_nms = _C.soft_nms\n",
        "pkg/eval/__init__.py": "",
        "pkg/eval/aug.py": (
            "from pkg.layers import ml_nms, soft_nms\n\n\ndef vote(boxes, score, labels, kind):\n"
            "    if kind == 'soft':\n        return soft_nms(boxes.cpu(), score.cpu(), 0.5, 0.95)\n"
            "    return ml_nms(boxes, score, labels, 0.5)\n"),
    })
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/eval/aug.py") == [7]


def test_a_module_level_op_alias_in_a_file_with_windows_line_ends_is_the_same(tmp_path):
    # microsoft/GLIP's maskrcnn_benchmark files end their lines with `\r\n` (set 58): `ml_nms = _C.ml_nms` is still the
    # op's alias (kernel_values.OP_ALIAS_LINE's `$` stands before `\n` only), and the call through it elsewhere the use
    files = dict(REEXPORTED_OP_ALIAS)
    for name in ("pkg/layers/nms.py", "pkg/layers/use.py"):
        files[name] = files[name].replace("\n", "\r\n")
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body.encode())  # as written: no newline translation
    result = _scan(tmp_path)
    assert finding_lines(result, "NPU508", "pkg/layers/nms.py") == [2, 11]
    assert finding_lines(result, "NPU508", "pkg/layers/use.py") == [5]


def test_own_triton_kernels_launched_only_behind_the_import_flag_are_an_optional_path(tmp_path):
    # exllamav3's util/measures.py and gated_delta_net_fn/conv1d.py: `try: import triton / has_triton = True / except
    # ImportError: has_triton = False` (with a dummy `triton.jit`), kernels launched only after `if not has_triton or not
    # x.is_cuda: return <torch>` or from a host function called under `if has_triton:` (label rulings (L59)/(L102),
    # set 62c). A kernel launched with no check keeps the import and its decorator (rule (y5)) (fails before fix62b)
    attempt = ("import torch\ntry:\n    import triton\n    has_triton = True\nexcept ImportError:\n"
               "    has_triton = False\n")
    write_files(tmp_path, {
        "measures.py": attempt + (
            "@triton.jit\ndef _kl_kernel(x):\n    pass\n"
            "def kl(x):\n    if not has_triton or not x.is_cuda:\n        return x.sum()\n    _kl_kernel[(1,)](x)\n"),
        "conv.py": attempt + (
            "@triton.jit\ndef _conv_kernel(x):\n    pass\n"
            "def conv_triton(x):\n    _conv_kernel[(1,)](x)\n"
            "def conv(x):\n    if has_triton:\n        return conv_triton(x)\n    return x\n"),
        "plain.py": attempt + (
            "@triton.jit\ndef _kernel(x):\n    pass\n"
            "def run(x):\n    _kernel[(1,)](x)\n"),
    })
    result = _scan(tmp_path)
    for path in ("measures.py", "conv.py"):
        assert finding_lines(result, "NPU501", path) == [] and finding_lines(result, "NPU507", path) == []
    assert finding_lines(result, "NPU501", "plain.py") == [3] and finding_lines(result, "NPU507", "plain.py") == [7, 11]


@pytest.mark.parametrize("package, settings, rasterizer", [
    ("diff_gauss", "GaussianRasterizationSettings", "GaussianRasterizer"),
    ("diff_mip_rasterization", "MipRasterizationSettings", "MipRasterizer"),
    ("diff_point_rasterization", "PointRasterizationSettings", "PointRasterizer"),
    ("diff_surfel_rasterization", "GaussianRasterizationSettings", "GaussianRasterizer"),
])
def test_the_settings_namedtuple_of_a_rasterizer_fork_is_a_value(tmp_path, package, settings, rasterizer):
    # each fork's settings class is a typing.NamedTuple of plain fields (read in the package's __init__.py, cited in
    # third_party.toml): its construction runs no package code; the import and the rasterizer construction are the
    # lines (set 62e note; fails before fix62b)
    write_files(tmp_path, {
        "render.py": (f"from {package} import {settings}, {rasterizer}\n"
                      f"def render(cam, bg):\n    s = {settings}(image_height=cam.h, image_width=cam.w, bg=bg)\n"
                      f"    r = {rasterizer}(raster_settings=s)\n    return r\n"),
    })
    result = _scan(tmp_path)
    assert 3 not in finding_lines(result, "NPU507", "render.py")
    assert 4 in finding_lines(result, "NPU507", "render.py")
