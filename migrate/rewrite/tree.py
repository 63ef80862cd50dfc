"""Whole inputs through apply: plan a directory tree (files the analyzer reads are rewritten, the rest
is copied verbatim), rewrite many files in parallel, write the tree, show a rewrite as a diff."""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile

from migrate import io
from migrate.context import split_lines
from migrate.findings import FileError
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
            if os.path.islink(full):
                entries.append(TreeEntry(rel, "link"))
            elif os.path.normpath(full) in readable:
                to_rewrite.append((rel, full, readable[os.path.normpath(full)]))
            else:
                entries.append(TreeEntry(rel, "file"))
    rewrites = _rewrite_many([(full, kinds) for _, full, kinds in to_rewrite], options, version, jobs)
    for (rel, _, _), rewrite in zip(to_rewrite, rewrites):
        entries.append(TreeEntry(rel, "file", rewrite))
    entries.sort(key=lambda e: e.relpath)
    return ApplyResult(tuple(rewrites), tuple(entries), version)


def plan_files(paths: list[str], options: ApplyOptions | None = None, *, jobs: int | None = None) -> ApplyResult:
    """Rewrite the given files (paths as given; kinds from their names, Python when unknown)."""
    from migrate.sources import classify

    options, version = resolve_options(options)
    items = [(p, classify(p) or ("python",)) for p in paths]
    return ApplyResult(tuple(_rewrite_many(items, options, version, jobs)), (), version)


def _rewrite_one(item, options, version) -> FileRewrite:
    path, kinds = item
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        error = FileError(path, "NPU903", f"cannot read: {exc.strerror or exc}")
        return FileRewrite(path, kinds[0], b"", b"", manual=(ManualItem(path, 1, error.code, error.message),), error=error)
    return rewrite_file(path, data, kinds=kinds, options=options, version=version)


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
    return io.run_batched(_rewrite_batch, items, sizes, workers=workers, args=(options, version))


def unified_diff(rewrite: FileRewrite, old_name: str, new_name: str) -> str:
    """A unified diff of one rewrite (text; line endings shown as in the file)."""
    if not rewrite.changed:
        return ""
    try:
        before = io.decode(rewrite.original, rewrite.kind == "python")
        after = io.decode(rewrite.output, rewrite.kind == "python")
    except io.ReadError:
        return f"Binary files {old_name} and {new_name} differ\n"
    lines = difflib.unified_diff(split_lines(before.body), split_lines(after.body), old_name, new_name)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def write_tree(result: ApplyResult, source_root: str, output_root: str) -> int:
    """Copy the planned tree to `output_root` (rewritten files changed, permissions kept, symlinks as
    symlinks). Returns the number of files written."""
    written = 0
    os.makedirs(output_root, exist_ok=True)
    for entry in result.entries:
        src = os.path.join(source_root, entry.relpath)
        dst = os.path.join(output_root, entry.relpath)
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
                io.atomic_write(dst, entry.rewrite.output, mode=mode, make_parents=True)
            else:
                _copy_file(src, dst)
            written += 1
    return written


def _copy_file(src: str, dst: str) -> None:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dst)), prefix=".npu-migrate-", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
