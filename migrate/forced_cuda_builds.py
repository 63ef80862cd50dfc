"""A setup.py build run with `FORCE_CUDA=1` in front of it builds the CUDA extension (NPU502; label note 49b b-6).

`FORCE_CUDA=1` is the switch detectron2-style setup.py files read to build their CUDA extension even where no GPU is
visible (a Docker build): `if (os.environ.get("FORCE_CUDA") or torch.cuda.is_available()) and CUDA_HOME is not None:
extension = CUDAExtension`. A launcher line (a shell script, a Dockerfile's RUN, a cog.yaml `run:` item) that sets it
for the command running a setup.py build,

    TORCH_CUDA_ARCH_LIST='7.5' FORCE_CUDA=1 python Mask2Former/mask2former/modeling/pixel_decoder/ops/setup.py build install

installs a CUDA build, also where the setup.py is not in the scan (a folder a `git clone` above fills): on an Ascend host
it fails (no nvcc) and is the line to change. The assignment must be part of the same command (before it, after the
last `;`, `&&`, `||` or `|` of the line), set to 1 (`FORCE_CUDA=1`, `FORCE_CUDA="1"`, also `export FORCE_CUDA=1 &&`);
a setup.py run that builds nothing (`--version`) is not read. In a Dockerfile an `ENV FORCE_CUDA="1"` holds for every
later RUN (detectron2's docker/Dockerfile): each later setup.py build and each `pip install` of a local folder (pip's
editable option, `-e detectron2_repo`, or a path: `./x`, `/src/x`, `.`) builds with it. A setup.py of the scan that NPU505 reports is matched on
the same line by migrate/local_installs.py, which then adds nothing.
"""

from __future__ import annotations

import re

from migrate.local_installs import _BUILDS, _SETUP_PY
from migrate.rules._text import shell_matches

_FORCED = re.compile(r"(?:^|[\s;&|(])FORCE_CUDA=([\"']?)1\1(?=\s)")
_EXPORTED = re.compile(r"(?:^|[\s;&|(])export\s+FORCE_CUDA=([\"']?)1\1(?=[\s;&|])")
_SEPARATOR = re.compile(r";|&&|\|\|?")


def forced_builds(lines: list[str], path: str = "") -> list[tuple[int, int, int]]:
    """(line, start, end) of each setup.py build run with `FORCE_CUDA=1` set for it (see the module doc); in a
    Dockerfile (`path`), also each build or local-folder pip install after an `ENV FORCE_CUDA=1`."""
    from migrate.sources import is_dockerfile

    forced_from = _env_forced_line(lines) if path and is_dockerfile(path) else None
    out = []
    for number, match in shell_matches(lines, _SETUP_PY):
        if not _BUILDS.intersection(match.group("rest").split()):
            continue
        before = lines[number - 1][:match.start()]
        command = _SEPARATOR.split(before)[-1]  # the assignments in front of this command
        if _FORCED.search(command) or _EXPORTED.search(before) or (forced_from is not None and number > forced_from):
            out.append((number, match.start(), match.end()))
    if forced_from is not None:
        out.extend(_folder_installs(lines, forced_from))
    return out


# a Dockerfile's `ENV FORCE_CUDA="1"` (also `ENV A=1 FORCE_CUDA=1`, the legacy `ENV FORCE_CUDA 1`): every later RUN
# sees it (detectron2's docker/Dockerfile: `ENV FORCE_CUDA="1"` "because during `docker build` cuda is not accessible",
# then `RUN pip install --user -e detectron2_repo`, the folder a `git clone` above filled)
_ENV_FORCED = re.compile(r"^\s*ENV\s+(?:.*\s)?FORCE_CUDA(?:=|\s+)([\"']?)1\1(?=\s|$)", re.IGNORECASE)
# a pip install of a local folder: pip's editable option (a folder by any name) or a path (`./x`, `../x`, `/src/x`, `.`)
_PIP_INSTALL = re.compile(r"(?<![\w-])pip3?\s+install\s+(?P<args>[^;&|]+)")
_URL = re.compile(r"://|^(?:git\+|hg\+|svn\+|bzr\+)")


def _env_forced_line(lines: list[str]) -> int | None:
    return next((number for number, line in enumerate(lines, 1) if _ENV_FORCED.match(line)), None)


def _folder_installs(lines: list[str], after: int) -> list[tuple[int, int, int]]:
    """(line, start, end) of each `pip install` of a local folder on a line after `after` (the folder's word)."""
    out = []
    for number, line in enumerate(lines, 1):
        if number <= after:
            continue
        for match in _PIP_INSTALL.finditer(line.split("#", 1)[0]):
            words = list(re.finditer(r"\S+", match.group("args")))
            for index, word in enumerate(words):
                text = word.group(0).strip("\"'")
                editable = index > 0 and words[index - 1].group(0) in ("-e", "--editable")
                folder = text == "." or text.startswith(("./", "../", "/"))
                if (editable or folder) and not text.startswith("-") and not _URL.search(text):
                    start = match.start("args") + word.start()
                    out.append((number, start, start + len(word.group(0))))
    return out
