"""Reading msprobe's config_check result.xlsx (checks/validate/msprobe_bridge.py, child side): what the
report shows for an item is what msprobe compared. No torch: the workbook is written here with pandas,
in msprobe's own layout (a `summary` sheet, one sheet per item)."""

from __future__ import annotations

import pandas as pd

from checks.validate.msprobe_bridge import _summarise_config_result


def _workbook(path, env_rows):
    summary = pd.DataFrame([["env", "error"]], columns=["filename", "pass_check"])
    env = pd.DataFrame(env_rows, columns=["bench_env_name", "cmp_env_name", "bench_value", "cmp_value", "level"])
    with pd.ExcelWriter(path) as writer:
        summary.to_excel(writer, sheet_name="summary", index=False)
        env.to_excel(writer, sheet_name="env", index=False)
    return path


def test_an_empty_env_value_is_not_shown_as_msprobes_unset_default(tmp_path):
    """A GPU host without CUDA_VISIBLE_DEVICES (msprobe's default "None") against the stand-in, which
    hides GPUs with CUDA_VISIBLE_DEVICES="": the H200 recording showed "None vs None (error)". The rows as
    msprobe 26.2.0 writes them: its "bench" columns hold the migrated run's values, "cmp" the baseline's; the
    details show the baseline first."""
    xlsx = _workbook(tmp_path / "result.xlsx", [
        ["CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "", "None", "error"],
        ["HCCL_ALGO", "NCCL_ALGO", "0", "None", "error"],
    ])
    item = _summarise_config_result(str(xlsx))["items"][0]
    assert item["name"] == "env" and item["status"] == "error"
    assert item["details"] == ['CUDA_VISIBLE_DEVICES=None vs CUDA_VISIBLE_DEVICES="" (error)',
                               "NCCL_ALGO=None vs HCCL_ALGO=0 (error)"]
