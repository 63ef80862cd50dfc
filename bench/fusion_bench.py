"""Issue 29: what looking for fusion chances adds to `profile --backend emulated` (target <= 1.10x).

The same script profiled with the fusion recorder on and off (`run_profile(fusion=...)`), alternated
so load changes hit both alike, best of N each. Two workloads: bench/smoke_workload.py (few large ops)
and tests/profile_cases/fused.py (a small LLaMA-style block: many small torch-level calls, the
recorder's worst case). Measured: the child's steps 2..N (its `step_time_ms`) and the whole run's wall
time (start-up and the parent's matching/report included).
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = {
    "smoke_workload.py": (ROOT / "bench" / "smoke_workload.py", ["--steps", "{steps}"], {}),
    "fused.py (LLaMA-style block)": (ROOT / "tests" / "profile_cases" / "fused.py", [], {"FUSED_STEPS": "{steps}"}),
}


def bench_fusion(rows, results, quick):
    from checks.profile.run import run_profile

    steps = 12 if quick else 30
    tmp = Path(tempfile.mkdtemp(prefix="npu-bench-fusion-"))
    out = {}
    for name, (script, args, env) in WORKLOADS.items():
        best = {True: (float("inf"), float("inf")), False: (float("inf"), float("inf"))}
        for _ in range(2 if quick else 3):
            for fusion in (False, True):
                start = time.perf_counter()
                r = run_profile(script, steps=steps, backend="emulated", seed=0, timeout=600, fusion=fusion,
                                out_dir=str(tmp / "out"), script_args=[a.format(steps=steps) for a in args],
                                env={k: v.format(steps=steps) for k, v in env.items()})
                wall = time.perf_counter() - start
                if r.exit_code == 2:
                    rows.append((f"fusion matching: {name}", "", "failed", "; ".join(r.reasons)[:80]))
                    return
                step_s = sum(r.step_times_ms) / 1000
                if step_s < best[fusion][0]:
                    best[fusion] = (step_s, wall)
        (off_steps, off_wall), (on_steps, on_wall) = best[False], best[True]
        out[name] = {"steps": steps, "off_steps_s": off_steps, "on_steps_s": on_steps, "off_wall_s": off_wall,
                     "on_wall_s": on_wall, "steps_ratio": on_steps / off_steps, "wall_ratio": on_wall / off_wall}
        rows.append((f"profile emulated, fusion on vs off: {name}", f"{steps} steps",
                     f"{on_steps:.2f} s (steps 2..N)",
                     f"steps {on_steps / off_steps:.3f}x, wall {on_wall / off_wall:.3f}x (target <= 1.10)"))
    results["fusion_matching"] = out
