"""Two hosts (issue 26): `npu-migrate baseline` against the run it records, and `validate --baseline`
against the migrated run it contains; each also against the same run as a standalone smoke command.
Targets: recording adds <= 10% to the original's own run, comparing <= 10% to the migrated run.

Like with like: the standalone runs are `npu-migrate smoke` of the same script on the same backend,
with the same steps and seed, one process each (the recording and the comparison run one training
process each too); the target is judged against them (the "x a standalone smoke" figures), the
"x the run it records" figures say what the command adds around its own (instrumented) run.

Two workloads, 20 steps each: tests/cudatwin_cases/gpu_only.py (milliseconds a step: the run is mostly
start-up, so the commands' fixed costs weigh most) and bench/two_hosts_workload.py (an MLP of about 9M
parameters, a few tenths of a second a step on a CPU). The four commands of a workload run interleaved,
REPEATS times (1 with --quick); each figure is the median over the repeats (CPU time: user + system of the
command and every process it waited for, which moves far less with other work on the machine than wall
time). Run through bench/run.py (`--only two-hosts`).

Each workload is measured twice: as the commands run by default (torch's intra-op pool: 2 threads on this
2-core machine), and with OMP_NUM_THREADS=1 for every command, baseline included (the `*_1thread_*` keys,
rows marked so). On a machine shared with other work, the second intra-op thread spin-waits for a core
the others hold and that CPU counts: the more small tensor operations a command runs (the dump's statistics),
the more it is inflated; with one thread the figures measure the work the commands add.

The commands run as an installed npu-migrate does: with compiled `.pyc` files (under the bench's own
PYTHONPYCACHEPREFIX, written by one untimed round of the four commands before the repeats), not compiling the
project's modules again in every command as this environment's PYTHONDONTWRITEBYTECODE=1 made them do.

Each repeat records with an empty cache (NPU_MIGRATE_CACHE_DIR in the repeat's own folder): the figures judged
are first recordings. The same recording is then run again with that cache warm (the instrumented copy of the
original comes from checks/validate/instrument_cache.py, libcst not loaded): "the same recording again", the
cost of every later recording of an unchanged script and of the original's side of a same-host validate.

One more row shows how the overhead scales with the run's length: the MLP at one thread again, every
command at 100 steps (50 with --quick) instead of 20 (the `two_hosts_workload_1thread_100steps_*` keys),
beside the 20-step figures: what the commands add once a run (msprobe's start, imports, the bundle) stays,
what they add a step (the pack's statistics, the dumped steps: 2 either way) grows with the run."""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(cmd, env, cwd, cpu: dict | None = None, key: str | None = None):
    """Wall seconds and the process; with `cpu`, also the CPU seconds of the command and every process
    it waited for (user + system), under cpu[key or cmd[3]]: on a machine shared with other work, CPU time
    moves far less with the load than wall time."""
    t0, c0 = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if cpu is not None:
        cpu[key or (cmd[3] if cmd[3] != "smoke" else f"smoke {cmd[6]}")] = _cpu() - c0
    return time.perf_counter() - t0, proc


WORKLOADS = (("gpu_only.py", ROOT / "tests" / "cudatwin_cases" / "gpu_only.py", "two_hosts_"),
             ("two_hosts_workload.py", ROOT / "bench" / "two_hosts_workload.py", "two_hosts_workload_"))
REPEATS = 3


THREADS = ((None, "", ""), ("1", "1thread_", ", OMP_NUM_THREADS=1"))  # (OMP_NUM_THREADS, key infix, row label)


def bench_two_hosts(rows, results, quick, py):
    for threads, infix, label in THREADS:
        for name, src, prefix in WORKLOADS:
            _bench_workload(rows, results, quick, py, name + label, src, prefix + infix, threads)
    _bench_length(rows, results, quick, py)


LONG_STEPS = 100  # the scaling row's steps (5x the other rows')


def _bench_length(rows, results, quick, py):
    """The MLP at one thread with LONG_STEPS steps each command: one row, beside its 20-step figures."""
    name, src, prefix = WORKLOADS[1]
    short, long = prefix + THREADS[1][1], prefix + THREADS[1][1] + f"{LONG_STEPS}steps_"
    own: list = []
    _bench_workload(own, results, quick, py, name, src, long, "1", steps=str(LONG_STEPS // 2 if quick else LONG_STEPS))
    failed = [row for row in own if row[2] in ("failed", "warning")]
    if failed or short + "record_cpu_s" not in results:
        rows.extend(failed)
        return
    steps = "10 -> 50" if quick else f"20 -> {LONG_STEPS}"

    def extra(p, side):
        return results[p + f"{side}_cpu_s"] - results[p + f"{side}_standalone_smoke_cpu_s"]

    rows.append((f"two hosts, {name}, OMP_NUM_THREADS=1, {steps} steps, CPU time", f"median of {results[long + 'repeats']}",
                 f"{results[long + 'record_over_standalone_cpu_ratio']:.2f}x / {results[long + 'compare_over_standalone_cpu_ratio']:.2f}x",
                 f"record {results[short + 'record_over_standalone_cpu_ratio']:.2f}x -> {results[long + 'record_over_standalone_cpu_ratio']:.2f}x "
                 f"(+{extra(short, 'record'):.1f} -> +{extra(long, 'record'):.1f} s), compare "
                 f"{results[short + 'compare_over_standalone_cpu_ratio']:.2f}x -> {results[long + 'compare_over_standalone_cpu_ratio']:.2f}x "
                 f"(+{extra(short, 'compare'):.1f} -> +{extra(long, 'compare'):.1f} s) vs standalone smokes of the same steps"))


def _bench_workload(rows, results, quick, py, name, src, prefix, threads=None, steps=None):
    tmp = Path(tempfile.mkdtemp(prefix="npu-bench-two-hosts-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # as installed: npu-migrate's modules and torch's compiled once (.pyc under the bench's own prefix, nothing written
    # into the tree), not compiled again by every command (PYTHONDONTWRITEBYTECODE=1 in this environment made the
    # recording's process, which imports ~30 more of our modules than the smoke's, pay 0.05-0.3 s more for it)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    if threads is not None:
        env["OMP_NUM_THREADS"] = threads
    steps = steps or ("10" if quick else "20")
    migrated = tmp / "migrated" / src.name
    migrated.parent.mkdir()
    (tmp / "a").mkdir()
    (tmp / "b").mkdir()
    runs = []
    try:
        subprocess.run([py, "-m", "migrate", "apply", str(src), "-o", str(migrated)], env=env, capture_output=True, check=False)  # exit 1: manual items left
        # one untimed round first: every command's modules compiled into the prefix (and read into the page cache)
        warm = dict(env, NPU_MIGRATE_CACHE_DIR=str(tmp / "cache-warmup"))
        for cmd, cwd in (([py, "-m", "migrate", "baseline", str(src), "--out", "bundle", "--steps", "2", "-q", "--force"], tmp / "a"),
                         ([py, "-m", "migrate", "validate", "--baseline", str(tmp / "a" / "bundle"), str(migrated), "-q", "--out", "out"], tmp / "b"),
                         ([py, "-m", "migrate", "smoke", str(src), "--backend", "cuda-emulated", "--steps", "2", "-q"], tmp),
                         ([py, "-m", "migrate", "smoke", str(migrated), "--backend", "emulated", "--steps", "2", "-q"], tmp)):
            subprocess.run(cmd, env=warm, cwd=cwd, capture_output=True, check=False)
        shutil.rmtree(tmp / "b" / "out", ignore_errors=True)
        for repeat in range(1 if quick else REPEATS):
            cpu: dict[str, float] = {}
            # each repeat's first recording starts with an empty cache (checks/validate/instrument_cache.py: the
            # instrumented original is kept there); the same recording again, cache warm, is timed at the end
            env = dict(env, NPU_MIGRATE_CACHE_DIR=str(tmp / f"cache{repeat}"))
            record = [py, "-m", "migrate", "baseline", str(src), "--out", "bundle", "--steps", steps, "-q", "--force"]
            record_wall, proc = _timed(record, env, tmp / "a", cpu)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-2000:])
            record_run = json.loads((tmp / "a" / "bundle" / "smoke.json").read_text())["duration_s"]
            shutil.rmtree(tmp / "b" / "out", ignore_errors=True)
            compare_wall, proc = _timed([py, "-m", "migrate", "validate", "--baseline", str(tmp / "a" / "bundle"), str(migrated),
                                         "-q", "--out", "out"], env, tmp / "b", cpu)
            if proc.returncode != 0:
                raise RuntimeError(proc.stdout[-2000:] + proc.stderr[-2000:])
            compare_text = proc.stdout
            compare_run = json.loads((tmp / "b" / "out" / "migrated" / "smoke.json").read_text())["duration_s"]
            plain = {}
            for script, backend in ((src, "cuda-emulated"), (migrated, "emulated")):
                plain[backend], _ = _timed([py, "-m", "migrate", "smoke", str(script), "--backend", backend, "--steps", steps,
                                            "-q", "--seed", "1234"], env, tmp, cpu)
            _, proc = _timed(record, env, tmp / "a", cpu, key="baseline again")
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-2000:])
            runs.append(dict(record_wall=record_wall, record_run=record_run, compare_wall=compare_wall, compare_run=compare_run,
                             plain_record=plain["cuda-emulated"], plain_compare=plain["emulated"], **{f"cpu {k}": v for k, v in cpu.items()}))
    except Exception as exc:  # noqa: BLE001 - a failed measurement is a row, not a crash of the table
        rows.append((f"two hosts overhead, {name}", "", "failed", str(exc).splitlines()[-1][:80] if str(exc) else repr(exc)))
        return
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if "config_check not compared" in compare_text:
        rows.append((f"validate --baseline, {name}", "", "warning", "config_check not compared: not the full comparison"))
    m = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    cpu = {k[4:]: v for k, v in m.items() if k.startswith("cpu ")}
    record_wall, record_run, compare_wall, compare_run = m["record_wall"], m["record_run"], m["compare_wall"], m["compare_run"]
    plain = {"cuda-emulated": m["plain_record"], "emulated": m["plain_compare"]}
    how = f"{steps} steps, median of {len(runs)}"
    rows.append((f"baseline (record) {name}", how, f"{record_wall:.2f} s",
                 f"{record_wall / record_run:.2f}x the run it records ({record_run:.1f} s), "
                 f"{record_wall / plain['cuda-emulated']:.2f}x a standalone smoke ({plain['cuda-emulated']:.1f} s) (target <= 1.1; same script, steps, seed, one process)"))
    rows.append((f"validate --baseline {name}, its apply output", how, f"{compare_wall:.2f} s",
                 f"{compare_wall / compare_run:.2f}x the migrated run ({compare_run:.1f} s), "
                 f"{compare_wall / plain['emulated']:.2f}x a standalone smoke ({plain['emulated']:.1f} s) (target <= 1.1; same script, steps, seed, one process)"))
    record_cpu, compare_cpu = cpu["baseline"] / cpu["smoke cuda-emulated"], cpu["validate"] / cpu["smoke emulated"]
    rows.append((f"baseline (record) {name}, CPU time", how, f"{cpu['baseline']:.2f} s",
                 f"{record_cpu:.2f}x a standalone smoke's ({cpu['smoke cuda-emulated']:.1f} s) (target <= 1.1); the same "
                 f"recording again (instrumented copy cached): {cpu['baseline again'] / cpu['smoke cuda-emulated']:.2f}x"))
    rows.append((f"validate --baseline {name}, CPU time", how, f"{cpu['validate']:.2f} s",
                 f"{compare_cpu:.2f}x a standalone smoke's ({cpu['smoke emulated']:.1f} s) (target <= 1.1)"))
    results.update({prefix + k: v for k, v in dict(
        record_cpu_s=cpu["baseline"], record_standalone_smoke_cpu_s=cpu["smoke cuda-emulated"],
        record_over_standalone_cpu_ratio=record_cpu, record_again_cpu_s=cpu["baseline again"],
        record_again_over_standalone_cpu_ratio=cpu["baseline again"] / cpu["smoke cuda-emulated"], compare_cpu_s=cpu["validate"],
        compare_standalone_smoke_cpu_s=cpu["smoke emulated"], compare_over_standalone_cpu_ratio=compare_cpu,
        record_wall_s=record_wall, record_run_s=record_run, record_standalone_smoke_s=plain["cuda-emulated"],
        record_over_run_ratio=record_wall / record_run, record_over_standalone_ratio=record_wall / plain["cuda-emulated"],
        compare_wall_s=compare_wall, compare_run_s=compare_run, compare_standalone_smoke_s=plain["emulated"],
        compare_over_run_ratio=compare_wall / compare_run, compare_over_standalone_ratio=compare_wall / plain["emulated"],
        repeats=len(runs), load_average=os.getloadavg()[0]).items()})
