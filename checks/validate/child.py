"""Child-side hooks for `npu-migrate validate`, executed inside the training process.

It is not imported by the tool: `validate` places one line in its temporary copy of each script,
`__import__("runpy").run_path(<this file>)`, right after the docstring and `__future__` imports, so
the user's own files are never edited and line numbers shift by at most one (mapped back for stacks).

What it does depends on environment variables set by the parent (never by users):
- NPU_VALIDATE_DUMP_CONFIG: path of an msprobe PrecisionDebugger config (task statistics, level L1,
  `step` = the steps to keep). The debugger is started before the script's first line and cut into
  steps at every optimizer step (in a loop with no optimizer, at the end of every backward() the smoke's recorder
  counts as a step: the hand-written update then falls into the next step), so the user's script needs no msprobe code. The config_check pack's own
  statistics (ConfigChecker's dataset and weights items: Tensor.max/min/mean/norm of the model's inputs and
  parameters before every forward) run with the dump paused: msprobe numbers the APIs of a step by call
  count, so dumped they would shift the numbers of the script's own `x.max()` after them, and a run with
  the hooks would pair its entries with the wrong ones of a run without them (bundle schema 2).
- NPU_VALIDATE_PACK_STATS_DUMPED=1 (validate --baseline of a schema-1 bundle): the pack's statistics are dumped
  as they were when that bundle was recorded, so that both dumps number the same calls alike.
- NPU_MIGRATE_NO_DROPOUT=1 (`baseline --no-dropout`, and validate --baseline of such a bundle): every
  dropout's probability 0 with msprobe's own remove_dropout (what its seed_all(rm_dropout=True) does for
  a precision comparison across hardware), before the script's first line, attention's dropout_p included
  (scaled_dot_product_attention, multi_head_attention_forward: msprobe's leaves them on).
- NPU_VALIDATE_CONFIG_COMPARE (validate, the migrated run of a one-process job): the config_check comparison of
  the two packs, run in this process once the run's report is written (msprobe and pandas are imported here
  already), instead of in a process of validate's own that imports them again (msprobe_bridge.compare_in_run).
- NPU_MIGRATE_STRICT_FP32=1 (`baseline --strict-fp32`, and validate --baseline of such a bundle): float32
  convolutions and matrix products in full float32: TF32 off on a GPU (cuDNN allows it by default), HF32
  off on an NPU (torch_npu allows it for convolutions by default), before the script's first line.
- NPU_MIGRATE_PRECISION_FLAGS=<path> (baseline's recording): the float32 precision switches as the run left them
  (torch.backends.cuda.matmul/cudnn.allow_tf32, torch.get_float32_matmul_precision, torch_npu's allow_hf32), written
  as JSON to <path> once the run's report is written: a script that turns TF32 on itself wins over --strict-fp32,
  and the bundle then says what the recorded run really computed with.
"""

import contextlib
import os


def _compat():
    """checks.emulation.compat, also when this file runs in a process whose sys.path lacks the project root."""
    try:
        from checks.emulation import compat
    except ImportError:
        import importlib.util

        here = os.path.abspath(__file__)
        path = os.path.join(here[:here.rindex(os.sep + "checks" + os.sep)], *"checks.emulation.compat".split(".")) + ".py"
        spec = importlib.util.spec_from_file_location("checks_compat", path)
        compat = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(compat)
    return compat


@contextlib.contextmanager
def _standin_hidden():
    """msprobe imported with the torch_npu stand-in hidden.

    msprobe decides at import time whether it runs on an NPU (`import torch_npu` succeeds) and then
    uses torch_npu-only types. Under the CPU-backed stand-in every tensor is a CPU tensor, so msprobe
    must take its GPU/CPU path; on a real NPU host the stand-in is not loaded and nothing is hidden.
    """
    import sys

    loaded = sys.modules.get("torch_npu")
    # the stand-in (checks/standin/torch_npu, first on sys.path only in emulated mode) marks itself
    hide = loaded is not None and bool(getattr(loaded, "__npu_migrate_standin__", False))
    if hide:
        sys.modules["torch_npu"] = None  # makes `import torch_npu` raise ImportError
    try:
        yield
    finally:
        if hide:
            sys.modules["torch_npu"] = loaded


def _import_msprobe_as_on_cpu(config_path: str):
    """msprobe's dump machinery, imported with the stand-in hidden (_standin_hidden), with the cyclic garbage
    collector off (migrate.fileio.no_cycle_collection): msprobe's imports and the debugger's start (a wrapper
    module for each of ~1,100 torch APIs) allocate ~90 collections' worth of objects that all stay alive, and
    each collection walks what the process holds (torch, the script's model): ~0.2 s CPU of a recording's.
    What they made then goes straight to the oldest generation (`freeze`): promoted through the young ones, those
    ~45k objects counted as new there and triggered a full collection a few dozen steps into the run (the MLP at
    step ~36: 350k objects walked, 0.16-0.3 s), which the smoke of the same script never reaches."""
    from migrate.fileio import no_cycle_collection

    with _standin_hidden(), no_cycle_collection(freeze=True):
        from msprobe.pytorch import PrecisionDebugger

        _compat().import_msprobe_dump_modules()
        return PrecisionDebugger(config_path=config_path)


# the attention functions that apply a dropout of their own (no F.dropout call) through their `dropout_p`: at the
# argument's position in torch.nn.functional's signature. nn.MultiheadAttention (nn.TransformerEncoder's) hands
# dropout_p=self.dropout to multi_head_attention_forward, which applies it in scaled_dot_product_attention.
ATTENTION_DROPOUT_P = {"scaled_dot_product_attention": 4, "multi_head_attention_forward": 10}


def _remove_dropout() -> None:
    """Every dropout's probability 0: msprobe's own function (torch.nn.functional.dropout, dropout2d, dropout3d: the
    nn.Dropout modules call them), and attention's dropout_p (ATTENTION_DROPOUT_P), which msprobe's leaves on."""
    import torch.nn.functional as F

    with _standin_hidden():
        from msprobe.pytorch.common.utils import remove_dropout

    remove_dropout()
    for name in ATTENTION_DROPOUT_P:
        func = getattr(F, name, None)
        if func is not None and not getattr(func, "__npu_migrate_no_dropout__", False):
            setattr(F, name, _attention_without_dropout(name, func))


def _attention_without_dropout(name: str, func):
    """`func` (torch.nn.functional.<name>, or msprobe's wrapper of it) called with dropout_p 0, given by keyword or
    by position."""
    position = ATTENTION_DROPOUT_P[name]

    def without_dropout(*args, **kwargs):
        if len(args) > position:
            args = (*args[:position], 0.0, *args[position + 1:])
        elif "dropout_p" in kwargs:
            kwargs["dropout_p"] = 0.0
        return func(*args, **kwargs)

    without_dropout.__name__ = getattr(func, "__name__", name)
    without_dropout.__doc__ = getattr(func, "__doc__", None)
    without_dropout.__npu_migrate_no_dropout__ = True
    return without_dropout


def _attention_dropout_outside_the_dump(debugger) -> None:
    """msprobe's API wrappers (put on torch.nn.functional at every debugger start, around what was there when it
    made them: the functions of _remove_dropout) record the caller's dropout_p; wrapped once more outside them, the
    dump records the 0 the call runs with."""
    register = getattr(getattr(debugger, "service", None), "api_register", None)
    _compat().msprobe_wrap_dumped_api(register, tuple(ATTENTION_DROPOUT_P), _attention_without_dropout)


def _install_dump(config_path: str) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook

    debugger = _import_msprobe_as_on_cpu(config_path)

    steps = [0]  # training steps so far; -1 once the dump is over

    def after_optimizer_step(optimizer, args, kwargs):
        next_step()

    def next_step(*_):
        """One training step ended (an optimizer step; in a loop with no optimizer the backward() the smoke's
        recorder counts as a step): close this step's dump and open the next."""
        if steps[0] < 0:
            return
        steps[0] += 1
        debugger.stop()
        debugger.step()
        debugger.start()
        service = getattr(debugger, "service", None)
        if getattr(service, "should_stop_service", False):
            # past the last dumped step msprobe's API wrappers stay in place doing nothing (a Python call
            # around every torch API call): the steps left run on torch's own APIs (this hook stays, idle:
            # torch is iterating over the hooks now)
            register = getattr(service, "api_register", None)
            if register is not None and getattr(register, "all_api_registered", False):
                register.restore_all_api()
                if not getattr(register, "all_api_registered", True):
                    import sys

                    print(f"npu-migrate validate: msprobe API dump done after step {steps[0]}; "
                          "the steps left run on torch's own APIs", file=sys.stderr)
            steps[0] = -1

    handle = register_optimizer_step_post_hook(after_optimizer_step)
    # run before hooks registered earlier (the smoke bootstrap stops the run from its own hook at the
    # last step): the step being dumped is closed and written first
    _compat().run_optimizer_hook_first(handle)
    _at_backward_steps(next_step)
    debugger.start()
    if os.environ.get("NPU_MIGRATE_NO_DROPOUT") == "1":
        _attention_dropout_outside_the_dump(debugger)


def _at_backward_steps(callback) -> None:
    """`callback(step)` at the end of every step the smoke's recorder counts by backward() (a loop with no optimizer,
    parameters updated by hand: checks/child/recorder.py BACKWARD_STEP_ENDED); nothing in a loop with an optimizer
    (its steps end at the optimizer step) or outside the smoke bootstrap."""
    try:
        from checks.child import recorder
    except ImportError:
        return
    steps = getattr(recorder, "BACKWARD_STEP_ENDED", None)
    if steps is not None:
        steps.append(callback)


def _pack_statistics_out_of_the_dump(module) -> None:
    """Every collect function of msprobe's ConfigChecker (run before each forward of the model: the dataset and
    weights items' statistics) runs under compat.msprobe_dump_paused(): not dumped, so the script's own
    calls keep their numbers in the dump whether the pack's hooks are attached or not."""
    paused = _compat().msprobe_dump_paused

    def pause(collect):
        if getattr(collect, "__npu_migrate_paused__", False):
            return collect

        def collect_paused(*args, **kwargs):
            with paused():
                return collect(*args, **kwargs)

        collect_paused.__npu_migrate_paused__ = True
        return collect_paused

    _after_pack(module, "paused", lambda funcs: funcs.__setitem__(slice(None), [pause(f) for f in funcs]))


def _carried_inputs_watch():
    """A patch adding one collect function to the ConfigChecker's, loop_observer.watch_carried_inputs: which of the
    model's inputs in the data fingerprint's pack steps are its own outputs of the previous forward (a recurrent
    state), into the run's report, so that validate --baseline reads them as computed state, not data. None outside a
    fingerprinted run (the smoke bootstrap's observe with SAMPLES_ENV)."""
    try:
        from checks.child.loop_observer import watch_carried_inputs
        from checks.validate.bundle import FINGERPRINT_BATCHES
    except ImportError:  # no project on the path, or another checkout's older one: nothing watched
        return None
    collect = watch_carried_inputs(FINGERPRINT_BATCHES)
    if collect is None:
        return None
    return lambda module: _after_pack(module, "carried", lambda funcs: funcs.append(collect))


def _pack_steps_limited(limit: int):
    """A patch stopping the pack's per-forward items after the first `limit` forwards of the hooked model: each collect
    function of msprobe's ConfigChecker (dataset, weights, the carried-inputs watch) runs while msprobe's step counter
    (`step`: forwards so far, from 0) is below `limit`, and returns at once after (checks/validate/hosts.py PACK_STEPS)."""

    def limited(collect):
        if getattr(collect, "__npu_migrate_limited__", False):
            return collect

        def collect_first(model, args, kwargs, step, *more):
            if step < limit:
                return collect(model, args, kwargs, step, *more)
            return None

        collect_first.__npu_migrate_limited__ = True
        return collect_first

    return lambda module: _after_pack(module, "steps", lambda funcs: funcs.__setitem__(slice(None), [limited(f) for f in funcs]))


def _pack_steps() -> int | None:
    """NPU_VALIDATE_PACK_STEPS as a positive count, None when unset or 0 (the recording raises it to the data
    fingerprint's batches before setting it, checks/validate/record.py, and the comparison takes the bundle's)."""
    try:
        limit = int(os.environ.get("NPU_VALIDATE_PACK_STEPS") or 0)
    except ValueError:
        return None
    return limit if limit > 0 else None


def _after_pack(module, tag: str, change) -> None:
    """`change(ConfigChecker.pre_forward_fun_list)` once each ConfigChecker's pack has registered its collect
    functions (the checkers register them while the pack is made); once per `tag`."""
    checker = getattr(module, "ConfigChecker", None)
    pack = getattr(checker, "pack", None)
    if pack is None or tag in getattr(pack, "__npu_migrate_tags__", ()):
        return

    def pack_changed(self):
        pack(self)
        change(type(self).pre_forward_fun_list)

    pack_changed.__npu_migrate_tags__ = (*getattr(pack, "__npu_migrate_tags__", ()), tag)
    checker.pack = pack_changed


def _patch_config_checker(patches) -> None:
    """Each `patch(module)` on msprobe's config_checker module, now or once it is imported."""
    import sys

    name = "msprobe.core.config_check.config_checker"

    def patch_all(module) -> None:
        for patch in patches:
            patch(module)

    if name in sys.modules:
        patch_all(sys.modules[name])
        return
    try:
        from checks.emulation.fakedata import patch_modules
    except ImportError:  # a process without the project on its path: ConfigChecker imported now, then patched
        with _standin_hidden():
            import importlib

            patch_all(importlib.import_module(name))
        return
    patch_modules({name: patch_all})


def _strict_fp32() -> None:
    """TF32 (GPU) and HF32 (NPU) off: torch.backends.cudnn/cuda.matmul.allow_tf32, torch.npu.conv/matmul.allow_hf32
    (torch_npu/npu/npu_config.py: _allowHF32Conv, _allowHF32Matmul)."""
    import torch

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    npu = getattr(torch, "npu", None)
    for name in ("conv", "matmul"):
        flags = getattr(npu, name, None)
        if flags is not None and hasattr(flags, "allow_hf32"):
            flags.allow_hf32 = False


def precision_flags() -> dict:
    """The float32 precision switches as they are now (torch imported by the run already)."""
    import torch

    flags = {"cuda_matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
             "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
             "float32_matmul_precision": str(torch.get_float32_matmul_precision())}
    npu = getattr(torch, "npu", None)
    for name in ("conv", "matmul"):
        switch = getattr(getattr(npu, name, None), "allow_hf32", None)
        if isinstance(switch, bool):
            flags[f"npu_{name}_allow_hf32"] = switch
    return flags


def _after_the_run(action) -> None:
    """`action()` once the run's report is written (checks/child/recorder.py AFTER_REPORT), in this process only (not
    in one the script forks). Outside the smoke bootstrap nothing runs it."""
    try:
        from checks.child import recorder
    except ImportError:
        return
    pid = os.getpid()
    recorder.AFTER_REPORT.append(lambda: action() if os.getpid() == pid else None)


def _write_precision_flags(path: str) -> None:
    """precision_flags() written to `path` (after the run: _after_the_run)."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        json.dump(precision_flags(), handle)


def _compare(spec: str) -> None:
    """msprobe_bridge.compare_in_run(spec) (after the run: _after_the_run). Where the bootstrap does not run it,
    validate compares in its own msprobe child, as it does when no result comes."""
    from checks.validate import msprobe_bridge

    msprobe_bridge.compare_in_run(spec)


if os.environ.get("NPU_MIGRATE_STRICT_FP32") == "1":
    _strict_fp32()
if os.environ.get("NPU_MIGRATE_NO_DROPOUT") == "1":
    _remove_dropout()
_flags = os.environ.pop("NPU_MIGRATE_PRECISION_FLAGS", None)  # popped: processes the script starts do not write it
if _flags:
    _after_the_run(lambda: _write_precision_flags(_flags))
_config = os.environ.get("NPU_VALIDATE_DUMP_CONFIG")
_pause = bool(_config) and os.environ.get("NPU_VALIDATE_PACK_STATS_DUMPED") != "1"
_limit = _pack_steps()
# the step limit last: it wraps what the others put in the list (the paused collectors, the carried-inputs watch)
_pack_patches = [p for p in (_pack_statistics_out_of_the_dump if _pause else None, _carried_inputs_watch(),
                             _pack_steps_limited(_limit) if _limit else None) if p]
if _pack_patches:
    _patch_config_checker(_pack_patches)
if _config:
    _install_dump(_config)
_compare_spec = os.environ.pop("NPU_VALIDATE_CONFIG_COMPARE", None)  # popped: processes the script starts do not compare
if _compare_spec:
    _after_the_run(lambda: _compare(_compare_spec))
