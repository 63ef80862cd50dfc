"""migrate/config_options.py: a project's own option set to the value of its GPU-only branch (NPU503, rule 39d-4)."""

from migrate.engine import scan

MODEL = '''
def flash_padding(x):
    from flash_attn import bert_padding
    return bert_padding.unpad_input(x)


class Block:
    def __init__(self, attn_impl: str = "flash", ctx: str = "gl"):
        self.attn_impl = attn_impl
        if ctx == "gl":
            import nvdiffrast.torch as dr
            self.ctx = dr.RasterizeGLContext()
        elif ctx == "cuda":
            import nvdiffrast.torch as dr
            self.ctx = dr.RasterizeCudaContext()
        else:
            raise ValueError(ctx)

    def forward(self, x):
        if self.attn_impl == "flash":
            x = flash_padding(x)
        elif self.attn_impl == "torch":
            x = x + 1
        return x
'''


def _npu503(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.rsplit("/", 1)[-1], f.line) for r in result.files for f in r.findings if f.code == "NPU503")


def test_settings_of_a_gpu_only_value_are_reported(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.yaml").write_text("model:\n  attn_impl: flash\n  ctx: cuda\n")
    (tmp_path / "cpu.yaml").write_text("model:\n  attn_impl: torch\n")
    (tmp_path / "run.sh").write_text("python train.py --attn_impl flash\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_model.py").write_text("from model import Block\nBlock(attn_impl='flash')\n")
    found = _npu503(tmp_path)
    assert ("train.yaml", 2) in found and ("run.sh", 1) in found and ("model.py", 8) in found
    # `ctx` only switches between two nvdiffrast contexts (rule 39d-2); the torch value and a test's setting are not
    assert ("train.yaml", 3) not in found and not any(name in ("cpu.yaml", "test_model.py") for name, _ in found)


OPS = '''
class FlashRope:
    def __init__(self, layout="interleaved"):
        self.layout = layout

    def apply(self, q, k):
        if self.layout == "interleaved":
            import flash_attn.layers.rotary as rotary
            return rotary.apply_rotary_emb(q, k)
        elif self.layout == "split_half":
            return q, k


def attention(q, k, is_causal=False):
    if is_causal:
        from flash_attn import flash_attn_func
        return flash_attn_func(q, k, causal=True)
    return q @ k


def block(q, k):
    return attention(q, k, is_causal=True), FlashRope(layout="interleaved")
'''

TRAIN = '''
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--use_liger", action="store_true")
args = parser.parse_args()
if args.use_liger:
    from liger_kernel.transformers import apply_liger_kernel_to_llama
    apply_liger_kernel_to_llama()
'''


def test_a_function_argument_and_a_partial_package_are_no_option(tmp_path):
    # `layout` / `is_causal` are never set in a config file, a dataclass, a dict or argparse: a function's arguments;
    # liger_kernel ships an Ascend backend (partial): `--use_liger` selects no GPU-only path (label rule 37e-11)
    (tmp_path / "ops.py").write_text(OPS)
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "run.sh").write_text("python train.py --use_liger\n")
    assert _npu503(tmp_path) == []
    (tmp_path / "rope.yaml").write_text("layout: interleaved\n")  # now a config field: its defaults count
    found = _npu503(tmp_path)
    assert ("rope.yaml", 1) in found and ("ops.py", 3) in found and ("ops.py", 22) in found
    assert not any(name == "run.sh" for name, _ in found)


HF_SCRIPT = '''
import argparse
from transformers import AutoModelForCausalLM

parser = argparse.ArgumentParser()
parser.add_argument("--use_flash_attn", action="store_true")
args = parser.parse_args()
if args.use_flash_attn:
    model = AutoModelForCausalLM.from_pretrained("m", attn_implementation="flash_attention_2")
else:
    model = AutoModelForCausalLM.from_pretrained("m")
'''

OWN_KERNEL_SCRIPT = '''
import argparse
from mylib import Plugin

parser = argparse.ArgumentParser()
parser.add_argument("--use_flash_attn", action="store_true")
args = parser.parse_args()
plugin = Plugin(enable_flash_attention=args.use_flash_attn)
'''

BACKEND = '''
class Backend:
    def prefill(self, q):
        if self.use_flash_attn:
            from flash_attn import flash_attn_varlen_func
            return flash_attn_varlen_func(q)
        return q
'''


def test_a_launcher_flag_is_its_scripts_option(tmp_path):
    # the same `--use_flash_attn` reaches HF flash_attention_2 in one script and the project's own (NPU-aware) kernel in
    # the other; the library's unrelated `self.use_flash_attn` decides neither (label rule 37e-10)
    (tmp_path / "chat").mkdir()
    (tmp_path / "llama").mkdir()
    (tmp_path / "backend.py").write_text(BACKEND)
    (tmp_path / "chat" / "train_sft.py").write_text(HF_SCRIPT)
    (tmp_path / "chat" / "train_sft.sh").write_text("torchrun --nproc_per_node 8 train_sft.py \\\n    --use_flash_attn\n")
    (tmp_path / "llama" / "train.py").write_text(OWN_KERNEL_SCRIPT)
    (tmp_path / "llama" / "train.sh").write_text("torchrun train.py \\\n    --lr 1e-5 \\\n    --use_flash_attn\n")
    found = _npu503(tmp_path)
    assert ("train_sft.sh", 2) in found and not any(name == "train.sh" for name, _ in found)


TRAINER = '''
try:
    from flash_attn.ops.triton.cross_entropy import cross_entropy_loss as fused_ce
except ImportError:
    fused_ce = None

try:
    from flash_attn.ops.fused_dense import FusedDense
except ImportError:
    FusedDense = None

try:
    from .fast_softmax import softmax  # an own module: no GPU-only import
except ImportError:
    softmax = None


class Trainer:
    def __init__(self, cfg):
        if cfg.fused_loss:
            if fused_ce is not None:
                self.loss_fn = fused_ce
            else:
                raise RuntimeError("fused_loss needs flash_attn")
        if cfg.fast_softmax:
            assert softmax is not None, "fast_softmax needs the fast_softmax module"
        if cfg.fused_dense and FusedDense is None:
            raise ImportError("fused_dense is not installed")
        if cfg.use_fa_v1:
            assert fused_ce is not None, "Cannot import FlashAttention"
'''


def test_a_branch_that_raises_without_an_optional_gpu_only_import_selects_it(tmp_path):
    """An optional import's stand-in (None) checked by a raise/assert in the branch an option takes (label rule 40d-11):
    the option's true value fails without the GPU-only package, as a branch importing it would."""
    (tmp_path / "trainer.py").write_text(TRAINER)
    (tmp_path / "fast_softmax.py").write_text("def softmax(x):\n    return x\n")
    (tmp_path / "args.py").write_text(
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--use-flash-attn', '--use-fa-v1', dest='use_fa_v1', action='store_true')\n"
        "p.add_argument('--no-fused-dense', dest='fused_dense', action='store_false')\n")
    (tmp_path / "run.yaml").write_text("fused_loss: true\nfast_softmax: true\nfused_dense: true\n")
    (tmp_path / "run.sh").write_text('OPTS="--use-flash-attn \\\n  --fused_loss"\ndeepspeed pretrain.py $OPTS\n'
                                     'python train.py --fused_loss=false --no-fused-dense\n')
    found = _npu503(tmp_path)
    assert ("run.yaml", 1) in found and ("run.yaml", 3) in found  # fused_loss, fused_dense
    assert ("run.sh", 1) in found and ("run.sh", 2) in found  # --use-flash-attn: an alias of --use-fa-v1
    assert ("run.yaml", 2) not in found  # the stand-in of the project's own module: no GPU-only package
    assert ("run.sh", 4) not in found  # `=false`, and `--no-fused-dense` (store_false) turns the option off


EXPORTER = '''
import argparse


def export_onnx(model, f):
    import onnx
    return onnx.save(model, f)


def export_engine(model, f):
    import tensorrt as trt
    return trt.Builder(trt.Logger())


def run(weights, include=("onnx",)):
    include = [x.lower() for x in include]
    if "onnx" in include:
        export_onnx(weights, "m.onnx")
    if "engine" in include:
        export_engine(weights, "m.engine")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="m.pt")
    parser.add_argument("--include", nargs="+", default=["onnx"])
    run(**vars(parser.parse_args()))
'''


def test_a_list_options_value_in_a_notebooks_launcher_line(tmp_path):
    # `if "engine" in include:` calling the function of its file that imports tensorrt: the notebook's shell line
    # passing `--include engine` to the script picks that path (set 43b); `--include onnx` does not
    import json

    (tmp_path / "export.py").write_text(EXPORTER)
    cells = [{"cell_type": "code", "source": "# export\n!python export.py --weights m.pt --include onnx\n"},
             {"cell_type": "code", "source": "import os\n\n!python export.py --weights m.pt --include engine --imgsz 640\n"}]
    (tmp_path / "tutorial.ipynb").write_text(json.dumps({"nbformat": 4, "cells": cells}))
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    found = [(f.path.rsplit("/", 1)[-1], f.cell, f.line) for r in result.files for f in r.findings if f.code == "NPU503"]
    assert found == [("tutorial.ipynb", 1, 3)]


def test_a_yaml_key_the_same_mapping_sets_again_selects_nothing(tmp_path):
    # a YAML loader keeps a duplicated key's last value (label note 49d d-1): the earlier line sets nothing
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "dup.yaml").write_text("model:\n  attn_impl: flash\n  attn_impl: torch\n"
                                       "runs:\n  - attn_impl: torch\n  - attn_impl: flash\n")
    assert [s for s in _npu503(tmp_path) if s[0] == "dup.yaml"] == [("dup.yaml", 6)]  # a list item is a mapping of its own


def test_a_plain_torch_distributed_helper_of_apex_is_no_gpu_only_use(tmp_path):
    # apex.parallel.create_syncbn_process_group builds groups with torch.distributed alone (ruling (L54))
    (tmp_path / "build.py").write_text("import apex\n\ngroup = apex.parallel.create_syncbn_process_group(group_size=8)\n"
                                       "model = apex.parallel.convert_syncbn_model(model, process_group=group)\n")
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    assert sorted((f.code, f.line) for f in result.findings if f.code.startswith("NPU50")) == [("NPU501", 1), ("NPU507", 4)]


def test_a_called_functions_use_under_a_short_switch_of_its_own_is_not_the_callers(tmp_path):
    # alibaba/ROLL qwen3_vl transformer_block.py: `recompute_granularity == "full"` calls `_checkpointed_forward`, whose
    # TE checkpoint runs only under `if self.config.fp8:` (a switch too short to be read as an option): the value alone
    # selects no GPU-only path; a use outside the switch still does
    block = '''
import transformer_engine.pytorch as te


class Block:
    def _checkpointed(self, x):
        if self.config.fp8:
            return te.checkpoint(x)
        return x

    def _fused(self, x):
        return te.Linear(4, 4)(x)

    def forward(self, x):
        if self.config.recompute_granularity == "full":
            x = self._checkpointed(x)
        elif self.config.recompute_granularity == "selective":
            x = x + 1
        if self.config.fused_mode == "te":
            x = self._fused(x)
        elif self.config.fused_mode == "torch":
            x = x + 1
        return x
'''
    (tmp_path / "block.py").write_text(block)
    (tmp_path / "train.yaml").write_text("recompute_granularity: full\nfused_mode: te\n")
    assert _npu503(tmp_path) == [("train.yaml", 2)]


def test_a_called_functions_use_under_a_switch_on_its_own_parameters_is_not_the_callers(tmp_path):
    # shibing624/MedicalGPT training/*.py: `if args.use_peft:` calls `find_all_linear_names(model, int4=..., int8=...)`,
    # which imports bitsandbytes only under `if int4 or int8:`, a test of its own parameters: the caller's arguments
    # (load_in_4bit / load_in_8bit) select that path, use_peft alone selects none (labeller note 57b); a use in a called
    # function outside such a test still counts
    train = '''
from dataclasses import dataclass, field


@dataclass
class Args:
    use_peft: bool = field(default=True)
    use_fused: bool = field(default=True)
    load_in_4bit: bool = field(default=False)


def find_all_linear_names(model, int4=False, int8=False):
    cls = None
    if int4 or int8:
        import bitsandbytes as bnb
        cls = bnb.nn.Linear4bit
        return cls(1, 1)
    return [cls]


def fused(model):
    import bitsandbytes as bnb
    return bnb.optim.Adam8bit(model.parameters())


def main(args, model):
    if args.use_peft:
        names = find_all_linear_names(model, int4=args.load_in_4bit, int8=False)
    else:
        names = []
    if args.use_fused:
        opt = fused(model)
    else:
        opt = None
    return names, opt
'''
    (tmp_path / "train.py").write_text(train)
    assert _npu503(tmp_path) == [("train.py", 8)]


INT_FLAG_SCRIPT = '''
import argparse
from transformers import AutoModelForCausalLM

parser = argparse.ArgumentParser()
parser.add_argument("--use-flash", type=int, default=0)
args = parser.parse_args()
if args.use_flash:
    model = AutoModelForCausalLM.from_pretrained("m", attn_implementation="flash_attention_2")
else:
    model = AutoModelForCausalLM.from_pretrained("m")
'''


def test_a_launcher_flag_given_a_shell_variable_takes_the_scripts_own_value(tmp_path):
    # `--use-flash $FLASH` is the value the launcher assigned to FLASH above it: `export FLASH=0` selects nothing (a
    # switch's value, not a bare flag read as true), `FLASH=true` selects the flash branch; `--use-flash 0` likewise
    (tmp_path / "eval.py").write_text(INT_FLAG_SCRIPT)
    (tmp_path / "run.sh").write_text(
        "export FLASH=0\npython eval.py --use-flash $FLASH\n"
        "python eval.py --use-flash 0\n"
        "FLASH=true\npython eval.py \\\n    --use-flash ${FLASH}\n")
    assert [found for found in _npu503(tmp_path) if found[0] == "run.sh"] == [("run.sh", 6)]
