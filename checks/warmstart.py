"""Warm start (opt-in, NPU_MIGRATE_WARM_START=1): smoke children forked from a process that has already
imported torch, instead of a fresh `python checks/bootstrap.py` each time.

Why: a process that runs many smoke checks (a test suite, `apply --smoke` over a repository's scripts,
a CI gate) pays `import torch` plus torch's lazy set-up at the first optimizer step in every child:
1.5-3 s on a typical machine, 20-40 s on a host where page faults are slow. A fork of a warmed process
pays neither (measured: a forked child's first training steps in 0.02-1 s).

How: the parent starts one *template* process per environment (`python checks/warmstart.py`), which
imports the bootstrap's torch-free modules, then torch, runs one tiny forward/backward/optimizer step
with a saved and restored RNG state, and waits on a Unix socket. For each run the parent sends the
argv, environment and working directory with the child's stdout/stderr pipes (SCM_RIGHTS); the
template forks twice so that the run's process is re-parented to the parent (a child subreaper, see
checks/process.py), which then owns it like a Popen child: it waits for it, signals its process
group, tracks its descendants. The run's process then looks like a cold one: its own session, its
stdio, the run's environment (the RUN_MARKER in /proc/PID/environ too, written into the template's
placeholder) and the cold command line in /proc/PID/cmdline (written into the template's padding),
fresh torch/`random`/numpy seeds, then `checks.bootstrap.main()`.

When it is not used (the run starts cold, as without the option): another python than this one; a
torch_npu installed for this python (torch >= 2.5 would auto-load it at `import torch`, and the
bootstrap must choose the stand-in first); no subreaper (not Linux); the script's folder holds a
module that torch imports at start (`numpy.py`, `typing_extensions.py`...), which a cold child would
import from there; any failure of the template (it is then not asked again in this process).
"""
from __future__ import annotations

import atexit
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

ENV = "NPU_MIGRATE_WARM_START"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPT = os.path.abspath(__file__)
MARKER_PLACEHOLDER = "0" * 32  # uuid4().hex length: checks.process.ChildGuard's run ids
ARG_PAD = 4096  # bytes of command line the run's process can show as its own
MAX_TEMPLATES = 2
START_TIMEOUT_S = 600.0  # `import torch` on a slow host
PER_RUN_PREFIXES = ("NPU_MIGRATE_", "PYTEST_")  # read by nothing `import torch` runs


DEFAULT = False  # when NPU_MIGRATE_WARM_START is unset; the test suite turns it on in its own processes


def enabled() -> bool:
    value = os.environ.get(ENV, "").strip().lower()
    return DEFAULT if not value else value in ("1", "true", "yes", "on")


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
                from checks.process import stat_fields

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
        cmd = [sys.executable, SCRIPT, str(child_end.fileno()), ",".join(preload), " " * ARG_PAD]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, cwd=ROOT, pass_fds=(child_end.fileno(),))
        child_end.close()
        self.sock = parent_end
        self.lock = threading.Lock()
        self.modules: frozenset[str] | None = None
        self.failed = False

    def ready(self) -> bool:
        """Wait for the template's greeting (the top-level modules it has imported)."""
        with self.lock:  # validate starts its two sides from two threads
            if self.modules is None and not self.failed:
                self.sock.settimeout(START_TIMEOUT_S)
                try:
                    hello = _recv_json(self.sock)
                    self.modules = frozenset(hello["modules"])
                except (OSError, ValueError, KeyError, TypeError):
                    self.failed = True
                finally:
                    self.sock.settimeout(None)
            return not self.failed

    def spawn(self, argv: list[str], env: dict, cwd: str | None) -> WarmProcess | None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            with self.lock:
                self.sock.settimeout(60)
                payload = json.dumps({"argv": argv, "env": env, "cwd": cwd or os.getcwd()}).encode()
                socket.send_fds(self.sock, [struct.pack("!I", len(payload)) + payload], [out_w, err_w])
                reply = _recv_json(self.sock)
        except (OSError, ValueError):
            self.failed = True
            for fd in (out_r, err_r):
                os.close(fd)
            return None
        finally:
            os.close(out_w)
            os.close(err_w)
        pid = reply.get("pid")
        if not isinstance(pid, int):
            self.failed = True
            os.close(out_r)
            os.close(err_r)
            return None
        return WarmProcess(pid, open(out_r, "rb"), open(err_r, "rb"))

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
_registry_lock = threading.Lock()


def _key_env(env: dict) -> tuple:
    """The part of the environment that can change what `import torch` does: all but our own
    per-run variables and pytest's (the run's process gets its whole environment anyway)."""
    return tuple(sorted((k, v) for k, v in env.items() if not k.startswith(PER_RUN_PREFIXES)))


def _shadows(folder: str, modules: frozenset[str]) -> bool:
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        stem = name.split(".", 1)[0] if not os.path.isdir(os.path.join(folder, name)) else name
        if stem in modules:
            return True
    return False


def _wants_torchvision(script: str) -> bool:
    try:
        with open(script, "rb") as f:
            return b"torchvision" in f.read(1 << 20)
    except OSError:
        return False


def start(argv: list[str], env: dict, cwd: str | None, script: str) -> WarmProcess | None:
    """Start the run from a warm template; None: start it cold (see the module docstring for when)."""
    from checks import process

    if not process.become_subreaper():
        return None
    import importlib.util

    if importlib.util.find_spec("torch_npu") is not None:
        return None
    preload = ("torch", "torchvision") if _wants_torchvision(script) else ("torch",)
    key = (_key_env(env), preload)
    with _registry_lock:
        template = _templates.get(key)
        if template is None:
            while len(_templates) >= MAX_TEMPLATES:
                _templates.pop(next(iter(_templates))).close()
            template = _templates[key] = _Template(env, preload)
    if not template.ready():
        return None
    if _shadows(os.path.dirname(os.path.abspath(script)), template.modules):
        return None
    return template.spawn(argv, env, cwd)


@atexit.register
def close_all() -> None:
    with _registry_lock:
        while _templates:
            _templates.popitem()[1].close()


def _recv_json(sock: socket.socket) -> dict:
    head = _recv_exact(sock, 4)
    return json.loads(_recv_exact(sock, struct.unpack("!I", head)[0]))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise OSError("warm-start template closed the connection")
        data += chunk
    return data


def _send_json(sock: socket.socket, obj: dict) -> None:
    payload = json.dumps(obj).encode()
    sock.sendall(struct.pack("!I", len(payload)) + payload)


# ----------------------------------------------------------------------------- template side
def _rewrite_memory(start: int, end: int, old: bytes, new: bytes) -> bool:
    """Overwrite `old` (found in the process memory [start, end)) with `new`, same length or shorter."""
    import ctypes

    block = ctypes.string_at(start, end - start)
    at = block.find(old)
    if at < 0 or len(new) > len(old):
        return False
    ctypes.memmove(start + at, new.ljust(len(old), b"\0"), len(old))
    return True


def _look_cold(argv: list[str], run_id: str | None) -> None:
    """Make /proc/self/environ carry the run's marker and /proc/self/cmdline the cold command line."""
    from checks.process import stat_fields

    try:
        fields = stat_fields("self")
        arg_start, arg_end, env_start, env_end = (int(fields[i]) for i in (45, 46, 47, 48))  # fields 48-51
    except (TypeError, IndexError, ValueError):
        return
    if run_id and len(run_id) == len(MARKER_PLACEHOLDER):
        _rewrite_memory(env_start, env_end, f"NPU_MIGRATE_RUN_ID={MARKER_PLACEHOLDER}".encode(),
                        f"NPU_MIGRATE_RUN_ID={run_id}".encode())
    cold = b"\0".join(os.fsencode(a) for a in [sys.executable, *argv])[: arg_end - arg_start - 1]
    try:
        import ctypes

        ctypes.memmove(arg_start, cold.ljust(arg_end - arg_start, b"\0"), arg_end - arg_start)
    except (OSError, ValueError):
        pass


def _warm_up(torch) -> None:
    """torch's lazy set-up at a first training step (optimizer internals, autograd), done once here.
    Tiny tensors: below torch's parallel grain size, so no OpenMP pool exists before the fork."""
    state = torch.get_rng_state()
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8, 2))
    for opt_cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        opt = opt_cls(model.parameters(), lr=0.1)
        loss = torch.nn.functional.cross_entropy(model(torch.randn(2, 1, 4, 4)), torch.tensor([0, 1]))
        loss.backward()
        opt.step()
        opt.zero_grad()
    torch.set_rng_state(state)


def _child(sock: socket.socket, request: dict, fds: list[int], threads: int) -> None:
    """In the run's process (after the double fork): become a cold-looking bootstrap and run it."""
    try:
        sock.close()
        os.setsid()
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        env = request["env"]
        _look_cold(request["argv"], env.get("NPU_MIGRATE_RUN_ID"))
        os.environ.clear()
        os.environ.update(env)
        os.chdir(request["cwd"])
        sys.argv = list(request["argv"])
        torch = sys.modules["torch"]
        torch.set_num_threads(threads)
        torch.seed()  # a cold process starts torch's generator from a random seed, not the template's
        import random

        random.seed()
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed()
        import checks.bootstrap

        checks.bootstrap.WARM = True
        checks.bootstrap.main()
    except BaseException:  # noqa: BLE001 - nothing of the template may run on in this process
        import traceback

        traceback.print_exc()
    finally:
        os._exit(70)


def _serve(fd: int, preload: list[str]) -> None:
    # The template ends when its parent's end of the socket closes (the parent exited, even killed):
    # not PR_SET_PDEATHSIG, which fires when the *thread* that started it ends.
    sock = socket.socket(fileno=fd)
    sys.path[0] = ROOT
    import checks.bootstrap  # noqa: F401  (torch-free; what main() imports first)
    import checks.compat  # noqa: F401
    import checks.dist_child  # noqa: F401
    import checks.process  # noqa: F401

    for name in preload:
        __import__(name)
    __import__("torch.distributed")  # what the stand-in imports first (torch's own package)
    torch = sys.modules["torch"]
    from migrate import knowledge

    knowledge.load(None)  # the newest release's tables, cached: what an emulated run loads unless told a version
    # OpenMP threads do not survive a fork (a child's first parallel region would wait for them
    # forever): the template computes on one thread and the run's process gets torch's default back.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    tasks = len(os.listdir("/proc/self/task"))
    _warm_up(torch)
    if len(os.listdir("/proc/self/task")) != tasks:
        return  # the warm-up started threads: no greeting, the parent starts its runs cold
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    _send_json(sock, {"modules": sorted({m.split(".", 1)[0] for m in sys.modules})})
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 4, 2)
        except OSError:
            return
        if not msg:
            return
        head = msg + _recv_exact(sock, 4 - len(msg))
        request = json.loads(_recv_exact(sock, struct.unpack("!I", head)[0]))
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.close(read_end)
            pid = os.fork()
            if pid == 0:
                os.close(write_end)
                _child(sock, request, fds, threads)
            os.write(write_end, struct.pack("!I", pid))
            os._exit(0)
        os.close(write_end)
        for fd in fds:
            os.close(fd)
        data = os.read(read_end, 4)
        os.close(read_end)
        os.waitpid(middle, 0)  # the run's process is now re-parented to our parent (its subreaper)
        _send_json(sock, {"pid": struct.unpack("!I", data)[0] if len(data) == 4 else None})


if __name__ == "__main__":
    _serve(int(sys.argv[1]), [m for m in sys.argv[2].split(",") if m])
