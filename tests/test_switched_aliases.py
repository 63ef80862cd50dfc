"""Names bound to a switch between a GPU-only package's callable and a fallback (migrate/callable_aliases.py
`switched_aliases`, NPU507): the binding names, each call through the name is the line (label ruling (L46)).
Snippets written here in the shape of a model module choosing its attention class by a config switch."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"

MODEL = (
    "import torch\n"                                                                         # 1
    "from .attn import SelfAttention\n"                                                      # 2
    "class Block(torch.nn.Module):\n"                                                        # 3
    "    def __init__(self, use_flash_attn):\n"                                              # 4
    "        super().__init__()\n"                                                           # 5
    "        if use_flash_attn:\n"                                                           # 6
    "            from flash_attn import flash_attn_varlen_func\n"                            # 7
    "            from flash_attn.modules.mha import FlashSelfAttention\n"                    # 8
    "        attn_cls = FlashSelfAttention if use_flash_attn else SelfAttention\n"           # 9
    "        self.inner = attn_cls(\n"                                                       # 10
    "            causal=True)\n"                                                             # 11
    "        self.attn = flash_attn_varlen_func if use_flash_attn else None\n"               # 12
    "    def forward(self, q, kv):\n"                                                        # 13
    "        return self.attn(q, kv)\n"                                                      # 14
    "def probe(use_flash_attn):\n"                                                           # 15
    "    if use_flash_attn:\n"                                                               # 16
    "        from flash_attn.modules.mha import FlashSelfAttention\n"                        # 17
    "        inner = FlashSelfAttention\n"                                                   # 18
    "    else:\n"                                                                            # 19
    "        inner = SelfAttention\n"                                                        # 20
    "    inner = inner(causal=True)\n"                                                       # 21
    "    return inner(1)\n"                                                                  # 22
)


def test_a_switched_alias_is_reported_at_its_calls_not_at_its_binding(tmp_path):
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/attn.py": "class SelfAttention:\n    pass\n", "pkg/model.py": MODEL})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the imports (NPU501 / NPU507 report them as before) aside: the construction through `attn_cls`, the call of
    # `self.attn` in another method, the construction through `inner`; not `inner(1)`, a call of the object
    lines = finding_lines(result, "NPU507", "model.py")
    assert [n for n in lines if n not in (7, 8, 17)] == [10, 14, 21]


def test_a_name_always_bound_to_the_package_is_reported_at_its_call(tmp_path):
    source = ("from flash_attn.modules.mha import FlashSelfAttention\n"
              "def make():\n    cls = FlashSelfAttention\n    return cls(causal=True)\n")
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": source})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # a plain alias (callable_aliases): the call through it is the use, the binding only names the class (L52)
    assert finding_lines(result, "NPU507", "model.py") == [4]


def test_a_dict_of_callables_picked_on_the_spot_is_reported_at_the_call_through_its_name(tmp_path):
    # ByteDance-Seed/ShadowKV e51904c models/tensor_op.py (label note 70d, (L52)): `fc = {"stream_llm": streaming_forward,
    # "block_sparse": block_sparse_kernel}[ty]` mixes a GPU-only op with a local wrapper; `fc(...)` may run the op and
    # is the use, the dict entry only names it. A dict of local functions only is nothing to report.
    source = ("from minference import streaming_forward\n"                                     # 1
              "def attend(q, ty):\n"                                                          # 2
              "    def block_sparse_kernel(q):\n"                                              # 3
              "        return q\n"                                                             # 4
              "    fc = {\n"                                                                   # 5
              "        'stream_llm': streaming_forward,\n"                                     # 6
              "        'block_sparse': block_sparse_kernel,\n"                                 # 7
              "    }[ty]\n"                                                                    # 8
              "    return fc(q)\n"                                                             # 9
              "def plain(q, ty):\n"                                                            # 10
              "    g = {'a': abs, 'b': round}[ty]\n"                                           # 11
              "    return g(q)\n")                                                             # 12
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": source})
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    assert [n for n in finding_lines(result, "NPU507", "model.py") if n != 1] == [9]
