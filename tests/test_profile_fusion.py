"""Fusion chances (checks/profile/fusion.py) and their data (migrate/knowledge/data/fusion_rules.json):
the pure parts, without torch. The emulated runs are in tests/test_profile.py. Also what profile's tests
take from the torch_npu wheel (read as a zip from the wheel cache): the fake Ascend profiler's signatures."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from checks.profile import fusion
from migrate import knowledge
from tests.helpers import cached_wheel

ROOT = Path(__file__).resolve().parents[1]
DATA = knowledge.read_json(*fusion.RULES_FILE)


@pytest.mark.parametrize("ops, rule, expected", [
    (["pow", "mean", "add", "rsqrt", "mul", "mul"], "(pow){0,1}-(mean){0,1}-(add){0,1}-rsqrt-mul-(type_as){0,1}",
     [(0, 4)]),
    (["rsqrt", "mul"], "(pow){0,1}-(mean){0,1}-(add){0,1}-rsqrt-mul-(type_as){0,1}", [(0, 1)]),
    (["mul", "slice", "slice", "neg", "cat", "mul", "add"], "(slice)-neg-cat-(mul){0,2}-add", [(2, 6)]),
    (["chunk", "silu", "mul"], "(chunk)-silu-mul", [(0, 2)]),
    (["matmul", "mul", "masked_fill_", "softmax", "matmul"],
     "matmul-(add){0,1}-(mul){0,1}-(masked_fill_){0,1}-softmax-(dropout){0,1}-matmul", [(0, 4)]),
    # noop: masked_fill (not in place) is not the rule's masked_fill_; silu without its mul
    (["matmul", "masked_fill", "softmax", "matmul"],
     "matmul-(add){0,1}-(mul){0,1}-(masked_fill_){0,1}-softmax-(dropout){0,1}-matmul", []),
    (["chunk", "silu", "add"], "(chunk)-silu-mul", []),
    (["linear", "relu", "linear"], "matmul-add", []),
], ids=["rms_norm", "rms_norm_short", "rotary", "swiglu", "attention", "attention_noop", "swiglu_noop",
        "linear_noop"])
def test_rules_match_as_the_advisor_reads_them(ops, rule, expected):
    rules = [("api", rule, re.compile(fusion.to_regex(rule)))]
    assert [(first, last) for _, _, first, last in fusion.match(ops, rules)] == expected


def test_pattern_translation_is_the_advisors():
    # msprof_analyze/advisor/analyzer/schedule/fusion_ops/fusion_ops_analyzer.py, _format_rule_to_pattern's docstring
    assert fusion.to_regex("(mul){0,1}-(add|neg){0,2}-dropout-(softmax)*") == \
        r"(\-mul\-){0,1}(\-add\-|\-neg\-){0,2}(\-dropout\-)(\-softmax\-)*"


@pytest.mark.parametrize("name, key, expected", [
    ("__getitem__", (Ellipsis, slice(None, 4)), ("slice",)),
    ("__getitem__", (slice(None), 0), ("select",)),  # a full `:` issues nothing
    ("__getitem__", (None, Ellipsis), ("unsqueeze",)),
    ("__rtruediv__", None, ("reciprocal", "mul")),
    ("__mul__", None, ("mul",)),
    ("__imul__", None, ("mul_",)),
    ("size", None, ()),
    ("float", None, ("to",)),  # a dtype conversion by method is recorded as aten::to
    ("type", None, ("to",)),
    ("__get__", None, ()),
    ("softmax", None, ("softmax",)),
])
def test_torch_level_calls_are_named_as_the_dispatcher_records_them(name, key, expected):
    def func():
        pass

    func.__name__ = name
    assert fusion.aten_names(func, (object(), key)) == expected


def test_only_apis_the_wheel_and_the_target_release_have_are_matched():
    kb = knowledge.load("2.14.0")
    apis = {api for api, _, _ in fusion.load_rules(kb)}
    for api in apis:
        entry = DATA["apis"][api]
        assert entry["status"] == "present"
        if api.startswith("torch_npu."):
            assert kb.has_api(api)
    assert not any(api.startswith(("mindspeed.", "torch.")) for api in apis)  # MindSpeed's, torch's own
    assert {"torch_npu.npu_rms_norm", "torch_npu.npu_rotary_mul", "torch_npu.npu_swiglu",
            "torch_npu.npu_fusion_attention"} <= apis
    # a release without the API: its rules go (knowledge data of an older line)
    older = knowledge.load("2.3.1")
    assert "torch_npu.npu_moe_token_permute" not in older.module_names("torch_npu")


def test_the_data_says_where_it_came_from():
    assert DATA["source"]["wheel"] == "msprof_analyze-26.2.0-py3-none-any.whl"
    assert DATA["source"]["file"].endswith("advisor/rules/timeline_fusion_ops.yaml")
    assert DATA["checked_in"]["wheel"].startswith("torch_npu-2.14.0")
    for api, entry in DATA["apis"].items():
        assert entry["status"] in ("present", "absent", "torch"), api
        assert entry["where"], api
        if entry["status"] == "present" and api.startswith("torch_npu.") and ".optim." not in api:
            assert entry["signature"].startswith(api.split(".", 1)[1] + "("), api


def test_committed_data_is_what_the_generator_reads_from_the_wheels():
    import importlib.util

    msprof, torch_npu = cached_wheel("msprof_analyze"), cached_wheel("torch_npu")

    spec = importlib.util.spec_from_file_location("build_fusion_rules", ROOT / "scripts" / "build_fusion_rules.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (msprof.name, torch_npu.name) == (mod.MSPROF_WHEEL, mod.TORCH_NPU_WHEEL)
    fresh = mod.build(msprof, torch_npu)
    committed = json.loads((ROOT / "migrate" / "knowledge" / "data" / "fusion_rules.json").read_text())
    fresh.pop("generated"), committed.pop("generated")
    assert fresh == json.loads(json.dumps(fresh)) and fresh == committed


# ------------------------------------------------------------------------------ fused optimizers (the table)
def _optimizer_class(name: str, module: str):
    """A class as fused_name sees a torch optimizer (its name and module), without importing torch."""
    return type(name, (), {"__module__": module})


def test_fused_optimizer_table_agrees_with_the_wheel_and_the_advisor():
    """Every row of Ascend's replacement table (fused_optimizers.toml): the fused name is in the torch_npu
    2.14.0 wheel and msprof-analyze's own Optimizer rule maps `<Class>.step` to it; every torch class the
    table names exists in torch.optim, and those it sets apart (Lamb, ...) do not."""
    import importlib.util

    table = knowledge.read_toml("fused_optimizers.toml")
    assert table["source"]["guide"].startswith("https://www.hiascend.com/")
    names = knowledge.load("2.14.0").module_names("torch_npu.optim")
    advisor = DATA["rule_sets"][-1]["rules"]["Optimizer"]
    torch_optim = Path(importlib.util.find_spec("torch").submodule_search_locations[0]) / "optim" / "__init__.py"
    exported = set(re.findall(r"\b(\w+)\b", torch_optim.read_text(encoding="utf-8")))
    rows = [(row["fused"], key.rpartition(".")[2], True) for key, row in table["optimizer"].items()]
    rows += [(fused, cls, False) for fused, cls in table["not_torch"].items()]
    assert {"NpuFusedAdam", "NpuFusedAdamW", "NpuFusedSGD"} <= {f.rpartition(".")[2] for f, _, torch_class in rows
                                                                 if torch_class}
    for fused, cls, torch_class in rows:
        assert fused.rpartition(".")[2] in names, fused
        assert advisor[fused] == [f"{cls}.step"], fused
        assert (cls in exported) == torch_class, cls
    assert all(row["api_doc"].startswith("https://www.hiascend.com/") for row in table["optimizer"].values())


def test_fused_optimizer_names_come_from_the_table_and_the_target_release():
    from checks.profile.fusedopt import fused_name

    kb = knowledge.load("2.14.0")
    assert fused_name(kb, _optimizer_class("AdamW", "torch.optim.adamw")) == "torch_npu.optim.NpuFusedAdamW"
    assert fused_name(kb, _optimizer_class("RMSprop", "torch.optim.rmsprop")) == "torch_npu.optim.NpuFusedRMSprop"
    assert fused_name(kb, _optimizer_class("Adagrad", "torch.optim.adagrad")) is None  # no row, no NpuFusedAdagrad
    # torch_npu has NpuFusedLamb, but torch.optim has no Lamb: a class of that name is not the table's
    assert fused_name(kb, _optimizer_class("Lamb", "torch.optim.lamb")) is None
    assert fused_name(kb, _optimizer_class("AdamW", "mylib.optim")) is None  # the user's own class

    class NoFusedOptim:  # a release whose torch_npu.optim lacks it: not suggested
        def module_names(self, module):
            return frozenset({"NpuFusedSGD"})

    assert fused_name(NoFusedOptim(), _optimizer_class("AdamW", "torch.optim.adamw")) is None
    assert fused_name(NoFusedOptim(), _optimizer_class("SGD", "torch.optim.sgd")) == "torch_npu.optim.NpuFusedSGD"


# ------------------------------------------------------------------------------ the advisor's answers (NPU)


def advisor_sample_rows() -> list[tuple[str, str, int]]:
    """Real advisor output: the `Affinity API | Code stacks | Stack called counts` table saved in the wheel's
    advisor/fusion_operators_api_analysis.ipynb (a run with CANN 8.0.0 and torch 2.1.0). The notebook
    rendered it with textwrap.fill (line breaks at spaces, and after hyphens inside paths) and PrettyTable's
    HTML (`<br>`): undone here, so the stacks read as the xlsx holds them (frames separated by `;`)."""
    import html
    import zipfile

    with zipfile.ZipFile(cached_wheel("msprof_analyze")) as whl:
        notebook = json.loads(whl.read("msprof_analyze/advisor/fusion_operators_api_analysis.ipynb"))
    outputs = [o for c in notebook["cells"] if c["cell_type"] == "code" for o in c.get("outputs", ())]
    table = next("".join(o["data"]["text/html"]) for o in outputs if "Code stacks" in "".join(o["data"]["text/html"]))
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*</tr>", table, re.S)
    return [(api, html.unescape(re.sub(r"-<br>", "-", stack).replace("<br>", " ")), int(n)) for api, stack, n in rows]


def test_advisor_answers_become_findings_at_the_users_innermost_line(tmp_path, monkeypatch):
    """The sample's training script ran as `tasks/gpt2/unsup/model.py` (relative frames, under Megatron's,
    cruise's and torch's absolute ones): each row goes to the first (innermost) frame of that file, rows of
    one line and API are one finding with their counts summed, and the rows that never enter the script's
    folder stay in the advisor's report. Expected from the raw stacks by a plain text search."""
    from collections import Counter

    from checks.profile import advisor_affinity

    rows = advisor_sample_rows()
    assert len(rows) == 46 and {api for api, _, _ in rows} >= {"torch_npu.npu_confusion_transpose",
                                                               "torch_npu.optim.NpuFusedAdamW"}
    expected, entering = Counter(), 0
    for api, stack, count in rows:
        m = re.search(r"(?<![/\w])tasks/gpt2/unsup/model\.py\((\d+)\)", stack)
        if m:
            expected[("tasks/gpt2/unsup/model.py", int(m.group(1)), api)] += count
            entering += 1
    assert {line for _, line, _ in expected} == {615, 1719}  # model.py's forward and optimizer_step, by reading
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "tasks" / "gpt2" / "unsup" / "model.py"
    raw, outside = advisor_affinity.findings(rows, str(script), steps=1, version="2.14.0")
    got = {(Path(path).relative_to(tmp_path).as_posix(), line, api): detail["calls"]
           for _kind, path, line, _per, _msg, _advice, _cost, api, detail in raw}
    assert got == dict(expected) and outside == len(rows) - entering > 0
    # another user's folder, absolute frames: the first row (4 calls) at experts.py:2665, not torch's _tensor.py
    raw, _ = advisor_affinity.findings(rows[:1], "/opt/tiger/janus/janus/megatron/train.py", steps=2, version="2.14.0")
    assert [(p, ln, per) for _k, p, ln, per, *_ in raw] == [("/opt/tiger/janus/janus/megatron/experts.py", 2665, 2.0)]


def test_npu_result_reads_the_advisors_workbook_and_fails_on_fusion(tmp_path, monkeypatch):
    """build_result on the NPU path: the advisor's xlsx (a sheet laid out as its result writer does: the
    header row, then the rows; written here with the sample's rows, since no NPU run is at hand) gives
    `fusion` findings that --fail-on fusion counts."""
    from types import SimpleNamespace

    Workbook = pytest.importorskip("openpyxl").Workbook

    import checks.profile.advisor
    from checks.profile.result import build_result

    monkeypatch.chdir(tmp_path)
    book = Workbook()
    book.active.title = "Overall Summary"
    sheet = book.create_sheet("Affinity API Issues")
    sheet.append(["Affinity API", "Code stacks", "Stack called counts"])
    for row in advisor_sample_rows():
        sheet.append(list(row))
    xlsx = tmp_path / "mstt_advisor_1.xlsx"
    book.save(xlsx)
    trace = {"folders": ["x_ascend_pt"], "advisor": [{"xlsx": [str(xlsx)]}], "warnings": []}
    monkeypatch.setattr(checks.profile.advisor, "collect", lambda *a, **kw: trace)
    smoke = SimpleNamespace(exit_code=0, warnings=(), verdict="pass", reasons=())
    child = {"measured_steps": 4, "step_seconds": [0.1] * 4}
    script = str(tmp_path / "tasks" / "gpt2" / "unsup" / "model.py")
    result = build_result(script, "npu", "2.14.0", child, smoke, 5, warnings=(), out_dir=str(tmp_path / "out"),
                          fail_words=("fusion",), trace_dir=str(tmp_path), advisor=True)
    assert {(f.kind, f.line, f.what) for f in result.findings} == {
        ("fusion", 1719, "torch_npu.optim.NpuFusedAdamW"), ("fusion", 615, "torch_npu.npu_confusion_transpose")}
    assert result.exit_code == 1 and result.failing == 2
    # counts per step over the profiler's active window (2 steps), not over the 4 measured steps
    assert {f.line: f.per_step for f in result.findings} == {1719: 1.0, 615: 18.0}
    assert any("fused-API stacks outside the script's folder" in w for w in result.warnings)
def test_fake_profiler_signatures_match_the_wheel():
    """The fake torch_npu profiler of tests/profile_cases/fake_npu (test_profile.py's NPU orchestration tests)
    accepts exactly the real keyword names, so a misspelt argument in checks/profile/ascend.py fails there
    as it would on the NPU."""
    import ast
    import zipfile

    def params(tree, cls, fn="__init__"):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == fn:
                        a = item.args
                        return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg != "self"]
        raise AssertionError(f"{cls}.{fn} not found")

    with zipfile.ZipFile(cached_wheel("torch_npu")) as z:
        real = {f: ast.parse(z.read(f"torch_npu/profiler/{f}")) for f in ("profiler.py", "scheduler.py", "experimental_config.py")}
    fake = ast.parse((ROOT / "tests" / "profile_cases" / "fake_npu" / "torch_npu" / "profiler.py").read_text(encoding="utf-8"))
    assert params(fake, "profile") == params(real["profiler.py"], "profile")
    assert params(fake, "schedule") == params(real["scheduler.py"], "Schedule")
    assert params(fake, "_ExperimentalConfig") == params(real["experimental_config.py"], "_ExperimentalConfig")
