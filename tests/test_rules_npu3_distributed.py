"""Rules NPU3xx distributed: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import pytest

from migrate.findings import Severity
from tests.rule_helpers import analyze, fix_and_recheck
from tests.rule_helpers import of_code as codes


# ---- NPU301 -----------------------------------------------------------------------------------------
def test_nccl_backend_all_forms_fixed_and_clean_after():
    code = (
        "import argparse\n"
        "import torch\n"
        "import torch.distributed as dist\n"
        "from torch.distributed import Backend, init_process_group as ipg\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--dist-backend', default='nccl', choices=['nccl', 'gloo'])\n"
        "BACKEND = 'nccl' if torch.cuda.is_available() else 'gloo'\n"
        "ipg(BACKEND)\n"
        "g = dist.new_group(ranks=[0], backend=Backend.NCCL)\n"
        "if dist.get_backend() == 'nccl':\n"
        "    logger.info('using nccl backend')\n"
    )
    found = codes(analyze(code), "NPU301")
    assert len(found) == 5
    assert {f.line for f in found} == {6, 7, 9, 10}
    fixed = fix_and_recheck(code, "NPU301", "example.py", ("python",))
    assert "Backend.HCCL" in fixed and "default='hccl'" in fixed and "'using nccl backend'" in fixed


@pytest.mark.parametrize(
    "code",
    [
        'def f():\n    """Initialise with the "nccl" backend."""\n',
        'import logging\nlogging.warning("nccl")',
        'raise RuntimeError("nccl" + " failed")',
        "msg = f'{backend} is not nccl'",
        "# dist.init_process_group('nccl')\nx = 1",
    ],
    ids=["docstring", "log", "exception", "fstring", "comment"],
)
def test_nccl_backend_prose_is_not_reported(code):
    assert codes(analyze(code), "NPU301") == []


# ---- NPU302 -----------------------------------------------------------------------------------------
def test_distributed_launch_launcher_with_traps():
    script = (
        "#!/bin/bash\n"
        "# old: python -m torch.distributed.launch --nproc_per_node 8 train.py\n"
        'echo "python -m torch.distributed.launch is deprecated"\n'
        "python -m torch.distributed.launch --nproc_per_node 8 train.py\n"
        "torchrun --nproc_per_node 8 train.py\n"
    )
    found = codes(analyze(script, "run.sh", ("launcher",)), "NPU302")
    assert [f.line for f in found] == [4]
    assert "torchrun" in found[0].message and "torch_npu_run" in found[0].message


def test_distributed_launch_python_aliases():
    found = codes(analyze("import torch.distributed.launch as tdl\ntdl.main()"), "NPU302")
    assert len(found) == 1 and found[0].line == 1
    found = codes(analyze('import subprocess as sp\nsp.Popen("python -m torch.distributed.launch x.py", shell=True)'), "NPU302")
    assert len(found) == 1


# ---- NPU303 -----------------------------------------------------------------------------------------
def test_data_parallel_alias_and_message():
    found = codes(analyze("from torch import nn as tnn\nnet = tnn.DataParallel(net)"), "NPU303")
    assert len(found) == 1 and "DistributedDataParallel" in found[0].message
    assert found[0].severity is Severity.WARNING
