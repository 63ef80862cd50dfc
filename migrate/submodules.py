"""A git submodule of a CUDA-kernel package that the checkout does not hold (NPU508, cross-file).

CenterTrack-style trees vendor a kernel library as a submodule (`.gitmodules`: `path =
src/lib/model/networks/DCNv2`, `url = https://github.com/CharlesShang/DCNv2/`) and import it relatively
(`from .DCNv2.dcn_v2 import DCN`); a plain clone (or an archive) leaves the folder empty, so the scan sees
the imports but no build. When the submodule's repository is a package the third-party knowledge counts as
GPU-only (its URL's last path component is one of an entry's `pip_names` or `folder_names`, the name of a
fork's repository, read the way NPU502 reads a requirement given by location), the folder is the repository's CUDA extension all the same: the per-file
pass records each such submodule as a fact (a Definition of kind "submodule": its path as written, its
line, the URL in `why`), and `repo_index.build_index` turns the ones no scanned file lies under into an
extension module named by the folder's dotted path, whose imports and uses NPU508 reports. A
`try: ... except: DCN = None` around the import is no working fallback: `DCN(...)` is then called on None
(label ruling (L30)). A requirement installing the absent folder (`submodules/gaussianhierarchy` in
requirements.txt) is that package's install: NPU502 reports it as the repository's own extension where the folder's
path is a module path, else as the install of the catalogued package (migrate/local_installs.py). A submodule that is checked out is
scanned like any other code.

A research project vendored the same way and imported through the import path (Detic-style: `.gitmodules` names
`url = https://github.com/fundamentalvision/Deformable-DETR.git` at `third_party/Deformable-DETR`, a launcher runs
`sys.path.insert(0, 'third_party/Deformable-DETR')`, a module does `from models.deformable_transformer import
DeformableTransformer`) is matched by its repository `owner/name` against knowledge/submodule_projects.toml (not the
pip catalogue: its packages have common names such as `models`). When the folder is missing from the checkout and some
file of the repository puts it on the import path (a `sys.path.insert` / `sys.path.append` string, or a PYTHONPATH
assignment of a launcher, naming the folder), each top-level package the entry lists becomes an extension module of
mode "subproject": NPU508 reports its imports (`from models.matcher import HungarianMatcher`: the package's
`__init__` loads the op) and the constructions of the classes the entry lists, not the uses of its pure-PyTorch
helpers (label rule 40c-1). Without the import-path line, or with the folder checked out, nothing is added.
"""

from __future__ import annotations

import posixpath
import re

from migrate.repo_index import Definition

KIND = "submodule"
MODE = "submodule"  # the mode of the extension module a missing submodule stands for
PROJECT = "subproject"  # the mode of a package of a missing research-project submodule on the import path
PATH_KIND = "importpath"  # a folder a file of the repository puts on the import path
_PROJECT_MODE = "project:"  # a "submodule" Definition's mode prefix: the submodule_projects.toml key
_SYS_PATH = re.compile(r"sys\.path\.(?:insert|append)\s*\((?:[^()'\"]*,)?[^'\"]*['\"]([^'\"]+)['\"]")
_PYTHONPATH = re.compile(r"\bPYTHONPATH\s*=\s*['\"]?([^'\"\s;&|]+)")
_SECTION = re.compile(r"^\s*\[\s*submodule\s+\"([^\"]*)\"\s*\]\s*$")
_KEY = re.compile(r"^\s*(path|url)\s*=\s*(\S.*?)\s*$")


def read(text: str) -> list[tuple[str, str, int]]:
    """(path, url, line of the section header) of each submodule of a `.gitmodules` text (git-config syntax)."""
    out: list[tuple[str, str, int]] = []
    current: dict | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = "" if raw.lstrip().startswith(("#", ";")) else raw
        header = _SECTION.match(line)
        if header:
            current = {"line": number}
            out.append(current)  # type: ignore[arg-type]
            continue
        key = _KEY.match(line)
        if key and current is not None:
            current[key.group(1)] = key.group(2)
    return [(s["path"], s["url"], s["line"]) for s in out if isinstance(s, dict) and "path" in s and "url" in s]


def package_of_url(url: str) -> str | None:
    """The third-party knowledge key of the GPU-only package a submodule URL's repository is, or None."""
    from migrate import knowledge
    from migrate.rules.npu501_gpu_only_import import needs_a_look
    from migrate.sources import normalise

    last = url.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    last = last[:-4] if last.endswith(".git") else last
    if not last:
        return None
    wanted = normalise(last)
    table = knowledge.third_party()
    for key, entry in table.items():
        if "." in key and key.split(".", 1)[0] in table:
            continue  # one API of a catalogued package (`MinkowskiEngine.MinkowskiDepthwiseConvolution`): the package's own entry speaks
        names = (*entry.pip_names, *entry.folder_names)  # a fork's repository name (`hierarchy-rasterizer`)
        if entry.status == "unsupported" and needs_a_look(entry) and any(normalise(p) == wanted for p in names):
            return key
    return None


def projects() -> dict[str, dict]:
    """knowledge/submodule_projects.toml's entries, keyed by `owner/name` in lower case."""
    from migrate import knowledge

    return {key.lower(): entry for key, entry in knowledge.read_toml("submodule_projects.toml").get("project", {}).items()}


def project_of_url(url: str) -> str | None:
    """The submodule_projects.toml key (lower case) of the repository a submodule URL names, or None."""
    tail = url.strip().rstrip("/").replace(":", "/").split("/")
    if len(tail) < 2:
        return None
    name = tail[-1][:-4] if tail[-1].endswith(".git") else tail[-1]
    key = f"{tail[-2]}/{name}".lower()
    return key if key in projects() else None


def facts(text: str) -> list[Definition]:
    """"submodule" Definitions of the submodules of a `.gitmodules` text whose repository is a GPU-only package (mode:
    its third-party key) or a catalogued research project (mode: `project:` and its submodule_projects.toml key)."""
    out = []
    for path, url, line in read(text):
        key = package_of_url(url)
        if key is None and (project := project_of_url(url)) is not None:
            key = _PROJECT_MODE + project
        if key is not None:
            out.append(Definition(KIND, posixpath.normpath(path.replace("\\", "/")).strip("/"), "", line, True, url, key))
    return out


def path_facts(text: str) -> list[Definition]:
    """"importpath" Definitions of the folders a file puts on the import path:
    `sys.path.insert(0, 'third_party/Deformable-DETR')`, `sys.path.append(os.path.join(root, "third_party/X"))`,
    a launcher's `PYTHONPATH=third_party/X:$PYTHONPATH` (each `:`-separated part)."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        found = [m.group(1) for m in _SYS_PATH.finditer(line)]
        found += [part for m in _PYTHONPATH.finditer(line) for part in m.group(1).split(":")]
        for folder in found:
            folder = posixpath.normpath(folder.replace("\\", "/")).strip("/")
            if folder and "$" not in folder.rsplit("/", 1)[-1]:
                out.append(Definition(PATH_KIND, folder, "", number, False))
    return out


def _on_path(folder: str, paths: list[str]) -> bool:
    """Whether an import-path folder names the submodule folder: the same path, or one ending with it
    (`os.path.join(ROOT, 'third_party/X')` read as `third_party/X`; `./third_party/X`)."""
    return any(p == folder or p.endswith("/" + folder) or folder.endswith("/" + p) and "/" in p for p in paths)


def project_packages(submodules: list[Definition], scanned: list[str], paths: list[str]) -> list[Definition]:
    """The extension modules (mode "subproject") of the research-project submodules the checkout lacks and some file
    puts on the import path: one per top-level package the project's entry lists, named by it (`models`), its `why`
    the URL, its `path` / `line` the `.gitmodules` section."""
    folders = {posixpath.normpath(p.replace("\\", "/")) for p in scanned}
    entries = projects()
    out = []
    for definition in submodules:
        if not definition.mode.startswith(_PROJECT_MODE):
            continue
        base = posixpath.dirname(posixpath.normpath(definition.path.replace("\\", "/")))
        folder = posixpath.normpath(posixpath.join(base, definition.name))
        if any(p == folder or p.startswith(folder + "/") for p in folders) or not _on_path(folder, paths):
            continue
        for package in entries.get(definition.mode[len(_PROJECT_MODE):], {}).get("packages", ()):
            out.append(Definition("module", package, definition.path, definition.line, True, definition.why, PROJECT))
    return out


def constructs(definition: Definition, qual: str) -> bool:
    """Whether `qual` (`models.deformable_transformer.DeformableTransformer`) names a class of the project whose
    construction runs its CUDA op (the entry's `classes`)."""
    key = project_of_url(definition.why)
    return key is not None and qual.rsplit(".", 1)[-1] in projects()[key].get("classes", ())


def pure_helper(definition: Definition, qual: str) -> bool:
    """`qual` (`auxiliary.ChamferDistancePytorch.fscore.fscore`) is a use of a plain-PyTorch helper of the missing
    submodule's package: below the submodule's module name, the path is one of the entry's `pure_api` (given from its
    key: `ChamferDistancePytorch.fscore`). Its use runs no kernel (label ruling (L54)); the import of it stays a use of
    the absent package (label note 52c on AtlasNet, (L30))."""
    from migrate import knowledge

    key = package_of_url(definition.why)
    if key is None or not qual.startswith(definition.name + "."):
        return False
    inner = key + qual[len(definition.name):]
    return any(inner == api or inner.startswith(api + ".") for api in knowledge.third_party()[key].pure_api)


def missing_extensions(submodules: list[Definition], scanned: list[str]) -> list[Definition]:
    """The extension modules that the submodules absent from the scan stand for: one per submodule folder that
    no scanned file lies under and whose path is a Python package path (`src/lib/model/networks/DCNv2` ->
    `src.lib.model.networks.DCNv2`; a relative import reaches it by its tail, `Index.module_for`)."""
    folders = {posixpath.normpath(p.replace("\\", "/")) for p in scanned}
    out = []
    for definition in submodules:
        if definition.mode.startswith(_PROJECT_MODE):  # `project_packages`
            continue
        base = posixpath.dirname(posixpath.normpath(definition.path.replace("\\", "/")))
        folder = posixpath.normpath(posixpath.join(base, definition.name))
        if any(p == folder or p.startswith(folder + "/") for p in folders):
            continue
        parts = [p for p in definition.name.split("/") if p not in ("", ".")]  # from the repository's root
        if not parts or not all(p.isidentifier() for p in parts):
            continue
        out.append(Definition("module", ".".join(parts), definition.path, definition.line, True,
                              definition.why, MODE))
    return out
