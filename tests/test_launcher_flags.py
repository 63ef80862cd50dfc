"""migrate/launcher_flags.py: Megatron-LM's own launcher flags that select GPU-only code (NPU503, label rule 41d-3)."""

from migrate.engine import scan
from migrate.launcher_flags import launcher_flags

ENTRY = '''
from megatron.training import pretrain


def model_provider(pre_process=True, post_process=True):
    return None


if __name__ == "__main__":
    pretrain(None, model_provider, None, None)
'''

CONFIG = '''
from dataclasses import dataclass

from megatron.core.transformer import TransformerConfig


@dataclass
class QwenTransformerConfig(TransformerConfig):
    transformer_impl: str = "transformer_engine"
    moe_grouped_gemm: bool = False
'''

LAUNCHER = """#!/bin/bash
if [ $USE_TE = true ]; then
    te_options=" \\
        --transformer-impl transformer_engine"
else
    te_options=" \\
        --transformer-impl local"
fi
# --use-flash-attn
moe_options="--moe-grouped-gemm --num-experts 8"
torchrun --nproc_per_node 8 ../common/pretrain_qwen.py \\
    --attention-backend auto \\
    --fp8-format hybrid --fp8-amax-history-len 1024 \\
    --use-flash-attn \\
    ${te_options} ${moe_options}
"""


def _npu503(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line) for r in result.files for f in r.findings
                  if f.code == "NPU503")


def _repo(tmp_path, entry=ENTRY):
    (tmp_path / "examples" / "common").mkdir(parents=True)
    (tmp_path / "examples" / "qwen").mkdir()
    (tmp_path / "examples" / "common" / "pretrain_qwen.py").write_text(entry)
    (tmp_path / "examples" / "qwen" / "run_qwen.sh").write_text(LAUNCHER)


def test_megatron_flags_in_a_launcher_of_a_megatron_entry_point(tmp_path):
    _repo(tmp_path)
    (tmp_path / "config.py").write_text(CONFIG)
    found = _npu503(tmp_path)
    launcher = "examples/qwen/run_qwen.sh"
    # TE layers, moe grouped GEMM, FP8 through TE, flash-attn; the dataclass default of a Megatron config subclass
    assert (launcher, 4) in found and (launcher, 10) in found and (launcher, 13) in found and (launcher, 14) in found
    assert ("config.py", 9) in found
    # `local`, a commented line, `auto`, a size setting of FP8, a field default that keeps the plain path: not
    assert not {(launcher, 7), (launcher, 9), (launcher, 12), ("config.py", 10)} & set(found)


def test_flags_of_a_script_that_is_no_megatron_entry_point_are_not_read(tmp_path):
    _repo(tmp_path, entry="import argparse\np = argparse.ArgumentParser()\np.add_argument('--use-flash-attn')\n")
    (tmp_path / "config.py").write_text(CONFIG.replace("from megatron.core.transformer import TransformerConfig",
                                                       "class TransformerConfig: ..."))
    assert _npu503(tmp_path) == []


def test_every_flag_has_a_source_and_an_npu_note():
    for flags in launcher_flags().values():
        for flag in flags:
            assert flag.source and flag.why and flag.alternative and flag.mindspeed and flag.entry == ("megatron",)


def test_a_flag_the_repository_declares_itself_is_its_own_option(tmp_path):
    # a Megatron fork keeps megatron/ in the repository and parses --use-flash-attn itself: config_options decides
    _repo(tmp_path)
    (tmp_path / "megatron").mkdir()
    (tmp_path / "megatron" / "arguments.py").write_text(
        "def add(group):\n    group.add_argument('--use-flash-attn', action='store_true')\n")
    found = _npu503(tmp_path)
    assert ("examples/qwen/run_qwen.sh", 14) not in found and ("examples/qwen/run_qwen.sh", 4) in found


def test_flags_mindspeed_serves_are_its_npu_path_where_the_repository_names_mindspeed(tmp_path):
    # label note 73a: `import mindspeed.megatron_adaptor` patches Megatron with MindSpeed's NPU features; its docs name
    # --use-flash-attn (Flash Attention) and --moe-grouped-gemm (npu_gmm): those flags are the NPU path there
    _repo(tmp_path, entry="import mindspeed.megatron_adaptor\n" + ENTRY)
    found = _npu503(tmp_path)
    launcher = "examples/qwen/run_qwen.sh"
    assert (launcher, 10) not in found and (launcher, 14) not in found
    # the flags MindSpeed's docs do not say it serves stay reported
    assert (launcher, 4) in found


def test_a_requirement_on_mindspeed_names_it_too(tmp_path):
    _repo(tmp_path)
    (tmp_path / "requirements.txt").write_text("mindspeed\n")
    found = _npu503(tmp_path)
    assert ("examples/qwen/run_qwen.sh", 14) not in found and ("examples/qwen/run_qwen.sh", 4) in found


def test_only_documented_flags_carry_an_npu_plugin():
    served = {flag.flag for flags in launcher_flags().values() for flag in flags if flag.npu_plugin}
    assert served == {"use-flash-attn", "moe-grouped-gemm", "moe-permute-fusion"}
