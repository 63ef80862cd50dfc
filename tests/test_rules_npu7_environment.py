"""Rules NPU7xx environment: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

from migrate import knowledge
from migrate.rewrite import apply_findings
from tests.rule_helpers import analyze, fix_and_recheck
from tests.rule_helpers import of_code as codes


# ---- NPU701 - NPU703 --------------------------------------------------------------------------------
def test_cuda_visible_devices_launcher_fix_and_traps():
    npu = knowledge.env_vars()["CUDA_VISIBLE_DEVICES"].npu
    assert npu
    script = (
        "#!/bin/bash\n"
        "# export CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        'echo "set CUDA_VISIBLE_DEVICES to pick GPUs"\n'
        "export CUDA_VISIBLE_DEVICES=0,1\n"
        "CUDA_VISIBLE_DEVICES=0 python train.py --name CUDA_VISIBLE_DEVICES_run\n"
        'echo "using ${CUDA_VISIBLE_DEVICES}"\n'
    )
    found = codes(analyze(script, "run.sh", ("launcher",)), "NPU701")
    assert [(f.line, f.column) for f in found] == [(4, 8), (5, 1), (6, 15)]
    fixed = fix_and_recheck(script, "NPU701", "run.sh", ("launcher",))
    assert fixed.splitlines()[1:3] == script.splitlines()[1:3]  # comment and prose untouched
    assert f"export {npu}=0,1" in fixed and "CUDA_VISIBLE_DEVICES_run" in fixed


def test_env_vars_in_python_fixed_and_clean_after():
    table = knowledge.env_vars()
    code = (
        "import os\n"
        'os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)\n'
        'os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")\n'
        'cmd = "CUDA_VISIBLE_DEVICES=0 CUDA_LAUNCH_BLOCKING=1 python train.py"\n'
        'print(os.getenv("CUDA_VISIBLE_DEVICES"))\n'
        'logger.info("CUDA_VISIBLE_DEVICES=%s", os.environ["CUDA_VISIBLE_DEVICES"])\n'
    )
    found = analyze(code)
    assert [f.line for f in codes(found, "NPU701")] == [2, 4, 5, 6]
    assert [f.line for f in codes(found, "NPU703")] == [3, 4]
    fixed, _, _ = apply_findings(code, [f for f in found if f.code in ("NPU701", "NPU703")])
    again = analyze(fixed)
    assert codes(again, "NPU701") == [] and codes(again, "NPU703") == []
    assert table["PYTORCH_CUDA_ALLOC_CONF"].npu in fixed and table["CUDA_LAUNCH_BLOCKING"].npu in fixed
    assert '"CUDA_VISIBLE_DEVICES=%s"' in fixed  # the log message is prose


def test_cuda_env_vars_follow_the_table():
    table = knowledge.env_vars()
    others = {n: e for n, e in table.items() if n != "CUDA_VISIBLE_DEVICES" and "NCCL_" not in n}
    assert others
    for name, entry in others.items():
        found = codes(analyze(f"export {name}=1\n", "run.sh", ("launcher",)), "NPU703")
        assert len(found) == 1, name
        assert found[0].fixable is bool(entry.npu), name
        if entry.npu:
            assert fix_and_recheck(f"export {name}=1\n", "NPU703", "run.sh", ("launcher",)) == f"export {entry.npu}=1\n"


def test_nccl_env_vars_messages_follow_the_table():
    table = knowledge.env_vars()
    nccl = {n: e for n, e in table.items() if "NCCL_" in n}
    assert nccl
    for name, entry in nccl.items():
        found = codes(analyze(f'import os\nos.environ["{name}"] = "1"\n'), "NPU702")
        assert len(found) == 1 and not found[0].fixable, name
        if entry.npu:
            assert entry.npu in found[0].message, name
        else:
            assert "no HCCL counterpart" in found[0].message, name
    unknown = "NCCL_" + "X" * 3 + "_UNKNOWN"
    assert unknown not in table
    found = codes(analyze(f"{unknown}=1 torchrun train.py\n", "run.sh", ("launcher",)), "NPU702")
    assert len(found) == 1 and "no HCCL counterpart is known" in found[0].message


def test_env_var_in_yaml_launcher():
    yaml_text = (
        "# CUDA_VISIBLE_DEVICES: '0'\n"
        "env:\n"
        "  CUDA_VISIBLE_DEVICES: \"0\"\n"
        "  NCCL_DEBUG: INFO\n"
        "  - name: PYTORCH_CUDA_ALLOC_CONF\n"
    )
    found = analyze(yaml_text, "job.yaml", ("launcher",))
    assert [f.line for f in codes(found, "NPU701")] == [3]
    assert [f.line for f in codes(found, "NPU702")] == [4]
    assert [f.line for f in codes(found, "NPU703")] == [5]
