"""msprobe (mindstudio-probe) behind two small functions: compare two ConfigChecker packs, and compare
two API-level statistics dumps to name the first diverging API.

The parent never imports msprobe, pandas or torch: each comparison runs this file as a child script
(`python checks/validate/msprobe_bridge.py config-compare|api-compare ...`) that calls msprobe's Python API and
prints one JSON object. msprobe's own log goes to a log file in the output folder. The config_check
comparison of a validate is first asked of the migrated training run itself (`compare_in_run`, after its
report: that process has imported msprobe and pandas for its ConfigChecker hooks); the child script is the
fallback (distributed ranks, a run that ended otherwise or failed to compare) and gives the same outputs.

Facts relied on (mindstudio-probe 26.2.0):
- `ConfigChecker.compare(bench_zip, cmp_zip, out)` builds one pandas table per item and hands the list
  [(summary, "summary"), (df, "env"), ...] to `save_excel`, a name of its own module
  (msprobe/core/config_check/config_checker.py), which writes `out/result.xlsx`: sheet `summary`
  (columns filename, pass_check: pass / warning / error) and one sheet per item (env, pip, dataset,
  weights, random, hyperparameter when present), a table longer than `CompareConst.MAX_EXCEL_LENGTH` rows
  cut into sheets `<item>_part_<i>`. It is what `msprobe config_check -c` runs. We summarise the tables
  as compare hands them over (`_config_compare`) and write the workbook only when asked (`validate --xlsx`).
- `PrecisionDebugger` statistics dumps are `DUMP/stepN/procPID/{dump.json,stack.json}`;
  `pt_compare({"npu_path", "bench_path"}, out, suffix=...)` (what `msprobe compare -tp -gp` runs)
  writes `out/compare_result{suffix}_TIMESTAMP.csv`, one row per input/output tensor or scalar, in
  call order, with `Max diff`, `Min diff`, `Mean diff`, `L2norm diff`, the bench statistics, `Result`
  and `Err_message`.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

CONFIG_ITEMS = ("env", "pip", "dataset", "weights", "random", "hyperparameter")
MAX_DETAILS = 6


# --------------------------------------------------------------------------- config_check


@dataclass(frozen=True)
class ConfigItem:
    name: str
    status: str  # pass / warning / error, as msprobe writes it
    details: tuple[str, ...] = ()  # the differing entries, shortest first-hand form
    first_step: int | None = None  # dataset / weights: the first step that differs
    # dataset / weights: each differing row as (step, name, relative differences of max, min, mean, norm)
    differing: tuple[tuple, ...] = ()


# Why an item msprobe knows can be missing from a pack (msprobe skips an item absent from either pack
# and says nothing: BaseChecker.compare_ex returns None). dataset, weights and random are packed by a
# pre-forward hook on the model (checkers/{dataset,weights,random}_checker.py:
# register_pre_forward_fun_list); hyperparameters only when ConfigChecker is given `shell_path`
# (checkers/hyperparameter_checker.py pack), which the generated hook does not pass.
_WHY_ABSENT = {
    "dataset": "packed at the hooked model's first forward, which did not run in at least one of the two runs (or the hook could not collect it: the pack's .log says why)",
    "weights": "packed at the hooked model's first forward, which did not run in at least one of the two runs (or the hook could not collect it: the pack's .log says why)",
    "random": "packed at the hooked model's first forward, which did not run in at least one of the two runs (or the hook could not collect it: the pack's .log says why)",
    "hyperparameters": "packed only when ConfigChecker is given the launch script (shell_path)",
}


@dataclass(frozen=True)
class ConfigCheckResult:
    result_xlsx: Path | None
    items: tuple[ConfigItem, ...]
    log: Path | None = None
    error: str | None = None
    known: tuple[str, ...] = ()  # the items msprobe's ConfigChecker can compare (its registered checkers)

    def item(self, name: str) -> ConfigItem | None:
        return next((i for i in self.items if i.name == name), None)

    @property
    def failed(self) -> tuple[ConfigItem, ...]:
        return tuple(i for i in self.items if i.status == "error")

    @property
    def not_compared(self) -> tuple[str, ...]:
        compared = {i.name for i in self.items}
        return tuple(name for name in self.known if name not in compared)

    def statement(self) -> str:
        """What config_check compared and what it could not: never a bare "pass"."""
        if self.error is not None:
            return f"config_check not compared ({self.error})"
        shown = ", ".join(i.name if i.status == "pass" else f"{i.name} ({i.status})" for i in self.items)
        text = f"config_check compared {shown or 'nothing'}"
        return f"{text}; not compared: {self.not_compared_text()}" if self.not_compared else text

    def not_compared_text(self) -> str:
        """The items msprobe knows but did not compare, grouped by why they are missing."""
        why: dict[str, list[str]] = {}
        for name in self.not_compared:
            why.setdefault(_WHY_ABSENT.get(name, "absent from a pack"), []).append(name)
        return "; ".join(f"{', '.join(names)} ({reason})" for reason, names in why.items())


class WarmChild:
    """An msprobe child started ahead of time: it imports msprobe (seconds) while the training runs
    go, then waits on stdin for the one command it will run. `validate` starts it before the runs."""

    def __init__(self):
        env = dict(os.environ)
        env.setdefault("PYTHONWARNINGS", "ignore")
        try:
            self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        except OSError:
            self.proc = None

    def take(self):
        proc, self.proc = self.proc, None
        return proc

    def close(self) -> None:
        proc = self.take()
        if proc is not None:
            proc.kill()
            proc.communicate()


def compare_config_packs(bench_zip: Path, cmp_zip: Path, out_dir: Path, *, timeout: float = 300,
                         warm: WarmChild | None = None, in_run: Path | None = None, xlsx: bool = False) -> ConfigCheckResult:
    """Run msprobe's config_check comparison of two packs and summarise its tables; xlsx: msprobe also writes
    them to `out_dir/result.xlsx` (`result_xlsx`, None otherwise).

    in_run: the file where the migrated training run left this same comparison (`in_run_spec`, done in that
    process after its report, where msprobe and pandas are imported already); used when it holds these packs
    and this folder, else (no file: the run ended otherwise, failed there, had no msprobe) the comparison runs
    in an msprobe child of our own, `warm` or a fresh one, as it always did: one comparison, the same outputs."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "msprobe.log"
    for zip_path in (bench_zip, cmp_zip):
        if not Path(zip_path).is_file():
            return ConfigCheckResult(None, (), None, f"no config_check pack at {zip_path} (the model was not found or the run stopped before its first forward)")
    payload = _in_run_payload(in_run, bench_zip, cmp_zip, out_dir, xlsx) if in_run is not None else None
    if payload is None:
        if in_run is not None:  # what a comparison that failed in the run may have left: ours starts clean
            shutil.rmtree(out_dir, ignore_errors=True)
            out_dir.mkdir(parents=True, exist_ok=True)
        payload, error = _run_child(["config-compare", str(bench_zip), str(cmp_zip), str(out_dir), *([XLSX_ARG] if xlsx else [])],
                                    log, timeout, warm=warm.take() if warm is not None else None)
        if error:
            return ConfigCheckResult(None, (), log, error)
    items = tuple(
        ConfigItem(d["name"], d["status"], tuple(d["details"]), d.get("first_step"),
                   tuple(tuple(r) for r in d.get("differing", ()))) for d in payload["items"]
    )
    written = Path(payload["result_xlsx"]) if payload.get("result_xlsx") else None
    return ConfigCheckResult(written, items, log, None, tuple(payload.get("known", ())))


IN_RUN_ENV = "NPU_VALIDATE_CONFIG_COMPARE"  # read by checks/validate/child.py in the migrated run
IN_RUN_HEADER = "npu-migrate validate: msprobe config_check compare, run in the migrated training process"
XLSX_ARG = "--xlsx"  # the child's config-compare: msprobe writes result.xlsx too
_ASKED = ("bench", "cmp", "out", "xlsx")


def in_run_spec(bench_zip: Path, cmp_zip: Path, out_dir: Path, result: Path, *, xlsx: bool = False) -> dict[str, str]:
    """The environment entry that asks the migrated run for the comparison `compare_config_packs(bench_zip,
    cmp_zip, out_dir, in_run=result, xlsx=xlsx)` will look for."""
    return {IN_RUN_ENV: json.dumps({"bench": str(bench_zip), "cmp": str(cmp_zip), "out": str(out_dir), "xlsx": bool(xlsx),
                                    "result": str(result)})}


def _in_run_payload(result: Path, bench_zip: Path, cmp_zip: Path, out_dir: Path, xlsx: bool) -> dict | None:
    try:
        done = json.loads(Path(result).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    asked = {"bench": str(bench_zip), "cmp": str(cmp_zip), "out": str(out_dir), "xlsx": bool(xlsx)}
    if not isinstance(done, dict) or {k: done.get(k) for k in asked} != asked or not isinstance(done.get("payload"), dict):
        return None
    return done["payload"]


def compare_in_run(spec: str) -> None:
    """Training-process side (checks/validate/child.py registers it to run after the run's report is written):
    the comparison `_child_main` runs, here, when this process has msprobe's config_check imported (the
    ConfigChecker hooks) and both packs exist. msprobe's prints go to the log at the file-descriptor level,
    never to the run's output; the payload is written whole to spec's `result` only when it succeeded."""
    asked = json.loads(spec)
    if "msprobe.core.config_check" not in sys.modules or not all(os.path.isfile(asked[k]) for k in ("bench", "cmp")):
        return
    os.makedirs(asked["out"], exist_ok=True)
    payload = None
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = os.dup(1), os.dup(2)
    try:
        with open(os.path.join(asked["out"], "msprobe.log"), "w", encoding="utf-8") as log:
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            try:
                print(IN_RUN_HEADER, flush=True)
                payload = _config_compare(asked["bench"], asked["cmp"], asked["out"], xlsx=bool(asked.get("xlsx")))
            except Exception:  # noqa: BLE001 - the parent compares in its own msprobe child instead
                import traceback

                traceback.print_exc()
            finally:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    if payload is not None:
        part = asked["result"] + ".part"
        Path(part).write_text(json.dumps({**{k: asked.get(k, False) for k in _ASKED}, "payload": payload}), encoding="utf-8")
        os.replace(part, asked["result"])


def _config_compare(bench_zip: str, cmp_zip: str, out_dir: str, *, xlsx: bool = False) -> dict:
    """msprobe's config_check comparison (what `msprobe config_check -c` runs) and our summary of its tables,
    taken from compare as it hands them to `save_excel`; that writes result.xlsx only when `xlsx` asks for it
    (importing openpyxl, writing the workbook and reading it back cost more than the comparison)."""
    from msprobe.core.config_check import ConfigChecker

    module = sys.modules[ConfigChecker.__module__]
    write_excel = getattr(module, "save_excel", None)
    result_xlsx = os.path.join(out_dir, ConfigChecker.result_filename)
    if write_excel is None:  # an msprobe that no longer writes through this name: its workbook, read back
        ConfigChecker.compare(bench_zip, cmp_zip, out_dir)
        payload = _summarise_config_result(result_xlsx)
    else:
        tables: list = []

        def keep_tables(path, data):
            tables.extend(data)
            if xlsx:
                write_excel(path, data)

        module.save_excel = keep_tables
        try:
            ConfigChecker.compare(bench_zip, cmp_zip, out_dir)
        finally:
            module.save_excel = write_excel
        payload = _summarise_sheets(_as_read_back(tables), packs=(bench_zip, cmp_zip))
        payload["result_xlsx"] = str(Path(result_xlsx).resolve()) if xlsx else None
    payload["known"] = [c.target_name_in_zip for c in ConfigChecker.checkers.values() if c.target_name_in_zip]
    return payload


def _summarise_config_result(result_xlsx: str) -> dict:
    """Child side: read a result.xlsx msprobe wrote (pandas + openpyxl come with msprobe) and summarise it.
    The env sheet is read as text with nothing taken for missing: an empty value ("" set, e.g.
    CUDA_VISIBLE_DEVICES="") is not msprobe's "None" default. A table msprobe cut into `<name>_part_<i>`
    sheets is joined again."""
    import pandas as pd

    sheets = pd.read_excel(result_xlsx, sheet_name=None)
    env = [name for name in sheets if _sheet_part(name)[0] == "env"]
    if env:
        sheets.update(pd.read_excel(result_xlsx, sheet_name=env, keep_default_na=False, dtype=str))
    rows: dict[str, list[dict]] = {}
    for name in sorted(sheets, key=_sheet_part):
        rows.setdefault(_sheet_part(name)[0], []).extend(sheets[name].to_dict("records"))
    return {**_summarise_sheets(rows), "result_xlsx": str(Path(result_xlsx).resolve())}


def _sheet_part(sheet: str) -> tuple[str, int]:
    """(the table, the part): msprobe's save_excel names the parts of a long table `<name>_part_<i>`."""
    match = re.fullmatch(r"(.+)_part_(\d+)", sheet)
    return (match.group(1), int(match.group(2))) if match else (sheet, -1)


def _as_read_back(tables: list) -> dict[str, list[dict]]:
    """msprobe's (table, sheet name) list as rows, each cell as reading result.xlsx back gave it: the env
    sheet as text ("" for a missing or empty value, a whole float without its ".0", as openpyxl reads it),
    other sheets with None and "" (an empty cell) as NaN; numpy scalars as Python's. A table msprobe would
    cut into `<name>_part_<i>` sheets stays whole. Read back, pandas also typed whole columns (a column of
    version strings such as "1.10" came back as the float 1.1) and parsed floats with its fast, not
    round-trip, parser (a relative difference could come back a unit in the last place off): here the
    values stay msprobe's."""
    return {name: [{key: _cell(value, text=name == "env") for key, value in row.items()} for row in df.to_dict("records")]
            for df, name in tables}


def _cell(value, *, text: bool):
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalar
        value = value.item()
    missing = value is None or (isinstance(value, str) and not value) or (isinstance(value, float) and math.isnan(value))
    if not text:
        return math.nan if missing else value
    if missing:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _summarise_sheets(sheets: dict[str, list[dict]], packs: tuple[str, str] | None = None) -> dict:
    """The items of msprobe's summary table, each with what its own table says (rows as dicts); with `packs`
    (the bench and cmp pack zips), the relative differences msprobe leaves undefined are read from them
    (_ZeroStatistics)."""
    zeros = _ZeroStatistics(*packs) if packs else None
    items = []
    for row in sheets.get("summary", ()):
        name, status = str(row["filename"]), str(row["pass_check"])
        rows = sheets.get(name)
        if name == "random" and rows is not None:
            rows, paired = _pair_random_calls(rows)
            if paired and status == "error" and not any(not _passed(r) for r in rows):
                status = "pass"  # every call msprobe could not pair is the same call reached through other internals
        details, first_step = _item_details(name, rows) if rows is not None else ([], None)
        if name == "random" and rows is not None and paired:
            details = [*details, f"{paired} call(s) paired by their last frame: the same call reached through other "
                                 "library internals (msprobe pairs whole stacks of equal length only)"]
        differing = _differing_rows(name, rows, zeros) if rows is not None else []
        items.append({"name": name, "status": status, "details": details, "first_step": first_step,
                      "differing": differing})
    return {"items": items}


def _passed(row: dict) -> bool:
    return row["check_result"] is True or str(row["check_result"]) == "True"


def _pair_random_calls(rows: list[dict]) -> tuple[list[dict], int]:
    """msprobe's random rows with the calls it could not pair taken out where they pair by their last frame.

    msprobe 26.2.0 pairs a random call of one run with one of the other when their stacks have the same length and
    every frame scores >= 0.8 (file name, function, code: random_checker.stack_match). Across hosts the frames above
    the call can differ in number: another torch or torchvision, another Python (runpy's own frames), so the same
    call (torchvision's FakeData drawing `torch.randn` in __getitem__, seen between an H200 host with Python 3.12 /
    torch 2.11 and this one) is reported as called N times in one run and 0 in the other. Such an unpaired baseline
    row and an unpaired migrated row of the same op, with the same count, whose last frames match by msprobe's own
    frame score, are the same call: both rows are dropped and counted. Returns (rows kept, pairs)."""
    try:
        from msprobe.core.config_check.checkers.random_checker import stack_match
    except ImportError:
        return rows, 0

    def last(stack) -> list[str]:
        lines = [line for line in str(stack).splitlines() if line.strip()]
        return lines[-1:]

    only_bench = [r for r in rows if not _passed(r) and str(r["cmp_stack"]) == "no match stack"]
    only_cmp = [r for r in rows if not _passed(r) and str(r["bench_stack"]) == "no match stack"]
    dropped: list[int] = []
    for b in only_bench:
        for c in only_cmp:
            if id(c) in dropped or c["op"] != b["op"] or _float(c["cmp_count"]) != _float(b["bench_count"]):
                continue
            if last(b["bench_stack"]) and stack_match(last(b["bench_stack"]), last(c["cmp_stack"])):
                dropped += [id(b), id(c)]
                break
    return [r for r in rows if id(r) not in dropped], len(dropped) // 2


def _item_details(name: str, rows: list[dict]) -> tuple[list[str], int | None]:
    if name == "env":
        # msprobe 26.2.0 fills its env table the other way round (EnvArgsChecker.compare hands the bench pack to
        # compare_env_data as its npu_path): the "cmp" columns hold the baseline's values, shown first as ours
        out = [f"{r['cmp_env_name']}={_env(r['cmp_value'])} vs {r['bench_env_name']}={_env(r['bench_value'])} ({r['level']})" for r in rows]
        return out[:MAX_DETAILS], None
    if name == "pip":
        # every package (not cut to MAX_DETAILS): across hardware each is judged by whether a run imported it (hosts.py)
        return [f"{r['package']}: baseline {_s(r['bench version'])}, migrated {_s(r['cmp version'])}" for r in rows], None
    if name in ("dataset", "weights"):
        key = "tag" if name == "dataset" else "weight_name"
        bad = [r for r in rows if r["equal"] is not True and str(r["equal"]) != "True"]
        if not bad:
            return [], None
        first_step = min(int(r["step"]) for r in bad)
        by_step: dict[int, list[str]] = {}
        for r in bad:
            by_step.setdefault(int(r["step"]), []).append(str(r[key]) + ("" if r["equal"] is False or str(r["equal"]) == "False" else f" ({r['equal']})"))
        out = []
        for step in sorted(by_step)[:MAX_DETAILS]:
            names = sorted(by_step[step])
            shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            out.append(f"msprobe pack step {step}: {len(names)} {'inputs' if name == 'dataset' else 'tensors'} differ ({shown})")
        if len(by_step) > MAX_DETAILS:
            out.append(f"... {len(by_step) - MAX_DETAILS} more steps differ")
        return out, first_step
    if name == "random":
        out = []
        for r in rows:
            if _passed(r):
                continue
            frame = _last_frame(r["cmp_stack"]) if str(r["bench_stack"]) == "no match stack" else _last_frame(r["bench_stack"])
            out.append(f"{r['op']}: called {int(r['bench_count'])}x in the baseline, {int(r['cmp_count'])}x in the migrated run at {frame}")
        return out[:MAX_DETAILS], None
    # hyperparameter and anything newer: show the rows as they are
    return [", ".join(f"{k}={_s(v)}" for k, v in r.items()) for r in rows][:MAX_DETAILS], None


def _differing_rows(name: str, rows: list[dict], zeros: _ZeroStatistics | None = None) -> list[list]:
    """dataset / weights: the rows msprobe marked unequal, with their relative differences (None when
    msprobe wrote none), for the cross-hardware judgement (checks/validate/hosts.py). msprobe writes none
    where the baseline's statistic is 0 (it divides by it): with `zeros`, such a difference is read from the
    two packs, 0.0 when both statistics are 0 (an LSTM's zero initial state, a zero bias: found on an H200,
    where every zero `min` held the dataset item as an error), inf when only the baseline's is."""
    if name not in ("dataset", "weights"):
        return []
    key = "tag" if name == "dataset" else "weight_name"
    out = []
    for r in rows:
        if r["equal"] is True or str(r["equal"]) == "True":
            continue
        diffs = [_float(r.get(f"{k}_relative_diff")) for k in ("max", "min", "mean", "norm")]
        if zeros is not None and None in diffs and (r["equal"] is False or str(r["equal"]) == "False"):
            diffs = zeros.resolve(name, r, diffs)
        out.append([int(r["step"]), str(r[key]), *diffs])
    return out


class _ZeroStatistics:
    """The statistics of one dataset/weights row in the two packs, read on demand (zip members cached)."""

    STATS = ("max", "min", "mean", "norm")

    def __init__(self, bench_zip: str, cmp_zip: str):
        self._zips = (bench_zip, cmp_zip)
        self._cache: dict[tuple[int, str | None], object] = {}  # (side, member) -> its JSON; (side, None) -> names

    def _names(self, side: int) -> list[str]:
        if (side, None) not in self._cache:
            try:
                with zipfile.ZipFile(self._zips[side]) as pack:
                    self._cache[(side, None)] = pack.namelist()
            except (OSError, zipfile.BadZipFile):
                self._cache[(side, None)] = []
        return self._cache[(side, None)]

    def _member(self, side: int, member: str) -> dict | None:
        if (side, member) not in self._cache:
            try:
                with zipfile.ZipFile(self._zips[side]) as pack:
                    self._cache[(side, member)] = json.loads(pack.read(member))
            except (OSError, KeyError, ValueError, zipfile.BadZipFile):
                self._cache[(side, member)] = None
        return self._cache[(side, member)]

    def _stats(self, side: int, name: str, row: dict) -> dict | None:
        try:
            step, rank = int(row["step"]), int(row["rank"])
        except (KeyError, TypeError, ValueError):
            return None
        folder = f"{name}/step{step}/rank{rank}/"
        if name == "dataset":
            node = self._member(side, folder + "dataset.json")
            for part in str(row["tag"]).split("."):
                node = node.get(part) if isinstance(node, dict) else None
            return node if isinstance(node, dict) else None
        members = [m for m in self._names(side) if m.startswith(folder) and m.endswith(".json")]
        for member in members:
            data = self._member(side, member)
            if isinstance(data, dict) and isinstance(data.get(str(row["weight_name"])), dict):
                return data[str(row["weight_name"])]
        return None

    def resolve(self, name: str, row: dict, diffs: list) -> list:
        bench, cmp = self._stats(0, name, row), self._stats(1, name, row)
        if bench is None or cmp is None:
            return diffs
        out = list(diffs)
        for i, stat in enumerate(self.STATS):
            a, b = bench.get(stat), cmp.get(stat)
            if out[i] is None and isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == 0:
                out[i] = 0.0 if b == 0 else math.inf
        return out


def _float(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _last_frame(stack) -> str:
    lines = [line for line in str(stack).splitlines() if line.strip()]
    return lines[-1].strip() if lines else "?"


def _env(value) -> str:
    """An environment value as msprobe compared it: "" (set, empty) shown as such, not as msprobe's "None"
    default of an unset variable (the stand-in hides GPUs with CUDA_VISIBLE_DEVICES="")."""
    return '""' if value == "" else _s(value)


def _s(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "None"
    return str(value)


# --------------------------------------------------------------------------- API dump


def write_dump_config(path: Path, dump_dir: Path, steps: list[int]) -> Path:
    """A PrecisionDebugger config: statistics of every API (level L1), only the given steps."""
    config = {
        "task": "statistics",
        "dump_path": str(dump_dir),
        "rank": [],
        "step": sorted(set(steps)),
        "level": "L1",
        "async_dump": False,
        "statistics": {"scope": [], "list": [], "data_mode": ["all"], "summary_mode": "statistics"},
    }
    Path(path).write_text(json.dumps(config, indent=1), encoding="utf-8")
    return Path(path)


@dataclass(frozen=True)
class ApiDiff:
    step: int
    api: str  # msprobe's name, e.g. Functional.dropout.0.forward
    kind: str  # "output" (first API whose output differs), "argument" (a scalar argument differs), "missing"
    entry: str  # the row, e.g. Functional.dropout.0.forward.input.1
    max_abs_diff: float | None
    rel_diff: float | None
    inputs_differ: bool  # True: its tensor inputs already differed, the cause is earlier
    message: str
    stack: tuple[str, ...] = ()  # frames in the user's script, outermost first: "path:line in func: code"
    # its scalar arguments as the baseline's dump recorded them (dumped_arguments): ("10", 0.1), ("training", True)
    arguments: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class ApiCompareResult:
    csvs: tuple[Path, ...]
    first: ApiDiff | None
    compared_rows: int
    log: Path | None = None
    error: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    first_dtype: ApiDiff | None = None  # the first API whose tensor dtype differs between the runs


def step_dump_file(dump_dir: Path, step: int, name: str = "dump.json") -> Path | None:
    step_dir = Path(dump_dir) / f"step{step}"
    if not step_dir.is_dir():
        return None
    found = sorted(step_dir.glob(f"*/{name}"))
    return found[0] if found else None


def compare_dumps(
    bench_dump: Path,
    cmp_dump: Path,
    out_dir: Path,
    steps: list[int],
    *,
    rtol: float,
    atol: float,
    user_files: dict[str, tuple[str, list[int]]] | None = None,
    timeout: float = 600,
) -> ApiCompareResult:
    """Run msprobe's compare on each dumped step and name the first API that diverges.

    `user_files` maps the path of a temporary script copy to (original path, line map) so that
    stack frames point at the user's own file and line.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "msprobe_compare.log"
    pairs, notes = [], []
    for step in sorted(set(steps)):
        bench_file, cmp_file = step_dump_file(bench_dump, step), step_dump_file(cmp_dump, step)
        if bench_file is None or cmp_file is None:
            notes.append(f"step {step + 1} (msprobe folder step{step}): no dump on the {'baseline' if bench_file is None else 'migrated'} side")
            continue
        pairs.append((step, str(cmp_file), str(bench_file)))
    if not pairs:
        return ApiCompareResult((), None, 0, None, "no step was dumped on both sides", tuple(notes))
    payload, error = _run_child(["api-compare", str(out_dir), json.dumps(pairs)], log, timeout)
    if error:
        return ApiCompareResult((), None, 0, log, error, tuple(notes))
    csvs = tuple(Path(p) for _, p in payload["csvs"])
    first, total, first_dtype = None, 0, None
    for step, csv_path in payload["csvs"]:
        rows = read_compare_csv(Path(csv_path))
        total += len(rows)
        first_dtype = first_dtype or first_dtype_difference(rows, step)
        stacks = (step_dump_file(cmp_dump, step, "stack.json"), step_dump_file(bench_dump, step, "stack.json"))
        first = first_divergence(rows, step, rtol=rtol, atol=atol, skip=pack_entries(stacks[0]) | pack_entries(stacks[1]))
        if first is not None:
            stack_file = stacks[0] or stacks[1]
            frames = user_frames(stack_file, first.api, user_files or {}) if stack_file else ()
            first = ApiDiff(**{**first.__dict__, "stack": frames,
                               "arguments": dumped_call_arguments(step_dump_file(bench_dump, step), first.api)})
            break
    return ApiCompareResult(csvs, first, total, log, None, tuple(notes), first_dtype)


def dumped_arguments(entry) -> dict[str, object]:
    """The scalar arguments of one msprobe dump entry (dump.json: input_args, input_kwargs), by position ("0", "1",
    ...) and keyword: {"10": 0.1, "training": True}; tensors left out."""
    if not isinstance(entry, dict):
        return {}
    named = [(str(i), a) for i, a in enumerate(entry.get("input_args") or ())]
    named += list(dict(entry.get("input_kwargs") or {}).items())
    return {key: given["value"] for key, given in named if isinstance(given, dict) and "value" in given}


def dumped_call_arguments(dump_file: Path | None, api: str) -> tuple[tuple[str, object], ...]:
    """The scalar arguments of `api`'s call in one step's dump.json (dumped_arguments); () where unread."""
    try:
        entry = (json.loads(Path(dump_file).read_text(encoding="utf-8")).get("data") or {}).get(api) if dump_file else None
    except (OSError, ValueError, AttributeError):
        return ()
    return tuple(dumped_arguments(entry).items())


def first_dtype_difference(rows: list[dict], step: int) -> ApiDiff | None:
    """The first row, in call order, whose tensor dtype differs between the runs (precision parity:
    an autocast or dtype setting of the runs, which a rewrite of device names does not change)."""
    for row in rows:
        bench, npu = (row.get("Bench Dtype") or "").strip(), (row.get("NPU Dtype") or "").strip()
        if not bench or not npu or "N/A" in (bench, npu) or bench == npu:
            continue
        match = _ROW_NAME.match(row.get("NPU Name") or "") or _ROW_NAME.match(row.get("Bench Name") or "")
        if not match:
            continue
        entry = row.get("NPU Name") or row.get("Bench Name")
        return ApiDiff(step, match["api"], "dtype", entry, None, None, False,
                       f"{entry} is {bench.replace('torch.', '')} in the baseline and {npu.replace('torch.', '')} in the migrated run")
    return None


def read_compare_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


_ROW_NAME = re.compile(r"^(?P<api>.+\.(?:forward|backward))\.(?P<io>input|output|parameters|parameters_grad)\.(?P<rest>.+)$")
_STATS = (("Max diff", "Bench max"), ("Min diff", "Bench min"), ("Mean diff", "Bench mean"), ("L2norm diff", "Bench l2norm"))


def _num(text) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value


def row_difference(row: dict, *, rtol: float, atol: float) -> tuple[bool, float | None, float | None]:
    """(differs beyond tolerance, max abs diff over the statistics, relative diff) for one compare row."""
    if row.get("Bench Name", "") in ("N/A", "", None):
        return True, None, None
    worst_abs, worst_rel, differs = None, None, False
    for diff_col, bench_col in _STATS:
        diff, bench = _num(row.get(diff_col)), _num(row.get(bench_col))
        if diff is None:
            continue
        if math.isnan(diff):
            # NaN on one side only (msprobe writes NaN when either statistic is NaN)
            npu_val = _num(row.get(bench_col.replace("Bench", "NPU")))
            if (npu_val is None or math.isnan(npu_val)) != (bench is None or math.isnan(bench)):
                differs = True
            continue
        magnitude = abs(bench) if bench is not None and not math.isnan(bench) else 0.0
        if abs(diff) > atol + rtol * magnitude:
            differs = True
        if worst_abs is None or abs(diff) > worst_abs:
            worst_abs = abs(diff)
            worst_rel = abs(diff) / magnitude if magnitude else (0.0 if diff == 0 else math.inf)
    if "inconsistent" in (row.get("Err_message") or ""):
        differs = True
    return differs, worst_abs, worst_rel


def first_divergence(rows: list[dict], step: int, *, rtol: float, atol: float,
                     skip: frozenset[str] = frozenset()) -> ApiDiff | None:
    """The first row, in call order, that differs beyond tolerance, and what it means:
    an output whose inputs matched (that API introduced the difference), a scalar argument, a tensor
    input that differs before any hooked API produced a difference (data, parameters or state set
    outside the hooked APIs or before this step), or an API present on one side only. `skip`: APIs
    that are not the script's (the config_check pack's own statistics in a schema-1 bundle's dump)."""
    for row in rows:
        match = _ROW_NAME.match(row.get("NPU Name") or "") or _ROW_NAME.match(row.get("Bench Name") or "")
        if not match or match["api"] in skip:
            continue
        differs, max_abs, rel = row_difference(row, rtol=rtol, atol=atol)
        if not differs:
            continue
        api, io, rest = match["api"], match["io"], match["rest"]
        entry = row.get("NPU Name") or row.get("Bench Name")
        if row.get("Bench Name") in ("N/A", "", None) or row.get("NPU Name") in ("N/A", "", None):
            side = "migrated" if row.get("Bench Name") in ("N/A", "", None) else "baseline"
            return ApiDiff(step, api, "missing", entry, None, None, False,
                           f"{entry} exists only in the {side} run: the two runs call different APIs here")
        is_tensor = bool(row.get("NPU Tensor Shape")) and row.get("NPU Tensor Shape") not in ("[]", "N/A")
        if io == "input" and not is_tensor:
            return ApiDiff(step, api, "argument", entry, max_abs, rel, False,
                           f"argument {rest} differs: baseline {row.get('Bench max')}, migrated {row.get('NPU max')}")
        stats = f" (max abs error of the statistics {max_abs:.3g})" if max_abs is not None else ""
        if io == "output":
            return ApiDiff(step, api, "output", entry, max_abs, rel, False, f"output {rest} differs{stats}; its inputs were identical")
        return ApiDiff(step, api, "input", entry, max_abs, rel, True,
                       f"{io} {rest} already differs{stats} before any hooked API produced a difference: the data, "
                       f"the parameters or other state differ from the start of step {step}")
    return None


# the frame of apply's config_check helper that runs a pack item (migrate/codemods/config_check_hooks.py `skipping`)
PACK_COLLECT_FRAME = re.compile(r", in run,\s*return collect\(\*args, \*\*kwargs\)\s*$")


def pack_entries(stack_file: Path | None) -> frozenset[str]:
    """The APIs of a dumped step that the config_check pack called for its own statistics (Tensor.max/min/mean/
    norm of the model's inputs and weights): their stacks hold the helper's frame. A schema-1 bundle's dump
    and its comparing run have them (checks/validate/child.py pauses the dump around them since schema 2)."""
    try:
        stacks = json.loads(Path(stack_file).read_text(encoding="utf-8")) if stack_file else {}
    except (OSError, ValueError):
        return frozenset()
    out: set[str] = set()
    for value in stacks.values() if isinstance(stacks, dict) else ():
        if isinstance(value, list) and len(value) == 2 and any(PACK_COLLECT_FRAME.search(str(f)) for f in value[1] or ()):
            out.update(value[0] if isinstance(value[0], list) else [value[0]])
    return frozenset(out)


def user_frames(stack_file: Path, api: str, user_files: dict[str, tuple[str, list[int]]]) -> tuple[str, ...]:
    """The frames of `api`'s call stack that lie in the user's scripts, mapped back to original lines."""
    try:
        stacks = json.loads(Path(stack_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    frames: list[str] = []
    for value in stacks.values():
        if not (isinstance(value, list) and len(value) == 2 and api in value[0]):
            continue
        frames = value[1]
        break
    out = []
    for frame in frames:
        match = re.match(r"File (?P<path>.+?), line (?P<line>\d+), in (?P<func>[^,]+),\s*(?P<code>.*)", frame, re.S)
        if not match:
            continue
        path = os.path.realpath(match["path"])
        if path not in user_files:
            continue
        original, line_map = user_files[path]
        line = int(match["line"])
        mapped = line_map[line - 1] if 0 < line <= len(line_map) else line
        out.append(f"{original}:{mapped} in {match['func'].strip()}: {match['code'].strip()}")
    # msprobe lists the innermost frame first; show outermost first like a traceback
    return tuple(reversed(out))


# --------------------------------------------------------------------------- child process


def _run_child(args: list[str], log: Path, timeout: float, warm=None) -> tuple[dict | None, str | None]:
    env = dict(os.environ)
    env.setdefault("PYTHONWARNINGS", "ignore")
    try:
        if warm is not None:  # a child that has imported msprobe already and waits for its command
            stdout, stderr = warm.communicate(json.dumps(args) + "\n", timeout=timeout)
            proc = subprocess.CompletedProcess(warm.args, warm.returncode, stdout, stderr)
        else:
            proc = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), *args],
                capture_output=True, text=True, timeout=timeout, env=env,
            )
    except subprocess.TimeoutExpired:
        if warm is not None:
            warm.kill()
            warm.communicate()
        return None, f"msprobe {args[0]} timed out after {timeout:.0f}s"
    except BaseException:  # a signal (migrate/guard.py): the taken warm child is no one else's to end
        if warm is not None:
            warm.kill()
            warm.wait()
        raise
    Path(log).write_text(proc.stdout + proc.stderr, encoding="utf-8")
    marker = "@@NPU_VALIDATE_JSON@@"
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(marker):
            payload = json.loads(line[len(marker):])
            if "error" in payload:
                return None, payload["error"]
            return payload, None
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return None, f"msprobe {args[0]} failed (exit {proc.returncode}): {' | '.join(tail)} (log: {log})"


def _child_main(argv: list[str]) -> int:
    marker = "@@NPU_VALIDATE_JSON@@"
    if argv[:1] == ["serve"]:
        # warm start: import what the commands need, then wait for the command on stdin
        try:
            import pandas  # noqa: F401
            from msprobe.core.config_check import ConfigChecker  # noqa: F401
        except Exception:  # the command itself reports it
            pass
        line = sys.stdin.readline()
        if not line.strip():
            return 0
        argv = json.loads(line)
    command = argv[0]
    try:
        if command == "config-compare":
            payload = _config_compare(*argv[1:4], xlsx=XLSX_ARG in argv[4:])
        elif command == "api-compare":
            out_dir, pairs = argv[1], json.loads(argv[2])
            from checks.emulation.compat import msprobe_pt_compare

            pt_compare = msprobe_pt_compare()

            csvs = []
            for step, npu_path, bench_path in pairs:
                before = set(Path(out_dir).glob("compare_result*.csv"))
                pt_compare({"npu_path": npu_path, "bench_path": bench_path}, out_dir, suffix=f"_step{step}")
                new = sorted(set(Path(out_dir).glob("compare_result*.csv")) - before)
                if not new:
                    raise RuntimeError(f"msprobe compare wrote no result for step {step}")
                csvs.append((step, str(new[-1].resolve())))
            payload = {"csvs": csvs}
        else:
            payload = {"error": f"unknown command {command}"}
    except Exception as exc:  # reported to the parent as data, the traceback stays in the log
        import traceback

        traceback.print_exc()
        payload = {"error": f"msprobe {command}: {type(exc).__name__}: {exc}"}
    sys.stdout.flush()
    print(marker + json.dumps(payload))
    return 0


if __name__ == "__main__":
    # Run as a script, this file's folder is sys.path[0]: its packages (checks/profile) would shadow
    # the standard library's modules of the same name (cProfile imports `profile`) inside msprobe.
    # The project root takes its place (for checks.emulation.compat).
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, _here[:_here.rindex(os.sep + "checks")])
    sys.exit(_child_main(sys.argv[1:]))
