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


@dataclass(frozen=True)
class Selection:
    line: int
    start: int
    end: int
    program: str  # the program whose option it is (`lm_eval`)
    option: str  # as written: `--model vllm`
    package: str  # the knowledge key of the package the value selects


@functools.lru_cache(maxsize=1)
def _selections() -> dict[str, list[tuple[str, str, str]]]:
    """program -> (flag, value, package) for every entry's `selected_by` (`lm_eval --model vllm`)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for root, entry in knowledge.third_party().items():
        for text in entry.selected_by:
            program, flag, value = text.split()
            out.setdefault(program, []).append((flag, value, root))
    return out


def selecting_programs() -> tuple[str, ...]:
    """The programs some entry's `selected_by` names (the words a launcher must hold for `backend_selections`)."""
    return tuple(_selections())


def _logical_commands(lines: list[str]) -> Iterator[list[tuple[int, str]]]:
    """The launcher's commands as lists of (1-based line, text), a command continued over a trailing backslash."""
    current: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        current.append((number, line))
        if not line.rstrip("\r\n").endswith("\\"):
            yield current
            current = []
    if current:
        yield current


def backend_selections(lines: list[str]) -> Iterator[Selection]:
    """Every option of a known program that selects a GPU-only package as its backend (`lm_eval --model vllm`,
    `python3 -m lmms_eval \\` then `--model vllm`), at the option's line; comments and echo text are skipped."""
    table = _selections()
    if not table:
        return
    programs = "|".join(re.escape(p) for p in sorted(table, key=len, reverse=True))
    started = re.compile(rf"(?<![\w./-])(?:python[\d.]*\s+(?:-[A-Za-z]+\s+)*?-m\s+)?({programs})(?![\w.-])")
    for command in _logical_commands(lines):
        program = None
        for number, match in shell_matches([text for _, text in command], started):
            program = match.group(1), number
            break
        if program is None:
            continue
        name, first = program
        for flag, value, package in table[name]:
            option = re.compile(rf"(?<![\w-]){re.escape(flag)}(?:\s+|=)[\"']?{re.escape(value)}[\"']?(?![\w.-])")
            for index, match in shell_matches([text for _, text in command], option):
                if index >= first:
                    number = command[index - 1][0]
                    yield Selection(number, match.start(), match.end(), name, " ".join(match.group(0).split()), package)
