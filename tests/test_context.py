"""The ast context: line splitting like the tokenizer, character columns, qualified names."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from migrate.context import _LINE_SPLIT, PythonContext, split_lines


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \r\n\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029\t")), max_size=40))
def test_fast_line_split_equals_tokenizer_split(text):
    reference = _LINE_SPLIT.split(text)
    if reference and reference[-1] == "":
        reference.pop()
    assert split_lines(text) == reference
    assert "".join(split_lines(text)) == text


def test_form_feed_does_not_shift_line_numbers():
    source = "import torch\n\x0cx = 1\ny = torch.ones(1).cuda()\n"
    tree = ast.parse(source)
    ctx = PythonContext("t.py", source, tree, None)
    call = ctx.nodes[ast.Call][0]
    assert ctx.segment(call.func.value) == "torch.ones(1)" or ctx.segment(call) == "torch.ones(1).cuda()"
    assert len(ctx.lines) == 3


def test_qualnames_follow_imports_and_not_locals():
    source = "import torch as th\nfrom torch import cuda\nfrom torch.cuda import amp as A\nth.cuda.synchronize\ncuda.x\nA.GradScaler\nself.cuda.y\n"
    ctx = PythonContext("t.py", source, ast.parse(source), None)
    names = sorted(filter(None, (ctx.qualname(n) for n in ctx.nodes[ast.Attribute])))
    assert "torch.cuda.synchronize" in names and "torch.cuda.x" in names and "torch.cuda.amp.GradScaler" in names
    assert not any(n.startswith("self") for n in names)
    parents = {type(ctx.parent(n)).__name__ for n in ctx.nodes[ast.Name]}
    assert parents == {"Attribute"}
