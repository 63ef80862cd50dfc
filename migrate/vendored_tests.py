"""A test file copied from a GPU-only package's own test suite is that package's code, not a user of it.

A vLLM quantization plugin that runs its models against vLLM's test fixtures copies vLLM's `tests/conftest.py` into
its own tests, license header and all:

    # SPDX-License-Identifier: Apache-2.0
    # SPDX-FileCopyrightText: Copyright contributors to the vLLM project
    import contextlib
    ...
    from vllm import LLM, SamplingParams
    from vllm.distributed import cleanup_dist_env_and_memory, init_distributed_environment

Its dozens of vllm imports and uses are vLLM's own test code, vendored: not the plugin's port work (label ruling (L24):
a vendored GPU-only package's own examples, tests and docs are not labels; rule 28a-11). A file counts when it is a
test file by its name or folder (`conftest.py`, `test_*.py`, `*_test.py`, anything under `tests/` or `test/`) and a
comment line of its header (before the first statement) is a copyright line naming a project
(`Copyright ... the <Name> project|team|authors|developers|contributors`): the findings (NPU501, NPU507, NPU510) of
the catalogue package whose import root is <Name> (lowercased, `-`, `_` and spaces dropped: vLLM -> vllm) are dropped.
Those of other packages stay, and so does everything in a test the repository wrote itself (no such header, or
a header naming the repository's own project). Per file, from its text.
"""

from __future__ import annotations

import re

CODES = frozenset({"NPU501", "NPU507", "NPU510"})
_COPYRIGHT = re.compile(r"copyright\b.*?\b(?:the\s+)?([A-Za-z][\w.-]*)\s+(?:project|team|authors|developers|contributors)\b",
                        re.I)
_TEST_NAME = re.compile(r"(?:^|/)(?:conftest|test_\w+|\w+_test)\.py$|(?:^|/)tests?/")


def _header_projects(text: str) -> set[str]:
    """The project names of the copyright lines among the comment lines before the first statement."""
    out = set()
    for line in text.splitlines()[:40]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        match = _COPYRIGHT.search(stripped)
        if match:
            out.add(re.sub(r"[-_\s.]", "", match.group(1)).lower())
    return out


def drop_vendored(path: str, text: str, findings: list) -> list:
    """`findings` less those of the package whose own test file this is (see above)."""
    if not any(f.code in CODES for f in findings) or "opyright" not in text[:4000].lower():
        return findings
    if not _TEST_NAME.search(path.replace("\\", "/")):
        return findings
    projects = _header_projects(text)
    if not projects:
        return findings

    def vendored(f) -> bool:
        root = (f.package or "").split(".", 1)[0]
        return f.code in CODES and bool(root) and re.sub(r"[-_]", "", root).lower() in projects

    return [f for f in findings if not vendored(f)]
