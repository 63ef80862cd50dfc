"""Warm start (opt-in, NPU_MIGRATE_WARM_START=1): smoke children forked from a process that has already
imported torch, instead of a fresh `python checks/child/bootstrap.py` each time.

Why: a process that runs many smoke checks (a test suite, `apply --smoke` over a repository's scripts,
a CI gate) pays `import torch` plus torch's lazy set-up at the first optimizer step in every child:
1.5-3 s on a typical machine, 20-40 s on a host where page faults are slow. A fork of a warmed process
pays neither (measured: a forked child's first training steps in 0.02-1 s).

How: the parent starts one *template* process per environment (`python checks/launch/warmstart.py`), which
imports the bootstrap's torch-free modules, then torch, runs one tiny forward/backward/optimizer step
with a saved and restored RNG state, and waits on a Unix socket. For each run the parent sends the
argv, environment and working directory with the child's stdout/stderr pipes (SCM_RIGHTS); the
template forks twice so that the run's process is re-parented to the parent (a child subreaper, see
checks/launch/process.py), which then owns it like a Popen child: it waits for it, signals its process
group, tracks its descendants. The run's process then looks like a cold one: its own session, its
stdio, the run's environment (the RUN_MARKER in /proc/PID/environ too, written into the template's
placeholder) and the cold command line in /proc/PID/cmdline (written into the template's padding),
fresh torch/`random`/numpy seeds, then `checks.child.bootstrap.main()`.

When it is not used (the run starts cold, as without the option): another python than this one; a
torch_npu installed for this python (torch >= 2.5 would auto-load it at `import torch`, and the
bootstrap must choose the stand-in first); no subreaper (not Linux); the script's folder holds a
module that torch imports at start (`numpy.py`, `typing_extensions.py`...), which a cold child would
import from there; any failure of the template (it is then not asked again in this process).
"""
from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import threading
import time
import uuid

from checks import ROOT, module_file
from checks.launch import warm_wire

ENV = "NPU_MIGRATE_WARM_START"
TEMPLATE = module_file("checks.child.warm_template")
CLIENT = module_file("checks.launch.warm_client")
MARKER_PLACEHOLDER = "0" * 32  # uuid4().hex length: checks.launch.process.ChildGuard's run ids
ARG_PAD = 4096  # bytes of command line the run's process can show as its own
MAX_TEMPLATES = 3
START_TIMEOUT_S = 600.0  # `import torch` on a slow host
PER_RUN_PREFIXES = ("NPU_MIGRATE_", "NPU_VALIDATE_", "PYTEST_")  # read by nothing `import torch` runs
# What a shell or a terminal sets and changes on the way to a run (bash sets `_`, SHLVL and PWD for
# every command), and PYTHONUNBUFFERED (the run's stdio is made unbuffered as a cold start's would be):
# nothing in torch, torchvision or numpy reads them when imported (they name PATH only in Windows
# branches and in functions that run later, e.g. torch/utils/cpp_extension.py). The run's process
# still gets them, with the rest of its environment. HYDRA_FULL_ERROR (set for every smoke child,
# checks/launch/child_config.py) is read by Hydra only when a task fails (hydra/_internal/utils.py), never at import.
PER_RUN_NAMES = frozenset({"PATH", "PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES", "PYTHONUNBUFFERED",
                           "HYDRA_FULL_ERROR"})


DEFAULT = False  # when NPU_MIGRATE_WARM_START is unset; the test suite turns it on in its own processes


def _setting() -> bool | None:
    """NPU_MIGRATE_WARM_START: None when unset."""
    value = os.environ.get(ENV, "").strip().lower()
    return value in ("1", "true", "yes", "on") if value else None


def enabled() -> bool:
    setting = _setting()
    return DEFAULT if setting is None else setting


# ----------------------------------------------------------------------------- parent side
class WarmProcess:
    """The run's process, forked by a template and re-parented to us: the part of Popen smoke uses."""

    def __init__(self, pid: int, stdout, stderr):
        self.pid, self.stdout, self.stderr = pid, stdout, stderr
        self.returncode: int | None = None
        self.args = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # not (or no longer) ours to wait for: ended once /proc says so
                from checks.launch.process import stat_fields

                if (stat_fields(self.pid) or ["Z"])[0] != "Z":
                    return None
                self.returncode = -9  # its status went to another reaper: reported as killed
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(delay if deadline is None else min(delay, max(deadline - time.monotonic(), 0)))
            delay = min(delay * 2, 0.05)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)


class _Template:
    def __init__(self, env: dict, preload: tuple[str, ...]):
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = {**{k: v for k, v in env.items() if not k.startswith(PER_RUN_PREFIXES)},
               "NPU_MIGRATE_RUN_ID": MARKER_PLACEHOLDER}
        self.address = f"npu-migrate-warm-{os.getpid()}-{uuid.uuid4().hex[:16]}"
        cmd = [sys.executable, TEMPLATE, str(child_end.fileno()), ",".join(preload), self.address, " " * ARG_PAD]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, cwd=ROOT, pass_fds=(child_end.fileno(),))
        child_end.close()
        self.sock = parent_end
        self.lock = threading.Lock()
        self.modules: frozenset[str] | None = None  # imported after start-up (a run's first folder)
        self.imported: frozenset[str] = frozenset()  # all (a PYTHONPATH entry, there from the start)
        self.failed = False
        self.key = key_env(env)
        self.entries = own_entries(env)

    def ready(self) -> bool:
        """Wait for the template's greeting (the top-level modules it has imported)."""
        with self.lock:  # validate starts its two sides from two threads
            if self.modules is None and not self.failed:
                self.sock.settimeout(START_TIMEOUT_S)
                try:
                    hello, _ = warm_wire.recv(self.sock)
                    self.modules = frozenset(hello["modules"])
                    self.imported = frozenset(hello["imported"])
                except (OSError, ValueError, KeyError, TypeError):
                    self.failed = True
                finally:
                    self.sock.settimeout(None)
            return not self.failed

    def spawn(self, argv: list[str], env: dict, cwd: str | None, *, merge_stderr: bool = False) -> WarmProcess | None:
        """`python ARGV` forked from the template; its stdout and stderr come back as pipes (one pipe
        for both with merge_stderr, as Popen's stderr=STDOUT)."""
        pipes = [os.pipe()] if merge_stderr else [os.pipe(), os.pipe()]
        write_ends = [w for _, w in pipes] * (2 if merge_stderr else 1)
        try:
            with self.lock:
                self.sock.settimeout(60)
                env = {**env, warm_wire.ADDRESS_ENV: self.address}  # its own children may start warm too
                request = {"argv": [os.fspath(a) for a in argv], "env": env, "cwd": os.fspath(cwd or os.getcwd())}
                try:
                    warm_wire.send(self.sock, request, write_ends)
                    reply, _ = warm_wire.recv(self.sock)
                finally:
                    self.sock.settimeout(None)
        except (OSError, ValueError, TypeError):
            self.failed = True
            reply = {}
        finally:
            for _, w in pipes:
                os.close(w)
        pid = reply.get("pid")
        if not isinstance(pid, int):
            self.failed = True
            for r, _ in pipes:
                os.close(r)
            return None
        readers = [open(r, "rb") for r, _ in pipes]  # noqa: SIM115 - the run's streams, closed by their reader
        return WarmProcess(pid, readers[0], None if merge_stderr else readers[1])

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass


_templates: dict[tuple, _Template] = {}
_pinned: set[tuple] = set()
_registry_lock = threading.Lock()


def key_env(env: dict) -> tuple:
    """The part of the environment that can change what `import torch` does: all but our own
    per-run variables, pytest's and the shell's (PER_RUN_NAMES; the run's process gets its whole
    environment anyway); in PYTHONPATH, empty entries and this project's root (on the template's
    sys.path already) do not count."""
    pairs = {k: v for k, v in env.items() if not k.startswith(PER_RUN_PREFIXES) and k not in PER_RUN_NAMES}
    if "PYTHONPATH" in pairs:
        entries = [e for e in pairs.pop("PYTHONPATH").split(os.pathsep) if e and os.path.abspath(e) != ROOT]
        if entries:
            pairs["PYTHONPATH"] = os.pathsep.join(entries)
    return tuple(sorted(pairs.items()))


def attach_allowed(env: dict) -> bool:
    """A process that is not itself warm may still hand its smoke child to a template that an
    ancestor started (NPU_MIGRATE_WARM_ADDR in its environment: a test session, a warm run), unless
    NPU_MIGRATE_WARM_START=0 says to start cold."""
    return bool(env.get(warm_wire.ADDRESS_ENV)) and _setting() is not False


def shadows(folder: str, modules: frozenset[str], names: list[str] | None = None) -> bool:
    """Whether `folder`, first on sys.path, would give an import of one of `modules` another module: a
    file of that name (any suffix, to be safe) or a package (a folder with __init__.py). A folder
    without __init__.py is only a namespace portion, which a module found later on sys.path beats.
    `names`: the folder's listing where the caller has it."""
    if names is None:
        try:
            names = os.listdir(folder)
        except OSError:
            return False
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            if name in modules and os.path.exists(os.path.join(path, "__init__.py")):
                return True
        elif name.split(".", 1)[0] in modules:
            return True
    return False


def _wants_torchvision(script: str) -> bool:
    try:
        with open(script, "rb") as f:
            return b"torchvision" in f.read(1 << 20)
    except OSError:
        return False


def path_entries(env: dict, cwd: str) -> list[str]:
    """The PYTHONPATH entries a cold start in `cwd` puts on sys.path: absolute (an empty entry is the
    working directory), each once."""
    entries = [os.path.normpath(os.path.join(cwd, e)) for e in env.get("PYTHONPATH", "").split(os.pathsep)] \
        if env.get("PYTHONPATH") else []
    return list(dict.fromkeys(entries))


def inert(entry: str, modules: frozenset[str]) -> bool:
    """Whether a PYTHONPATH entry the template did not have changes nothing its `import torch` did:
    it shadows no module the template imported, holds no sitecustomize/usercustomize (which a cold
    start imports) and no distribution with a `torch.backends` entry point (which `import torch`
    loads, torch >= 2.5). `modules`: all the template imported, start-up modules included (a cold
    start has PYTHONPATH on sys.path from its first import). A missing folder is inert; a zip file
    or an unreadable folder is not."""
    if not os.path.exists(entry):
        return True
    try:
        names = os.listdir(entry)
    except OSError:
        return False
    if shadows(entry, modules | {"sitecustomize", "usercustomize"}, names):
        return False
    for name in names:
        if name.endswith((".dist-info", ".egg-info")):
            try:
                with open(os.path.join(entry, name, "entry_points.txt"), encoding="utf-8", errors="replace") as f:
                    if "torch.backends" in f.read():
                        return False
            except OSError:
                pass
    return True


def own_entries(env: dict) -> list[str]:
    """A template's PYTHONPATH entries (it runs in ROOT), this project's root left out (see key_env)."""
    return [e for e in path_entries(env, ROOT) if e != ROOT]


def path_refused(entries: list[str], env: dict, cwd: str, modules: frozenset[str]) -> str | None:
    """Why a run's PYTHONPATH rules out a template whose own entries are `entries`, or None: the run's
    must hold them (this project's root aside) in their order; an entry the template does not have
    must be inert()."""
    run = [e for e in path_entries(env, cwd) if e != ROOT]
    if [e for e in run if e in entries] != entries:
        return "PYTHONPATH lacks or reorders the template's entries"
    for entry in run:
        if entry not in entries and not inert(entry, modules):
            return f"PYTHONPATH entry {entry} could change what `import torch` did"
    return None


def template_for(env: dict, script: str, cwd: str | None = None) -> _Template | None:
    """The ready template for runs of `script` with this environment (in `cwd`, by default ours); None:
    start them cold (see the module docstring for when)."""
    from checks.launch import process

    if not process.become_subreaper():
        return None
    import importlib.util

    if importlib.util.find_spec("torch_npu") is not None:
        warm_wire.log("cold", script=script, why="a torch_npu is importable here")
        return None
    preload = ("torch", "torchvision") if _wants_torchvision(script) else ("torch",)
    template = _holding(env, preload, os.fspath(cwd or os.getcwd())) or shared_template(env, preload)
    if not template.ready():
        warm_wire.log("cold", script=script, why="the template did not start")
        return None
    if shadows(os.path.dirname(os.path.abspath(script)), template.modules):
        warm_wire.log("cold", script=script, why="the script's folder shadows a module the template imported")
        return None
    return template


def without_path(key: tuple) -> tuple:
    """A key_env() without PYTHONPATH (which path_refused() judges entry by entry)."""
    return tuple((k, v) for k, v in key if k != "PYTHONPATH")


def _holding(env: dict, preload: tuple[str, ...], cwd: str) -> _Template | None:
    """A template of this process that can take the run in place of a new one (which would cost
    another cold `import torch`): the same environment but for PYTHONPATH entries that are inert()
    (a folder of fake packages a test puts first, say; the run's sys.path is rebuilt from its own
    PYTHONPATH, see checks/child/warm_template.py), preloading at least `preload` (a script that does not
    name torchvision can use the test session's torch + torchvision template: torchvision imported
    beside it changes nothing the run does). The exact environment is preferred."""
    key = key_env(env)
    with _registry_lock:
        candidates = [t for (env_key, loaded), t in _templates.items()
                      if without_path(env_key) == without_path(key) and set(preload) <= set(loaded) and not t.failed]
    candidates.sort(key=lambda t: t.key != key)
    for template in candidates:
        if template.key == key:
            return template
        if template.ready() and path_refused(template.entries, env, cwd, template.imported) is None:
            return template
    return None


def shared_template(env: dict, preload: tuple[str, ...], *, pinned: bool = False) -> _Template:
    """This process's template for `env` and `preload` (started now if there is none, not waited
    for). The oldest unpinned template is closed when there are MAX_TEMPLATES; a pinned one stays
    (one whose address this process has handed out, see tests/conftest.py)."""
    key = (key_env(env), tuple(preload))
    with _registry_lock:
        template = _templates.get(key)
        if template is None:
            for old in [k for k in _templates if k not in _pinned][: max(len(_templates) - MAX_TEMPLATES + 1, 0)]:
                _templates.pop(old).close()
            template = _templates[key] = _Template(env, key[1])
            warm_wire.log("template", preload=list(preload), templates=len(_templates))
        if pinned:
            _pinned.add(key)
    return template


def start(argv: list[str], env: dict, cwd: str | None, script: str) -> WarmProcess | None:
    """Start the run from a warm template; None: start it cold."""
    template = template_for(env, script, cwd)
    return template.spawn(argv, env, cwd) if template is not None else None


@atexit.register
def close_all() -> None:
    with _registry_lock:
        while _templates:
            _templates.popitem()[1].close()
        _pinned.clear()
