"""Floor 2 of checks/: what makes the CPU stand in for an NPU (or a CUDA device).

The device map and device runtime behind the torch_npu stand-in (checks/standin), the CUDA twin,
autocast emulation, SyncBatchNorm, fake data, the version compatibility layer (compat) and the
known limits of emulation. Imports only launch/.
"""
