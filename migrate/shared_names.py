"""Extension names held by a variable that a build script and the package read from one shared file (NPU508).

A package may keep its extension's name beside its version, in a file that setup.py and the package module both
run rather than import:

    # pkg/version.py
    __version__ = '0.1.40'
    __cuda_pkg_name__ = f'pkg_cuda_{__version__.replace(".", "_")}'

    # setup.py
    exec(open('pkg/version.py').read())
    CUDAExtension(__cuda_pkg_name__, sources=["pkg/k.cu"])        # the build: its name is the variable's value

    # pkg/attn.py
    exec(open(os.path.dirname(__file__) + '/version.py').read())
    cuda_pkg = importlib.import_module(__cuda_pkg_name__)           # the import of that build

Neither side spells the name, but both read the same variable, one that the file itself never binds (`exec` of the
shared file, or a star import, binds it at run time). The build defines the extension `{__cuda_pkg_name__}` (braced:
no import statement reaches it by that spelling) and `importlib.import_module(__cuda_pkg_name__)` of such a free name
loads it (set 48c, rule c-3). A name the file binds itself (an assignment, a parameter, an import) is left to the
readers of literal names: a parameter `name` of a build helper is not the name an importer's own `name` holds.
Module attributes every module has (`__name__`, `__file__`, ...) and builtins are never free in this sense.
"""

from __future__ import annotations

import ast
import builtins
import re

# `import_module(NAME)`: the text pass's reference to a build named by the same free variable
IMPORTED_BY_NAME = re.compile(r"import_module\(\s*([A-Za-z_]\w*)\s*\)")
_MODULE_ATTRIBUTES = frozenset({"__name__", "__file__", "__package__", "__spec__", "__doc__", "__loader__",
                                "__path__", "__builtins__", "__cached__", "__annotations__", "__dict__"})


def runs_shared_file(source: str) -> bool:
    """The file may bind names no statement of it shows: it runs `exec(...)` or a star import."""
    return "exec(" in source or "import *" in source


def text_references(text: str) -> list[str]:
    """A reference to `{NAME}` for each `import_module(NAME)` of a file that may bind NAME at run time (the reference
    facts)."""
    if not runs_shared_file(text):
        return []
    # braced: kernel_values.module_reexports never reads it as an `import` binding a name here
    return ["{" + name + "}" for name in IMPORTED_BY_NAME.findall(text)
            if name not in _MODULE_ATTRIBUTES and not hasattr(builtins, name)]


def shared_name(ctx, node) -> str | None:
    """`{NAME}` where `node` is a name the file reads and never binds, in a file running `exec(...)` or a star
    import; None otherwise."""
    if not isinstance(node, ast.Name) or not runs_shared_file(ctx.source):
        return None
    name = node.id
    if name in _MODULE_ATTRIBUTES or hasattr(builtins, name):
        return None
    for other in ast.walk(ctx.tree):
        if isinstance(other, ast.Name) and other.id == name and not isinstance(other.ctx, ast.Load):
            return None
        if isinstance(other, ast.arg) and other.arg == name:
            return None
        if isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and other.name == name:
            return None
        if isinstance(other, (ast.Import, ast.ImportFrom)) \
                and any((a.asname or a.name.split(".", 1)[0]) == name for a in other.names):
            return None
    return "{" + name + "}"
