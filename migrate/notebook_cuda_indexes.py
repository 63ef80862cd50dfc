"""A notebook's pip index chosen by torch's CUDA version through a Python variable (NPU502).

IPython expands `{name}` and `$name` in a `!` line with the notebook's Python variables. A tutorial's install cell
builds a wheel folder's name from torch's CUDA version and installs from it:

    version_str = "".join([f"py3{sys.version_info.minor}_cu", torch.version.cuda.replace(".", ""), f"_pyt{pyt}"])
    !pip install --no-index mylib -f https://example.org/wheels/{version_str}/download.html

The index holds the CUDA build for that version, as `-f .../cu113/...` written out does (label ruling (L82)). A
variable is a CUDA-version name when a statement assigning it, in any code cell, reads `torch.version.cuda` or
another CUDA-version name (`cuda = torch.version.cuda` then `tag = "cu" + cuda.replace(".", "")`). A variable that
reads the CUDA version to choose between builds is such a name too; `torch.cuda.is_available()` is no version.
The statements are read line by line (an install cell mixes `!` lines into Python blocks and `x = !cmd` captures, so
it may not parse), a statement continuing while its brackets are open.
"""

from __future__ import annotations

import re

from migrate.findings import Category, Finding, Severity

# `name = ...` / `name: str = ...` at a statement's start (not `==`, not an augmented or a subscript assignment)
_ASSIGN = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)(?P<value>.*)$")
_CUDA_VERSION = re.compile(r"\btorch\.version\.cuda\b")
# IPython's expansion of a Python variable in a shell line: `{name}`, `{name.attr}` / `{name[0]}`, `$name`
_EXPANDED = re.compile(r"\{(?P<brace>[A-Za-z_]\w*)[^{}]*\}|(?<!\$)\$(?P<dollar>[A-Za-z_]\w*)")


def _statements(source: str) -> list[tuple[str, str]]:
    """(name, value text) of the assignments of a cell's Python lines, a value continued while brackets are open."""
    out = []
    lines = source.split("\n")
    index = 0
    while index < len(lines):
        match = _ASSIGN.match(lines[index])
        index += 1
        if match is None:
            continue
        value = match.group("value")
        depth = sum(value.count(c) for c in "([{") - sum(value.count(c) for c in ")]}")
        while depth > 0 and index < len(lines):
            value += "\n" + lines[index]
            depth += sum(lines[index].count(c) for c in "([{") - sum(lines[index].count(c) for c in ")]}")
            index += 1
        out.append((match.group("name"), value))
    return out


def cuda_version_names(cells) -> frozenset[str]:
    """The Python variables of a notebook (`sources.NotebookCell`s) whose value is built from torch's CUDA version."""
    statements = [s for cell in cells for s in _statements(cell.python_source)]
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in statements:
            if name in names:
                continue
            if _CUDA_VERSION.search(value) or any(re.search(rf"(?<![\w.]){re.escape(n)}\b", value) for n in names):
                names.add(name)
                changed = True
    return frozenset(names)


def findings(ctx, names: frozenset[str], taken: list[Finding]) -> list[Finding]:
    """NPU502 warnings at the pip index options of a notebook cell's `!` lines (`ctx`: the cell's LauncherContext) whose
    URL expands a CUDA-version name; not where `taken` (the cell's findings) already has NPU502 on that line."""
    from migrate.rules.npu502_gpu_only_dependency import _PIP_INSTALL, _pip_arguments, _shell_commands

    out: list[Finding] = []
    lines = {f.line for f in taken if f.code == "NPU502"}
    for number, line, start, end in _shell_commands(ctx, _PIP_INSTALL):
        for kind, text, column in _pip_arguments(line, start, end):
            if kind != "index" or "://" not in text or number in lines:
                continue
            expanded = [m.group("brace") or m.group("dollar") for m in _EXPANDED.finditer(text)]
            name = next((n for n in expanded if n in names), None)
            if name is None:
                continue
            lines.add(number)
            out.append(Finding(
                ctx.path, number, column + 1, number, column + len(text) + 1, "NPU502", Severity.WARNING,
                Category.THIRD_PARTY,
                f"a wheel index chosen by torch's CUDA version (`{name}` is built from torch.version.cuda): it serves "
                "the CUDA build; torch_npu needs the CPU build of what it installs", cell=ctx.cell))
    return out
