"""A thin client for a warm start: `python -u checks/launch/warm_client.py ARGV...` (a torchrun rank: the run
is `python -u ARGV`) or `python checks/launch/warm_client.py --raw ARGV...` (a process multiprocessing spawns,
a test's `python -c CODE` or `python SCRIPT.py`: the run is `python ARGV`, interpreter flags included).

torchrun, mp.spawn and spawned DataLoader workers start processes of their own; this one imports
nothing but the standard library, hands its open file descriptors (stdio, and multiprocessing's pipe
and resource-tracker descriptors, each at its number), argv, environment and working directory to the
warm template named in NPU_MIGRATE_WARM_ADDR (checks/child/warm_template.py), which forks the run from a
process that has already imported torch. The client then stands in for the rank towards torchrun: it passes on the
signals torchrun sends (SIGTERM, SIGINT, SIGHUP, SIGQUIT) and ends as the rank ended (its exit code, or
the same signal). If the client is killed, the template kills the rank. When there is no template, or
it refuses the run (another environment, an interpreter flag it cannot honour), the client becomes the
cold process: `exec python ARGV`.
"""
from __future__ import annotations

import os
import signal
import sys

import warm_wire  # this file's folder is sys.path[0]: checks/launch/warm_wire.py, standard library only

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def supported(argv: list[str]) -> bool:
    """`[FLAGS] -m MODULE ...`, `[FLAGS] -c CODE ...` or `[FLAGS] SCRIPT.py ...` (checks/child/bootstrap.py
    or any other Python file)."""
    _, rest = warm_wire.split_flags(argv)
    if rest[:1] in (["-m"], ["-c"]):
        return len(rest) >= 2
    return bool(rest) and not rest[0].startswith("-") and rest[0].endswith(".py") and os.path.isfile(rest[0])


def inherited_fds(exclude: int) -> list[int]:
    fds = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd == exclude:
            continue
        try:
            os.fstat(fd)  # the listing's own descriptor is gone by now
        except OSError:
            continue
        fds.append(fd)
    return sorted(fds)


def hand_over(address: str, argv: list[str]):
    """(pid, connection) of the run the template forked, or None."""
    try:
        sock = warm_wire.connect(address)
    except OSError:
        warm_wire.log("cold", argv=argv[:3], why="no template listens")
        return None
    try:
        sock.settimeout(30)
        fds = inherited_fds(sock.fileno())
        warm_wire.send(sock, {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "fd_numbers": fds}, fds)
        reply, _ = warm_wire.recv(sock)
        sock.settimeout(None)
    except (OSError, ValueError):
        sock.close()
        return None
    if not isinstance(reply.get("pid"), int):
        warm_wire.log("cold", argv=argv[:3], why=reply.get("refused", "no pid in the reply"))
        sock.close()
        return None
    return reply["pid"], sock


def relay(pid: int, sock) -> None:
    """Stand in for the run until it ends; never returns."""
    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for sig in FORWARDED:
        signal.signal(sig, forward)
    try:
        reply, _ = warm_wire.recv(sock)
        code = int(reply["exit"])
    except (OSError, ValueError, KeyError, TypeError):  # the template went away: the run must not outlive us
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        code = 1
    if code < 0:  # ended by a signal: so do we, for torchrun to read the same status
        sig = -code
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        code = 128 + sig
    os._exit(code)


def main() -> None:
    argv = sys.argv[2:] if sys.argv[1:2] == ["--raw"] else ["-u", *sys.argv[1:]]
    address = os.environ.get(warm_wire.ADDRESS_ENV)
    run = hand_over(address, argv) if address and supported(argv) else None
    if address and not supported(argv):
        warm_wire.log("cold", argv=argv[:3], why="not a -c, -m or .py run")
    if run is not None:
        relay(*run)
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, *argv])


if __name__ == "__main__":
    main()
