"""Inside one rank of a distributed smoke run (imported by checks/child/bootstrap.py; torch imported lazily).

`attach(rec, cfg)` adds to the bootstrap's Recorder, without changing it:
- a per-rank report path (`rank{RANK}.json` in the job's report folder) instead of the single one;
- a progress file (`rank{RANK}.progress`: pid and optimizer steps done, rewritten in place at every
  step, a few microseconds) that the parent watches to see which rank stops making progress;
- `faulthandler` on SIGUSR1 writing all thread stacks to `rank{RANK}.stack`: the parent asks a rank
  that stopped for its stack, which works even while the rank is blocked inside a C++ collective;
- `rank{RANK}.dist.json` beside the report (rank, world size, DDP modules, and at the last step the
  fingerprint below), so the smoke report itself keeps the plain child-report shape;
- a failed rank (exception / non-zero exit) leaves with status 1 after its final report, so torchrun
  tears the group down at once instead of leaving the others in a collective;
- at the last step, a fingerprint of what must be identical across ranks: one sha256 per parameter
  of every DistributedDataParallel module, and for DTensor (FSDP2 `fully_shard`) parameters the
  placements, global shape and local shard shape (hash of replicated DTensors only);
- the emulated device index each rank bound (`torch.npu.current_device()`).

The rank is RANK from torchrun's environment, else `torch.distributed.get_rank()` once the script
initialised the process group (ranks started by mp.spawn), else the pid.
"""
from __future__ import annotations

import faulthandler
import hashlib
import json
import os
import signal
import sys

STACK_SIGNAL = signal.SIGUSR1


class RankState:
    def __init__(self, rec, folder: str):
        self.rec = rec
        self.folder = folder
        self.rank = _env_int("RANK")
        self.local_rank = _env_int("LOCAL_RANK")
        self.world_size = _env_int("WORLD_SIZE")
        self.progress_fd = None
        self.stack_file = None
        self.ddp_modules: list = []
        self.fsdp1 = 0
        self.replicas: dict | None = None
        self.device_index = None

    # -- files
    def name(self) -> str:
        if self.rank is None:
            self.rank = _dist_rank()
        return f"rank{self.rank}" if self.rank is not None else f"pid{os.getpid()}"

    def open_files(self) -> None:
        base = os.path.join(self.folder, self.name())
        self.rec.report_path = base + ".json"
        self.info_path = base + ".dist.json"
        self.progress_fd = os.open(base + ".progress", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self.stack_file = open(base + ".stack", "w", encoding="utf-8")  # noqa: SIM115 - open for the process's life
        faulthandler.register(STACK_SIGNAL, file=self.stack_file, all_threads=True, chain=False)
        self.progress(0)

    def progress(self, steps: int) -> None:
        if self.progress_fd is None or (self.rank is None and _dist_rank() is not None):
            self.reopen()
        line = f"{os.getpid()} {steps}\n".ljust(32).encode()
        os.pwrite(self.progress_fd, line, 0)

    def reopen(self) -> None:
        """An mp.spawn rank learns its rank at init_process_group: move its files to the rank's name."""
        old = self.rec.report_path if self.progress_fd is not None else None
        if self.progress_fd is not None:
            os.close(self.progress_fd)
            faulthandler.unregister(STACK_SIGNAL)
            self.stack_file.close()
            for ext in (".progress", ".stack", ".dist.json"):
                _unlink(old[: -len(".json")] + ext)
            _unlink(old)
        self.progress_fd = None
        self.open_files()

    # -- fingerprint at the last step
    def fingerprint(self) -> None:
        import torch

        params: dict[str, dict] = {}
        seen: set[int] = set()
        for i, module in enumerate(self.ddp_modules):
            for name, p in module.named_parameters():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                params[f"ddp{i}.{name}" if len(self.ddp_modules) > 1 else name] = {"kind": "replicated", "hash": tensor_hash(p)}
        for group in _optimizer_groups(self.rec):
            for p in group:
                if id(p) in seen or not _is_dtensor(p):
                    continue
                seen.add(id(p))
                placements = [repr(x) for x in p.placements]
                entry = {"kind": "sharded" if any("Shard" in x for x in placements) else "replicated",
                         "placements": placements, "shape": list(p.shape), "local_shape": list(p.to_local().shape),
                         "local_numel": p.to_local().numel()}
                if entry["kind"] == "replicated":
                    entry["hash"] = tensor_hash(p.to_local())
                params[f"dtensor{len(params)}:{tuple(p.shape)}"] = entry
        self.replicas = {"params": params, "fsdp1_modules": self.fsdp1}
        try:
            npu = getattr(torch, "npu", None)
            self.device_index = int(npu.current_device()) if npu is not None else None
        except Exception:  # noqa: BLE001 - a real NPU without a bound device: nothing to record
            self.device_index = None

    def write_info(self) -> None:
        """rankN.dist.json beside the rank's smoke report (which keeps the plain child-report shape)."""
        if self.progress_fd is None:
            return
        tmp = f"{self.info_path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f)
        os.replace(tmp, self.info_path)

    def to_json(self) -> dict:
        return {"rank": self.rank, "local_rank": self.local_rank, "world_size": self.world_size or _dist_world(),
                "replicas": self.replicas, "device_index": self.device_index, "ddp_modules": len(self.ddp_modules)}


def tensor_hash(t) -> str:
    data = t.detach().contiguous().reshape(-1)
    if data.device.type != "cpu":
        data = data.cpu()
    return hashlib.sha256(data.view(__import__("torch").uint8).numpy().tobytes()).hexdigest()[:16]


def _is_dtensor(p) -> bool:
    return type(p).__name__ == "DTensor" or type(getattr(p, "data", None)).__name__ == "DTensor"


def _optimizer_groups(rec):
    return getattr(rec, "_dist_last_groups", ())


def _env_int(name: str) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def _dist_int(getter: str) -> int | None:
    """torch.distributed's `get_rank()` / `get_world_size()` once the script has made its process
    group; None before (or where torch.distributed is not imported, or the call fails)."""
    import sys

    dist = sys.modules.get("torch.distributed")
    try:
        return int(getattr(dist, getter)()) if dist is not None and dist.is_initialized() else None
    except Exception:  # noqa: BLE001
        return None


def _dist_rank() -> int | None:
    return _dist_int("get_rank")


def _dist_world() -> int | None:
    return _dist_int("get_world_size")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _hook_wrappers(torch, state: RankState) -> None:
    """Remember the DDP modules (their parameters are replicas) and count FSDP1 modules."""
    ddp = torch.nn.parallel.DistributedDataParallel
    orig_ddp = ddp.__init__

    def ddp_init(self, *args, **kwargs):
        orig_ddp(self, *args, **kwargs)
        state.ddp_modules.append(self.module)
        state.write_info()  # a hung rank's position needs to know it runs DDP

    ddp.__init__ = ddp_init
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    except ImportError:  # pragma: no cover - torch without FSDP
        return
    orig_fsdp = FSDP.__init__

    def fsdp_init(self, *args, **kwargs):
        orig_fsdp(self, *args, **kwargs)
        state.fsdp1 += 1

    FSDP.__init__ = fsdp_init


def _baseline_gloo(torch) -> None:
    """The CPU baseline of a GPU script (validate's original side): nccl runs as gloo on this CPU."""
    import functools

    import torch.distributed as dist

    orig = dist.init_process_group

    @functools.wraps(orig)
    def init_process_group(*args, **kwargs):
        backend = kwargs.get("backend", args[0] if args else None)
        if isinstance(backend, str) and "nccl" in backend.lower():
            if "backend" in kwargs:
                kwargs["backend"] = "gloo"
            else:
                args = ("gloo", *args[1:])
        return orig(*args, **kwargs)

    dist.init_process_group = init_process_group


def attach(rec, cfg: dict, stop: type) -> RankState:
    """Wire a Recorder for a distributed run (before the script runs, after torch is imported); `stop` is
    the bootstrap's SmokeStop (the bootstrap runs as __main__, so it is passed, not imported)."""
    import torch

    state = RankState(rec, cfg["dist_dir"])
    os.makedirs(state.folder, exist_ok=True)
    state.open_files()
    _hook_wrappers(torch, state)
    if cfg["backend"] == "cpu":
        _baseline_gloo(torch)
    orig_on_step, orig_write = rec.on_step, rec.write

    def on_step(optimizer):
        try:
            orig_on_step(optimizer)
        except stop:
            rec._dist_last_groups = [g["params"] for g in optimizer.param_groups]
            state.fingerprint()
            state.write_info()
            raise
        finally:
            state.progress(len(rec.losses))

    def write():
        orig_write()
        if rec.status in ("exception", "exit"):
            # The bootstrap's final write: a failed rank exits non-zero so that torchrun tears the
            # group down at once (its own behaviour) instead of leaving the others in a collective.
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(1)

    rec.on_step = on_step
    rec.write = write
    state.write_info()
    return state




# ------------------------------------------------------------------------------ ranks started by mp.spawn
def attach_spawned(rec, folder: str, describe=None) -> RankState:
    """In a process the script spawned (checks/child/spawn_main.py): once it is a rank of a process group,
    write `rank{R}.dist.json` into `folder` (rank, world size, pid, the name of its smoke report
    `<report>.proc<PID>`), and at its last step the same fingerprint as a torchrun rank, so the parent
    judges mp.spawn ranks as one job (checks/smoke/spawn_ranks.py). Nothing is written by a spawned process
    that never joins a process group (a DataLoader worker), and the worker's own report and stop
    (os._exit after its steps) are unchanged. A rank also keeps `rank{R}.progress` (pid, steps) and
    dumps its stacks to `rank{R}.stack` on SIGUSR1, as a torchrun rank, so that a run that times out
    names the rank that stopped.

    The function each mp.spawn process runs (checks.emulation.compat.spawn_entry) catches the rank's exception to
    send it to the parent; wrapped here so that the rank's report records it first (`describe`:
    the bootstrap's describe_exception), as a torchrun rank's does."""
    import functools

    import torch
    import torch.distributed as dist

    state = RankState(rec, folder)
    state.info_path = None

    def learn_rank() -> None:
        if state.info_path is not None:
            return
        rank = _dist_rank()
        if rank is None:
            return
        state.rank, state.world_size = rank, _dist_world()
        os.makedirs(folder, exist_ok=True)
        base = os.path.join(folder, f"rank{rank}")
        state.info_path = base + ".dist.json"
        # progress file and stack dump on request, as a torchrun rank: the parent names a hanging rank
        state.progress_fd = os.open(base + ".progress", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        state.stack_file = open(base + ".stack", "w", encoding="utf-8")  # noqa: SIM115 - for the process's life
        faulthandler.register(STACK_SIGNAL, file=state.stack_file, all_threads=True, chain=False)
        progress()
        write()

    def progress() -> None:
        if state.progress_fd is not None:
            os.pwrite(state.progress_fd, f"{os.getpid()} {len(rec.losses)}\n".ljust(32).encode(), 0)

    def write() -> None:
        if state.info_path is None:
            return
        data = dict(state.to_json(), pid=os.getpid(), report=os.path.basename(rec.report_path))
        tmp = f"{state.info_path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, state.info_path)

    orig_init = dist.init_process_group

    @functools.wraps(orig_init)
    def init_process_group(*args, **kwargs):
        out = orig_init(*args, **kwargs)
        learn_rank()
        return out

    dist.init_process_group = init_process_group
    _hook_wrappers(torch, state)
    orig_ddp = torch.nn.parallel.DistributedDataParallel.__init__

    def ddp_init(self, *args, **kwargs):  # a script that initialised the group another way
        orig_ddp(self, *args, **kwargs)
        learn_rank()

    torch.nn.parallel.DistributedDataParallel.__init__ = ddp_init
    orig_on_step, orig_stop = rec.on_step, rec.stop

    def on_step(optimizer):
        rec._dist_last_groups = [g["params"] for g in optimizer.param_groups]
        try:
            return orig_on_step(optimizer)
        finally:
            progress()

    def stop():  # the worker's last step (or a non-finite loss): fingerprint before it ends
        learn_rank()
        if state.info_path is not None:
            try:
                state.fingerprint()
            except Exception as exc:  # noqa: BLE001 - the rank's own verdict must still be written
                state.replicas = {"params": {}, "fsdp1_modules": state.fsdp1, "error": f"{type(exc).__name__}: {exc}"}
            write()
        return orig_stop()

    rec.on_step, rec.stop = on_step, stop
    state.write_info = write  # the DDP hook of _hook_wrappers calls it
    if describe is not None:
        _record_spawned_exceptions(rec, describe)
    return state


def _record_spawned_exceptions(rec, describe) -> None:
    import functools

    from checks.emulation import compat

    module, orig_wrap = compat.spawn_entry()

    @functools.wraps(orig_wrap)  # same qualified name: a rank that spawns again still pickles it
    def wrap(fn, i, args, *rest, **kwargs):
        def recorded(*a, **kw):
            try:
                return fn(*a, **kw)
            except Exception as exc:
                if rec.status == "running":
                    rec.status, rec.exception = "exception", describe(exc, rec.script)
                    try:
                        rec.write()
                    except OSError:
                        pass
                raise

        return orig_wrap(recorded, i, args, *rest, **kwargs)

    setattr(module, orig_wrap.__name__, wrap)
