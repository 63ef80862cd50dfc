"""Generate migrate/knowledge/data/fusion_rules.json from msprof-analyze's own fusion rules
(developer-run, never in CI; both wheels are read as zips, never installed or imported).

Read from msprof_analyze-26.2.0-py3-none-any.whl:
  * msprof_analyze/advisor/rules/timeline_fusion_ops.yaml: per CANN version, op-sequence rules
    `fused API: ["op-(op){0,1}-op", ...]` for aten ops ("aten") and optimizer steps ("Optimizer"),
    each version inheriting an earlier one by `inherit_unique_id` and adding to it (`add`), as
    msprof_analyze/advisor/common/timeline/fusion_ops_rule.py merges them.
Checked in torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl, per fused API:
  * torch_npu.X: `func: X(...)` in torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml (the signature
    is recorded);
  * torch_npu.optim.X: `X` in `__all__` of torch_npu/optim/__init__.py;
  * optimizer.X (a method of the fused optimizers): `def X(` in torch_npu/optim/npu_fused_optim_base.py;
  * torch.X and mindspeed.ops.X are not torch_npu APIs: recorded as such (status "torch" / "absent").

Usage: python scripts/build_fusion_rules.py [MSPROF_WHEEL [TORCH_NPU_WHEEL]]   (default: the wheel cache, scripts/fetch_wheels.py)
"""
from __future__ import annotations

import ast
import copy
import datetime
import json
import re
import sys
import zipfile
from pathlib import Path

import yaml

MSPROF_WHEEL = "msprof_analyze-26.2.0-py3-none-any.whl"
MSPROF_VERSION = "26.2.0"
RULES_FILE = "msprof_analyze/advisor/rules/timeline_fusion_ops.yaml"
TORCH_NPU_WHEEL = "torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl"
TORCH_NPU_VERSION = "2.14.0"
CODEGEN_YAML = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"
OPTIM_INIT = "torch_npu/optim/__init__.py"
OPTIM_BASE = "torch_npu/optim/npu_fused_optim_base.py"
DOCS = "torch_npu/_op_plugin_docs.py"
# How to call each fused API in place of the matched ops, written from its docstring in DOCS (formula,
# signature, example) and for the optimizer from torch_npu/optim/npu_fused_optim_base.py. Hand-written:
# the wheel has no such text; an API without an entry gets its signature only.
REWRITES = {
    "torch_npu.npu_rms_norm": "y = torch_npu.npu_rms_norm(x, weight, epsilon=eps)[0]  "
                              "(x * rsqrt(mean(x**2, -1) + eps) * weight; output 0 of 2)",
    "torch_npu.npu_rotary_mul": "q = torch_npu.npu_rotary_mul(q, cos, sin)  (rotary_mode='half': "
                                "cos * q + sin * cat((-x2, x1), -1) with x1, x2 = chunk(q, 2, -1); 4-D inputs)",
    "torch_npu.npu_swiglu": "y = torch_npu.npu_swiglu(x, dim=-1)  (a, b = chunk(x, 2, dim): silu(a) * b)",
    "torch_npu.npu_fusion_attention": "out = torch_npu.npu_fusion_attention(q, k, v, head_num, 'BNSD', "
                                      "atten_mask=mask_bool, scale=scale, keep_prob=1 - p)[0]  "
                                      "(softmax(mask(scale * q @ k^T)) dropped out, @ v; mask True = masked out)",
    "torch_npu.fast_gelu": "y = torch_npu.fast_gelu(x)  (an approximation of gelu: check the numerics)",
    "torch_npu.npu_geglu": "y = torch_npu.npu_geglu(x, dim=-1, approximate=1)[0]",
    "torch_npu.npu_group_norm_silu": "y = torch_npu.npu_group_norm_silu(x, weight, bias, group, eps)[0]",
    "torch_npu.npu_add_layer_norm": "y = torch_npu.npu_add_layer_norm(x1, x2, gamma, beta, epsilon)[0]",
    "torch_npu.npu_scaled_masked_softmax": "y = torch_npu.npu_scaled_masked_softmax(x, mask_bool, scale)",
    "torch_npu.npu_confusion_transpose": "y = torch_npu.npu_confusion_transpose(x, perm, shape, transpose_first)",
    "optimizer.clip_grad_norm_fused_": "optimizer.clip_grad_norm_fused_(max_norm) on a torch_npu.optim.NpuFused* "
                                       "optimizer instead of torch.nn.utils.clip_grad_norm_",
    "torch.addmm": "torch.addmm(input, mat1, mat2, beta=b, alpha=a)",
}
OUT = Path(__file__).resolve().parents[1] / "migrate" / "knowledge" / "data" / "fusion_rules.json"


def resolve(entries: list[dict]) -> list[dict]:
    """Each rule set with its inherited rules merged in (fusion_ops_rule.OpRule: inherit, then add).
    Two entries may share a unique_id (8.0.RC1 and 8.0.0 both say 3): the later one defines it, as
    a dict keyed by unique_id in the advisor's handler would."""
    by_id: dict[int, dict] = {}
    out = []
    for entry in entries:
        rules: dict[str, dict[str, list[str]]] = {}
        parent = entry.get("inherit_unique_id")
        if parent is not None:
            rules = copy.deepcopy(by_id[parent])
        for mode, actions in (entry.get("operator_rules") or {}).items():
            for api, patterns in ((actions or {}).get("add") or {}).items():
                patterns = patterns if isinstance(patterns, list) else [patterns]
                rules.setdefault(mode, {}).setdefault(api, [])
                rules[mode][api] += [p for p in patterns if p not in rules[mode][api]]
        by_id[entry["unique_id"]] = rules
        out.append({"cann_version": str(entry["cann_version"]), "torch_version": entry.get("torch_version"),
                    "unique_id": entry["unique_id"], "inherit_unique_id": parent, "rules": rules})
    return out


def check_api(api: str, codegen: str, optim_all: list[str], optim_base: str) -> dict:
    """Is `api` in the torch_npu wheel? {status: present|absent|torch, where, signature?}."""
    if api.startswith("torch.") and not api.startswith("torch_npu."):
        return {"status": "torch", "where": "a torch API, not torch_npu's: not checked in the wheel"}
    if api.startswith("torch_npu.optim."):
        name = api.rsplit(".", 1)[1]
        return {"status": "present" if name in optim_all else "absent", "where": f"{OPTIM_INIT} __all__"}
    if api.startswith("optimizer."):
        name = api.split(".", 1)[1]
        found = re.search(rf"^\s+def {re.escape(name)}\(", optim_base, re.M)
        return {"status": "present" if found else "absent",
                "where": f"{OPTIM_BASE} (a method of NpuFusedOptimizerBase: torch_npu.optim.NpuFused* only)"}
    if api.startswith("torch_npu."):
        name = api.split(".", 1)[1]
        m = re.search(rf"^\s*-?\s*func: ({re.escape(name)}\(.*)$", codegen, re.M)
        entry = {"status": "present" if m else "absent", "where": CODEGEN_YAML}
        if m:
            entry["signature"] = m.group(1).strip()
        return entry
    return {"status": "absent", "where": "not a torch_npu API (its package is not torch_npu)"}


def build(msprof: Path, torch_npu: Path) -> dict:
    with zipfile.ZipFile(msprof) as zf:
        entries = yaml.safe_load(zf.read(RULES_FILE).decode())
    with zipfile.ZipFile(torch_npu) as zf:
        codegen = zf.read(CODEGEN_YAML).decode()
        optim_tree = ast.parse(zf.read(OPTIM_INIT).decode())
        optim_base = zf.read(OPTIM_BASE).decode()
    optim_all: list[str] = []
    for node in optim_tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            optim_all = list(ast.literal_eval(node.value))
    rule_sets = resolve(entries)
    apis = sorted({api for rs in rule_sets for mode in rs["rules"].values() for api in mode})
    return {
        "source": {"wheel": msprof.name, "package": "msprof-analyze", "version": MSPROF_VERSION, "file": RULES_FILE},
        "checked_in": {"wheel": torch_npu.name, "package": "torch-npu", "version": TORCH_NPU_VERSION,
                       "files": [CODEGEN_YAML, OPTIM_INIT, OPTIM_BASE]},
        "generator": "scripts/build_fusion_rules.py",
        "generated": datetime.date.today().isoformat(),
        "pattern_syntax": "ops joined by '-'; '(op){m,n}' repeats an op, '(a|b)' is either (the advisor's "
                          "_format_rule_to_pattern); aten op names without 'aten::'",
        "rule_sets": rule_sets,
        "apis": {api: {**check_api(api, codegen, optim_all, optim_base),
                       **({"rewrite": REWRITES[api], "rewrite_source": f"{OPTIM_BASE if api.startswith('optimizer.') else DOCS} (hand-written from it)"}
                          if api in REWRITES else {})} for api in apis},
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from fetch_wheels import cache_dir  # scripts/ is sys.path[0] when this runs as a script

    folder = cache_dir()
    msprof = Path(args[0]) if args else folder / MSPROF_WHEEL
    torch_npu = Path(args[1]) if len(args) > 1 else folder / TORCH_NPU_WHEEL
    data = build(msprof, torch_npu)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    present = sum(1 for a in data["apis"].values() if a["status"] == "present")
    print(f"{OUT}: {len(data['rule_sets'])} rule sets, {len(data['apis'])} fused APIs ({present} in torch_npu)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
