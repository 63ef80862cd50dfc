"""A setup.py that loads its extensions' build modules by path at build time (NPU502 local installs, cross-file).

```
ALL_EXTENSIONS = ["mypkg/layers/binary/cuda", "mypkg/layers/binary/cpp"]
...
module = importlib.import_module((extension_dir + "/extension").replace("/", "."))
ext_modules.append(module.get_ext(Path(extension_dir)))
```

The setup.py names no `CUDAExtension` itself: each listed folder's build module (here `extension.py`, which NPU505
reports as a CUDA extension build) returns it, imported by a name the setup.py computes from the folder. Such a
setup.py builds CUDA as much as one that writes `CUDAExtension(...)` (set 46 d: a `pip install -e .` of the
repository is a local install of a CUDA build). Read statically: the setup.py imports modules dynamically
(`importlib.import_module`, `__import__`, `importlib.util.spec_from_file_location`, `runpy.run_path`), passes
`ext_modules`, and one of its string literals is a folder of its own folder (or a `.py` file there, `"ops/build.py"`)
holding a Python file with an NPU505 finding (a path of two parts or more: a bare word is no folder here). A folder named in a string but never loaded (no dynamic import) is not
enough, nor a dynamic import without such a folder.
"""

from __future__ import annotations

import posixpath
import re

_DYNAMIC_IMPORT = re.compile(r"\bimport_module\s*\(|\b__import__\s*\(|\bspec_from_file_location\s*\(|\brun_path\s*\(")
_EXT_MODULES = re.compile(r"\bext_modules\b")
# a relative path literal of one or more parts: "mypkg/layers/binary/cuda", 'ops/build.py'
_PATH_LITERAL = re.compile(r"""["'](?:\./)?([\w.-]+(?:/[\w.-]+)+|[\w.-]+/?\.py)/?["']""")


def loads_build_modules(setup_path: str, folder: str, build_folders: set[str]) -> bool:
    """The setup.py at `setup_path` (in scan folder `folder`) loads a build module of one of `build_folders` (the scan
    folders holding a `.py` file NPU505 reports) by a path it names."""
    try:
        with open(setup_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return False
    if not (_DYNAMIC_IMPORT.search(text) and _EXT_MODULES.search(text)):
        return False
    for literal in _PATH_LITERAL.finditer(text):
        named = literal.group(1)
        if named.endswith(".py"):
            named = posixpath.dirname(named) or "."  # a build module of the setup.py's own folder: not read here
        if named != "." and posixpath.normpath(posixpath.join(folder, named)) in build_folders:
            return True
    return False
