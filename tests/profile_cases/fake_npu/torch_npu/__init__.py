"""A fake torch_npu for tests/test_profile.py: only `torch_npu.profiler`, to test the orchestration of the
Ascend profiler where no NPU exists. Not the stand-in (checks/standin) and never on a user's path."""
from torch_npu import profiler  # noqa: F401

__version__ = "2.14.0.fake"
