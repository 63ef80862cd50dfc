"""Numeric Ascend codes in a log (`error code is 507035`, `runtime result = 107020`,
`HcclAllreduce, error code is 6`, `dcmi ... ret is -8005`) decoded from data, never guessed.

Data: migrate/knowledge/data/acl_error_codes.json (ACL / runtime / GE / HCCL codes, generated from
the torch_npu wheel's own headers by scripts/build_acl_codes.py) and migrate/knowledge/
error_codes.toml (aclnn and dcmi codes, by hand from the vendor pages named per entry).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from migrate import knowledge

# How torch_npu and CANN print a 6-digit ACL-family code (strings of libtorch_npu.so 2.14.0:
# "NPU function error: ..., error code is ", "ACL stream synchronize failed, error code:";
# CANN's "runtime result = 107020" as quoted in hiyouga/LlamaFactory#5347)
ACL_CODE = re.compile(r"(?:error code(?: is|:| =)|runtime result =|error_code[=:])\s*(\d{6})\b")
# `OPS function error: HcclAllreduce, error code is 6` (vllm-project/vllm-ascend#486): HcclResult
HCCL_CODE = re.compile(r"\b(Hccl\w+), error code is (\d{1,2})\b")
# `dcmi module initialize failed. ret is -8005` (npu-smi; vllm-project/vllm-ascend#2698)
DCMI_CODE = re.compile(r"dcmi.*?\bret is (-8\d{3})\b")


@dataclass(frozen=True)
class CodeInfo:
    code: str
    family: str  # "ACL", "aclnn", "HCCL", "dcmi"
    name: str
    meaning: str
    fix: str
    source: str


def _generated() -> dict:
    return knowledge.read_json("data", "acl_error_codes.json")


@functools.lru_cache(maxsize=1)
def documented() -> dict[str, dict]:
    return {e["code"]: e for e in knowledge.read_toml("error_codes.toml")["code"]}


def _wheel_source(header: str) -> str:
    return f"wheel: {header} (torch_npu 2.14.0)"


def decode(code: str) -> CodeInfo | None:
    """A 6-digit ACL/runtime/GE/aclnn code or a dcmi code ('-8005'); None when no source knows it."""
    doc = documented().get(code)
    if doc is not None:
        family = "dcmi" if code.startswith("-") else "aclnn"
        source = doc["source"]["url"] + (f" (seen in {doc['source']['seen']})"
                                          if doc["source"].get("seen") else "")
        return CodeInfo(code, family, doc["name"], doc["meaning"], doc["fix"], source)
    gen = _generated()["codes"].get(code)
    if gen is None:
        return None
    meaning = gen.get("comment") or gen["name"].removeprefix("ACL_ERROR_").replace("_", " ").lower()
    advice = gen.get("advice")
    fix = (f"torch_npu's own advice for this code: {advice}" if advice else
           "the wheel's headers give only the name; read the CANN message printed with it (E?????"
           " codes are explained separately) and the plog.")
    return CodeInfo(code, "ACL", gen["name"], meaning, fix, _wheel_source(gen["header"]))


def decode_hccl(value: str) -> CodeInfo | None:
    gen = _generated()["hccl"].get(value)
    if gen is None:
        return None
    return CodeInfo(value, "HCCL", gen["name"], gen["comment"],
                    "HcclResult from the HCCL call named in the line; the CANN message printed with "
                    "it (EI00xx) says more and is explained separately.",
                    _wheel_source(gen["header"]))


def find(line: str) -> list[CodeInfo]:
    """Every decodable code printed in one log line, in order, each once."""
    found: list[CodeInfo] = []
    for match in ACL_CODE.finditer(line):
        info = decode(match.group(1))
        if info is not None:
            found.append(info)
    for match in HCCL_CODE.finditer(line):
        info = decode_hccl(match.group(2))
        if info is not None:
            found.append(info)
    for match in DCMI_CODE.finditer(line):
        info = decode(match.group(1))
        if info is not None:
            found.append(info)
    seen: set[tuple[str, str]] = set()
    return [i for i in found if not ((i.family, i.code) in seen or seen.add((i.family, i.code)))]
