"""Options and the run shared by `analyze` and `check`."""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from pathlib import Path

import click

from migrate.commands._report_options import SCAN_QUIET_HELP
from migrate.report import FORMATS


def scan_options(func):
    @click.argument("paths", nargs=-1, required=True)
    @click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True, help="Output format.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write the report to FILE instead of stdout.")
    @click.option("--torch-npu-version", help="Target torch_npu release (default: the installed one, else the newest known).")
    @click.option("--select", help="Comma-separated code prefixes to report (default: all).")
    @click.option("--ignore", help="Comma-separated code prefixes to leave out (longest prefix wins).")
    @click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable), on top of .gitignore and the config.")
    @click.option("--no-gitignore", is_flag=True, help="Do not honour .gitignore files.")
    @click.option("--follow-links", is_flag=True, default=None, help="Follow symbolic links that lead out of the scanned tree (each target read once).")
    @click.option("--config", "config_path", type=click.Path(dir_okay=False), help="pyproject.toml to read [tool.npu-migrate] from.")
    @click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
    @click.option("--cache-dir", type=click.Path(file_okay=False), help="Cache directory (default: ~/.cache/npu-migrate).")
    @click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
    @click.option("--stdin-filename", default="<stdin>", show_default=True, help="Name to report for '-' input.")
    @click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
    @click.option("--statistics", is_flag=True, help="Print the number of findings per code instead of the findings (as ruff's --statistics).")
    @click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (2 still means it could not run).")
    @click.option("-q", "--quiet", is_flag=True, help=SCAN_QUIET_HELP)
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def _prefixes(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    out = []
    for part in text.split(","):
        part = part.strip().upper()
        if not part:
            continue
        if not part.startswith("NPU") and part != "ALL":
            raise click.BadParameter(f"{part!r} is not an NPU code prefix (e.g. NPU1, NPU101)")
        out.append("NPU" if part == "ALL" else part)
    return tuple(out)


def run_scan(paths, *, fmt, output, torch_npu_version, select, ignore, exclude, no_gitignore, config_path, no_cache,
             cache_dir, jobs, stdin_filename, no_progress, fail_on=None, baseline=None, update_baseline=False,
             follow_links=None, quiet=False):
    """Returns (result, config). Raises click exceptions on bad input."""
    from migrate import knowledge
    from migrate.config import ConfigError, load_config
    from migrate.engine import scan

    try:
        config = load_config(list(paths), config_path)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    overrides = {
        "select": _prefixes(select),
        "ignore": _prefixes(ignore),
        "exclude": tuple(config.exclude) + tuple(exclude) if exclude else None,
        "respect_gitignore": False if no_gitignore else None,
        "follow_links": True if follow_links else None,
        "torch_npu_version": torch_npu_version,
    }
    config = config.with_overrides(**overrides)
    try:
        knowledge.resolve_version(config.torch_npu_version)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--torch-npu-version") from None
    note = knowledge.version_note(config.torch_npu_version)
    if note and not quiet:
        click.echo(f"npu-migrate: {note}", err=True)
    stdin_data = sys.stdin.buffer.read() if "-" in paths else None
    progress = _progress_bar() if not (no_progress or quiet) and sys.stderr.isatty() else None
    try:
        result = scan(
            list(paths), config, use_cache=not no_cache, cache_dir=Path(cache_dir) if cache_dir else None, jobs=jobs,
            progress=progress.update if progress else None, stdin_data=stdin_data, stdin_name=stdin_filename,
        )
    finally:
        if progress:
            progress.close()
    return result, config


class _progress_bar:
    """A rich progress bar on stderr, shown only for scans that take a while."""

    def __init__(self):
        self._bar = None
        self._task = None

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            if total < 200:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("analyzing", total=total)
        self._bar.update(self._task, completed=done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def emit(result, verdict, fmt: str, output: str | None, quiet: bool = False) -> None:
    """The report in `fmt`; `quiet` (-q): the text report's lines without its summary, as ruff's -q (the other
    formats are the report itself, unchanged)."""
    import functools

    from migrate import fileio
    from migrate.report import get_reporter

    rules_by_code = _RulesOnDemand  # each call: a mapping that imports the rules when a reporter reads it
    reporter = get_reporter(fmt)
    if quiet and fmt == "text":
        reporter = functools.partial(reporter, show_summary=False)
    if output:
        import io as textio

        stream = textio.StringIO(newline="")
        with fileio.no_cycle_collection():  # a report of a large scan is many small objects (torch: 11,041 findings)
            reporter(result, stream, verdict=verdict, rules=rules_by_code())
        try:
            fileio.write_report(output, stream.getvalue())
        except OSError as exc:  # a user error (read-only or missing folder), not a crash: exit 2 with the cause
            raise click.ClickException(f"cannot write the report to {output}: {exc.strerror or exc}") from None
    else:
        with fileio.no_cycle_collection():
            reporter(result, sys.stdout, verdict=verdict, rules=rules_by_code())


class _RulesOnDemand(Mapping):
    """`rules_by_code()` for a reporter, imported on first read: of the reporters only SARIF reads the
    rules, and importing every rule module is ~0.15 s of a warm re-run that analyses nothing."""

    @functools.cached_property
    def _rules(self) -> dict:
        from migrate.rules import rules_by_code

        return rules_by_code()

    def __getitem__(self, code):
        return self._rules[code]

    def __iter__(self):
        return iter(self._rules)

    def __len__(self) -> int:
        return len(self._rules)


def statistics(findings) -> list[dict]:
    """Findings per code, most frequent first (`--statistics`)."""
    from collections import Counter

    from migrate.rules import rules_by_code
    from migrate.rules._docs import FILE_CODES

    rules = rules_by_code()
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fixable}
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        name = rules[code].NAME if code in rules else FILE_CODES.get(code, (code,))[0]
        rows.append({"code": code, "name": name, "count": count, "fixable": code in fixable})
    return rows


def emit_statistics(findings, fmt: str, output: str | None) -> None:
    """`--statistics`: `count  code  [*]  name` lines (`[*]`: `apply` fixes it), or JSON for --format json."""
    import json

    from migrate import fileio

    rows = statistics(findings)
    if fmt == "json":
        text = json.dumps(rows, indent=2) + "\n"
    elif fmt == "text":
        width = max([len(str(row["count"])) for row in rows] or [1])
        text = "".join(f"{row['count']:>{width}}\t{row['code']}\t{'[*]' if row['fixable'] else '   '}\t{row['name']}\n" for row in rows)
    else:
        raise click.UsageError(f"--statistics prints text or json, not {fmt}")
    if output:
        try:
            fileio.write_report(output, text)
        except OSError as exc:
            raise click.ClickException(f"cannot write the report to {output}: {exc.strerror or exc}") from None
    else:
        click.echo(text, nl=False)
