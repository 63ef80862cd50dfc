"""A pip install of a folder of the repository that builds a CUDA extension (NPU502, cross-file).

`- pointnet2_ops_lib/.` in an environment.yml's pip section (pointMLP-pytorch), `-e ./ext/foo` or
`./third_party/x` in a requirements file, `pip install ./submodules/x` in a shell script: pip runs that
folder's setup.py, and when the scan reports that setup.py as a CUDA build (an NPU505 finding), the
install line is the install of a CUDA build too, reported where it is written. The per-file pass records
each local-path requirement as a fact (a Definition of kind "localinstall": the path as written, its line,
its columns in `why`); this step, after the scan, matches the path to the folder of a setup.py with an
NPU505 finding: the manifest's own folder joined with the path, or any folder whose path ends with it
(pip resolves the path from where it is run, mostly the repository's root). A launcher's `python setup.py build
install` (MaskDINO ops/make.sh, run in the extension's folder) is such an install of the setup.py's folder. A setup.py
whose `cffi_modules` names a build script of its own folder that NPU505 reports (torch.utils.ffi's `create_extension(...,
with_cuda=...)` in build.py) builds CUDA too (label rule 46b-3), and so does one that imports by path the build modules
of folders it lists (`importlib.import_module(dir + "/extension")`, each `extension.py` an NPU505 CUDA build:
migrate/loaded_build_modules.py). A path
that is a git submodule's folder the checkout does not hold (`.gitmodules`: `path = submodules/gaussianhierarchy`,
`url = https://github.com/graphdeco-inria/gaussian-hierarchy.git`, migrate/submodules.py), whose repository is a
catalogued GPU-only package, installs that package: the folder's own name need not be a name of it. A VCS
requirement of a whole repository (`git+https://github.com/facebookresearch/pytorch3d.git@stable`, no `#subdirectory=`)
whose last path part is the scanned repository's folder name installs the repository itself, as a `git clone` of it
does (label ruling (L82): a notebook's `!pip install 'git+https://github.com/o/proj.git'` of a repository whose setup.py
builds CUDA); a notebook's `!` lines are read like a launcher's, each fact with its cell. A Dockerfile's `RUN git clone
URL` then `RUN cd NAME; python setup.py install` installs that clone, the scanned repository when its folder has that
name (label ruling (L72)). A `python setup.py install --test=coordinate` whose option value is a `CppExtension` target
of that setup.py's source-set table (`SOURCE_SETS = {"coordinate": [CppExtension, ...], "coordinate_gpu":
[CUDAExtension, ...]}`, migrate/source_set_tables.py) builds no CUDA and is not reported (label note 45b b-1).
One pass over the results.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re

from migrate import source_set_tables
from migrate.findings import Category, FileResult, Finding, Severity
from migrate.loaded_build_modules import loads_build_modules
from migrate.repo_index import Definition

KIND = "localinstall"
# a requirement given as a local folder: `./x`, `../x`, `x/y`, `x/.`, with pip's editable option in front
_EDITABLE = re.compile(r"^(?:-e|--editable)(?:\s+|=)")
_NOT_A_PATH = re.compile(r"://|^(?:git\+|hg\+|svn\+|bzr\+|https?:)|[=<>;\[\]@\s]")


# a PEP 508 direct reference to a local folder: `name @ file://localhost/{}/third_party/x/` (an f-string whose field is
# the absolute folder setup.py runs in, `os.getcwd()`: the part after the last field is the folder under the repository)
_FILE_REFERENCE = re.compile(r"^[A-Za-z0-9][\w.-]*(?:\[[^\]]*\])?\s*@\s*file://(?:localhost)?/?(?P<path>\S*)$")


def local_path(raw: str) -> str | None:
    """The folder a requirement's text installs, normalised (`pointnet2_ops_lib/.` -> `pointnet2_ops_lib`), or None."""
    reference = _FILE_REFERENCE.match(raw.strip())
    if reference is not None:
        path = reference.group("path")
        if "{}" not in path:  # an absolute folder written out: not a folder of the repository that can be placed
            return None
        raw = "./" + path.rsplit("{}", 1)[1].lstrip("/")
    text = _EDITABLE.sub("", raw.strip()).strip()
    if not text or "/" not in text or _NOT_A_PATH.search(text) or text.endswith((".whl", ".zip", ".tar.gz", ".tgz")):
        return None
    path = posixpath.normpath(text.replace("\\", "/"))
    return None if path in (".", "/") else path


# a VCS requirement of a whole repository: `git+https://github.com/o/proj.git@stable`, `proj @ git+ssh://git@host/o/proj`
# (not one folder of it: `#subdirectory=hopper`); the repository's name is the URL's last path part
_VCS_REPOSITORY = re.compile(r"(?:^|@\s*)git\+(?:https?|ssh|git)://\S*?/(?P<name>[\w.-]+?)(?:\.git)?/?(?:@[^\s#/]*)?(?:#(?!\S*subdirectory=)\S*)?$")


def vcs_repository(raw: str) -> str | None:
    """The name of the repository a VCS requirement installs whole (`git+https://github.com/o/proj.git@v1` -> proj), or None."""
    match = _VCS_REPOSITORY.search(raw.strip().strip("\"'"))
    return match.group("name") if match else None


def facts(dependencies, cell: int | None = None) -> list[Definition]:
    """"localinstall" Definitions of the dependencies given as local folders (`sources.Dependency`s of one file), and
    of those given as a VCS URL of a whole repository (`<clone:NAME>`, resolved in `report`); `cell`: the notebook cell
    of a notebook's `!pip install` lines."""
    out = []
    mode = "" if cell is None else f"{_CELL}{cell}"
    for dep in dependencies:
        path = local_path(dep.raw)
        if path is None and "git+" in dep.raw:
            name = vcs_repository(dep.raw)
            path = None if name is None else f"{CLONE_PREFIX}{name}>"
        if path is not None:
            out.append(Definition(KIND, path, "", dep.line, False, f"{dep.column} {dep.end_column}", mode))
    return out


_CELL = "cell "  # the mode of a notebook cell's fact: `cell 4`


def image_facts(path: str, lines: list[str], dependencies) -> list[Definition]:
    """`facts` of a launcher's `pip install` requirements; in a Dockerfile an absolute folder is the image's, read
    through the `COPY` lines above the command that put the repository there (`copied_from`): nvdiffrast's
    `COPY *.py *.toml /tmp/nvdiffrast` then `RUN pip install /tmp/nvdiffrast` installs the build context's root."""
    from migrate.sources import is_dockerfile

    out = []
    docker = is_dockerfile(path)
    for fact in facts(dependencies):
        if not (docker and fact.name.startswith("/")):
            out.append(fact)
            continue
        out.extend(Definition(KIND, folder, "", fact.line, False, fact.why)
                   for folder in copied_from(lines, fact.line, fact.name))
    return out


# `COPY [--chown=..] SRC... DEST` / `ADD`: files of the build context copied into the image (not the JSON form)
_COPY = re.compile(r"^\s*(?:COPY|ADD)\s+(?:--\S+\s+)*(?P<args>[^\s\[].*?)\s*$", re.I)


def copied_from(lines: list[str], number: int, folder: str) -> list[str]:
    """The repository folders a Dockerfile's absolute image `folder` holds by the `COPY` lines above line `number`:
    a destination that received `.` or files of the context's top (`setup.py`, `*.py`: a name with a suffix or a glob)
    is the context's root (the Dockerfile's folder and the repository's root, as `copied_workdir`), one that received
    a folder of the context (`COPY ext/op /src/op`) is that folder; a folder below the destination is the same folder
    below its source. [] when no `COPY` put anything there (a clone, a downloaded archive)."""
    folder = posixpath.normpath(folder)
    out: list[str] = []
    for line in lines[:number - 1]:
        copy = _COPY.match(line)
        if copy is None:
            continue
        args = [a.strip("\"'") for a in copy.group("args").split()]
        if len(args) < 2 or "://" in copy.group("args"):
            continue
        dest = posixpath.normpath(args[-1])
        if folder != dest and not folder.startswith(dest.rstrip("/") + "/"):
            continue
        below = folder[len(dest):].lstrip("/")
        for source in args[:-1]:
            source = posixpath.normpath(source)
            if source.startswith(("/", "..")):
                continue
            top_files = source == "." or ("/" not in source and ("*" in source or "?" in source or "." in source))
            if top_files:
                found = [posixpath.normpath(below)] if below else [".", CONTEXT_ROOT]
            else:
                found = [posixpath.normpath(posixpath.join(source, below))]
            out.extend(f for f in found if f not in out)
    return out


# `python setup.py build install` / `python3 ./ops/setup.py develop`: setuptools run on a setup.py directly, with a
# command that builds or installs (not `--version`, `sdist`, `clean`)
_SETUP_PY = re.compile(r"(?:(?<=/)|(?<![\w./-]))python[\d.]*\s+(?:-\S+\s+)*(?P<path>(?:\S*/)?setup\.py)(?P<rest>(?:\s+[^\s;&|]+)+)")
_BUILDS = frozenset({"install", "develop", "build", "build_ext", "bdist_wheel", "bdist_egg"})
_OPTION_VALUE = re.compile(r"(?<!\S)--[\w-]+=([\w.-]+)(?!\S)")


def setup_py_runs(lines: list[str], path: str = "") -> list[Definition]:
    """"localinstall" Definitions of the launcher commands that run a setup.py to build or install it (MaskDINO
    ops/make.sh: `python setup.py build install`, run in the extension's folder): the folder is the setup.py's, taken
    from the script's own folder, as a pip install of a local folder is (label rule: a local install of a CUDA build).
    In a Dockerfile (`path`) a folder a `git clone` above filled is that clone, `<clone:NAME>` (`RUN git clone
    https://github.com/o/proj` then `RUN cd proj; python setup.py install`: the scanned repository when its folder is
    named so, label ruling (L72) as `copied_workdir`)."""
    from migrate.rules._text import shell_matches
    from migrate.sources import is_dockerfile

    docker = bool(path) and is_dockerfile(path)
    out = []
    for number, match in shell_matches(lines, _SETUP_PY, in_echo=_SETUP_PY):
        if not _BUILDS.intersection(w.strip("\"'") for w in match.group("rest").split()):
            continue
        if _in_echo(lines[number - 1], match.start()) and not _WRITES_DOCKERFILE.search(lines[number - 1]):
            continue  # a message that names the command, not a Dockerfile line the script writes
        folder = posixpath.dirname(match.group("path")) or "."
        cloned = _image_folders(lines, number) if docker else None
        # the values of its `--opt=value` options, after the columns: a CPU target of the setup.py's source-set table
        # (`--test=coordinate`) builds no CUDA (`report`)
        values = " ".join(v for v in _OPTION_VALUE.findall(match.group("rest")) if "|" not in v)
        if folder == "." and not docker and path.endswith((".sh", ".bash")) and _from_start(lines, number, match.start()):
            values = f"{values} {_START}".lstrip()  # no `cd` before it: the setup.py of where the script is run (`report`)
        for into in changed_into(lines, number, match.start()):
            path = posixpath.normpath(posixpath.join(into, folder))
            if cloned is not None:
                image_path = posixpath.normpath(posixpath.join(cloned[2] or "/", path))
                if image_path in cloned[1] and image_path not in cloned[0]:
                    path = f"{CLONE_PREFIX}{cloned[1][image_path]}>"
            out.append(Definition(KIND, path, "", number, False, f"{match.start()} {match.end()} {values}".rstrip()))
    return out


# a `python setup.py ...` of a shell script that changes no folder before it: `report` reads it, in a folder that holds
# no setup.py, as run from the repository's root (ShadowKV scripts/build_env.sh: `python setup.py build_ext --inplace`,
# run as `bash scripts/build_env.sh`, builds the root setup.py's CUDA extension in place: label note 70d)
_START = "<start>"


def _from_start(lines: list[str], number: int, end: int) -> bool:
    """No `cd` before the command: neither in its own command (over continued lines) nor on a line above."""
    from migrate.continued_commands import first_line, text_before

    return not _CD.search(text_before(lines, number, end)) and _cd_above(lines, first_line(lines, number)) is None


# a launcher writing a Dockerfile line by line (imaginaire scripts/build_docker.sh: `echo "RUN cd $p && python setup.py
# install" >> Dockerfile`): the echoed RUN is the image's install, read at the echo line (label note 52b)
_WRITES_DOCKERFILE = re.compile(r"(?<![\w-])echo\s+(?:-\w+\s+)*[\"']?RUN\s.*>>?\s*[\"']?\S*Dockerfile\S*[\"']?\s*$")


def _in_echo(line: str, column: int) -> bool:
    from migrate.rules._text import command_segments

    return any(is_echo and begin <= column < end for begin, end, is_echo in command_segments(line))


# `make` / `make all` / `make -j4 install` in a launcher, in the folder of a Makefile whose target runs the folder's
# setup.py (imaginaire voxlib/Makefile: `all:` / `python setup.py build_ext --inplace` / `python setup.py install`)
_MAKE = re.compile(r"(?:(?<=/)|(?<![\w./-]))make(?P<args>(?:[ \t]+(?:-[\w=.-]+|[\w.-]+))*)[ \t]*(?=$|[;&|\"'])")


def make_runs(lines: list[str], path: str = "") -> list[Definition]:
    """"localinstall" Definitions of a launcher's `make [TARGET]` commands (also a Dockerfile line the launcher echoes):
    the folder is the one the command runs in (as `setup_py_runs`), the target (or `<default>`) after the columns as
    `<make:TARGET>`; `report` keeps one only where that folder's Makefile runs its setup.py for the target (label note
    52b: imaginaire install.sh `cd imaginaire/model_utils/${p}; make all`, the Makefile's install of a CUDA build). The
    Makefile itself stays a side build (label ruling (L19)): this is the launcher's install through it."""
    from migrate.rules._text import shell_matches

    out = []
    for number, match in shell_matches(lines, _MAKE, in_echo=_MAKE):
        words = match.group("args").split()
        if "-C" in " ".join(words) or "-f" in words:
            continue  # another folder or Makefile: not read here
        if _in_echo(lines[number - 1], match.start()) and not _WRITES_DOCKERFILE.search(lines[number - 1]):
            continue
        targets = [w for w in words if not w.startswith("-") and "=" not in w] or ["<default>"]
        for into in changed_into(lines, number, match.start()):
            for target in targets:
                out.append(Definition(KIND, posixpath.normpath(into), "", number, False,
                                      f"{match.start()} {match.end()} {_MAKE_PREFIX}{target}>"))
    return out


_MAKE_PREFIX = "<make:"
_MAKE_RULE = re.compile(r"^(?P<targets>[\w.%/-]+(?:[ \t]+[\w.%/-]+)*)[ \t]*:(?!=)(?P<deps>[^\n#]*)")


def makefile_runs_setup(makefile: str, target: str) -> bool:
    """The Makefile's `target` (its first target for `<default>`), or a target it depends on, has a recipe line running
    `python setup.py` with a build command (`install`, `build_ext`, ...)."""
    try:
        with open(makefile, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return False
    recipes: dict[str, list[str]] = {}
    deps: dict[str, list[str]] = {}
    order: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        rule = _MAKE_RULE.match(line)
        if rule is not None and not line.startswith("\t"):
            current = []
            for name in rule.group("targets").split():
                recipes.setdefault(name, current)
                deps.setdefault(name, []).extend(rule.group("deps").split())
                if not name.startswith("."):
                    order.append(name)
        elif line.startswith("\t"):
            current.append(line)
    start = order[0] if target == "<default>" and order else target
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in recipes.get(name, ()):
            match = _SETUP_PY.search(line)
            if match is not None and _BUILDS.intersection(match.group("rest").split()):
                return True
        todo.extend(deps.get(name, ()))
    return False


# the folder the command runs in, with extras: `.[dev,gui]` (pip's "<path>[extras]" form of a local project)
_HERE_WITH_EXTRAS = re.compile(r"^\./?\[[\w.,\s-]*\]$")


def installs_here(text: str) -> bool:
    """A `pip install` argument that names the folder the command runs in (`.`, `./`, also with extras: `.[dev,gui]`,
    kaolin's simulatable_3dgrut notebook `cd 3dgrut && pip install -e .[dev,gui]`, label rule 46b-16)."""
    return text in (".", "./") or _HERE_WITH_EXTRAS.match(text) is not None


# `pip install .` / `pip install -e .` in a launcher (pip / pip3 / python -m pip)
_PIP_HERE = re.compile(r"(?:(?<=/)|(?<![\w./-]))(?:pip3?|python[\d.]*\s+-m\s+pip)(?:\s+--?[a-z][\w-]*)*\s+install\b(?P<args>[^;&|]*)")


def pip_runs_here(path: str, lines: list[str]) -> list[Definition]:
    """"localinstall" Definitions of the `pip install .` / `pip install -e .` commands of a launcher (Sparse-Marlin-like
    install.sh: `pip install .` beside the CUDA build's setup.py): the folder is the one the command runs in, a relative
    `cd DIR &&` before it on its line, else the script's own folder. In a Dockerfile the folder a command runs in
    without such a `cd` is its image's WORKDIR, no folder of the repository: not matched."""
    from migrate.docker_args import expand, values_at
    from migrate.rules._text import shell_matches
    from migrate.sources import is_dockerfile

    out = []
    docker = is_dockerfile(path)
    for number, match in shell_matches(lines, _PIP_HERE):
        for token in re.finditer(r"\S+", match.group("args")):
            text = token.group().strip("\"'")
            if docker and "$" in text:  # `pip install -e ${BUILD_TARGET}` with `ARG BUILD_TARGET="."` (docker_args.py)
                text = expand(text, values_at(lines, number)).strip("\"'")
            if not installs_here(text):
                continue
            column = match.start("args") + token.start()
            for into in changed_into(lines, number, match.start()):
                clone = _cloned_into(lines, number, into) if docker and into.startswith("/") else None
                if clone is not None:
                    out.append(Definition(KIND, clone, "", number, False, f"{column} {column + len(token.group())}"))
                    continue
                if into == "." and docker:
                    copied = copied_workdir(lines, number)
                    if not copied:
                        continue
                    for folder in copied:
                        out.append(Definition(KIND, folder, "", number, False, f"{column} {column + len(token.group())}"))
                    project = _forced_clone_project(path, lines, number, copied)
                    if project is not None:
                        out.append(Definition(KIND, project, "", number, False, f"{column} {column + len(token.group())}"))
                    continue
                out.append(Definition(KIND, posixpath.normpath(into), "", number, False, f"{column} {column + len(token.group())}"))
    return out


def _forced_clone_project(path: str, lines: list[str], number: int, copied: list[str]) -> str | None:
    """The project a Dockerfile ships with (its own folder, or the folder above a `docker/` folder), relative to the
    Dockerfile's folder, when the `pip install -e .` at line `number` runs in a WORKDIR a `git clone` filled and an
    `ENV FORCE_CUDA="1"` above it forces the CUDA build: mmdetection3d's docker/Dockerfile clones its own project
    (`git clone https://github.com/open-mmlab/mmdetection3d.git /mmdetection3d`, also under a fork's name: fcaf3d's)
    and builds it with CUDA; the install is that project's setup.py, matched in `report` to an NPU505 CUDA build (label
    rulings (L72), (L106)). A clone whose project builds no CUDA extension (mmdetection 2.x, mmagic) matches nothing."""
    if len(copied) != 1 or not copied[0].startswith(CLONE_PREFIX):
        return None
    from migrate.forced_cuda_builds import env_forced_lines

    forced = env_forced_lines(lines)
    if forced is None or forced > number:
        return None
    folder = posixpath.basename(posixpath.dirname(path.replace(os.sep, "/")))
    return ".." if folder.lower() == "docker" else "."


def _cloned_into(lines: list[str], number: int, folder: str) -> str | None:
    """`<clone:NAME>` when a Dockerfile's absolute `folder` (`cd /proj && pip install -e .`) is where a `git clone`
    above line `number` put a repository (not a folder the build context was copied into), else None."""
    copied, cloned, _ = _image_folders(lines, number)
    folder = posixpath.normpath(folder)
    return f"{CLONE_PREFIX}{cloned[folder]}>" if folder in cloned and folder not in copied else None


# `COPY . /home/app/proj/` / `ADD ./ /src`: the build context copied whole into the image; `WORKDIR /home/app/proj`
_COPY_CONTEXT = re.compile(r"^\s*(?:COPY|ADD)\s+(?:--\S+\s+)*\.?/?\s+(?P<dest>\S+)\s*$", re.I)
_WORKDIR = re.compile(r"^\s*WORKDIR\s+(?P<dir>\S+)\s*$", re.I)


def copied_workdir(lines: list[str], number: int) -> list[str]:
    """Where a Dockerfile's command at line `number` runs when its WORKDIR is the folder the build context was copied
    into (`COPY . /home/app/proj/` then `WORKDIR /home/app/proj`: `RUN pip install -e .` installs the repository's
    own setup.py): the Dockerfile's folder and the repository's root, `CONTEXT_ROOT` (the context is one of
    the two, `docker build -f docker/Dockerfile .` mostly the root). A WORKDIR that a `git clone URL DIR` filled is the
    clone's repository, `<clone:NAME>` (NAME: the URL's last part), resolved in `report` to the repository's root
    when the scanned repository's folder has that name (s2anet's Dockerfile clones csuhan/s2anet into /s2anet and
    installs it: label ruling (L72)), else nothing (`WORKDIR /mmdetection3d`, another project's clone). [] when no
    copy or clone filled the WORKDIR, or none was set."""
    copied, cloned, workdir = _image_folders(lines, number)
    if workdir is not None and workdir in cloned and workdir not in copied:
        return [f"{CLONE_PREFIX}{cloned[workdir]}>"]
    if workdir is None or workdir not in copied:
        return []
    return [".", CONTEXT_ROOT]


def _image_folders(lines: list[str], number: int) -> tuple[set, dict, str | None]:
    """Above line `number` of a Dockerfile: the folders `COPY . DEST` filled with the build context, the folders
    `git clone URL [DIR]` filled (folder -> the URL's last part) and the WORKDIR in force."""
    from migrate.docker_args import expand, values_at

    copied, cloned, workdir = set(), {}, None
    from migrate.continued_commands import continuation_lines, continues
    from migrate.rules._text import strip_comment

    for index, line in enumerate(lines[:number - 1]):
        copy = _COPY_CONTEXT.match(line)
        if copy is not None:
            copied.add(posixpath.normpath(copy.group("dest").strip("\"'")))
        if index and continues(lines[index - 1]):
            command = ""  # read with the line its command starts on
        elif continues(line):  # `RUN git clone \` / `  --depth 1 \` / `  "${GIT_URL}" /proj && \`: one command
            command = " ".join([strip_comment(line).rstrip().removesuffix("\\")] + [
                text.rstrip().removesuffix("\\") for n, text in continuation_lines(lines, index + 1) if n < number])
        else:
            command = line
        if "$" in command and "git" in command:  # `git clone "${GIT_URL}" /proj`, `ARG GIT_URL=...` (docker_args.py)
            command = expand(command, values_at(lines, index + 1))
        for clone in _GIT_CLONE.finditer(command):
            url = clone.group("url").strip("\"'")
            name = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
            dest = (clone.group("dest") or "").strip("\"'") or name
            if name and not dest.startswith("-"):
                cloned[posixpath.normpath(posixpath.join(workdir or "/", dest))] = name
        work = _WORKDIR.match(line)
        if work is not None:
            target = work.group("dir").strip("\"'")
            workdir = posixpath.normpath(posixpath.join(workdir or "/", target))
    return copied, cloned, workdir


# `git clone [--depth 1 -b v2] https://github.com/o/proj.git [/proj]`: the URL and the folder it fills
_GIT_CLONE = re.compile(r"(?<![\w-])git\s+clone\s+(?:-\S+\s+(?:(?![\"']?(?:https?:|git@))[^\s-]\S*\s+)?)*"
                        r"[\"']?(?P<url>(?:https?://|git@)[^\s\"']+?)[\"']?(?:\s+(?P<dest>[^\s&;|]+))?\s*(?:$|&&|;|\|)")
CLONE_PREFIX = "<clone:"


# the folder a fact names when it is the repository's root, resolved in `report` (the scan's common folder)
CONTEXT_ROOT = "<root>"


# `cd ops && python setup.py install` / `cd $ext && ...`: the folder the command runs in; a loop's items
# (`for ext in mesh2sdf_cuda sol_nglod; do`) for its variable
_CD = re.compile(r"(?<![\w-])cd\s+(\S+)\s*(?:&&|;)")
# also a Windows batch loop, `for %%p in (a b c) do (` (cmd.exe `FOR %%variable IN (set) DO command`), any case
_FOR = re.compile(r"(?<![\w-])for\s+(?:%%)?(\w+)\s+in\s+\(?([^;)]+?)\)?\s*;?\s*(?:do\b|$)", re.I)


# a `cd DIR` that is a whole line of a script (not `cd DIR && ...`, read with its command)
_CD_LINE = re.compile(r"^\s*cd\s+(\S+)\s*(?:#.*)?$")


def _unix_spelling(target: str) -> str:
    """A Windows batch script's folder as a shell script spells it (D3Dnet make.bat, imaginaire scripts/install.bat):
    `\\` separates folders, `%%p` is the `for %%p in (...)` loop's variable and `%NAME%` a variable (`set NAME=%cd%`):
    `imaginaire\\third_party\\%%p` is `imaginaire/third_party/${p}`, `%curr_directory%` is `${curr_directory}`."""
    if "\\" not in target and "%" not in target:
        return target
    target = re.sub(r"%%(\w+)", r"${\1}", target.replace("\\", "/"))
    return re.sub(r"%(\w+)%", r"${\1}", target)


def _entered(folder: str, target: str) -> str:
    """The folder a `cd target` enters from `folder` (both relative to the script's folder): `..` climbs (back to "."
    above the script's folder), a folder under a variable, `$DIR/bundlesdf/mycuda` / `${PROJ_ROOT}/ext`, is read from
    the script's folder (the variable holding the project's root, `DIR=$(pwd)`: a folder of the repository only matches
    where a CUDA build's setup.py is, by its path's end too), a home, absolute or computed folder is "."."""
    target = _unix_spelling(target.strip("\"'"))
    under = re.fullmatch(r"\$\{?\w+\}?/+(?P<rest>[\w.-]+(?:/[\w.-]+)*)/?", target)
    if under is not None:
        return posixpath.normpath(under.group("rest"))
    if target.startswith(("~", "$", "-", "/", "`")) or not target:
        return "."
    entered = posixpath.normpath(posixpath.join(folder, target))
    return "." if entered == ".." or entered.startswith("../") else entered


def _cd_above(lines: list[str], first: int) -> str | None:
    """The folder the `cd DIR` lines above line `first` entered, relative to where the script started, each from the
    one before (`cd openpoints/cpp/pointnet2_batch` ... `cd ../` ... `cd pointops/`: openpoints/cpp/pointops): None when
    there is none, "." for a `cd ..` back to the start or a computed or absolute folder (`_entered`)."""
    folder = None
    for line in lines[:first - 1]:
        cd = _CD_LINE.match(line)
        if cd is not None:
            folder = _entered(folder or ".", cd.group(1).removesuffix(";"))
            if "$" in folder:  # `cd imaginaire/third_party/${p};` in `for p in a b; do`: read per item in `changed_into`
                folder = folder.replace("$", "\0")
    return folder


def _loop_items(lines: list[str], first: int, variable: str) -> list[str] | None:
    """The items of the `for VARIABLE in a b c` above line `first` (plain words), or None."""
    for line in reversed(lines[:first]):
        loop = _FOR.search(line)
        if loop and loop.group(1) == variable:
            items = [w.strip("\"'") for w in loop.group(2).split()]
            return items if items and all(re.fullmatch(r"[\w.-]+(?:/[\w.-]+)*/?", w) for w in items) else None
    return None


def _per_item(lines: list[str], first: int, folder: str) -> list[str] | None:
    """`imaginaire/third_party/${p}` for each item of the loop binding `p`, or None when it is no such folder."""
    variable = re.search(r"\0\{?(\w+)\}?", folder)
    if variable is None:
        return None
    items = _loop_items(lines, first, variable.group(1))
    if items is None:
        return None
    return [posixpath.normpath(folder[:variable.start()] + item + folder[variable.end():]) for item in items]


def changed_into(lines: list[str], number: int, end: int) -> list[str]:
    """The folders a `python setup.py ...` at `lines[number - 1][:end]` runs in, relative to the script's folder:
    the `cd DIR &&`s before it in its command, over the lines a trailing backslash continues it from
    (migrate/continued_commands.py), each from the folder the one before it entered (`cd /src/flash-attention \\` /
    `&& cd csrc && cd rotary && pip install .`: /src/flash-attention/csrc/rotary; an absolute folder as written, a
    Dockerfile's checkout of a repository), a loop's variable `$ext` standing for each item of the `for ext in a b`
    above it, else "." (a `cd` to a computed or home path: "." as well)."""
    from migrate.continued_commands import first_line, text_before

    text = text_before(lines, number, end)
    folder = "."
    cds = list(_CD.finditer(text))
    if not cds:  # `cd TransformerEngine` on a line of its own above (`git checkout x` between): the folder it entered
        above = _cd_above(lines, first_line(lines, number))
        if above is not None and "\0" in above:
            return _per_item(lines, first_line(lines, number), above) or ["."]
        if above is not None:
            return [above]
    for index, cd in enumerate(cds):
        target = _unix_spelling(cd.group(1).strip("\"'"))
        variable = re.fullmatch(r"\$\{?(\w+)\}?", target)
        if variable and index == len(cds) - 1:
            for line in reversed(lines[:first_line(lines, number)]):
                loop = _FOR.search(line)
                if loop and loop.group(1) == variable.group(1):
                    items = [w.strip("\"'") for w in loop.group(2).split()]
                    if items and all(re.fullmatch(r"[\w.-]+(?:/[\w.-]+)*/?", w) for w in items):
                        return [posixpath.normpath(posixpath.join(folder, w)) for w in items]
                    break
            return ["."]
        if target.startswith(("~", "$", "-")):
            folder = _entered(folder, target)
        else:
            folder = posixpath.normpath(posixpath.join(folder, target))
    return [folder]


# `cffi_modules=[os.path.join(this_file, "build.py:ffi")]`: the cffi build scripts setuptools runs (cffi's setuptools
# integration, "cffi_modules=["path/build.py:ffibuilder"]": cffi docs, cdef.html, "Other ways to ship")
_CFFI_MODULES = re.compile(r"\bcffi_modules\s*=\s*\[([^\]]*)\]")
_CFFI_ENTRY = re.compile(r"[\"']([^\"']*?)([\w.-]+\.py):\w+[\"']")


def _runs_cffi_builder(path: str, names: set[str]) -> bool:
    """The setup.py at `path` lists in `cffi_modules` one of `names`, files of its folder that NPU505 reports as a
    cffi CUDA build (PWC-Net correlation-pytorch: `cffi_modules=[os.path.join(this_file, "build.py:ffi")]` beside
    build.py's `create_extension(..., with_cuda=with_cuda)`): installing that folder builds CUDA (label rule 46b-3)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return False
    return any(entry.group(2) in names and entry.group(1).strip("/.") == ""
               for listed in _CFFI_MODULES.finditer(text) for entry in _CFFI_ENTRY.finditer(listed.group(1)))


# the phrase NPU505 puts in its findings on a setup script that builds no CUDA and only calls a toolkit locator that
# raises without nvcc (PoseCNN-PyTorch lib/utils/setup.py): installing that folder builds no CUDA extension
LOCATOR_ONLY = "a setup script that builds no CUDA"


def _builds_cuda(result: FileResult) -> bool:
    return any(f.code == "NPU505" and LOCATOR_ONLY not in f.message for f in result.findings)


# a pyproject.toml build backend that runs CMake (scikit-build-core, scikit-build, py-build-cmake, cmake-build-extension)
_CMAKE_BACKEND = re.compile(r"^\s*build-backend\s*=\s*[\"'](?:scikit_build_core|skbuild|py_build_cmake|cmake_build_extension)\b",
                            re.M)
_PROJECT_NAME = re.compile(r"^\[project\]\s*$(?:(?!^\[).)*?^\s*name\s*=\s*[\"']([A-Za-z0-9][A-Za-z0-9._-]*)[\"']",
                           re.M | re.S)
_UV_SOURCES = re.compile(r"^\[tool\.uv\.sources\]\s*$", re.M)
_UV_PATH = re.compile(r"\bpath\s*=\s*[\"']([^\"']+)[\"']")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 20)
    except OSError:
        return None


def cmake_projects(results: list[FileResult]) -> dict[str, tuple[str, str]]:
    """Folder -> (its CMakeLists.txt, its distribution name) of each Python project of the repository whose
    pyproject.toml builds with a CMake backend (`build-backend = "scikit_build_core.build"`) beside a CMakeLists.txt
    that NPU511 reports as a CUDA build: hao-ai-lab/FastVideo's fastvideo-kernel/ (scikit-build-core over
    `enable_language(CUDA)` and `.cu` sources). Installing that folder, or its distribution by name, installs a CUDA
    build (labels 61a: `fastvideo-kernel==0.3.2`, "the repo's own CUDA kernel wheel")."""
    cuda_cmake = {posixpath.normpath(os.path.dirname(r.path).replace(os.sep, "/")): r.path for r in results
                  if os.path.basename(r.path) == "CMakeLists.txt" and any(f.code == "NPU511" for f in r.findings)}
    out: dict[str, tuple[str, str]] = {}
    for result in results:
        if os.path.basename(result.path) != "pyproject.toml":
            continue
        folder = posixpath.normpath(os.path.dirname(result.path).replace(os.sep, "/"))
        if folder not in cuda_cmake:
            continue
        text = _read(result.path)
        if text is None or not _CMAKE_BACKEND.search(text):
            continue
        name = _PROJECT_NAME.search(text)
        out[folder] = (cuda_cmake[folder], name.group(1) if name else "")
    return out


def _named_installs(results: list[FileResult], projects: dict[str, tuple[str, str]]) -> list[FileResult]:
    """An NPU502 finding at each requirement, in a manifest outside the project's own folder, that names the
    distribution of a CUDA-building project of the repository (`cmake_projects`), and at each `[tool.uv.sources]`
    entry whose `path = "..."` is that folder (uv installs the folder, building it): the dependency is the repository's
    own CUDA kernel package, published or built in place. The scanned root's own project is not one (the checkout does
    not depend on itself: migrate/own_package.py `drop_self_installs`)."""
    from migrate.sources import normalise, read_manifest

    names = {normalise(name): (folder, build) for folder, (build, name) in projects.items() if name and folder != "."}
    if not names:
        return results
    out = []
    for result in results:
        if result.kind != "manifest" or not result.path.endswith(".toml") and not result.path.endswith(".txt"):
            out.append(result)
            continue
        here = posixpath.normpath(os.path.dirname(result.path).replace(os.sep, "/"))
        text = _read(result.path)
        if text is None:
            out.append(result)
            continue
        added = []
        taken = {f.line for f in result.findings if f.code == "NPU502"}
        try:
            dependencies = read_manifest(result.path, text).dependencies
        except Exception:  # a manifest the per-file pass could not read either
            dependencies = []
        for dep in dependencies:
            found = names.get(normalise(dep.name))
            if found is None or here == found[0] or here.startswith(found[0] + "/") or dep.line in taken:
                continue
            taken.add(dep.line)
            added.append(_own_build_finding(result.path, dep.line, dep.column, dep.end_column, f"`{dep.name}`", found[1]))
        sources = _UV_SOURCES.search(text) if result.path.endswith(".toml") else None
        if sources is not None:
            end = re.search(r"^\[", text[sources.end():], re.M)
            block_end = sources.end() + end.start() if end else len(text)
            for match in _UV_PATH.finditer(text, sources.end(), block_end):
                folder = posixpath.normpath(posixpath.join(here, match.group(1)))
                build = projects.get(folder)
                line = text.count("\n", 0, match.start()) + 1
                if build is None or folder == "." or line in taken:
                    continue
                taken.add(line)
                column = match.start(1) - (text.rfind("\n", 0, match.start()) + 1)
                added.append(_own_build_finding(result.path, line, column, column + len(match.group(1)),
                                                f"`{match.group(1)}`", build[0]))
        out.append(result.adding(added) if added else result)
    return out


def _own_build_finding(path: str, line: int, start: int, end: int, what: str, build: str) -> Finding:
    return Finding(path, line, start + 1, line, end + 1, "NPU502", Severity.ERROR, Category.THIRD_PARTY,
                   f"{what} installs the repository's {os.path.relpath(build, os.path.dirname(path) or '.')}, which builds "
                   "a CUDA extension (nvcc) that cannot target an Ascend NPU; port its kernels to Ascend C")


def report(results: list[FileResult]) -> list[FileResult]:
    """Results with an NPU502 finding at each local-path install of a folder whose setup.py builds CUDA (or whose
    pyproject.toml builds a CUDA CMake project, `cmake_projects`), and at each requirement naming such a project."""
    projects = cmake_projects(results)
    if projects:
        results = _named_installs(results, projects)
    builds: dict[str, str] = {folder: build for folder, (build, _) in projects.items()}
    submodules: dict[str, tuple[str, str]] = {}  # folder of a GPU-only package's submodule -> (its URL, knowledge key)
    cpu_targets: dict[str, set[str]] = {}  # a setup.py -> the CppExtension targets of its source-set table
    cffi_builders: dict[str, set[str]] = {}  # folder -> names of its files with an NPU505 finding (a cffi build.py)
    for result in results:
        if os.path.basename(result.path) == "setup.py" and _builds_cuda(result):
            builds[posixpath.normpath(os.path.dirname(result.path).replace(os.sep, "/"))] = result.path
            cpu_targets[result.path] = {fact[2].split("|", 1)[1] for fact in getattr(result, "facts", ()) or ()
                                        if fact[0] == "def" and fact[1] == source_set_tables.KIND and "|" in fact[2]}
        elif result.path.endswith(".py") and _builds_cuda(result):
            folder = posixpath.normpath(os.path.dirname(result.path).replace(os.sep, "/"))
            cffi_builders.setdefault(folder, set()).add(os.path.basename(result.path))
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == "submodule" and len(fact) > 6:
                base = os.path.dirname(result.path).replace(os.sep, "/")
                submodules[posixpath.normpath(posixpath.join(base, fact[2]))] = (fact[5], fact[6])
    for result in results if cffi_builders else ():
        folder = posixpath.normpath(os.path.dirname(result.path).replace(os.sep, "/"))
        if os.path.basename(result.path) != "setup.py" or folder in builds:
            continue
        if (folder in cffi_builders and _runs_cffi_builder(result.path, cffi_builders[folder])) \
                or loads_build_modules(result.path, folder, set(cffi_builders)):  # migrate/loaded_build_modules.py
            builds[folder] = result.path
    if submodules:  # a submodule that is checked out is scanned: its setup.py speaks for itself
        scanned = [posixpath.normpath(r.path.replace(os.sep, "/")) for r in results]
        submodules = {d: v for d, v in submodules.items() if not any(p.startswith(d + "/") for p in scanned)}
    if not builds and not submodules:
        return results
    out = []
    root = None
    setup_folders = {posixpath.normpath(os.path.dirname(r.path).replace(os.sep, "/")) for r in results
                     if os.path.basename(r.path) == "setup.py"}
    for result in results:
        added = []
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] != "def" or fact[1] != KIND:
                continue
            path, line, columns = fact[2], fact[3], fact[5]
            cell = int(fact[6][len(_CELL):]) if len(fact) > 6 and fact[6].startswith(_CELL) else None
            if path == CONTEXT_ROOT or path.startswith(CLONE_PREFIX):
                if root is None:
                    root = posixpath.normpath(os.path.commonpath([os.path.dirname(r.path) or "." for r in results]).replace(os.sep, "/"))
                if path.startswith(CLONE_PREFIX) and os.path.basename(os.path.abspath(root)).lower() != path[len(CLONE_PREFIX):-1].lower():
                    continue  # a clone of another project
                here, path = root, "."
            else:
                here = posixpath.normpath(posixpath.join(os.path.dirname(result.path).replace(os.sep, "/"), path))
            setup = builds.get(here) or next((s for d, s in builds.items() if (d == path and path != ".") or d.endswith("/" + path)), None)
            if setup is None and path == "." and _START in columns.split()[2:] and here not in setup_folders:
                # a shell script's `python setup.py build_ext --inplace` in a folder without a setup.py (scripts/): run
                # from the repository's root, the root's setup.py
                if root is None:
                    root = posixpath.normpath(os.path.commonpath([os.path.dirname(r.path) or "." for r in results]).replace(os.sep, "/"))
                setup = builds.get(root)
            submodule = None if setup is not None else (
                submodules.get(here) or next((v for d, v in submodules.items() if d.endswith("/" + path)), None))
            if (setup is None and submodule is None) or any(f.code == "NPU502" and f.line == line and f.cell == cell
                                                            for f in (*result.findings, *added)):
                continue
            start, end, *values = columns.split()
            start, end = int(start), int(end)
            if setup is not None and cpu_targets.get(setup, set()).intersection(values):
                continue  # `python setup.py install --test=coordinate`: a CppExtension target of its source-set table
            make = next((v[len(_MAKE_PREFIX):-1] for v in values if v.startswith(_MAKE_PREFIX)), None)
            if make is not None and (setup is None or not makefile_runs_setup(
                    os.path.join(os.path.dirname(setup), "Makefile"), make)):
                continue  # `make` where no Makefile target runs the CUDA build's setup.py
            if submodule is not None:
                added.append(dataclasses.replace(_submodule_install(result.path, line, start, end, path, *submodule), cell=cell))
                continue
            added.append(Finding(
                result.path, line, start + 1, line, end + 1, "NPU502", Severity.ERROR, Category.THIRD_PARTY,
                f"{'the command' if set(path.split('/')) <= {'.', '..'} else f'`{path}`'} installs the repository's {os.path.relpath(setup, os.path.dirname(result.path) or '.')}, "
                "which builds a CUDA extension (nvcc) that cannot target an Ascend NPU; port its kernels to Ascend C", cell=cell))
        out.append(result.adding(added))
    return out


def _submodule_install(path: str, line: int, start: int, end: int, folder: str, url: str, key: str) -> Finding:
    """The NPU502 finding of a local install of an absent git submodule whose repository is the GPU-only `key`."""
    from migrate import knowledge

    entry = knowledge.third_party().get(key)
    severity = Severity.WARNING if entry is not None and entry.severity == "warning" else Severity.ERROR
    alternative = entry.alternative if entry is not None and entry.alternative else "port its kernels to Ascend C"
    return Finding(path, line, start + 1, line, end + 1, "NPU502", severity, Category.THIRD_PARTY,
                   f"`{folder}` installs the git submodule of {url}, which builds `{key}` (targets NVIDIA GPUs, unsupported "
                   f"on Ascend NPU); NPU alternative: {alternative}")
