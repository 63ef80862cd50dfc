"""Runs inside the smoke child, before the user's script: `python checks/bootstrap.py SCRIPT ARGS...`.

Configuration comes in the NPU_MIGRATE_SMOKE environment variable (JSON, written by checks.smoke).
The bootstrap seeds the RNGs, installs the hooks (optimizer steps, backward, GradScaler.scale), the
op tracer and the fake-data patches, puts the torch_npu stand-in first on sys.path in emulated mode,
then runs the script with runpy as `__main__` with the script's own sys.argv and sys.path[0]. After
N optimizer steps it stops the script by raising a private BaseException, writes the JSON report and
leaves with os._exit (so no atexit handler or stray thread of the script can hang the run). The
report is also rewritten as steps complete (at most every 0.5 s), so a run killed on timeout still says how far it got.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
import time
import traceback

CONFIG_ENV = "NPU_MIGRATE_SMOKE"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STANDIN = os.path.join(HERE, "standin")
# backend -> the device type its CPU-backed stand-in emulates
EMULATED_DEVICE = {"emulated": "npu", "cuda-emulated": "cuda"}


class SmokeStop(BaseException):
    """Raised from the optimizer-step hook once the requested steps are done."""


class Recorder:
    def __init__(self, cfg: dict, script: str):
        self.cfg = cfg
        self.script = script
        self.report_path = cfg["report"]
        self.target = int(cfg["steps"])
        self.backend = cfg["backend"]
        self.t_start = time.perf_counter()
        self.t_last = self.t_start
        self.last_write = 0.0
        self.losses: list[float] = []
        self.step_times: list[float] = []
        self.loss_dtype = None
        self.loss_device = None
        self.param_device: dict[str, int] = {}
        self.pending_loss = 0.0
        self.pending_backward = 0
        self.last_scaled = (None, None)
        self.skipped_steps = 0
        self.warnings: list[str] = []
        self.tracer = None
        self.trace_wanted = bool(cfg.get("op_trace")) and self.backend == "emulated"
        self.trace_stable_steps = 0  # consecutive steps that added no new op to the trace
        self.trace_stopped_after = None  # step after which tracing was switched off
        self.trace_seen = None  # (distinct ops, distinct wide-dtype ops) after the previous step
        self.status = "running"
        self.exception = None
        self.exit_code = None
        self.kb = None

    # -- hooks
    def on_backward(self, tensor) -> None:
        import torch

        if self.trace_wanted and self.tracer is None:
            from checks.optrace import OpTracer

            self.tracer = OpTracer()
            self.tracer.__enter__()  # stays on until the process ends
        if not isinstance(tensor, torch.Tensor) or tensor.numel() != 1:
            return
        scaled, original = self.last_scaled
        loss = original if (scaled is not None and tensor is scaled) else tensor
        self.pending_loss += float(loss.detach().float().item())
        self.pending_backward += 1
        if self.loss_dtype is None:
            self.loss_dtype = str(loss.dtype).replace("torch.", "")
            self.loss_device = self.logical_device_of_loss(loss)

    def on_step(self, optimizer) -> None:
        now = time.perf_counter()
        self.step_times.append(now - self.t_last)
        self.t_last = now
        self.losses.append(self.pending_loss if self.pending_backward else float("nan"))
        if not self.pending_backward:
            self.warnings.append(f"optimizer step {len(self.losses)} had no backward() call before it")
        self.pending_loss = 0.0
        self.pending_backward = 0
        n = len(self.losses)
        self.maybe_stop_tracing(n)
        if n == 1 or n == self.target:
            self.param_device = self.param_devices(optimizer)
        if n >= self.target or not math.isfinite(self.losses[-1]):
            # A non-finite loss is already a verdict: no need to train on.
            self.status = "stopped"
            self.write()
            raise SmokeStop()
        # Progress for a run that later times out or crashes hard: at most every 0.5 s, since a
        # full report (with the op-trace summary) costs more than a small training step.
        if now - self.last_write >= 0.5 or n == 1:
            self.write()

    def maybe_stop_tracing(self, step: int) -> None:
        """A training step runs the same ops every time: once two consecutive steps add no new op
        (and no new float64/complex op), the op set is known and tracing, which costs a Python
        call per op, is switched off for the remaining steps. Ops that only run every k-th step
        (periodic evaluation, logging) after that point are not seen; the report says from which
        step tracing stopped."""
        tracer = self.tracer
        if tracer is None or self.trace_stopped_after is not None:
            return
        seen = (len(tracer.counts), len(tracer.wide))
        if self.trace_seen == seen:
            self.trace_stable_steps += 1
        else:
            self.trace_stable_steps = 0
        self.trace_seen = seen
        if self.trace_stable_steps >= 2:
            try:
                tracer.__exit__(None, None, None)
            except Exception:  # not the innermost mode (the script pushed its own): keep tracing
                return
            self.trace_stopped_after = step

    # -- placement
    @property
    def emulated_device(self) -> str | None:
        """The device type a stand-in emulates in this run ("npu", "cuda"), None on real hardware."""
        return EMULATED_DEVICE.get(self.backend)

    def device_of(self, t) -> str:
        kind = t.device.type
        if self.emulated_device and kind == "cpu":
            return self.emulated_device if getattr(t, "_npu_migrate_npu", False) else "cpu"
        return kind

    def param_devices(self, optimizer) -> dict[str, int]:
        out: dict[str, int] = {}
        for group in optimizer.param_groups:
            for p in group["params"]:
                d = self.device_of(p)
                out[d] = out.get(d, 0) + 1
        return out

    def logical_device_of_loss(self, loss) -> str:
        device = self.emulated_device
        if device is None or loss.device.type != "cpu":
            return loss.device.type
        if getattr(loss, "_npu_migrate_npu", False):
            return device
        # Follow the autograd graph to its leaves: the loss is on the NPU when its leaves are.
        seen = set()
        stack = [loss.grad_fn]
        found = "cpu"
        while stack and len(seen) < 20000:
            fn = stack.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            var = getattr(fn, "variable", None)
            if var is not None and getattr(var, "_npu_migrate_npu", False):
                return device
            stack.extend(next_fn for next_fn, _ in fn.next_functions)
        return found

    # -- report
    def peak_memory(self) -> int | None:
        if self.backend == "npu":
            try:
                import torch

                return int(torch.npu.max_memory_allocated())
            except Exception:
                return None
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def to_json(self) -> dict:
        report = {
            "status": self.status,
            "backend": self.backend,
            "steps": len(self.losses),
            "requested_steps": self.target,
            "losses": [x if math.isfinite(x) else repr(x) for x in self.losses],
            "loss_dtype": self.loss_dtype,
            "loss_device": self.loss_device,
            "param_device": self.param_device,
            "step_times": self.step_times,
            "peak_memory": self.peak_memory(),
            "skipped_steps": self.skipped_steps,
            "warnings": self.warnings,
            "exception": self.exception,
            "exit_code": self.exit_code,
            "pid": os.getpid(),
            "autocast": self.autocast_report(),
        }
        if self.tracer is not None:
            report["op_trace"] = self.tracer.summary(self.kb)
            report["op_trace"]["stopped_after_step"] = self.trace_stopped_after
        return report

    def autocast_report(self) -> dict | None:
        """The autocast policy of an emulated run and the dtypes the script's autocast regions asked for."""
        if not self.emulated_device:
            return None
        dm = sys.modules.get("checks.devicemap")
        return {"policy": autocast_policy(self.cfg),
                "requested": dict(dm.AUTOCAST_SEEN) if dm is not None else {}}

    def write(self) -> None:
        self.last_write = time.perf_counter()
        tmp = f"{self.report_path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f)
        os.replace(tmp, self.report_path)


def describe_exception(exc: BaseException, script: str) -> dict:
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        # The script (or a module it imports) does not parse: the error is at the bad line itself,
        # not in runpy's frames that compiled it.
        return {"type": type(exc).__name__, "message": exc.msg or str(exc), "file": exc.filename,
                "line": exc.lineno, "function": "<module>", "code": (exc.text or "").strip() or None,
                "traceback": "".join(traceback.format_exception_only(type(exc), exc)), "phase": "parse"}
    frames = traceback.extract_tb(exc.__traceback__)
    script_abs = os.path.realpath(script)
    script_dir = os.path.dirname(script_abs)
    own = [f for f in frames if os.path.realpath(f.filename) == script_abs]
    local = [f for f in frames if os.path.realpath(f.filename).startswith(script_dir + os.sep)
             and "/checks/" not in f.filename]
    where = (own or local or frames[-1:] or [None])[-1]
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "file": where.filename if where else None,
        "line": where.lineno if where else None,
        "function": where.name if where else None,
        "code": where.line if where else None,
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    }


def install_hooks(torch, rec: Recorder) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook

    register_optimizer_step_post_hook(lambda opt, args, kwargs: rec.on_step(opt))
    orig_backward = torch.autograd.backward

    def backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) and len(tensors) == 1 else tensors
        rec.on_backward(t)
        return orig_backward(tensors, *args, **kwargs)

    torch.autograd.backward = backward
    scaler_cls = torch.amp.GradScaler
    orig_scale = scaler_cls.scale

    def scale(self, outputs):
        out = orig_scale(self, outputs)
        if isinstance(outputs, torch.Tensor) and out is not outputs:
            rec.last_scaled = (out, outputs)
        return out

    scaler_cls.scale = scale
    orig_scaler_step = scaler_cls.step

    def scaler_step(self, optimizer, *args, **kwargs):
        before = len(rec.losses)
        result = orig_scaler_step(self, optimizer, *args, **kwargs)
        if len(rec.losses) == before and rec.pending_backward:
            # GradScaler found inf/nan gradients and skipped optimizer.step(): not a training step.
            rec.skipped_steps += 1
            rec.warnings.append("GradScaler skipped an optimizer step (inf/nan gradients at the current loss scale)")
            rec.pending_loss = 0.0
            rec.pending_backward = 0
        return result

    scaler_cls.step = scaler_step

    # GradScaler's own bookkeeping (float64 reciprocal of the scale, inf checks) is torch's code,
    # which torch_npu ships for the NPU: keep it out of the op coverage of the user's training.
    def untraced(fn):
        def wrapper(*args, **kwargs):
            tracer = rec.tracer
            if tracer is None:
                return fn(*args, **kwargs)
            tracer.paused += 1
            try:
                return fn(*args, **kwargs)
            finally:
                tracer.paused -= 1
        return wrapper

    for name in ("unscale_", "update", "_unscale_grads_"):
        setattr(scaler_cls, name, untraced(getattr(scaler_cls, name)))
    scaler_cls.step = untraced(scaler_cls.step)


def autocast_policy(cfg: dict) -> str:
    """The autocast policy of an emulated run: `autocast`, or the older `emulate_autocast` switch
    (the distributed launcher's configuration still writes it)."""
    if cfg.get("autocast"):
        return cfg["autocast"]
    return "native" if cfg.get("emulate_autocast", True) else "off"


def wait_for_script(script: str, seconds: float) -> bool:
    """validate starts this child while it still writes the script's instrumented copy (the child
    imports torch meanwhile): wait for the copy, or for `<copy>.cancel` when it could not be made."""
    if seconds <= 0 or os.path.exists(script):
        return True
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(script):
            return True
        if os.path.exists(script + ".cancel"):
            return False
        time.sleep(0.02)
    return os.path.exists(script)


def seed_everything(torch, seed: int) -> None:
    import random

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass
    torch.use_deterministic_algorithms(True, warn_only=True)


def main() -> None:
    cfg = json.loads(os.environ.pop(CONFIG_ENV))
    script = os.path.abspath(sys.argv[1])
    sys.argv = [sys.argv[1], *sys.argv[2:]]
    backend = cfg["backend"]
    if importlib.util.find_spec("torch") is None:
        # No torch for this python: say so (the parent names the install command), run nothing.
        rec = Recorder(cfg, script)
        rec.status = "no-torch"
        rec.exception = {"type": "ModuleNotFoundError", "message": f"No module named 'torch' ({sys.executable})",
                         "file": None, "line": None, "function": None, "code": None, "traceback": None, "python": sys.executable}
        rec.write()
        os._exit(0)
    # Our own modules are imported now, while the project root is on sys.path; then the script
    # gets the sys.path it would have had: its folder first (and the stand-in before it, if emulated).
    sys.path[0] = ROOT
    import checks.dist_child  # distributed runs: per-rank report, progress, fingerprint
    import checks.optrace  # noqa: F401  (loaded before the script changes sys.path)
    profile_cfg = os.environ.pop("NPU_MIGRATE_PROFILE", None)  # npu-migrate profile (checks/profile/)
    if profile_cfg:
        import checks.profile.child  # noqa: F401  (same reason)
    from checks.process import install_exit_recorder

    kb = None
    if backend in EMULATED_DEVICE:
        from migrate import knowledge

        kb = knowledge.load(cfg.get("torch_npu_version"))
        os.environ["NPU_MIGRATE_TORCH_NPU_VERSION"] = kb.version
        os.environ["NPU_MIGRATE_EMULATE_AUTOCAST"] = autocast_policy(cfg)
    if cfg.get("fake_data"):
        import checks.fakedata  # noqa: F401
    import checks.msprobe_speedups

    checks.msprobe_speedups.install()
    sys.path[0] = os.path.dirname(script)
    if backend == "emulated":
        sys.path.insert(0, STANDIN)

    rec = Recorder(cfg, script)
    rec.kb = kb

    def record_os_exit(code) -> None:  # the script (or a library) left through os._exit: say so
        rec.status, rec.exit_code = "os_exit", code
        rec.write()

    real_exit = install_exit_recorder(record_os_exit)
    import torch

    if backend == "emulated" and cfg.get("autoload", True):
        # torch >= 2.5 loads the installed torch_npu at `import torch` (backend autoload entry point).
        import torch_npu  # noqa: F401  (the stand-in)
    if backend == "cuda-emulated":
        import checks.cudatwin

        checks.cudatwin.install(kb.transfer_to_npu or {})
    if cfg.get("fake_data"):
        checks.fakedata.install(torch)
    if cfg.get("seed") is not None:
        seed_everything(torch, int(cfg["seed"]))
    install_hooks(torch, rec)
    if profile_cfg:
        checks.profile.child.install(torch, rec, script, json.loads(profile_cfg))
    if cfg.get("dist"):
        checks.dist_child.attach(rec, cfg, SmokeStop)
    rec.t_start = rec.t_last = time.perf_counter()
    if not wait_for_script(script, float(cfg.get("wait_for_script") or 0)):
        rec.status = "no-script"
        rec.write()
        os._exit(0)
    try:
        import runpy

        runpy.run_path(script, run_name="__main__")
        rec.status = "finished"
    except SmokeStop:
        rec.status = "stopped"
    except SystemExit as exc:
        code = exc.code
        rec.exit_code = code if isinstance(code, int) or code is None else 1
        if isinstance(code, str):
            print(code, file=sys.stderr)
        rec.status = "finished" if not code else "exit"
    except BaseException as exc:  # noqa: BLE001 - everything the script raises is a verdict
        rec.status = "exception"
        rec.exception = describe_exception(exc, script)
        traceback.print_exc()
    finally:
        try:
            rec.write()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            real_exit(0)


if __name__ == "__main__":
    main()
