"""StyleGAN2's TensorFlow custom ops (NVlabs/stylegan2 dnnlib/tflib): `custom_ops.get_plugin(cuda_file)` runs nvcc on
the op module's own `.cu` (`os.path.splitext(__file__)[0] + '.cu'`) and loads the result with `tf.load_op_library`;
the op modules read their ops off `_get_plugin()` (label set 60d, DragGAN stylegan_human/dnnlib/tflib)."""
from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_CUSTOM_OPS = ("import os\nimport tensorflow as tf\n\n"
               "def _run_cmd(cmd):\n"
               "    with os.popen(cmd) as pipe:\n"
               "        status = pipe.close()\n"
               "    if status is not None:\n"
               "        raise RuntimeError('NVCC returned an error')\n\n"
               "def _prepare_nvcc_cli(opts):\n"  # line 10
               "    cmd = 'nvcc ' + opts.strip()\n"  # line 11: the nvcc command line
               "    cmd += ' --disable-warnings'\n"
               "    return cmd\n\n"
               "def get_plugin(cuda_file):\n"  # line 15
               "    bin_file = cuda_file + '.so'\n"
               "    _run_cmd(_prepare_nvcc_cli('--shared') + ' \"%s\" -o \"%s\"' % (cuda_file, bin_file))\n"
               "    return tf.load_op_library(bin_file)\n")  # line 18

_OP = ("import os\nimport tensorflow as tf\nfrom .. import custom_ops\n\n"
       "def _get_plugin():\n"
       "    return custom_ops.get_plugin(os.path.splitext(__file__)[0] + '.cu')\n\n"  # line 6: the build
       "def fused(x, b):\n"
       "    cuda_kernel = _get_plugin().fused_bias_act\n"  # line 9: reading it builds
       "    def func_y(x, b):\n"
       "        return cuda_kernel(x=x, b=b, grad=0)\n"  # line 11
       "    @tf.custom_gradient\n"
       "    def func(x):\n"
       "        y = _get_plugin().up_fir_dn2d(x=x, k=b)\n"  # line 14
       "        return y, None\n"
       "    return func_y(x, b)\n")

_FILES = {"lib/__init__.py": "", "lib/tflib/__init__.py": "", "lib/tflib/custom_ops.py": _CUSTOM_OPS,
          "lib/tflib/ops/__init__.py": "", "lib/tflib/ops/fused.py": _OP,
          "lib/tflib/ops/fused.cu": "__global__ void k(float* x) { x[0] = 1; }\n",
          # a copy of a PyTorch op's kernel beside plain-PyTorch modules: nothing builds it
          "lib/torch_ops/op/fused_kernel.cu": "__global__ void k(float* x) { x[0] = 1; }\n",
          "lib/torch_ops/op/fused.py": "import torch\n\ndef fused(x, b):\n    return torch.relu(x + b)\n"}


def test_the_plugin_build_its_ops_and_the_nvcc_command_are_reported(tmp_path):
    write_files(tmp_path, _FILES)
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU505", "ops/fused.py") == [6, 9, 11, 14]
    assert finding_lines(result, "NPU505", "tflib/custom_ops.py") == [18]
    assert finding_lines(result, "NPU504", "tflib/custom_ops.py") == [11]


def test_the_module_own_cuda_file_is_built_and_no_other(tmp_path):
    write_files(tmp_path, _FILES)
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU506", "tflib/ops/fused.cu") == [1]
    # `splitext(__file__)[0] + '.cu'` names `fused.cu` beside the module, not any CUDA file (`name + ".cu"` would)
    assert finding_lines(result, "NPU506", "op/fused_kernel.cu") == []


def test_a_computed_name_still_keeps_every_cuda_file(tmp_path):
    files = dict(_FILES)
    files["lib/tflib/ops/fused.py"] = _OP.replace("os.path.splitext(__file__)[0] + '.cu'", "name + '.cu'")
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU506", "op/fused_kernel.cu") == [1]
    assert finding_lines(result, "NPU505", "ops/fused.py") == []  # a name, not the module's own source: no build read


def test_a_wildcard_in_a_python_comment_names_no_cuda_file(tmp_path):
    files = dict(_FILES)
    # StyleGAN3's torch_utils/custom_ops.py: a comment about ninja, no source list
    files["lib/jit.py"] = "import os\n\ndef build(d):\n    # around the *.cu dependency bug in ninja config.\n    return d\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU506", "op/fused_kernel.cu") == []
    files["lib/jit.py"] = "import glob\n\ndef build(d):\n    return glob.glob(d + '/*.cu')  # every kernel\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU506", "op/fused_kernel.cu") == [1]
