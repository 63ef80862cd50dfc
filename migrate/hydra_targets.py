"""Classes a Hydra / OmegaConf configuration builds by name (NPU507 on YAML files).

    optimizer:
      _target_: apex.optimizers.FusedAdam      # hydra.utils.instantiate(cfg.optimizer, params) builds it
      lr: 6e-4

`hydra.utils.instantiate` imports the dotted path a node's `_target_` names and calls it with the node's other keys:
the line is a construction of that class (or a call of that function) as much as `FusedAdam(params, lr=6e-4)` in
Python is, and it changes the same way (another `_target_`). NPU507 reads each `_target_:` line of a `.yaml` / `.yml`
file and reports the ones naming a reported GPU-only package's API, with the same filters as a Python use (the
knowledge's `pure_api`, a plugin's public API, entries that work or run in part). Label ruling 40b-5 (HazyResearch/based:
`_target_: apex.optimizers.FusedAdam` in its experiment configs, `_target_: flash_attn.models.gpt.GPTLMHeadModel`).
A target of the repository's own (`train.tasks.seq.SequenceLMModel`) or of a package that runs on an NPU is no finding.

torchtune's configurations name the class under `_component_` instead, and `torchtune.config.instantiate` builds it the
same way (pytorch/torchtune torchtune/config/_instantiate.py: `_instantiate_node` takes `obj["_component_"]`, resolves
it with `_get_component_from_path` and calls it with the node's other keys):

    optimizer:
      _component_: bitsandbytes.optim.PagedAdamW8bit    # config.instantiate(cfg.optimizer, model.parameters())
      lr: 2e-5

label note 45e e-5 (torchtune's recipe configs choosing bitsandbytes' paged optimizers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `_target_: pkg.mod.Class` (Hydra) or `_component_: pkg.mod.Class` (torchtune), also `- _target_: ...` in a list and
# the value quoted; a trailing comment allowed
_TARGET = re.compile(r"""^\s*(?:-\s+)?(?P<key>_target_|_component_)\s*:[ \t]*(?P<q>["']?)(?P<name>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?P=q)[ \t]*(?:#.*)?$""")
_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Target:
    line: int  # 1-based
    start: int  # 0-based column of the dotted name
    end: int
    name: str  # `apex.optimizers.FusedAdam`
    key: str = "_target_"  # or `_component_`


def targets(path: str, lines) -> list[Target]:
    """The `_target_:` / `_component_:` values of a YAML file, each a dotted name (a YAML file only; comment lines never
    match)."""
    if not path.lower().endswith(_SUFFIXES):
        return []
    out = []
    for number, text in enumerate(lines, 1):
        if "_target_" not in text and "_component_" not in text:
            continue
        match = _TARGET.match(text)
        if match:
            out.append(Target(number, match.start("name"), match.end("name"), match.group("name"),
                              match.group("key")))
    return out
