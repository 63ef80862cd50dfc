"""The one configuration of a smoke child, for every way it is launched (parent side and child side, no torch).

One process (checks/smoke/run.py), torchrun ranks (checks/distributed/run.py) and the processes the script
spawns itself (mp.spawn: checks/child/spawn_main.py, through checks/child/bootstrap.py) all run the bootstrap
with a `ChildConfig`. Both parents build it with `ChildConfig.build` from the same options and hand
it over with `child_env`, so an option cannot mean one thing for one process and another under
`--nproc-per-node` (it once did: `--autocast bf16` computed in float16 under torchrun, which was
handed an older on/off switch). The child reads it back with `ChildConfig.from_env`, which refuses a
configuration it does not know.

Environment variables cross the process boundary only where the child (or what it starts) must read
them before its imports, or where a library it runs reads them: the configuration itself
(CONFIG_ENV), the fake-data folder, CUDA_VISIBLE_DEVICES, COLUMNS/LINES (the tool's terminal size),
HYDRA_FULL_ERROR (Hydra re-raises a failed task's exception), and the process guard's run marker
(checks/launch/process.py).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, fields

from checks import module_file

CONFIG_ENV = "NPU_MIGRATE_SMOKE"
BOOTSTRAP = module_file("checks.child.bootstrap")  # what the child runs
RANKS_SUFFIX = ".ranks"  # <report>.ranks/ holds the mp.spawn ranks' rank{R}.dist.json (checks/smoke/spawn_ranks.py)
FAKE_DATA_DIR_ENV = "NPU_MIGRATE_FAKE_DATA_DIR"  # checks/emulation/fakedata_datasets.py reads it
BACKENDS = ("auto", "npu", "emulated", "cpu", "cuda", "cuda-emulated")
AUTOCAST_POLICIES = ("off", "native", "bf16", "float32")  # see checks.emulation.devicemap
# "1": the emulated device's random draws come from the CPU generator (checks.emulation.devicemap.device_generator)
SHARED_GENERATOR_ENV = "NPU_MIGRATE_SHARED_DEVICE_GENERATOR"
# backends whose run reads the torch_npu knowledge base (the stand-in's API, the CUDA twin's map)
KB_BACKENDS = ("auto", "emulated", "npu", "cuda-emulated")
# backends that must not touch a GPU of this machine
NO_GPU_BACKENDS = ("emulated", "cpu", "cuda-emulated")
NO_TORCH = ("could not run: torch is not installed for {python}; install it with "
            "`{python} -m pip install torch` (the CPU build is enough for smoke and validate)")


def autoload(version: str | None) -> bool:
    """torch >= 2.5 imports an installed torch_npu at `import torch` (device backend autoload)."""
    if not version:
        return False
    major, minor = (int(x) for x in version.split(".")[:2])
    return (major, minor) >= (2, 5)


def check_options(script: str, *, steps: int, timeout: float, backend: str, autocast: str,
                  script_may_be_late: bool = False) -> str | None:
    """What is wrong with a run's options (the same words for one process and N ranks), or None."""
    if backend not in BACKENDS:
        return f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})"
    if autocast not in AUTOCAST_POLICIES:
        return f"unknown autocast policy {autocast!r} (one of {', '.join(AUTOCAST_POLICIES)})"
    if not script_may_be_late and not os.path.isfile(script):
        return f"script not found: {script}"
    if str(script).endswith(".ipynb"):
        return notebook_problem(script)
    if steps < 1:
        return f"--steps must be at least 1 (got {steps})"
    if timeout <= 0:
        return f"--timeout must be positive (got {timeout})"
    return None


def notebook_problem(path: str) -> str:
    """Why a notebook is not run (exit 2), and the command that makes a script of it. The bootstrap runs
    a Python file as `__main__`; a notebook's JSON would run as Python (`NameError: null`). Its cells
    are read with the reader analyze and apply use (migrate/sources.py) to say what the conversion meets."""
    from migrate.sources import MalformedInput, read_notebook

    stem = os.path.splitext(path)[0]
    convert = (f"convert it first: `jupyter nbconvert --to script {path}` (writes {stem}.py; IPython magics and "
               f"`!` lines become get_ipython() calls: remove them), then run {stem}.py")
    if not os.path.isfile(path):  # validate's copy, not written yet: the reason is the same
        return f"{path} is a Jupyter notebook: smoke, validate and profile run Python scripts; {convert}"
    try:
        with open(path, encoding="utf-8") as handle:
            cells = read_notebook(handle.read())
    except (OSError, UnicodeDecodeError, MalformedInput) as exc:
        return f"{path} is not a readable notebook ({exc}); smoke, validate and profile run Python scripts"
    shell = [str(c.index) for c in cells if c.shell_source.strip()]
    where = f"; shell lines in cells {', '.join(shell)}" if shell else ""
    return (f"{path} is a Jupyter notebook ({len(cells)} code cells{where}): smoke, validate and profile run "
            f"Python scripts; {convert}")



@dataclass(frozen=True)
class Prepared:
    """The options of a run checked and resolved, the same way for one process and N ranks."""

    problem: str | None  # set: the run cannot start (exit 2), the rest is unset
    backend: str  # "auto" resolved to the backend found here
    kb_version: str | None = None
    warnings: tuple[str, ...] = ()


def prepare(script: str, *, steps: int, timeout: float, backend: str, autocast: str, torch_npu_version: str | None,
            python: str | None, script_may_be_late: bool = False) -> Prepared:
    """Check the options, resolve the torch_npu version and the backend `auto` (torch-free)."""
    import importlib.util

    problem = check_options(script, steps=steps, timeout=timeout, backend=backend, autocast=autocast,
                            script_may_be_late=script_may_be_late)
    if problem is None and python is None and importlib.util.find_spec("torch") is None:
        import sys

        problem = NO_TORCH.format(python=sys.executable)
    if problem:
        return Prepared(problem, backend)
    kb_version = None
    if backend in KB_BACKENDS:
        from migrate import knowledge

        try:
            kb_version = knowledge.resolve_version(torch_npu_version)
        except ValueError as exc:
            return Prepared(str(exc), backend)
    warnings = ()
    if backend == "auto":
        from checks.launch.backend import detect

        detection = detect(python)
        backend = detection.backend
        warnings = (f"backend auto -> {backend}: {detection.reason}",)
    return Prepared(None, backend, kb_version, warnings)


def reported_version(backend: str, kb_version: str | None) -> str | None:
    """The torch_npu version a result names: only runs on the NPU or its stand-in have one."""
    return kb_version if backend in ("npu", "emulated") else None


@dataclass(frozen=True)
class ChildConfig:
    """What the bootstrap needs to run the script: one field per option, typed, nothing implied."""

    report: str  # the child's JSON report (a torchrun rank writes rank{R}.json in dist_dir instead)
    steps: int
    backend: str  # resolved: never "auto"
    op_trace: bool = True
    fake_data: bool = False
    seed: int | None = None
    torch_npu_version: str | None = None  # resolved knowledge-base version (None: not an NPU-side run)
    autocast: str = "off"  # one of AUTOCAST_POLICIES
    wait_for_script: float = 0.0
    autoload: bool = False  # import the (stand-in) torch_npu at `import torch`, as torch >= 2.5 does
    dist_dir: str | None = None  # a torchrun rank: the job's report folder (checks/child/dist_child.py)
    loop_trace: bool = False  # smoke --resume-check: a state snapshot per step (checks/child/loop_observer.py)
    stop_after_checkpoint: bool = False  # its first half: stop at the first checkpoint after `steps` steps

    @classmethod
    def build(cls, *, report: str, steps: int, backend: str, kb_version: str | None, op_trace: bool = True,
              fake_data: bool = False, seed: int | None = None, autocast: str = "off", wait_for_script: float = 0.0,
              dist_dir: str | None = None, loop_trace: bool = False, stop_after_checkpoint: bool = False) -> ChildConfig:
        return cls(report=report, steps=int(steps), backend=backend, op_trace=bool(op_trace), fake_data=bool(fake_data),
                   seed=seed, torch_npu_version=kb_version, autocast=autocast, wait_for_script=float(wait_for_script),
                   autoload=autoload(kb_version) and backend in ("npu", "emulated"), dist_dir=dist_dir,
                   loop_trace=bool(loop_trace), stop_after_checkpoint=bool(stop_after_checkpoint))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ChildConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown smoke child configuration keys: {', '.join(unknown)}")
        config = cls(**data)
        if config.autocast not in AUTOCAST_POLICIES:
            raise ValueError(f"unknown autocast policy {config.autocast!r}")
        return config

    @classmethod
    def from_env(cls, environ=None) -> ChildConfig:
        """In the child: read (and remove) the configuration the parent set."""
        environ = os.environ if environ is None else environ
        return cls.from_json(json.loads(environ.pop(CONFIG_ENV)))

    def child_env(self, base: dict, extra: dict | None = None, fake_data_dir: str | None = None) -> dict:
        """The child's environment: `base` (the parent's), then `extra` (the caller's), then the run's own."""
        env = dict(base)
        env.update(extra or {})
        # Hydra catches the task's exception, prints it and exits 1; with this it re-raises it, so the
        # report names the real exception at the user's deepest frame (hydra/_internal/utils.py run_and_report)
        env.setdefault("HYDRA_FULL_ERROR", "1")
        env[CONFIG_ENV] = json.dumps(self.to_json())
        env["PYTHONUNBUFFERED"] = "1"
        # The child's stdin is /dev/null (a run never waits for input; docs/smoke.md): a script sizing a
        # progress bar gets the tool's terminal size (80x24 without one) from COLUMNS/LINES, which
        # shutil.get_terminal_size, tqdm and rich read first. `stty size` has no terminal to ask.
        size = shutil.get_terminal_size()
        env.setdefault("COLUMNS", str(size.columns))
        env.setdefault("LINES", str(size.lines))
        if self.fake_data and fake_data_dir:  # generated dataset files, removed by the parent after the run
            env[FAKE_DATA_DIR_ENV] = fake_data_dir
        if self.backend in NO_GPU_BACKENDS:
            # Neither an emulated host nor the CPU baseline may touch a GPU of this machine.
            env["CUDA_VISIBLE_DEVICES"] = ""
        return env
