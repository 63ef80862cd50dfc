"""Which Python frame is the user's: the first frame in the script's own folder.

Runs in the profile child. Frames of our own code (checks/: the bootstrap's pass-through wrappers, the
stand-in, the profile hooks) and of libraries are passed over; the harness's own work is excluded
by a flag instead (child.ProfileState.harness), since its wrappers sit between user code and torch.
Classification is cached per code file, so a lookup costs a few dict hits.
"""
from __future__ import annotations

import os
import sys

CHECKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

USER, OTHER = 1, 3


class UserFrames:
    """Tells user code (the script's folder, outside site-packages and checks/) from everything else."""

    def __init__(self, script: str):
        self.script = os.path.realpath(script)
        self.folder = os.path.dirname(self.script) + os.sep
        self._kind: dict[str, int] = {}

    def kind(self, filename: str) -> int:
        k = self._kind.get(filename)
        if k is None:
            k = self._kind[filename] = self._classify(filename)
        return k

    def _classify(self, filename: str) -> int:
        if filename.startswith("<"):
            return OTHER
        path = os.path.realpath(filename)
        if path.startswith(CHECKS) or "site-packages" in path or "dist-packages" in path:
            return OTHER
        if path == self.script or path.startswith(self.folder):
            return USER
        return OTHER

    def caller(self, depth: int = 2):
        """(file, line) when the frame `depth` levels up is user code, else None (a direct call only)."""
        try:
            f = sys._getframe(depth)
        except ValueError:
            return None
        code = f.f_code
        if self.kind(code.co_filename) == USER:
            return code.co_filename, f.f_lineno
        return None

    def first_user(self, depth: int = 2, skip: tuple[str, ...] = ()):
        """(file, line) of the innermost user frame; None when a file whose path contains one of
        `skip` comes first (their work is not the user's)."""
        try:
            f = sys._getframe(depth)
        except ValueError:
            return None
        while f is not None:
            name = f.f_code.co_filename
            if self.kind(name) == USER:
                return name, f.f_lineno
            if skip and any(s in name for s in skip):
                return None
            f = f.f_back
        return None
