"""The analyze cache: one JSON file per (tool code, torch_npu version), path -> content digest -> result.

A result is reused only for the same file content (or the same size, mtime and inode), the same tool
code (`_code_fingerprint`) and the same torch_npu version; an entry of the wrong shape is a miss.
Cross-file findings (NPU508) are stored apart, under the file's content plus the repository index.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import fields
from functools import lru_cache
from pathlib import Path

from migrate import __version__, fileio
from migrate.findings import Category, Edit, FileError, FileResult, Finding, Severity


def default_cache_dir() -> Path:
    base = os.environ.get("NPU_MIGRATE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "npu-migrate"
    )
    return Path(base)


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """Changes whenever the engine, rules or knowledge data change, so stale results are never reused."""
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    package = Path(__file__).parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json", ".toml") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def finding_from_dict(d: dict) -> Finding:
    return Finding(
        path=d["path"], line=d["line"], column=d["column"], end_line=d["end_line"], end_column=d["end_column"],
        code=d["code"], severity=Severity.parse(d["severity"]), category=Category(d["category"]), message=d["message"],
        fixable=d["fixable"], edits=tuple(Edit(*e) for e in d.get("edits", ())), cell=d.get("cell"),
        replacement=d.get("replacement"), package=d.get("package"), optional=d.get("optional", False),
    )


def _row(f: Finding) -> list:
    """A finding as the results file stores it: its fields but the path (the entry's key holds it), in order, no
    names (a warm run of a large repository reads thousands: a list is ~40% less JSON to decode than a dict)."""
    return [f.line, f.column, f.end_line, f.end_column, f.code, str(f.severity), str(f.category), f.message, f.fixable,
            [[e.line, e.column, e.end_line, e.end_column, e.replacement] for e in f.edits], f.cell, f.replacement,
            f.package, f.optional]


_SEVERITIES = {str(s): s for s in Severity}
_CATEGORIES = {str(c): c for c in Category}
_FIELDS = ("path", "line", "column", "end_line", "end_column", "code", "severity", "category", "message", "fixable",
           "edits", "cell", "replacement", "package", "optional")
# Finding's fields, as `_from_row` fills them without calling __init__ (a frozen dataclass's sets each field through
# object.__setattr__: 2-3x the cost); a Finding whose fields change goes through __init__ until this tuple follows
_DIRECT = tuple(f.name for f in fields(Finding)) == _FIELDS and not hasattr(Finding, "__post_init__")


def _from_row(path: str, row: list) -> Finding:
    """The finding `_row` stored; raises (TypeError, ValueError, KeyError, IndexError) for a row of another shape or
    a field of the wrong type, as `_check_types` checks a result (so a damaged entry is a miss)."""
    line, column, end_line, end_column, code, severity, category, message, fixable, edits, cell, replacement, package, \
        optional = row
    for value in (line, column, end_line, end_column):
        if value.__class__ is not int:
            raise TypeError("cache entry of the wrong shape")
    if code.__class__ is not str or message.__class__ is not str or fixable.__class__ is not bool \
            or not (cell is None or cell.__class__ is int) or not (replacement is None or replacement.__class__ is str):
        raise TypeError("finding of the wrong shape")
    edits = tuple(Edit(*e) for e in edits) if edits else ()
    for e in edits:
        if not all(v.__class__ is int for v in (e.line, e.column, e.end_line, e.end_column)) or e.replacement.__class__ is not str:
            raise TypeError("cache entry of the wrong shape")
    values = {"path": path, "line": line, "column": column, "end_line": end_line, "end_column": end_column, "code": code,
              "severity": _SEVERITIES[severity], "category": _CATEGORIES[category], "message": message,
              "fixable": fixable, "edits": edits, "cell": cell, "replacement": replacement, "package": package,
              "optional": optional}
    if not _DIRECT:
        return Finding(**values)
    finding = object.__new__(Finding)
    object.__setattr__(finding, "__dict__", values)
    return finding


def result_to_dict(r: FileResult) -> dict:
    return {
        "kind": r.kind, "lines": r.lines, "suppressed": r.suppressed,
        "findings": [_row(f) for f in r.findings],
        "errors": [e.to_dict() for e in r.errors],
        "facts": [list(f) for f in r.facts],
    }


def result_from_dict(path: str, d: dict) -> FileResult:
    findings = tuple(_from_row(path, row) for row in d["findings"])
    errors = tuple(FileError(path, e["code"], e["message"], e["line"], e["column"]) for e in d["errors"])
    result = FileResult(path, d["kind"], d["lines"], findings, errors, d["suppressed"],
                        tuple(map(tuple, d.get("facts", ()))))
    _check_types(result, findings=False)  # the findings were checked row by row (`_from_row`)
    return result


def _check_types(result: FileResult, findings: bool = True) -> None:
    """Raise TypeError unless every field read back from the cache has the type reporters expect."""
    ints = [result.lines, result.suppressed]
    strs = [result.kind]
    for f in result.findings if findings else ():
        ints += [f.line, f.column, f.end_line, f.end_column]
        strs += [f.code, f.message]
        if (not isinstance(f.fixable, bool) or not (f.cell is None or isinstance(f.cell, int))
                or not (f.replacement is None or isinstance(f.replacement, str))):
            raise TypeError("finding of the wrong shape")
        for e in f.edits:
            ints += [e.line, e.column, e.end_line, e.end_column]
            strs.append(e.replacement)
    for e in result.errors:
        ints += [e.line, e.column]
        strs += [e.code, e.message]
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ints) or not all(isinstance(x, str) for x in strs):
        raise TypeError("cache entry of the wrong shape")


_PLANS_KEPT = 8  # linking plans (`ResultCache.put_plan`): a large repository's is ~1 MB


class ResultCache:
    """One JSON file per (tool code, torch_npu version): path -> content digest -> result."""

    def __init__(self, directory: Path, version: str):
        self.file = directory / f"analyze-{_code_fingerprint()[:20]}-{version}.json"
        self.sites_file = directory / f"analyze-{_code_fingerprint()[:20]}-{version}-sites.json"
        self.entries: dict[str, list] = {}
        self.site_entries: dict | None = None
        self.dirty = self.sites_dirty = False
        self.entries = self._load(self.file)
        from migrate import knowledge

        knowledge.keep_parsed(directory)  # the knowledge's parsed TOML files beside the results

    @staticmethod
    def _load(file: Path) -> dict:
        """The cache's entries; {} for anything but a regular file holding a JSON object.

        The file is opened without blocking and checked to be a regular file before a byte is read, so
        a FIFO or a link to /dev/zero put in its place can neither hang the run nor exhaust memory.
        """
        try:
            fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return {}
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return {}
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError, RecursionError):
            return {}
        finally:
            os.close(fd)
        return data if isinstance(data, dict) else {}

    def _entry(self, key: str) -> list | None:
        entry = self.entries.get(key)
        return entry if isinstance(entry, list) and len(entry) >= 2 else None

    def get(self, key: str, digest: str, path: str) -> FileResult | None:
        entry = self._entry(key)
        if entry and entry[0] == digest:
            return self._result(key, path, entry[1])
        return None

    def get_by_stat(self, key: str, stat_key: list, path: str) -> FileResult | None:
        """Skip even reading a file whose (size, mtime_ns, inode) are those recorded with its digest."""
        entry = self._entry(key)
        if entry and len(entry) > 2 and entry[2] == stat_key:
            return self._result(key, path, entry[1])
        return None

    def _result(self, key: str, path: str, stored) -> FileResult | None:
        """A stored entry of the wrong shape (edited, truncated, older format) is a miss and is dropped."""
        try:
            return result_from_dict(path, stored)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            self.entries.pop(key, None)
            self.dirty = True
            return None

    def put(self, key: str, digest: str, result: FileResult, stat_key: list | None = None) -> None:
        stored = result_to_dict(result)
        # a file's imports as optional_modules reads them: stored for the importers only (put_imports)
        stored["facts"] = [fact for fact in stored["facts"] if fact[0] != "optimp"]
        sites = [fact[1] for fact in stored["facts"] if fact[0] == "site"]
        if sites:  # kept apart: a warm run reads them only when linking must link the file afresh
            stored["facts"] = [fact for fact in stored["facts"] if fact[0] != "site"]
            self._sites()[key] = [digest, sites[0]]
            self.sites_dirty = True
        self.entries[key] = [digest, stored, stat_key]
        self.dirty = True

    def _sites(self) -> dict:
        """The use sites of the cached files (`repo_index.link_sites`), path -> [content digest, sites], in a
        file of their own beside the results: they are as large as the rest of the facts and a warm run whose
        index did not change needs none of them, so they are read on first use only."""
        if self.site_entries is None:
            self.site_entries = self._load(self.sites_file)
        return self.site_entries

    def get_sites(self, key: str, digest: str) -> str | None:
        """The use sites of a cached file with this content, None when not stored."""
        entry = self._sites().get(key)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == digest and isinstance(entry[1], str):
            return entry[1]
        return None

    def put_stat(self, key: str, stat_key: list | None) -> None:
        entry = self._entry(key)
        if entry is not None and stat_key is not None and (len(entry) < 3 or entry[2] != stat_key):
            self.entries[key] = [entry[0], entry[1], stat_key]
            self.dirty = True

    def get_link(self, key: str, digest: str, index_digest: str) -> list | None:
        """Cross-file findings (NPU508) of a file, valid for this content and this repository index."""
        entry = self.entries.get("link|" + key)
        if entry and entry[0] == digest and entry[1] == index_digest:
            return entry[2]
        return None

    def put_link(self, key: str, digest: str, index_digest: str, findings: list, suppressed: int) -> None:
        rows = [dict(f.to_dict(), edits=[]) for f in findings]
        self.entries["link|" + key] = [digest, index_digest, [rows, suppressed]]
        self.dirty = True

    def get_plan(self, files: str, fingerprint: str) -> dict | None:
        """What linking worked out from the scan's facts (its index, the files to link: linking.py), stored for this
        list of files (`files`, a digest of their paths) and valid for these contents (`fingerprint`)."""
        entry = self.entries.get("plan|" + files)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == fingerprint and isinstance(entry[1], dict):
            return entry[1]
        return None

    def put_plan(self, files: str, fingerprint: str, plan: dict) -> None:
        key = "plan|" + files
        self.entries.pop(key, None)
        plans = [k for k in self.entries if k.startswith("plan|")]
        for stale in plans[:max(0, len(plans) - (_PLANS_KEPT - 1))]:  # one per list of files scanned, the last few only
            del self.entries[stale]
        self.entries[key] = [fingerprint, plan]
        self.dirty = True

    def get_imports(self, key: str, digest: str) -> list | None:
        """A file's imports as `optional_modules` reads them, for this content; None when not stored (or damaged)."""
        entry = self.entries.get("imports|" + key)
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == digest and isinstance(entry[1], list)):
            return None
        try:
            return [(tuple(map(str, name)), int(guarded), bool(relative)) for name, guarded, relative in entry[1]]
        except (TypeError, ValueError):
            return None

    def put_imports(self, key: str, digest: str, imports: list) -> None:
        self.entries["imports|" + key] = [digest, [[list(name), guarded, relative] for name, guarded, relative in imports]]
        self.dirty = True

    def get_derived(self, kind: str, key: str, digest: str, question: str):
        """What a repository pass derived from this content of the file for `question` (a JSON value as stored), or
        None where it was not stored (or the content changed): the passes that read files again after the first one
        (optional_modules' accessors and flagged imports) ask once per content, not once per run."""
        entry = self.entries.get(f"{kind}|{key}")
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == digest and isinstance(entry[1], dict)):
            return None
        return entry[1].get(question)

    def put_derived(self, kind: str, key: str, digest: str, question: str, answer) -> None:
        entry = self.entries.get(f"{kind}|{key}")
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == digest and isinstance(entry[1], dict)):
            entry = self.entries[f"{kind}|{key}"] = [digest, {}]
        if entry[1].get(question) != answer:
            entry[1][question] = answer
            self.dirty = True

    def get_untested(self, key: str, digest: str, names: str) -> bool:
        """Whether this content of the file was found to test none of the imported flags `names` (imported_flags)."""
        entry = self.entries.get("flags|" + key)
        return isinstance(entry, list) and len(entry) == 2 and entry[0] == digest and entry[1] == names

    def put_untested(self, key: str, digest: str, names: str) -> None:
        self.entries["flags|" + key] = [digest, names]
        self.dirty = True

    def save(self) -> None:
        if self.sites_dirty:
            try:
                fileio.atomic_write(str(self.sites_file), json.dumps(self.site_entries, separators=(",", ":")), make_parents=True)
            except OSError:
                pass
        if not self.dirty:
            return
        try:
            fileio.atomic_write(str(self.file), json.dumps(self.entries, separators=(",", ":")), make_parents=True)
        except OSError:
            pass  # a cache that cannot be written only costs speed
