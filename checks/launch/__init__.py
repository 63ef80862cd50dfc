"""Floor 1 of checks/: the parent-child contract and the process mechanics, torch-free.

The typed child configuration (child_config.ChildConfig, the one thing that crosses to every child),
backend detection, the process guard (process: start, memory cap, exit reasons), the child's
report (report) and the rank files, and the warm start (warmstart, warm_wire, warm_client).
Imports nothing above it in checks/.
"""
