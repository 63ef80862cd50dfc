"""Temporary instrumented copies of the two scripts, so `validate` never edits the user's files.

Each copy lives in its own temporary folder, under the same file name for both runs (msprobe's
random check matches call stacks by file name), next to symlinks to every sibling of the original
script, so sibling imports, `__file__`-relative paths and data folders behave as in the original.
When a folder above the script marks a project root (`.git`, `pyproject.toml`, `.project-root`, ...),
the copy sits at the same depth below a mirror of that root, whose every level links its entries, so
`Path(__file__).parents[1] / "configs"`, `@hydra.main(config_path="../configs")` and root finders
(pyrootutils, rootutils) see the project as they do from the original.
Two things are added to the copy:
- msprobe's ConfigChecker hooks, through `migrate.rewrite.instrument_source` (what `npu-migrate
  instrument` does), writing the pack to a zip in the output folder; a script hooked already (the
  output of `apply`) keeps its own hooks, pointed at that zip, without loading libcst; the hooks of a
  script instrumented before by the same code come from the cache (checks/validate/instrument_cache.py),
  without loading libcst either;
- one line running `checks/validate/child.py` (the API dump hook, active only when the parent asks),
  placed after the docstring and `__future__` imports.
A line map (copy line -> original line) turns stack frames of the copy back into the user's lines.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from checks import module_file
from migrate.fileio import parse_python

CHILD_HOOK = Path(module_file("checks.validate.child")).resolve()
HOOK_MARK = "# npu-migrate validate: API dump hook"
MAX_SIBLINGS = 2000
# What root finders look for (pyrootutils/rootutils' default indicators, plus requirements.txt), and how
# far above the script's folder the mirror may reach.
ROOT_MARKERS = (".project-root", ".git", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")
MAX_ROOT_LEVELS = 4
APPLY_HELPER = "_npu_config_check"  # migrate/codemods/config_check_hooks.py HELPER (not imported: libcst is slow to load)


@dataclass(frozen=True)
class InstrumentedCopy:
    original: Path
    copy: Path
    zip_path: Path
    line_map: tuple[int, ...]  # index: copy line - 1 -> original line number
    config_check: bool  # the ConfigChecker hooks are in place with a model
    message: str


def hook_line() -> str:
    return f"__import__(\"runpy\").run_path({str(CHILD_HOOK)!r})  {HOOK_MARK}\n"


def header_end(source: str) -> int:
    """Number of lines to keep before an inserted statement: docstring, `__future__` imports,
    and a leading shebang / encoding comment."""
    lines = source.splitlines(True)
    end = 0
    for index, line in enumerate(lines[:2]):
        if line.startswith("#!") or ("coding" in line and line.lstrip().startswith("#")):
            end = index + 1
    tree = parse_python(source)
    if tree is None:
        return end
    for node in tree.body:
        is_doc = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) and node is tree.body[0]
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (is_doc or is_future):
            break
        end = max(end, node.end_lineno or node.lineno)
    return end


def insert_hook(source: str) -> str:
    if HOOK_MARK in source:
        return source
    lines = source.splitlines(True)
    at = header_end(source)
    if at and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    lines.insert(at, hook_line())
    return "".join(lines)


def line_map(original: str, copy: str) -> tuple[int, ...]:
    """For every line of `copy`, the line of `original` it came from (inserted lines: the line before)."""
    a, b = original.splitlines(), copy.splitlines()
    mapping = [0] * len(b)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for offset, j in enumerate(range(j1, j2)):
            if tag == "equal":
                mapping[j] = i1 + offset + 1
            elif tag == "replace" and i1 + offset < i2:
                mapping[j] = i1 + offset + 1
            else:
                mapping[j] = max(i1, 1)
    return tuple(mapping)


def make_copy(script: Path, workdir: Path, name: str, zip_path: Path) -> InstrumentedCopy:
    """Write the instrumented copy of `script` as `workdir/name` and link its siblings."""
    from migrate.codemods.config_check_presence import ALREADY_PRESENT, hooks_present

    script = Path(script).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    original = script.read_text(encoding="utf-8-sig")
    if hooks_present(original):
        # hooked already (`apply`, `instrument`): the codemod would leave it as it is, so libcst (about 0.4 s of
        # CPU to import, in every validate of a migrated script) is not loaded for it
        text, model_found, message = original, True, ALREADY_PRESENT
    else:
        from checks.validate.instrument_cache import instrumented

        text, model_found, message = instrumented(original, str(zip_path))
    if text == original and "ConfigChecker" in original:
        # the script carries its own hooks (`npu-migrate instrument`): point its pack at our folder
        text = retarget_zip(text, str(zip_path))
    text = insert_hook(text)
    copy = copy_path(script, workdir, name)
    home = copy.parent
    home.mkdir(parents=True, exist_ok=True)
    # siblings first, then the copy atomically: a run may already wait for the copy to appear
    _link_levels_above(script.parent, project_root(script.parent), workdir)
    _link_siblings(script, home, name)
    partial = home / f".{name}.partial"
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, copy)
    return InstrumentedCopy(script, copy, Path(zip_path), line_map(original, text), model_found, message)


def retarget_zip(source: str, zip_path: str) -> str:
    """Set `output_zip_path` of every `ConfigChecker(...)` call, and the pack path of every call of the
    helper that `apply` generates (`_npu_config_check(model, "npu_config_check/...rank{rank}.zip")`,
    migrate/codemods/config_check_hooks.py), to `zip_path` (same lines)."""
    tree = parse_python(source)
    if tree is None:
        return source
    lines = source.splitlines(True)
    edits = []  # (line index, start byte, end byte, text)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name == APPLY_HELPER:
            value = node.args[1] if len(node.args) >= 2 else next((k.value for k in node.keywords if k.arg == "zip_path"), None)
            if value is not None and value.lineno == value.end_lineno:
                edits.append((value.lineno - 1, value.col_offset, value.end_col_offset, repr(zip_path)))
            continue
        if name != "ConfigChecker":
            continue
        value = next((k.value for k in node.keywords if k.arg == "output_zip_path"), None)
        if value is None and len(node.args) >= 3:
            value = node.args[2]
        if value is not None and value.lineno == value.end_lineno:
            edits.append((value.lineno - 1, value.col_offset, value.end_col_offset, repr(zip_path)))
        elif value is None and node.end_lineno:
            # insert before the closing parenthesis
            edits.append((node.end_lineno - 1, node.end_col_offset - 1, node.end_col_offset - 1,
                          (", " if node.args or node.keywords else "") + f"output_zip_path={zip_path!r}"))
    for index, start, end, text in sorted(edits, reverse=True):
        raw = lines[index].encode("utf-8")
        lines[index] = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
    return "".join(lines)


def _link_siblings(script: Path, workdir: Path, name: str) -> None:
    _link_entries(script.parent, workdir, skip={name, script.name})


def copy_path(script: Path, workdir: Path, name: str) -> Path:
    """Where make_copy writes the copy of `script` (its folder's place below the project root)."""
    folder = Path(script).resolve().parent
    return workdir / folder.relative_to(project_root(folder)) / name


def project_root(folder: Path) -> Path:
    """The nearest folder at or above `folder` (at most MAX_ROOT_LEVELS up) holding a ROOT_MARKERS
    entry; `folder` itself when there is none."""
    for candidate in [folder, *folder.parents][:MAX_ROOT_LEVELS + 1]:
        if any(os.path.lexists(candidate / marker) for marker in ROOT_MARKERS):
            return candidate
    return folder


def _link_levels_above(folder: Path, root: Path, workdir: Path) -> None:
    """Below `workdir`, one real folder per level from `root` down to `folder`'s parent level, each
    linking every entry of the original level but the folder the path goes on through."""
    level, mirror = root, workdir
    for part in folder.relative_to(root).parts:
        _link_entries(level, mirror, skip={part})
        level, mirror = level / part, mirror / part


def _link_entries(source: Path, target: Path, skip: set[str]) -> None:
    try:
        entries = sorted(os.scandir(source), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries[:MAX_SIBLINGS]:
        if entry.name in skip or entry.name == "__pycache__":
            continue
        link = target / entry.name
        if not os.path.lexists(link):
            try:
                link.symlink_to(entry.path, target_is_directory=entry.is_dir())
            except OSError:
                pass


def run_folders(baseline: Path, migrated: Path, cwd: Path) -> dict[str, Path | None]:
    """The working folder each run starts in, so that relative paths (in the arguments, in the code, a
    relative PYTHONPATH entry such as `.`) resolve as in the user's own run and in smoke.

    A script at or below the user's working folder (`python projects/adder/adder.py` from the project
    root) runs there. The migrated script runs in the folder at the same place above it when its folders
    repeat the original's (`apply . -o OUT`: OUT/projects/adder/adder.py runs in OUT), else in the
    user's working folder too when it is below it. None: the script's own folder (a script outside
    the working folder, as before)."""
    baseline, migrated, cwd = Path(baseline).parent, Path(migrated).parent, Path(cwd)
    if not baseline.is_relative_to(cwd):
        return {"baseline": None, "migrated": None}
    depth = len(baseline.relative_to(cwd).parts)
    if depth == 0 or migrated.parts[-depth:] == baseline.parts[-depth:]:
        folder = migrated.parents[depth - 1] if depth else migrated
    else:
        folder = cwd if migrated.is_relative_to(cwd) else None
    return {"baseline": cwd, "migrated": folder}


def user_text(text: str, copy: InstrumentedCopy) -> str:
    """Point `copy:line` (and bare copy paths) in an error text at the user's file and line."""
    copied = str(copy.copy)

    def repl(m: re.Match) -> str:
        line = int(m.group(1))
        original = copy.line_map[line - 1] if 0 < line <= len(copy.line_map) else line
        return f"{copy.original}:{original}"

    text = re.sub(re.escape(copied) + r":(\d+)", repl, text)
    text = re.sub(r'File "' + re.escape(copied) + r'", line (\d+)',
                  lambda m: f'File "{copy.original}", line {repl(m).rsplit(":", 1)[1]}', text)
    text = text.replace(copied, str(copy.original))
    # the copy's siblings are symlinks to the original's (checks/validate/copies.py): `COPY_DIR/utils.py:45` is
    # the user's own utils.py, line for line
    return text.replace(str(copy.copy.parent) + os.sep, str(copy.original.parent) + os.sep)

