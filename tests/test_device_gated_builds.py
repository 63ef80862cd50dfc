"""A run-time CUDA build taken only for CUDA tensors, plain PyTorch on other devices, is a per-device path
(migrate/device_gated_builds.py, label ruling (L103))."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_HELPER = ("import importlib\nimport torch.utils.cpp_extension\n\n"
           "def get_plugin(module_name, sources, **build_kwargs):\n"
           "    torch.utils.cpp_extension.load(name=module_name, sources=sources, **build_kwargs)\n"  # line 5
           "    return importlib.import_module(module_name)\n")  # line 6

_OP = ("import os\nimport torch\n\nfrom .. import jit\n\n"
       "_kernels = None\n\n\n"
       "def _build():\n"  # line 9
       "    global _kernels\n"
       "    if _kernels is None:\n"
       "        sources = [os.path.join(os.path.dirname(__file__), s) for s in ['scale.cpp', 'scale.cu']]\n"  # line 12
       "        _kernels = jit.get_plugin('scale_plugin', sources=sources, extra_cuda_cflags=['-O3'])\n"  # line 13
       "    return True\n\n\n"
       "def scale(x, k, impl='fast'):\n"  # line 17
       "    if impl == 'fast' and x.device.type == 'cuda' and _build():\n"
       "        return _ScaleCuda.apply(x, k)\n"
       "    return x * k\n\n\n"  # line 20: plain PyTorch, what an NPU tensor runs
       "class _ScaleCuda(torch.autograd.Function):\n"
       "    @staticmethod\n"
       "    def forward(ctx, x, k):\n"
       "        return _kernels.scale(x, k)\n")  # line 26


def _files(op):
    return {"lib/__init__.py": "", "lib/jit.py": _HELPER, "lib/ops/__init__.py": "", "lib/ops/scale.py": op,
            "lib/ops/scale.cpp": "int f();\n", "lib/ops/scale.cu": "__global__ void k() {}\n"}


def _found(tmp_path, op):
    write_files(tmp_path, _files(op))
    result = scan([str(tmp_path)], use_cache=False)
    return {code: (finding_lines(result, code, "lib/ops/scale.py") if code != "NPU506" else
                   finding_lines(result, code, "lib/ops/scale.cu")) for code in ("NPU505", "NPU506", "NPU508")} | {
        "helper": finding_lines(result, "NPU505", "lib/jit.py")}


def test_a_build_taken_only_for_cuda_tensors_with_a_plain_path_is_not_reported(tmp_path):
    assert _found(tmp_path, _OP) == {"NPU505": [], "NPU506": [], "NPU508": [], "helper": []}


def test_is_cuda_and_a_test_in_the_body_count_too(tmp_path):
    op = _OP.replace("    if impl == 'fast' and x.device.type == 'cuda' and _build():\n        return _ScaleCuda.apply(x, k)\n",
                     "    if x.is_cuda:\n        if _build():\n            return _ScaleCuda.apply(x, k)\n")
    assert _found(tmp_path, op) == {"NPU505": [], "NPU506": [], "NPU508": [], "helper": []}


def test_builds_reached_otherwise_or_without_a_plain_path_stay_reported(tmp_path):
    expected_build = [12, 13]
    # no way on for other devices: the gated `if` is the last statement of its block
    op = _OP.replace("        return _ScaleCuda.apply(x, k)\n    return x * k\n", "        return _ScaleCuda.apply(x, k)\n")
    assert _found(tmp_path, op)["NPU505"] == expected_build
    # `or`: the build runs for a non-CUDA tensor when forced
    op = _OP.replace("impl == 'fast' and x.device.type == 'cuda' and _build()", "(x.device.type == 'cuda' or impl == 'fast') and _build()")
    assert _found(tmp_path, op)["NPU505"] == expected_build
    # the device test after the build call: the build has already run
    op = _OP.replace("impl == 'fast' and x.device.type == 'cuda' and _build()", "_build() and x.device.type == 'cuda'")
    assert _found(tmp_path, op)["NPU505"] == expected_build
    # the build called without a device test, and a public builder another module may call
    op = _OP + "\n\ndef warm_up():\n    _build()\n"
    found = _found(tmp_path, op)
    assert found["NPU505"] == expected_build and found["NPU506"] == [1] and found["helper"] == [5, 6]
    op = _OP.replace("_build", "build")
    assert _found(tmp_path, op)["NPU505"] == expected_build
    # the plugin read on a public path that no device test guards
    op = _OP + "\n\ndef scale_fast(x, k):\n    return _kernels.scale(x, k)\n"
    found = _found(tmp_path, op)
    assert found["NPU505"] == expected_build and 26 in found["NPU508"]


# an extension built ahead by setup.py and imported at module level (label note 52b: imaginaire's bias_act/upfirdn2d)
_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
          "setup(name='scale_cuda', ext_modules=[CUDAExtension('scale_cuda', ['src/scale.cpp', 'src/scale_kernel.cu'])],\n"
          "      cmdclass={'build_ext': BuildExtension})\n")
_PREBUILT = ("import torch\n\nimport scale_cuda\n\n\n"  # line 3: the import, no guard
             "def scale(x, k, impl='cuda'):\n"  # line 6
             "    if impl == 'cuda' and x.device.type == 'cuda':\n"
             "        return _scale_cuda().apply(x, k)\n"
             "    return x * k\n\n\n"  # line 9: plain PyTorch, what an NPU tensor runs
             "def _scale_cuda():\n"  # line 12
             "    class ScaleCuda(torch.autograd.Function):\n"
             "        @staticmethod\n"
             "        def forward(ctx, x, k):\n"
             "            return scale_cuda.scale(x, k)\n\n"  # line 16: the extension read on the gated path
             "        @staticmethod\n"
             "        def backward(ctx, dy):\n"
             "            return _scale_cuda().apply(dy, ctx.k), None\n"
             "    return ScaleCuda\n")


def _prebuilt(tmp_path, op):
    write_files(tmp_path, {"ops/setup.py": _SETUP, "ops/src/scale.cpp": "int f();\n",
                           "ops/src/scale_kernel.cu": "__global__ void k() {}\n", "ops/scale.py": op})
    return finding_lines(scan([str(tmp_path)], use_cache=False), "NPU508", "ops/scale.py")


def test_a_prebuilt_extension_read_only_on_the_cuda_tensor_path_keeps_only_its_import(tmp_path):
    assert _prebuilt(tmp_path, _PREBUILT) == [3]
    # no way on for other devices: the uses stay
    assert _prebuilt(tmp_path, _PREBUILT.replace("        return _scale_cuda().apply(x, k)\n    return x * k\n",
                                                 "        return _scale_cuda().apply(x, k)\n")) == [3, 15]
    # the private helper also called off the gated path, or the extension also read in a public function: all stay
    assert _prebuilt(tmp_path, _PREBUILT + "\n\ndef fast(x, k):\n    return _scale_cuda().apply(x, k)\n") == [3, 16]
    assert _prebuilt(tmp_path, _PREBUILT + "\n\ndef fast(x, k):\n    return scale_cuda.scale(x, k)\n") == [3, 16, 25]


# cvpods losses/sigmoid_focal_loss.py: the Function's alias picked only for CUDA tensors, a plain-PyTorch loss otherwise
_ALIASED = ("import torch\n\nimport scale_cuda\n\n\n"  # line 3: the import, no guard
            "class _ScaleCuda(torch.autograd.Function):\n"  # line 6
            "    @staticmethod\n"
            "    def forward(ctx, x, k):\n"
            "        return scale_cuda.scale(x, k)\n\n\n"  # line 9: the extension read on the gated path
            "scale_op_cuda = _ScaleCuda.apply\n\n\n"  # line 12
            "def scale_cpu(x, k):\n    return x * k\n\n\n"
            "def scale(x, k):\n"  # line 17
            "    if x.is_cuda:\n        fn = scale_op_cuda\n    else:\n        fn = scale_cpu\n"
            "    return fn(x, k)\n")


def test_an_alias_of_the_function_read_only_on_the_cuda_tensor_path_keeps_only_the_import(tmp_path):
    assert _prebuilt(tmp_path, _ALIASED) == [3]
    # the alias also called with no device test: the op's use stays
    assert _prebuilt(tmp_path, _ALIASED + "\n\ndef fast(x, k):\n    return scale_op_cuda(x, k)\n") == [3, 9]
    # the alias rebound elsewhere in the module: no longer read only there
    assert _prebuilt(tmp_path, _ALIASED + "scale_op_cuda = None\n") == [3, 9]
