"""A repository's own run-time CUDA compiler built on NVRTC, its calls and its kernels' launches (NPU505 / NPU508).

A project may ship its `.cu` / `.cuh` sources as package data and compile them on first use with NVRTC through NVIDIA's
cuda-python, instead of a cpp_extension build (label rulings (L96)/(L10): a JIT build helper of the project):

    # backends/kernel_cache.py
    class KernelCache:
        def get_or_compile_kernel(self, source_files, kernel_name, include_dirs, compile_flags):
            ...
            kernel = self._compile_kernel(source_files, kernel_name, include_dirs, compile_flags)

        def _compile_kernel(self, source_files, kernel_name, include_dirs, compile_flags):
            from cuda.core import Program, ProgramOptions
            ...
            if not any(os.path.exists(os.path.join(p, "nvrtc.h")) for p in include_paths):
                log_and_raise("CUDA NVRTC include directory not found")     # build: the toolkit locator's raise
            prog = Program(source_code, code_type="c++", options=options)   # NPU507 already (cuda-python)

    # backends/launch_helper.py
    def launch_kernel(kernel_name, stream, config, kernel, *kernel_args):
        launch(stream, config, kernel, *kernel_args)                        # cuda.core.launch: NPU507 already

    # backends/kinematics.py
    from .kinematics_config import KinematicsKernelCfg                      # its lists name the .cuh sources
    from .launch_helper import launch_kernel
    kernel = cache.get_or_compile_kernel(source_files=files, ...)           # build: a call of the compiler
    launch_kernel(kernel_name, stream, config, kernel, *args)               # use: launches a compiled kernel

A compiler here is a method or function that constructs an NVRTC program (`cuda.core.Program(...)`,
`cuda.bindings.nvrtc.nvrtcCreateProgram(...)`, also through `cuda.core.experimental` / `cuda.nvrtc`, or NVIDIA's older
bindings `pynvrtc.compiler.Program(...)`), with the methods of its class that call it as `self.<name>(...)` (one hop: the
cache's public entry). Reported after the scan:

- each call `<object>.<entry>(...)` of such a method in the repository (NPU505, a build line), the receiver not an
  imported module (`re.compile` is not a project compiler named `compile`); a call in the compiler's own class is not;
- where no such call of a compiler is found (a module-level function compiling inline and launching the kernels itself,
  called by its plain name), its `program.compile(...)` calls on a name bound to the program in it (NPU505, a build
  line, (L115)):

      program = Program(src, 'best_local_affine_kernel.cu')     # NPU507 already (pynvrtc)
      ptx = program.compile(['-I/usr/local/cuda/include'])      # build: NVRTC compiles the source here
      m = function.Module(); m.load(bytes(ptx.encode()))         # cupy: NPU507 at the construction

- in the compiler, a raise (or a call of a helper named for raising) under an `if` whose test names NVRTC's header or
  library (`"nvrtc.h"`): the build stops without the CUDA toolkit (label ruling (L66));
- in each file calling the compiler and in the repository modules it imports, each string naming a `.cu` / `.cuh`
  file inside a list, tuple or set literal: the sources of the build (a `.cu` string in a list of a build, (L29));
- each call of a module-level function of the repository that calls `cuda.core.launch(...)`, in the files importing it
  by name (NPU508: the line launching a kernel the project compiled, as a cupy RawKernel launch, (L95)).
"""

from __future__ import annotations

import ast
import re

from migrate.findings import Category, FileResult, Finding, Severity
from migrate.optional_modules import stops_the_program
from migrate.repo_index import module_parts

_PROGRAMS = frozenset({"cuda.core.Program", "cuda.core.experimental.Program", "cuda.bindings.nvrtc.nvrtcCreateProgram",
                       "cuda.nvrtc.nvrtcCreateProgram", "pynvrtc.compiler.Program"})
_LAUNCHES = frozenset({"cuda.core.launch", "cuda.core.experimental.launch"})
_TOOLKIT_FILE = re.compile(r"nvrtc", re.I)
_SOURCE = re.compile(r"\.cuh?$")
_BUILD = "a custom CUDA kernel compiled at run time with NVRTC cannot be built or run on an Ascend NPU; port its " \
         "kernels to Ascend C or replace them with torch / torch_npu ops"


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name, from every import of the file (function-local ones too)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = alias.name
                else:
                    out.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return out


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return ""
    return ".".join([aliases[node.id], *reversed(parts)])


def _calls(node: ast.AST, aliases: dict[str, str], names: frozenset) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and _dotted(n.func, aliases) in names]


def _toolkit_raises(function: ast.AST) -> list[ast.stmt]:
    """The raises under an `if` whose test names NVRTC's header or library (see the module doc)."""
    out = []
    for node in ast.walk(function):
        if isinstance(node, ast.If) and any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                                            and _TOOLKIT_FILE.search(c.value) for c in ast.walk(node.test)):
            out += [s for s in node.body if stops_the_program(s)]
    return out


def _program_compiles(function: ast.AST, aliases: dict[str, str]) -> list[ast.Call]:
    """`program.compile(...)` in `function`, `program` a name it binds to an NVRTC program (`program = Program(src,
    'kernel.cu')`): the call that runs NVRTC on the source (pynvrtc returns the PTX, cuda.core the object code)."""
    programs = {node.targets[0].id for node in ast.walk(function) if isinstance(node, ast.Assign)
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and _dotted(node.value.func, aliases) in _PROGRAMS}
    return [node for node in ast.walk(function) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "compile" and isinstance(node.func.value, ast.Name) and node.func.value.id in programs]


def _compilers(tree: ast.Module, aliases: dict[str, str]) -> tuple[set[str], list[ast.stmt], list[tuple[set[str], list[ast.Call]]]]:
    """The entry names of the file's NVRTC compilers, the toolkit raises in them, and each compiler's entry names with
    its program compile calls."""
    entries: set[str] = set()
    raises: list[ast.stmt] = []
    compiles: list[tuple[set[str], list[ast.Call]]] = []
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] + [tree]:
        methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        compiling = {m.name for m in methods if _calls(m, aliases, _PROGRAMS)}
        if not compiling:
            continue
        raises += [s for m in methods if m.name in compiling for s in _toolkit_raises(m)]
        callers = {m.name for m in methods if isinstance(cls, ast.ClassDef) and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in compiling
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" for n in ast.walk(m))}
        entries |= compiling | callers
        compiles.append((compiling | callers, [c for m in methods if m.name in compiling for c in _program_compiles(m, aliases)]))
    return entries, raises, compiles


_BINDINGS = ("cuda.core", "cuda.bindings", "cuda.nvrtc", "pynvrtc")


def _imports_nvrtc(result: FileResult) -> bool:
    """The file imports one of the modules `_PROGRAMS` / `_LAUNCHES` come from (its `ref` facts)."""
    return any(fact[0] == "ref" and any(fact[1] == m or fact[1].startswith(m + ".") for m in _BINDINGS)
               for fact in result.facts if len(fact) > 1 and isinstance(fact[1], str))


def _launchers(tree: ast.Module, aliases: dict[str, str]) -> set[str]:
    return {f.name for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and _calls(f, aliases, _LAUNCHES)}


def _finding(path: str, node: ast.AST, code: str, message: str) -> Finding:
    return Finding(path, node.lineno, node.col_offset + 1, node.lineno, node.col_offset + 1, code, Severity.ERROR,
                   Category.THIRD_PARTY, message)


def _imported_modules(tree: ast.Module, path: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(module parts, imported names) of each `from X import a, b` of the file, relative ones resolved."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            package = module_parts(path)
            if not path.endswith("__init__.py"):
                package = package[:-1]
            package = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            base = tuple(package) + (tuple(node.module.split(".")) if node.module else ())
        else:
            base = tuple((node.module or "").split("."))
        out.append((base, [a.asname or a.name for a in node.names if a.name != "*"]))
    return out


def _ends_with(parts: tuple[str, ...], module: tuple[str, ...]) -> bool:
    return len(parts) >= 2 and module[-len(parts):] == parts


def report(results: list[FileResult], fresh: dict, max_file_size: int) -> list[FileResult]:
    """The findings of the module doc, added to each file's result."""
    from migrate import engine

    texts: dict[str, str] = {}
    trees: dict[str, ast.Module] = {}

    def tree_of(path: str) -> ast.Module | None:
        if path not in trees:
            data = fresh.get(path)
            text = engine.text_again(path, data, max_file_size)
            try:
                trees[path] = ast.parse(text) if text is not None else None
            except (SyntaxError, ValueError):
                trees[path] = None
            texts[path] = text or ""
        return trees[path]

    python = [r for r in results if r.kind == "python" and r.path.endswith(".py")]
    # the files importing an NVRTC binding or cuda.core (the scan's import facts, kept with a cached result too: a warm
    # run reads the same files; the bytes of the scan are not there for a file from the cache)
    candidates = []
    for result in python:
        if not _imports_nvrtc(result):
            continue
        data = fresh.get(result.path)
        if data is None:
            data = engine._read_target(engine.Target(result.path, ("python",)), max_file_size)
        if isinstance(data, bytes) and (b"Program" in data or (b"launch" in data and b"cuda.core" in data)):
            candidates.append(result.path)  # a program (`Program`, `nvrtcCreateProgram`) or cuda.core's `launch`
    entries: set[str] = set()
    inline: list[tuple[str, set[str], list[ast.Call]]] = []  # (path, a compiler's entry names, its compile calls)
    called: set[str] = set()  # the entry names some `<object>.<entry>(...)` call was reported for
    launchers: dict[tuple[str, ...], set[str]] = {}
    added: dict[str, list[Finding]] = {}
    compiler_files: set[str] = set()
    for path in candidates:
        tree = tree_of(path)
        if tree is None:
            continue
        aliases = _aliases(tree)
        found, raises, compiles = _compilers(tree, aliases)
        if found:
            entries |= found
            compiler_files.add(path)
            added.setdefault(path, []).extend(
                _finding(path, s, "NPU505", "stops the project's run-time CUDA compiler without NVRTC (the CUDA "
                         "toolkit's header or library): a toolkit requirement; " + _BUILD) for s in raises)
            inline += [(path, names, calls) for names, calls in compiles if calls]
        names = _launchers(tree, aliases)
        if names:
            launchers[tuple(module_parts(path))] = names
    if not entries and not launchers:
        return results
    by_module = {tuple(module_parts(r.path)): r.path for r in python}
    callers: set[str] = set()
    for result in python:
        data = fresh.get(result.path)
        if data is None:  # a file from the cache: read again (only in a repository with an NVRTC compiler)
            data = engine._read_target(engine.Target(result.path, ("python",)), max_file_size)
            if not isinstance(data, bytes):
                continue
        if not (any(f".{e}(".encode() in data for e in entries)
                or any(n.encode() in data for names in launchers.values() for n in names)):
            continue
        tree = tree_of(result.path)
        if tree is None:
            continue
        aliases = _aliases(tree)
        found = added.setdefault(result.path, [])
        launched = {local for module, names in _imported_modules(tree, result.path) for local in names
                    for parts, defined in launchers.items() if _ends_with(module, parts) and local in defined}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in entries and result.path not in compiler_files \
                    and not (isinstance(func.value, ast.Name) and func.value.id in aliases):
                callers.add(result.path)
                called.add(func.attr)
                found.append(_finding(result.path, node, "NPU505", f"`.{func.attr}(...)` compiles CUDA sources at "
                                      "run time with the project's NVRTC compiler: " + _BUILD))
            elif isinstance(func, ast.Name) and func.id in launched:
                found.append(_finding(result.path, node, "NPU508", f"`{func.id}(...)` launches a CUDA kernel the "
                                      "project compiled at run time with NVRTC (through cuda.core's `launch`): it "
                                      "cannot run on an NPU host until the kernel is ported to Ascend C or replaced "
                                      "by torch / torch_npu ops"))
    # a compiler no call of which is reported (a module-level function that compiles inline and launches the kernels
    # itself, called by its plain name): its program's compile call is the build line ((L115), label note 53d on
    # FastPhotoStyle's `program.compile([...])`); where its entry's calls are reported, they are (51b: `prog.compile`
    # inside curobo's kernel cache is not labelled)
    for path, names, calls in inline:
        if not names & called:
            added.setdefault(path, []).extend(
                _finding(path, c, "NPU505", f"`{ast.unparse(c.func)}(...)` compiles CUDA source at run time with "
                         "NVRTC: " + _BUILD) for c in calls)
    for path in sorted(callers):
        tree = tree_of(path)
        imported = [where for m, _ in _imported_modules(tree, path) for parts, where in by_module.items()
                    if _ends_with(m, parts)]
        for source_path in {path, *imported}:
            source_tree = tree_of(source_path)
            if source_tree is None:
                continue
            for node in ast.walk(source_tree):
                if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    for element in node.elts:
                        if isinstance(element, ast.Constant) and isinstance(element.value, str) \
                                and _SOURCE.search(element.value):
                            added.setdefault(source_path, []).append(_finding(
                                source_path, element, "NPU505", f"`{element.value}` is a CUDA source of the project's "
                                "run-time NVRTC build: " + _BUILD))
    out = []
    for result in results:
        new = added.get(result.path)
        if new:
            taken = {(f.line, f.code) for f in result.findings}
            unique = {}
            for f in new:
                if (f.line, f.code) not in taken:
                    unique.setdefault((f.line, f.code), f)
            result = result.adding(list(unique.values()))
        out.append(result)
    return out
