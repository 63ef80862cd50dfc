"""`npu-migrate doctor`: is this machine ready to train on Ascend, and what does this error mean.

Static side: nothing here imports torch or torch_npu. Package versions come from installed
metadata; everything that needs torch (import probe, tiny matmul, HCCL all-reduce) runs in a child
Python process (`python -m checks.child.doctor_probe ...`, the runtime side) with a timeout.

Layout: `host.py` (what the checks may look at: env, PATH, /dev, metadata; injectable for tests),
`result.py` (frozen results), `checks/` (one check per module, run in order by `runner.py`),
`report/` (one module per output format), `explain.py` (log -> known errors, from data).
"""
