"""Entry script or library module: apply decides per file, says why, and adds the entry-only parts
(`transfer_to_npu`, ConfigChecker hooks) only to entry scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from migrate.rewrite import ApplyOptions, rewrite_source
from tests.helpers import invoke_cli

TRAIN_BODY = (
    "    model = torch.nn.Linear(2, 1).cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    loss = model(torch.ones(1, 2).cuda()).sum()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
)
CASES = {
    "main-guard": ("import torch\n\n\ndef main():\n" + TRAIN_BODY + '\n\nif __name__ == "__main__":\n    main()\n',
                   True, "`__main__` guard (line 12)"),
    "function-called-at-module-level": ("import torch\n\n\ndef main():\n" + TRAIN_BODY + "\n\nmain()\n",
                                        True, "`main()` called at module level (line 12) trains"),
    "through-a-second-function": ("import torch\n\n\ndef train():\n" + TRAIN_BODY + "\n\ndef run():\n    train()\n\n\nrun()\n",
                                  True, "`run()` called at module level (line 16) trains (through `train()`"),
    "fire": ("import fire\nimport torch\n\n\ndef main(lr=0.1):\n" + TRAIN_BODY + "\n\nfire.Fire(main)\n",
             True, "`fire.Fire(...)` at module level (line 13)"),
    "click-command": ("import click\nimport torch\n\n\n@click.command()\n@click.option('--lr', default=0.1)\ndef cli(lr):\n"
                      "    run(lr)\n\n\ndef run(lr):\n    return torch.zeros(1).cuda() * lr\n\n\ncli()\n",
                      True, "click command `cli` run at module level (line 15)"),
    "module-level-training": ("import torch\n\n" + TRAIN_BODY.replace("    ", ""), True, "module-level training: `.backward()` (line 6)"),
    "library-defining-training": ("import torch\n\n\ndef main():\n" + TRAIN_BODY, False, "no `__main__` guard"),
    "library-calling-a-helper": ("import torch\n\n\ndef helper():\n    return 1\n\n\nX = helper()\nY = torch.zeros(1).cuda()\n",
                                 False, "no `__main__` guard"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_entry_decision_and_reason(name):
    source, entry, reason = CASES[name]
    rewrite = rewrite_source(source, path=f"{name}.py", options=ApplyOptions(config_check=False))
    assert rewrite.changes, "each case has something to rewrite"
    assert rewrite.role == ("entry" if entry else "library") and rewrite.entry is entry
    assert reason in rewrite.role_reason, rewrite.role_reason
    transfer = "from torch_npu.contrib import transfer_to_npu" in rewrite.output.decode()
    assert transfer is entry


def test_entry_named_on_the_command_line():
    source, _, _ = CASES["library-defining-training"]
    rewrite = rewrite_source(source, path="pkg/train.py", options=ApplyOptions(entry_globs=("train.py",), config_check=False))
    assert rewrite.entry and rewrite.role_reason == "named with --entry train.py"


def test_roles_in_text_output_and_both_reports(tmp_path: Path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "train.py").write_text(CASES["fire"][0])
    (src / "model.py").write_text(CASES["library-calling-a-helper"][0])
    (src / "notes.py").write_text("print('nothing for the NPU here')\n")
    proc = invoke_cli("apply", str(src), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "r.json"), "--no-config-check")
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert f"{src / 'train.py'}: entry script (`fire.Fire(...)` at module level (line 13))" in err
    assert f"{src / 'model.py'}: library module (no `__main__` guard" in err
    assert "notes.py" not in err  # nothing to add there: the question did not arise
    roles = {Path(r["file"]).name: (r["role"], r["reason"]) for r in json.loads((tmp_path / "r.json").read_text())["roles"]}
    assert roles.keys() == {"train.py", "model.py"}
    assert roles["train.py"][0] == "entry" and roles["model.py"][0] == "library"
    invoke_cli("apply", str(src), "-o", str(tmp_path / "out2"), "--report", str(tmp_path / "r.csv"), "--no-config-check")
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert any(row.startswith("entry,") and "train.py" in row and "fire.Fire" in row for row in rows)
    assert any(row.startswith("library,") and "model.py" in row for row in rows)
