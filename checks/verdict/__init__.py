"""Floor 4 of checks/: the verdicts, pure: one process (smoke), a job of ranks (dist), the rank
results, the cause of a spawned rank's death and the loss trend. Used by one process, every
torchrun rank and every mp.spawn rank alike.
"""
