"""Allocates (and touches) 64 MiB more resident memory every 20 ms, up to 4 GiB, before training."""
import time

hoard = []
for _ in range(64):
    hoard.append(bytearray(64 * 2**20))
    hoard[-1][:: 4096] = b"x" * (64 * 2**20 // 4096)
    time.sleep(0.02)
time.sleep(30)
