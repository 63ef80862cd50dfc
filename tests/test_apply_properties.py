"""Property tests: generated programs mixing CUDA constructs with unrelated code."""

from __future__ import annotations

import ast
import codecs
import io
import json
import tokenize
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from migrate.engine import Target, analyze_file
from migrate.knowledge import newest_version
from migrate.rewrite import rewrite_file

VERSION = newest_version()

CUDA = [
    "x{i} = torch.zeros(3).cuda()",
    "x{i} = torch.ones(2, device='cuda:{n}')  # put it on card {n}",
    "dev{i} = torch.device(f'cuda:{{rank}}')",
    "torch.cuda.synchronize()",
    "if torch.cuda.is_available():\n    y{i} = torch.randn(1).cuda(non_blocking=True)",
    "dist.init_process_group(backend='nccl')",
    "os.environ['CUDA_VISIBLE_DEVICES'] = '{n}'",
    "with torch.cuda.amp.autocast():\n    pass",
    "scaler{i} = torch.amp.GradScaler('cuda')",
    "ok{i} = t.is_cuda and t.device.type == 'cuda'",
    "v{i} = torch.version.cuda",
    "torch.backends.cudnn.benchmark = True",
]
PLAIN = [
    "z{i} = {n} + {n}  # the cuda word in a comment stays",
    "def f{i}(a, b={n}):\n    '''Moves nothing to cuda.'''\n    return a * b",
    "s{i} = 'cuda is just a word here'",
    "print('running on cuda', {n})",
    "class C{i}:\n    cuda = False\n\n    def m(self):\n        return self.cuda",
    "# a lone comment {n}",
    "",
    "for k in range({n}):\n\tz = k  # tab-indented body",
    "total = sum(range({n}))   ",
]
HEADERS = ["import os\nimport torch\nimport torch.distributed as dist\nrank = 0\nt = torch.zeros(1)\n",
           '"""Module doc."""\nfrom __future__ import annotations\nimport os\nimport torch\nimport torch.distributed as dist\nrank = 0\nt = torch.zeros(1)\n']


@st.composite
def programs(draw, with_cuda=True):
    pool = CUDA + PLAIN if with_cuda else PLAIN
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12))
    parts = [template.format(i=i, n=draw(st.integers(0, 7))) for i, template in enumerate(chosen)]
    body = draw(st.sampled_from(HEADERS)) + "\n".join(parts)
    if draw(st.booleans()):
        body += "\n\nif __name__ == '__main__':\n    main = None\n"
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = body.replace("\n", newline)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final newline
    data = text.encode("utf-8")
    if draw(st.booleans()):
        data = codecs.BOM_UTF8 + data
    return data


def comments(data: bytes) -> list[str]:
    return sorted(t.string for t in tokenize.tokenize(io.BytesIO(data).readline) if t.type == tokenize.COMMENT)


def parses(data: bytes) -> bool:
    return ast.parse(data.decode("utf-8-sig")) is not None


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(programs())
def test_output_parses_is_idempotent_and_keeps_comments(data):
    first = rewrite_file("gen.py", data, version=VERSION)
    assert first.error is None
    assert parses(first.output)
    assert rewrite_file("gen.py", first.output, version=VERSION).output == first.output
    kept = Counter(comments(first.output))
    kept.subtract(comments(data))
    assert min(kept.values(), default=0) >= 0  # every input comment is still there, unchanged
    left = analyze_file(Target("gen.py", ("python",)), first.output, VERSION)
    assert not [f for f in left.findings if f.fixable]
    assert first.output.startswith(codecs.BOM_UTF8) == data.startswith(codecs.BOM_UTF8)
    assert (b"\r\n" in first.output) == (b"\r\n" in data)


@SETTINGS
@given(programs(with_cuda=False))
def test_no_findings_means_no_change(data):
    findings = analyze_file(Target("gen.py", ("python",)), data, VERSION).findings
    result = rewrite_file("gen.py", data, version=VERSION)
    if not findings:
        assert result.output == data
    assert not result.changes or findings


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    sources=st.lists(st.one_of(_text, st.lists(_text, max_size=4)), min_size=1, max_size=4),
    indent=st.sampled_from([None, 1, 2, "\t"]),
    ensure_ascii=st.booleans(),
    extra=st.dictionaries(st.sampled_from(["outputs", "metadata", "source_x"]), st.recursive(
        st.one_of(st.none(), st.integers(), _text), lambda inner: st.lists(inner, max_size=3), max_leaves=6), max_size=2),
)
def test_notebook_source_spans_are_the_source_values(sources, indent, ensure_ascii, extra):
    """The spans apply rewrites inside a notebook's JSON are exactly each cell's `source` value (and
    its items), whatever the layout, escapes and the other keys around them."""
    from migrate.rewrite.notebook_json import _source_spans

    cells = [dict(extra, cell_type="code", source=source) for source in sources]
    text = json.dumps({"metadata": {"cells": [1]}, "cells": cells, "nbformat": 4}, indent=indent, ensure_ascii=ensure_ascii)
    spans = _source_spans(text, set(range(len(cells))))
    for index, source in enumerate(sources):
        start, end = spans[("cells", index, "source")]
        assert json.loads(text[start:end]) == source
        for k, item in enumerate(source if isinstance(source, list) else []):
            start, end = spans[("cells", index, "source", k)]
            assert json.loads(text[start:end]) == item
