"""`npu-migrate profile`: the performance stage of a migration (see docs/profile.md).

Parent side (never imports torch): `checks.profile.run.run_profile` runs the script through the smoke
machinery with the profiling hooks switched on, turns what the child measured into ranked findings
(`checks.profile.findings`) and hands them to the reporters (`checks.profile.report`).

Child side (imported by checks/child/bootstrap.py only when NPU_MIGRATE_PROFILE is set): `child` installs
the per-step measurement: `hostsync` (calls that make the host wait for the device), `dataload`
(DataLoader waits), `fusedopt` (optimizers with a fused torch_npu counterpart), `tracer` (emulated
only: CPU fallbacks, float64/complex ops, dynamic shapes, per aten op) and `ascend` (on a real NPU:
the Ascend PyTorch Profiler).
"""
