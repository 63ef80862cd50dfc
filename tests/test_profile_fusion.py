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
