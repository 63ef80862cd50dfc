"""A setup.py with an NPU build branch is a per-device build: its CUDA side is not a construct to port.

Some packages build their extension for several devices and pick the extension class in one chain of the build
script, the NPU among them:

    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension                                            # the CUDA side (NPU505 would report it)
        sources += glob.glob("csrc/cuda/*.cu")                               # its kernels (NPU506)
    elif os.getenv("FORCE_NPU", "0") == "1":
        extension = NpuExtension                     # the NPU side: torch_npu.utils.cpp_extension's class, imported here
        sources += glob.glob("csrc/npu/*.cpp")
    else:
        extension = CppExtension
    ext_modules = [extension(name="pkg._ext", sources=sources)]

On the NPU host the chain builds the NPU extension under the same name: the CUDA lines of the script, the CUDA files
only it builds, and the uses of the extensions it defines are the CUDA side of a build that already handles the NPU
(label rulings (L20), (L56); 46a rule notes a-2 and a-5). It is the Python form of migrate/cmake_npu_switch.py.

A Python file that reports a CUDA build (NPU505) has an NPU build branch when an `if` / `elif` test names the NPU (a
device test, migrate/npu_aware.py, or an environment switch one of whose `_`-separated upper-case words is `NPU`:
`os.getenv("FORCE_NPU")`, `os.environ.get("MYPKG_USE_NPU")`) and its branch builds with torch_npu's extension class
(a name `NpuExtension` / `NPUExtension`, or a name imported there from a `torch_npu` module). A test or a message
that only mentions the NPU (`if FORCE_NPU: raise RuntimeError("not supported")`) is no such branch. Dropped: that
file's NPU505 findings (every branch of the chain: another framework's build of the same extension too), NPU506 of
a CUDA source only build files of that kind name (`cuda_builds.built_only_by`), and NPU508 uses of the extensions
it defines. Kept: a build chain whose only device branches are CUDA / ROCm / MLU / MUSA / MPS (no NPU entry).
"""
from __future__ import annotations

import ast
import re

from migrate.context import walk_nodes
from migrate.findings import FileResult

_CODES = frozenset({"NPU505"})
_NPU_CLASS = re.compile(r"^npu\w*extension$", re.I)
_SWITCH = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _switch_names_npu(test: ast.AST) -> bool:
    """An environment switch named for the NPU in the test (`os.getenv("FORCE_NPU", "0") == "1"`)."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and _SWITCH.match(n.value)
               and "NPU" in n.value.split("_") for n in walk_nodes(test))


def _builds_npu(body: list) -> bool:
    """The branch builds with torch_npu's extension class: `NpuExtension(...)` / `extension = NpuExtension`, or a name
    imported from a `torch_npu` module."""
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch_npu":
                if any(alias.name.endswith("Extension") for alias in node.names):
                    return True
            elif isinstance(node, ast.Name) and _NPU_CLASS.match(node.id):
                return True
            elif isinstance(node, ast.Attribute) and _NPU_CLASS.match(node.attr):
                return True
    return False


def has_npu_branch(tree: ast.AST) -> bool:
    """Whether the module holds an NPU build branch (see the module doc)."""
    from migrate import npu_aware

    flags = npu_aware.npu_flags(tree)
    for node in walk_nodes(tree):
        if isinstance(node, ast.If) and _builds_npu(node.body) and (
                _switch_names_npu(node.test) or "npu" in npu_aware._names(node.test, flags)):
            return True
    return False


def branch_files(results: list[FileResult], fresh: dict, max_file_size: int) -> set[str]:
    """The paths of the Python build files with an NPU build branch (read again only where one can be)."""
    from migrate import engine, fileio

    out = set()
    for result in results:
        if not result.path.endswith(".py") or not any(f.code in _CODES for f in result.findings):
            continue
        text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
        if text is None or "npu" not in text.lower() or "Extension" not in text:
            continue
        tree = fileio.parse_python(text)
        if tree is not None and has_npu_branch(tree):
            out.add(result.path)
    return out


def drop_cuda_side(results: list[FileResult], fresh: dict, max_file_size: int) -> list[FileResult]:
    """`results` less the CUDA side of a Python build with an NPU build branch (see the module doc)."""
    files = branch_files(results, fresh, max_file_size)
    if not files:
        return results
    from migrate.cuda_builds import built_only_by, drop_route

    modules = {fact[2] for r in results if r.path in files for fact in getattr(r, "facts", ()) or ()
               if fact[0] == "def" and fact[1] == "module"}
    return drop_route(results, files, _CODES, built_only_by(results, files), modules)
