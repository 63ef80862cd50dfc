"""validate starts each run before it has written the instrumented copy and linked the script's
siblings (the child imports torch meanwhile, with the copy's folder already sys.path[0]). The
folder may not exist yet at that moment: Python then caches "no finder" for it and a sibling
import (`from model import GPT`, a real GPT training script's second line) fails although the
file is there by the time the script runs."""

from __future__ import annotations

import importlib.util
import threading
import time

import pytest

from checks.smoke.run import run_smoke

MODEL = "import torch\n\n\ndef build():\n    return torch.nn.Linear(4, 1)\n"
SCRIPT = '''import torch
from sibling_model import build

model = build()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.ones(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


@pytest.mark.runtime
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_sibling_import_works_when_the_folder_is_made_after_the_run_started(tmp_path):
    folder = tmp_path / "late"
    result = {}
    run = threading.Thread(target=lambda: result.update(r=run_smoke(
        folder / "train.py", backend="cuda-emulated", steps=2, timeout=240, wait_for_script=120, op_trace=False)))
    run.start()
    time.sleep(8)  # the child has set sys.path[0] to the missing folder and imported torch from it
    folder.mkdir()
    (folder / "sibling_model.py").write_text(MODEL)
    (folder / ".train.py.partial").write_text(SCRIPT)
    (folder / ".train.py.partial").rename(folder / "train.py")
    run.join(300)
    r = result["r"]
    assert (r.verdict, r.exit_code, r.steps) == ("pass", 0, 2), (r.reasons, r.stderr[-2000:])
