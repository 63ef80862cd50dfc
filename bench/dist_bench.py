"""Benchmark row: a 2-rank emulated `smoke --nproc-per-node 2` vs the same torchrun job without the harness.

Both runs start `python -m torch.distributed.run --standalone --nproc-per-node 2` on bench/dist_workload.py
(plain: gloo on the CPU; smoke: hccl on the emulated NPU, per-rank reports, progress files,
fingerprint at the last step). Ratios of the whole-job wall time and of rank 0's steps 2..N.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def bench_dist_smoke(rows, results, quick, timed):
    script = ROOT / "bench" / "dist_workload.py"
    steps = "20" if quick else "40"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    report = Path(tempfile.mkdtemp(prefix="npu-bench-dist-")) / "smoke.json"
    steady: dict[str, float] = {}

    def plain():
        proc = subprocess.run([PY, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(script),
                               "--steps", steps], env=env, capture_output=True, text=True, check=True)
        value = float(proc.stdout.split("STEADY_STATE_S=")[1].split()[0])
        steady["plain"] = min(steady.get("plain", float("inf")), value)

    def smoke():
        proc = subprocess.run([PY, "-m", "migrate", "smoke", str(script), "--nproc-per-node", "2", "--backend", "emulated",
                               "--steps", steps, "--json", str(report), "-q", "--", "--steps", steps],
                              env=env, capture_output=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(proc.stdout.decode()[-2000:] + proc.stderr.decode()[-2000:])
        times = json.loads(report.read_text())["ranks"][0]["step_times"][1:]
        steady["smoke"] = min(steady.get("smoke", float("inf")), sum(times))

    repeat = 2 if quick else 3
    # interleaved, so a change in the machine's load hits both sides alike
    base = harness = float("inf")
    for _ in range(repeat):
        base = min(base, timed(plain, 1))
        try:
            harness = min(harness, timed(smoke, 1))
        except (RuntimeError, OSError, ValueError, KeyError, IndexError) as exc:  # the row says why instead of hiding the failure
            rows.append(("2-rank smoke harness overhead", "", "failed", str(exc).splitlines()[-1][:80]))
            return
    s_plain, s_smoke = steady["plain"], steady["smoke"]
    rows.append(("torchrun 2 ranks, plain (baseline)", f"{steps} steps", f"{base:.2f} s", f"steps 2..N (rank 0): {s_plain:.3f} s"))
    rows.append(("smoke --nproc-per-node 2, emulated", f"{steps} steps", f"{harness:.2f} s",
                 f"whole job {harness / base:.2f}x, steps 2..N {s_smoke / s_plain:.2f}x (target <= 1.15)"))
    results.update(dist_plain_s=base, dist_smoke_s=harness, dist_smoke_ratio=harness / base,
                   dist_steady_plain_s=s_plain, dist_steady_ratio=s_smoke / s_plain)


if __name__ == "__main__":  # this row alone: python bench/dist_bench.py [--quick]
    def _timed(fn, repeat=1):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        return best

    rows: list = []
    results: dict = {}
    bench_dist_smoke(rows, results, "--quick" in sys.argv, _timed)
    for row in rows:
        print(" | ".join(row))
    print(json.dumps(results, indent=1))
