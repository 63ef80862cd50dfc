"""Shell variables a launcher sets before the `pip install` that reads them.

`RUN URL="https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.8...whl" && \\`
/ `    wget -nv -P /opt/tiger "${URL}" && \\` / `    pip install "/opt/tiger/$(basename ${URL})"` installs the CUDA wheel the
URL names exactly as if its file name were written on the install line (label rulings (L41)/(L106): the install line
is the label; EasyR1's Dockerfile). NPU502 reads each `$NAME` / `${NAME}` / `${NAME:-default}` of an install's argument
with the value an assignment `NAME=value` (also `export NAME=value`) at the start of a command gave it above the
argument: in a Dockerfile within the same continued `RUN` command (a variable does not outlive its `RUN`), after the
`ARG` / `ENV` values of migrate/docker_args.py; in a shell script anywhere above it in the script. `$(basename X)` is
read as the last path component of X. A value that is a command's output (`ABI=$(python -c ...)`) is unknown and stays
as written, as does a name nothing above sets. The finding stays at the column of the text as written.
"""

from __future__ import annotations

import posixpath
import re

_NAME_VALUE = re.compile(r"([A-Za-z_]\w*)=(.*)", re.S)
_BASENAME = re.compile(r"""\$\(\s*basename\s+("[^"()]*"|'[^']*'|[^\s"'()]+)\s*\)""")
_COMMAND_WORDS = frozenset({"RUN", "export", "then", "do", "else", "!", "{", "("})


def _commands(text: str) -> list[list[str]]:
    """The words of each command in `text`, split at `;`, `&`, `|` and newlines outside quotes and `$( )`; a word's
    quotes and command substitutions are kept whole (`URL="a b"`, `ABI=$(python -c "import torch; print(1)")`)."""
    commands: list[list[str]] = [[]]
    word: list[str] = []
    quote, depth, i = None, 0, 0

    def end_word():
        if word:
            commands[-1].append("".join(word))
            word.clear()

    while i < len(text):
        c = text[i]
        if quote is not None:
            word.append(c)
            if c == "\\" and quote == '"' and i + 1 < len(text):
                word.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            word.append(c)
        elif text.startswith("$(", i):
            depth += 1
            word.append("$(")
            i += 1
        elif depth and c in "()":
            depth += 1 if c == "(" else -1
            word.append(c)
        elif depth:
            word.append(c)
        elif c.isspace() and c != "\n":
            end_word()
        elif c in ";&|\n":
            end_word()
            if commands[-1]:
                commands.append([])
        else:
            word.append(c)
        i += 1
    end_word()
    return [c for c in commands if c]


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else value


def assignments(text: str, values: dict[str, str] | None = None) -> dict[str, str]:
    """`values` updated with the assignments of each command of `text` made only of them (`NAME=value` words, after
    `export`; `NAME=value prog` sets NAME for that program alone), each value read with those above it. A value holding
    a command's output is unknown: the name is dropped."""
    from migrate.docker_args import expand

    found = dict(values or {})
    for words in _commands(text):
        words = [w for w in words if w not in _COMMAND_WORDS]
        matches = [_NAME_VALUE.fullmatch(w) for w in words]
        if not all(matches):
            continue
        for match in matches:
            value = _unquote(match.group(2))
            if "$(" in value or "`" in value:
                found.pop(match.group(1), None)
            else:
                found[match.group(1)] = expand(value, found)
    return found


def expand(text: str, values: dict[str, str]) -> str:
    """`text` with its variables replaced by `values` (migrate/docker_args.py's `expand`) and `$(basename X)` by X's
    last path component."""
    from migrate.docker_args import expand as expand_names

    text = expand_names(text, values)
    return _BASENAME.sub(lambda m: posixpath.basename(_unquote(m.group(1)).rstrip("/")), text)


def values_before(lines: list[str], number: int, column: int, dockerfile: bool) -> dict[str, str]:
    """The variables set above column `column` of 1-based line `number`: a Dockerfile's ARG / ENV values and the
    assignments of the same continued `RUN` command, or a shell script's assignments above (see the module's doc)."""
    from migrate.continued_commands import continues, first_line, text_before
    from migrate.docker_args import values_at
    from migrate.rules._text import strip_comment

    if dockerfile:
        return assignments(text_before(lines, number, column), values_at(lines, number))
    parts = []
    for line in lines[: first_line(lines, number) - 1]:
        code = strip_comment(line.rstrip("\r\n"))
        parts.append(code.rstrip().removesuffix("\\") + " " if continues(line) else code + "\n")
    return assignments(text_before(lines, number, column), assignments("".join(parts)))
