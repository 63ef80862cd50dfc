"""A run for tests/test_warmstart.py's attached-run tests: `python -m tests.warm_probe ACTION [ARG]`.

echo: print a JSON line (pid, argv, cwd, NPU_MIGRATE_PROBE_EXTRA (a per-run variable), the first stdin line, whether torch was already
imported before this module ran); exit N: exit with status N; sleep PIDFILE: write the pid, sleep."""
import json
import os
import sys
import time

torch_before = "torch" in sys.modules
action = sys.argv[1]
if action == "echo":
    print("PROBE " + json.dumps({"pid": os.getpid(), "argv": sys.argv[1:], "cwd": os.getcwd(),
                                 "extra": os.environ.get("NPU_MIGRATE_PROBE_EXTRA"), "stdin": sys.stdin.readline().strip(),
                                 "torch_before": torch_before}))
elif action == "exit":
    sys.exit(int(sys.argv[2]))
elif action == "sleep":
    with open(sys.argv[2], "w") as f:
        f.write(str(os.getpid()))
    print("sleeping", flush=True)
    time.sleep(600)
