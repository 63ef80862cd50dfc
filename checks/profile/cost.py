"""From the child's measurements to ranked findings: messages, advice and an estimated cost per step.

The cost is an estimate in milliseconds per step on the NPU, used to rank findings. Measured parts:
the CPU time of fallback and float64 ops (what the host or AI CPU would spend), the DataLoader wait.
Assumed parts are the constants below: they are not measurements of any NPU and only order the
findings; docs/profile.md lists them.
"""
from __future__ import annotations

import statistics

from checks.profile.findings import PerfFinding
from migrate.report import plural

SYNC_STALL_MS = 0.2  # assumed: the host waits for the queued kernels, the device idles until new launches
FALLBACK_FIXED_MS = 0.1  # assumed: sync + two copies of a host fallback, besides the bytes moved
HOST_LINK_GB_S = 20.0  # assumed device <-> host copy bandwidth
OP_COMPILE_MS = 5.0  # assumed: compiling one operator for a shape it has not seen (jit_compile=True)
OP_LAUNCH_MS = 0.01  # assumed: host-side launch of one NPU kernel
OPTIMIZER_KERNELS_PER_TENSOR = 4  # an unfused Adam-style update: a few elementwise kernels per tensor
HIGH_MS = 5.0  # severity high from this estimated cost per step
MEDIUM_MS = 0.5  # severity medium from this one
DATA_SHARE_MIN = 0.10  # a DataLoader wait is reported from this share of the step time ...
DATA_WAIT_MIN_MS = 1.0  # ... and at least this many milliseconds per step

SYNC_ADVICE = {
    "Tensor.item": "keep running values on the device (accumulate tensors) and read them every N steps",
    "Tensor.tolist": "keep the values on the device; copy them to the host every N steps",
    "Tensor.numpy": "keep the values on the device; copy them to the host every N steps",
    "Tensor.cpu": "copy to the host every N steps, or with non_blocking=True into pinned memory",
    "Tensor.__bool__": "avoid Python branches on tensor values in the step; use torch.where / masking on the device",
    "Tensor.__int__": "keep the value on the device, or read it every N steps",
    "Tensor.__float__": "keep the value on the device (accumulate tensors) and read it every N steps",
    "Tensor.__index__": "use a Python int (or a fixed bound) instead of a tensor value",
    "Tensor.__repr__": "print every N steps, not every step",
    "Tensor.__format__": "log every N steps, not every step",
}
SHAPE_ADVICE = ("use fixed shapes: multiply by the mask or torch.where(mask, x, 0) instead of selecting "
                "elements; pad to a bound instead of nonzero/unique")


def severity(cost_ms: float) -> str:
    """Absolute thresholds: the emulated step runs on a CPU, far slower than the NPU, so a share of it
    would understate every finding that is not itself measured on the CPU."""
    return "high" if cost_ms >= HIGH_MS else "medium" if cost_ms >= MEDIUM_MS else "low"


def build(child: dict, *, torch_npu_version: str) -> tuple[list[PerfFinding], float | None]:
    """Findings ranked by estimated cost (highest first), and the median measured step time (ms)."""
    steps = max(int(child.get("measured_steps") or 0), 1)
    traced = max(int(child.get("traced_steps") or 0), 1)
    times = child.get("step_seconds") or []
    step_ms = statistics.median(times) * 1000 if times else None
    raw: list[tuple] = []
    for e in child.get("events", ()):
        maker = _EVENT_MAKERS.get(e["kind"])
        if maker is not None:
            raw.append(maker(e, steps if e["kind"] == "host_sync" else traced, torch_npu_version))
    for d in child.get("data", ()):
        item = _data(d, steps, step_ms)
        if item is not None:
            raw.append(item)
    for o in child.get("optimizers", ()):
        item = _optimizer(o, torch_npu_version, child)
        if item is not None:
            raw.append(item)
    findings = [PerfFinding(kind=k, path=p, line=ln, per_step=round(ps, 3), message=m, advice=a, cost_ms=round(c, 3),
                            severity=severity(c), what=w, detail=det)
                for k, p, ln, ps, m, a, c, w, det in raw]
    findings.sort(key=lambda f: (-f.cost_ms, f.path, f.line, f.kind))
    return findings, step_ms


def _host_sync(e, steps, _v):
    per = e["count"] / steps
    what = e["what"]
    label = what.replace("Tensor.", ".") + ("()" if not what.startswith(("Tensor.__", "boolean")) else "")
    advice = SYNC_ADVICE.get(what, SHAPE_ADVICE)
    msg = f"{e['message']} ({label}, {per:g} per step)"
    return ("host_sync", e["path"], e["line"], per, msg, advice, per * SYNC_STALL_MS, what, {"calls": e["count"]})


def _cpu_fallback(e, steps, version):
    per = e["count"] / steps
    cpu_ms = e["seconds"] * 1000 / steps
    copy_ms = (e["nbytes"] / steps) / (HOST_LINK_GB_S * 1e9) * 1000
    op = e["what"]
    msg = (f"{op} has no NPU kernel in torch_npu {version}: it runs on the host CPU "
           f"({per:g} calls per step, {cpu_ms:.2f} ms of CPU time per step measured here)")
    advice = (f"replace it with ops the NPU has, or move it out of the training step "
              f"(`npu-migrate kb ops --torch-npu {version} --unsupported`)")
    cost = per * FALLBACK_FIXED_MS + cpu_ms + copy_ms
    return ("cpu_fallback", e["path"], e["line"], per, msg, advice, cost, op, {"cpu_ms_per_step": round(cpu_ms, 3)})


def _float64(e, steps, _v):
    per = e["count"] / steps
    cpu_ms = e["seconds"] * 1000 / steps
    msg = (f"{per:g} ops per step compute in float64/complex ({e['what']}): on the NPU they run on the AI CPU "
           "or are not supported")
    advice = "compute in float32 (drop dtype=torch.float64 / .double(); numpy arrays become float64 tensors)"
    return ("float64", e["path"], e["line"], per, msg, advice, cpu_ms + per * OP_LAUNCH_MS, e["what"],
            {"cpu_ms_per_step": round(cpu_ms, 3)})


def _dynamic(e, steps, _v):
    per = e["count"] / steps
    distinct = max(e.get("distinct") or 0, 2)
    msg = (f"input shapes change between steps: {e['what']} saw {distinct} distinct shapes in {steps} traced steps "
           f"(e.g. {'; '.join(e['examples'][:3])}); {per:g} ops per step meet a changed shape from here on")
    advice = ("pad or bucket inputs to a few fixed shapes (collate with padding to a bound, drop_last=True); "
              "torch.npu.set_compile_mode(jit_compile=False) uses precompiled kernels instead of compiling each shape")
    cost = per * OP_COMPILE_MS * min(1.0, distinct / max(steps, 1))
    return ("dynamic_shape", e["path"], e["line"], per, msg, advice, cost, e["what"],
            {"distinct_shapes": distinct, "examples": e["examples"]})


def _data(d, steps, step_ms):
    wait_ms = d["seconds"] * 1000 / steps
    share = wait_ms / step_ms if step_ms else 0.0
    if share < DATA_SHARE_MIN or wait_ms < DATA_WAIT_MIN_MS:
        return None
    s = d.get("settings") or {}
    settings = f"num_workers={s.get('num_workers')}, pin_memory={s.get('pin_memory')}"
    msg = (f"each step waits {wait_ms:.1f} ms for the DataLoader ({share:.0%} of the step time here; faster "
           f"NPU compute makes the share larger) with {settings}")
    advice = "; ".join(x for x in (
        "raise num_workers (with persistent_workers=True)" if not s.get("num_workers") else
        "raise num_workers or prefetch_factor further",
        "set pin_memory=True" if s.get("pin_memory") is False else "",
        "move per-sample work out of __getitem__ (or batch it)") if x)
    per = d["batches"] / steps
    return ("data_loading", d["path"], d["line"], per, msg, advice, wait_ms, "DataLoader",
            {"wait_ms_per_step": round(wait_ms, 3), "share": round(share, 4), **s})


def _optimizer(o, version, child):
    fused = o.get("fused_alternative")
    if not fused or o.get("fused"):
        return None
    cls = _public_name(o["class"])
    n = int(o.get("tensors") or 0)
    msg = (f"{cls} updates {n} parameter tensors with separate kernels each step; torch_npu {version} has "
           f"{fused}, which updates them as one flattened buffer (Ascend's NPU affinity optimizer replacement)")
    advice = (f"use {fused} with the same hyper-parameters; it keeps combined copies (more device memory) and "
              "needs the parameters never re-allocated after it is built (no model.cpu()/.to() later, no "
              "parameter replaced or set to None); check the numerics with `npu-migrate validate`")
    cost = n * OPTIMIZER_KERNELS_PER_TENSOR * OP_LAUNCH_MS
    path = o.get("path") or child.get("script") or "?"
    return ("optimizer", path, int(o.get("line") or 0), 1.0, msg, advice, cost, cls,
            {"tensors": n, "foreach": o.get("foreach"), "fused_alternative": fused, "source": _optimizer_source()})


def _optimizer_source() -> str:
    from migrate.knowledge import read_toml

    return read_toml("fused_optimizers.toml")["source"]["guide"]


def _fusion(e, steps, version):
    from migrate.knowledge import read_json

    api = e["what"]
    entry = read_json("data", "fusion_rules.json")["apis"].get(api, {})
    per = e["count"] / steps
    ops = e["message"].split("-")
    saved = (len(ops) - 1) * per
    spans = e["examples"][0] if e["examples"] else e["message"]
    where = f"torch_npu {version}"
    if len(ops) > 1:
        gain = (f"runs as {len(ops)} aten ops per call, {plural(_whole(per), 'call')} per step; {where} has {api}, "
                f"one fused kernel: about {plural(_whole(saved), 'kernel launch', 'kernel launches')} fewer per step")
    else:  # a one-op rule (gelu -> fast_gelu): a faster kernel, not fewer
        gain = f"runs {plural(_whole(per), 'time')} per step; {where} has {api}, a faster kernel for it"
    msg = f"{spans} {gain} (msprof-analyze's fusion rule, matched on the CPU)"
    advice = entry.get("rewrite") or f"use {api}: {entry.get('signature', '')}".rstrip(": ")
    advice += " (check the numerics with `npu-migrate validate`)"
    return ("fusion", e["path"], e["line"], per, msg, advice, saved * OP_LAUNCH_MS, api,
            {"ops": ops, "match": spans, "kernels_saved_per_step": round(saved, 3), "api": api,
             "signature": entry.get("signature"), "release": where})


def _whole(x: float):
    return int(x) if float(x).is_integer() else round(x, 2)


def _public_name(qualified: str) -> str:
    """torch.optim.adamw.AdamW -> torch.optim.AdamW"""
    parts = qualified.split(".")
    if len(parts) >= 3 and parts[0] == "torch" and parts[1] == "optim":
        return f"torch.optim.{parts[-1]}"
    return qualified


_EVENT_MAKERS = {"host_sync": _host_sync, "cpu_fallback": _cpu_fallback, "float64": _float64,
                 "dynamic_shape": _dynamic, "fusion": _fusion}
