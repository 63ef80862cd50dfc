"""migrate/attention_registry.py: an attention function the repository registers under a GPU-only option value's name
(transformers' AttentionInterface) makes that value its own code (NPU503, label note 73a)."""

from migrate.attention_registry import registered
from migrate.engine import scan

MODEL = '''
from transformers import AutoModelForCausalLM


def load(path):
    return AutoModelForCausalLM.from_pretrained(path, attn_implementation="flash_attention_2")
'''

CONFIG = "model:\n  attn_implementation: flash_attention_2\n"

OWN = '''
import torch_npu
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS


def flash_attention_forward(module, query, key, value, attention_mask, **kwargs):
    return torch_npu.npu_fusion_attention(query, key, value, query.shape[1], "BNSD")[0], None


def apply_patch():
    ALL_ATTENTION_FUNCTIONS.register("flash_attention_2", flash_attention_forward)
'''


def _npu503(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line) for r in result.files for f in r.findings
                  if f.code == "NPU503")


def test_an_own_registered_flash_attention_2_is_no_gpu_only_value(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.yaml").write_text(CONFIG)
    assert ("model.py", 6) in _npu503(tmp_path)  # without the registration the value is flash_attn's
    (tmp_path / "ops.py").write_text(OWN)
    assert _npu503(tmp_path) == []


def test_the_forms_of_registration():
    assert registered(OWN) == (("flash_attention_2", 11),)
    assert registered("import torch_npu\nfrom transformers import AttentionInterface\n"
                      "def f(*a): ...\nAttentionInterface.register('flash_attention_2', f)\n") == (("flash_attention_2", 4),)
    assert registered("import torch_npu\nfrom transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS\n"
                      "def g(*a): ...\nALL_ATTENTION_FUNCTIONS['flash_attention_2'] = g\n") == (("flash_attention_2", 4),)
    assert registered("import torch_npu\nfrom transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS\n"
                      "def g(*a): ...\nALL_ATTENTION_FUNCTIONS.update({'flash_attention_2': g})\n") == (("flash_attention_2", 4),)


def test_a_function_from_elsewhere_or_without_npu_code_registers_nothing_new(tmp_path):
    # alibaba/ROLL: a Ulysses wrapper imported from another module (it still calls transformers' flash-attn forward)
    assert registered("import torch_npu\nfrom transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS\n"
                      "old = ALL_ATTENTION_FUNCTIONS['flash_attention_2']\n"
                      "def patch():\n    from .ulysses import _fa_forward\n"
                      "    ALL_ATTENTION_FUNCTIONS['flash_attention_2'] = _fa_forward\n"
                      "def unpatch():\n    ALL_ATTENTION_FUNCTIONS['flash_attention_2'] = old\n") == ()
    # a function of its own in a file with no NPU code: not the NPU route
    assert registered(OWN.replace("import torch_npu\n", "").replace("torch_npu.npu_fusion_attention", "sdpa")) == ()
    # transformers' flash_attention_forward calls flash_attn: re-registering it keeps the GPU-only path
    assert registered("from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS\n"
                      "from transformers.integrations.flash_attention import flash_attention_forward\n"
                      "ALL_ATTENTION_FUNCTIONS['flash_attention_2'] = flash_attention_forward\n") == ()
    assert registered("import flash_attn\nfrom transformers import AttentionInterface\n"
                      "AttentionInterface.register('flash_attention_2', flash_attn.flash_attn_func)\n") == ()
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "ops.py").write_text(OWN.replace('"flash_attention_2"', '"npu_fa"'))
    assert ("model.py", 6) in _npu503(tmp_path)  # another name registered: the value stays reported
