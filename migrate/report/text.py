"""flake8-compatible lines `path:line:col: CODE message`, then a summary and the verdict."""

from __future__ import annotations

import re

from migrate.report import location, plural
from migrate.verdict import summary

_CELL_ERROR = re.compile(r"^cell \d+: ")  # migrate/engine.py: the error of one notebook cell


def _unscanned(result) -> tuple[set[str], list[str]]:
    """(files that could not be scanned, the notebook path of each cell that could not be parsed): a cell that does
    not parse is one error of its notebook (`cell N: ...`), whose other cells are scanned."""
    whole = {e.path for e in result.errors if not _CELL_ERROR.match(e.message)}
    return whole, [e.path for e in result.errors if _CELL_ERROR.match(e.message)]


_PYTHON_2 = "(looks like Python 2 code)"  # migrate/engine.py: a syntax error of a file with Python 2 statements


def _unjudged(result) -> str:
    """"1 file could not be scanned and is not judged; 5 notebook cells in 3 files could not be parsed and are not
    judged"; a file whose syntax error is Python 2 code is said as such ("2 files are Python 2 code and are not
    judged": set 22's partly-Python-2 repositories)."""
    whole, cells = _unscanned(result)
    python2 = {e.path for e in result.errors if e.path in whole and _PYTHON_2 in e.message}
    other = whole - python2
    parts = [f"{plural(len(python2), 'file')} {'is' if len(python2) == 1 else 'are'} Python 2 code and "
             f"{'is' if len(python2) == 1 else 'are'} not judged"] if python2 else []
    if other:
        parts.append(f"{plural(len(other), 'file')} could not be scanned and {'is' if len(other) == 1 else 'are'} not judged")
    if cells:
        parts.append(f"{plural(len(cells), 'notebook cell')} in {plural(len(set(cells)), 'file')} could not be parsed "
                     f"and {'is' if len(cells) == 1 else 'are'} not judged")
    return "; ".join(parts)


def report(result, stream, *, verdict, rules, show_summary: bool = True) -> None:
    for error in result.errors:
        stream.write(f"{error.path}:{error.line}:{error.column}: {error.code} {error.message}\n")
    for f in result.findings:
        fix = " [fixable]" if f.fixable else ""
        stream.write(f"{location(f)}: {f.code} {f.message}{fix}\n")
    if not show_summary:
        return
    s = summary(result)
    stream.write("\n")
    stream.write(
        f"Scanned {plural(s['files_scanned'], 'file')} ({plural(s['lines'], 'line')}) in {s['duration_s']:.2f}s"
        f" against torch_npu {s['torch_npu_version']}"
        + (f", {s['files_from_cache']} from cache" if s["files_from_cache"] else "")
        + "\n"
    )
    whole, cells = _unscanned(result)
    if whole:
        stream.write(f"Files that could not be scanned: {len(whole)}\n")
    if cells:
        stream.write(f"Notebook cells that could not be parsed: {len(cells)} (in {plural(len(set(cells)), 'file')})\n")
    if s["findings"]:
        sev = ", ".join(f"{n} {k}" for k, n in s["by_severity"].items())
        cat = ", ".join(f"{k} {n}" for k, n in s["by_category"].items())
        fixable = sum(1 for f in result.findings if f.fixable)
        stream.write(f"Findings: {s['findings']} ({sev}); by category: {cat}; {fixable} fixable by `apply`\n")
        c = s["coverage"]
        if verdict is not None:  # `check` runs on migrated code, where "0% rewritten by apply" only confuses
            stream.write(
                f"Migration coverage: {plural(c['constructs'], 'construct')}, {c['rewritten_by_apply']} rewritten by `apply`"
                f" ({c['automatic_share']:.0%}), {c['manual']} manual\n"
            )
        if s["use_sites"]:
            groups = "; ".join(
                f"{p}: {g['uses']} use{'s' if g['uses'] != 1 else ''} in {g['files']} file{'s' if g['files'] != 1 else ''}"
                for p, g in s["use_sites"].items()
            )
            stream.write(f"GPU-only packages used: {groups}\n")
        for row in s["kernels_to_port"][:20]:
            sources = ", ".join(row["sources"][:5]) + (f" and {len(row['sources']) - 5} more" if len(row["sources"]) > 5 else "")
            wrapped = row["wrapper_calls"]
            through = (f"; {plural(len(wrapped), 'more line')} call it through a wrapper of the repository ({', '.join(wrapped[:3])}"
                       f"{f' and {len(wrapped) - 3} more' if len(wrapped) > 3 else ''}: they run once it is ported)") if wrapped else ""
            stream.write(f"Kernel to port: {row['extension']} (built at {row['built_at']}; CUDA sources: {sources or 'none found under it'});"
                         f" {plural(row['uses'], 'line')} import or call it{through}\n")
    else:
        stream.write("Findings: none\n")
    if s["suppressed"]:
        stream.write(f"Suppressed by noqa: {s['suppressed']}\n")
    if verdict is None:  # `check` judges against --fail-on, not migration feasibility
        return
    unjudged = f" ({_unjudged(result)})" if s["errors"] and s["files_scanned"] else ""
    unknown = s["unknown_dependencies"]
    if unknown:
        names = ", ".join(list(unknown)[:15]) + (f" and {len(unknown) - 15} more" if len(unknown) > 15 else "")
        unjudged += f"; {plural(len(unknown), 'dependency', 'dependencies')} npu-migrate does not know: verify they run on Ascend ({names})"
    stream.write(f"Verdict: {verdict.status}{unjudged}\n")
    for name, where in list(unknown.items())[:30]:
        stream.write(f"  unknown dependency {name}: imported or declared at {', '.join(where[:3])}{' and %d more' % (len(where) - 3) if len(where) > 3 else ''}\n")
    for f in verdict.blockers[:20]:
        stream.write(f"  blocker {location(f)}: {f.code} {f.message}\n")
    if len(verdict.blockers) > 20:
        stream.write(f"  ... and {len(verdict.blockers) - 20} more blockers\n")
