"""Control of the smoke/validate child: every descendant dies with it, an optional memory cap, and
reasons that say how the child ended. Linux /proc based; elsewhere it degrades to the process group.

Why more than `os.killpg`: a grandchild that calls `setsid()` (a daemonising DataLoader helper, a
launcher, `nohup`) leaves the child's process group, so killing the group misses it and it outlives
the run. Three mechanisms close that gap, each cheap:
- the parent becomes a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`), so orphans of the run
  are re-parented to us instead of init and stay findable through parent links;
- while the child runs, its whole tree (pid + start time, to survive pid reuse) is recorded every
  POLL_S seconds, so a grandchild that detaches and whose parent then exits is still known;
- every process of the run carries a run marker in its environment (RUN_MARKER), found in
  /proc/*/environ at kill time even when it escaped both of the above.
cgroups would be exact but are not writable in most containers and CI runners (nor on this host's
cgroup v1), so they are not relied on.

Memory cap: RLIMIT_AS is no good for torch (`import torch` alone maps about 3 GB of address space
for its CUDA build while resident memory is a few hundred MB), so the cap is on resident memory:
the summed RSS of the run's processes, polled every POLL_S seconds; over the cap, the whole run is
killed and the reason names the cap and the size reached. A run can overshoot by what it allocates
within one poll interval.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field

from migrate.guard import on_interrupt

POLL_S = 0.1
TAIL_CHARS = 8000  # what is kept of a child's stdout / stderr
RUN_MARKER = "NPU_MIGRATE_RUN_ID"
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
OWNER_ENV = "NPU_MIGRATE_OWNER_PID"  # the npu-migrate process a run belongs to (ChildGuard.env)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_subreaper: bool | None = None
_live: dict[int, ChildGuard] = {}  # id -> every guard whose run has started and not been killed yet
_live_lock = threading.Lock()


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux >= 3.4); once per process."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            pass
    return _subreaper


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Have the kernel send `sig` to this process when its parent exits (`prctl(PR_SET_PDEATHSIG)`,
    Linux): a SIGKILL of npu-migrate, which no handler sees, then still ends the run. The setting
    is the calling process's only (a fork clears it), so each process of a chain asks for itself."""
    parent = os.getppid()
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # the parent was gone before the setting took
        os.kill(os.getpid(), sig)
    return True


def die_with_owner(wait: float = 2.0) -> bool:
    """In a run's first process (checks/child/bootstrap.py): die with the npu-migrate process that started
    it (OWNER_ENV). A warm-started run is forked by a middle process of the template that exits at
    once, re-parenting the run to its owner (the subreaper): the setting is made only once the owner
    is the parent, else the middle's exit would fire it. A torchrun rank dies with its torchrun (which
    dies with its owner, checks/distributed/run.py). Anything else (a run attached to an ancestor's
    template) is left as it is."""
    owner = os.environ.get(OWNER_ENV, "")
    if os.environ.get("TORCHELASTIC_RUN_ID"):
        return die_with_parent()
    if not owner.isdigit():
        return False
    deadline = time.monotonic() + wait
    while os.getppid() != int(owner):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return die_with_parent()


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (index 0 is field 3, the state)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time in clock ticks, state) of a live process, from /proc/PID/stat."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    try:
        return int(fields[1]), int(fields[19]), fields[0]
    except (IndexError, ValueError):
        return None


def _children(pid: int) -> list[int] | None:
    """Direct children of a process, from /proc/PID/task/*/children (each thread's own)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    out: list[int] = []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                out += [int(x) for x in handle.read().split()]
        except (OSError, ValueError):
            pass
    return out


_HAS_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _has_marker(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read()
    except OSError:
        return False


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class ChildGuard:
    """Owns one child process and everything it starts."""

    memory_limit: int | None = None  # bytes of resident memory for the whole run
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    known: dict[int, int] = field(default_factory=dict)  # pid -> start time, every process seen in the run
    peak_rss: int = 0
    memory_exceeded: bool = False
    killed_descendants: int = 0

    def env(self, env: dict) -> dict:
        """The child's environment, with the run marker every descendant inherits."""
        become_subreaper()
        return {**env, RUN_MARKER: self.run_id, OWNER_ENV: str(os.getpid())}

    def start(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        with _live_lock:
            _live[id(self)] = self
        info = _stat(proc.pid)
        if info:
            self.known[proc.pid] = info[1]

    # -- while it runs
    def _tree(self) -> dict[int, int]:
        """pid -> start time of the child and its live descendants (by parent links), including the
        run's orphans that were re-parented to us (our children carrying the run marker)."""
        if not _HAS_CHILDREN_FILES:
            return self._tree_by_scan()
        marker = f"{RUN_MARKER}={self.run_id}".encode()
        roots = [self.proc.pid] + [p for p in self.known if p != self.proc.pid]
        roots += [p for p in (_children(os.getpid()) or ()) if p not in self.known and _has_marker(p, marker)]
        tree: dict[int, int] = {}
        stack = list(roots)
        while stack:
            pid = stack.pop()
            if pid in tree:
                continue
            info = _stat(pid)
            if info is None or self.known.get(pid, info[1]) != info[1]:
                continue  # gone, or the pid now belongs to another process
            tree[pid] = info[1]
            stack.extend(_children(pid) or ())
        return tree

    def _tree_by_scan(self) -> dict[int, int]:
        """The same from every /proc/PID/stat (kernels without /proc/PID/task/TID/children)."""
        table: dict[int, tuple[int, int, str]] = {}
        for pid in _all_pids():
            info = _stat(pid)
            if info:
                table[pid] = info
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        roots = [self.proc.pid] + [p for p in self.known if p != self.proc.pid]
        tree: dict[int, int] = {}
        stack = [p for p in roots if p in table and self.known.get(p, table[p][1]) == table[p][1]]
        while stack:
            pid = stack.pop()
            if pid in tree:
                continue
            tree[pid] = table[pid][1]
            stack.extend(children.get(pid, ()))
        return tree

    def poll(self) -> None:
        tree = self._tree()
        self.known.update(tree)
        if self.memory_limit:
            rss = sum(_rss(pid) for pid in tree)
            self.peak_rss = max(self.peak_rss, rss)
            if rss > self.memory_limit:
                self.memory_exceeded = True

    def wait(self, timeout: float) -> bool:
        """Wait for the child to end; False when the timeout passed first. Ends early (True) when the
        memory cap is exceeded."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.proc.wait(min(POLL_S, max(deadline - time.monotonic(), 0.001)))
                return True
            except subprocess.TimeoutExpired:
                pass
            self.poll()
            if self.memory_exceeded:
                return True
            if time.monotonic() >= deadline:
                return False

    # -- at the end
    def _survivors(self) -> list[int]:
        marker = f"{RUN_MARKER}={self.run_id}".encode()
        alive: list[int] = []
        tree = self._tree()
        for pid, start in {**self.known, **tree}.items():
            info = _stat(pid)
            if pid != os.getpid() and info and info[1] == start and info[2] != "Z":
                alive.append(pid)
        for pid in _all_pids():
            if pid not in alive and pid != os.getpid() and _has_marker(pid, marker):
                alive.append(pid)
        return alive

    def kill_all(self, grace: float, reap_wait: float | None = None) -> None:
        """SIGTERM the child's group and every process of the run, then SIGKILL what is left; reap.
        reap_wait: seconds to wait for the child's exit status (None: as long as it takes). kill_live
        bounds it: from a signal handler, the frame it interrupted may hold the Popen's wait lock."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        for pid in self._survivors():
            if pid != self.proc.pid:
                self.killed_descendants += 1
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and self._survivors():
            time.sleep(POLL_S)
        for _ in range(3):
            left = self._survivors()
            if not left:
                break
            for pid in left:
                _signal(pid, signal.SIGKILL)
            time.sleep(POLL_S)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            self.proc.wait(reap_wait)
        except subprocess.TimeoutExpired:
            pass  # reaped by the owner's own clean-up, which runs next
        self._reap()
        self.release()

    def release(self) -> None:
        """The run is over and its processes ended by its owner: a signal no longer needs to end it."""
        with _live_lock:
            _live.pop(id(self), None)

    def _reap(self) -> None:
        """Collect zombies of the run that were re-parented to us (we are their subreaper)."""
        for pid in list(self.known):
            if pid == self.proc.pid:
                continue
            try:
                os.waitpid(pid, os.WNOHANG)
            except (ChildProcessError, OSError):
                pass


def kill_live(grace: float = 3.0) -> None:
    """End every run this process has started and not yet ended (each guard's whole tree), whichever
    thread waits for it. Called when a signal interrupts the command (migrate/guard.py)."""
    with _live_lock:
        guards = list(_live.values())
    for guard in guards:
        guard.kill_all(grace, reap_wait=1.0)


on_interrupt(kill_live)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def exit_reason(status: str | None, returncode: int | None, done: int, steps: int, *,
                memory_limit: int | None = None, memory_exceeded: bool = False, peak_rss: int = 0,
                exit_code=None) -> str | None:
    """What happened when the child ended before a normal finish; None when there is nothing to add.

    status: the bootstrap's report status ("running", "os_exit", ...; None when it wrote no report).
    """
    progress = f"after {done} of {steps} optimizer steps" if done else f"before the first of {steps} optimizer steps"
    if memory_exceeded and memory_limit:
        return (f"memory limit exceeded: the run's processes used {peak_rss / 2**20:.0f} MiB of resident memory, over "
                f"--memory-limit {memory_limit / 2**20:.0f} MiB; killed {progress}")
    if status == "os_exit":
        return f"the script left through os._exit({exit_code}) {progress}"
    if status not in ("running", None):
        return None
    if returncode is not None and returncode < 0:
        name = signal_name(-returncode)
        hint = " (SIGKILL: often the kernel's out-of-memory killer)" if -returncode == signal.SIGKILL else ""
        return f"the child process was killed by {name}{hint} {progress}"
    if returncode:
        return (f"the child process exited with status {returncode} {progress} without a Python exception "
                "(native code called exit(), or a crash in an extension)")
    if returncode == 0:
        return f"the child process exited with status 0 {progress} without returning from the script (exit from native code)"
    return None


def install_exit_recorder(on_exit) -> callable:
    """In the child: route os._exit through `on_exit(code)` (which records the exit path), and return the
    real os._exit for the bootstrap's own final exit. Forked processes (DataLoader workers leave
    through os._exit too) exit without recording: only the child itself reports."""
    real_exit = os._exit
    owner = os.getpid()

    def recorded_exit(code=0):
        try:
            if os.getpid() == owner:
                on_exit(code)
        finally:
            real_exit(code)

    os._exit = recorded_exit
    return real_exit


def parse_size(text: str) -> int:
    """'4G', '512M', '1024K', '2GiB', '1000000' -> bytes."""
    value = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    factor = 1
    for suffix, mult in (("K", 2**10), ("M", 2**20), ("G", 2**30), ("T", 2**40)):
        if value.endswith(suffix):
            value, factor = value[:-1], mult
            break
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"not a size: {text!r} (e.g. 4G, 512M)") from None
    if number <= 0:
        raise ValueError(f"the memory limit must be positive (got {text!r})")
    return int(number * factor)


class OutputTail:
    """Streams a child's pipe to `stream` (None: nowhere) and keeps its last TAIL_CHARS characters."""

    def __init__(self, pipe, stream):
        self.chunks: collections.deque[str] = collections.deque()
        self.size = 0
        self.thread = threading.Thread(target=self._run, args=(pipe, stream), daemon=True)
        self.thread.start()

    def _run(self, pipe, stream):
        for line in iter(pipe.readline, b""):
            text = line.decode("utf-8", "replace")
            if stream is not None:
                try:
                    stream.write(text)
                    stream.flush()
                except (OSError, ValueError):
                    pass
            self.chunks.append(text)
            self.size += len(text)
            while self.size > TAIL_CHARS and len(self.chunks) > 1:
                self.size -= len(self.chunks.popleft())
        pipe.close()

    def text(self, timeout: float = 2.0) -> str:
        self.thread.join(timeout)
        return "".join(self.chunks)[-TAIL_CHARS:]
