"""Reporters for `npu-migrate profile`: terminal table (rich), JSON, one-page Markdown summary."""
from __future__ import annotations

import os

from checks.profile import cost
from migrate.report import plural


def _loc(f, base: str | None = None) -> str:
    path = f.path
    if base:
        try:
            rel = os.path.relpath(path, base)
            path = rel if not rel.startswith("..") else path
        except ValueError:
            pass
    return f"{path}:{f.line}"


def render(result, console=None) -> None:
    from rich.table import Table

    from migrate.report.terminal import escape, make_console

    console = console or make_console()
    if result.note:
        console.print(f"[yellow]{result.note}[/yellow]")
    base = os.getcwd()
    if result.findings:
        table = Table(title=f"profile: {escape(result.script)} ({result.steps} measured steps)")
        columns = [("#", "right"), ("kind", "left"), ("where", "left"), ("per step", "right"),
                   ("est. ms/step", "right"), ("severity", "left"), ("what", "left")]
        if result.ranks:
            columns.insert(3, ("ranks", "left"))
        for name, justify in columns:
            table.add_column(name, justify=justify, overflow="fold")
        for i, f in enumerate(result.findings, 1):
            row = [str(i), f.kind, escape(_loc(f, base)), f"{f.per_step:g}", f"{f.cost_ms:.2f}", f.severity,
                   escape(f.what or "")]
            if result.ranks:
                row.insert(3, _ranks(f))
            table.add_row(*row)
        console.print(table)
        for i, f in enumerate(result.findings, 1):
            console.print(f"  {i}. {escape(_loc(f, base))}: {escape(f.message)}\n     [dim]-> {escape(f.advice)}[/dim]",
                          highlight=False)
    elif _measured(result):
        console.print(f"profile: no performance finding in {result.steps} measured steps", highlight=False)
    facts = [("backend", result.backend + (f" (torch_npu {result.torch_npu_version})" if result.torch_npu_version else "")),
             ("steps", f"{result.steps} measured of {result.steps_run} run (step 1 includes the set-up)"),
             ("step time", f"{result.step_time_ms:.1f} ms median" if result.step_time_ms else "-")]
    if _measured(result):
        for key, value in facts:
            console.print(f"  {key:12} {value}", highlight=False)
    if result.ranks:
        _render_ranks(result, console)
    if result.trace:
        _render_trace(result.trace, console)
    if result.cannot_see:
        console.print("  [dim]emulation cannot see: " + "; ".join(result.cannot_see) + "[/dim]", highlight=False)
    # rank reasons quote the script's errors (gloo's "[.../pair.cc:561]"): escaped as all user text

    for w in result.warnings:
        console.print(f"  [yellow]warning:[/yellow] {escape(w)}", highlight=False)
    for r in result.reasons:
        console.print(f"  [red]reason:[/red] {escape(r)}", highlight=False)
    if result.summary_path:
        console.print(f"  summary: {escape(result.summary_path)}", highlight=False)
    verdict = {0: "[green]profile: OK[/green]", 1: f"[red]profile: {plural(result.failing, 'finding')} at or above --fail-on[/red]",
               2: "[magenta]profile: could not run[/magenta]"}.get(result.exit_code, "[yellow]profile: INTERRUPTED[/yellow]")
    console.print(verdict + f" (exit {result.exit_code})", highlight=False)


def _measured(result) -> bool:
    """Something was measured: a finished run, or an interrupted one after its first measured step."""
    return result.exit_code in (0, 1) or (result.verdict == "interrupted" and result.steps > 0)


def _ranks(f) -> str:
    return ",".join(str(r) for r in f.detail.get("ranks", ()))


def _rank_rows(result):
    """(rank, exit, measured steps, median ms, findings, summary) per rank of a distributed profile."""
    for r in result.ranks:
        yield (str(r.rank), str(r.exit_code), str(r.steps), f"{r.step_time_ms:.1f}" if r.step_time_ms else "-",
               str(len(r.findings)), r.summary_path or "; ".join(r.reasons))


def _render_ranks(result, console) -> None:
    job = result.job or {}
    console.print(f"  job          smoke {job.get('verdict')}" + (f", {job['replicas']}" if job.get("replicas") else ""),
                  highlight=False)
    for rank, _code, steps, ms, n, where in _rank_rows(result):
        console.print(f"  rank {rank:<7} {steps} measured, {ms} ms median, {n} finding(s): {where}", highlight=False)


def _render_trace(trace: dict, console) -> None:
    for folder in trace.get("folders", ()):
        console.print(f"  trace        {folder}", highlight=False)
    for a in trace.get("advisor", ()):
        links = ", ".join(a.get("html", []) + a.get("xlsx", [])) or "no report file"
        console.print(f"  advisor      exit {a.get('exit_code')}: {links}", highlight=False)
        if a.get("tail"):
            console.print(a["tail"], highlight=False, markup=False)


def write_summary(result, path: str) -> str:
    """One page of Markdown: what ran, the ranked findings, what emulation cannot see."""
    lines = [f"# npu-migrate profile: `{os.path.basename(result.script)}`", ""]
    if result.verdict == "interrupted":  # the reason says by which signal and after how many steps
        lines += [f"**Interrupted**: {result.reasons[0] if result.reasons else 'by a signal'}. What follows is what "
                  "the steps before it measured.", ""]
    if result.note:
        lines += [f"**{result.note}**", ""]
    lines += [f"- script: `{result.script}`",
              f"- backend: {result.backend}" + (f" (torch_npu {result.torch_npu_version})" if result.torch_npu_version else ""),
              f"- steps: {result.steps} measured of {result.steps_run} run (step 1 includes the set-up and is not measured)",
              f"- median step time: {result.step_time_ms:.1f} ms" if result.step_time_ms else "- median step time: -",
              f"- exit code: {result.exit_code}" + (f" (--fail-on {','.join(result.fail_on)}: {result.failing} failing)"
                                                    if result.fail_on else ""), ""]
    if result.ranks:
        job = result.job or {}
        lines += ["## Ranks", "", f"Job (distributed smoke): {job.get('verdict')}"
                  + (f"; {job['replicas']}" if job.get("replicas") else "")
                  + "".join(f"; {r}" for r in job.get("reasons", ())), "",
                  "| rank | exit | measured steps | median ms/step | findings | summary |", "|---|---|---|---|---|---|"]
        lines += [f"| {' | '.join(row)} |" for row in _rank_rows(result)]
        lines += ["", "Findings below are merged across ranks (the costliest rank's numbers; `ranks` lists "
                  "the ranks that showed each one). The median step time is the slowest rank's.", ""]
    if result.findings:
        ranks = bool(result.ranks)
        lines += ["| # | kind | where |" + (" ranks |" if ranks else "") + " per step | est. ms/step | severity | finding | advice |",
                  "|---|---|---|" + ("---|" if ranks else "") + "---|---|---|---|---|"]
        for i, f in enumerate(result.findings, 1):
            cell = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {i} | {f.kind} | `{_loc(f)}` |" + (f" {_ranks(f)} |" if ranks else "")
                         + f" {f.per_step:g} | {f.cost_ms:.2f} | {f.severity} | "
                         f"{cell(f.message)} | {cell(f.advice)} |")
        lines.append("")
        lines += [("Estimated ms/step ranks the findings: measured CPU times and DataLoader waits plus fixed "
                  f"assumptions (host sync {cost.SYNC_STALL_MS} ms, operator compile {cost.OP_COMPILE_MS} ms, "
                  f"kernel launch {cost.OP_LAUNCH_MS} ms); they are not NPU measurements."), ""]
    elif _measured(result):
        lines += ["No performance finding.", ""]
    if result.trace:
        lines += ["## Ascend profiler", ""]
        for folder in result.trace.get("folders", ()):
            lines.append(f"- trace: [{os.path.basename(folder)}]({folder})")
        for a in result.trace.get("advisor", ()):
            for link in a.get("html", []) + a.get("xlsx", []):
                lines.append(f"- msprof-analyze advisor: [{os.path.basename(link)}]({link})")
        lines.append("")
    if result.cannot_see:
        lines += ["## What emulation cannot see", ""] + [f"- {x}" for x in result.cannot_see] + [""]
    if result.warnings or result.reasons:
        lines += ["## Warnings", ""] + [f"- {w}" for w in (*result.reasons, *result.warnings)] + [""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    from migrate.report.html_page import render  # summary.html beside it: the same page, rendered

    with open(os.path.splitext(path)[0] + ".html", "w", encoding="utf-8") as f:
        f.write(render("\n".join(lines), title=f"npu-migrate profile: {os.path.basename(result.script)}"))
    return path
