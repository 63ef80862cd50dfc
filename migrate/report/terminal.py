"""The one rich Console the terminal reporters print through (smoke, distributed smoke, profile).

- emoji off: a location such as `npu_train.py:100:` contains `:100:`, which rich's default Console
  prints as an emoji;
- no hard wrap when the stream is not a terminal (a pipe, a file, CI): rich would wrap at 80 columns
  and split paths across lines; the text goes out as written (tables at their natural width);
- user text (paths, the script's messages) must still be escaped by the reporter: `escape` here.
"""
from __future__ import annotations

import sys

NO_WRAP_WIDTH = 100_000  # "no width" for rich: a table is never wider than its content


def make_console(*, stderr: bool = False, file=None):
    from rich.console import Console

    stream = file if file is not None else (sys.stderr if stderr else sys.stdout)
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty:
        return Console(file=file, stderr=stderr, emoji=False)
    return Console(file=file, stderr=stderr, emoji=False, width=NO_WRAP_WIDTH, soft_wrap=True)


def escape(text) -> str:
    """User text made inert for rich markup (`[bold]` in a path or an error message stays as written)."""
    from rich.markup import escape as rich_escape

    return rich_escape(str(text))
