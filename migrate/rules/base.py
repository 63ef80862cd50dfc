"""Rule base class. One rule per module in `migrate/rules/`, discovered automatically.

A rule is a class with a stable `CODE`, a docstring (becomes the docs), a message, its category,
severity and whether `apply` rewrites it, plus embedded `VALID` / `INVALID` examples that the test
suite runs (Fixit-style). Rules return findings; they never print.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from migrate.findings import Category, Edit, Finding, Severity


@dataclass(frozen=True)
class Invalid:
    """An example that must produce at least one finding of the rule's code.

    `expected`: the source after applying the rule's edits (only for fixable rules);
    `count`: exact number of findings expected, when given.
    """

    code: str
    expected: str | None = None
    count: int | None = None
    kind: str = "python"
    filename: str = "example.py"


@dataclass(frozen=True)
class Valid:
    """An example that must produce no finding of the rule's code (plain strings work too)."""

    code: str
    kind: str = "python"
    filename: str = "example.py"


class Rule:
    CODE: ClassVar[str]
    NAME: ClassVar[str]
    CATEGORY: ClassVar[Category]
    SEVERITY: ClassVar[Severity]
    FIXABLE: ClassVar[bool] = False
    MESSAGE: ClassVar[str] = ""
    # Which inputs the rule reads: python (also notebook cells), manifest, launcher, cuda-source.
    KINDS: ClassVar[tuple[str, ...]] = ("python",)
    # Cheap pre-filter: the rule runs on a Python file only when its text contains one of these.
    TRIGGERS: ClassVar[tuple[str, ...]] = ()
    VALID: ClassVar[Sequence[str | Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def triggers(self, kb) -> tuple[str, ...]:
        """Substrings of which at least one must occur in a file for the rule to run on it.
        Rules whose triggers come from data (e.g. op names) override this."""
        return self.TRIGGERS

    def check(self, ctx) -> Iterable[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- helpers for subclasses ------------------------------------------------------------
    def finding(
        self,
        ctx,
        node: ast.AST | tuple[int, int, int, int],
        message: str | None = None,
        *,
        edits: Sequence[Edit] = (),
        replacement: str | None = None,
        severity: Severity | None = None,
        fixable: bool | None = None,
        package: str | None = None,
    ) -> Finding:
        """Build a finding at a node (or a (line, col0, end_line, end_col0) span)."""
        if isinstance(node, tuple):
            line, col, end_line, end_col = node
        else:
            line, col, end_line, end_col = ctx.span(node)
        edits = tuple(e for e in edits if e is not None)
        is_fixable = self.FIXABLE if fixable is None else fixable
        return Finding(
            path=ctx.path,
            line=line,
            column=col + 1,
            end_line=end_line,
            end_column=end_col + 1,
            code=self.CODE,
            severity=self.SEVERITY if severity is None else severity,
            category=self.CATEGORY,
            message=message or self.MESSAGE,
            fixable=bool(is_fixable and edits),
            edits=edits if is_fixable else (),
            cell=getattr(ctx, "cell", None),
            replacement=replacement,
            package=package,
        )

    @classmethod
    def docs(cls) -> str:
        return " ".join((cls.__doc__ or "").split())
