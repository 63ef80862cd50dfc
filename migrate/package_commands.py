"""Launcher lines that run a GPU-only package's own program: its console script with a subcommand (knowledge
`commands`: vLLM's `vllm serve`) or `python -m <module>` of the package (`python3 -m vllm.entrypoints.openai.api_server`).
The line runs the package as an import does (label note 61c: the MedicalGPT precedent labels both as `pkg`); echo /
printf text and comments are skipped (migrate/rules/_text.py shell_matches)."""
from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrate import knowledge
from migrate.rules._text import shell_matches

# `python`, `python3`, `python3.10` (a path before it allowed: /usr/bin/python3), then `-m module`
_MODULE_RUN = re.compile(r"(?<![\w.-])python[\d.]*\s+(?:-[A-Za-z]+\s+)*?-m\s+([A-Za-z_][\w.]*)")


@dataclass(frozen=True)
class Run:
    line: int
    start: int
    end: int
    text: str  # the command as written (`vllm serve`, `python3 -m vllm.entrypoints.openai.api_server`)
    module: str  # the module it runs, the key of the knowledge looked up with it


@functools.lru_cache(maxsize=1)
def _commands() -> tuple[re.Pattern | None, dict[str, str]]:
    """One pattern over every entry's commands, and command -> the entry's import root."""
    owner = {" ".join(c.split()): root for root, e in knowledge.third_party().items() for c in e.commands}
    if not owner:
        return None, owner
    words = "|".join(r"\s+".join(re.escape(w) for w in c.split()) for c in sorted(owner, key=len, reverse=True))
    return re.compile(rf"(?<![\w./-])(?:{words})(?![\w-])"), owner


def package_runs(lines: list[str]) -> Iterator[Run]:
    """Every command of a launcher's lines that runs a package's program (console script or `python -m`)."""
    pattern, owner = _commands()
    if pattern is not None:
        for number, match in shell_matches(lines, pattern):
            command = " ".join(match.group(0).split())
            yield Run(number, match.start(), match.end(), command, owner[command])
    for number, match in shell_matches(lines, _MODULE_RUN):
        yield Run(number, match.start(), match.end(), " ".join(match.group(0).split()), match.group(1))
