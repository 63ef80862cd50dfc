"""`ast.get_source_segment(source, node)` splits the whole source on every call: called once per function or
node of a file it makes analyze quadratic in the file's size (f25b's op-accessor scan did, once per function:
the torch corpus went from ~30 s to ~180 s of CPU, found by bench/run.py). migrate/ takes a node's text from the
file's context instead (`PythonContext.segment`, over the lines split once)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from migrate.context import PythonContext

ROOT = Path(__file__).resolve().parent.parent


def test_migrate_never_calls_get_source_segment():
    offenders = []
    for path in sorted((ROOT / "migrate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "get_source_segment":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_context_segment_is_what_get_source_segment_gives():
    source = textwrap.dedent('''\
        import torch  # é, a non-ASCII comment before the nodes
        def get_op(name):
            """ünïcode docstring"""
            return getattr(torch.ops.ns, name)
        x = {"a": [1,
                   2]}["a"]
        ''')
    ctx = PythonContext("m.py", source, ast.parse(source), None)
    nodes = [n for n in ast.walk(ctx.tree) if hasattr(n, "end_col_offset") and n.end_col_offset is not None]
    assert len(nodes) > 10
    for node in nodes:
        assert ctx.segment(node) == ast.get_source_segment(source, node), ast.dump(node)
