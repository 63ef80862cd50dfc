"""Python inside a launcher: `python -c "import torch; torch.cuda.set_device(0)"` in a shell script
or a YAML job file is Python code like any other, analysed by the Python rules and reported at its
place in the launcher (line of the snippet; columns shifted on the snippet's first line).

The snippet is read, never run. Findings from it are never fixable by `apply` (the rewrite edits
Python files; the quoted snippet would need shell quoting kept intact), so each is reported for a
person to change.
"""

from __future__ import annotations

import dataclasses
import re

# `python`, `python3`, `python3.11`, `/usr/bin/python3`, with options before `-c`, then one quoted argument
_INLINE = re.compile(
    r"""(?<![\w.-])(?:[\w./-]*/)?python(?:\d+(?:\.\d+)?)?(?:[ \t]+-[A-Za-bd-z]+)*[ \t]+-c[ \t]*(?P<q>["'])(?P<code>(?:\\.|(?!(?P=q)).)*)(?P=q)""",
    re.S,
)


def snippets(text: str) -> list[tuple[int, int, str]]:
    """(1-based line, 0-based column, code) of each `python -c '...'` argument in a launcher."""
    if "-c" not in text or "python" not in text:
        return []
    out = []
    for match in _INLINE.finditer(text):
        if _in_text(text, match.start()):
            continue
        start = match.start("code")
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1)
        code = match.group("code")
        if match.group("q") == '"':  # the shell removes these backslashes inside double quotes
            code = re.sub(r'\\([\\"$`])', r"\1", code)
        out.append((line, column, code))
    return out


def _in_text(text: str, at: int) -> bool:
    """`at` lies in a shell comment (`# detects the install via `python3 -c 'import vllm'``) or in the arguments of an
    echo / printf: text about a command, not one."""
    from migrate.rules._text import command_segments, strip_comment

    first = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[first:end if end >= 0 else len(text)]
    column = at - first
    if column >= len(strip_comment(line)):
        return True
    return any(begin <= column < stop and echo for begin, stop, echo in command_segments(line))


# a package's installation metadata: reading it runs none of the package's code
_METADATA = frozenset({"__file__", "__path__", "__version__", "__name__", "__spec__"})


def _metadata_probe(code: str, finding) -> bool:
    """An NPU501 import in a one-liner that only reads the imported module's metadata (`python3 -c 'import vllm, os;
    print(os.path.dirname(vllm.__file__))'`: where or which version the package is installed), a query of the
    installation like `pip show`, not code that runs the package (label note 61c on AngelSlim's vllm_patch/install.sh)."""
    import ast

    if finding.code != "NPU501" or not finding.package:
        return False
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    bound = {alias.asname or alias.name.split(".", 1)[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name.split(".", 1)[0] == finding.package.split(".", 1)[0]}
    if not bound or any(isinstance(node, ast.ImportFrom) and node.lineno == finding.line for node in ast.walk(tree)):
        return False
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in bound]
    return bool(reads) and all(isinstance(parents.get(id(n)), ast.Attribute) and parents[id(n)].attr in _METADATA
                               for n in reads)


def findings(path: str, text: str, version: str) -> list:
    """The Python rules' findings on every inline snippet of a launcher, placed in the launcher."""
    found = snippets(text)
    if not found:
        return []
    from migrate.engine import analyze_python_text

    out = []
    for line, column, code in found:
        result, _errors, _suppressed = analyze_python_text(path, code, version)
        for f in result:
            if _metadata_probe(code, f):
                continue
            shift = column if f.line == 1 else 0
            end_shift = column if f.end_line == 1 else 0
            out.append(dataclasses.replace(
                f, line=f.line + line - 1, end_line=f.end_line + line - 1, column=f.column + shift,
                end_column=f.end_column + end_shift, fixable=False, edits=(),
                message=f.message + " (inside `python -c` in a launcher: change it by hand)"))
    return out
