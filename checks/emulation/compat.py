"""Every private torch / msprobe name the runtime side touches, in one place.

Users bring whatever torch and msprobe they have. Private names move between releases; when one has
moved, the caller gets a `CompatError` that names the missing name and the installed torch / msprobe
version (never a bare AttributeError from deep inside a smoke run). Nothing here imports torch or
msprobe at module import: each accessor imports what it needs when called (inside the smoke child).

| accessor                         | private name it reaches                                         |
|----------------------------------|-----------------------------------------------------------------|
| `torch_dispatch_mode()`          | `torch.utils._python_dispatch.TorchDispatchMode`                |
| `grad_scaler_internals()`        | `torch.amp.GradScaler._unscale_grads_`                          |
| `run_optimizer_hook_first()`     | `torch.optim.optimizer._global_optimizer_post_hooks`            |
| `register_device_module()`       | `torch._register_device_module`                                 |
| `device_context_class()`         | `torch.utils._device.DeviceContext`                             |
| `accelerator_probe()`            | `torch._C._get_accelerator` (FSDP's default mesh and device)    |
| `torchscript_builtin_twin()`     | `torch.jit._builtins._find_builtin` / `_register_builtin`       |
| `below_autocast_cpu()`           | `torch._C._ExcludeDispatchKeyGuard`, `DispatchKey.AutocastCPU`  |
| `triton_probes_module()`         | `torch.utils._triton` (`has_triton_package`, `has_triton`)      |
| `DDP_SYNC_BATCHNORM_CHECK`       | `DistributedDataParallel._passing_sync_batchnorm_handle`        |
| `fsdp2_param_class()`            | `torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam`     |
|                                  | (`_init_sharded_param`, `init_unsharded_param`)                 |
| `spawn_entry()`                  | `torch.multiprocessing.spawn._wrap` (each mp.spawn process)     |
| `msprobe_pt_compare()`           | `msprobe.pytorch.compare.pt_compare.pt_compare`                 |
| `MSPROBE_DUMP_MODULES`           | msprobe's dump internals imported before the debugger starts    |
| `MSPROBE_STAT_PROCESSOR`         | the module of msprobe's `get_stat_info` (the dump's statistics) |
| `MSPROBE_SCRIPT_WRAPPER`         | the module of msprobe's `patch_triton_jitfunction_run`          |
| `MSPROBE_API_REGISTRY`           | the module of msprobe's `ApiWrapper` (the dump's API names)     |
| `msprobe_dump_paused()`          | `msprobe.core.dump.hook_manager.BaseHookManager.inner_switch`   |
"""
from __future__ import annotations

import contextlib
import importlib
import sys
from importlib import metadata

# msprobe modules the API dump needs imported while torch_npu is hidden (see checks.validate.child).
MSPROBE_DUMP_MODULES = (
    "msprobe.core.dump.data_dump.data_processor.pytorch_processor",
    "msprobe.pytorch.dump.api_dump.api_register",
    "msprobe.pytorch.common.utils",
)
# the module whose `get_stat_info` takes each dumped tensor's statistics (checks.child.msprobe_speedups)
MSPROBE_STAT_PROCESSOR = MSPROBE_DUMP_MODULES[0]
# the module whose `patch_triton_jitfunction_run` the dump's start calls (checks.child.msprobe_speedups)
MSPROBE_SCRIPT_WRAPPER = "msprobe.pytorch.dump.api_dump.script_wrapper"
# the module of ApiWrapper, whose _get_api_names lists the dump's API names (checks.child.msprobe_speedups)
MSPROBE_API_REGISTRY = "msprobe.core.dump.api_dump.api_registry"


class CompatError(RuntimeError):
    """A private torch/msprobe name npu-migrate relies on is missing from the installed version."""


def _version(dist: str) -> str:
    loaded = sys.modules.get(dist)
    if getattr(loaded, "__version__", None):
        return str(loaded.__version__)
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _missing(what: str, dist: str, tested: str, cause: BaseException | None = None) -> CompatError:
    err = CompatError(f"{what} is not available in {dist} {_version(dist)} (npu-migrate was tested with {tested}); "
                      f"this {dist} version is not supported by npu-migrate's runtime checks yet")
    err.__cause__ = cause
    return err


def _torch_attr(module: str, name: str):
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise _missing(f"{module}.{name}", "torch", "torch 2.5-2.14", exc) from exc


def torch_dispatch_mode() -> type:
    """The base class of the op tracer (a Python dispatch mode sees every aten op)."""
    return _torch_attr("torch.utils._python_dispatch", "TorchDispatchMode")


def grad_scaler_internals() -> tuple[str, ...]:
    """GradScaler methods whose work is torch's bookkeeping, not the user's training (kept out of the op trace)."""
    scaler = _torch_attr("torch.amp", "GradScaler")
    names = ("unscale_", "update", "_unscale_grads_")
    for name in names:
        if not callable(getattr(scaler, name, None)):
            raise _missing(f"torch.amp.GradScaler.{name}", "torch", "torch 2.5-2.14")
    return names


def run_optimizer_hook_first(handle) -> None:
    """Move a global optimizer post-step hook before the hooks registered earlier."""
    hooks = _torch_attr("torch.optim.optimizer", "_global_optimizer_post_hooks")
    try:
        hooks.move_to_end(handle.id, last=False)
    except (AttributeError, KeyError) as exc:
        raise _missing("torch.optim.optimizer._global_optimizer_post_hooks (an OrderedDict keyed by handle id)",
                       "torch", "torch 2.5-2.14", exc) from exc


def register_device_module(name: str, module) -> None:
    """`torch.npu` (the stand-in) as torch's device module for the renamed PrivateUse1 backend."""
    _torch_attr("torch", "_register_device_module")(name, module)


def device_context_class() -> type:
    """The class behind `with torch.device(...)` (its __init__ takes the device to map)."""
    return _torch_attr("torch.utils._device", "DeviceContext")


def torchscript_builtin_twin(original, wrapper) -> None:
    """Make TorchScript compile `wrapper` as the aten op `original` is (a device-mapping wrapper of
    torch.zeros, torch.ones_like, ...): TorchScript would otherwise try to compile the Python wrapper
    itself and fail. Nothing happens when `original` is no TorchScript builtin."""
    find = _torch_attr("torch.jit._builtins", "_find_builtin")
    op = find(original)
    if op is not None:
        _torch_attr("torch.jit._builtins", "_register_builtin")(wrapper, op)


def below_autocast_cpu():
    """A context manager factory: `below_autocast_cpu()()` runs its block below the AutocastCPU
    dispatch key (what an autocast kernel does before calling the op it casts for)."""
    guard = _torch_attr("torch._C", "_ExcludeDispatchKeyGuard")
    keys = _torch_attr("torch._C", "DispatchKeySet")(_torch_attr("torch._C", "DispatchKey").AutocastCPU)
    return lambda: guard(keys)


def triton_probes_module():
    """The module torch's inductor asks whether triton is there (`has_triton_package`, `has_triton`)."""
    module = importlib.import_module("torch.utils._triton")
    for name in ("has_triton_package", "has_triton"):
        if not callable(getattr(module, name, None)):
            raise _missing(f"torch.utils._triton.{name}", "torch", "torch 2.5-2.14")
    return module


# DDP's check that refuses SyncBatchNorm in a CPU module (absent: nothing refuses it).
DDP_SYNC_BATCHNORM_CHECK = "_passing_sync_batchnorm_handle"


def accelerator_probe():
    """`torch._C._get_accelerator`: what FSDP (default DeviceMesh, FSDP1's device) and barrier ask for
    the accelerator; the stand-in answers npu (checks/standin/torch_npu/_dist_mesh.py)."""
    probe = _torch_attr("torch._C", "_get_accelerator")
    if not callable(probe):
        raise _missing("torch._C._get_accelerator (callable)", "torch", "torch 2.5-2.14")
    return probe


FSDP2_PARAM_METHODS = ("_init_sharded_param", "init_unsharded_param")


def fsdp2_param_class() -> type:
    """FSDP2's per-parameter state; the stand-in wraps FSDP2_PARAM_METHODS so the sharded and unsharded
    parameters it makes keep the emulated-NPU mark (they set `sharded_param` / `_unsharded_param`)."""
    cls = _torch_attr("torch.distributed.fsdp._fully_shard._fsdp_param", "FSDPParam")
    for name in FSDP2_PARAM_METHODS:
        if not callable(getattr(cls, name, None)):
            raise _missing(f"torch.distributed.fsdp._fully_shard._fsdp_param.FSDPParam.{name}", "torch",
                           "torch 2.6-2.14")
    return cls


def spawn_entry():
    """(module, function): `torch.multiprocessing.spawn._wrap(fn, i, args, error_file)`, what each process
    started by mp.spawn runs; it catches the rank's exception (so the smoke recorder wraps `fn`)."""
    fn = _torch_attr("torch.multiprocessing.spawn", "_wrap")
    try:
        params = list(__import__("inspect").signature(fn).parameters)
    except (TypeError, ValueError) as exc:
        raise _missing("torch.multiprocessing.spawn._wrap(fn, i, args, error_file)", "torch", "torch 2.5-2.14",
                       exc) from exc
    if params[:3] != ["fn", "i", "args"]:
        raise _missing("torch.multiprocessing.spawn._wrap(fn, i, args, error_file)", "torch", "torch 2.5-2.14")
    return importlib.import_module("torch.multiprocessing.spawn"), fn


def msprobe_pt_compare():
    """msprobe's Python entry of `msprobe compare` for PyTorch dumps."""
    try:
        from msprobe.pytorch.compare.pt_compare import pt_compare
    except (ImportError, AttributeError) as exc:
        raise _missing("msprobe.pytorch.compare.pt_compare.pt_compare", "mindstudio-probe", "mindstudio-probe 26.2",
                       exc) from exc
    return pt_compare


def import_msprobe_dump_modules() -> None:
    """Import msprobe's dump internals now (they decide NPU vs CPU at import time)."""
    for name in MSPROBE_DUMP_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise _missing(name, "mindstudio-probe", "mindstudio-probe 26.2", exc) from exc


@contextlib.contextmanager
def msprobe_dump_paused():
    """msprobe's API dump skips the torch calls made in this block (this thread): its own switch for the work
    of its hooks (`BaseHookManager.inner_switch`), for the tool's own work inside a dumped step."""
    manager = sys.modules.get("msprobe.core.dump.hook_manager")
    base = getattr(manager, "BaseHookManager", None)
    if base is None:
        yield
        return
    import threading

    tid = threading.get_ident()
    switch = base.inner_switch
    before = switch[tid]
    switch[tid] = True
    try:
        yield
    finally:
        base.inner_switch[tid] = before


def msprobe_wrap_dumped_api(register, names, wrap) -> bool:
    """msprobe's API wrapper of each of `names` (its registry `register`, service.api_register) wrapped once more by
    `wrap(name, wrapper)`, outside it: msprobe puts its wrappers back on the torch modules at every debugger start, from its
    registry's `wrapped_api_attr`, so a function set on the module itself is replaced; wrapped there, what `wrap`
    passes on is what the dump records. False where msprobe's registry is not the one tested (mindstudio-probe 26.2)."""
    groups = getattr(register, "wrapped_api_attr", None)
    if not isinstance(groups, dict):
        return False
    done = False
    for wrapped in groups.values():
        for name in names:
            pairs = wrapped.get(name) if isinstance(wrapped, dict) else None
            if isinstance(pairs, list):
                pairs[:] = [(modules, wrap(name, func)) for modules, func in pairs]
                done = True
    if done and getattr(register, "all_api_registered", False) and hasattr(register, "register_all_api"):
        register.register_all_api()
    return done
