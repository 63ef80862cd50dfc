"""Leaves processes that a run must not leave behind: a grandchild `sleep` in the run's own process
group, a setsid() child and a double-forked grandchild that calls setsid() (as daemonising helpers do;
these two escape the process group, so killpg alone misses them). Their pids go to argv[1], with
whether this run was forked from a warm template. Then, with argv[2] == "hang", it hangs before
training; otherwise it ends at once without a step."""
import os
import subprocess
import sys
import time

pids = [subprocess.Popen(["sleep", "300"]).pid]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
pids.append(child.pid)
read_end, write_end = os.pipe()
if os.fork() == 0:  # classic daemon: fork, setsid, fork again, the middle one exits
    os.setsid()
    grandchild = os.fork()
    if grandchild == 0:
        time.sleep(300)
        os._exit(0)
    os.write(write_end, str(grandchild).encode())
    os._exit(0)
pids.append(int(os.read(read_end, 32)))
warm = bool(getattr(sys.modules.get("checks.child.bootstrap"), "WARM", False))
with open(sys.argv[1], "w") as f:
    f.write(" ".join(map(str, pids)) + f" warm={warm}")
if sys.argv[2:] == ["hang"]:
    while True:
        time.sleep(1)
