"""The runtime side of issue 28 (checks.child.loop_observer), in process on a tiny CPU loop: the GradScaler's
scale per step and the skipped (overflow) step, the norm clipping saw and whether it was still
loss-scaled, and which training state each torch.save holds."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.runtime


def _loop(torch, unscale_before_clip: bool):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    x = torch.randn(8, 4)
    for step in range(3):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean() * (float("inf") if step == 0 else 1.0)  # step 1 overflows
        scaler.scale(loss).backward()
        if unscale_before_clip:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()


@pytest.mark.parametrize("unscale_before_clip", [False, True])
def test_scale_per_step_skipped_step_and_what_clipping_saw(unscale_before_clip):
    import torch

    from checks.child.loop_observer import observe

    original_save, original_clip = torch.save, torch.nn.utils.clip_grad_norm_
    obs, restore = observe(torch)
    try:
        _loop(torch, unscale_before_clip)
    finally:
        restore()
    assert torch.save is original_save and torch.nn.utils.clip_grad_norm_ is original_clip
    assert obs.skipped_steps == [1]
    assert [s.scale for s in obs.scaler_steps] == [512.0, 512.0, 512.0]  # backed off once, then no growth yet
    assert [c.scaled for c in obs.clips] == [not unscale_before_clip] * 3
    seen = obs.clips[1].total_norm  # step 2: the first finite one, from the same parameters in both runs
    # the norm clipping saw: 512 times the true one while the gradients are still scaled
    obs_true, restore = observe(torch)
    try:
        _loop(torch, True)
    finally:
        restore()
    ratio = 1.0 if unscale_before_clip else 512.0
    assert seen == pytest.approx(obs_true.clips[1].total_norm * ratio, rel=1e-4)


def test_checkpoint_contents_and_what_a_resume_would_lose(tmp_path):
    import random

    import torch

    from checks.child.loop_observer import observe

    obs, restore = observe(torch)
    try:
        model = torch.nn.Linear(2, 2)
        optimizer = torch.optim.AdamW(model.parameters())
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        scaler = torch.amp.GradScaler("cpu")
        scaler.scale(model(torch.ones(1, 2)).sum()).backward()
        torch.save(model.state_dict(), tmp_path / "weights.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}, tmp_path / "partial.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "sched": scheduler.state_dict(),
                    "scaler": scaler.state_dict(), "rng": {"torch": torch.get_rng_state(), "python": random.getstate()},
                    "step": 3}, tmp_path / "full.pt")
        torch.save({"vocab": [1, 2]}, tmp_path / "meta.pt")  # holds no model: not a checkpoint
        torch.save({"MODEL_STATE": model.state_dict(), "EPOCHS_RUN": 2}, tmp_path / "snapshot.pt")  # DDP tutorial
    finally:
        restore()
    seen = {c.path.rsplit("/", 1)[-1]: (c.holds, c.lost) for c in obs.checkpoints}
    assert seen == {
        "weights.pt": (("model",), ("optimizer", "scheduler", "scaler", "rng", "step")),
        "partial.pt": (("model", "optimizer", "step"), ("scheduler", "scaler", "rng")),
        "full.pt": (("model", "optimizer", "scheduler", "scaler", "rng", "step"), ()),
        "snapshot.pt": (("model", "step"), ("optimizer", "scheduler", "scaler", "rng")),
    }
    assert (tmp_path / "full.pt").exists()  # the script's own save still happened


def test_sample_digests_run_with_msprobes_dump_paused(monkeypatch):
    """validate's data fingerprint (the per-sample digests of the first batches) is the tool's own work: inside a
    dumped step msprobe's API dump runs its hooks around each of its torch calls (the MLP of the two-hosts bench:
    0.4 s for its first two batches instead of 0.05 s), so they run with msprobe's own switch for the work of its
    hooks on (checks.emulation.compat.msprobe_dump_paused), and it is off again after."""
    import threading

    import torch

    hook_manager = pytest.importorskip("msprobe.core.dump.hook_manager")
    from checks.child import loop_observer

    switch = []
    real = loop_observer.sample_digests

    def probe(torch, batch):
        switch.append(hook_manager.BaseHookManager.inner_switch[threading.get_ident()])
        return real(torch, batch)

    monkeypatch.setattr(loop_observer, "sample_digests", probe)
    obs, restore = loop_observer.observe(torch, samples=2)
    try:
        for _batch in torch.utils.data.DataLoader(torch.arange(8.0).view(4, 2), batch_size=2):
            pass
    finally:
        restore()
    assert switch == [True, True]
    assert not hook_manager.BaseHookManager.inner_switch[threading.get_ident()]
    assert [len(digests) for digests in obs.samples] == [2, 2]


def test_sample_digests_are_the_per_row_digests_they_were():
    """sample_digests reads each tensor's bytes once as a (samples, row bytes) array instead of indexing,
    reshaping and viewing every row with torch (a dozen torch calls a sample): the digests must stay those of
    each row's shape, dtype and bytes, as bundles already recorded hold them. The reference is the per-row form."""
    import hashlib

    import torch

    from checks.child.loop_observer import sample_digests

    def per_row(batch_tensors):
        size = batch_tensors[0].shape[0]
        rows = [t.detach().cpu().contiguous() for t in batch_tensors if t.dim() >= 1 and t.shape[0] == size]
        out = []
        for i in range(size):
            digest = hashlib.blake2b(digest_size=8)
            for t in rows:
                row = t[i]
                digest.update(f"{tuple(row.shape)}{row.dtype}".encode())
                digest.update(row.reshape(-1).view(torch.uint8).numpy())
            out.append(digest.hexdigest())
        return out

    g = torch.Generator().manual_seed(0)
    images = torch.randn(5, 3, 4, 2, generator=g)
    batches = [
        [images, torch.randint(0, 10, (5,), generator=g)],  # (images, labels): a 1-d tensor of 5 rows
        [images.permute(0, 3, 1, 2), torch.randn(5, 7, generator=g).to(torch.bfloat16)],  # not contiguous; no numpy dtype
        [torch.rand(5, 2, generator=g) > 0.5, torch.randn(5, 3, generator=g).to(torch.float64), torch.randn(4, 2, generator=g)],
        [torch.randn(5, 0, generator=g), torch.arange(5, dtype=torch.int16)],  # rows of no bytes
        [torch.randn(5, 2, 2, generator=g, dtype=torch.complex64)],
        [images[:, 0, 0, 0]],  # a 1-d view of a larger storage
    ]
    for batch in batches:
        assert sample_digests(torch, batch) == per_row(batch)
    assert sample_digests(torch, {"x": images, "y": images[:, :1]}) == per_row([images, images[:, :1]])
    assert len(set(sample_digests(torch, [images]))) == 5
