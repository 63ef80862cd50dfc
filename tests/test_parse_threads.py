"""migrate.fileio.parse_python where other code builds ASTs at the same time (validate parses its
copies while its runs go in threads). CPython 3.11 keeps the AST constructor's recursion counter per
interpreter: another AST built in the middle of ours (by a thread, or, as here, by a finalizer that the
garbage collector runs while our tree's nodes are allocated) fails ours with a spurious SystemError
(python/cpython gh-106905). The CI machine hit it in validate: `SystemError: AST constructor recursion
depth mismatch (before=171, after=39)` from copies.header_end."""

from __future__ import annotations

import ast
import gc

from checks.validate.copies import header_end
from migrate.fileio import parse_python

SOURCE = '"""doc"""\nfrom __future__ import annotations\n' + "def f(a):\n    return [a + i for i in range(3)]\n" * 50


class _ParsesWhenCollected:
    """Cyclic garbage whose finalizer parses and leaves the next such garbage (a few hundred times): the
    collector, run at every allocation, finds one whenever it runs, inside our parse too."""

    left = 0

    def __init__(self):
        self.cycle = self

    def __del__(self):
        if _ParsesWhenCollected.left > 0:
            _ParsesWhenCollected.left -= 1
            ast.parse("x = 1")
            _ParsesWhenCollected()


def _with_parsing_garbage(fn):
    """fn(SOURCE) while the collector runs at every allocation and finds garbage that parses."""
    threshold = gc.get_threshold()
    gc.collect()
    _ParsesWhenCollected.left = 300
    gc.set_threshold(1)
    try:
        _ParsesWhenCollected()
        return fn(SOURCE)
    finally:
        gc.set_threshold(*threshold)
        _ParsesWhenCollected.left = 0
        gc.collect()


def test_a_parse_interrupted_by_another_is_tried_again():
    try:
        _with_parsing_garbage(ast.parse)
        spurious = False
    except SystemError as exc:  # this Python has the bug: the setup reproduces it
        spurious = "recursion depth mismatch" in str(exc)
    tree = _with_parsing_garbage(parse_python)
    assert isinstance(tree, ast.Module) and len(tree.body) == 52, spurious
    assert _with_parsing_garbage(header_end) == 2  # validate's copy: docstring and __future__ kept on top


def test_a_real_syntax_error_is_still_none():
    assert parse_python("def f(:\n") is None
