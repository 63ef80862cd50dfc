"""The files git tracks in a work tree, read from its index file (no git process, nothing executed).

`.gitignore` applies to untracked files only: a file committed in spite of a pattern (Open-Sora-Plan's
`*curope*` line beside its committed `opensora/models/diffusion/curope/` CUDA kernel) is part of the
repository, and git itself lists it. The walk (migrate/walk.py) asks `tracked(root)` once per scan root and
reads a tracked file or folder even when a `.gitignore` pattern matches it. Outside a git work tree (an
exported `git archive` tree, a copied folder) nothing is known to be tracked and `.gitignore` applies as
written. The index is parsed directly (format versions 2, 3 and 4, as documented in git's
Documentation/gitformat-index.txt): running `git ls-files` could run programs named in the repository's own
`.git/config` (core.fsmonitor), which the tool never does. An index it cannot read gives None (patterns apply).
"""

from __future__ import annotations

import os
import struct

_MAX_INDEX = 1 << 30  # a larger index file is not read (patterns apply)


def work_tree(path: str) -> tuple[str, str] | None:
    """(top of the work tree, its git directory) for the nearest ancestor of `path` holding `.git`
    (a directory, or a `gitdir: ...` file as in linked worktrees and submodules)."""
    current = os.path.abspath(path)
    while True:
        dot_git = os.path.join(current, ".git")
        if os.path.isdir(dot_git):
            return current, dot_git
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8", errors="replace") as handle:
                    line = handle.readline(4096).strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                return current, os.path.normpath(os.path.join(current, line[len("gitdir:"):].strip()))
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read_index(data: bytes) -> list[str] | None:
    """The paths of an index file's entries (sparse directory entries end with '/'); None when it is not one."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    paths: list[str] = []
    position, previous = 12, b""
    for _ in range(count):
        start = position
        if position + 62 > len(data):
            return None
        flags = struct.unpack(">H", data[position + 60:position + 62])[0]
        position += 62
        if version >= 3 and flags & 0x4000:  # extended flags
            position += 2
        if version == 4:  # the path: a number of bytes to drop from the previous path, then the rest
            drop, byte = 0, 0x80
            first = True
            while byte & 0x80:
                if position >= len(data):
                    return None
                byte = data[position]
                position += 1
                drop = (byte & 0x7F) if first else ((drop + 1) << 7) | (byte & 0x7F)
                first = False
            end = data.find(b"\0", position)
            if end < 0 or drop > len(previous):
                return None
            path = previous[: len(previous) - drop] + data[position:end]
            position = end + 1
        else:
            end = data.find(b"\0", position)
            if end < 0:
                return None
            path = data[position:end]
            position = start + ((end - start + 8) // 8) * 8  # entries are NUL-padded to a multiple of 8 bytes
        previous = path
        paths.append(path.decode("utf-8", errors="surrogateescape"))
    return paths


def tracked(root: str) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """(work-tree top, tracked file paths, folders holding a tracked file), paths relative to the top with '/';
    None outside a work tree or when its index cannot be read."""
    found = work_tree(root)
    if found is None:
        return None
    top, git_dir = found
    index = os.path.join(git_dir, "index")
    try:
        if os.path.getsize(index) > _MAX_INDEX:
            return None
        with open(index, "rb") as handle:
            paths = read_index(handle.read())
    except OSError:
        return None
    if paths is None:
        return None
    files, folders = set(), set()
    for path in paths:
        path = path.rstrip("/") if path.endswith("/") else path
        files.add(path)
        parts = path.split("/")
        for end in range(1, len(parts)):
            folders.add("/".join(parts[:end]))
    return top, frozenset(files), frozenset(folders)
