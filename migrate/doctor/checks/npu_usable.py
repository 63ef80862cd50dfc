"""NPU usable: device count and a tiny matmul on npu:0 (child process); with two or more NPUs an
HCCL all-reduce between two processes, with a timeout."""
from __future__ import annotations

import socket
import subprocess
import time

from migrate.doctor import explain
from migrate.doctor.checks import _probe
from migrate.doctor.host import Host, ProbeOutput
from migrate.doctor.result import CheckResult, Status

ID = "npu"
TITLE = "NPU usable (matmul, HCCL all-reduce)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def allreduce(host: Host, world: int = 2, backend: str = "hccl", device: str = "npu",
              timeout: float | None = None) -> list[tuple[ProbeOutput, dict | None]]:
    """Start `world` probe processes that all-reduce one tensor; kill them all at the timeout."""
    timeout = timeout or host.allreduce_timeout
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(host.probe_env(), RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen(
            [host.python, "-m", "checks.child.doctor_probe", "allreduce", "--backend", backend,
             "--device", device, "--timeout", str(max(5.0, timeout - 5))],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL))
    deadline = time.monotonic() + timeout
    results = []
    for proc in procs:
        try:
            stdout, stderr = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            out = ProbeOutput(proc.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            out = ProbeOutput(None, stdout, stderr)
        results.append((out, _probe.parse(out)))
    return results


def run(host: Host, done: dict) -> CheckResult:
    imp = done.get("import")
    if imp is None or not imp.facts.get("available"):
        return CheckResult(ID, TITLE, Status.SKIP, "torch_npu does not import with an NPU "
                           "available (see above)", ())
    out = host.run_probe("matmul")
    data = _probe.parse(out)
    evidence = []
    if out.returncode is None or data is None:
        evidence.append(_probe.tail(out))
        return CheckResult(ID, TITLE, Status.FAIL, "matmul probe " + (
            "timed out" if out.returncode is None else "crashed without a result"),
            tuple(evidence), fix="run a tiny op by hand: python -c \"import torch, torch_npu; "
            "print(torch.ones(2, device='npu:0') * 2)\" and explain its output with "
            "npu-migrate doctor --explain -")
    count = data.get("device_count", 0)
    evidence.append(f"torch.npu.device_count() = {count}")
    if not data.get("ok"):
        evidence.append(f"{data.get('stage')}: {data.get('error_type')}: "
                        f"{str(data.get('message'))[:300]}")
        return CheckResult(ID, TITLE, Status.FAIL, f"{data.get('stage')} failed",
                           tuple(evidence), fix=_known_fix(
                               f"{data.get('message')}\n{data.get('traceback', '')}\n{out.stderr}",
                               "check npu-smi info for the device's health and run "
                               "npu-migrate doctor --explain on the full error"))
    evidence.append(f"64x32 @ 32x16 matmul on npu:0, max |npu - cpu| = "
                    f"{data.get('max_abs_diff'):.2e}")
    if count < 2:
        return CheckResult(ID, TITLE, Status.PASS, f"{count} NPU, matmul on npu:0 correct "
                           "(one NPU: no all-reduce test)", tuple(evidence))
    ranks = allreduce(host)
    bad = [(o, d) for o, d in ranks if o.returncode != 0 or not (d or {}).get("ok")]
    for rank, (o, d) in enumerate(ranks):
        state = "timed out" if o.returncode is None else (
            "ok" if (d or {}).get("ok") else
            f"{(d or {}).get('stage')}: {(d or {}).get('message') or _probe.tail(o, 200)}")
        evidence.append(f"HCCL all-reduce rank {rank}: {state}")
    if bad:
        timed_out = any(o.returncode is None for o, _ in bad)
        return CheckResult(ID, TITLE, Status.FAIL,
                           "HCCL all-reduce between 2 processes "
                           + (f"timed out after {host.allreduce_timeout:.0f} s" if timed_out
                              else "failed"), tuple(evidence),
                           fix=_known_fix("\n".join(
                               f"{(d or {}).get('message', '')}\n{o.stderr}" for o, d in bad),
                               "run npu-migrate doctor --explain on the HCCL error; check that "
                               "no other job holds the devices and raise HCCL_CONNECT_TIMEOUT"))
    return CheckResult(ID, TITLE, Status.PASS,
                       f"{count} NPUs, matmul on npu:0 correct, HCCL all-reduce on 2 ranks ok",
                       tuple(evidence))


def _known_fix(text: str, fallback: str) -> str:
    """The explain table's fix for the first known error in the children's output, if any."""
    matches = explain.explain(text)
    return f"{matches[0].id}: {matches[0].fix}" if matches else fallback
