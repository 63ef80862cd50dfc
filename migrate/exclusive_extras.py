"""A pyproject extra declared mutually exclusive with an NPU extra is the CUDA side of a dispatch by install (NPU502).

uv lets a project declare extras that may never be installed together (`[tool.uv] conflicts = [[{ extra = "gpu" },
{ extra = "npu" }, { extra = "npu_aarch64" }]]`, uv's docs: "Declaring conflicting dependencies"), so that one lock file
resolves a CUDA stack and an Ascend stack side by side; the user picks one with `uv sync --extra npu`.
ByteDance-Seed/VeOmni's pyproject.toml keeps its whole CUDA stack (`torch==2.11.0+cu130`, flash-attn, magi-attention,
the cu130 wheel URLs of its `[tool.uv.sources]`) in the `gpu` extra, exclusive with `npu` (`torch==2.10.0+cpu`,
`torch-npu==2.10.0`). An Ascend host installs the `npu` extra: the `gpu` one is a CUDA manifest shipped beside its NPU
counterpart, as `requirements-cuda.txt` beside `requirements-npu.txt` (label ruling (L8); labeller note 59a on
VeOmni's pyproject.toml; migrate/paired_manifests.py for the paired files).

An extra is on the CUDA side when a conflict group holds it together with an extra named for the NPU (an `npu` or
`ascend` word in its name: `npu`, `npu_aarch64`, `ascend-910b`). Its lines are the entries of its list under
`[project.optional-dependencies]` and every other line of the file whose markers or keys name only such extras
(`"torch==2.11.0+cu130; (extra == 'gpu')"` in `override-dependencies`, `{ url = ".../cu130/torch-...whl", extra = 'gpu' }`
and `marker = "extra == 'gpu' and ..."` in `[tool.uv.sources]`). NPU502 findings there are dropped; a line naming an
NPU extra too, or none, stays as it was. Without a conflict group naming an NPU extra nothing changes: an extra called
`gpu` alone is an option a CUDA user picks, still to port.
"""

from __future__ import annotations

import re

from migrate.findings import Finding
from migrate.rules._text import strip_comment

_NPU_WORD = re.compile(r"^(?:npu|ascend)$", re.I)
# `extra == 'gpu'` (a marker) or `extra = "gpu"` (a uv source / conflict key)
_EXTRA_NAMED = re.compile(r"""\bextra\s*==?\s*['"]([A-Za-z0-9][A-Za-z0-9._-]*)['"]""")
_KEY = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_.-]+))\s*=""")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _npu_named(extra: str) -> bool:
    return any(_NPU_WORD.match(part) for part in re.split(r"[-_.]", extra))


def cuda_side_extras(text: str) -> frozenset[str]:
    """The (normalised) extras that a `[tool.uv] conflicts` group declares exclusive with an extra named for the NPU."""
    if "conflicts" not in text:
        return frozenset()
    from migrate._toml import toml

    try:
        data = toml.loads(text)
    except (toml.TOMLDecodeError, ValueError):
        return frozenset()
    groups = ((data.get("tool") or {}).get("uv") or {}).get("conflicts") if isinstance(data.get("tool"), dict) else None
    out: set[str] = set()
    for group in groups if isinstance(groups, list) else ():
        extras = [item["extra"] for item in group if isinstance(item, dict) and isinstance(item.get("extra"), str)] \
            if isinstance(group, list) else []
        if any(_npu_named(e) for e in extras):
            out.update(_norm(e) for e in extras if not _npu_named(e))
    return frozenset(out)


def _brackets(line: str) -> int:
    depth, quote = 0, None
    for c in line:
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
    return depth


def cuda_side_lines(text: str, extras: frozenset[str]) -> frozenset[int]:
    """The 1-based lines of `text` that belong to the CUDA-side `extras` (see the module doc)."""
    lines: set[int] = set()
    table, key, depth = "", None, 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = strip_comment(raw)
        stripped = line.strip()
        if depth <= 0 and stripped.startswith("["):
            table, key, depth = stripped.strip("[] \t"), None, 0
            continue
        if depth <= 0:
            match = _KEY.match(line)
            key = next((g for g in match.groups() if g), None) if match else None
            depth = 0
        if table == "project.optional-dependencies" and key is not None and _norm(key) in extras and stripped:
            lines.add(number)
        else:
            named = {_norm(name) for name in _EXTRA_NAMED.findall(line)}
            if named and named <= extras:
                lines.add(number)
        depth += _brackets(line)
    return frozenset(lines)


def drop_cuda_side(path: str, text: str, findings: list[Finding]) -> list[Finding]:
    """NPU502 findings of a pyproject.toml on the lines of an extra exclusive with an NPU extra (see above)."""
    if not any(f.code == "NPU502" for f in findings):
        return findings
    extras = cuda_side_extras(text)
    if not extras:
        return findings
    lines = cuda_side_lines(text, extras)
    return [f for f in findings if not (f.code == "NPU502" and f.line in lines)]
