"""A project's own compile-command classes that run nvcc (NPU505; label ruling (L96)).

A repository with a build tool of its own, not cpp_extension, describes each compile step as an object:

    class Nvcc(Gpp):
        def __init__(self, sources, target, arch=None, ...):
            if arch is None:
                arch = find_cuda_device_arch()
                if arch is None:
                    raise ValueError("you must specify arch if use cuda.")
            try:
                cuda_home = find_cuda()
            ...
            super().__init__(sources, target, ..., compiler="nvcc")

    class CUDALink(Gpp):
        def __init__(self, ...):
            try:
                cuda_home = find_cuda()
            ...
                cuda_libs = {str(cuda_lib_path): ["cublas", "cudart"]}

A class whose methods hand `compiler="nvcc"` to a call (the step nvcc runs) or whose methods name CUDA toolkit
libraries in a list literal (the link step against cudart / cublas) is a CUDA build step. In such a method, those
lines, the toolkit's home bound from a call (`cuda_home = find_cuda()`, the locator feeding the step) and each
`raise` (the step stops without a toolkit or GPU architecture) are build lines. The class definitions themselves are
not (ruling (L96): the constructions are reported where the build helper makes them), nor other methods.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

# the CUDA toolkit's libraries a link step names (NVIDIA CUDA toolkit lib64/: libcudart, libcublas, libcublasLt,
# libcufft, libcurand, libcusparse, libcusolver, libnvrtc; the same names migrate/cmake_toolkit.py reads in CMake)
_TOOLKIT_LIBRARIES = frozenset({"cudart", "cudart_static", "cublas", "cublasLt", "cufft", "curand", "cusparse",
                                "cusolver", "nvrtc"})
# the names a build gives the toolkit's home (torch's own `CUDA_HOME`, setup.py's `cuda_home`)
_HOME_NAMES = frozenset({"cuda_home", "cuda_path", "cuda_root"})


def _nvcc_keyword(node) -> bool:
    return isinstance(node, ast.keyword) and node.arg == "compiler" and isinstance(node.value, ast.Constant) \
        and node.value.value == "nvcc"


def _library_list(node) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and any(
        isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in _TOOLKIT_LIBRARIES for e in node.elts)


def step_lines(ctx) -> list[tuple[ast.AST, str]]:
    """(node, what it is) for each build line of the file's nvcc compile / CUDA link step classes."""
    out: list[tuple[ast.AST, str]] = []
    for cls in ctx.nodes.get(ast.ClassDef, ()):
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef):
                continue
            nodes = list(walk_nodes(method))
            steps = [(n.value, "hands its sources to nvcc (`compiler=\"nvcc\"`)") for n in nodes if _nvcc_keyword(n)]
            steps += [(n, "links the CUDA toolkit's libraries") for n in nodes if _library_list(n)]
            if not steps:
                continue
            out.extend(steps)
            for node in nodes:
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                        isinstance(t, ast.Name) and t.id.lower() in _HOME_NAMES for t in node.targets):
                    out.append((node, "locates the CUDA toolkit for the step"))
                elif isinstance(node, ast.Raise):
                    out.append((node, "stops the step without a CUDA toolkit or GPU architecture"))
    return out
