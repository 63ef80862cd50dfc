"""Floor 5 of checks/: the one-process smoke runner (run.run_smoke), its progress line and the
judging of the mp.spawn ranks a script starts itself (spawn_ranks).
"""
