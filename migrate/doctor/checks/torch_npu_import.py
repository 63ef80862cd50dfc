"""`import torch` then `import torch_npu` in a child process, the failure decoded with the
explain table (CANN not sourced, torch_npu without CANN breaking `import torch`, torch/torch_npu
symbol mismatch ...)."""
from __future__ import annotations

from migrate.doctor import explain
from migrate.doctor.checks import _probe
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "import"
TITLE = "import torch_npu (subprocess)"


def run(host: Host, done: dict) -> CheckResult:
    packages = done.get("packages")
    if packages is not None and not packages.facts.get("torch_npu"):
        return CheckResult(ID, TITLE, Status.SKIP, "torch_npu is not installed", ())
    out = host.run_probe("import")
    evidence = [f"{host.python} -m checks.child.doctor_probe import: "
                + ("timed out" if out.returncode is None else f"exit {out.returncode}")]
    if out.returncode is None:
        return CheckResult(ID, TITLE, Status.FAIL,
                           f"import did not finish within {host.probe_timeout:.0f} s",
                           tuple(evidence + [_probe.tail(out)]),
                           fix="run `python -c 'import torch, torch_npu'` by hand to see where "
                               "it hangs (a stuck device or driver is the usual cause)")
    data = _probe.parse(out)
    if data is None:
        evidence.append(_probe.tail(out))
        return CheckResult(ID, TITLE, Status.FAIL, "the import probe crashed without a result",
                           tuple(evidence), fix=_decoded_fix(out.stdout + out.stderr))
    if data.get("ok"):
        evidence.append(f"torch {data.get('torch')}, torch_npu {data.get('torch_npu')}, "
                        f"torch.npu.is_available() = {data.get('npu_available')}")
        if not data.get("npu_available"):
            return CheckResult(ID, TITLE, Status.FAIL,
                               "torch_npu imports but torch.npu.is_available() is False",
                               tuple(evidence), fix="check the driver check above (npu-smi "
                               "info, /dev/davinci*) and ASCEND_RT_VISIBLE_DEVICES",
                               facts={"ok": True, "available": False})
        return CheckResult(ID, TITLE, Status.PASS, "torch and torch_npu import; NPU available",
                           tuple(evidence), facts={"ok": True, "available": True})
    text = f"{data.get('error_type')}: {data.get('message')}\n{data.get('traceback', '')}"
    evidence.append(f"{data.get('stage')} failed: {data.get('error_type')}: "
                    f"{str(data.get('message'))[:300]}")
    matches = explain.explain(text)
    evidence.extend(f"known error {m.id}: {m.explanation}" for m in matches[:3])
    summary = f"{data.get('stage')} failed"
    if matches:
        summary += f" ({matches[0].id})"
    return CheckResult(ID, TITLE, Status.FAIL, summary, tuple(evidence),
                       fix=_decoded_fix(text), facts={"ok": False, "stage": data.get("stage"),
                                                      "known": [m.id for m in matches]})


def _decoded_fix(text: str) -> str:
    matches = explain.explain(text)
    if not matches:
        return ("unknown import failure: run `TORCH_DEVICE_BACKEND_AUTOLOAD=0 python -c "
                "'import torch_npu'` and `npu-migrate doctor --explain` on its output")
    # the most specific cause first: a missing library beats the generic autoload wrapper
    ranked = sorted(matches, key=lambda m: m.id == "backend-autoload")
    return ranked[0].fix
