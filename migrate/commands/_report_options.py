"""`--format text|json` and `-o/--output FILE` for the report of a run command (smoke, profile), the
convention analyze and check follow. The older `--json FILE` is kept for one release: it still works
and says on stderr what replaces it.

- `--format text` (default): the summary on stdout, or in FILE with `-o FILE`;
- `--format json`: the result as JSON on stdout, or in FILE with `-o FILE` (the text summary then
  still goes to the terminal, as `--json FILE` did);
- `--json FILE`: the same as `--format json -o FILE` (`--json -`: `--format json`).

`-q/--quiet` means one thing for every command, as ruff's `-q`: only the result. The run commands
(smoke, validate, profile, baseline) neither stream the script's output nor print their progress lines
(on a terminal one status line, "smoke: step 3/5, 4.2 s", stands in for them and is erased at the end);
analyze and check print the report but no progress bar and none of their lines on stderr (the summary
line, notes). Errors are still printed, and the exit status is the same.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import click


def deprecated(old: str, new: str) -> str:
    """The line an older spelling prints on stderr for one release (smoke/profile/doctor `--json FILE`, kb `--json`)."""
    return f"npu-migrate: {old} is deprecated and goes in the next release: use {new}"


DEPRECATED_JSON = deprecated("--json FILE", "--format json -o FILE")
RUN_QUIET_HELP = ("Only the result: do not stream the script's output nor print progress lines (on a terminal, one "
                  "status line shows the step reached and the elapsed time, erased at the end).")
SCAN_QUIET_HELP = "Only the report: no progress bar, no summary line or notes on stderr (as ruff's -q). Errors still show."


def quiet_option(func):
    """`-q/--quiet` of a run command (smoke, validate, profile, baseline): one meaning, one help text."""
    return click.option("-q", "--quiet", is_flag=True, help=RUN_QUIET_HELP)(func)


def report_options(func):
    @click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                  help="Report format: the text summary, or the result as JSON.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
                  help="Write the report to FILE instead of stdout (with --format json the text summary still shows).")
    @click.option("--json", "json_legacy", type=click.Path(dir_okay=False, allow_dash=True),
                  help="Deprecated: --format json -o FILE.")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class ReportTarget:
    json: str | None  # where the JSON result goes ("-": stdout), or None
    text: str | None  # where the text summary goes ("-": stdout), or None

    def render(self, render, result) -> None:
        """Hand `result` to `render(result, console)` for the text target, if any."""
        from migrate.report.terminal import make_console

        if self.text == "-":
            render(result, make_console())
        elif self.text:
            try:
                with open(self.text, "w", encoding="utf-8") as handle:
                    render(result, make_console(file=handle))
            except OSError as exc:
                raise click.ClickException(f"cannot write the report to {self.text}: {exc.strerror or exc}") from None


def report_target(fmt: str, output: str | None, json_legacy: str | None) -> ReportTarget:
    if json_legacy:
        click.echo(DEPRECATED_JSON, err=True)  # stderr: a JSON document on stdout stays parseable
        if fmt != "text" or output:
            raise click.UsageError("--json FILE is --format json -o FILE: give one or the other")
        fmt, output = "json", json_legacy
    if fmt == "json":
        json_path = output or "-"
        return ReportTarget(json_path, None if json_path == "-" else "-")
    return ReportTarget(None, output or "-")
