"""What `validate` prints while the two runs go: the scripts' own output on the terminal, msprobe's
log lines and Python warnings in `validate.log` in the output folder (its path is printed once).

A stream that `checks.smoke.run.run_smoke` writes the child's output to, line by line, from one thread
per pipe. msprobe's lines look like `2026-01-01 12:00:00 (1234) [INFO] ...`; a Python warning is a
`file:line: XWarning: message` header followed by its message lines and the indented source line.
Each distinct warning reaches the log once (with a count at the end), every msprobe line is kept.
"""
from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import TextIO

MSPROBE_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? \(\d+\) \[(?:INFO|WARNING|ERROR|DEBUG)\]")
WARNING_HEADER = re.compile(r"^(?P<where>\S.*?):\d+: (?P<kind>[A-Za-z_]*Warning): (?P<message>.*)$")
MAX_WARNING_LINES = 6


class SplitLog:
    """A text stream: log lines to `path`, the rest to `terminal` (None: nowhere)."""

    def __init__(self, path: Path, terminal: TextIO | None):
        self.path = Path(path)
        self.terminal = terminal
        self._file = open(self.path, "a", encoding="utf-8")
        self._lock = threading.Lock()
        self._in_warning: dict[int, tuple[int, bool]] = {}  # thread -> (lines so far, first sighting)
        self.warnings: dict[str, int] = {}
        self.logged_lines = 0
        self.section: str | None = None

    # -- stream protocol used by checks.launch.process.OutputTail
    def write(self, text: str) -> int:
        with self._lock:
            for line in text.splitlines(True):
                self._line(line)
        return len(text)

    def flush(self) -> None:
        with self._lock:
            self._file.flush()
            if self.terminal is not None:
                try:
                    self.terminal.flush()
                except (OSError, ValueError):
                    pass

    # -- our own progress lines: terminal and log
    def say(self, text: str) -> None:
        with self._lock:
            self._file.write(text + "\n")
            if self.terminal is not None:
                print(text, file=self.terminal, flush=True)

    def begin(self, section: str) -> None:
        with self._lock:
            self._file.write(f"===== {section}\n")

    def close(self) -> None:
        with self._lock:
            if self.warnings:
                self._file.write("===== warnings (each once, with how often it was seen)\n")
                for key, count in self.warnings.items():
                    self._file.write(f"{count:5d}x {key}\n")
            self._file.close()

    def _line(self, line: str) -> None:
        me = threading.get_ident()
        block = self._in_warning.get(me)
        stripped = line.rstrip("\n")
        header = WARNING_HEADER.match(stripped)
        if header:
            key = f"{header['kind']}: {header['message']}"
            self.warnings[key] = self.warnings.get(key, 0) + 1
            first = self.warnings[key] == 1
            self._in_warning[me] = (1, first)
            if first:
                self._log(line)
            return
        if block is not None:
            # the warning's further message lines and its indented source line
            count, first = block
            if first:
                self._log(line)
            self._in_warning[me] = (count + 1, first)
            if line.startswith("  ") or count + 1 >= MAX_WARNING_LINES:
                del self._in_warning[me]
            return
        if MSPROBE_LINE.match(stripped):
            self._log(line)
            return
        if self.terminal is not None:
            try:
                self.terminal.write(line)
            except (OSError, ValueError):
                pass
        self._file.write(line)

    def _log(self, line: str) -> None:
        self.logged_lines += 1
        self._file.write(line)
