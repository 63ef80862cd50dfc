"""Command-line entry point. Thin: parses options, calls the engine, hands results to a reporter.

Subcommands live in their own modules and are imported only when invoked, so `--version` and
`--help` stay fast (nothing heavy, and never torch, is imported at start-up).
"""

from __future__ import annotations

import importlib

import click

from migrate import __version__

# name -> "module:attribute" of a click command
COMMANDS = {
    "analyze": ("migrate.commands.analyze:analyze", "Inventory CUDA-specific code, missing NPU ops and GPU-only dependencies."),
    "check": ("migrate.commands.check:check", "CI gate: fail when findings at or above --fail-on remain."),
    "apply": ("migrate.commands.apply:apply", "Rewrite a script or a repo for Ascend NPUs (format-preserving)."),
    "instrument": ("migrate.commands.apply:instrument", "Add only the msprobe ConfigChecker hooks (baseline side)."),
    "smoke": ("migrate.commands.smoke:smoke", "Run N real training steps on the NPU or the CPU-backed stand-in."),
    "validate": ("migrate.commands.validate:validate", "Compare the migrated run against the GPU original."),
    "baseline": ("migrate.commands.baseline:baseline", "Record the original's run on the GPU host as a bundle for validate --baseline."),
    "profile": ("migrate.commands.profile:profile", "Performance pitfalls per training step, at your own lines (NPU or emulated)."),
    "kb": ("migrate.commands.kb:kb", "Look things up in the torch_npu knowledge base."),
    "rules": ("migrate.commands.rules:rules", "List the finding codes, or print their docs as Markdown."),
    "rule": ("migrate.commands.rules:rule", "Explain one finding code (what it means, severity, fix, example)."),
    "doctor": ("migrate.commands.doctor:doctor", "Is this machine ready to train on Ascend? (--explain LOG: what an error means)"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module_name, attr = entry[0].split(":")
        return getattr(importlib.import_module(module_name), attr)

    def format_commands(self, ctx, formatter):
        rows = [(name, help_text) for name, (_, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="npu-migrate")
def cli():
    """npu-migrate: move PyTorch training code from CUDA GPUs to Ascend NPUs, and prove it trains.

    Exit codes: 0 clean / passed, 1 findings or failed verdict, 2 could not run, 128+N ended by
    signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: every process the command started is ended first).
    `--debug` (anywhere before `--`) shows the traceback of an internal error.
    """


def main(argv: list[str] | None = None) -> int:
    import sys

    from migrate.guard import crash_exit, exit_status, signals_interrupt, split_debug

    argv, debug = split_debug(list(sys.argv[1:] if argv is None else argv))
    try:
        from migrate.fileio import no_cycle_collection

        # the collector off for the whole command: a scan's results are many small objects without cycles, and each
        # collection walked them all (torch's warm re-run: ~0.4 s of 1.5 s CPU); they move to the oldest generation after
        with signals_interrupt(), no_cycle_collection(freeze=True):  # SIGTERM/SIGHUP end a command as Ctrl-C does (migrate/guard.py)
            cli.main(args=argv, prog_name="npu-migrate", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return 2
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        # click turns KeyboardInterrupt (and Interrupted, migrate/guard.py) into Abort; by now the
        # command's processes are gone and its temp files removed (checks/launch/process.py)
        interrupt = exc if isinstance(exc, KeyboardInterrupt) else exc.__cause__
        if not isinstance(interrupt, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            return 2
        click.echo(f"npu-migrate: interrupted by {interrupt or 'SIGINT'}", err=True)
        return exit_status(interrupt)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException as exc:  # noqa: BLE001 - the top-level guard: a crash is exit 2, never 1
        return crash_exit(exc, debug)
    return 0
