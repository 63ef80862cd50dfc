"""Floor 7 of checks/: `npu-migrate validate`, the migrated script against the original
(run.validate): the arguments, the instrumented copies and their in-child hook, the logs, the
repeat runs, the loss comparison, the msprobe bridge, rank by rank (dist), the report.
"""
