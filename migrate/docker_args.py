"""A Dockerfile's build arguments read into the `RUN` lines that use them.

`ARG TORCH_INDEX=https://download.pytorch.org/whl/cu121` then `RUN pip install torch --index-url "$TORCH_INDEX"`
installs from the CUDA index exactly as if the URL were written on the install line (label ruling (L47): the index
given on the install's own line pins the CUDA build; set 46 d-7 / e-7: the URL or index comes from an `ARG` line and
is used on the install line, labelled at the install line). Launcher rules that read a `RUN` command's arguments
(NPU502's `pip install` indexes and wheel URLs) read each `$NAME` / `${NAME}` / `${NAME:-default}` with the value
the Dockerfile gives it above the line: the default of an `ARG NAME=value` or the value of an `ENV NAME=value` /
`ENV NAME value` in the same build stage (after the last `FROM` above the line), an `ARG NAME` without a value in the
stage taking the default of the same `ARG` declared before the first `FROM` (Docker's scoping:
docs.docker.com/reference/dockerfile/#scope). A name given no value stays as written (`--build-arg` decides it).
The finding stays at the column of the text as written.
"""

from __future__ import annotations

import re

_INSTRUCTION = re.compile(r"^\s*(ARG|ENV|FROM)\b\s*(.*)$", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"""([A-Za-z_]\w*)=("[^"]*"|'[^']*'|\S*)""")
_REFERENCE = re.compile(r"\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|\$([A-Za-z_]\w*)")


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else value


def _declared(kind: str, rest: str) -> dict[str, str | None]:
    """Names an `ARG` / `ENV` instruction declares, each with its value (None: an `ARG` without a default)."""
    first = rest.split(None, 1)[0] if rest.strip() else ""
    if kind == "ENV" and first and "=" not in first:  # the legacy form `ENV NAME value`
        name, _, value = rest.strip().partition(" ")
        return {name: _unquote(value.strip())}
    found: dict[str, str | None] = {m.group(1): _unquote(m.group(2)) for m in _ASSIGNMENT.finditer(rest)}
    if kind == "ARG" and not found and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", rest):
        found[rest.strip()] = None
    return found


def values_at(lines: list[str], number: int) -> dict[str, str]:
    """The build arguments and environment values a Dockerfile gives above 1-based line `number`, in its stage."""
    global_args: dict[str, str | None] = {}
    stage: dict[str, str] | None = None  # None: before the first FROM
    for line in lines[: number - 1]:
        match = _INSTRUCTION.match(line)
        if match is None:
            continue
        kind, rest = match.group(1).upper(), match.group(2)
        if kind == "FROM":
            stage = {}
            continue
        for name, value in _declared(kind, rest).items():
            if stage is None:
                if kind == "ARG":
                    global_args[name] = value
            elif value is not None:
                stage[name] = value
            elif global_args.get(name) is not None:
                stage[name] = global_args[name]
    return stage or {}


def expand(text: str, values: dict[str, str]) -> str:
    """`text` with each `$NAME` / `${NAME}` / `${NAME:-default}` the values (or the default) name replaced."""
    def value(match: re.Match) -> str:
        name = match.group(1) or match.group(3)
        if name in values:
            return values[name]
        return match.group(2) if match.group(2) is not None else match.group()

    return _REFERENCE.sub(value, text) if "$" in text else text
