"""Floor 6 of checks/: smoke under torchrun (`--nproc-per-node`): run.run_distributed_smoke
and the CLI glue (cli).
"""
