"""Rules across code families (traps, idempotence, messages, whole scripts): beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap

import pytest

from migrate.knowledge import load, newest_version
from migrate.rules import rules_by_code
from migrate.rules.base import Invalid
from tests.rule_helpers import TORCH_API_CODES as MY_CODES
from tests.rule_helpers import analyze as analyze_all
from tests.rule_helpers import analyze_api as analyze
from tests.rule_helpers import fix


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


def test_no_torch_imported():
    """Running every rule over a CUDA script imports no torch. Checked in a fresh interpreter: other
    tests of the same pytest worker (the runtime side) may have imported torch already."""
    import subprocess

    from tests.helpers import ROOT

    program = (
        "import sys\n"
        "from tests.rule_helpers import analyze\n"
        "found = analyze('import torch\\nx = torch.zeros(1).cuda()\\ntorch.cuda.synchronize()\\n')\n"
        "assert found, 'no findings: the check ran no rule'\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


@pytest.mark.parametrize(
    "line,prose",
    [
        ('print("defaults", {"device": "cuda", "backend": "nccl"})', True),
        ('logger.info("config", extra={"device": "cuda", "backend": "nccl"})', True),
        ('cfg = {"device": "cuda", "backend": "nccl"}', False),
        ('print(json.dumps({"device": "cuda", "backend": "nccl"}))', False),
    ],
    ids=["print-dict", "log-keyword-dict", "assigned-dict", "dict-through-a-call"],
)
def test_nccl_and_device_strings_agree_on_what_is_a_message(line, prose):
    """NPU301 and NPU104 share one answer to "is this text for a person?" (`rules._text.is_prose`)."""
    found = analyze_all(f"import json\nimport logging\nlogger = logging.getLogger()\n{line}\n")
    reported = {f.code for f in found if f.line == 4}
    assert reported == (set() if prose else {"NPU301", "NPU104"})
