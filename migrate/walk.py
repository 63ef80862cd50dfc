"""Walking an input tree: what is read, what is skipped, and what is reported.

Rules (each tested in tests/test_hostile_tree.py):
- Every real directory is walked once, under its path inside the tree. A symbolic link inside the
  tree whose target is also inside the tree (DeepSpeed's `deepspeed/accelerator -> ../accelerator`)
  is not walked or read again: its target is read under its own path, so each file is analysed once
  and findings carry the real file's path. Such links are not errors.
- A link whose target lies outside the tree is not followed unless `follow_links` is set (one
  NPU903 note per link to a directory or to a file we would read), so `lib -> /usr` never pulls in
  a system folder. With `follow_links`, targets outside are walked once each, under the path of the
  first link (in sorted order) that leads there; links inside the tree are still never followed.
- Only a link to a directory that contains the link itself (`sub/back -> ..`) is a loop, reported
  as "symbolic link loop"; so are links that the kernel cannot resolve (ELOOP).
- Only regular files are read. FIFOs, sockets and devices (and links to them, such as
  `/proc/self/fd/0` or `/dev/zero`) are never opened: they are skipped with one NPU903 note each.
- A `.gitignore` line that pathspec cannot compile is dropped (git itself ignores such lines).
- `.gitignore` applies inside a git work tree only (a `.git` at the root or above it), as in git itself and
  ripgrep: an exported tree (`git archive`, a release zip) holds only committed files, and a pattern there
  would hide committed sources (Open-Sora-Plan's `*curope*` line beside its committed curope CUDA kernel).
- Inside a git work tree, a file the index tracks (and a folder holding one) is read even when a `.gitignore`
  pattern matches it: git applies `.gitignore` to untracked files only (migrate/git_index.py).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from migrate import git_index
from migrate.findings import FileError
from migrate.sources import classify, is_misnamed_requirements, is_unnamed_dockerfile

MAX_DEPTH = 200  # folders deeper than this are reported, not walked (the walk recurses per level)

_KIND_NAMES = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def special_kind(mode: int) -> str | None:
    """'a FIFO (named pipe)' etc. for anything that is neither a regular file nor a directory."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return _KIND_NAMES.get(stat.S_IFMT(mode), "not a regular file")


def link_error(path: str) -> FileError:
    """The NPU903 error for a link that does not resolve."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return FileError(path, "NPU903", "symbolic link loop")
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return FileError(path, "NPU903", f"broken symbolic link (points to {target!r})")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def load_gitignore(directory: str):
    """The directory's .gitignore as a pathspec, lines pathspec rejects dropped; None when absent."""
    path = os.path.join(directory, ".gitignore")
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return None
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - a line git accepts but pathspec rejects (e.g. a lone "!")
        good = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except Exception:  # noqa: BLE001
                continue
            good.append(line)
        return pathspec.GitIgnoreSpec.from_lines(good)


@dataclass
class Walker:
    """Collects (path, kinds) of the files to read under one root, and the errors met on the way."""

    excludes: object  # engine._Excludes
    respect_gitignore: bool = True
    follow_links: bool = False
    found: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)

    def walk(self, root: str) -> None:
        self.root_real = os.path.realpath(root)
        self.visited: set = set()
        self.files_read: set[str] = set()  # real paths of files outside the tree read through links
        self.specs: list[tuple[str, object]] = []
        # files git tracks are read even where a .gitignore pattern matches them (git ignores untracked files only)
        self.tracked = git_index.tracked(root) if self.respect_gitignore else None
        # outside a git work tree nothing is untracked: .gitignore means nothing there (git, ripgrep)
        self.patterns = self.respect_gitignore and git_index.work_tree(root) is not None
        self._visit(root, "", self.root_real)

    # -- helpers
    def _ignored_by_git(self, full: str, is_dir: bool) -> bool:
        if self.tracked is not None and self.specs:
            top, files, folders = self.tracked
            rel = os.path.relpath(os.path.abspath(full), top).replace(os.sep, "/")
            if rel in (folders if is_dir else files):
                return False  # committed: part of the repository whatever .gitignore says
        for base, spec in self.specs:
            rel = os.path.relpath(full, base).replace(os.sep, "/")
            if rel.startswith(".."):
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False

    def _note(self, path: str, message: str) -> None:
        self.errors.append(FileError(path, "NPU903", message))

    def _visit(self, directory: str, rel_dir: str, real: str) -> None:
        if rel_dir.count("/") >= MAX_DEPTH:
            self._note(directory, f"folder nested more than {MAX_DEPTH} levels deep, not walked")
            return
        try:
            st = os.stat(directory)
            identity = (st.st_dev, st.st_ino)  # also catches bind mounts, whose real paths differ
        except OSError:
            identity = real
        if identity in self.visited:
            return
        self.visited.add(identity)
        pushed = False
        if self.patterns:
            spec = load_gitignore(directory)
            if spec is not None:
                self.specs.append((directory, spec))
                pushed = True
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self._note(directory, f"cannot list directory: {exc.strerror or exc}")
            entries = []
        for entry in entries:
            self._entry(entry, directory, rel_dir, real)
        if pushed:
            self.specs.pop()

    def _entry(self, entry: os.DirEntry, directory: str, rel_dir: str, real_dir: str) -> None:
        full = entry.path  # os.path.join(directory, entry.name), made by scandir
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        if self.excludes.match(rel, entry.name):
            return
        try:
            is_link = entry.is_symlink()
            if not is_link and entry.is_file(follow_symlinks=False):
                mode = stat.S_IFREG  # from the directory listing's file type: no stat call per file
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            return  # vanished while we walked
        if not is_link:
            self._plain(entry, full, rel, mode, real_dir)
            return
        try:
            target = os.stat(full)
        except OSError:
            if classify(full) or not os.path.splitext(entry.name)[1]:
                self.errors.append(link_error(full))
            return
        target_real = os.path.realpath(full)
        is_dir = stat.S_ISDIR(target.st_mode)
        if is_dir and _inside(real_dir, target_real):
            self._note(full, f"symbolic link loop: points to {os.readlink(full)!r}, a folder containing the link; not followed")
            return
        inside = _inside(target_real, self.root_real)
        if is_dir:
            if inside:
                return  # walked once, under its own path in the tree
            if not self.follow_links:
                self._note(full, f"symbolic link to a folder outside the tree ({target_real}), not followed (--follow-links follows it)")
                return
            if self.respect_gitignore and self._ignored_by_git(full, True):
                return
            self._visit(full, rel, target_real)
            return
        kind = special_kind(target.st_mode)
        if kind is not None:
            self._note(full, f"symbolic link to {kind} ({target_real}), not read")
            return
        if not classify(full):
            return
        if inside:
            return  # the target is read under its own path (when it is not excluded)
        if not self.follow_links:
            self._note(full, f"symbolic link to a file outside the tree ({target_real}), not read (--follow-links reads it)")
            return
        if self.respect_gitignore and self._ignored_by_git(full, False):
            return
        if target_real not in self.files_read:
            self.files_read.add(target_real)
            self.found.append((full, classify(full)))

    def _plain(self, entry: os.DirEntry, full: str, rel: str, mode: int, real_dir: str) -> None:
        if stat.S_ISDIR(mode):
            if self.respect_gitignore and self._ignored_by_git(full, True):
                return
            self._visit(full, rel, os.path.join(real_dir, entry.name))
            return
        if stat.S_ISREG(mode):
            kinds = classify(full) or (("launcher",) if is_unnamed_dockerfile(full, rel) else ())  # `docker/chatlearn`
            if not kinds and entry.name.endswith(".txt") and is_misnamed_requirements(full):  # `requirments_cu118.txt`
                kinds = ("manifest",)
            if kinds and not (self.respect_gitignore and self._ignored_by_git(full, False)):
                self.found.append((full, kinds))
            return
        if self.respect_gitignore and self._ignored_by_git(full, False):
            return
        self._note(full, f"{special_kind(mode)}, not read")
