"""A setup.py build run with `FORCE_CUDA=1` in front of it builds the CUDA extension (NPU502; label note 49b b-6).

`FORCE_CUDA=1` is the switch detectron2-style setup.py files read to build their CUDA extension even where no GPU is
visible (a Docker build): `if (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) and CUDA_HOME is not None:
extension = CUDAExtension`. A launcher line (a shell script, a Dockerfile's RUN, a cog.yaml `run:` item) that sets it
for the command running a setup.py build,

    TORCH_CUDA_ARCH_LIST='7.5' FORCE_CUDA=1 python Mask2Former/mask2former/modeling/pixel_decoder/ops/setup.py build install

installs a CUDA build, also where the setup.py is not in the scan (a folder a `git clone` above fills): on an Ascend host
it fails (no nvcc) and is the line to change. The assignment must be part of the same command (before it, after the
last `;`, `&&`, `||` or `|` of the line), set to 1 (`FORCE_CUDA=1`, `FORCE_CUDA="1"`, also `export FORCE_CUDA=1 &&`);
a setup.py run that builds nothing (`--version`) is not read. A setup.py of the scan that NPU505 reports is matched on
the same line by migrate/local_installs.py, which then adds nothing.
"""

from __future__ import annotations

import re

from migrate.local_installs import _BUILDS, _SETUP_PY
from migrate.rules._text import shell_matches

_FORCED = re.compile(r"(?:^|[\s;&|(])FORCE_CUDA=([\"']?)1\1(?=\s)")
_EXPORTED = re.compile(r"(?:^|[\s;&|(])export\s+FORCE_CUDA=([\"']?)1\1(?=[\s;&|])")
_SEPARATOR = re.compile(r";|&&|\|\|?")


def forced_builds(lines: list[str]) -> list[tuple[int, int, int]]:
    """(line, start, end) of each setup.py build run with `FORCE_CUDA=1` set for it (see the module doc)."""
    out = []
    for number, match in shell_matches(lines, _SETUP_PY):
        if not _BUILDS.intersection(match.group("rest").split()):
            continue
        before = lines[number - 1][:match.start()]
        command = _SEPARATOR.split(before)[-1]  # the assignments in front of this command
        if _FORCED.search(command) or _EXPORTED.search(before):
            out.append((number, match.start(), match.end()))
    return out
