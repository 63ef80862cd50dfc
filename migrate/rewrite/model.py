"""What apply works with and returns: options, per-file rewrites, changes, manual items, a tree plan."""

from __future__ import annotations

from dataclasses import dataclass

from migrate.codemods.config_check_hooks import DEFAULT_NPU_PACK
from migrate.findings import FileError


@dataclass(frozen=True)
class ApplyOptions:
    torch_npu_version: str | None = None  # None: resolved like analyze does
    entry_globs: tuple[str, ...] = ()  # extra entry scripts (fnmatch on the path and the file name)
    transfer: bool = True  # add `from torch_npu.contrib import transfer_to_npu` to entry scripts
    config_check: bool = True  # add msprobe ConfigChecker hooks to entry scripts
    config_pack: str = DEFAULT_NPU_PACK
    config: object | None = None  # migrate.config.Config: select / ignore / per-file-ignores / size limit


def resolve_options(options: ApplyOptions | None) -> tuple[ApplyOptions, str]:
    from migrate import knowledge

    options = options or ApplyOptions()
    return options, knowledge.resolve_version(options.torch_npu_version)


@dataclass(frozen=True)
class Change:
    """One finding rewritten: the input's lines before and after its edits."""

    path: str
    line: int
    end_line: int
    code: str
    before: str
    after: str
    cell: int | None = None

    def to_dict(self) -> dict:
        return {"file": self.path, "cell": self.cell, "start_line": self.line, "end_line": self.end_line,
                "code": self.code, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class ManualItem:
    """Something apply left as it was: a non-fixable finding, a hook it could not place, a file error."""

    path: str
    line: int
    code: str
    message: str
    cell: int | None = None
    severity: str = "error"  # of the finding left; info-only leftovers do not make apply exit 1
    optional: bool = False  # behind a default-off option (migrate/optional_paths.py): does not make apply exit 1 either

    def to_dict(self) -> dict:
        return {"file": self.path, "cell": self.cell, "line": self.line, "code": self.code, "severity": self.severity,
                "message": self.message}


@dataclass(frozen=True)
class FileRewrite:
    path: str
    kind: str
    original: bytes
    output: bytes
    changes: tuple[Change, ...] = ()
    structural: tuple[str, ...] = ()  # lines / hooks added by the codemods
    manual: tuple[ManualItem, ...] = ()
    error: FileError | None = None  # could not be read or rewritten: output is the original
    entry: bool = False
    role: str = ""  # "entry" or "library"; empty when the question did not arise (nothing to add)
    role_reason: str = ""  # why
    read: bool = True  # False: not read (unreadable, special file, over the size limit); original/output are empty

    @property
    def changed(self) -> bool:
        return self.output != self.original


@dataclass(frozen=True)
class InstrumentResult:
    text: str
    model_found: bool
    message: str


@dataclass(frozen=True)
class TreeEntry:
    relpath: str
    kind: str  # "file", "link", "dir"
    rewrite: FileRewrite | None = None  # files the engine reads (Python, notebooks, launchers ...)


@dataclass(frozen=True)
class ApplyResult:
    files: tuple[FileRewrite, ...]
    entries: tuple[TreeEntry, ...] = ()  # for a directory: everything to copy
    torch_npu_version: str = ""
    skipped: tuple[str, ...] = ()  # notes on tree entries not copied (special files, unreadable files)

    @property
    def changed(self) -> list[FileRewrite]:
        return [f for f in self.files if f.changed]

    @property
    def changes(self) -> list[Change]:
        return [c for f in self.files for c in f.changes]

    @property
    def manual(self) -> list[ManualItem]:
        return [m for f in self.files for m in f.manual]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for change in self.changes:
            out[change.code] = out.get(change.code, 0) + 1
        return dict(sorted(out.items()))
