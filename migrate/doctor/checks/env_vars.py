"""Environment variables that hurt on an Ascend host (never blocking: warnings with the fix).

CUDA/NCCL -> Ascend/HCCL counterparts come from migrate/knowledge/env_vars.toml (source per entry);
the deprecated HCCL_ASYNC_ERROR_HANDLING spelling from libtorch_npu.so's own warning.
"""
from __future__ import annotations

from migrate import knowledge
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status
from migrate.report import plural

ID = "env"
TITLE = "environment variables"


def problems(env: dict) -> list[tuple[str, str]]:
    """(what is wrong, the fix) for each harmful variable, in a stable order."""
    out = []
    if "CUDA_VISIBLE_DEVICES" in env and "ASCEND_RT_VISIBLE_DEVICES" not in env:
        out.append((f"CUDA_VISIBLE_DEVICES={env['CUDA_VISIBLE_DEVICES']} is set but "
                    "ASCEND_RT_VISIBLE_DEVICES is not: the NPU runtime ignores it and sees every "
                    "device", f"export ASCEND_RT_VISIBLE_DEVICES={env['CUDA_VISIBLE_DEVICES']}"))
    if env.get("ASCEND_LAUNCH_BLOCKING") == "1":
        out.append(("ASCEND_LAUNCH_BLOCKING=1 is left on: every kernel launch is synchronous "
                    "(debugging only, slow)", "unset ASCEND_LAUNCH_BLOCKING"))
    if "HCCL_ASYNC_ERROR_HANDLING" in env:
        out.append(("HCCL_ASYNC_ERROR_HANDLING is the deprecated spelling",
                    "export TORCH_HCCL_ASYNC_ERROR_HANDLING=$HCCL_ASYNC_ERROR_HANDLING; "
                    "unset HCCL_ASYNC_ERROR_HANDLING"))
    table = knowledge.env_vars()
    for name in sorted(env):
        if "NCCL_" not in name or name not in table:
            continue
        counterpart = table[name].npu
        if counterpart and counterpart not in env:
            out.append((f"{name} is set but its HCCL counterpart {counterpart} is not: it has no "
                        "effect on Ascend", f"export {counterpart}={env[name]}"))
        elif not counterpart:
            out.append((f"{name} is set and has no HCCL counterpart ({table[name].note})",
                        f"unset {name}"))
    return out


def run(host: Host, done: dict) -> CheckResult:
    found = problems(host.env)
    if not found:
        return CheckResult(ID, TITLE, Status.PASS, "no harmful CUDA/NCCL/Ascend variables set", ())
    return CheckResult(ID, TITLE, Status.WARN, f"{plural(len(found), 'variable')} to fix",
                       tuple(what for what, _ in found), fix="; ".join(fix for _, fix in found))
