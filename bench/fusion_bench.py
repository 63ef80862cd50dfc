"""Issue 29: what looking for fusion chances adds to `profile --backend emulated` (target <= 1.10x).

The same script and steps profiled with the fusion recorder on and off (`run_profile(fusion=...)`, what
`profile --no-fusion` sets), REPEATS times each, the pair's order alternated so a change of load hits
both alike; the ratio on/off of each pair, and their median, for three measures of one run:
- CPU: the profile child's user+system CPU time (getrusage of the waited-for children: start-up,
  import, every step, the report), the measure a shared machine disturbs least;
- wall: the whole run's wall time (the parent's matching/report included);
- steps: the sum of the child's measured step times (steps 2..N, wall).
The child runs with one intra-op thread (OMP_NUM_THREADS=1, both sides): the recorder is Python on the
main thread, and spinning worker threads on a busy 2-core machine make CPU time meaningless.
Two workloads: bench/smoke_workload.py (few large ops) and tests/profile_cases/fused.py (a small
LLaMA-style block: many small torch-level calls, the recorder's worst case).
"""
from __future__ import annotations

import resource
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = {
    "smoke_workload.py": (ROOT / "bench" / "smoke_workload.py", ["--steps", "{steps}"], {}),
    "fused.py (LLaMA-style block)": (ROOT / "tests" / "profile_cases" / "fused.py", [], {"FUSED_STEPS": "{steps}"}),
}
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _profile_once(script, args, env, steps, fusion, out):
    from checks.profile.run import run_profile

    cpu, start = _children_cpu(), time.perf_counter()
    r = run_profile(script, steps=steps, backend="emulated", seed=0, timeout=600, fusion=fusion, out_dir=out,
                    script_args=[a.format(steps=steps) for a in args],
                    env={**ONE_THREAD, **{k: v.format(steps=steps) for k, v in env.items()}})
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if r.exit_code == 2:
        raise RuntimeError("; ".join(r.reasons)[:200])
    return {"cpu_s": cpu, "wall_s": wall, "steps_s": sum(r.step_times_ms) / 1000,
            "fusion_findings": sum(1 for f in r.findings if f.kind == "fusion")}


def bench_fusion(rows, results, quick):
    steps = 12 if quick else 30
    repeats = 3 if quick else 5
    tmp = Path(tempfile.mkdtemp(prefix="npu-bench-fusion-"))
    out = {}
    for name, (script, args, env) in WORKLOADS.items():
        runs = {True: [], False: []}
        try:
            for i in range(repeats):
                for fusion in ((False, True) if i % 2 == 0 else (True, False)):
                    runs[fusion].append(_profile_once(script, args, env, steps, fusion, str(tmp / "out")))
        except RuntimeError as exc:
            rows.append((f"fusion matching: {name}", "", "failed", str(exc)[:80]))
            return
        ratios = {m: [on[m] / off[m] for on, off in zip(runs[True], runs[False])] for m in ("cpu_s", "wall_s", "steps_s")}
        median = {m: statistics.median(v) for m, v in ratios.items()}
        out[name] = {"steps": steps, "repeats": repeats, "threads": 1, "on": runs[True], "off": runs[False],
                     "ratios": ratios, "median_cpu_ratio": median["cpu_s"], "median_wall_ratio": median["wall_s"],
                     "median_steps_ratio": median["steps_s"],
                     "fusion_findings_on_off": (runs[True][0]["fusion_findings"], runs[False][0]["fusion_findings"])}
        rows.append((f"profile emulated, fusion on vs off: {name}", f"{steps} steps, {repeats} pairs",
                     f"CPU {statistics.median(r['cpu_s'] for r in runs[True]):.1f} s vs "
                     f"{statistics.median(r['cpu_s'] for r in runs[False]):.1f} s",
                     f"median CPU {median['cpu_s']:.3f}x, wall {median['wall_s']:.3f}x, steps {median['steps_s']:.3f}x "
                     "(target <= 1.10)"))
    results["fusion_matching"] = out


def bench_fusion_recorder(rows, results, quick):
    """The recorder's own cost per traced step, in process and in CPU time (time.process_time: the wall
    time of a profiled child on a shared machine varies tenfold between identical steps): a small
    LLaMA-style block's forward and backward with the recorder on (ops recorded and matched every step)
    against off. The recorder runs on the traced steps only (op tracing stops after two quiet steps)."""
    import torch

    from checks.profile import fusion
    from checks.profile.frames import UserFrames
    from migrate import knowledge

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # CPU time of one thread: intra-op worker threads spin on a busy machine
    block, x = _llama_block(torch)

    class State:  # what the recorder reads from checks/profile/child.ProfileState
        measuring, harness, in_backward, in_loader = True, 0, False, False
        frames = UserFrames(__file__)
        chances = 0

        def count(self, *args, **kwargs):
            self.chances += 1

    state = State()
    recorder = fusion.make_recorder(torch, state, fusion.load_rules(knowledge.load(None)))
    steps = 20 if quick else 60

    def run(on: bool) -> float:
        start = time.process_time()
        for _ in range(steps):
            if on:
                recorder.start()
            block(x).sum().backward()
            if on:
                recorder.end_step()
                recorder.stop()
        return (time.process_time() - start) / steps

    run(False), run(True)  # warm-up
    best = {False: float("inf"), True: float("inf")}
    for _ in range(3 if quick else 5):
        for on in (False, True):
            best[on] = min(best[on], run(on))
    torch.set_num_threads(threads)
    ratio = best[True] / best[False]
    rows.append(("fusion recorder per traced step (CPU time, 1 thread)", f"{steps} steps",
                 f"{best[True] * 1000:.2f} ms vs {best[False] * 1000:.2f} ms", f"{ratio:.3f}x on a traced step"))
    results["fusion_recorder"] = {"steps": steps, "on_cpu_ms": best[True] * 1000, "off_cpu_ms": best[False] * 1000,
                                  "traced_step_ratio": ratio}


def _llama_block(torch):
    """RMSNorm, rotary embedding, attention via softmax(QK^T)V and SwiGLU written by hand (as
    tests/profile_cases/fused.py, without torch_npu)."""
    from torch import nn
    from torch.nn import functional as F

    dim, heads, seq = 64, 4, 32
    hd = dim // heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1, self.w2 = nn.Parameter(torch.ones(dim)), nn.Parameter(torch.ones(dim))
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.up, self.down = nn.Linear(dim, 4 * dim), nn.Linear(2 * dim, dim)
            ang = torch.randn(1, 1, seq, hd // 2)
            self.cos, self.sin = torch.cat((ang.cos(), ang.cos()), -1), torch.cat((ang.sin(), ang.sin()), -1)
            self.masked = ~torch.tril(torch.ones(seq, seq, dtype=torch.bool))

        def norm(self, x, w):
            return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))

        def rope(self, q):
            x1, x2 = q[..., : hd // 2], q[..., hd // 2:]
            return (q * self.cos) + (torch.cat((-x2, x1), dim=-1) * self.sin)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.qkv(self.norm(x, self.w1)).view(b, s, 3, heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
            q, k = self.rope(q), self.rope(k)
            scores = torch.matmul(q, k.transpose(-2, -1)) * hd ** -0.5
            scores.masked_fill_(self.masked, float("-inf"))
            x = x + self.proj(torch.matmul(F.softmax(scores, -1), v).transpose(1, 2).reshape(b, s, d))
            gate, up = self.up(self.norm(x, self.w2)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    torch.manual_seed(0)
    return Block(), torch.randn(4, seq, dim)
