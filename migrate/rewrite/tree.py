"""Whole inputs through apply: plan a directory tree (files the analyzer reads are rewritten, the rest
is copied verbatim), rewrite many files in parallel, write the tree, show a rewrite as a diff."""

from __future__ import annotations

import difflib
import errno
import os
import shutil
import stat

from migrate import fileio
from migrate.context import split_lines
from migrate.findings import FileError, Severity
from migrate.rewrite.files import rewrite_file
from migrate.rewrite.model import ApplyOptions, ApplyResult, FileRewrite, ManualItem, TreeEntry, resolve_options

# Never copied into an output tree (version control, caches); virtualenvs are skipped too.
SKIPPED_DIRS = (".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                ".ipynb_checkpoints", ".tox", ".nox", ".eggs")


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def plan_tree(root: str, options: ApplyOptions | None = None, *, jobs: int | None = None) -> ApplyResult:
    """Walk a directory: files the analyzer reads (honouring .gitignore and excludes) are rewritten,
    everything else is listed for a verbatim copy. Symlinks stay links and are not followed."""
    from migrate.config import Config
    from migrate.engine import discover

    options, version = resolve_options(options)
    config = options.config if options.config is not None else Config()
    targets, _ = discover([root], config)
    readable = {os.path.normpath(t.path): t.kinds for t in targets}
    entries: list[TreeEntry] = []
    skipped: list[str] = []
    to_rewrite: list[tuple[str, str, tuple[str, ...]]] = []
    for directory, dirnames, filenames in os.walk(root):
        keep = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            if name in SKIPPED_DIRS or name.endswith(".egg-info") or (not os.path.islink(full) and _is_virtualenv(full)):
                continue
            if os.path.islink(full):
                entries.append(TreeEntry(rel, "link"))
                continue
            entries.append(TreeEntry(rel, "dir"))
            keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root)
            if name.endswith((".pyc", ".pyo")):
                continue
            kind = _file_kind(full)
            if kind == "link":
                entries.append(TreeEntry(rel, "link"))
            elif kind != "file":
                skipped.append(f"{rel}: {kind}, not copied")  # FIFOs, sockets, devices are never opened
            elif os.path.normpath(full) in readable:
                to_rewrite.append((rel, full, readable[os.path.normpath(full)]))
            else:
                entries.append(TreeEntry(rel, "file"))
    rewrites = _rewrite_many([(full, kinds) for _, full, kinds in to_rewrite], options, version, jobs)
    for (rel, _, _), rewrite in zip(to_rewrite, rewrites):
        entries.append(TreeEntry(rel, "file", rewrite))
        if not rewrite.read and rewrite.error is not None and rewrite.error.code != "NPU905":
            skipped.append(f"{rel}: {rewrite.error.message}, not copied")
    entries.sort(key=lambda e: e.relpath)
    return ApplyResult(tuple(rewrites), tuple(entries), version, tuple(skipped))


_SPECIAL = {stat.S_IFIFO: "FIFO", stat.S_IFSOCK: "socket", stat.S_IFCHR: "character device", stat.S_IFBLK: "block device"}


def _file_kind(path: str) -> str:
    """"file", "link", or what else it is (FIFO, socket ...), from lstat: nothing is opened."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        return f"cannot stat ({exc.strerror or exc})"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    return _SPECIAL.get(stat.S_IFMT(mode), "special file")


def plan_files(paths: list[str], options: ApplyOptions | None = None, *, jobs: int | None = None) -> ApplyResult:
    """Rewrite the given files (paths as given; kinds from their names, Python when unknown)."""
    from migrate.sources import classify

    options, version = resolve_options(options)
    items = [(p, classify(p) or ("python",)) for p in paths]
    return ApplyResult(tuple(_rewrite_many(items, options, version, jobs)), (), version)


def _unread(path: str, kind: str, code: str, message: str) -> FileRewrite:
    error = FileError(path, code, message)
    severity = str(Severity.WARNING if code == "NPU905" else Severity.ERROR)
    return FileRewrite(path, kind, b"", b"", manual=(ManualItem(path, 1, code, message, severity=severity),), error=error, read=False)


def read_input(path: str, limit: int) -> bytes | tuple[str, str]:
    """The file's bytes, or (code, message) when it is not read: not a regular file (a FIFO would
    block, a device never ends; checked on the open descriptor, which does not block), unreadable,
    or over the size limit (the limit analyze applies)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "NPU903", "symbolic link loop"
        return "NPU903", f"cannot read: {exc.strerror or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "NPU903", f"{_SPECIAL.get(stat.S_IFMT(info.st_mode), 'special file')}, not read"
        if info.st_size > limit:
            return "NPU905", f"file is {info.st_size / 1e6:.1f} MB, over the {limit / 1e6:.1f} MB limit; copied unchanged"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as exc:
        return "NPU903", f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)


def _rewrite_one(item, options: ApplyOptions, version: str) -> FileRewrite:
    """One file, whatever happens: an unexpected failure is this file's NPU900, never the run's."""
    from migrate.config import Config

    path, kinds = item
    limit = (options.config or Config()).max_file_size
    data = read_input(path, limit)
    if isinstance(data, tuple):
        return _unread(path, kinds[0], *data)
    try:
        return rewrite_file(path, data, kinds=kinds, options=options, version=version)
    except Exception as exc:  # noqa: BLE001 - the per-file boundary of apply
        message = f"rewrite left out ({type(exc).__name__}: {exc}); the file is copied unchanged. Please report this"
        error = FileError(path, "NPU900", message[:500])
        return FileRewrite(path, kinds[0], data, data, manual=(ManualItem(path, 1, error.code, error.message),), error=error)


def _rewrite_batch(items, options, version) -> list[FileRewrite]:
    return [_rewrite_one(item, options, version) for item in items]


def _size_of(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _rewrite_many(items, options: ApplyOptions, version: str, jobs: int | None) -> list[FileRewrite]:
    workers = jobs if jobs else (os.cpu_count() or 1)
    if workers <= 1 or len(items) < 32:
        return _rewrite_batch(items, options, version)
    sizes = [_size_of(path) for path, _ in items]
    return fileio.run_batched(_rewrite_batch, items, sizes, workers=workers, args=(options, version))


def unified_diff(rewrite: FileRewrite, old_name: str, new_name: str) -> str:
    """A unified diff of one rewrite (text; line endings shown as in the file)."""
    if not rewrite.changed:
        return ""
    try:
        before = fileio.decode(rewrite.original, rewrite.kind == "python")
        after = fileio.decode(rewrite.output, rewrite.kind == "python")
    except fileio.ReadError:
        return f"Binary files {old_name} and {new_name} differ\n"
    lines = difflib.unified_diff(split_lines(before.body), split_lines(after.body), old_name, new_name)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


class UnsafeOutput(Exception):
    """An output that would land inside the input (through a link in the output tree, or by name)."""


def is_inside(path: str, folder: str) -> bool:
    """Whether `path`, resolved (links followed, as far as it exists), is `folder` (resolved) or inside it."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_destinations(result: ApplyResult, source_root: str, output_root: str) -> None:
    """Refuse (UnsafeOutput) before anything is written when the output folder, or any folder a
    file would be written through, resolves into the input or out of the output folder: an output
    folder holding a link (left there from an earlier run, or planted) must not make apply rewrite
    its input, or write anywhere else."""
    if is_inside(output_root, source_root) or is_inside(source_root, output_root):
        raise UnsafeOutput(f"the output {output_root} must not be inside the input {source_root} (or contain it)")
    for entry in result.entries:
        dst = os.path.join(output_root, entry.relpath)
        for place in (os.path.dirname(dst), dst) if entry.kind == "dir" else (os.path.dirname(dst),):
            if is_inside(place, source_root):
                raise UnsafeOutput(f"{place} resolves to {os.path.realpath(place)}, inside the input {source_root}; "
                                   "remove the link from the output folder")
            if not is_inside(place, output_root):
                raise UnsafeOutput(f"{place} resolves to {os.path.realpath(place)}, outside the output folder; "
                                   "remove the link from the output folder")


def write_tree(result: ApplyResult, source_root: str, output_root: str) -> int:
    """Copy the planned tree to `output_root` (rewritten files changed, permissions kept, symlinks as
    symlinks; files that could not be read are left out, files over the size limit copied unchanged).
    Refuses (UnsafeOutput) before writing anything when a write would land in the input; an OSError
    carries the path that could not be written. Returns the number of files written."""
    check_destinations(result, source_root, output_root)
    written = 0
    os.makedirs(output_root, exist_ok=True)
    for entry in result.entries:
        src = os.path.join(source_root, entry.relpath)
        dst = os.path.join(output_root, entry.relpath)
        if entry.rewrite is not None and not entry.rewrite.read:
            if entry.rewrite.error is not None and entry.rewrite.error.code == "NPU905":
                fileio.atomic_copy(src, dst)  # too big to rewrite, copied as it is
                written += 1
            continue
        if entry.kind == "dir":
            os.makedirs(dst, exist_ok=True)
            shutil.copymode(src, dst)
        elif entry.kind == "link":
            if os.path.lexists(dst):
                os.unlink(dst) if not os.path.isdir(dst) or os.path.islink(dst) else shutil.rmtree(dst)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(os.readlink(src), dst)
        else:
            mode = os.stat(src).st_mode
            if entry.rewrite is not None:
                fileio.atomic_write(dst, entry.rewrite.output, mode=mode, make_parents=True)
            else:
                fileio.atomic_copy(src, dst)
            written += 1
    return written
