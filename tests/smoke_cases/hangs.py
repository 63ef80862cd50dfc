"""Starts a grandchild `sleep` (its pid written to argv[1]) and hangs before training."""
import subprocess
import sys
import time

child = subprocess.Popen(["sleep", "300"])
with open(sys.argv[1], "w") as f:
    f.write(str(child.pid))
while True:
    time.sleep(1)
