"""Findings, edits and scan results: frozen dataclasses the engine returns and reporters print."""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property


class Severity(enum.IntEnum):
    """How bad a finding is on an NPU. Ordered so `--fail-on` can compare."""

    INFO = 0  # worth knowing, nothing breaks
    WARNING = 1  # runs, but may be wrong, slow or silently different
    ERROR = 2  # will not run on an NPU as written

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected info, warning or error)") from None

    def __str__(self) -> str:
        return self._name_.lower()  # the attribute `name` reads through a descriptor: ~20k reports per torch report


class Category(str, enum.Enum):
    """Finding categories; each owns a hundred of the NPU code space (never renumbered)."""

    DEVICE = "device"  # NPU1xx
    IDENTITY = "identity"  # NPU2xx
    DISTRIBUTED = "distributed"  # NPU3xx
    AMP = "amp"  # NPU4xx
    THIRD_PARTY = "third-party"  # NPU5xx
    OPS = "ops"  # NPU6xx
    ENVIRONMENT = "environment"  # NPU7xx
    TRAINING = "training"  # NPU8xx: the training loop (loss scaling, clipping, accumulation, checkpoints)
    FILE = "file"  # NPU9xx: could not read or parse a file

    def __str__(self) -> str:
        return self._value_


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between two positions (1-based line, 0-based character column)."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


@dataclass(frozen=True)
class Finding:
    """One problem at one exact place. Columns are 1-based characters (flake8 style)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    severity: Severity
    category: Category
    message: str
    fixable: bool = False
    edits: tuple[Edit, ...] = ()
    cell: int | None = None  # notebook code cell index (0-based among all cells), line is within the cell
    replacement: str | None = None  # the NPU name or value that replaces the construct, when there is one
    package: str | None = None  # the third-party package (knowledge entry) the finding is about: NPU501/502/507/510
    optional: bool = False  # behind an option that is off by default (migrate/optional_paths.py): never fails apply

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.cell if self.cell is not None else -1, self.line, self.column, self.code)

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "cell": self.cell,
            "code": self.code,
            "severity": str(self.severity),
            "category": str(self.category),
            "fixable": self.fixable,
            "message": self.message,
            "replacement": self.replacement,
            "package": self.package,
        } | ({"optional": True} if self.optional else {})


@dataclass(frozen=True)
class FileError:
    """A file that could not be scanned: one clear message, the scan goes on."""

    path: str
    code: str  # NPU9xx
    message: str
    line: int = 1
    column: int = 1

    def to_dict(self) -> dict:
        return {"path": self.path, "code": self.code, "message": self.message, "line": self.line, "column": self.column}


@dataclass(frozen=True)
class FileResult:
    """What scanning one file produced."""

    path: str
    kind: str  # python, notebook, manifest, launcher, cuda-source, skipped
    lines: int
    findings: tuple[Finding, ...] = ()
    errors: tuple[FileError, ...] = ()
    suppressed: int = 0
    facts: tuple = ()  # what the repository index needs from this file (migrate/repo_index.py)

    def keeping(self, keep) -> FileResult:
        """This result with only the findings `keep(finding)` holds for (itself when none goes: the repository-wide
        passes after the scan drop what another part of the repository answers)."""
        kept = tuple(f for f in self.findings if keep(f))
        return self if len(kept) == len(self.findings) else replace(self, findings=kept)

    def adding(self, added, suppressed: int = 0) -> FileResult:
        """This result with the `added` findings too, in report order, and `suppressed` more suppressed ones (itself when
        there are neither: the passes after the scan add what only the whole repository shows)."""
        if not added and not suppressed:
            return self
        return replace(self, findings=tuple(sorted(self.findings + tuple(added), key=lambda f: f.sort_key)),
                       suppressed=self.suppressed + suppressed)


@dataclass(frozen=True)
class ScanResult:
    """The whole scan: per-file results plus timing."""

    files: tuple[FileResult, ...]
    duration_s: float
    torch_npu_version: str
    cached_files: int = 0
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    # calls and imports of a repository's own wrapper of a kernel (`op = OpFn.apply`): not lines to change
    # (the wrapper's body is), kept for the summary's kernels to port as their call sites (migrate/deps.py)
    wrapper_calls: tuple[Finding, ...] = ()

    @cached_property  # derived once: reporters, the verdict and the summary all read it
    def findings(self) -> list[Finding]:
        out = [f for r in self.files for f in r.findings]
        out.sort(key=lambda f: f.sort_key)
        return out

    @property
    def errors(self) -> list[FileError]:
        return [e for r in self.files for e in r.errors]

    @property
    def lines(self) -> int:
        return sum(r.lines for r in self.files)

    @property
    def scanned_files(self) -> int:
        return sum(1 for r in self.files if not r.errors)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def display_path(path: str) -> str:
    """A path every output format can write on one line: undecodable bytes in a file name (kept by
    Python as lone surrogates) and control characters (a newline would forge a report line) are
    shown as `\\xNN` / `\\n`, as `ls -b` does."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        path = os.fsencode(path).decode("utf-8", "backslashreplace")
    if _CONTROL.search(path):
        path = _CONTROL.sub(lambda m: {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(m.group(0), f"\\x{ord(m.group(0)):02x}"), path)
    return path


def displayable(result: FileResult) -> FileResult:
    shown = display_path(result.path)
    if shown == result.path and all(display_path(e.path) == e.path for e in result.errors):
        return result
    from dataclasses import replace

    return replace(result, path=shown, findings=tuple(replace(f, path=display_path(f.path)) for f in result.findings),
                   errors=tuple(replace(e, path=display_path(e.path)) for e in result.errors))
