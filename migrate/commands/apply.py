"""`npu-migrate apply` and `npu-migrate instrument`: thin click layer over `migrate.rewrite`.

Never prompts; refuses (exit 2) rather than overwrite an input or an existing output by surprise.
Exit 0 when everything was rewritten (info-level notes may remain), 1 when warning/error manual items remain
(or --smoke failed), 2 on bad input.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import click

from migrate.codemods.config_check_hooks import DEFAULT_GPU_PACK, DEFAULT_NPU_PACK
from migrate.report import plural

STDIN = "-"


def _err(message: str) -> None:
    click.echo(message, err=True)


class CannotWrite(click.ClickException):
    """An output that cannot or must not be written: exit 2 ("could not run"), no traceback."""

    exit_code = 2


@contextlib.contextmanager
def _writing(path: str):
    """Turn a failed write (read-only, parent is a file, disk full ...) into one line and exit 2."""
    from migrate.rewrite.tree import UnsafeOutput

    try:
        yield
    except UnsafeOutput as exc:
        raise CannotWrite(str(exc)) from None
    except OSError as exc:
        raise CannotWrite(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None


def _check_report_path(report_path: str | None, paths, in_place: bool) -> None:
    """The report is an output too: never one of the inputs, never inside an input folder (unless
    the inputs are being rewritten in place anyway)."""
    from migrate.rewrite.tree import is_inside

    if not report_path:
        return
    for path in paths:
        if path == STDIN:
            continue
        if os.path.isdir(path):
            if not in_place and is_inside(report_path, path):
                raise click.UsageError(f"the report {report_path} must not be inside the input {path}")
        elif os.path.exists(report_path) and os.path.samefile(report_path, path):
            raise click.UsageError(f"the report {report_path} is the input {path}")


def _options(torch_npu_version, entry, no_transfer, no_config_check, config_pack, config_path, paths):
    from migrate import knowledge
    from migrate.config import ConfigError, load_config
    from migrate.rewrite import ApplyOptions

    try:
        config = load_config([p for p in paths if p != STDIN], config_path)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    version = torch_npu_version or config.torch_npu_version
    try:
        knowledge.resolve_version(version)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--torch-npu-version") from None
    return ApplyOptions(torch_npu_version=version, entry_globs=tuple(entry), transfer=not no_transfer,
                        config_check=not no_config_check, config_pack=config_pack, config=config)


def _git_dirty(paths: list[str]) -> str | None:
    """None when every path is in a clean git work tree; otherwise why not."""
    for path in paths:
        directory = path if os.path.isdir(path) else (os.path.dirname(os.path.abspath(path)) or ".")
        try:
            top = subprocess.run(["git", "-C", directory, "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return "git is not available"
        if top.returncode != 0:
            return f"{path} is not in a git work tree"
        status = subprocess.run(["git", "-C", top.stdout.strip(), "status", "--porcelain", "--", os.path.abspath(path)],
                                capture_output=True, text=True, timeout=120)
        if status.returncode != 0:
            return f"git status failed for {path}: {status.stderr.strip()}"
        if status.stdout.strip():
            return f"{path} has uncommitted changes:\n{status.stdout.rstrip()}"
    return None


# file errors after which `apply FILE -o OUT` writes nothing: syntax error, undecodable, unreadable
_NOT_WRITTEN = ("NPU901", "NPU902", "NPU903")


def _summary(result, *, verb: str = "changed", outputs: dict | None = None, quiet: bool = False) -> None:
    """outputs: input path -> the file written for it (-o), so that every line names the file the user
    opens next, at its line there (the codemods add lines). quiet (-q): only the manual items left."""
    outputs = outputs or {}
    manual = result.manual
    if not quiet:
        _overview(result, verb, outputs)
    if manual:
        _err(f"{plural(len(manual), 'manual item')} left (not rewritten):")
        by_path = {f.path: f for f in result.files}
        for m in manual:
            path, line, also = m.path, m.line, ""
            written = by_path.get(m.path)
            if m.path in outputs and m.cell is None and written is not None and written.read:
                from migrate.rewrite.linemap import output_line

                path, line = outputs[m.path], output_line(written.original, written.output, m.line)
                also = f" (input {m.path}:{m.line})"
            where = path if m.cell is None else f"{path}[cell {m.cell}]"
            _err(f"  {where}:{line}: {m.code} [{m.severity}] {m.message}{also}")
    elif not quiet:
        _err("no manual items left")


def _overview(result, verb: str, outputs: dict) -> None:
    """What apply did: the count line, what each file got added, the entry/library roles, what it skipped."""
    changed = result.changed
    counts = result.counts()
    _err(f"apply: {len(changed)} of {plural(len(result.files), 'file')} {verb}, {plural(sum(counts.values()), 'rewrite')}"
         + (" (" + ", ".join(f"{code} x{n}" for code, n in counts.items()) + ")" if counts else ""))
    for f in result.files:
        for added in f.structural:
            _err(f"  {outputs.get(f.path, f.path)}: added {added}")
    _roles(result)
    for note in result.skipped:
        _err(f"  skipped {note}")


_LISTED_LIBRARIES = 20


def _roles(result) -> None:
    """Each file apply had to place imports in: entry script or library module, and why."""
    entries = [f for f in result.files if f.role == "entry"]
    libraries = [f for f in result.files if f.role == "library"]
    for f in entries:
        _err(f"  {f.path}: entry script ({f.role_reason})")
    if len(libraries) <= _LISTED_LIBRARIES:
        for f in libraries:
            _err(f"  {f.path}: library module ({f.role_reason})")
    else:
        _err(f"  {len(libraries)} library modules (no `__main__` guard, module-level training, `fire.Fire` or click "
             "command); --report FILE lists each with its reason")


def _run_smoke(scripts: list[str], steps: int, torch_npu_version, fake_data: bool = False, quiet: bool = False) -> int:
    try:
        from checks.smoke.run import run_smoke
    except ImportError as exc:
        _err(f"--smoke: the smoke runner is not available ({exc})")
        return 2
    status = 0
    for script in scripts:
        if not quiet:
            _err(f"smoke: {script} ({steps} steps)")
        outcome = run_smoke(script, steps=steps, torch_npu_version=torch_npu_version, fake_data=fake_data,
                            script_args=click.get_current_context().meta.get(SCRIPT_ARGS, ()))
        code = getattr(outcome, "exit_code", 2)
        from rich.console import Console

        from checks.smoke.run import render

        render(outcome, Console(stderr=True))  # the full verdict, incl. "emulated: no Ascend NPU found"
        status = max(status, code)
    return status


SCRIPT_ARGS = "npu_migrate.apply.script_args"


class _SmokeArgsCommand(click.Command):
    """`apply PATH -o OUT --smoke -- ARGS`: what follows `--` goes to the script --smoke runs (as for
    `npu-migrate smoke SCRIPT -- ARGS`), not to PATHS."""

    def parse_args(self, ctx, args):
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta[SCRIPT_ARGS] = args[:cut], tuple(args[cut + 1:])
        return super().parse_args(ctx, args)


@click.command(cls=_SmokeArgsCommand)
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", help="Output file (for a FILE) or directory (for a DIR; the whole tree is copied).")
@click.option("--diff", is_flag=True, help="Print a unified diff and write nothing.")
@click.option("--in-place", is_flag=True, help="Rewrite the inputs themselves (only in a clean git work tree, or with --backup).")
@click.option("--backup", is_flag=True, help="With --in-place: keep each changed file's original as FILE.orig.")
@click.option("--force", is_flag=True, help="Overwrite an existing output; with --backup, go ahead although FILE.orig exists (it is kept).")
@click.option("--torch-npu-version", help="Target torch_npu release (default: the installed one, else the newest known).")
@click.option("--entry", multiple=True, metavar="GLOB", help="Treat matching files as entry scripts (repeatable).")
@click.option("--no-transfer", is_flag=True, help="Do not add `from torch_npu.contrib import transfer_to_npu` to entry scripts.")
@click.option("--no-config-check", is_flag=True, help="Do not add the msprobe ConfigChecker hooks to entry scripts.")
@click.option("--config-pack", default=DEFAULT_NPU_PACK, show_default=True, help="Zip the ConfigChecker hook writes.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), help="Write the change list to FILE.json or FILE.csv.")
@click.option("--smoke", is_flag=True, help="After writing, run the migrated entry script(s) for a few steps.")
@click.option("--steps", default=5, show_default=True, type=click.IntRange(min=1), help="Steps for --smoke.")
@click.option("--fake-data", is_flag=True, help="With --smoke: synthetic torchvision datasets, no weight downloads, no network.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="pyproject.toml to read [tool.npu-migrate] from.")
@click.option("--stdin-filename", default="<stdin>.py", show_default=True, help="Name (and kind) of '-' input.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes for a directory (default: all cores).")
@click.option("-q", "--quiet", is_flag=True, help="Only what is left by hand: the manual items and errors on stderr (no count, "
              "added, role or `wrote` lines; as ruff's -q). The exit status is the same.")
def apply(paths, output, diff, in_place, backup, force, torch_npu_version, entry, no_transfer, no_config_check,
          config_pack, report_path, smoke, steps, fake_data, config_path, stdin_filename, jobs, quiet):
    """Rewrite CUDA training code for Ascend NPUs: `apply FILE -o OUT`, `apply DIR -o OUTDIR`,
    `apply PATH --diff`, `apply PATH --in-place`, `apply - < in.py > out.py`.

    With --smoke, arguments after `--` go to the script it runs.
    """
    from migrate import fileio, rewrite

    if click.get_current_context().meta.get(SCRIPT_ARGS) and not smoke:
        raise click.UsageError("arguments after `--` go to the script --smoke runs: add --smoke")

    modes = sum(bool(x) for x in (output, diff, in_place))
    if modes > 1:
        raise click.UsageError("choose one of -o/--output, --diff and --in-place")
    if STDIN in paths and len(paths) > 1:
        raise click.UsageError("'-' (stdin) cannot be combined with other paths")
    if backup and not in_place:
        raise click.UsageError("--backup goes with --in-place")
    if modes == 0 and STDIN not in paths:
        raise click.UsageError("say where the result goes: -o OUT, --diff or --in-place")
    if output and len(paths) != 1:
        raise click.UsageError("-o takes exactly one input (a file or a directory)")
    if in_place and STDIN in paths:
        raise click.UsageError("--in-place needs files, not stdin")
    for path in paths:
        if path != STDIN and not os.path.exists(path):
            raise click.BadParameter(f"{path}: no such file or directory", param_hint="PATHS")
    options = _options(torch_npu_version, entry, no_transfer, no_config_check, config_pack, config_path, paths)
    _check_report_path(report_path, paths, in_place)

    if STDIN in paths:
        from migrate.sources import classify

        data = sys.stdin.buffer.read()
        one = rewrite.rewrite_file(stdin_filename, data, kinds=classify(stdin_filename) or ("python",), options=options)
        result = rewrite.ApplyResult((one,), (), rewrite.resolve_options(options)[1])
        if diff:
            sys.stdout.write(rewrite.unified_diff(one, f"a/{stdin_filename}", f"b/{stdin_filename}"))
        elif output:
            _check_output_file(output, None, force)
            with _writing(output):
                fileio.atomic_write(output, one.output, make_parents=True)
        else:
            sys.stdout.buffer.write(one.output)
            sys.stdout.flush()
        return _finish(result, report_path, smoke=False, scripts=[], steps=steps, options=options, fake_data=fake_data, quiet=quiet,
                       outputs={one.path: output} if output and not diff else None)

    from migrate.rewrite.tree import is_inside

    directories = [p for p in paths if os.path.isdir(p)]
    if directories and output:
        root = paths[0]
        if is_inside(output, root) or is_inside(root, output):
            raise click.UsageError(f"the output {output} must not be inside the input {root} (or contain it)")
        if os.path.exists(output) and not (os.path.isdir(output) and not os.listdir(output)) and not force:
            raise click.UsageError(f"{output} exists; use --force to write into it")
        if os.path.exists(output) and not os.path.isdir(output):
            raise click.UsageError(f"{output} exists and is not a directory")
        result = rewrite.plan_tree(root, options, jobs=jobs)
        with _writing(output):
            rewrite.write_tree(result, root, output)
        scripts = [os.path.join(output, os.path.relpath(f.path, root)) for f in result.changed if f.entry and f.kind == "python"]
        outputs = {f.path: os.path.join(output, os.path.relpath(f.path, root)) for f in result.files}
        return _finish(result, report_path, smoke=smoke, scripts=scripts, steps=steps, options=options, fake_data=fake_data, quiet=quiet,
                       outputs=outputs)

    result = _plan_paths(paths, options, jobs)
    if diff:
        for f in result.changed:
            name = f.path.replace(os.sep, "/")
            sys.stdout.write(rewrite.unified_diff(f, f"a/{name}", f"b/{name}"))
        return _finish(result, report_path, smoke=False, scripts=[], steps=steps, options=options, fake_data=fake_data, quiet=quiet)
    if in_place:
        changed = result.changed
        if not backup:
            reason = _git_dirty(list(paths))
            if reason:
                raise click.UsageError(f"--in-place needs a clean git work tree or --backup: {reason}")
        for f in changed:
            if backup and os.path.lexists(f.path + ".orig") and not force:
                raise click.UsageError(f"{f.path}.orig exists; use --force to go ahead (it is kept, never overwritten)")
        for f in changed:
            mode = os.stat(f.path).st_mode
            backup_path = f.path + ".orig"
            with _writing(f.path):
                if backup and os.path.lexists(backup_path):
                    _err(f"  kept the existing {backup_path} (a backup is never overwritten)")
                elif backup:
                    fileio.atomic_write(backup_path, f.original, mode=mode)
                fileio.atomic_write(f.path, f.output, mode=mode)
        scripts = [f.path for f in changed if f.entry and f.kind == "python"]
        return _finish(result, report_path, smoke=smoke, scripts=scripts, steps=steps, options=options, fake_data=fake_data, quiet=quiet)
    # a single file with -o
    source = paths[0]
    target = output
    if output.endswith(("/", os.sep)) or os.path.isdir(output):
        target = os.path.join(output, os.path.basename(source))
    _check_output_file(target, source, force)
    one = result.files[0]
    if one.error is not None and one.error.code in _NOT_WRITTEN:
        # a single file that does not parse or read: an unchanged copy would only look like a migration
        _err(f"apply: {target} not written: {source} could not be rewritten ({one.error.code} {one.error.message})")
    else:
        with _writing(target):
            if one.read:
                fileio.atomic_write(target, one.output, mode=os.stat(source).st_mode, make_parents=True)
            elif one.error is not None and one.error.code == "NPU905":
                fileio.atomic_copy(source, target)  # over the size limit: copied unchanged
        if not quiet:
            _err(f"apply: wrote {target}" + ("" if one.changed else " (unchanged copy: nothing to rewrite)"))
    scripts = [target] if one.kind == "python" else []
    written = one.error is None or one.error.code not in _NOT_WRITTEN
    return _finish(result, report_path, smoke=smoke, scripts=scripts, steps=steps, options=options, fake_data=fake_data, quiet=quiet,
                   outputs={one.path: target} if written else None)


def _plan_paths(paths, options, jobs):
    from migrate import rewrite

    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            from migrate.config import Config
            from migrate.engine import discover

            targets, _ = discover([path], options.config or Config())
            files += [t.path for t in targets]
        else:
            files.append(path)
    return rewrite.plan_files(files, options, jobs=jobs)


def _check_output_file(target: str, source: str | None, force: bool) -> None:
    if source is not None and os.path.exists(target) and os.path.samefile(target, source):
        raise click.UsageError(f"the output {target} is the input; use --in-place to rewrite it")
    if os.path.isdir(target):
        raise click.UsageError(f"{target} is a directory")
    if os.path.lexists(target) and not force:
        raise click.UsageError(f"{target} exists; use --force to overwrite it")


def _finish(result, report_path, *, smoke, scripts, steps, options, fake_data=False, outputs=None, quiet=False) -> None:
    if report_path:
        from migrate import fileio
        from migrate.report import changes

        with _writing(report_path):
            fileio.atomic_write(report_path, changes.render(result, report_path), make_parents=True)
    _summary(result, outputs=outputs, quiet=quiet)
    # exit 1 when something that matters is left by hand; info-only items (e.g. cudnn flags that
    # have no effect on an NPU) and optional ones (behind a default-off option) are listed but do not fail the run
    status = 1 if any(m.severity != "info" and not m.optional for m in result.manual) else 0
    if any(f.error is not None for f in result.files) and len(result.files) == 1:
        status = 2  # the one file asked for could not be read or parsed
    if smoke:
        if not scripts:
            _err("--smoke: no rewritten entry script to run")
        else:
            smoke_status = _run_smoke(scripts, steps, options.torch_npu_version, fake_data, quiet)
            status = max(status, 1 if smoke_status == 1 else smoke_status)
    sys.exit(status)


@click.command()
@click.argument("path")
@click.option("-o", "--output", help="Where to write the instrumented copy ('-' or no -o: stdout).")
@click.option("--config-pack", default=DEFAULT_GPU_PACK, show_default=True, help="Zip the ConfigChecker hook writes.")
@click.option("--diff", is_flag=True, help="Print a unified diff and write nothing.")
@click.option("--force", is_flag=True, help="Overwrite an existing output.")
def instrument(path, output, config_pack, diff, force):
    """Add only the msprobe ConfigChecker hooks to a GPU script (the baseline side of a comparison):
    `instrument gpu_train.py -o gpu_train_cc.py`. Exit 1 when the model could not be found."""
    from migrate import fileio, rewrite

    if path == STDIN:
        data = sys.stdin.buffer.read()
        name = "<stdin>.py"
    else:
        if not os.path.isfile(path):
            raise click.BadParameter(f"{path}: no such file", param_hint="PATH")
        with open(path, "rb") as handle:
            data = handle.read()
        name = path
    try:
        new, outcome = rewrite.instrument_file(name, data, zip_path=config_pack)
    except fileio.ReadError as exc:
        raise click.UsageError(f"{name}: cannot decode: {exc}") from None
    _err(f"instrument: {outcome.message}")
    if outcome.message.startswith("cannot parse"):
        sys.exit(2)
    if diff:
        sys.stdout.write(rewrite.unified_diff(rewrite.FileRewrite(name, "python", data, new), f"a/{name}", f"b/{name}"))
    elif output and output != STDIN:
        _check_output_file(output, path if path != STDIN else None, force)
        with _writing(output):
            fileio.atomic_write(output, new, mode=os.stat(path).st_mode if path != STDIN else None, make_parents=True)
    else:
        sys.stdout.buffer.write(new)
        sys.stdout.flush()
    sys.exit(0 if outcome.model_found else 1)
