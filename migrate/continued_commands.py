"""A shell command continued over several lines by a trailing backslash (launchers, Dockerfile RUN).

`RUN pip install \\` / `    gputil \\` / `    -f https://.../torch-2.1.0+cu117.html \\` is one command written on
several physical lines, and `cd third_party/flash-attention \\` / `    && python setup.py install` runs its second
part in the folder the first line entered. Launcher rules that read a command's arguments (NPU502's `pip install`,
`conda install`) read them on each physical line it continues onto, each reported on its own line (label rule:
every line that names a GPU-only install is a label, LABELLING (L41)/(L47)); the folder a command runs in is read
from the `cd`s of the whole continued command before it (migrate/local_installs.py).
"""

from __future__ import annotations

from migrate.rules._text import strip_comment


def continues(line: str) -> bool:
    """The physical line ends with a backslash that continues its command on the next line."""
    code = strip_comment(line.rstrip("\r\n")).rstrip()
    return code.endswith("\\") and not code.endswith("\\\\")


def _comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def first_line(lines: list[str], number: int) -> int:
    """The 1-based line where the (possibly continued) command holding line `number` begins; whole-line comments
    between its lines are passed over (see `continuation_lines`)."""
    while number > 1:
        above = number - 1
        while above > 1 and _comment(lines[above - 1]):
            above -= 1
        if not continues(lines[above - 1]):
            break
        number = above
    return number


def continuation_lines(lines: list[str], number: int):
    """(1-based line, text without comment) of each line the command ending line `number` continues onto. A
    whole-line comment between two lines of the command does not end it: Docker removes comment lines before it
    reads an instruction's continuation (`RUN git clone URL \\` / `    && cd proj \\` / `    # see issue 619` /
    `    && python3 setup.py install`: one RUN; set 50b b-3); a shell script written so is read the same way. The
    comment lines are not yielded."""
    while continues(lines[number - 1]) and number < len(lines):
        number += 1
        while _comment(lines[number - 1]) and number < len(lines):
            number += 1
        yield number, strip_comment(lines[number - 1])


def text_before(lines: list[str], number: int, end: int) -> str:
    """The continued command's text up to column `end` of line `number`, its backslash-newlines read as spaces."""
    parts = [strip_comment(lines[n - 1].rstrip("\r\n")).rstrip().removesuffix("\\")
             for n in range(first_line(lines, number), number)]
    return " ".join([*parts, lines[number - 1][:end]])

