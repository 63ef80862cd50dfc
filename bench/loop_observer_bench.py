"""Per-step cost of checks.child.loop_observer (issue 28): an AMP-style CPU loop (GradScaler, unscale_,
clip_grad_norm_, step, update, a checkpoint every 10 steps) with and without the observer, in one
process on one thread, interleaved, best of several runs, timed in process CPU time (wall time on a
shared machine swung 66-227 ms/step between runs). Target: <= 1.05x per step."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path


def _loop(torch, steps: int, folder: Path) -> float:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 100)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
    start = time.process_time()  # CPU time of this process: other jobs on a shared machine do not count
    for step in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        if step % 10 == 9:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, folder / "ck.pt")
    return (time.process_time() - start) / steps


def bench_loop_observer(rows, results, quick):
    import torch

    from checks.child.loop_observer import observe

    steps, repeat = (30, 3) if quick else (60, 5)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread, so that process CPU time is the loop's time
    folder = Path(tempfile.mkdtemp(prefix="npu-bench-loopobs-"))
    _loop(torch, 5, folder)  # warm up
    plain, observed = [], []
    for index in range(repeat * 2):  # interleaved, alternating which goes first
        if (index % 2 == 0) == (index // 2 % 2 == 0):
            plain.append(_loop(torch, steps, folder))
            continue
        obs, restore = observe(torch)
        try:
            observed.append(_loop(torch, steps, folder))
        finally:
            restore()
        assert len(obs.scaler_steps) == steps and len(obs.clips) == steps and len(obs.checkpoints) == steps // 10
    torch.set_num_threads(threads)
    base, with_obs = min(plain), min(observed)
    rows.append(("AMP loop on the CPU, plain", f"{steps} steps", f"{base * 1000:.2f} CPU ms/step", "baseline"))
    rows.append(("AMP loop, loop observer on", f"{steps} steps", f"{with_obs * 1000:.2f} CPU ms/step", f"{with_obs / base:.3f}x (target <= 1.05)"))
    results.update(loop_observer_plain_step_ms=base * 1000, loop_observer_ratio=with_obs / base)
