"""Output of `validate`: terminal text, summary.md / summary.html in the output folder, validate.json."""

from __future__ import annotations

import math
import os
from pathlib import Path


def _steps(dump_steps) -> str:
    """msprobe's dump steps (0-based folders) as the 1-based steps of the loss table."""
    return ", ".join(str(s + 1) for s in dump_steps)


XLSX_HINT = "msprobe's table: --xlsx"  # the text report's config_check line when result.xlsx was not written


def _rel(result, path) -> str:
    if path is None:
        return ""
    try:
        return os.path.relpath(path, result.out_dir)
    except ValueError:
        return str(path)


def _num(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    return f"{value:.8g}"


def files_written(out: Path, also: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every file under `out` (relative), plus `also` (written last): files up to two levels deep by
    name, deeper ones as one `folder/ (N files)` entry per second-level folder."""
    out = Path(out)
    names: set[str] = set(also)
    folders: dict[str, int] = {}
    for path in out.rglob("*"):
        if not path.is_file():
            continue
        parts = path.relative_to(out).parts
        if len(parts) <= 2:
            names.add("/".join(parts))
        else:
            key = "/".join(parts[:2]) + "/"
            folders[key] = folders.get(key, 0) + 1
    return tuple(sorted(names) + [f"{key} ({n} files)" for key, n in sorted(folders.items())])


def side_label(run) -> str:
    """`cuda-emulated (emulated)`: every line about a run says whether its device was emulated."""
    emulated = run.backend in ("emulated", "cuda-emulated")
    return f"{run.backend} ({'emulated on this CPU' if emulated else 'real device' if run.backend in ('npu', 'cuda') else 'plain CPU'})"


def terminal_text(result) -> str:
    lines = [f"validate: {result.verdict.upper()} (exit {result.exit_code})"]
    for run in result.runs:
        lines.append(f"  {run.side:9s} {run.script} on {side_label(run)}: {run.verdict}, {len(run.losses)} losses")
    if result.repeat is not None:
        lines.append(f"  {result.repeat.statement()}")
    if result.equivalence:
        lines.append("  both runs on this CPU: equivalence check of the rewrite (identical losses required"
                     + (", or within the original's own spread)" if result.repeat is not None and not result.repeat.deterministic else ")"))
    if result.config_check is not None:
        cc = result.config_check
        if cc.error:
            lines.append(f"  config_check: not compared: {cc.error}")
        else:
            lines.append("  config_check: " + ", ".join(f"{i.name} {i.status}" for i in cc.items) + f"  ({cc.result_xlsx or XLSX_HINT})")
            if cc.not_compared:
                lines.append(f"    not compared: {cc.not_compared_text()}")
            for item in cc.items:
                if item.status != "pass":
                    for detail in item.details[:3]:
                        lines.append(f"    {item.name}: {detail}")
    if result.losses is not None and result.losses.rows:
        al = result.losses
        state = "identical" if al.identical else ("within tolerance" if al.aligned else f"diverge at step {al.first_divergence_step}")
        lines.append(f"  losses: {state}; max abs {al.max_abs_err:.3g}, max rel {al.max_rel_err:.3g} (rtol {al.rtol:g}, atol {al.atol:g})")
    if result.api is not None:
        if result.api.error:
            lines.append(f"  API dump compare: {result.api.error}")
        elif result.api.first is None:
            lines.append(f"  API dump compare: no API differs beyond tolerance in step(s) {_steps(result.dump_steps)}")
        else:
            first = result.api.first
            lines.append(f"  first diverging API: {first.api} (step {first.step + 1}): {first.message}")
            for frame in first.stack:
                lines.append(f"    at {frame}")
    for reason in result.reasons:
        lines.append(f"  - {reason}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    if result.plot_note:
        lines.append(f"  note: {result.plot_note}")
    if result.summary_md:
        lines.append(f"  summary: {result.summary_md}")
    if result.files:
        lines.append(f"  files written in {result.out_dir}: " + ", ".join(result.files))
    return "\n".join(lines)


def markdown(result) -> str:
    out = [f"# npu-migrate validate: {result.verdict.upper()} (exit {result.exit_code})", ""]
    if result.equivalence:
        base = result.run("baseline")
        original = "the CPU-backed CUDA twin" if base is not None and base.backend == "cuda-emulated" else "plain CPU, CUDA hidden"
        out += [f"Both runs used this machine's CPU (original: {original}; migrated: the CPU-backed torch_npu stand-in).",
                "This is an **equivalence check of the rewrite**: a correct migration gives identical losses.", ""]
    out += ["## Verdict", ""] + [f"- {r}" for r in result.reasons] + [""]
    if result.repeat is not None:
        out += ["## Does the original repeat itself?", "", result.repeat.statement() + ".", "",
                "Per-step losses of every run of the original and their spread: [baseline_runs.csv](baseline_runs.csv)", ""]
    if result.runs:
        out += ["## Runs", "", "| side | script | backend | smoke verdict | steps with a loss | loss dtype |", "|---|---|---|---|---|---|"]
        for run in result.runs:
            out.append(f"| {run.side} | `{run.script}` | {side_label(run)} | {run.verdict} | {len(run.losses)} | {run.loss_dtype or '-'} |")
        out.append("")
    cc = result.config_check
    if cc is not None:
        out += ["## Config check (msprobe config_check)", ""]
        if cc.error:
            out += [f"Not compared: {cc.error}", ""]
        else:
            full = (f"[{_rel(result, cc.result_xlsx)}]({_rel(result, cc.result_xlsx)})" if cc.result_xlsx is not None
                    else "not written (`validate --xlsx` writes msprobe's table to config_check/result.xlsx)")
            out += [f"Full result: {full}", "", "| item | result | differences |", "|---|---|---|"]
            for item in cc.items:
                out.append(f"| {item.name} | {item.status} | {'<br>'.join(item.details) or '-'} |")
            out.append("")
            if cc.not_compared:
                out += [f"Not compared: {cc.not_compared_text()}", ""]
    al = result.losses
    if al is not None and al.rows:
        out += ["## Losses", "", f"Tolerance: rtol {al.rtol:g}, atol {al.atol:g} ({al.tolerance_note}).",
                f"Max abs error {al.max_abs_err:.3g}, max rel error {al.max_rel_err:.3g}; "
                + ("identical." if al.identical else "within tolerance." if al.aligned else f"first divergence at step {al.first_divergence_step}."), ""]
        if result.loss_plot:
            out += [f"![losses]({_rel(result, result.loss_plot)})", ""]
        elif result.plot_note:
            out += [f"(no plot: {result.plot_note})", ""]
        if result.loss_csv:
            out += [f"Per-step values: [{_rel(result, result.loss_csv)}]({_rel(result, result.loss_csv)})", ""]
        out += ["| step | baseline | migrated | abs err | rel err | ok |", "|---|---|---|---|---|---|"]
        rows = al.rows if len(al.rows) <= 30 else al.rows[:30]
        for r in rows:
            out.append(f"| {r.step} | {_num(r.baseline)} | {_num(r.migrated)} | {_num(r.abs_err)} | {_num(r.rel_err)} | {'yes' if r.within else '**no**'} |")
        if len(al.rows) > 30:
            out.append(f"| ... | {len(al.rows) - 30} more rows in the CSV | | | | |")
        out.append("")
    api = result.api
    if api is not None:
        out += ["## API dump compare (msprobe statistics dump + msprobe compare)", "",
                f"Dumped steps: {_steps(result.dump_steps)}; dumps under `dump/baseline` and `dump/migrated` "
                f"(msprobe names its folders from 0: step {result.dump_steps[0] + 1 if result.dump_steps else 1} is "
                f"`step{result.dump_steps[0] if result.dump_steps else 0}`).", ""]
        if api.error:
            out += [f"Not compared: {api.error}", ""]
        elif api.first is None:
            out += ["No API output differs beyond the tolerance in the dumped steps.", ""]
        else:
            first = api.first
            out += [f"First diverging API: **{first.api}** in step {first.step + 1} (`{first.entry}`): {first.message}", ""]
            if first.stack:
                out += ["Call stack in your script (outermost first):", "", "```"] + list(first.stack) + ["```", ""]
        for path in api.csvs:
            out.append(f"- [{_rel(result, path)}]({_rel(result, path)})")
        out.append("")
    if result.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    if result.files:
        out += ["## Files written", ""] + [f"- `{name}`" for name in result.files] + [""]
    return "\n".join(out)


def write_summary(result) -> tuple[Path, Path]:
    md = markdown(result)
    md_path = Path(result.out_dir) / "summary.md"
    md_path.write_text(md, encoding="utf-8")
    html_path = Path(result.out_dir) / "summary.html"
    html_path.write_text(_html(md, result), encoding="utf-8")
    return md_path, html_path


def _html(md: str, result) -> str:
    """summary.md as an HTML page, the loss plot embedded (migrate/report/html_page.py)."""
    from migrate.report.html_page import render

    images = {}
    if result.loss_plot and Path(result.loss_plot).is_file():
        images[_rel(result, result.loss_plot)] = Path(result.loss_plot).read_bytes()
    return render(md, title=f"npu-migrate validate: {result.verdict.upper()}", images=images)


def to_json(result) -> dict:
    def item(i):
        return {"name": i.name, "status": i.status, "details": list(i.details), "first_step": i.first_step}

    cc = result.config_check
    api = result.api
    return {
        "verdict": result.verdict,
        "exit_code": result.exit_code,
        "equivalence_check": result.equivalence,
        "reasons": list(result.reasons),
        "notes": list(result.notes),
        "files": list(result.files),
        "baseline_runs": result.baseline_runs,
        "repeat": None if result.repeat is None else {
            "deterministic": result.repeat.deterministic, "extra_runs": result.repeat.extra_runs,
            "seconds": round(result.repeat.seconds, 3), "max_spread": result.repeat.largest[0],
            "max_spread_step": result.repeat.largest[1], "causes": list(result.repeat.causes),
            "spread": list(result.repeat.spread), "statement": result.repeat.statement()},
        "runs": [{"side": r.side, "script": str(r.script), "backend": r.backend, "exit_code": r.exit_code,
                  "emulated": r.backend in ("emulated", "cuda-emulated"), "autocast": r.autocast,
                  "verdict": r.verdict, "steps": r.steps, "losses": list(r.losses), "loss_dtype": r.loss_dtype, "reasons": list(r.reasons)}
                 for r in result.runs],
        "losses": None if result.losses is None else {
            "rtol": result.losses.rtol, "atol": result.losses.atol, "first_divergence": result.losses.first_divergence_step,
            "identical": result.losses.identical, "max_abs_err": result.losses.max_abs_err,
            "max_rel_err": result.losses.max_rel_err, "csv": _rel(result, result.loss_csv), "plot": _rel(result, result.loss_plot)},
        "config_check": None if cc is None else {
            "error": cc.error, "result_xlsx": None if cc.result_xlsx is None else _rel(result, cc.result_xlsx),
            "items": [item(i) for i in cc.items],
            "not_compared": list(cc.not_compared)},
        "api_compare": None if api is None else {
            "error": api.error, "dump_steps": [s + 1 for s in result.dump_steps], "csvs": [_rel(result, p) for p in api.csvs],
            "first": None if api.first is None else {
                "step": api.first.step + 1, "dump_folder": f"step{api.first.step}", "api": api.first.api, "kind": api.first.kind, "entry": api.first.entry,
                "message": api.first.message, "inputs_differ": api.first.inputs_differ, "stack": list(api.first.stack),
                "max_abs_diff": api.first.max_abs_diff}},
    }
