"""Benchmarks: one command prints a table and writes bench/results.json.

    .venv/bin/python bench/run.py [--quick] [--only NAME ...]

Every target is measured against a baseline in the same run and reported as a ratio:
- analyze (cold, all cores) vs a bare `ast.parse` loop (one core) over the installed torch package, each a
  child process, interleaved, CPU time from getrusage (wall time beside it), median of 3;
- warm re-run of analyze on the unchanged tree (whole process, cache on; CPU and wall, median of 5);
- `npu-migrate --version` start-up;
- knowledge base load time;
- apply over the same corpus vs analyze over it;
- apply of one file with 16,000 findings vs analyze of the same file, and 8,000 -> 16,000 scaling;
- smoke harness overhead: emulated smoke vs the plain script on the CPU, with and without op tracing;
- profile overhead: emulated profile vs emulated smoke of the same script, per step;
- distributed smoke overhead: `smoke --nproc-per-node 2` vs the same torchrun job without the harness;
- autocast emulation: an AMP loop on the stand-ins (each autocast policy) vs the plain CPU, per step;
- validate overhead: validate's wall time vs the two runs it contains;
- loop observer (issue 28): an AMP loop with checks.child.loop_observer vs without, per step, in process.
- two hosts (issue 26, `--only two-hosts`): baseline vs the run it records and vs a standalone smoke of the same
  script, steps, seed (one process each), validate --baseline likewise; wall and CPU time, medians of 3 interleaved
  repeats, for a tiny script (gpu_only.py) and one with a realistic step time (bench/two_hosts_workload.py); each
  again with OMP_NUM_THREADS=1 for every command (`*_1thread_*` keys: no intra-op spin-wait on a loaded machine),
  and one row of the MLP at one thread with 100 steps each command (`*_1thread_100steps_*`: the run's length).
- fusion matching (issue 29): `profile` emulated with the fusion recorder on vs off (`--only fusion`).
- the repository symbol model (issue 24): CPU time of its steps and peak RSS at 1/4, 1/2 and all of torch, one child
  process per fraction, ratios to the 1/4 run (`--only symbol-model`, bench/symbol_model_bench.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = sys.executable


def torch_corpus() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("torch")  # locating the package does not import it
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed in this environment; run scripts/setup_env.sh first")
    base = Path(list(spec.submodule_search_locations)[0])
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def count_lines(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)


def timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


# the baseline as a child process of its own, like analyze: its CPU time is read the same way (getrusage)
_AST_LOOP = (
    "import ast, sys, warnings\n"
    "warnings.simplefilter('ignore')\n"
    "for path in open(sys.argv[1]).read().splitlines():\n"
    "    try:\n"
    "        ast.parse(open(path, 'rb').read())\n"
    "    except (SyntaxError, ValueError):\n"
    "        pass\n"
)


def child_times(cmd, env=None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process run to its end: user + system time of the child
    and of every process it waited for (analyze's worker pool), from getrusage(RUSAGE_CHILDREN)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def bench_analyze(files, lines, rows, results, quick):
    """analyze cold (all cores) vs the 1-core `ast.parse` loop, both as child processes, interleaved
    (baseline, analyze, baseline, analyze, ...) so a change of load hits both; medians of the repetitions.
    CPU time (getrusage of the child, its workers included) is what a loaded machine disturbs least; the
    ratio on N cores assumes analyze's CPU time spreads over them (wall time, measured too, says whether
    it did). Then the warm re-run: CPU and wall time of the whole process, median of 5, with migrate's bytecode
    cached as after any first run (an installed package's is compiled at install; here the runs get a bytecode folder
    of their own, PYTHONPYCACHEPREFIX, since an environment may set PYTHONDONTWRITEBYTECODE), and beside them the
    same runs in the environment as it is (where it sets PYTHONDONTWRITEBYTECODE and migrate/ holds no bytecode,
    each compiles migrate's modules from source)."""
    root = files[0].parent
    while root.name != "torch":
        root = root.parent
    listing = Path(tempfile.mkdtemp(prefix="npu-bench-list-")) / "files.txt"
    listing.write_text("\n".join(str(p) for p in files) + "\n")
    cache = Path(tempfile.mkdtemp(prefix="npu-bench-cache-"))
    env = dict(os.environ, NPU_MIGRATE_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    cmd = [PY, "-m", "migrate", "analyze", "--format", "json", "-o", os.devnull, "--no-progress", str(root)]
    base_runs, cold_runs = [], []
    for _ in range(1 if quick else 3):
        base_runs.append(child_times([PY, "-c", _AST_LOOP, str(listing)]))
        cold_runs.append(child_times(cmd + ["--no-cache"], env))
    subprocess.run(cmd, env=env, capture_output=True)  # fill the cache
    compiled = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    compiled["PYTHONPYCACHEPREFIX"] = str(cache / "bytecode")
    subprocess.run(cmd, env=compiled, capture_output=True)  # write the bytecode
    warm_runs, source_runs = [], []
    for _ in range(5):
        warm_runs.append(child_times(cmd, compiled))
        source_runs.append(child_times(cmd, env))  # the environment as it is
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(listing.parent, ignore_errors=True)
    base_cpu = statistics.median(c for c, _ in base_runs)
    base_wall = statistics.median(w for _, w in base_runs)
    cold_cpu = statistics.median(c for c, _ in cold_runs)
    cold_wall = statistics.median(w for _, w in cold_runs)
    warm_cpu = statistics.median(c for c, _ in warm_runs)
    warm_wall = statistics.median(w for _, w in warm_runs)
    source_cpu = statistics.median(c for c, _ in source_runs)
    cores = os.cpu_count() or 1
    cpu_ratio = base_cpu / cold_cpu  # lines per CPU second, analyze vs ast.parse
    wall_ratio = base_wall / cold_wall
    reps = f"median of {len(base_runs)}, interleaved"
    rows.append(("bare ast.parse loop (1 core), torch corpus", f"{lines / base_cpu:,.0f} lines/CPU s",
                 f"{base_cpu:.1f} s CPU, {base_wall:.1f} s wall", f"baseline ({reps})"))
    rows.append(("analyze cold (all cores), torch corpus", f"{lines / cold_cpu:,.0f} lines/CPU s",
                 f"{cold_cpu:.1f} s CPU, {cold_wall:.1f} s wall",
                 f"{cpu_ratio * cores:.2f}x of ast.parse on {cores} cores by CPU time ({cpu_ratio:.2f}x per core); "
                 f"wall {wall_ratio:.2f}x (target >= 0.5)"))
    rows.append(("analyze warm re-run (cache), torch corpus", "", f"{warm_cpu:.2f} s CPU, {warm_wall:.2f} s wall",
                 f"target <= 1 s (median of 5, bytecode cached; {source_cpu:.2f} s CPU in this environment as it is)"))
    results.update(corpus_files=len(files), corpus_lines=lines, ast_parse_s=base_wall, analyze_cold_s=cold_wall,
                   analyze_vs_ast_ratio=wall_ratio, analyze_warm_s=warm_wall, ast_parse_cpu_s=base_cpu,
                   analyze_cold_cpu_s=cold_cpu, analyze_vs_ast_cpu_ratio_per_core=cpu_ratio,
                   analyze_vs_ast_cpu_ratio_all_cores=cpu_ratio * cores, analyze_warm_cpu_s=warm_cpu,
                   analyze_warm_from_source_cpu_s=source_cpu,
                   analyze_runs={"ast_parse": base_runs, "cold": cold_runs, "warm": warm_runs, "warm_from_source": source_runs})
    return cold_wall, root


def bench_startup(rows, results):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bare = timed(lambda: subprocess.run([PY, "-c", "pass"], env=env, capture_output=True), 10)
    version = timed(lambda: subprocess.run([PY, "-m", "migrate", "--version"], env=env, capture_output=True), 10)
    rows.append(("npu-migrate --version", "", f"{version * 1000:.0f} ms", f"bare python {bare * 1000:.0f} ms; target < 150 ms"))
    results.update(version_ms=version * 1000, bare_python_ms=bare * 1000)


def bench_kb(rows, results):
    code = ("import time; t=time.perf_counter(); from migrate import knowledge; kb = knowledge.load(); "
            "kb.unsupported_apis(); print(time.perf_counter()-t)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    samples = [float(subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True).stdout) for _ in range(5)]
    size = sum(p.stat().st_size for p in (ROOT / "migrate" / "knowledge").rglob("*") if p.is_file())
    rows.append(("knowledge base load (one version)", "", f"{min(samples) * 1000:.0f} ms", f"data on disk {size / 1e6:.2f} MB"))
    results.update(kb_load_ms=min(samples) * 1000, kb_bytes=size)


def bench_apply(root, analyze_s, rows, results, quick):
    out = Path(tempfile.mkdtemp(prefix="npu-bench-apply-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), NPU_MIGRATE_CACHE_DIR=str(out / "cache"))
    # the same work as `apply DIR -o OUT` over the corpus's .py files, without copying torch's
    # gigabytes of binaries: analyze + rewrite + libcst codemods + re-parse check, all cores
    code = (
        "import sys, time, json\n"
        "from pathlib import Path\n"
        "from migrate.rewrite import ApplyOptions, plan_files\n"
        "files = sorted(str(p) for p in Path(sys.argv[1]).rglob('*.py') if '__pycache__' not in p.parts)\n"
        "t = time.perf_counter(); result = plan_files(files, ApplyOptions()); s = time.perf_counter() - t\n"
        "print(json.dumps({'seconds': s, 'files': len(result.files), 'changed': len(result.changed),"
        " 'rewrites': len(result.changes), 'manual': len(result.manual)}))\n"
    )
    proc = subprocess.run([PY, "-c", code, str(root)], env=env, capture_output=True, text=True)
    shutil.rmtree(out, ignore_errors=True)
    if proc.returncode != 0:
        rows.append(("apply over torch corpus", "", "failed", proc.stderr.strip().splitlines()[-1] if proc.stderr else ""))
        return
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    ratio = stats["seconds"] / analyze_s
    rows.append(("apply over torch corpus (in memory)", f"{stats.get('changed', '?')} files changed", f"{stats['seconds']:.1f} s",
                 f"{ratio:.2f}x of analyze (target <= 2)"))
    results.update(apply_s=stats["seconds"], apply_vs_analyze_ratio=ratio, apply_stats=stats)


MANY_FINDINGS_CODE = (
    "import sys, time, json\n"
    "from migrate.engine import Target, analyze_file\n"
    "from migrate.knowledge import newest_version\n"
    "from migrate.rewrite import ApplyOptions, rewrite_file\n"
    "version = newest_version()\n"
    "def source(n):\n"
    "    return ('import torch\\n\\n\\ndef f(x):\\n' + ''.join(f'    y{i} = x.cuda()\\n' for i in range(n))).encode()\n"
    "def best(fn):\n"
    "    out = []\n"
    "    for _ in range(2):\n"
    "        t = time.perf_counter(); value = fn(); out.append(time.perf_counter() - t)\n"
    "    return min(out), value\n"
    "stats = {}\n"
    "for n in (8000, 16000):\n"
    "    data = source(n)\n"
    "    a, result = best(lambda: analyze_file(Target('many.py', ('python',)), data, version))\n"
    "    r, rewrite = best(lambda: rewrite_file('many.py', data, kinds=('python',), options=ApplyOptions(), version=version))\n"
    "    stats[n] = {'bytes': len(data), 'findings': len(result.findings), 'changes': len(rewrite.changes), 'analyze_s': a, 'apply_s': r}\n"
    "print(json.dumps(stats))\n"
)


def bench_many_findings(rows, results, quick):
    """apply must be linear in the findings of one file: one file with 16,000 findings against
    analyze of the same file (apply analyses it too, then rewrites), and 8,000 -> 16,000 scaling
    (linear: 2x, quadratic: 4x)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([PY, "-c", MANY_FINDINGS_CODE], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        rows.append(("apply, one file with 16,000 findings", "", "failed", proc.stderr.strip().splitlines()[-1][:80]))
        return
    stats = {int(k): v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    big, half = stats[16000], stats[8000]
    ratio = big["apply_s"] / big["analyze_s"]
    scaling = big["apply_s"] / half["apply_s"]
    rows.append(("analyze, one file with 16,000 findings (baseline)", f"{big['bytes'] / 1e3:.0f} KB", f"{big['analyze_s']:.2f} s", "baseline"))
    rows.append(("apply, the same file", f"{big['changes']:,} rewrites", f"{big['apply_s']:.2f} s",
                 f"{ratio:.2f}x of analyze (target <= 3); 8k -> 16k findings {scaling:.2f}x (linear 2, quadratic 4)"))
    results.update(many_findings=stats, many_findings_apply_vs_analyze=ratio, many_findings_scaling=scaling)


def bench_smoke(rows, results, quick):
    """Whole-run wall time (what a user waits for; dominated by `import torch`) and steady-state
    time of steps 2..N (what the per-op hooks cost), both against the plain script."""
    script = ROOT / "bench" / "smoke_workload.py"
    steps = "30" if quick else "60"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    report = Path(tempfile.mkdtemp(prefix="npu-bench-smoke-")) / "smoke.json"
    steady: dict[str, float] = {}

    def plain():
        proc = subprocess.run([PY, str(script), "--steps", steps], env=env, capture_output=True, text=True, check=True)
        value = float(proc.stdout.split("STEADY_STATE_S=")[1].split()[0])
        steady["plain"] = min(steady.get("plain", float("inf")), value)

    def smoke(label, *extra):
        def run():
            proc = subprocess.run([PY, "-m", "migrate", "smoke", str(script), "--backend", "emulated", "--steps", steps,
                                   "--json", str(report), "-q", *extra, "--", "--steps", steps], env=env, capture_output=True)
            if proc.returncode != 0:
                raise RuntimeError(proc.stdout.decode()[-2000:] + proc.stderr.decode()[-2000:])
            times = json.loads(report.read_text())["step_times"][1:]
            steady[label] = min(steady.get(label, float("inf")), sum(times))
        return run

    repeat = 2 if quick else 3
    base = timed(plain, repeat)
    try:
        traced = timed(smoke("traced"), repeat)
        untraced = timed(smoke("untraced", "--no-op-trace"), repeat)
    except Exception as exc:  # the row says why instead of hiding the failure
        rows.append(("smoke harness overhead", "", "failed", str(exc).splitlines()[-1][:80]))
        return
    s_plain, s_traced, s_untraced = steady["plain"], steady["traced"], steady["untraced"]
    rows.append(("plain script on CPU (baseline)", f"{steps} steps", f"{base:.2f} s", f"steps 2..N: {s_plain:.3f} s"))
    rows.append(("smoke emulated, op tracing", f"{steps} steps", f"{traced:.2f} s",
                 f"whole run {traced / base:.2f}x, steps 2..N {s_traced / s_plain:.2f}x (target <= 1.15)"))
    rows.append(("smoke emulated, no op tracing", f"{steps} steps", f"{untraced:.2f} s",
                 f"whole run {untraced / base:.2f}x, steps 2..N {s_untraced / s_plain:.2f}x (target <= 1.05)"))
    results.update(smoke_plain_s=base, smoke_traced_s=traced, smoke_untraced_s=untraced,
                   smoke_traced_ratio=traced / base, smoke_untraced_ratio=untraced / base,
                   smoke_steady_plain_s=s_plain, smoke_steady_traced_ratio=s_traced / s_plain,
                   smoke_steady_untraced_ratio=s_untraced / s_plain)


def bench_profile(rows, results, quick):
    """Per-step cost of the emulated profile hooks: `profile --backend emulated` against `smoke --backend
    emulated` (default op tracing) of the same script, steps 2..N of each (target <= 1.3x)."""
    script = ROOT / "bench" / "smoke_workload.py"
    steps = "30" if quick else "60"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    tmp = Path(tempfile.mkdtemp(prefix="npu-bench-profile-"))
    best: dict[str, list[float]] = {}

    def run(label, cmd, times_of):
        def go():
            proc = subprocess.run([PY, "-m", "migrate", *cmd, str(script), "--backend", "emulated", "--steps", steps,
                                   "--json", str(tmp / f"{label}.json"), "-q", "--", "--steps", steps],
                                  env=env, capture_output=True, cwd=tmp, check=False)
            if proc.returncode not in (0, 1):
                raise RuntimeError(proc.stdout.decode()[-2000:] + proc.stderr.decode()[-2000:])
            times = times_of(json.loads((tmp / f"{label}.json").read_text()))
            if label not in best or sum(times) < sum(best[label]):
                best[label] = times
        return go

    smoke = run("smoke", ["smoke"], lambda d: d["step_times"][1:])
    profile = run("profile", ["profile", "--out", str(tmp / "out")], lambda d: [t / 1000 for t in d["step_times_ms"]])
    try:
        for _ in range(2 if quick else 3):  # alternate, so load changes hit both alike
            smoke()
            profile()
    except Exception as exc:  # noqa: BLE001 - the row says why instead of hiding the failure
        rows.append(("profile overhead", "", "failed", str(exc).splitlines()[-1][:80]))
        return
    s, p = best["smoke"], best["profile"]
    total = sum(p) / sum(s)
    median = statistics.median(p) / statistics.median(s)
    rows.append(("profile emulated vs smoke emulated", f"{steps} steps", f"{sum(p):.2f} s (steps 2..N)",
                 f"per step {median:.2f}x median, {total:.2f}x total (target <= 1.3)"))
    results.update(profile_steady_s=sum(p), profile_smoke_steady_s=sum(s), profile_vs_smoke_total_ratio=total,
                   profile_vs_smoke_median_step_ratio=median)


def _steady(cmd, env, report=None) -> float:
    """Seconds of steps 2..N: from the workload's own print (plain) or smoke's per-step times."""
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError((proc.stdout + proc.stderr)[-2000:])
    if report is None:
        return float(proc.stdout.split("STEADY_STATE_S=")[1].split()[0])
    return sum(json.loads(Path(report).read_text())["step_times"][1:])


def bench_autocast(rows, results, quick):
    """Per-step cost of the autocast emulation: an AMP loop on the stand-ins against the plain CPU
    (where its autocast region is off). Target: the default policy (off) <= 1.15x per step."""
    script = ROOT / "bench" / "autocast_workload.py"
    steps = "10" if quick else "20"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    report = Path(tempfile.mkdtemp(prefix="npu-bench-autocast-")) / "smoke.json"
    repeat = 1 if quick else 2

    def smoke(backend, policy):
        return [PY, "-m", "migrate", "smoke", str(script), "--backend", backend, "--steps", steps, "--autocast", policy,
                "--json", str(report), "-q", "--", "--steps", steps]

    measured = {}
    try:
        for label, cmd, rep in (("plain", [PY, str(script), "--steps", steps], None),
                                ("emulated off", smoke("emulated", "off"), report),
                                ("cuda-emulated off", smoke("cuda-emulated", "off"), report),
                                ("emulated native", smoke("emulated", "native"), report)):
            measured[label] = min(_steady(cmd, env, rep) for _ in range(repeat if label != "emulated native" else 1))
    except Exception as exc:  # the row says why instead of hiding the failure
        rows.append(("autocast emulation", "", "failed", str(exc).splitlines()[-1][:80]))
        return
    base = measured["plain"]
    rows.append(("AMP loop, plain CPU (autocast region off)", f"{steps} steps", f"steps 2..N {base:.3f} s", "baseline"))
    for label, target in (("emulated off", "target <= 1.15"), ("cuda-emulated off", "target <= 1.15"),
                          ("emulated native", "why native float16 is not the default")):
        rows.append((f"AMP loop, smoke {label.split()[0]} --autocast {label.split()[1]}", f"{steps} steps",
                     f"steps 2..N {measured[label]:.3f} s", f"{measured[label] / base:.2f}x ({target})"))
    results.update(autocast_plain_steady_s=base, **{f"autocast_{k.replace(' ', '_').replace('-', '_')}_ratio": v / base
                                                    for k, v in measured.items() if k != "plain"})


def bench_validate(rows, results, quick):
    """validate's own overhead: its wall time against the two runs it contains (durations its smoke
    runs report), and against the same two runs as standalone smoke commands. Target <= 1.1x."""
    src = ROOT / "tests" / "cudatwin_cases" / "gpu_only.py"
    tmp = Path(tempfile.mkdtemp(prefix="npu-bench-validate-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    migrated = tmp / "migrated" / "gpu_only.py"
    migrated.parent.mkdir()
    steps = "10" if quick else "20"
    try:
        subprocess.run([PY, "-m", "migrate", "apply", str(src), "-o", str(migrated)], env=env, capture_output=True, check=False)
        started = time.perf_counter()
        proc = subprocess.run([PY, "-m", "migrate", "validate", str(src), str(migrated), "--steps", steps, "--no-dump",
                               "-q", "--out", str(tmp / "out")], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(proc.stdout[-2000:])
        own = sum(json.loads((tmp / "out" / side / "smoke.json").read_text())["duration_s"] for side in ("baseline", "migrated"))
        standalone = 0.0
        for script, backend in ((src, "cuda-emulated"), (migrated, "emulated")):
            t0 = time.perf_counter()
            subprocess.run([PY, "-m", "migrate", "smoke", str(script), "--backend", backend, "--steps", steps, "-q",
                            "--seed", "1234"], env=env, capture_output=True, check=False)
            standalone += time.perf_counter() - t0
    except Exception as exc:
        rows.append(("validate overhead", "", "failed", str(exc).splitlines()[-1][:80]))
        return
    rows.append(("validate gpu_only.py vs its apply output", f"{steps} steps", f"{wall:.2f} s",
                 f"{wall / own:.2f}x its two runs ({own:.1f} s), {wall / standalone:.2f}x two standalone smokes "
                 f"({standalone:.1f} s) (target <= 1.1)"))
    results.update(validate_wall_s=wall, validate_runs_s=own, validate_standalone_smokes_s=standalone,
                   validate_over_runs_ratio=wall / own, validate_over_standalone_ratio=wall / standalone)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--only", nargs="*", choices=["analyze", "startup", "kb", "apply", "many-findings", "smoke", "profile", "dist", "autocast", "validate", "loop-observer", "symbol-model", "two-hosts", "fusion"])
    args = parser.parse_args(argv)
    only = set(args.only or ["analyze", "startup", "kb", "apply", "many-findings", "smoke", "profile", "dist", "autocast", "validate"])
    rows: list[tuple[str, str, str, str]] = []
    results: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    files = torch_corpus()
    lines = count_lines(files)
    analyze_s, root = None, None
    if "analyze" in only or "apply" in only:
        analyze_s, root = bench_analyze(files, lines, rows, results, args.quick)
    if "startup" in only:
        bench_startup(rows, results)
    if "kb" in only:
        bench_kb(rows, results)
    if "apply" in only:
        bench_apply(root, analyze_s, rows, results, args.quick)
    if "many-findings" in only:
        bench_many_findings(rows, results, args.quick)
    if "smoke" in only:
        bench_smoke(rows, results, args.quick)
    if "profile" in only:
        bench_profile(rows, results, args.quick)
    if "dist" in only:  # 2-rank smoke under torchrun vs the plain torchrun job (bench/dist_bench.py)
        from bench.dist_bench import bench_dist_smoke

        bench_dist_smoke(rows, results, args.quick, timed)
    if "autocast" in only:
        bench_autocast(rows, results, args.quick)
    if "validate" in only:
        bench_validate(rows, results, args.quick)
    if "two-hosts" in only:  # issue 26: baseline vs the run it records, validate --baseline vs the migrated run
        from bench.two_hosts_bench import bench_two_hosts

        bench_two_hosts(rows, results, args.quick, PY)
    if "loop-observer" in only:  # checks.child.loop_observer in process (issue 28)
        from bench.loop_observer_bench import bench_loop_observer

        bench_loop_observer(rows, results, args.quick)
    if "fusion" in only:  # issue 29: profile's fusion recorder on vs off (bench/fusion_bench.py)
        from bench.fusion_bench import bench_fusion, bench_fusion_recorder

        bench_fusion_recorder(rows, results, args.quick)
        bench_fusion(rows, results, args.quick)
    if "symbol-model" in only:  # issue 24: the cross-file model at 1/4, 1/2, all of torch (bench/symbol_model_bench.py)
        from bench.symbol_model_bench import bench_symbol_model

        bench_symbol_model(files, rows, results, args.quick)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"npu-migrate benchmarks ({len(files)} files, {lines:,} lines of torch; {os.cpu_count()} cores)")
    for column in ("what", "throughput", "time", "against baseline / target"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    out = ROOT / "bench" / "results.json"
    if args.only and out.is_file():  # a partial run updates its own keys, the others stay
        results = {**json.loads(out.read_text()), **results}
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
