"""Device, identity and AMP rules (NPU102-NPU105, NPU201-NPU207, NPU401-NPU404) beyond their embedded
examples: aliases, false-positive traps, exact spans, idempotent fixes and data-driven decisions.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import textwrap

import pytest

from migrate.context import PythonContext
from migrate.engine import Target, analyze_file
from migrate.knowledge import known_versions, load, newest_version, torch_cuda_names
from migrate.rewrite import apply_findings
from migrate.rules import rules_by_code
from migrate.rules.base import Invalid

MY_CODES = (
    "NPU102", "NPU103", "NPU104", "NPU105",
    "NPU201", "NPU202", "NPU203", "NPU204", "NPU205", "NPU206", "NPU207",
    "NPU401", "NPU402", "NPU403", "NPU404",
)  # fmt: skip


def analyze(source: str, version: str | None = None, filename: str = "example.py"):
    result = analyze_file(Target(filename, ("python",)), source.encode("utf-8"), version or newest_version())
    assert not result.errors, result.errors
    return [f for f in result.findings if f.code in MY_CODES]


def codes(source: str, version: str | None = None) -> list[str]:
    return [f.code for f in analyze(source, version)]


def fix(source: str, only: tuple[str, ...] = MY_CODES, version: str | None = None) -> str:
    findings = [f for f in analyze(source, version) if f.code in only]
    fixed, _, _ = apply_findings(source, findings)
    return fixed


def spanned(source: str, finding) -> str:
    """The source text a finding points at (columns are 1-based, end exclusive)."""
    lines = source.splitlines(keepends=True)
    if finding.line == finding.end_line:
        return lines[finding.line - 1][finding.column - 1 : finding.end_column - 1]
    parts = [lines[finding.line - 1][finding.column - 1 :], *lines[finding.line : finding.end_line - 1]]
    return "".join(parts) + lines[finding.end_line - 1][: finding.end_column - 1]


def run_rule(code: str, source: str, kb) -> list:
    """Run one rule directly on a context with a given (possibly altered) knowledge base."""
    ctx = PythonContext("example.py", source, ast.parse(source), kb)
    return list(rules_by_code()[code]().check(ctx))


def test_all_rules_of_this_area_are_registered():
    registered = rules_by_code()
    assert [c for c in MY_CODES if c not in registered] == []
    for code in MY_CODES:
        rule = registered[code]
        assert rule.TRIGGERS, code  # every rule can skip files that cannot match


# ---- idempotence: every embedded rewrite, applied, leaves nothing for the same rule ---------------
def _fixable_examples():
    for code in MY_CODES:
        rule = rules_by_code()[code]
        for index, example in enumerate(rule.INVALID):
            if isinstance(example, Invalid) and example.expected is not None:
                yield pytest.param(code, example, id=f"{code}-{index}")


@pytest.mark.parametrize("code,example", list(_fixable_examples()))
def test_fix_is_idempotent(code, example):
    once = fix(example.code, (code,))
    assert once == example.expected
    assert [f for f in analyze(once) if f.code == code] == []
    assert fix(once, (code,)) == once


# ---- a file made only of traps: nothing may be reported ---------------------------------------------
TRAPS = textwrap.dedent(
    '''
    """Train on "cuda" devices.

    Call torch.cuda.synchronize() before timing; set device="cuda:0"; x.device.type == "cuda".
    torch.backends.cudnn.benchmark = True  (documentation only)
    """
    import argparse
    import logging
    import warnings

    import torch

    logger = logging.getLogger(__name__)

    # torch.cuda.empty_cache(); x = x.to("cuda"); torch.autocast("cuda"); amp.initialize(model)
    parser = argparse.ArgumentParser(description="cuda training")
    parser.add_argument("--device", default="cpu", help="cuda, npu or cpu (default cpu)")
    parser.add_argument("--backend", default="cuda", help="kernel library")  # not a device
    parser.add_argument("--cuda", action="store_true", help="use cuda")
    args = parser.parse_args()

    if args.cuda:
        logger.info("using cuda: %s", "cuda:0")
    print("device:", "cuda")
    print(f"cuda:{0}")
    warnings.warn("cuda is not available, using cpu")
    logger.debug("settings", extra={"device": "cuda", "dev": "cuda:0"})
    print({"device": "cuda"})
    logging.warning("moving model to %s", "cuda")

    class Config:
        cuda = True
        is_cuda = False

    cfg = Config()
    cfg.cuda = False
    cfg.is_cuda = True
    if cfg.is_cuda:
        pass

    if torch.backends.mps.is_available():
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    x = torch.zeros(3, device=device)
    y = x.to(torch.float16)
    label = "cuda"  # an ordinary string, never used as a device
    kind = "cuda_graphs"
    if kind == "cuda":
        pass

    def describe(device):
        """Return "cuda" when running on torch.cuda devices."""
        return f"running on {device}"

    raise_msg = RuntimeError("expected device cuda:0")
    name = torch.npu.get_device_name(0)
    ok = torch.npu.is_available()
    with torch.autocast("npu", dtype=torch.bfloat16):
        pass
    scaler = torch.amp.GradScaler("npu")
    numba_like = other.cuda.synchronize()
    amp_level = "O1"
    '''
)


def test_traps_file_reports_nothing():
    findings = analyze(TRAPS)
    assert [(f.code, f.line, f.message) for f in findings] == []


def test_traps_file_is_really_parsed_and_checked():
    # the trap file must not be skipped wholesale: one real use added to it is found
    findings = analyze(TRAPS + "torch.cuda.synchronize()\n")
    assert [f.code for f in findings] == ["NPU102"]


# ---- aliases -----------------------------------------------------------------------------------------
ALIASES = [
    ("NPU102", "import torch as th\nth.cuda.synchronize()", "import torch as th\nth.npu.synchronize()"),
    ("NPU102", "import torch.cuda\ntorch.cuda.empty_cache()", "import torch.cuda\ntorch.npu.empty_cache()"),
    ("NPU102", "from torch import cuda\ncuda.empty_cache()", None),  # reported, not rewritten
    ("NPU102", "import torch.cuda as tc\ntc.synchronize()", None),
    ("NPU102", "from torch.cuda import *\nsynchronize()", None),  # star import: resolved, not rewritten
    ("NPU102", "from torch.cuda import synchronize as sync\nsync()", "from torch.npu import synchronize as sync\nsync()"),
    ("NPU103", "from torch.cuda.nvtx import range_push\nrange_push('x')", None),
    ("NPU203", "import torch as T\nif T.cuda.is_available(): pass", "import torch as T\nif T.npu.is_available(): pass"),
    ("NPU401", "import torch as th\ns = th.cuda.amp.GradScaler()", "import torch as th\ns = th.npu.amp.GradScaler()"),
    ("NPU401", "from torch.cuda import amp\nwith amp.autocast(): pass", "from torch.npu import amp\nwith amp.autocast(): pass"),
    ("NPU401", "from torch.cuda.amp import autocast as ac\nwith ac(): pass", "from torch.npu.amp import autocast as ac\nwith ac(): pass"),
    ("NPU401", "from torch.cuda.amp import *\ns = GradScaler()", None),
    ("NPU401", "import torch.cuda.amp as camp\ns = camp.GradScaler()", None),
    ("NPU402", 'from torch import autocast\nwith autocast("cuda"): pass', 'from torch import autocast\nwith autocast("npu"): pass'),
    ("NPU402", 'import torch.amp as tamp\nwith tamp.autocast(device_type="cuda"): pass', 'import torch.amp as tamp\nwith tamp.autocast(device_type="npu"): pass'),
    ("NPU403", 'from torch.amp import GradScaler as GS\ns = GS("cuda")', 'from torch.amp import GradScaler as GS\ns = GS("npu")'),
    ("NPU404", "import apex.amp as aamp\naamp.initialize(m, o)", None),
    ("NPU404", "from apex import amp as apex_amp\napex_amp.scale_loss(l, o)", None),
    ("NPU105", "from torch.nn.parallel import DistributedDataParallel as DDP\nDDP(m, device_ids=[r])", None),
    ("NPU105", "import torch.nn.parallel as par\npar.DistributedDataParallel(m, output_device=r)", None),
    ("NPU204", "from torch.cuda import get_device_capability as cap\nif cap() >= (8, 0): pass", None),
    ("NPU205", "import torch.version\nv = torch.version.cuda.split('.')", None),
    ("NPU206", "from torch.backends import cudnn as cd\ncd.deterministic = True", None),
    ("NPU207", "import torch.backends.cuda as tbc\ntbc.matmul.allow_tf32 = False", None),
    ("NPU104", 'from torch import device as D\nd = D("cuda:1")', 'from torch import device as D\nd = D("npu:1")'),
]


@pytest.mark.parametrize("code,source,expected", ALIASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ALIASES)])
def test_alias(code, source, expected):
    mine = [f for f in analyze(source) if f.code == code]
    assert len(mine) == 1, [(f.code, f.message) for f in analyze(source)]
    if expected is None:
        assert not mine[0].fixable and mine[0].edits == ()
    else:
        assert mine[0].fixable
        assert fix(source, (code,)) == expected


def test_import_rewrite_refused_when_one_imported_name_has_no_counterpart():
    source = "from torch.cuda import synchronize, nvtx\nsynchronize()\nnvtx.range_push('a')"
    findings = analyze(source)
    assert sorted(f.code for f in findings) == ["NPU102", "NPU103"]
    assert all(not f.fixable for f in findings)
    assert fix(source) == source


def test_import_rewrite_refused_for_capability_names():
    # torch.npu.get_device_capability exists, but moving the import would hide the SM gate (NPU204)
    source = "from torch.cuda import get_device_capability, synchronize\nsynchronize()\nc = get_device_capability()"
    findings = analyze(source)
    assert sorted(f.code for f in findings) == ["NPU102", "NPU204"]
    assert fix(source) == source


def test_same_import_edit_from_several_uses_is_applied_once():
    source = "from torch.cuda.amp import GradScaler, autocast\ns = GradScaler()\nwith autocast():\n    pass\nwith autocast():\n    pass"
    findings = [f for f in analyze(source) if f.code == "NPU401"]
    assert len(findings) == 3
    assert fix(source).splitlines()[0] == "from torch.npu.amp import GradScaler, autocast"


def test_each_chain_reported_once_at_the_longest_known_name():
    source = "import torch\nn = torch.cuda.memory.memory_allocated(0)\ns = torch.cuda.current_stream().synchronize()"
    findings = analyze(source)
    assert [(f.code, f.line, f.column, spanned(source, f)) for f in findings] == [
        ("NPU102", 2, 5, "torch.cuda.memory.memory_allocated"),
        ("NPU102", 3, 5, "torch.cuda.current_stream"),
    ]


def test_import_statements_alone_are_not_reported():
    assert codes("import torch.cuda\nimport torch.cuda.amp\nfrom torch.cuda import amp\nfrom torch.backends import cudnn") == []


# ---- data-driven decisions ---------------------------------------------------------------------------
def _name_added_after_oldest():
    oldest, newest = load(known_versions()[0]), load(newest_version())
    for module, names in sorted(torch_cuda_names().items()):
        if module != "torch.cuda":
            continue
        for name in sorted(names):
            qual = f"{module}.{name}"
            old, new = oldest.cuda_api(qual), newest.cuda_api(qual)
            if new is not None and new.npu == f"torch.npu.{name}" and old is not None and old.npu is None:
                return name
    return None


def test_counterpart_decided_by_target_version():
    name = _name_added_after_oldest()
    if name is None:
        pytest.skip("no torch.cuda name gained a counterpart between the oldest and newest data")
    source = f"import torch\nv = torch.cuda.{name}"
    assert codes(source, newest_version()) == ["NPU102"]
    assert codes(source, known_versions()[0]) == ["NPU103"]


def test_nvtx_is_never_mapped_to_a_missing_npu_nvtx():
    for version in (known_versions()[0], newest_version()):
        kb = load(version)
        findings = analyze("import torch\ntorch.cuda.nvtx.range_push('fwd')", version)
        assert [f.code for f in findings] == ["NPU103"]
        assert findings[0].edits == ()
        if kb.has_api("torch.npu.mstx"):
            assert "torch.npu.mstx" in findings[0].message


def test_cuda_amp_not_fixable_when_data_lacks_npu_amp():
    kb = load(newest_version())
    modules = {k: v for k, v in kb.modules.items() if not k.startswith("torch_npu.npu.amp")}
    modules["torch_npu.npu"] = frozenset(n for n in kb.modules["torch_npu.npu"] if n != "amp")
    without_amp = dataclasses.replace(kb, modules=modules)
    assert not without_amp.has_api("torch.npu.amp.GradScaler")
    findings = run_rule("NPU401", "import torch\ns = torch.cuda.amp.GradScaler()", without_amp)
    assert len(findings) == 1 and not findings[0].fixable and findings[0].edits == ()
    assert "torch.npu.amp" not in findings[0].message
    with_amp = run_rule("NPU401", "import torch\ns = torch.cuda.amp.GradScaler()", kb)
    assert with_amp[0].fixable


def test_is_cuda_rewrite_needs_the_data_to_confirm_is_npu():
    kb = load(newest_version())
    source = "if x.is_cuda: pass"
    confirmed = run_rule("NPU202", source, dataclasses.replace(kb, tensor_npu_methods=True))
    unconfirmed = run_rule("NPU202", source, dataclasses.replace(kb, tensor_npu_methods=False))
    assert confirmed[0].fixable and not unconfirmed[0].fixable
    assert "is_npu" in unconfirmed[0].message and "does not confirm" in unconfirmed[0].message


REALISTIC = textwrap.dedent(
    """\
    import torch
    import torch.backends.cudnn as cudnn
    from apex import amp
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cuda.enable_flash_sdp(True)
    if torch.cuda.get_device_capability()[0] >= 8 and float(torch.version.cuda) > 11:
        pass
    model, opt = amp.initialize(model, opt)
    torch.cuda.nvtx.range_push("x")
    torch.cuda.cudart().cudaProfilerStart()
    m = torch.nn.parallel.DistributedDataParallel(m, device_ids=[0])
    s = torch.cuda.amp.GradScaler()
    t = torch.cuda.list_gpu_processes()
    """
)


def test_messages_only_name_npu_apis_the_data_has():
    kb = load(newest_version())
    findings = analyze(REALISTIC)
    assert {f.code for f in findings} >= {"NPU103", "NPU105", "NPU204", "NPU205", "NPU206", "NPU207", "NPU401", "NPU404"}
    named = set()
    for f in findings:
        # the knowledge notes may name a wrong mapping to say it does not exist; everything else must exist
        text = re.sub(r"[^.(;]*does not exist[^.);]*", "", f.message)
        for match in re.findall(r"\b(torch\.npu(?:\.\w+)*|torch_npu(?:\.\w+)*)", text):
            named.add(match)
        if f.replacement and f.replacement.startswith(("torch.npu", "torch_npu")):
            named.add(f.replacement)
    assert named, "expected at least one NPU API named in the messages"
    assert sorted(n for n in named if not kb.has_api(n)) == []


# ---- spans and minimal edits ---------------------------------------------------------------------------
def test_device_literal_edit_touches_only_cuda_and_keeps_quotes_and_fields():
    source = "x = t.to(f'cuda:{rank % 8}')  # é\n"
    (finding,) = analyze(source)
    assert (finding.code, finding.line, finding.column) == ("NPU104", 1, 10)
    assert spanned(source, finding) == "f'cuda:{rank % 8}'"
    assert fix(source) == "x = t.to(f'npu:{rank % 8}')  # é\n"


def test_columns_are_characters_on_non_ascii_lines():
    source = 's = "é"; d = torch.device("cuda")\n'
    source = "import torch\n" + source
    (finding,) = analyze(source)
    assert (finding.line, finding.column) == (2, 27)
    assert spanned(source, finding) == '"cuda"'
    assert fix(source) == 'import torch\ns = "é"; d = torch.device("npu")\n'


def test_crlf_and_multiline_import_rewrite():
    source = "import torch\r\nfrom torch.cuda.amp import (\r\n    GradScaler,\r\n)\r\ns = GradScaler()\r\n"
    assert fix(source) == "import torch\r\nfrom torch.npu.amp import (\r\n    GradScaler,\r\n)\r\ns = GradScaler()\r\n"


def test_attribute_rename_keeps_spacing():
    source = "import torch\ntorch . cuda . synchronize ()\n"
    assert fix(source) == "import torch\ntorch . npu . synchronize ()\n"


def test_implicitly_concatenated_literal_is_reported_but_not_rewritten():
    source = 'import torch  # runs on cuda\nd = torch.device("cu" "da")\n'
    (finding,) = analyze(source)
    assert finding.code == "NPU104" and not finding.fixable


def test_map_location_dict_rewrites_values_not_keys():
    source = 'import torch\nsd = torch.load(p, map_location={"cuda:0": "cuda:1"})\n'
    assert fix(source) == 'import torch\nsd = torch.load(p, map_location={"cuda:0": "npu:1"})\n'


def test_device_variable_used_later_is_followed():
    source = 'target = "cuda:%d" % rank\nmodel.to(target)\nlabel = "cuda"\n'
    assert fix(source) == 'target = "npu:%d" % rank\nmodel.to(target)\nlabel = "cuda"\n'


def test_device_type_compare_variants():
    source = textwrap.dedent(
        """\
        a = x.device.type != "cuda"
        b = device_type == 'cuda'
        c = str(dev).startswith(("cuda", "mps"))
        d = x.device.type not in {"cuda"}
        e = x.device.type == "mps"
        """
    )
    assert [f.code for f in analyze(source)] == ["NPU201"] * 4
    fixed = fix(source)
    assert fixed.count('"npu"') + fixed.count("'npu'") == 4 and '"mps"' in fixed


def test_grad_scaler_insert_goes_inside_the_parentheses():
    source = "import torch\ns = torch.amp.GradScaler (  # keep\n    init_scale=2.0**10)\n"
    assert fix(source) == 'import torch\ns = torch.amp.GradScaler (  # keep\n    init_scale=2.0**10)\n'.replace("(  #", '("npu",   #')


def test_cudnn_one_finding_per_statement_and_writes_included():
    source = "import torch\ntorch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = True, False\nx = torch.backends.cudnn.enabled\n"
    findings = analyze(source)
    assert [(f.code, f.line) for f in findings] == [("NPU206", 2), ("NPU206", 3)]
    assert "benchmark" in findings[0].message and "deterministic" in findings[0].message


def test_whole_script_fix_converges_and_still_parses():
    source = textwrap.dedent(
        """\
        import torch
        from torch.cuda.amp import autocast, GradScaler
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        scaler = torch.amp.GradScaler()
        g = torch.cuda.CUDAGraph()
        for x in loader:
            x = x.to(device, non_blocking=True)
            if x.is_cuda and x.device.type == "cuda":
                torch.cuda.synchronize()
            with torch.autocast(device_type="cuda"):
                with autocast():
                    pass
        """
    )
    fixed = fix(source)
    ast.parse(fixed)
    assert [f.code for f in analyze(fixed) if f.fixable] == []
    assert "cuda" not in fixed.replace("torch.npu", "")
    assert fix(fixed) == fixed
