"""Warm start (checks/launch/warmstart.py): a run forked from a template that has imported torch behaves like a
cold `python checks/child/bootstrap.py` run: same losses, RNG, thread count, command line and run marker."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from checks.launch import warm_wire, warmstart
from checks.smoke.run import run_smoke
from tests.helpers import process_alive

pytestmark = pytest.mark.runtime
ROOT = Path(__file__).resolve().parent.parent

PROBE = textwrap.dedent("""
    import json, os, random, sys
    import torch

    boot = sys.modules.get("checks.child.bootstrap")
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = [a.decode() for a in f.read().split(b"\\0") if a]
    with open("/proc/self/environ", "rb") as f:
        marker = [e.decode() for e in f.read().split(b"\\0") if e.startswith(b"NPU_MIGRATE_RUN_ID=")]
    print("PROBE " + json.dumps({
        "warm": bool(getattr(boot, "WARM", False)), "cmdline": cmdline[1:], "marker": marker,
        "env_marker": os.environ.get("NPU_MIGRATE_RUN_ID"), "threads": torch.get_num_threads(),
        "initial_seed": torch.initial_seed(), "rand": torch.rand(3).tolist(), "py_random": random.random(),
        "cwd": os.getcwd(), "argv": sys.argv, "sid_is_pid": os.getsid(0) == os.getpid(),
        "extra": os.environ.get("NPU_MIGRATE_PROBE_EXTRA"),
    }), flush=True)
    if os.environ.get("NPU_MIGRATE_PROBE_OUT"):
        with open(os.environ["NPU_MIGRATE_PROBE_OUT"], "w") as f:
            json.dump({"warm": bool(getattr(boot, "WARM", False)), "pid": os.getpid(), "ppid": os.getppid()}, f)
    import torch_npu  # noqa: F401  (the stand-in: an emulated run)

    model = torch.nn.Linear(4, 1).to("npu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(0)
    data = torch.randn(64, 4).to("npu")
    for step in range(3):
        loss = (model(data) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.6f}", flush=True)
""")


def _probe(tmp_path, monkeypatch, warm: bool, **kw):
    monkeypatch.setenv(warmstart.ENV, "1" if warm else "0")
    script = tmp_path / "probe_train.py"
    script.write_text(PROBE)
    result = run_smoke(script, steps=3, timeout=300, backend="emulated", op_trace=False,
                       script_args=("--flag", "x"), env={"NPU_MIGRATE_PROBE_EXTRA": kw.pop("extra", "e")}, cwd=str(tmp_path), **kw)
    line = next(line for line in result.stdout.splitlines() if line.startswith("PROBE "))
    return result, json.loads(line[len("PROBE "):])


def test_a_warm_run_looks_and_trains_like_a_cold_one(tmp_path, monkeypatch):
    cold, c = _probe(tmp_path, monkeypatch, warm=False, seed=0)
    warm, w = _probe(tmp_path, monkeypatch, warm=True, seed=0)
    again, a = _probe(tmp_path, monkeypatch, warm=True, extra="f", seed=0)
    assert (c["warm"], w["warm"], a["warm"]) == (False, True, True)  # the path each run took
    assert cold.verdict == warm.verdict == again.verdict == "pass", (warm.reasons, warm.stderr[-2000:])
    assert cold.losses == warm.losses == again.losses
    for key in ("threads", "initial_seed", "rand", "cwd", "argv"):
        assert c[key] == w[key] == a[key], key  # torch's unseeded generator starts where a cold one does
    assert w["extra"] == "e" and a["extra"] == "f"  # each run's own environment
    # what `ps` and the run's guard see: the cold command line and this run's marker
    assert c["cmdline"] == w["cmdline"] and w["cmdline"][-3:] == [str(tmp_path / "probe_train.py"), "--flag", "x"]
    assert w["marker"] == [f"NPU_MIGRATE_RUN_ID={w['env_marker']}"] and w["env_marker"] != a["env_marker"]
    assert c["marker"] == [f"NPU_MIGRATE_RUN_ID={c['env_marker']}"]
    assert w["sid_is_pid"] and c["sid_is_pid"]
    assert c["py_random"] == w["py_random"] == a["py_random"]  # --seed seeds `random` too
    # unseeded, torch's generator and `random` start from random seeds in every process, as in a cold
    # one, not from the template's state
    unseeded = [_probe(tmp_path, monkeypatch, warm=True)[1] for _ in range(2)]
    assert unseeded[0]["initial_seed"] != unseeded[1]["initial_seed"]
    assert unseeded[0]["py_random"] != unseeded[1]["py_random"]


def test_a_folder_that_shadows_a_module_torch_imports_is_started_cold(tmp_path):
    (tmp_path / "numpy.py").write_text("")
    (tmp_path / "typing_extensions").mkdir()
    (tmp_path / "typing_extensions" / "__init__.py").write_text("")
    (tmp_path / "profile").mkdir()  # an output folder (no __init__.py): a namespace portion only
    (tmp_path / "model.py").write_text("")
    assert warmstart.shadows(str(tmp_path), frozenset({"numpy"}))
    assert warmstart.shadows(str(tmp_path), frozenset({"typing_extensions"}))
    assert not warmstart.shadows(str(tmp_path), frozenset({"torch", "json", "profile"}))


def test_the_template_environment_leaves_out_per_run_variables():
    env = {"PATH": "/bin", "NPU_MIGRATE_SMOKE": "{}", "NPU_MIGRATE_RUN_ID": "ab", "PYTEST_CURRENT_TEST": "t",
           "OMP_NUM_THREADS": "2", "SHLVL": "2", "_": "/usr/bin/npu-migrate", "PYTHONUNBUFFERED": "1",
           "LD_PRELOAD": "x.so"}
    assert warmstart.key_env(env) == (("LD_PRELOAD", "x.so"), ("OMP_NUM_THREADS", "2"))
    assert warmstart.key_env({**env, "OMP_NUM_THREADS": "4"}) != warmstart.key_env(env)
    assert warmstart.key_env({**env, "PATH": "/tmp/bin:/bin", "COLUMNS": "120"}) == warmstart.key_env(env)


def test_warm_start_is_off_unless_asked(monkeypatch):
    monkeypatch.setattr(warmstart, "DEFAULT", False)  # a user's process (the suite turns it on for itself)
    for value, expected in (("", False), ("0", False), ("1", True), ("yes", True)):
        monkeypatch.setenv(warmstart.ENV, value)
        assert warmstart.enabled() is expected
    monkeypatch.setattr(warmstart, "DEFAULT", True)
    monkeypatch.setenv(warmstart.ENV, "0")
    assert not warmstart.enabled()  # an explicit 0 wins


# ------------------------------------------------------------------ attached runs (torchrun ranks)
CLIENT_CMD = [sys.executable, "-u", warmstart.CLIENT, "-m", "tests.warm_probe"]
SMOKE_ENV = {"PYTHONUNBUFFERED": "1", "CUDA_VISIBLE_DEVICES": ""}  # what smoke sets for an emulated child


@pytest.fixture(scope="module")
def template():
    """A template of this test's environment as a smoke child gets it, as run_distributed_smoke starts
    one for its ranks."""
    env = {**os.environ, **SMOKE_ENV}
    tpl = warmstart._Template(env, ("torch",))
    assert tpl.ready()
    yield tpl
    tpl.close()


def _client(template, *args, env_extra=None, **kw):
    env = {**os.environ, **SMOKE_ENV, warm_wire.ADDRESS_ENV: template.address, **(env_extra or {})}
    return subprocess.Popen([*CLIENT_CMD, *args], env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _wait_for_pid(path, proc, limit=120):
    deadline = time.monotonic() + limit
    while not (path.exists() and path.read_text()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else ""
        time.sleep(0.05)
    return int(path.read_text())


def test_an_attached_run_is_forked_warm_and_gets_the_client_stdio_argv_and_environment(template):
    proc = _client(template, "echo", "a b", env_extra={"TORCHELASTIC_RUN_ID": "x", "RANK": "1", "NPU_MIGRATE_PROBE_EXTRA": "e"})
    out, err = proc.communicate("line from stdin\n", timeout=120)
    assert proc.returncode == 0, err
    probe = json.loads(next(line for line in out.splitlines() if line.startswith("PROBE "))[len("PROBE "):])
    assert probe["torch_before"] and probe["pid"] != proc.pid  # forked from the template, not the client
    assert probe["argv"] == ["echo", "a b"] and probe["cwd"] == str(ROOT) and probe["extra"] == "e"
    assert probe["stdin"] == "line from stdin"


def test_an_attached_run_s_exit_status_is_the_client_s(template):
    proc = _client(template, "exit", "3")
    proc.communicate(timeout=120)
    assert proc.returncode == 3


def test_a_signal_to_the_client_reaches_the_run_and_the_client_ends_like_it(template, tmp_path):
    pidfile = tmp_path / "pid"
    proc = _client(template, "sleep", str(pidfile))
    pid = _wait_for_pid(pidfile, proc)
    assert pid != proc.pid
    proc.send_signal(signal.SIGTERM)  # what torchrun sends a rank when the job ends
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM
    deadline = time.monotonic() + 30
    while not not process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_a_killed_client_takes_its_run_with_it(template, tmp_path):
    pidfile = tmp_path / "pid"
    proc = _client(template, "sleep", str(pidfile))
    pid = _wait_for_pid(pidfile, proc)
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while not not process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_a_run_with_another_environment_is_refused_and_starts_cold(template, tmp_path):
    log = tmp_path / "warm.log"
    proc = _client(template, "echo", env_extra={"SOMETHING_TORCH_MIGHT_READ": "1", warm_wire.LOG_ENV: str(log)})
    out, err = proc.communicate("x\n", timeout=300)
    assert proc.returncode == 0, err
    probe = json.loads(next(line for line in out.splitlines() if line.startswith("PROBE "))[len("PROBE "):])
    assert probe["pid"] == proc.pid and not probe["torch_before"]  # the client exec'd `python -u -m ...` itself
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]  # NPU_MIGRATE_WARM_LOG says why
    assert entry["event"] == "cold" and entry["pid"] == proc.pid and "SOMETHING_TORCH_MIGHT_READ" in entry["why"]


def test_without_a_template_the_client_is_the_cold_process():
    env = {**os.environ, **SMOKE_ENV, warm_wire.ADDRESS_ENV: "npu-migrate-warm-nobody-listens"}
    proc = subprocess.run([*CLIENT_CMD, "exit", "4"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4


SPAWNS = textwrap.dedent("""
    import os, sys
    import torch
    import torch.multiprocessing as mp

    def worker(index, parent):
        with open("/proc/self/cmdline", "rb") as f:
            args = [a.decode() for a in f.read().split(b"\\0") if a]
        print("WORKER", index, os.getppid() == parent, "-c" in args, flush=True)

    if __name__ == "__main__":
        mp.spawn(worker, args=(os.getpid(),), nprocs=2, join=True)
        import torch_npu  # noqa: F401  (the stand-in: an emulated run)

        model = torch.nn.Linear(2, 1).to("npu")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            model(torch.ones(4, 2).to("npu")).sum().backward()
            opt.step()
            opt.zero_grad()
""")


def test_processes_a_warm_run_spawns_are_forked_from_the_template_too(tmp_path, monkeypatch):
    monkeypatch.setenv(warmstart.ENV, "1")
    script = tmp_path / "spawns.py"
    script.write_text(SPAWNS)
    result = run_smoke(script, steps=2, timeout=300, backend="emulated", op_trace=False)
    assert result.verdict == "pass", (result.reasons, result.stderr[-2000:])
    workers = sorted(line.split()[1:] for line in result.stdout.splitlines() if line.startswith("WORKER"))
    # not the script's own children (as in a cold run) but the template's: the run's process only
    # handed them over; each looks like the `python -c ...` multiprocessing started
    assert workers == [[str(i), "False", "True"] for i in range(2)], result.stdout


@pytest.mark.parametrize("start", ["attached", "cold"])
def test_a_cli_smoke_hands_its_child_to_an_ancestor_s_template(template, tmp_path, start):
    from tests.helpers import run_cli

    script = tmp_path / "probe_train.py"
    script.write_text(PROBE)
    out = tmp_path / "probe.json"
    env = {warm_wire.ADDRESS_ENV: template.address, "NPU_MIGRATE_PROBE_OUT": str(out),
           warmstart.ENV: "" if start == "attached" else "0"}
    proc = run_cli("smoke", str(script), "--steps", "3", "--backend", "emulated", "-q", env=env)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    probe = json.loads(out.read_text())
    assert probe["warm"] is (start == "attached")
    assert (probe["ppid"] == template.proc.pid) is (start == "attached")  # the template's child, not the CLI's


def test_a_pinned_template_outlives_the_others(monkeypatch):
    closed = []

    class Fake:
        def __init__(self, env, preload):
            self.env = env

        def close(self):
            closed.append(self.env["N"])

    monkeypatch.setattr(warmstart, "_Template", Fake)
    monkeypatch.setattr(warmstart, "_templates", {})
    monkeypatch.setattr(warmstart, "_pinned", set())
    pinned = warmstart.shared_template({"N": "pinned"}, ("torch",), pinned=True)
    made = [warmstart.shared_template({"N": str(i)}, ("torch",)) for i in range(4)]
    assert warmstart.shared_template({"N": "pinned"}, ("torch",)) is pinned  # still there, not started again
    assert closed == ["0", "1"] and len(warmstart._templates) == warmstart.MAX_TEMPLATES
    assert warmstart.shared_template({"N": "3"}, ("torch",)) is made[3]


# ------------------------------------------------------------------ a test's own `python -c` / `python SCRIPT.py`
IMPORTS_PROBE = textwrap.dedent("""
    import importlib.util, json, sys
    torch_before = "torch" in sys.modules
    import extra_module_here
    print("PROBE " + json.dumps({
        "path": sys.path, "argv": sys.argv, "file": globals().get("__file__"), "spec": repr(globals().get("__spec__")),
        "project": sorted(m for m in sys.modules if m.split(".")[0] in ("checks", "migrate")),
        "checks_importable": importlib.util.find_spec("checks") is not None,
        "extra": extra_module_here.VALUE, "torch_before": torch_before}))
""")


def _imports_probe(template, tmp_path, how, *, warm):
    extra = tmp_path / "extra"
    extra.mkdir(exist_ok=True)
    (extra / "extra_module_here.py").write_text("VALUE = 'from PYTHONPATH'\n")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "probe.py").write_text(IMPORTS_PROBE)
    args = ["probe.py", "a b"] if how == "script" else ["-c", IMPORTS_PROBE, "a b"]
    env = {**os.environ, **SMOKE_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(extra), *[e for e in env.get("PYTHONPATH", "").split(os.pathsep) if e]])
    cmd = [sys.executable, *args]
    if warm:
        env[warm_wire.ADDRESS_ENV] = template.address
        cmd = [sys.executable, warmstart.CLIENT, "--raw", *args]
    proc = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("PROBE "))[len("PROBE "):])


@pytest.mark.parametrize("how", ["script", "code"])
def test_a_script_or_code_run_attached_imports_as_a_cold_one_would(template, tmp_path, how):
    """sys.path (its first entry, a PYTHONPATH entry the template did not have, the interpreter's own),
    argv, __file__ and __spec__ as the cold run has them, and none of this project's modules, which the
    template holds but a cold `python` has not imported (whether it can, .venv's editable install decides)."""
    warm = _imports_probe(template, tmp_path, how, warm=True)
    cold = _imports_probe(template, tmp_path, how, warm=False)
    assert warm.pop("torch_before") and not cold.pop("torch_before")
    assert warm == cold
    assert cold["project"] == [] and cold["extra"] == "from PYTHONPATH"


def _imported_at_start(name: str) -> bool:
    """Whether this Python imports `name` at its start (-I: whatever the environment says), from a
    .py file: before any script's folder is on sys.path, but with PYTHONPATH's entries already there."""
    code = f"import sys; m = sys.modules.get({name!r}); print(str(getattr(m, '__file__', '')).endswith('.py'))"
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          timeout=120).stdout.strip() == "True"


# ipaddress: imported at the start of .venv's Python (its editable install's .pth imports pathlib), so a
# PYTHONPATH ipaddress.py would shadow it in a cold run although no script folder is on sys.path yet
@pytest.mark.parametrize("planted", ["numpy.py", "ipaddress.py", "sitecustomize.py",
                                     "torch_backend-1.0.dist-info/entry_points.txt"])
def test_a_pythonpath_entry_that_could_change_import_torch_is_refused(template, tmp_path, planted):
    if planted == "ipaddress.py" and not _imported_at_start("ipaddress"):
        pytest.skip("this Python does not import ipaddress at its start")
    extra = tmp_path / "extra"
    (extra / planted).parent.mkdir(parents=True, exist_ok=True)
    (extra / planted).write_text("[torch.backends]\ndevice_backend = fake:_autoload\n" if "dist-info" in planted else "")
    env = {**os.environ, **SMOKE_ENV, warm_wire.ADDRESS_ENV: template.address}
    env["PYTHONPATH"] = os.pathsep.join([str(extra), *[e for e in env.get("PYTHONPATH", "").split(os.pathsep) if e]])
    code = "import os, sys; print('PID', os.getpid(), 'torch' in sys.modules)"
    proc = subprocess.Popen([sys.executable, warmstart.CLIENT, "--raw", "-c", code], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out.split() == ["PID", str(proc.pid), "False"]  # the client exec'd the cold `python -c` itself


def test_another_checkouts_bootstrap_is_refused_so_it_starts_cold(tmp_path):
    """A CLI imported from a copy of the project (cwd first on sys.path under `python -m migrate`) hands the
    template its own copy's bootstrap: run as a plain script in this template it would find torch imported
    (found by the README demo test after the checks/ floor plan)."""
    from checks.child.warm_template import BOOTSTRAP, foreign_bootstrap

    other = tmp_path / "copy" / "checks" / "child" / "bootstrap.py"
    other.parent.mkdir(parents=True)
    other.write_text("")
    assert foreign_bootstrap([str(other), "train.py"], str(tmp_path))
    assert foreign_bootstrap(["-u", "copy/checks/child/bootstrap.py", "train.py"], str(tmp_path))
    assert not foreign_bootstrap([BOOTSTRAP, "train.py"], str(tmp_path))
    assert not foreign_bootstrap(["train.py"], str(tmp_path))
    assert not foreign_bootstrap(["-c", "print(1)"], str(tmp_path))
