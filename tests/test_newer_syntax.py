"""Issue 24: a scanned repository written in Python 3.12+ syntax (PEP 701 f-strings, PEP 695 type
parameters and `type` aliases) is analysed under the running Python 3.11 (migrate/newer_syntax.py),
instead of being reported "could not be scanned" (NPU901)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from migrate import newer_syntax
from migrate.engine import scan

CASES = Path(__file__).parent / "newer_syntax_cases"
MIGRATE = Path(__file__).parent.parent / "migrate"


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_file_in_python_312_syntax_is_scanned_and_its_cuda_lines_found():
    path = CASES / "patcher_py312.py"
    text = path.read_text()
    with pytest.raises(SyntaxError):  # the running Python cannot read it (3.11: the reason for the module)
        ast.parse(text)
    result = scan([str(path)], use_cache=False, torch_npu_version="2.14.0")
    assert [e.code for e in result.errors] == []
    found = {(f.code, f.line) for f in result.findings}
    assert ("NPU501", _line_of(text, "import bitsandbytes as bnb")) in found
    assert ("NPU507", _line_of(text, "bnb.matmul_4bit(")) in found
    assert ("NPU102", _line_of(text, "torch.cuda.synchronize()")) in found
    device = [f for f in result.findings if f.code == "NPU104"]  # the f-string is a JoinedStr again, at its place
    assert [(f.line, f.column) for f in device] == [(_line_of(text, 'f"cuda:{rank}"'),
                                                     text.splitlines()[_line_of(text, 'f"cuda:{rank}"') - 1].index('f"cuda') + 1)]


# 3.11-valid text: the rewritten route must give exactly the tree ast.parse gives, positions included
SAME_AS_311 = [
    'x = f"a{b!r:>{w}}c{{d}}" "e"\n',
    'x = f"{x=}" f"{y = !s:>3}" rf"\\d{n}" f"\\N{BULLET}{z}"\n',
    'x = (f"{a}"\n     "b"  # c\n     f"{c:%Y-%m-%d}")\n',
    'log(f"{shape, stride} — {t.dtype:{\'>\' if r else \'<\'}10}")\n',
    'x = f"""{\n  a\n}"""\n',
    'x = f"plain"; y = "not an f-string" + f"{g(1)[2]:.3f}"\n',
]


@pytest.mark.parametrize("source", SAME_AS_311)
def test_the_rewritten_route_builds_the_tree_311_builds(source):
    want = ast.dump(ast.parse(source), include_attributes=True)
    assert ast.dump(newer_syntax.parse_newer(source), include_attributes=True) == want


def test_the_rewritten_route_builds_the_same_trees_on_this_projects_sources():
    texts = {path: path.read_text() for path in MIGRATE.rglob("*.py")}
    richest = sorted(texts, key=lambda p: -texts[p].count('f"'))[:8]  # the files with the most f-strings
    assert sum(texts[p].count('f"') for p in richest) > 150
    for path in richest:
        text = texts[path]
        got = newer_syntax.parse_newer(text)
        assert got is not None, path
        assert ast.dump(got, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True), path


# 3.12-only text and a 3.11 spelling of it with the same columns: the same tree
SAME_AS_SPELLED = [
    ('x = f"{a["k"]}"\n', "x = f\"{a['k']}\"\n"),
    ('x = f"{f"{a}"}"\n', "x = f\"{f'{a}'}\"\n"),
    ("def f[T: (int, str), *Ts, **P](x: T) -> T:\n    return x\n",
     "def f                         (x: T) -> T:\n    return x\n"),
    ("class C[T](Base):\n    pass\n", "class C   (Base):\n    pass\n"),
    ("type B = int\n", "B      = int\n"),
]


@pytest.mark.parametrize(("newer", "spelled"), SAME_AS_SPELLED)
def test_newer_syntax_reads_as_its_311_spelling(newer, spelled):
    with pytest.raises(SyntaxError):
        ast.parse(newer)
    assert ast.dump(newer_syntax.parse(newer), include_attributes=True) == ast.dump(ast.parse(spelled), include_attributes=True)


def test_a_replacement_field_over_lines_with_a_comment_and_a_backslash():
    source = "x = f'{\n  a  # why\n  + 1\n}' + f\"{'\\t'.join(y)}\"\n"
    tree = newer_syntax.parse(source)
    left, right = tree.body[0].value.left, tree.body[0].value.right
    assert isinstance(left, ast.JoinedStr) and isinstance(right, ast.JoinedStr)
    add = left.values[0].value
    assert (add.lineno, add.col_offset, add.end_lineno) == (2, 2, 3)
    join = right.values[0].value
    assert join.func.value.value == "\t" and join.args[0].id == "y"


def test_syntax_newer_still_unknown_keeps_the_parse_error():
    with pytest.raises(SyntaxError):  # PEP 758 (3.14) unparenthesised except list: not rewritten
        newer_syntax.parse("try:\n    pass\nexcept ValueError, TypeError:\n    pass\n")
    with pytest.raises(SyntaxError):  # a real error stays one
        newer_syntax.parse('x = f"{a"\n')
