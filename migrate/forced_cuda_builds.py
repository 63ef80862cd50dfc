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

In a Dockerfile, `ENV FORCE_CUDA="1"` holds for every later `RUN`: a setup.py build there builds the CUDA extension
(fcaf3d's `RUN python setup.py install` of a CUDA op folder copied into the image). A `pip install -e .` there of the
folder a `git clone` filled is matched to the Dockerfile's own project's setup.py (migrate/local_installs.py
`_forced_clone_project`, label rulings (L72), (L106)).

A `pip install` handed setup.py's own switch for the CUDA build, `--install-option="--force_cuda"` (MinkowskiEngine's
setup.py: `--force_cuda` builds the CUDA extension even where no GPU is visible), forces it the same way whatever the
package: reported once, at the first line of the (continued) command, where the RUN statement begins (label note 68b,
by analogy with (L49): fcaf3d's and tr3d's docker/Dockerfile).
"""

from __future__ import annotations

import re

from migrate.local_installs import _BUILDS, _SETUP_PY
from migrate.rules._text import shell_matches

_FORCED = re.compile(r"(?:^|[\s;&|(])FORCE_CUDA=([\"']?)1\1(?=\s)")
_EXPORTED = re.compile(r"(?:^|[\s;&|(])export\s+FORCE_CUDA=([\"']?)1\1(?=[\s;&|])")
_SEPARATOR = re.compile(r";|&&|\|\|?")
_ENV_FORCED = re.compile(r"^[ \t]*ENV[ \t]+(?:.*[ \t])?FORCE_CUDA(?:=|[ \t]+)([\"']?)1\1[ \t]*(?:[ \t]\S.*)?$", re.IGNORECASE)
_PIP_INSTALL = re.compile(r"\bpip3?[ \t]+install\b")
_FORCE_OPTION = re.compile(r"--install-option[= ][\"']?--force_cuda\b|--config-settings[= ][\"']?[^\s\"']*force_cuda")
def _commands(lines: list[str]):
    """(first line, text) of each command: a `\\`-continued command joined into one text."""
    from migrate.continued_commands import continues

    number = 0
    while number < len(lines):
        first, text = number + 1, lines[number]
        while continues(lines[number]) and number + 1 < len(lines):
            number += 1
            text = text.rstrip().rstrip("\\") + " " + lines[number].strip()
        number += 1
        if not text.lstrip().startswith("#"):
            yield first, text


def forced_pip_builds(lines: list[str]) -> list[tuple[int, int, int]]:
    """(line, start, end) of each pip install that forces a CUDA build, `--install-option="--force_cuda"` (see the
    module doc); at the command's first line."""
    out = []
    for first, text in _commands(lines):
        pip = _PIP_INSTALL.search(text)
        if pip is None:
            continue
        for part in _SEPARATOR.split(text[pip.start():]):
            if not _PIP_INSTALL.search(part):
                continue
            if _FORCE_OPTION.search(part):
                line = lines[first - 1]
                start = len(line) - len(line.lstrip())
                out.append((first, start, len(line.rstrip())))
                break
    return out


def env_forced_lines(lines: list[str]) -> int | None:
    """The line of a Dockerfile's `ENV FORCE_CUDA="1"` (the first), if any."""
    return next((number for number, line in enumerate(lines, 1) if _ENV_FORCED.match(line)), None)


def forced_builds(lines: list[str], dockerfile: bool = False) -> list[tuple[int, int, int]]:
    """(line, start, end) of each setup.py build run with `FORCE_CUDA=1` set for it (see the module doc); in a
    Dockerfile, also each one after `ENV FORCE_CUDA="1"`."""
    out = []
    env_line = env_forced_lines(lines) if dockerfile else None
    for number, match in shell_matches(lines, _SETUP_PY):
        if env_line is not None and number > env_line and _BUILDS.intersection(match.group("rest").split()):
            out.append((number, match.start(), match.end()))
            continue
        if not _BUILDS.intersection(match.group("rest").split()):
            continue
        before = lines[number - 1][:match.start()]
        command = _SEPARATOR.split(before)[-1]  # the assignments in front of this command
        if _FORCED.search(command) or _EXPORTED.search(before):
            out.append((number, match.start(), match.end()))
    return out
