"""Numeric ACL / aclnn / HCCL / dcmi codes for `doctor --explain`: the generated table matches the
torch_npu wheel's own headers, the hand-written entries cite vendor pages, and real log lines
quoted from public threads decode to the vendor's meaning."""
from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from migrate.doctor import codes, explain


def test_generated_table_is_what_the_wheel_headers_say():
    import importlib.util

    from tests.helpers import cached_wheel

    wheel = cached_wheel("torch_npu")

    spec = importlib.util.spec_from_file_location(
        "build_acl_codes", Path(__file__).parents[1] / "scripts" / "build_acl_codes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fresh = module.build(wheel)
    stored = json.loads(resources.files("migrate.knowledge").joinpath(
        "data", "acl_error_codes.json").read_text())
    assert stored["codes"] == fresh["codes"]
    assert stored["hccl"] == fresh["hccl"]


def test_generated_table_has_the_codes_users_ask_about():
    table = json.loads(resources.files("migrate.knowledge").joinpath(
        "data", "acl_error_codes.json").read_text())["codes"]
    assert table["507035"]["name"] == "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION"
    assert table["107020"]["name"] == "ACL_ERROR_RT_TASK_TIMEOUT"
    assert table["500002"]["name"] == "ACL_ERROR_GE_FAILURE"
    assert table["500001"]["name"] == "ACL_ERROR_FAILURE"


@pytest.mark.parametrize("entry", list(codes.documented().values()), ids=lambda e: e["code"])
def test_hand_entries_cite_a_vendor_page(entry):
    assert re.match(r"https://www\.hiascend\.com/document/", entry["source"]["url"])
    assert entry["name"].startswith(("ACLNN_", "DCMI_"))
    if "seen" in entry["source"]:
        assert entry["source"]["seen"].startswith("https://github.com/")
    # a hand entry never shadows a code the wheel's headers define
    assert codes._generated()["codes"].get(entry["code"]) is None


# (log line as printed in the public thread, id doctor --explain gives, words of the meaning)
REAL_LINES = [
    ("RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function "
     "error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035",
     "ACL 507035", "vector core exception"),  # Ascend/pytorch#66
    ("RuntimeError: copy_d2d_baseformat_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:88"
     " NPU function error: call aclnnInplaceCopy failed, error code is 561103",
     "aclnn 561103", "null-pointer"),  # Ascend/pytorch#90
    ("RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU"
     " function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
     "ACL 507048", "ffts+ timeout"),  # vllm-project/vllm-ascend#1443
    ("[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS "
     "function error: HcclAllreduce, error code is 6", "HCCL 6", "not found"),  # vllm-ascend#486
    ("dcmi module initialize failed. ret is -8005", "dcmi -8005", "internal error"),  # #2698
    ("dcmi model initialized failed, because the device is used. ret is -8020", "dcmi -8020",
     "occupied"),  # Ascend/cann-container-image#46
]


@pytest.mark.parametrize("line,wanted,meaning", REAL_LINES, ids=[r[1] for r in REAL_LINES])
def test_real_log_lines_decode(line, wanted, meaning):
    matches = {m.id: m for m in explain.explain(line)}
    assert wanted in matches, list(matches)
    assert meaning in matches[wanted].explanation


def test_unknown_numbers_are_not_explained():
    assert explain.explain("NPU function error: foo, error code is 999999\n"
                           "dcmi module initialize failed. ret is -8999\n") == []


def test_a_line_a_hand_entry_explains_gets_no_second_numeric_entry():
    line = "EH9999  wait for compute device to finish failed, runtime result = 107020."
    ids = [m.id for m in explain.explain(line)]
    assert "npu-task-timeout-107020" in ids and "ACL 107020" not in ids
