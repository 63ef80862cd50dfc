"""The images a Dockerfile builds on, as names a package's plugin can be recognised by (label note 47e-4, ruling (L38)).

A repository that builds an NPU image `FROM quay.io/ascend/vllm-ascend:v0.11.0` (opendatalab/MinerU's
docker/china/npu.Dockerfile) runs vLLM on the NPU through the vllm-ascend plugin the base image installs: it has taken
the plugin route as surely as one that imports `vllm_ascend` or requires `vllm-ascend` (migrate/npu_plugins.py). The
image's own name (the last path component of its repository, without registry, tag or digest: `vllm-ascend`) is kept
as an ("img", name, line) fact of the Dockerfile; npu_plugins reads it beside the ("imp", ...) and ("req", ...) facts.
A variable (`FROM ${BASE}`) names no image and is skipped; a stage name (`FROM build`) is kept as it reads (it
matches no plugin).
"""

from __future__ import annotations

import re

_FROM = re.compile(r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*([^\s$]+)", re.IGNORECASE | re.MULTILINE)


def image_name(reference: str) -> str:
    """`registry:5000/org/vllm-ascend:v0.11.0@sha256:...` -> `vllm-ascend`."""
    name = reference.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def images(text: str) -> list[tuple[str, int]]:
    """(image name, line) of each `FROM image` instruction of a Dockerfile's text."""
    if "FROM" not in text.upper():
        return []
    return [(image_name(m.group(1)), text.count("\n", 0, m.start()) + 1) for m in _FROM.finditer(text)
            if image_name(m.group(1))]

