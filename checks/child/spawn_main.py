"""Runs as `__mp_main__` in a process the script starts with the spawn method (torch.multiprocessing
spawn, `mp.get_context("spawn").Process`, spawned DataLoader workers), in place of the script itself.

The smoke bootstrap points multiprocessing's preparation data at this file (see
`checks.child.bootstrap.bridge_spawned_children`); the configuration comes in NPU_MIGRATE_SMOKE_SPAWN.
By the time this file runs, multiprocessing has given the process the parent's sys.path (the
torch_npu stand-in first when emulated): our torch-free modules are imported with the project root
appended for a moment, then torch, then the hooks and fake data go on as in the smoke child, and
the script runs as `__mp_main__` as multiprocessing would have run it. Steps taken here count
(`<report>.proc<PID>`, merged by the parent). A spawned process that joins a process group (an
mp.spawn rank) also writes `<report>.ranks/rank{R}.dist.json` (checks.child.dist_child.attach_spawned), so
the parent judges the ranks as one job (checks/smoke/spawn_ranks.py).
"""
import json
import os
import runpy
import sys

SPAWN_ENV = "NPU_MIGRATE_SMOKE_SPAWN"


def _prepare() -> str:
    cfg = json.loads(os.environ[SPAWN_ENV])
    root = cfg["root"]
    sys.path.append(root)
    try:
        import checks.child.dist_child as dist_child
        from checks.child.bootstrap import describe_exception, install_hooks, seed_everything
        from checks.child.loop_observer import observe
        from checks.child.recorder import Recorder
        from checks.launch.child_config import RANKS_SUFFIX
        from checks.launch.process import die_with_parent

        if cfg.get("fake_data"):
            import checks.emulation.fakedata as fakedata
    finally:
        sys.path.remove(root)
    die_with_parent()  # ends with the run that spawned it (which ends with npu-migrate, checks/launch/process.py)
    import torch

    if cfg["backend"] == "emulated":
        import torch_npu  # noqa: F401  (the stand-in: first on the inherited sys.path)
    if cfg["backend"] == "cuda-emulated":  # the CUDA twin (checks/emulation/cudatwin.py), as in the smoke child
        sys.path.append(root)
        try:
            import checks.emulation.cudatwin as cudatwin
            from migrate import knowledge
        finally:
            sys.path.remove(root)
        cudatwin.install(knowledge.load(cfg.get("torch_npu_version")).transfer_to_npu or {})
    rec = Recorder(cfg, cfg["script"])
    rec.after_fork()  # a worker: its own report, stops itself after the requested steps
    install_hooks(torch, rec, fork_aware=False)
    rec.loop, _ = observe(torch)  # loss scale, clipping, checkpoints of this rank (checks/child/loop_observer.py)
    if not cfg.get("dist_dir"):  # ranks of mp.spawn: judged as one job by the parent (checks/smoke/spawn_ranks.py)
        dist_child.attach_spawned(rec, cfg["report"] + RANKS_SUFFIX, describe_exception)
    if cfg.get("fake_data"):
        fakedata.install(torch)
    if cfg.get("seed") is not None:
        # a spawned process starts from a fresh random state (a forked one inherits the seeded
        # parent's): the seed of the run reaches it too, so two runs (validate) build the same
        # model and data in their workers (a DDP tutorial's mp.spawn script seeds nothing itself)
        seed_everything(torch, int(cfg["seed"]))
    return cfg["script"]


globals().update(runpy.run_path(_prepare(), run_name="__mp_main__"))
