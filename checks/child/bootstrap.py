"""Runs inside the smoke child, before the user's script: `python checks/child/bootstrap.py SCRIPT ARGS...`.

Configuration comes in the NPU_MIGRATE_SMOKE environment variable: a checks.launch.child_config.ChildConfig,
written by checks.smoke.run for one process and by checks.distributed.run for every torchrun rank.
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
import os
import sys
import time
import traceback

HERE = os.path.abspath(__file__)
ROOT = HERE[:HERE.rindex(os.sep + "checks" + os.sep)]  # the project root, whatever folder of checks/ holds this file
STANDIN = os.path.join(ROOT, "checks", "standin")
SPAWN_MAIN = os.path.join(ROOT, *"checks.child.spawn_main".split(".")) + ".py"
SPAWN_ENV = "NPU_MIGRATE_SMOKE_SPAWN"
WARM = False  # True in a child forked from a warm-start template (checks/launch/warmstart.py): torch is already imported
if __name__ == "__main__":
    sys.path[0] = ROOT  # this file runs as a script: its own folder is sys.path[0]
from checks.child.recorder import EMULATED_DEVICE, Recorder, SmokeStop, autocast_policy, run_after_report  # noqa: E402,F401  (torch-free)
from checks.launch.child_config import ChildConfig  # noqa: E402  (torch-free)
from checks.launch.report import ExceptionInfo  # noqa: E402


def describe_exception(exc: BaseException, script: str) -> ExceptionInfo:
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        # The script (or a module it imports) does not parse: the error is at the bad line itself,
        # not in runpy's frames that compiled it.
        return ExceptionInfo(type(exc).__name__, exc.msg or str(exc), exc.filename, exc.lineno, "<module>",
                             (exc.text or "").strip() or None,
                             "".join(traceback.format_exception_only(type(exc), exc)), phase="parse")
    frames = traceback.extract_tb(exc.__traceback__)
    script_abs = os.path.realpath(script)
    own = [f for f in frames if os.path.realpath(f.filename) == script_abs]
    user = [f for f in frames if _user_file(f.filename, script_abs)]
    # the deepest frame in the user's own files (a helper module's failing line, not the entry's import
    # line), then the entry script's line that led there
    where = (user or frames[-1:] or [None])[-1]
    entry = own[-1] if own and where is not own[-1] else None
    return ExceptionInfo(
        type=type(exc).__name__,
        message=str(exc),
        file=where.filename if where else None,
        line=where.lineno if where else None,
        function=where.name if where else None,
        code=where.line if where else None,
        traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        entry=f"{entry.filename}:{entry.lineno}" if entry else None,
    )


def _user_file(filename: str, script_abs: str) -> bool:
    """A file of the user's project: the entry script's folder tree, less installed packages (a venv
    inside the project) and this tool's own files. The folder as the import found the file, too:
    validate's instrumented copy sits beside symlinks to the original's siblings (checks/validate/copies.py),
    so a helper module's frame is `COPY_DIR/utils.py`, whose real path is in the user's own folder."""
    path = os.path.realpath(filename)
    folder = os.path.dirname(script_abs) + os.sep
    if not (path.startswith(folder) or os.path.abspath(filename).startswith(folder)) or "/checks/" in filename:
        return False
    return not any(part in ("site-packages", "dist-packages") for part in path.split(os.sep))


def install_hooks(torch, rec: Recorder, fork_aware: bool = True) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook

    register_optimizer_step_post_hook(lambda opt, args, kwargs: rec.on_step(opt))
    if fork_aware:
        os.register_at_fork(after_in_child=rec.after_fork)
    optimizer_init = torch.optim.Optimizer.__init__

    def counted_optimizer_init(self, *args, **kwargs):
        rec.on_optimizer_built()
        return optimizer_init(self, *args, **kwargs)

    torch.optim.Optimizer.__init__ = counted_optimizer_init
    orig_backward = torch.autograd.backward

    def backward(tensors, *args, **kwargs):
        t = tensors[0] if isinstance(tensors, (tuple, list)) and len(tensors) == 1 else tensors
        rec.on_backward(t)
        result = orig_backward(tensors, *args, **kwargs)
        if rec.backward_step_open:  # a loop with no optimizer: this backward() was a step, now ended
            rec.end_backward_step()
        return result

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
            rec.on_skipped_step()
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

    from checks.emulation.compat import grad_scaler_internals

    for name in grad_scaler_internals():
        setattr(scaler_cls, name, untraced(getattr(scaler_cls, name)))
    scaler_cls.step = untraced(scaler_cls.step)


def observe_loop(torch, rec: Recorder, cfg: dict) -> None:
    """Loss scale, clipping and checkpoints (checks/child/loop_observer.py) into the report's `loop`. A
    `--resume-check` first half (cfg stop_after_checkpoint) ends at the first checkpoint written once
    the requested steps are done, not at the step itself: the script's own save code runs first."""
    from checks.child.loop_observer import SAMPLES_ENV, observe

    def at_checkpoint(checkpoint) -> None:
        if cfg.get("stop_after_checkpoint") and len(rec.losses) >= rec.target:
            rec.stop()

    samples = os.environ.get(SAMPLES_ENV, "")  # validate / baseline: the data fingerprint's sample digests
    rec.loop, _ = observe(torch, trace=bool(cfg.get("loop_trace")), samples=int(samples) if samples.isdigit() else 0,
                          on_checkpoint=at_checkpoint)


def bridge_spawned_children(cfg: dict, script: str) -> None:
    """Processes the script spawns run checks/child/spawn_main.py as their `__mp_main__` (which installs the
    hooks and fake data, then runs the script as multiprocessing would): their steps count too."""
    import multiprocessing.spawn as mp_spawn

    os.environ[SPAWN_ENV] = json.dumps({**cfg, "script": script, "root": ROOT})
    get_preparation_data = mp_spawn.get_preparation_data

    def preparation_data(name):
        data = get_preparation_data(name)
        if os.path.realpath(data.get("init_main_from_path") or "") == os.path.realpath(script):
            data["init_main_from_path"] = SPAWN_MAIN
        return data

    mp_spawn.get_preparation_data = preparation_data
    from checks.launch.warm_wire import ADDRESS_ENV, spawn_through_client
    from checks.launch.warmstart import CLIENT

    if WARM and os.environ.get(ADDRESS_ENV):  # this run was forked from a template (checks/launch/warmstart.py)
        spawn_through_client(CLIENT)


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


def forget_import_misses(folder: str) -> None:
    """The script's folder was sys.path[0] while torch was imported, possibly before validate had
    created it or linked the script's siblings there: Python cached "no finder" (or a stale listing)
    for it, and `from model import GPT` next to the script would fail. Forget both."""
    import importlib

    sys.path_importer_cache.pop(folder, None)
    importlib.invalidate_caches()


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
    from checks.launch.process import die_with_owner

    die_with_owner()  # a SIGKILL of npu-migrate ends this run too (PR_SET_PDEATHSIG)
    cfg = ChildConfig.from_env().to_json()
    script = os.path.abspath(sys.argv[1])
    sys.argv = [sys.argv[1], *sys.argv[2:]]
    backend = cfg["backend"]
    if importlib.util.find_spec("torch") is None:
        # No torch for this python: say so (the parent names the install command), run nothing.
        rec = Recorder(cfg, script)
        rec.status = "no-torch"
        rec.exception = ExceptionInfo("ModuleNotFoundError", f"No module named 'torch' ({sys.executable})",
                                      None, None, None, None, "", python=sys.executable)
        rec.write()
        os._exit(0)
    # Our own modules are imported now, while the project root is on sys.path (none of them imports
    # torch); then the script gets the sys.path it would have had: its folder first, and the stand-in
    # before it when emulated. torch is imported only after that: torch >= 2.5 auto-loads an installed
    # torch_npu at `import torch`, which must find the stand-in, never a real torch_npu of this host.
    # Later imports of our modules (checks.child.optrace at the first backward) go through the preloaded
    # `checks` package's own __path__, whatever the script's sys.path.
    sys.path[0] = ROOT
    import checks.child.autocast_regions  # a real device's autocast regions, counted by dtype
    import checks.child.dist_child  # distributed runs: per-rank report, progress, fingerprint
    import checks.emulation.compat  # noqa: F401
    profile_cfg = os.environ.pop("NPU_MIGRATE_PROFILE", None)  # npu-migrate profile (checks/profile/)
    if profile_cfg:
        import checks.profile.child  # noqa: F401  (torch-free at import, like the modules above)
    from checks.launch.process import install_exit_recorder

    kb = None
    if backend in EMULATED_DEVICE:
        from migrate import knowledge

        kb = knowledge.load(cfg.get("torch_npu_version"))
        os.environ["NPU_MIGRATE_TORCH_NPU_VERSION"] = kb.version
        os.environ["NPU_MIGRATE_EMULATE_AUTOCAST"] = autocast_policy(cfg)
    if cfg.get("fake_data"):
        import checks.emulation.fakedata  # noqa: F401
    import checks.child.msprobe_speedups

    checks.child.msprobe_speedups.install()
    sys.path[0] = os.path.dirname(script)
    if backend == "emulated":
        sys.path.insert(0, STANDIN)
    # (A warm-start template imported torch before its fork, only where no torch_npu is installed and
    # the script's folder shadows none of the modules it imported: see checks/launch/warmstart.py.)
    assert WARM or "torch" not in sys.modules, "torch was imported before the script's sys.path was final"

    rec = Recorder(cfg, script)
    rec.kb = kb

    def record_os_exit(code) -> None:  # the script (or a library) left through os._exit: say so
        if rec.status != "running":
            return  # the run's end is already recorded: this is the harness's own exit (e.g. a failed rank)
        rec.status, rec.exit_code = "os_exit", code
        rec.write()

    real_exit = install_exit_recorder(record_os_exit)
    import torch

    if backend == "emulated" and cfg.get("autoload", True):
        # torch >= 2.5 loads the installed torch_npu at `import torch` (backend autoload entry point).
        import torch_npu  # noqa: F401  (the stand-in)
    if backend not in EMULATED_DEVICE:  # the emulations count their regions under their autocast policy
        checks.child.autocast_regions.install(torch)
    if backend == "cuda-emulated":
        import checks.emulation.cudatwin

        checks.emulation.cudatwin.install(kb.transfer_to_npu or {})
    if cfg.get("fake_data"):
        checks.emulation.fakedata.install(torch)
    if cfg.get("seed") is not None:
        seed_everything(torch, int(cfg["seed"]))
    install_hooks(torch, rec)
    observe_loop(torch, rec, cfg)
    bridge_spawned_children(cfg, script)
    if profile_cfg:
        checks.profile.child.install(torch, rec, script, json.loads(profile_cfg))
    if cfg.get("dist_dir"):
        checks.child.dist_child.attach(rec, cfg, SmokeStop)
    rec.t_start = rec.t_last = rec.t_last_backward = time.perf_counter()
    if not wait_for_script(script, float(cfg.get("wait_for_script") or 0)):
        rec.status = "no-script"
        rec.write()
        os._exit(0)
    forget_import_misses(os.path.dirname(script))
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
            run_after_report()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            real_exit(0)


if __name__ == "__main__":
    main()
