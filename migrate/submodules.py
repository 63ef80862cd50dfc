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
"""

from __future__ import annotations

import posixpath
import re

from migrate.repo_index import Definition

KIND = "submodule"
MODE = "submodule"  # the mode of the extension module a missing submodule stands for
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
    for key, entry in knowledge.third_party().items():
        names = (*entry.pip_names, *entry.folder_names)  # a fork's repository name (`hierarchy-rasterizer`)
        if entry.status == "unsupported" and needs_a_look(entry) and any(normalise(p) == wanted for p in names):
            return key
    return None


def facts(text: str) -> list[Definition]:
    """"submodule" Definitions of the submodules of a `.gitmodules` text whose repository is a GPU-only package."""
    out = []
    for path, url, line in read(text):
        key = package_of_url(url)
        if key is not None:
            out.append(Definition(KIND, posixpath.normpath(path.replace("\\", "/")).strip("/"), "", line, True, url, key))
    return out


def missing_extensions(submodules: list[Definition], scanned: list[str]) -> list[Definition]:
    """The extension modules that the submodules absent from the scan stand for: one per submodule folder that
    no scanned file lies under and whose path is a Python package path (`src/lib/model/networks/DCNv2` ->
    `src.lib.model.networks.DCNv2`; a relative import reaches it by its tail, `Index.module_for`)."""
    folders = {posixpath.normpath(p.replace("\\", "/")) for p in scanned}
    out = []
    for definition in submodules:
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
