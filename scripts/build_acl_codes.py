"""Generate migrate/knowledge/data/acl_error_codes.json from the torch_npu wheel's own headers
(developer-run, never in CI; the wheel is read as a zip, never installed or imported).

Read from torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl:
  * torch_npu/include/acl/acl_base_rt.h            `static const int ACL_ERROR_X = N;`   (ACL)
  * torch_npu/include/acl/error_codes/rt_error_codes.h  `#define ACL_ERROR_RT_X N // comment` (runtime)
  * torch_npu/include/acl/error_codes/ge_error_codes.h  `static const uint32_t ACL_ERROR_GE_X = NU;` (GE)
  * torch_npu/include/third_party/hccl/inc/hccl/hccl_types.h  `HCCL_E_X = N, /**< comment */`
  * torch_npu/include/torch_npu/csrc/core/npu/NPUErrorCodes.h  the advice torch_npu itself prints
    per code (`{code, "text"}` in AclErrorCode::error_code_map)

Usage: python scripts/build_acl_codes.py [WHEEL]   (default: the wheel cache, scripts/fetch_wheels.py)
"""
from __future__ import annotations

import datetime
import json
import re
import sys
import zipfile
from pathlib import Path

WHEEL_NAME = "torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl"
OUT = Path(__file__).resolve().parents[1] / "migrate" / "knowledge" / "data" / "acl_error_codes.json"
HEADERS = {
    "torch_npu/include/acl/acl_base_rt.h":
        re.compile(r"static const int (ACL_ERROR_\w+) = (\d{6});()"),
    "torch_npu/include/acl/error_codes/rt_error_codes.h":
        re.compile(r"#define\s+(ACL_ERROR_\w+)\s+(\d{6})\s*(?://\s*(.*))?"),
    "torch_npu/include/acl/error_codes/ge_error_codes.h":
        re.compile(r"static const uint32_t (ACL_ERROR_GE_\w+) = (\d{6})U;()"),
}
HCCL_HEADER = "torch_npu/include/third_party/hccl/inc/hccl/hccl_types.h"
_HCCL = re.compile(r"(HCCL_E_\w+) = (\d+),\s*/\*\*< (.*?) \*/")
ADVICE_FILE = "torch_npu/include/torch_npu/csrc/core/npu/NPUErrorCodes.h"
# `{507035,\n "first line.\n\ <continued>"},`: the string may span lines joined by `\` + newline
_ADVICE = re.compile(r'\{(\d{6}),\s*"((?:[^"\\]|\\.)*)"\}', re.S)


def advice_texts(source: str) -> dict[str, str]:
    out = {}
    for code, raw in _ADVICE.findall(source):
        text = raw.replace("\\\n", "").replace("\\n", " ")
        out[code] = re.sub(r"\s+", " ", text).strip()
    return out


def build(wheel: Path) -> dict:
    codes: dict[str, dict] = {}
    with zipfile.ZipFile(wheel) as zf:
        for member, pattern in HEADERS.items():
            for name, value, comment in pattern.findall(zf.read(member).decode()):
                entry = codes.setdefault(value, {"name": name, "header": member})
                if comment and "comment" not in entry:
                    entry["comment"] = comment.strip()
        hccl = {value: {"name": name, "header": HCCL_HEADER, "comment": comment.strip()}
                for name, value, comment in _HCCL.findall(zf.read(HCCL_HEADER).decode())}
        advice = advice_texts(zf.read(ADVICE_FILE).decode())
    for code, text in advice.items():
        if code in codes:
            codes[code]["advice"] = text
    return {
        "source": f"PyPI torch-npu==2.14.0 {wheel.name}: " + ", ".join([*HEADERS, HCCL_HEADER]) +
                  f" (names, values, comments); {ADVICE_FILE} (advice torch_npu prints per code)",
        "generator": "scripts/build_acl_codes.py",
        "generated": datetime.date.today().isoformat(),
        "codes": dict(sorted(codes.items())),
        # HcclResult values (hccl_types.h): what `HcclXxx, error code is N` reports
        "hccl": dict(sorted(hccl.items(), key=lambda kv: int(kv[0]))),
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from fetch_wheels import cache_dir  # scripts/ is sys.path[0] when this runs as a script

    wheel = Path(args[0]) if args else cache_dir() / WHEEL_NAME
    data = build(wheel)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(data['codes'])} codes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
