"""The warm start's wire format (checks/launch/warmstart.py, checks/child/warm_template.py, checks/launch/warm_client.py):
length-prefixed JSON messages on a Unix stream socket, file descriptors passed with SCM_RIGHTS.
Standard library only: a rank's thin client imports nothing else before it hands its run over."""
from __future__ import annotations

import json
import os
import socket
import struct

HEADER = struct.Struct("!I")
ADDRESS_ENV = "NPU_MIGRATE_WARM_ADDR"  # abstract Unix socket name of a template that takes attached runs
# interpreter flags a forked run can honour (checks/child/warm_template.py): -u and -B it applies, the others
# only change how an interpreter starts, which the template has done
FLAGS = frozenset({"-u", "-B", "-s", "-E", "-q"})


def split_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the leading interpreter flags of `python ARGV`, the rest)."""
    at = 0
    while at < len(argv) and argv[at] in FLAGS:
        at += 1
    return list(argv[:at]), list(argv[at:])


def send(sock: socket.socket, obj: dict, fds: list[int] | None = None) -> None:
    payload = json.dumps(obj).encode()
    data = HEADER.pack(len(payload)) + payload
    if fds:
        sent = socket.send_fds(sock, [data], fds)
        if sent < len(data):
            sock.sendall(data[sent:])
    else:
        sock.sendall(data)


def recv(sock: socket.socket, max_fds: int = 0) -> tuple[dict, list[int]]:
    """One message and the descriptors that came with it; OSError when the peer closed."""
    fds: list[int] = []
    if max_fds:
        head, fds, _flags, _addr = socket.recv_fds(sock, HEADER.size, max_fds)
    else:
        head = sock.recv(HEADER.size)
    if not head:
        raise OSError("the peer closed the connection")
    head += recv_exact(sock, HEADER.size - len(head))
    return json.loads(recv_exact(sock, HEADER.unpack(head)[0])), fds


def recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise OSError("the peer closed the connection")
        data += chunk
    return data


def connect(address: str, timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect("\0" + address)
    except OSError:
        sock.close()
        raise
    sock.settimeout(None)
    return sock


LOG_ENV = "NPU_MIGRATE_WARM_LOG"  # a file: one JSON line per template started and per run started cold


def log(event: str, **fields) -> None:
    """Note a warm-start decision in the NPU_MIGRATE_WARM_LOG file (when set): why a run starts cold."""
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "pid": os.getpid(), **fields}) + "\n")
    except OSError:
        pass


def spawn_through_client(client: str) -> None:
    """In a run forked from a template: the processes multiprocessing spawns (mp.spawn ranks, spawned
    DataLoader workers) start as `python CLIENT --raw FLAGS -c ...` (checks/launch/warm_client.py), so that
    they are forked from the template too (each starts cold itself when the template refuses it)."""
    import multiprocessing.spawn as mp_spawn

    get_command_line = mp_spawn.get_command_line

    def via_warm_client(**kwds):
        cmd = get_command_line(**kwds)
        return [cmd[0], client, "--raw", *cmd[1:]]

    mp_spawn.get_command_line = via_warm_client
