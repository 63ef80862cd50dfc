"""A setuptools `Extension` without sources that the file's own `build_ext` hands to a CUDA CMake build.

A setup.py may leave the compiling to CMake and give setuptools only the module's name (SHI-Labs/NATTEN-style):

    class BuildExtension(build_ext):
        def build_extension(self, ext):
            cmake_args = [f"-DMYLIB_CUDA_ARCH_LIST={archs}", f"-DOUTPUT_FILE_NAME={name}"]
            subprocess.check_call(["cmake", cmake_lists_dir] + cmake_args, cwd=build_dir)
            subprocess.check_call(["cmake", "--build", "."], cwd=build_dir)

    setup(ext_modules=[Extension("mylib.libmylib", [])], cmdclass={"build_ext": BuildExtension})

The `Extension(...)` names the compiled module the CMake project builds; the class tells that project the CUDA
architectures (a `-D...CUDA...=` definition on the cmake command line it assembles), so the module is a CUDA build:
its line is the build's extension call (label rule 46c HALF-5, the analogue of a `CUDAExtension`'s first line).
A sourceless extension of a class that runs cmake with no CUDA definition (a CPU / generic CMake build) is none,
nor is an `Extension` given sources (NPU505's other readings decide those), nor a project `CMakeExtension` subclass
(repo_index.py's "cmakeext" link to the CMake target).
"""

from __future__ import annotations

import ast
import re

from migrate.rules._text import COMMAND_RUNNERS

_EXTENSION = frozenset({"setuptools.Extension", "setuptools.extension.Extension", "distutils.core.Extension",
                        "distutils.extension.Extension"})
_CUDA_DEFINE = re.compile(r"-D\w*CUDA\w*=")


def sourceless_calls(ctx) -> list[ast.Call]:
    """The `Extension(name, [])` calls of this file built by a `build_ext` subclass of the file that runs a CMake
    configure told about CUDA (see the module doc)."""
    if "cmake" not in ctx.source or "CUDA" not in ctx.source or "build_ext" not in ctx.source:
        return []
    if not any(_cuda_cmake_builder(ctx, node) for node in ctx.nodes.get(ast.ClassDef, ())):
        return []
    return [call for call in ctx.nodes.get(ast.Call, ()) if ctx.qualname(call.func) in _EXTENSION and _no_sources(ctx, call)]


def _no_sources(ctx, call: ast.Call) -> bool:
    sources = call.args[1] if len(call.args) > 1 else ctx.keyword(call, "sources")
    return isinstance(sources, (ast.List, ast.Tuple)) and not sources.elts


def _cuda_cmake_builder(ctx, node: ast.ClassDef) -> bool:
    """`node` subclasses `build_ext`, runs `cmake` through a command runner and spells a CUDA definition."""
    if not any((b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")) == "build_ext" for b in node.bases):
        return False
    runs_cmake = any(isinstance(call, ast.Call) and ctx.qualname(call.func) in COMMAND_RUNNERS and call.args and any(
        isinstance(n, ast.Constant) and n.value == "cmake" for n in ast.walk(call.args[0])) for call in ast.walk(node))
    return runs_cmake and any(isinstance(n, ast.Constant) and isinstance(n.value, str) and _CUDA_DEFINE.match(n.value)
                              for n in ast.walk(node))
