"""The warm-start template process (`python checks/child/warm_template.py FD PRELOAD ADDRESS PAD`; started by
checks/launch/warmstart.py, which describes the design).

It imports torch and what a run imports first, takes one tiny training step, greets its owner with the
top-level modules it holds, then serves two kinds of runs from one single-threaded loop:
- its owner's runs (the socket pair FD): forked twice, so that the run is re-parented to the owner, a
  child subreaper that then waits for it like a Popen child;
- attached runs (the abstract Unix socket ADDRESS, named to the launched processes in
  NPU_MIGRATE_WARM_ADDR): a torchrun rank's thin client (checks/launch/warm_client.py) hands over its stdio,
  argv, environment and working directory; the run is forked once, stays our child, and its exit status
  goes back to the client, which exits with it. A client that goes away takes its run with it.
A run whose environment differs from ours in anything but per-run variables is refused (the client
then starts cold). The template ends when its owner's end of the socket pair closes.
"""
from __future__ import annotations

import sys

# What the interpreter imported before a script's folder went first on sys.path (site, the .pth files'
# imports, io, os, encodings...): a cold run's folder cannot shadow these, so they do not count for
# the shadowing checks (a run's folder may hold a `site/` folder, say).
STARTUP_MODULES = frozenset(m.split(".", 1)[0] for m in sys.modules)

import os  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402

if __name__ == "__main__":
    _file = os.path.abspath(__file__)
    sys.path[0] = _file[:_file.rindex(os.sep + "checks" + os.sep)]  # the project root

from checks import module_file  # noqa: E402
from checks.launch import warm_wire  # noqa: E402
from checks.launch.warmstart import CLIENT, MARKER_PLACEHOLDER, key_env, own_entries, path_entries, path_refused, without_path  # noqa: E402

# Set by torchrun for each rank (torch/distributed/elastic/agent/server/local_elastic_agent.py and
# torch/distributed/run.py) and read by nothing `import torch` runs: not part of an attached run's key.
LAUNCHER_VARIABLES = frozenset({
    "RANK", "LOCAL_RANK", "GROUP_RANK", "ROLE_RANK", "ROLE_NAME", "LOCAL_WORLD_SIZE", "WORLD_SIZE",
    "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    "OMP_NUM_THREADS",
})
LAUNCHER_PREFIXES = ("TORCHELASTIC_",)
MAX_FDS = 250  # SCM_RIGHTS carries at most 253 descriptors in one message
BOOTSTRAP = module_file("checks.child.bootstrap")
PROJECT_PACKAGES = ("checks", "migrate")
BASE_PATH: list[str] = []  # the interpreter's own sys.path entries (not the first, not PYTHONPATH's), set by serve()


def attached_key(env: dict) -> tuple:
    return key_env({k: v for k, v in env.items()
                    if k not in LAUNCHER_VARIABLES and not k.startswith(LAUNCHER_PREFIXES)})


# ----------------------------------------------------------------------------- a run's process
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
    from checks.launch.process import stat_fields

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


def _stdio(unbuffered: bool) -> None:
    """sys.stdout and sys.stderr as a cold process would open them on the run's descriptors 1 and 2:
    with `python -u` / PYTHONUNBUFFERED every write reaches the fd at once; without, stdout is
    block-buffered (line-buffered on a terminal) and stderr line-buffered."""
    import io

    for name, fd in (("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "w", closefd=False)
        if unbuffered:
            stream = io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, write_through=True)
        else:
            stream = io.TextIOWrapper(io.BufferedWriter(raw), encoding=old.encoding, errors=old.errors,
                                      line_buffering=name == "stderr" or os.isatty(fd))
        setattr(sys, name, stream)


def _threads(env: dict, default: int) -> int:
    try:
        value = int(env.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return default
    return value if value > 0 else default


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _place_fds(fds: list[int], numbers: list[int]) -> None:
    """Put each received descriptor at the number it had in the client (dup2 through high numbers
    first, so that no received descriptor is overwritten before it is placed)."""
    import fcntl

    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1024) for fd in fds]
    for fd in fds:
        os.close(fd)
    for fd, number in zip(high, numbers):
        os.dup2(fd, number, inheritable=True)
        os.close(fd)


def _run_code(code: str) -> None:
    """`python -c CODE`: CODE runs in a fresh `__main__`."""
    import types

    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    exec(compile(code, "<string>", "exec"), main.__dict__)  # noqa: S102 - what `python -c` does


def _run_script(path: str) -> None:
    """`python SCRIPT`: the file runs as `__main__` (__file__ absolute, no __spec__, as Python 3.9+ sets them)."""
    import importlib.machinery
    import types

    path = os.path.abspath(path)
    main = types.ModuleType("__main__")
    main.__file__, main.__cached__ = path, None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    sys.modules["__main__"] = main
    with open(path, "rb") as f:
        source = f.read()
    exec(compile(source, path, "exec"), main.__dict__)  # noqa: S102 - what `python SCRIPT` does


def first_path_entry(argv: list[str], cwd: str) -> str:
    """sys.path[0] of a cold `python ARGV` (no flags): '' for -c, the working directory for -m, the
    script's folder (links resolved) for a script."""
    if argv[0] == "-c":
        return ""
    if argv[0] == "-m":
        return cwd
    return os.path.dirname(os.path.realpath(os.path.join(cwd, argv[0])))


def is_bootstrap(argv: list[str], cwd: str) -> bool:
    """Whether `python ARGV` (no flags) in `cwd` runs checks/child/bootstrap.py (links resolved)."""
    if not argv or argv[0] in ("-m", "-c"):
        return False
    return os.path.realpath(os.path.join(cwd, argv[0])) == os.path.realpath(BOOTSTRAP)


def foreign_bootstrap(argv: list[str], cwd: str) -> bool:
    """Whether `python ARGV` runs the bootstrap of another checkout of this project (a CLI imported from a
    copy, its template from here): run as a plain script in this template it would find torch imported
    and this checkout's modules, so it must start cold."""
    _, argv = warm_wire.split_flags(argv)
    if not argv or argv[0] in ("-m", "-c") or is_bootstrap(argv, cwd):
        return False
    return os.path.realpath(os.path.join(cwd, argv[0])).endswith(os.path.join(os.sep, "checks", "child", "bootstrap.py"))


def _cold_imports(argv: list[str], env: dict, bootstrap: bool) -> None:
    """Import as a cold `python ARGV` would: sys.path is its first entry, the run's PYTHONPATH and the
    interpreter's own entries; a run that is not a bootstrap run (`-c`, `-m`, a script) also forgets
    this project's modules, which the template holds (bootstrap and friends), so that only what the
    cold process could import from sys.path can be imported (pickled objects of this project included)."""
    cwd = os.getcwd()
    first = sys.path[0] if bootstrap else first_path_entry(argv, cwd)
    sys.path[:] = [first, *dict.fromkeys([*path_entries(env, cwd), *BASE_PATH])]
    if not bootstrap:
        for name in [m for m in sys.modules if m.split(".", 1)[0] in PROJECT_PACKAGES]:
            del sys.modules[name]


def _child(request: dict, fds: list[int], threads: int) -> None:
    """In the run's process: become the cold process `python ARGV` would have been, and run it.
    ARGV: `[FLAGS] checks/child/bootstrap.py SCRIPT ARGS`, `[FLAGS] -m MODULE ARGS`, `[FLAGS] -c CODE ARGS`
    or `[FLAGS] SCRIPT.py ARGS` (checks/launch/warm_client.py checks which); fds: the owner's run's stdout and stderr (stdin stays
    /dev/null), or an attached run's descriptors, each placed at its number in request["fd_numbers"]."""
    import atexit

    code = 70
    try:
        os.setsid()
        _place_fds(fds, request.get("fd_numbers") or [1, 2])
        env, argv = request["env"], list(request["argv"])
        _look_cold(argv, env.get("NPU_MIGRATE_RUN_ID"))
        os.environ.clear()
        os.environ.update(env)
        os.chdir(request["cwd"])
        flags, argv = warm_wire.split_flags(argv)
        sys.dont_write_bytecode = sys.dont_write_bytecode or "-B" in flags
        _stdio(bool(env.get("PYTHONUNBUFFERED")) or "-u" in flags)
        bootstrap = is_bootstrap(argv, request["cwd"])
        _cold_imports(argv, env, bootstrap)
        if not bootstrap and env.get(warm_wire.ADDRESS_ENV):  # (a bootstrap run does this itself)
            warm_wire.spawn_through_client(CLIENT)
        torch = sys.modules["torch"]
        torch.set_num_threads(_threads(env, threads))
        torch.seed()  # a cold process starts torch's generator from a random seed, not the template's
        import random

        random.seed()
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed()
        atexit._clear()  # the template's handlers are not the run's
        if not bootstrap:
            import runpy

            sys.argv = {"-m": argv[1:], "-c": ["-c", *argv[2:]]}.get(argv[0], argv)
            try:
                if argv[0] == "-m":
                    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
                elif argv[0] == "-c":
                    _run_code(argv[1])
                else:
                    _run_script(argv[0])
                code = 0
            except SystemExit as exc:
                code = _exit_code(exc)
            except BaseException:  # noqa: BLE001 - as an uncaught exception ends `python -m/-c/SCRIPT`
                import traceback

                traceback.print_exc()
                code = 1
            atexit._run_exitfuncs()
        else:
            sys.argv = argv
            import checks.child.bootstrap

            checks.child.bootstrap.WARM = True
            checks.child.bootstrap.main()  # leaves through os._exit
    except BaseException:  # noqa: BLE001 - nothing of the template may run on in this process
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


# ----------------------------------------------------------------------------- the template
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


class _Server:
    def __init__(self, owner: socket.socket, address: str, threads: int, key: tuple):
        self.owner, self.threads = owner, threads
        self.key = without_path(key)  # PYTHONPATH: path_refused()
        self.entries = own_entries(dict(os.environ))
        # top-level modules a run's sys.path must not shadow; this project's own are not among them (a
        # run that is not a bootstrap run forgets them, a bootstrap run imports them from ROOT first).
        # imported: all of them, for a PYTHONPATH entry (on sys.path from the interpreter's start);
        # modules: those imported after start-up, for a run's first folder (on sys.path only then)
        self.imported = frozenset(m.split(".", 1)[0] for m in sys.modules) - set(PROJECT_PACKAGES)
        self.modules = self.imported - STARTUP_MODULES
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind("\0" + address)
        self.listener.listen(64)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.sel = selectors.DefaultSelector()
        self.sel.register(owner, selectors.EVENT_READ, "owner")
        self.sel.register(self.listener, selectors.EVENT_READ, "listen")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.runs: dict[int, socket.socket | None] = {}  # attached run pid -> its client's connection (None: gone)

    def forget_in_child(self) -> None:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        self.sel.close()
        for sock in (self.owner, self.listener, *self.runs.values()):
            if sock is not None:
                sock.close()
        os.close(self.wake_r)
        os.close(self.wake_w)

    def loop(self) -> None:
        while True:
            for key, _ in self.sel.select():
                if key.data == "owner":
                    if not self.owner_run():
                        return
                elif key.data == "listen":
                    self.accept()
                elif key.data == "wake":
                    try:
                        os.read(self.wake_r, 512)
                    except BlockingIOError:
                        pass
                    self.reap()
                else:
                    self.client_gone(key.data)

    def owner_run(self) -> bool:
        try:
            request, fds = warm_wire.recv(self.owner, 2)
        except (OSError, ValueError):
            return False  # the owner went away: so do we
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.close(read_end)
            pid = os.fork()
            if pid == 0:
                os.close(write_end)
                self.forget_in_child()
                _child(request, fds, self.threads)
            os.write(write_end, struct.pack("!I", pid))
            os._exit(0)
        os.close(write_end)
        for fd in fds:
            os.close(fd)
        data = os.read(read_end, 4)
        os.close(read_end)
        os.waitpid(middle, 0)  # the run's process is now re-parented to our owner (its subreaper)
        warm_wire.send(self.owner, {"pid": struct.unpack("!I", data)[0] if len(data) == 4 else None})
        return True

    def accept(self) -> None:
        conn, _ = self.listener.accept()
        conn.settimeout(10)
        fds: list[int] = []
        try:
            request, fds = warm_wire.recv(conn, MAX_FDS)
            numbers = request.get("fd_numbers")
            if not isinstance(numbers, list) or len(numbers) != len(fds) or not {0, 1, 2} <= set(numbers):
                warm_wire.send(conn, {"refused": "descriptors"})
                raise OSError("refused")
            key = without_path(attached_key(request["env"]))
            if key != self.key:
                differ = sorted({k for k, _ in set(key) ^ set(self.key)})
                warm_wire.send(conn, {"refused": f"environment ({', '.join(differ[:8])})"})
                raise OSError("refused")
            why = path_refused(self.entries, request["env"], request["cwd"], self.imported)
            if why:
                warm_wire.send(conn, {"refused": why})
                raise OSError("refused")
            if self.shadowed(request):
                warm_wire.send(conn, {"refused": "the script's folder shadows a module the template imported"})
                raise OSError("refused")
            if foreign_bootstrap(request["argv"], request["cwd"]):
                warm_wire.send(conn, {"refused": "the bootstrap of another checkout (its own checks package)"})
                raise OSError("refused")
            pid = os.fork()
            if pid == 0:
                conn.close()
                self.forget_in_child()
                _child(request, fds, self.threads)
            warm_wire.send(conn, {"pid": pid})
        except (OSError, ValueError, KeyError, TypeError):
            conn.close()
            return
        finally:
            for fd in fds:
                os.close(fd)
        conn.settimeout(None)
        self.runs[pid] = conn
        self.sel.register(conn, selectors.EVENT_READ, pid)

    def shadowed(self, request: dict) -> bool:
        """A run whose first sys.path entry (a bootstrap run's script folder, the working directory
        of `-c` and `-m`, a script's folder) holds a module we imported (see checks/launch/warmstart.py)."""
        from checks.launch.warmstart import shadows

        _, argv = warm_wire.split_flags(request["argv"])
        cwd = request["cwd"]
        if not argv:
            return True
        if is_bootstrap(argv, cwd):
            folder = os.path.dirname(os.path.abspath(os.path.join(cwd, argv[1]))) if len(argv) > 1 else cwd
        else:
            folder = first_path_entry(argv, cwd) or cwd
        return shadows(folder, self.modules)

    def reap(self) -> None:
        for pid in list(self.runs):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, 0
            if done:
                conn = self.runs.pop(pid)
                if conn is None:  # its client had gone
                    continue
                self.sel.unregister(conn)
                try:
                    warm_wire.send(conn, {"exit": os.waitstatus_to_exitcode(status)})
                except OSError:
                    pass
                conn.close()

    def client_gone(self, pid: int) -> None:
        """A client's connection became readable: it sends nothing more, so it has gone (killed)."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        conn = self.runs[pid]
        self.sel.unregister(conn)
        conn.close()
        self.runs[pid] = None  # reaped (and forgotten) on its SIGCHLD


def serve(fd: int, preload: list[str], address: str) -> None:
    owner = socket.socket(fileno=fd)
    own = set(path_entries(dict(os.environ), os.getcwd()))
    lead = 1
    while lead < len(sys.path) and sys.path[lead] in own:  # PYTHONPATH's entries follow sys.path[0]
        lead += 1
    BASE_PATH[:] = sys.path[lead:]
    key = attached_key(dict(os.environ))
    import checks.child.bootstrap  # noqa: F401  (torch-free; what main() imports first)
    import checks.child.dist_child  # noqa: F401
    import checks.emulation.compat  # noqa: F401
    import checks.launch.process  # noqa: F401

    owner_pid = os.getppid()
    for name in [*preload, "torch.distributed", "torch.distributed.run"]:
        # torch.distributed: what the stand-in imports first; torch.distributed.run: torchrun, for a
        # distributed run's launcher (no new top-level module)
        __import__(name)
        if os.getppid() != owner_pid:  # the owner is gone (a start that takes minutes on a slow host)
            return
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
        return  # the warm-up started threads: no greeting, the owner starts its runs cold
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        server = _Server(owner, address, threads, key)
    except OSError:
        return
    warm_wire.send(owner, {"modules": sorted(server.modules), "imported": sorted(server.imported)})
    server.loop()


if __name__ == "__main__":
    serve(int(sys.argv[1]), [m for m in sys.argv[2].split(",") if m], sys.argv[3])
