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
        measuring, harness, in_backward = True, 0, False
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
