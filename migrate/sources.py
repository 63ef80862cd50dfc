"""Readers for the non-Python inputs: notebooks, dependency manifests, launchers, CUDA sources.

Each reader turns a file into a small context object that rules of the matching `KINDS` read.
Nothing here executes user code: notebooks are JSON, manifests are parsed as text/TOML/INI/YAML.
"""

from __future__ import annotations

import ast
import configparser
import functools
import json
import os
import re
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cached_property
from pathlib import PurePath

from migrate import limits, newer_syntax
from migrate.context import split_lines

# conda environment files, also under a suffixed name (DROID-SLAM environment_novis.yaml, RAFT-Stereo
# environment_cuda11.yaml: variants of one environment kept side by side)
CONDA_ENV_PATTERNS = ("environment*.yml", "environment*.yaml")
# pixi's manifest (prefix.dev): conda packages under `[dependencies]`, PyPI ones under `[pypi-dependencies]`
PIXI_MANIFEST = "pixi.toml"
# a pyproject.toml's variant kept beside it under a suffixed name (hao-ai-lab/FastVideo's pyproject_other.toml, copied
# over pyproject.toml by one of its Dockerfiles: labels 61a read its dependencies), read as pyproject.toml; one named for
# another accelerator (`pyproject_rocm.toml`) is that accelerator's (label rule (L15), as for requirements files)
PYPROJECT_VARIANTS = ("pyproject_*.toml", "pyproject-*.toml")
MANIFEST_PATTERNS = ("requirement*.txt", "*requirement.txt", "*requirements.txt", "pyproject.toml", *PYPROJECT_VARIANTS,
                     "setup.cfg", *CONDA_ENV_PATTERNS, "setup.py", PIXI_MANIFEST)
LAUNCHER_PATTERNS = ("*.sh", "*.bash", "*.zsh", "*.slurm", "*.sbatch", "*.pbs", "*.bat", "*.cmd", "*.yaml", "*.yml", "Dockerfile",
                     "Makefile")
# `.cu.h` / `.cu.hpp`: CUDA headers named for nvcc (spconv 1.x `include/spconv/indice.cu.h`, included by its built .cu
# sources; label rule 27c-5), read like `.cuh`
CUDA_SOURCE_PATTERNS = ("*.cu", "*.cuh", "*.cu.h", "*.cu.hpp")
# C++ sources are read only for `TORCH_LIBRARY` registrations (the repository index, NPU508/NPU509),
# CMake files for the CUDA libraries / modules they build (repo_index.cmake_defs)
# and included CMake scripts (`*.cmake`) for the lines that fetch a GPU-only library or link the CUDA toolkit (NPU511),
# package config templates (`*Config.cmake.in`) for those and the CUDA compile definitions they export (NPU511, (L105))
CPP_SOURCE_PATTERNS = ("*.cpp", "*.cc", "*.cxx", "CMakeLists.txt", "*.cmake", "*Config.cmake.in", "*-config.cmake.in")


def is_makefile(path: str) -> bool:
    """A Makefile, by its file name. Label ruling (L19): a Makefile's lines and the sources only a Makefile builds are
    no porting work (a developer's side build: the Python package's own build is what the port replaces)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] in ("Makefile", "makefile", "GNUmakefile")


def is_dockerfile(path: str) -> bool:
    """A Dockerfile, by its file name: `Dockerfile`, a variant kept beside it (`Dockerfile_cu124`, `Dockerfile.megatron`,
    `Dockerfile-dev`), or one named for its image (`cu116.Dockerfile`, `train.dockerfile`: the `.Dockerfile` suffix
    Docker's own docs and editors recognise); also the bare name in lower case (`docker/dockerfile`: a name
    `docker build -f` takes as well, and Dockerfile linters list among the names met; not `dockerfile.md`). Read as a
    launcher: its `RUN` lines are shell commands."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return (name in ("Dockerfile", "dockerfile") or (name.startswith("Dockerfile") and name[10:11] in ("_", ".", "-"))
            or name.lower().endswith(".dockerfile"))


# a name part naming another accelerator or the CPU (`requirements_amd_noavx2.txt`, `environment-rocm.yml`,
# `Dockerfile.rocm`, `Dockerfile_cpu`, `*_npu*`, `*_mps*`, `*_xpu*`): label rule (L15), set 19; not `amd64` (an x86 arch)
OTHER_ACCELERATOR = re.compile(r"^(?:apple|amd|rocm[\d.]*|cpu|npu|mps|xpu)$", re.I)


def other_accelerator_dockerfile(path: str) -> bool:
    """A Dockerfile named for another accelerator or for the CPU (`docker/Dockerfile.rocm`, `Dockerfile.rocm_MI350-5`,
    `Dockerfile_20250810_9a48ba0.rocm`, `rocm.Dockerfile`, `Dockerfile.cpu`): it builds the image for that machine, not
    the CUDA one a port changes, as a manifest so named (label rule (L15)). Every part of the name counts: a
    Dockerfile's `.rocm` is its variant, not a file type."""
    if not is_dockerfile(path):
        return False
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return any(OTHER_ACCELERATOR.match(part) for part in re.split(r"[-_.]", name))


def _head(path: str, size: int) -> str | None:
    """The first `size` bytes of a file as text (undecodable bytes replaced); None when it cannot be opened. The
    callers read only regular files (walk.py checks the mode first)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(size).decode("utf-8", "replace")
    except OSError:
        return None


# a Dockerfile's first instruction: `FROM image` (after parser directives, comments and `ARG`s)
_DOCKER_FIRST = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n|[ \t]*ARG[ \t][^\n]*\n)*[ \t]*FROM[ \t]+\S", re.IGNORECASE)


def is_unnamed_dockerfile(path: str, relative: str) -> bool:
    """A Dockerfile named for its image alone, without the word (`docker/chatlearn`, `docker/pai_megatron_patch`: the
    names `docker build -f` is given): a file with no suffix, in a folder whose name says docker, whose first
    instruction is `FROM image`. Read by its first bytes; only such files are opened (walk.py, for a file no name
    classifies); `relative` is its path in the scanned tree (the folders above the tree say nothing)."""
    parts = relative.replace("\\", "/").split("/")
    if "." in parts[-1] or not any("docker" in part.lower() for part in parts[:-1]):
        return False
    head = _head(path, 4096)
    return head is not None and _DOCKER_FIRST.match(head) is not None


# a requirements file named outside MANIFEST_PATTERNS (`requirments_cu118.txt`, `reqs.txt`): the name starts with
# "req" and every line that is not blank or a comment is a pip requirement specifier or a pip option line
_MISNAMED_REQUIREMENTS = re.compile(r"req[a-z]*[\w.-]*\.txt", re.IGNORECASE)
_PIP_OPTION_LINE = re.compile(r"-{1,2}[a-z][\w-]*(?:[ \t=].*)?")
_SPECIFIER = r"(?:===?|~=|!=|<=?|>=?)\s*[\w.*+!-]+"
_REQUIREMENT_LINE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[\w, .-]*\])?\s*"
    rf"(?:\(?{_SPECIFIER}(?:\s*,\s*{_SPECIFIER})*\)?|@\s*\S+)?\s*(?:;.*)?")


def is_misnamed_requirements(path: str) -> bool:
    """A pip requirements file whose name MANIFEST_PATTERNS miss (RVC's `requirments_cu118_py312.txt`, a misspelling
    installed with `pip install -r`): a `.txt` file named `req*`, whose lines (comments and blanks aside) all parse as
    requirement specifiers or pip options, at least one a specifier. Read by its first 64 KiB; only `.txt` files
    named `req*` that no name classifies are opened (walk.py); release notes or a `requests.txt` of prose fail the
    content test."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not _MISNAMED_REQUIREMENTS.fullmatch(name):
        return False
    head = _head(path, 65536)
    if head is None:
        return False
    found = False
    for raw in head.splitlines():
        line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
        if not line or _PIP_OPTION_LINE.fullmatch(line):
            continue
        if _REQUIREMENT_LINE.fullmatch(line) is None and not _VCS_OR_URL.match(line):
            return False
        found = True
    return found


def is_cog_config(path: str) -> bool:
    """Replicate's `cog.yaml`, by its file name: it "defines how to build a Docker image" (replicate/cog docs/yaml.md),
    its `build: run:` items being shell commands run in that build, read like a Dockerfile's `RUN` lines (label rule
    40c-2)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] == "cog.yaml"


def is_conda_env(path: str) -> bool:
    """A conda environment file (`environment.yml`, `environment_cuda11.yaml`), by its file name, or a YAML file of
    another name whose content is one (`Windows/env.yml`, `conda_env.yaml`: see is_unnamed_conda_env)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return any(fnmatch(name, p) for p in CONDA_ENV_PATTERNS) or is_unnamed_conda_env(path)


# the top-level keys of a conda environment file (`conda env export`, `conda env create -f`): `channels:` and
# `dependencies:` both at column 0; a CI workflow, a Hydra or a gym config has neither pair
_TOP_CHANNELS = re.compile(r"^channels:", re.MULTILINE)
_TOP_DEPENDENCIES = re.compile(r"^dependencies:\s*(?:#.*)?$", re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def is_unnamed_conda_env(path: str) -> bool:
    """A `.yml` / `.yaml` file outside CONDA_ENV_PATTERNS that is a conda environment by its content (s2anet's
    `Windows/env.yml`, a `conda env export`): top-level `channels:` and `dependencies:` keys. Read by its first
    64 KiB; a path that cannot be opened (a bare name) is not one."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith((".yml", ".yaml")) or any(fnmatch(name, p) for p in CONDA_ENV_PATTERNS) or "/" not in path:
        return False
    head = _head(path, 65536)
    return head is not None and _TOP_CHANNELS.search(head) is not None and _TOP_DEPENDENCIES.search(head) is not None


class MalformedInput(ValueError):
    """A notebook or manifest that cannot be read; becomes one NPU904 file error."""

    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.line = line


def _too_deep(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, limits.TooDeep) else "nested too deeply to parse"


_INTERESTING_SUFFIXES = (".py", ".pyw", ".ipynb", ".txt", ".toml", ".cfg", ".yml", ".yaml", ".sh", ".bash", ".zsh",
                         ".slurm", ".bat", ".cmd", ".sbatch", ".pbs", ".cu", ".cuh", ".cu.h", ".cu.hpp", ".cpp", ".cc", ".cxx", ".cmake", ".cmake.in")
_INTERESTING_NAMES = ("Dockerfile", "Makefile", ".gitmodules")


def _small_json(path: str) -> bool:
    """A `.json` file small enough to be an arguments file (migrate/json_configs.py); a path that cannot be read
    (a bare name, a broken link) is not one."""
    from migrate.json_configs import JSON_LIMIT

    try:
        return os.path.getsize(path) <= JSON_LIMIT
    except OSError:
        return False


# a documentation page (Markdown, reStructuredText) whose file or folder name names the NPU: the repository's own NPU
# guide (inclusionAI/AReaL docs/en/tutorial/installation_npu.md, THUDM/slime docker/npu_patch/README.md), read only for
# the Ascend plugins it names (migrate/npu_plugins.py, label ruling (L38))
NPU_GUIDE_KIND = "npu-guide"
_GUIDE_SUFFIXES = (".md", ".rst")
_NPU_WORDS = frozenset({"npu", "ascend"})


def is_npu_guide(path: str) -> bool:
    """A documentation page named for the NPU: `npu` or `ascend` as a word of its file name or of its folder's name
    (`installation_npu.md`, `npu_patch/README.md`, `ascend/quick_start.rst`); not a page that only mentions it."""
    parts = path.replace("\\", "/").rsplit("/", 2)
    if not parts[-1].lower().endswith(_GUIDE_SUFFIXES):
        return False
    words = set(re.split(r"[^a-z0-9]+", " ".join(parts[-2:]).lower()))
    return bool(words & _NPU_WORDS)


def classify(path: str) -> tuple[str, ...]:
    """The input kinds a file is read as (empty: not ours to read)."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".json"):  # only HfArgumentParser's arguments files are read (migrate/json_configs.py)
        return ("json-config",) if _small_json(path) else ()
    if name.lower().endswith(_GUIDE_SUFFIXES):
        return (NPU_GUIDE_KIND,) if is_npu_guide(path) else ()
    if not name.endswith(_INTERESTING_SUFFIXES) and name not in _INTERESTING_NAMES and not is_dockerfile(name):
        return ()  # fast exit: most files in a big tree (.so, .h, .json ...) are not ours
    if name.endswith((".py", ".pyw")) and name != "setup.py":
        return ("python",)
    if name == ".gitmodules":  # submodules of CUDA-kernel packages (migrate/submodules.py)
        return ("gitmodules",)
    kinds: list[str] = []
    if name.endswith((".py", ".pyw")):
        kinds.append("python")
    elif name.endswith(".ipynb"):
        kinds.append("notebook")
    if any(fnmatch(name, p) for p in MANIFEST_PATTERNS) or (
        name.endswith(".txt") and PurePath(path).parent.name == "requirements"
    ) or is_unnamed_conda_env(path):
        kinds.append("manifest")
    elif any(fnmatch(name, p) for p in LAUNCHER_PATTERNS) or is_dockerfile(name):
        kinds.append("launcher")
    if any(fnmatch(name, p) for p in CUDA_SOURCE_PATTERNS):
        kinds.append("cuda-source")
    elif any(fnmatch(name, p) for p in CPP_SOURCE_PATTERNS):
        kinds.append("cpp-source")
    return tuple(kinds)


# ---- notebooks -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class NotebookCell:
    index: int  # index among all cells of the notebook
    python_source: str  # magics and shell escapes blanked (line numbers kept)
    shell_source: str  # only the `!cmd` / `%%bash` lines, the rest blank


_MAGIC = re.compile(r"^\s*[%!]")
# IPython's packaging line magics run their line through the shell: `%pip LINE` is `python -m pip LINE` and `%conda
# LINE` is `conda LINE` (IPython/core/magics/packaging.py, `self.shell.system(...)`): read as the shell command `pip
# LINE` / `conda LINE` (`%pip install x || pip install y.whl`: both installs)
_SHELL_LINE_MAGIC = re.compile(r"^\s*%(?:pip|conda)(?:\s|$)")


# cell magics whose body is Python run by IPython, or written to a file of that kind (`%%writefile setup.sh` writes
# a shell script the next cell runs, `%%writefile pkg/defaults.py` a module); any other cell magic's body
# (`%%writefile base_config.yaml`, `%%html`, `%%javascript`) is neither (IPython's built-in cell magics)
_PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy")
_SHELL_CELL_MAGICS = ("bash", "sh")
_SCRIPT_SUFFIXES = {".py": "python", ".sh": "shell", ".bash": "shell"}
# IPython's other built-in cell magics (IPython 8 `%lsmagic`), whose body is neither Python nor a shell script read
# here (`%%script perl`, `%%sx`: another interpreter, a shell capture); any cell magic IPython does not bring is a
# user's (registered with `register_cell_magic`, warprnnt_numba's notebooks' `%%exec_write_cell script.py`, which
# exec's its body and appends it to a script): its body is read as Python when it parses as Python
_OTHER_CELL_MAGICS = ("html", "javascript", "js", "latex", "markdown", "svg", "perl", "ruby", "script", "sx", "system")


def _parses(body: str) -> bool:
    """The body of a cell (magic and shell lines blanked) is Python: it parses (it is never run)."""
    try:
        newer_syntax.parse("\n".join("" if _MAGIC.match(line) else line for line in body.split("\n")))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _cell_body(source: str) -> str:
    """"python", "shell" or "other": what the body of a cell is, read from its cell magic (no magic: Python)."""
    first = source.lstrip().split("\n", 1)[0].strip()
    if not first.startswith("%%"):
        return "python"
    words = first[2:].split()
    magic = words[0] if words else ""
    if magic in _PYTHON_CELL_MAGICS:
        return "python"
    if magic in _SHELL_CELL_MAGICS or (magic == "script" and len(words) > 1 and words[1] in ("bash", "sh")):
        return "shell"
    if magic in ("writefile", "file"):
        target = next((w for w in words[1:] if not w.startswith("-")), "")
        return next((kind for suffix, kind in _SCRIPT_SUFFIXES.items() if target.endswith(suffix)), "other")
    if magic in _OTHER_CELL_MAGICS:
        return "other"
    return "python" if _parses(source.lstrip().split("\n", 1)[1] if "\n" in source.lstrip() else "") else "other"


def read_notebook(text: str) -> list[NotebookCell]:
    try:
        limits.check_json_depth(text)
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"not a valid notebook: {exc.msg}", exc.lineno) from None
    except (limits.TooDeep, RecursionError) as exc:
        raise MalformedInput(f"not a valid notebook: {_too_deep(exc)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise MalformedInput("not a valid notebook: no 'cells' list (nbformat 4 expected)")
    cells: list[NotebookCell] = []
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise MalformedInput(f"not a valid notebook: cell {index} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        elif not isinstance(source, str):
            raise MalformedInput(f"not a valid notebook: cell {index} has no text source")
        python_lines: list[str] = []
        shell_lines: list[str] = []
        body = _cell_body(source)
        cell_magic_shell = body == "shell"
        # IPython joins a `!` / `%` line ending in a backslash with the lines that follow (`!python main.py \` then
        # `--model ...`: one command, OpenGVLab/OmniQuant's notebooks): those lines continue the shell command / magic
        continued = ""
        for raw in source.split("\n"):
            escape = continued or ("!" if raw.lstrip().startswith("!") else "%" if _MAGIC.match(raw) else "")
            continued = escape if escape and raw.rstrip().endswith("\\") else ""
            if body == "other":  # `%%writefile config.yaml`, `%%html`: neither Python nor a shell script
                python_lines.append("")
                shell_lines.append("")
            elif cell_magic_shell or escape == "!" or (escape == "%" and _SHELL_LINE_MAGIC.match(raw)):
                python_lines.append("")
                # blank the `!` (or the packaging magic's `%`) instead of cutting it, so columns stay those of the cell
                if raw.lstrip().startswith("!"):
                    raw = raw.replace("!", " ", 1)
                elif not cell_magic_shell and _SHELL_LINE_MAGIC.match(raw):
                    raw = raw.replace("%", " ", 1)
                shell_lines.append(raw)
            elif escape:
                python_lines.append("")
                shell_lines.append("")
            else:
                python_lines.append(raw)
                shell_lines.append("")
        cells.append(NotebookCell(index, "\n".join(python_lines), "\n".join(shell_lines)))
    return cells


# ---- manifests ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dependency:
    name: str  # normalised distribution name (lower case, - for _ and .)
    raw: str
    line: int
    column: int  # 0-based character column
    end_column: int
    conda: bool = False  # a conda package named in a manifest that mixes conda and PyPI ones (pixi.toml)


_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_VCS_OR_URL = re.compile(r"^(?:(?:git|hg|svn|bzr)\+)?[a-z][a-z0-9+.-]*://", re.I)
_ARCHIVE = (".zip", ".whl", ".tar.gz", ".tgz", ".tar.bz2", ".tar")
# a wheel or sdist file names its distribution before the version (`flash_attn-2.5.8+cu122torch2.3-cp310-...whl`,
# `pkg-1.0.tar.gz`: the binary and source distribution file name formats, packaging.python.org/en/latest/specifications/)
# a launcher's file name may give the version as a shell variable (`flash_attn-${flash_attn_version}+cu${cu}...whl`) or
# leave it to a shell glob (`pip install dist/sgl_deep_gemm-*.whl` after building the wheel: the name is still given)
_ARCHIVE_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._]*?)-(?:\d|\$|\*)")


def _direct_reference(text: str) -> tuple[str, int, int] | None:
    """(name, start, end) of a requirement given by location alone: a VCS URL
    (`git+https://github.com/NVlabs/nvdiffrast/`, `git+https://host/org/repo.git@v1`) or a local project
    directory (`submodules/diff-surfel-rasterization`, `./third_party/simple-knn`). pip reads the name from
    the project's metadata, which is not here: the repository's or directory's last path component
    stands for it; a wheel or sdist file (`.../flash_attn-2.5.8+cu122torch2.3-cp310-cp310-linux_x86_64.whl`)
    names it before its version."""
    token = text.strip().split(None, 1)[0] if text.strip() else ""
    # an environment marker after a URL (`https://.../x-0.1+cu121-cp311-cp311-linux_x86_64.whl; platform_system ==
    # "Linux"`: pip reads the marker after `; `, PEP 508) is not part of the location
    token = token.split(";", 1)[0] if _VCS_OR_URL.match(token) else token
    url = _VCS_OR_URL.match(token)
    if not url and "/" not in token and not token.endswith(_ARCHIVE):
        return None  # a bare name; a wheel or sdist file in the folder the command runs in names itself (below)
    path = token.split("#", 1)[0].rstrip("/")
    if not url:  # `./third_party/vllm/.`: the folder itself
        while path.endswith("/."):
            path = path[:-2].rstrip("/")
    if url and "/" not in token[url.end():].strip("/"):
        return None  # a bare host, no project path
    if url:  # the revision after `@` may hold a slash (`MInference.git@yucheng/kvcompression`: a branch name)
        host_end = path.find("/", path.find("://") + 3) if "://" in path else -1
        if host_end > 0 and "@" in path[host_end:]:
            path = path[:host_end] + path[host_end:].split("@", 1)[0]
    last = path.rsplit("/", 1)[-1]
    last = last[:-4] if last.endswith(".git") else last
    if last.endswith(_ARCHIVE):
        named = _ARCHIVE_NAME.match(last)
        if named is None:
            return None
        last = named.group(1)
    elif not last or not _REQ_NAME.fullmatch(last):
        return None
    start = text.find(token) + path.rfind(last)
    return last, start, start + len(last)


_EDITABLE_PATH = re.compile(r"^\s*(?:-e|--editable)(?:\s+|=)(?=\.{0,2}/|[\w.-]+/)(?![\w+-]+://)")


def _requirement(text: str, line: int, offset: int) -> Dependency | None:
    stripped = text.split("#", 1)[0] if not text.lstrip().startswith(("git+", "http")) else text
    egg = _EGG.search(text)
    if egg:
        return Dependency(normalise(egg.group(1)), text.strip(), line, offset + egg.start(1), offset + egg.end(1))
    editable = _EDITABLE_PATH.match(stripped)
    if editable:  # `-e ./ext/foo`: an editable install of a local folder (VCS URLs name their egg, above)
        return _requirement(stripped[editable.end():], line, offset + editable.end())
    if stripped.strip().startswith("-") or not stripped.strip():
        return None
    direct = _direct_reference(stripped)
    if direct is not None:
        name, start, end = direct
        return Dependency(normalise(name), text.strip(), line, offset + start, offset + end)
    if _VCS_OR_URL.match(stripped.strip()):
        return None  # a bare host or an unnamed archive: no name to read (not the scheme `https`)
    match = _REQ_NAME.match(stripped)
    if not match:
        return None
    return Dependency(normalise(match.group(1)), text.strip(), line, offset + match.start(1), offset + match.end(1))


def requirement(text: str, line: int, offset: int = 0) -> Dependency | None:
    """One requirement specifier (a requirements-file line, a `pip install` argument of a launcher)."""
    return _requirement(text, line, offset)


@dataclass
class ManifestContext:
    kind = "manifest"
    path: str
    source: str
    dependencies: list[Dependency]
    cell: int | None = None
    problems: tuple[str, ...] = ()  # parts of the wrong shape, left out (one NPU904 for the file)

    @cached_property
    def lines(self) -> list[str]:  # split once: rules read it per dependency (a manifest of many stays linear)
        return split_lines(self.source)

    def span(self, node):
        return node


def _find_in_lines(lines: list[str], needle: str, start_line: int = 1) -> tuple[int, int] | None:
    """The first line (from `start_line`) holding `needle` outside a whole-line comment: in every manifest kind read
    here (YAML, TOML, setup.cfg, setup.py) a line starting with `#` declares nothing (`# - cudatoolkit=10.2` above the
    `- cudatoolkit=11.1` a conda environment installs)."""
    for number in range(start_line, len(lines) + 1):
        col = lines[number - 1].find(needle)
        if col >= 0 and not lines[number - 1].lstrip().startswith("#"):
            return number, col
    return None


def _find_quoted(lines: list[str], text: str, start_line: int = 1) -> tuple[int, int] | None:
    """The first line holding `text` as a quoted string (`"flash-attn"`), its column inside the quotes: a TOML array's
    requirement, not the table key of the same name above it (`flash-attn = [` opening the extra that lists
    `"flash-attn"`)."""
    found = [where for quote in ('"', "'") if (where := _find_in_lines(lines, quote + text + quote, start_line))]
    if not found:
        return None
    line, col = min(found)
    return line, col + 1


def _deps_from_strings(lines: list[str], strings: list[str], quoted: bool = False) -> list[Dependency]:
    """The requirements of `strings`, each at the first line holding it from the previous one's line on; a TOML string
    array's (`quoted`) at the line holding it in quotes first."""
    deps: list[Dependency] = []
    search_from = 1
    for text in strings:
        dep = _requirement(text, 0, 0)
        if dep is None:
            continue
        where = ((quoted and (_find_quoted(lines, text, search_from) or _find_quoted(lines, text)))
                 or _find_in_lines(lines, text, search_from) or _find_in_lines(lines, text))
        if where is None:
            line, col = 1, 0
        else:
            line, col = where
            search_from = line
        deps.append(Dependency(dep.name, dep.raw, line, col + dep.column, col + dep.end_column))
    return deps


def read_manifest(path: str, source: str) -> ManifestContext:
    name = PurePath(path).name
    lines = split_lines(source)
    deps: list[Dependency] = []
    shape = limits.Shape()
    if name.endswith(".txt"):
        for number, text in enumerate(lines, 1):
            dep = _requirement(text.rstrip("\r\n"), number, 0)
            if dep:
                deps.append(dep)
    elif name == "pyproject.toml" or any(fnmatch(name, p) for p in PYPROJECT_VARIANTS):
        from migrate._toml import toml as tomllib

        try:
            data = tomllib.loads(source)
        except tomllib.TOMLDecodeError as exc:
            raise MalformedInput(f"invalid TOML: {exc}") from None
        # every level may have any type in a hostile or broken file: take only what has the right shape
        strings: list[str] = []
        project = shape.table(data.get("project"), "project")
        strings += shape.strings(project.get("dependencies"), "project.dependencies")
        optional = shape.table(project.get("optional-dependencies"), "project.optional-dependencies")
        for name, group in optional.items():
            strings += shape.strings(group, f"project.optional-dependencies.{name}")
        # PEP 735 dependency groups (`[dependency-groups] dev = ["nvitop>=1.3", {include-group = "test"}]`, what
        # `uv sync` / `pip install --group dev` installs), like poetry's groups below; an include is a table, no requirement
        groups = shape.table(data.get("dependency-groups"), "dependency-groups")
        for name, group in groups.items():
            items = [item for item in shape.items(group, f"dependency-groups.{name}") if not isinstance(item, dict)]
            strings += shape.strings(items, f"dependency-groups.{name}")
        # what building the package installs first (PEP 518 `[build-system] requires`), like setup.py's setup_requires
        # (`"nvidia-nccl-cu11 >= 2.14.3"` for a build linking NCCL; label note 49c c-1)
        build = shape.table(data.get("build-system"), "build-system")
        strings += shape.strings(build.get("requires"), "build-system.requires")
        # string arrays, each requirement a quoted string; poetry's are table keys (`flash-attn = "^2"`), read apart
        deps = _deps_from_strings(lines, strings, quoted=True)
        keys: list[str] = []
        poetry = shape.table(shape.table(data.get("tool"), "tool").get("poetry"), "tool.poetry")
        for section in ("dependencies", "dev-dependencies"):
            keys += shape.keys(poetry.get(section), f"tool.poetry.{section}")
        for name, group in shape.table(poetry.get("group"), "tool.poetry.group").items():
            group = shape.table(group, f"tool.poetry.group.{name}")
            keys += shape.keys(group.get("dependencies"), f"tool.poetry.group.{name}.dependencies")
        deps += _deps_from_strings(lines, keys)
    elif name == PIXI_MANIFEST:
        from migrate._toml import toml as tomllib

        try:
            tomllib.loads(source)
        except tomllib.TOMLDecodeError as exc:
            raise MalformedInput(f"invalid TOML: {exc}") from None
        deps = _pixi_dependencies(lines)
    elif name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(source)
        except configparser.Error as exc:
            raise MalformedInput(f"invalid setup.cfg: {exc.message if hasattr(exc, 'message') else exc}") from None
        strings = []
        if parser.has_option("options", "install_requires"):
            strings += parser.get("options", "install_requires").splitlines()
        if parser.has_section("options.extras_require"):
            for _, value in parser.items("options.extras_require"):
                strings += value.splitlines()
        deps = _deps_from_strings(lines, [s.strip() for s in strings if s.strip()])
    elif is_conda_env(name) or is_unnamed_conda_env(path):
        import yaml

        try:
            limits.check_yaml_depth(source)
            data = yaml.safe_load(source) or {}
        except (limits.TooDeep, RecursionError) as exc:
            raise MalformedInput(f"invalid YAML: {_too_deep(exc)}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise MalformedInput(f"invalid YAML: {getattr(exc, 'problem', exc)}", (mark.line + 1) if mark else 1) from None
        strings = []
        if not isinstance(data, dict):
            raise MalformedInput("invalid environment file: top level is not a mapping")
        for item in shape.items(data.get("dependencies"), "dependencies"):
            if isinstance(item, str):
                strings.append(re.split(r"[=<>! ]", item.split("::")[-1], maxsplit=1)[0])
            elif isinstance(item, dict):
                strings += shape.strings(item.get("pip"), "dependencies.pip")
        deps = _deps_from_strings(lines, strings)
    elif name == "setup.py":
        try:
            tree = newer_syntax.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None  # the Python reader reports the parse error once
        strings = []
        if tree is not None:
            named: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.keyword) and node.arg in ("install_requires", "extras_require", "setup_requires"):
                    if isinstance(node.value, ast.Name):
                        named.add(node.value.id)
                    # the keys of `extras_require={"flash-attn": ["flash-attn>=2.6.0"]}` name extras, not requirements
                    keys = {id(k) for d in ast.walk(node.value) if isinstance(d, ast.Dict) for k in d.keys if k is not None}
                    for sub in ast.walk(node.value):
                        if (text := _file_reference_text(sub)) is not None:
                            keys |= {id(v) for v in sub.values}
                            dep = _requirement(text, sub.lineno, sub.col_offset + 1)
                            if dep:
                                deps.append(dep)
                        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in keys:
                            dep = _requirement(sub.value, sub.lineno, sub.col_offset + 1)
                            if dep:
                                deps.append(dep)
            for sub in _bound_requirement_strings(tree, named):
                dep = _requirement(sub.value, sub.lineno, sub.col_offset + 1)
                if dep:
                    deps.append(dep)
    return ManifestContext(path, source, deps, problems=tuple(shape.problems))


# the tables of a pixi.toml that declare packages, also per feature / platform (`[feature.cuda.dependencies]`,
# `[target.linux-64.pypi-dependencies]`): pixi docs, reference/pixi_manifest (dependencies, host-dependencies,
# build-dependencies are conda packages; pypi-dependencies are PyPI ones)
_PIXI_TABLE = re.compile(r"^\[\s*(?:feature\.[^\]]+?\.)?(?:target\.[^\]]+?\.)?"
                         r"(dependencies|host-dependencies|build-dependencies|pypi-dependencies)\s*\]\s*(?:#.*)?$")
_PIXI_KEY = re.compile(r"^\s*[\"']?([A-Za-z0-9][A-Za-z0-9._-]*)[\"']?\s*=")


def _file_reference_text(node: ast.AST) -> str | None:
    """An f-string requirement that is a PEP 508 direct reference to a local folder, its fields as `{}`: ODISE-like
    `f"mask2former @ file://localhost/{os.getcwd()}/third_party/Mask2Former/"` (the folder pip installs, matched to
    a CUDA build by migrate/local_installs.py); None for any other node."""
    if not isinstance(node, ast.JoinedStr) or not node.values:
        return None
    first = node.values[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and "@ file:" in first.value):
        return None
    return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values)


def _pixi_dependencies(lines: list[str]) -> list[Dependency]:
    """The packages of a pixi.toml, read line by line for their positions (the TOML was validated first): each
    `name = spec` key of a dependency table (`cuda = {version = "*", channel = "nvidia/label/cuda-11.8.0"}`), marked
    conda outside `pypi-dependencies`. A dotted-key table per package (`[dependencies.cuda]`) is not read."""
    deps: list[Dependency] = []
    table: str | None = None
    for number, text in enumerate(lines, 1):
        stripped = text.strip()
        if stripped.startswith("["):
            match = _PIXI_TABLE.match(stripped)
            table = match.group(1) if match else None
            continue
        key = _PIXI_KEY.match(text) if table else None
        if key is None:
            continue
        deps.append(Dependency(normalise(key.group(1)), stripped, number, key.start(1), key.end(1),
                               conda=table != "pypi-dependencies"))
    return deps


def _bound_requirement_strings(tree, names: set[str]) -> list:
    """megablocks setup.py: `install_requires = [...]`, `extra_deps['gg'] = [...]` and later `setup(install_requires=
    install_requires, extras_require=extra_deps)`. The string elements of the list literals bound to those names
    (assigned, subscript-assigned, `+=`, `.append(...)` / `.extend([...])`); strings elsewhere (an extra's key, a name
    in a comprehension that merges the extras) are not requirements.

    A dependency table (diffusers, transformers): `_deps = ["bitsandbytes>=0.43.3", ...]`, a helper
    `deps_list("bitsandbytes", "accelerate")` or a lookup `deps["filelock"]` in the bound value names its entries by
    requirement name. Each such key that is the name of a string of a module-level list of requirement strings stands
    for that string: both the key and the table's spec line are reported; table entries no key names are not."""
    table = _requirement_table(tree)

    def keys(value) -> list:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            found = [a for a in value.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        elif (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)
              and isinstance(value.slice.value, str) and not bound(value)):
            found = [value.slice]
        else:
            return []
        out = []
        for key in found:
            dep = _requirement(key.value, 0, 0)
            spec = table.get(normalise(dep.name)) if dep else None
            if spec is not None:
                out += [key, spec]
        return out

    def elements(value):
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            return [x for e in value.elts
                    for x in ([e] if isinstance(e, ast.Constant) and isinstance(e.value, str) else keys(e))]
        if isinstance(value, ast.Dict):
            return [e for v in value.values for e in elements(v)]
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return elements(value.left) + elements(value.right)
        return keys(value)

    def bound(target) -> bool:
        if isinstance(target, ast.Subscript):
            target = target.value
        return isinstance(target, ast.Name) and target.id in names

    out: list = []
    if not names:
        return out
    seen: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(bound(t) for t in node.targets):
            out += elements(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None and bound(node.target):
            out += elements(node.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and bound(node.func.value)
              and node.func.attr in ("append", "extend") and node.args):
            arg = node.args[0]
            out += [arg] if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else elements(arg)
    keys = elements = None  # noqa: F811,F841 -- recursive closures hold their own cells: cycles the scan never collects
    # a table spec named by several keys (two extras both listing "accelerate") is one requirement
    return [e for e in out if not (id(e) in seen or seen.add(id(e)))]


def _requirement_table(tree) -> dict:
    """normalised requirement name -> its string constant, over the module-level lists / tuples whose elements are
    all requirement strings (`_deps = ["Pillow", "accelerate>=0.31.0", ...]`)."""
    table: dict = {}
    for node in getattr(tree, "body", []):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(node.value, (ast.List, ast.Tuple)):
            continue
        elts = node.value.elts
        if not elts or not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
            continue
        parsed = [(_requirement(e.value, 0, 0), e) for e in elts]
        if all(dep is not None for dep, _ in parsed):
            for dep, e in parsed:
                table.setdefault(normalise(dep.name), e)
    return table


# ---- launchers and CUDA sources -------------------------------------------------------------------
@dataclass
class _TextContext:
    """A file rules read line by line."""

    path: str
    source: str
    cell: int | None = None

    @cached_property
    def lines(self) -> list[str]:  # split once: rules read it per dependency (a manifest of many stays linear)
        return split_lines(self.source)

    def span(self, node):
        return node


@dataclass
class LauncherContext(_TextContext):
    """A shell script, YAML job file or notebook shell cell, read line by line."""

    kind = "launcher"


@dataclass
class CudaSourceContext(_TextContext):
    """A C++/CUDA source file, read line by line."""

    kind = "cuda-source"
