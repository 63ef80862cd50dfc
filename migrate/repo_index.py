"""The repository index: custom extensions and op namespaces defined anywhere in a scan, linked to
every file that imports or calls them (NPU508).

Built in the same pass as the per-file analysis: each file's *facts* (what it defines, which module
names and `torch.ops` namespaces it mentions, which dotted names it uses through its imports) are
small, content-derived and cached with its findings. After the scan, `files_to_link` matches them
against definitions and links only the few files that reach a defined name (from their use sites,
`link_sites`, without parsing them again where the index allows: migrate/linking.py), so per-file cached
findings stay correct when another file's definitions change: the cross-file findings are recomputed
whenever the index changes (cached under the file's content and the index digest).
"""

from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from migrate import body_skips, cpu_builds, device_gated_builds, op_register_aliases, source_set_tables
from migrate.context import line_matches, walk_nodes

# ---- facts -----------------------------------------------------------------------------------------
_PY_DEF_HINTS = ("CUDAExtension", "cpp_extension", "torch.library", "Library(", "extra_cuda_cflags", "create_extension", "Extension(",
                 ".cu\"", ".cu'", ".cu.cc\"", ".cu.cc'")  # the last four: a project build helper given `.cu` sources (`_imported_helper_with_cuda_sources`)
# setuptools / distutils extension classes: a plain C/C++ build unless its sources hold CUDA (`.cu`), which a custom
# build_ext hands to nvcc (tf-faster-rcnn lib/setup.py: `Extension('nms.gpu_nms', ['nms/nms_kernel.cu', 'nms/gpu_nms.pyx'],
# extra_compile_args={'gcc': [...], 'nvcc': [...]})` compiled by its customize_compiler_for_nvcc hook)
_CPP_EXTENSION = "torch.utils.cpp_extension.CppExtension"
_PLAIN_EXTENSIONS = frozenset({"setuptools.Extension", "setuptools.extension.Extension", "distutils.extension.Extension",
                               "distutils.core.Extension"})

# the names of a `from` import: a parenthesised list may run over lines and hold comments (`from ..types import (\n A,  # x\n)`)
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)?|[\w., \t*]*)|import[ \t]+([\w., \t]+))", re.M)
# a literal `__all__` (its names: what a star import of the module re-exports, kernel_values.module_reexports)
_ALL = re.compile(r"^__all__[ \t]*\+?=[ \t]*[\[(]([^\])]*)[\])]", re.M)
# `__import__("pkg.mod")`, the builtin behind `import`, is one too (label ruling (L67))
_IMPORT_MODULE = re.compile(r"(?:import_module|__import__)\(\s*[rbu]?['\"]([\w.]+)['\"]")
_IMPORTER_NAME = re.compile(r"=[ \t]*[\w.]*import\w*\([ \t]*['\"]([A-Za-z_][\w.]*)['\"]")  # kernel_values.importer_call
_IMPORT_MODULE_F = re.compile(r"import_module\(\s*f['\"]([^'\"]+)['\"]")
# `_safe_import("._ops_registery", "fused_merge_attn_states")`: a project's import helper given a module relative to the
# calling package (optional_modules.helper_imports reads the helper; vipshop/cache-dit kernels/cutedsl/__init__.py)
_RELATIVE_IMPORTER = re.compile(r"import\w*\(\s*['\"](\.+)([A-Za-z_][\w.]*)['\"]")
_SHARED_LIB = re.compile(r"['\"/\\](?:lib)?(\w+)\.so\b")
# every match of `_SHARED_LIB` holds `.so` ending a word (`.sort`, `.softmax`, `.solve` do not): an exact pre-test
_SO_ENDING = re.compile(r"\.so\b")
# `torch.ops.<ns>` and `torch.classes.<ns>` (the custom classes a `TORCH_LIBRARY(ns, m)` block registers with `m.class_<T>(...)`)
_TORCH_OPS = re.compile(r"torch\.(?:ops|classes)\.(\w+)")
TORCH_NAMESPACE_ROOTS = ("torch.ops.", "torch.classes.")
_CPP_LIBRARY = re.compile(r"\bTORCH_LIBRARY(?:_FRAGMENT)?\s*\(\s*(\w+)")
_CPP_IMPL = re.compile(r"\bTORCH_LIBRARY_IMPL\s*\(\s*(\w+)\s*,\s*(\w+)")
# the legacy registration API, `torch::RegisterOperators("ns::op", &fn)` / `torch::RegisterOperators().op("ns::op", ...)`
# (bevfusion's feature_decorator.cpp): it defines `torch.ops.ns.op` like a `TORCH_LIBRARY(ns, m)` block
_CPP_REGISTER = re.compile(r"\bRegisterOperators\s*\(\s*(?:\)\s*\.\s*op\s*\(\s*)?\"(\w+)::")
_EXT = "torch.utils.cpp_extension"
# calls whose result NPU508 binds to an extension (`ext = load(...)`, `importlib.import_module(...)`, `ctypes.CDLL(...)`)
_BINDING_CALLS = frozenset({f"{_EXT}.load", f"{_EXT}.load_inline", "importlib.import_module", "ctypes.CDLL",
                            "ctypes.cdll.LoadLibrary", "ctypes.PyDLL", "torch.ops.load_library"})


# torch's own op namespaces: never a repository's custom extension
BUILTIN_NAMESPACES = frozenset({
    "aten", "prim", "prims", "quantized", "_quantized", "quantized_decomposed", "profiler", "c10d",
    "_c10d_functional", "_c10d_functional_autograd", "_dtensor", "inductor", "higher_order", "mkldnn",
    "onednn", "torchvision", "image", "debugprims", "rngprims", "_inductor_test", "fsdp", "test", "_test",
})
# the namespaces of torch's own ops: `TORCH_LIBRARY_IMPL(aten, CUDA, m)` in a repository's C++ (FlagGems'
# csrc/aten_patch.cpp) gives CUDA kernels to ops torch defines, which torch_npu implements on the NPU: the calls
# `torch.ops.aten.<op>` stay torch's, no extension's (set 62: FlagGems' `torch.ops.aten.*_backward` calls in its tests are no labels)
TORCH_NAMESPACES = BUILTIN_NAMESPACES - {"torchvision", "image"}


@dataclass(frozen=True)
class Definition:
    kind: str  # "module" (an importable extension) or "namespace" (torch.ops.<ns>)
    name: str
    path: str
    line: int
    cuda: bool  # built with CUDA (nvcc sources, a CUDA dispatch key): error, else warning
    why: str = ""  # kind "export" (NPU510): the CUDA-specific API the name stands for
    mode: str = ""  # kind "export": "alias", "function" or "device" (see migrate/reexports.py)
    # kind "value": a member of the compiled module (`from .ext_cuda import nms` re-exported), not the module itself
    # (kernel_values.member_of); its re-imports through Python modules bind a name, label note 44b b-4
    member: bool = False


def package_dirs(path: str, level: int) -> list[str]:
    """Directory names a relative import of `level` dots resolves against (innermost last)."""
    parts = os.path.normpath(path).replace(os.sep, "/").split("/")[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return [p for p in parts if p and p not in (".", "..")]


def bind_relative_imports(ctx, known) -> bool:
    """Bind in `ctx.imports` each name a relative import brings in whose full dotted name `known`
    accepts (the name resolver leaves relative imports out); True when any was bound."""
    bound = False
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if not statement.level:
            continue
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "")
        for alias in statement.names:
            full = f"{base}.{alias.name}" if base else alias.name
            if "." in full and known(full):
                ctx.bind_import(statement, alias.asname or alias.name, full)
                bound = True
    return bound


def forget_resolved_names(ctx) -> None:
    """After names were bound in `ctx.imports`: drop what was resolved without them."""
    ctx.__dict__.pop("_npu_chain_tops", None)
    ctx.__dict__.pop("_npu_extension_class_variables", None)
    ctx.__dict__.pop("_npu_functions_building_cuda", None)
    ctx._qualname_cache.clear()


def _resolve_relative(path: str, dots: str, module: str) -> str:
    dirs = package_dirs(path, len(dots))
    base = dirs[-1] if dirs else ""
    return ".".join(p for p in (base, module) if p)


def python_refs(path: str, text: str) -> list[str]:
    """Module names imported (statically or with importlib and a literal) and `ops:<ns>` for each
    `torch.ops.<ns>` mentioned: a cheap superset, confirmed on the syntax tree by `link`."""
    return import_facts(path, text)[0]


def import_facts(path: str, text: str) -> tuple[list[str], list[tuple[str, int]]]:
    """`python_refs` and the open-world import roots (`deps.import_roots`: (top-level name, first
    line) of each absolute import) from one pass of the import pattern over the text."""
    refs: set[str] = set()
    roots: dict[str, int] = {}
    if "import" in text:
        line, position = 1, 0
        for match in line_matches(_IMPORT, text, "import"):  # `^` tried only where a line holds `import`
            dots, module, names, plain = match.groups()
            if not dots:
                line += text.count("\n", position, match.start())
                position = match.start()
            if plain is not None:
                for item in plain.split(","):
                    words = item.split()
                    if words:
                        refs.add(words[0])
                        _add_root(roots, words[0], line)
                continue
            base = _resolve_relative(path, dots, module) if dots else module
            if not dots:
                _add_root(roots, module, line)
            if base:
                refs.add(base)
            if names.startswith("("):
                names = re.sub(r"#[^\n]*", "", names).strip("()")
            for item in names.split(","):
                words = item.split()
                if words and base:
                    refs.add(f"{base}.{words[0]}")
        for match in _IMPORT_MODULE.finditer(text):  # importlib.import_module("pkg.mod"): an import too
            refs.add(match.group(1))
            if not match.group(1).startswith("."):
                _add_root(roots, match.group(1), text.count("\n", 0, match.start()) + 1)
        refs.update("re:" + p for p in map(fstring_pattern, _IMPORT_MODULE_F.findall(text)) if p)
        if "exec(" in text or "import *" in text:  # `import_module(__cuda_pkg_name__)` (migrate/shared_names.py)
            from migrate.shared_names import text_references

            refs.update(text_references(text))
        # `ops = import_extension("ops_cuda")`: the project's import helper given the module's last name
        # (kernel_values.importer_call): an extension of the scan whose dotted name ends with it
        refs.update("re:" + re.escape(m) for m in _IMPORTER_NAME.findall(text) if not m.startswith("__"))
        refs.update(_resolve_relative(path, dots, module) for dots, module in _RELATIVE_IMPORTER.findall(text))
    if "__all__" in text:
        for match in _ALL.finditer(text):
            refs.update("all:" + name for name in re.findall(r"['\"](\w+)['\"]", match.group(1)))
    if ".so" in text and _SO_ENDING.search(text):  # ctypes.CDLL("build/libfoo.so"), torch.ops.load_library(...): a shared library the scan may build
        refs.update("so:" + stem for stem in _SHARED_LIB.findall(text))
    if "torch.ops." in text or "torch.classes." in text:
        refs.update("ops:" + ns for ns in _TORCH_OPS.findall(text))
    kept = sorted(r for r in refs if r.startswith(("ops:", "re:", "so:")) or not _never_an_extension(r))
    return kept, sorted(roots.items(), key=lambda item: (item[1], item[0]))


def _add_root(roots: dict[str, int], name: str, line: int) -> None:
    root = name.split(".", 1)[0]
    if root and root.isidentifier() and root not in roots:
        roots[root] = line


# a hole whose value is a dotted module path (`{__name__}`, `{__package__}`, `{__spec__.parent}`)
_DOTTED_HOLE = re.compile(r"__(?:name|package|spec)__")
# a hole of a build's own f-string name as `extension_name` renders it (`pkg._{cc}_C`)
_BUILD_HOLE = re.compile(r"\{[^{}]*\}")


@lru_cache(maxsize=4096)  # `Index.module_for` asks it per build name and reference (torch: 15,660 calls)
def fstring_pattern(template: str) -> str | None:
    """A regular expression for the module names an f-string template can produce
    (`{pkg}._cuda` -> `\\w+\\._cuda`); None when it has no literal part to pin it. A hole stands for one name part
    (no dots: `basicsr.models.{file_name}` names a module of that package, not every module below it, NAFNet
    basicsr/models/__init__.py:22) unless its value is a dotted module path (`{__package__}._cuda`); a leading hole
    still matches the tail of a dotted name (`Index.module_matching` tries every dotted suffix)."""
    holes = re.findall(r"\{([^{}]*)\}", template)
    parts = re.split(r"\{[^{}]*\}", template)
    if not "".join(parts).strip("._"):
        return None
    out = re.escape(parts[0])
    for hole, part in zip(holes, parts[1:]):
        out += (r"[\w.]+" if _DOTTED_HOLE.search(hole) else r"\w+") + re.escape(part)
    return out


def library_stem(text: str) -> str | None:
    """`build/libfoo.so` -> `foo`, `_C.so` -> `_C`: the target a shared library file is built from."""
    match = _SHARED_LIB.search("/" + text)
    return match.group(1) if match else None


STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def _never_an_extension(module: str) -> bool:
    root = module.split(".", 1)[0]
    return root in STDLIB or root == "torch" or root == "__future__"


def extension_class_variables(ctx) -> frozenset[str]:
    """Names bound to `CUDAExtension` by assignment: `extension = CUDAExtension` or
    `Ext = CUDAExtension if use_cuda else CppExtension` (Deformable-DETR / mmcv-style setup.py).
    Computed once per context: `kernel_values.helper_builds` asks once per function of the file,
    which made a file's facts quadratic in its size (torch's common_utils.py: 439 functions x 2,000
    assignments, 0.6 s)."""
    cached = ctx.__dict__.get("_npu_extension_class_variables")
    if cached is not None:
        return cached
    ctx.__dict__["_npu_extension_class_variables"] = out = names_bound_to(ctx, f"{_EXT}.CUDAExtension")
    return out


def names_bound_to(ctx, qualname: str) -> frozenset[str]:
    """Names some assignment of the file binds to `qualname`, also as either side of a conditional expression
    (`Ext = CUDAExtension if use_cuda else CppExtension`)."""
    out: set[str] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        values = [statement.value]
        if isinstance(statement.value, ast.IfExp):
            values = [statement.value.body, statement.value.orelse]
        if any(ctx.qualname(v) == qualname for v in values):
            out.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return frozenset(out)


def python_defs(ctx) -> list[Definition]:
    """Extensions built and op namespaces registered by one Python module; computed once per
    context (the per-file facts and NPU508's own check both ask)."""
    cached = ctx.__dict__.get("_python_defs")
    if cached is None:
        cached = ctx.__dict__["_python_defs"] = _python_defs(ctx)
    return list(cached)


def _python_defs(ctx) -> list[Definition]:
    from migrate import called_kernels, default_kernels, kernel_values, lazy_backends, loader_objects

    out: list[Definition] = []
    if any(hint in ctx.source for hint in _PY_DEF_HINTS):  # no build or registration without one of these words
        out = _build_defs(ctx)
        built, templates = kernel_values.helper_builds(ctx)
        if templates:  # the helper's own `extension(name=f"{module}.{name}")` is a template, not a module
            out = [d for d in out if not (d.kind == "module" and d.line in templates)]
        out += built
        out += kernel_values.module_values(ctx, out)
        out += loader_objects.builder_values(ctx, out)  # `CUDA_COMPLIER.complie()` elsewhere runs the build
    if any(hint in ctx.source for hint in kernel_values.WRAPPER_HINTS):
        out += kernel_values.wrapper_values(ctx, out)
    if any(hint in ctx.source for hint in called_kernels.HINTS):
        out += called_kernels.called_values(ctx)
    if lazy_backends.HINT in ctx.source:
        out += lazy_backends.lazy_values(ctx)
    if default_kernels.HINT in ctx.source and ("register_kernel" in ctx.source or "library.impl" in ctx.source):
        out += default_kernels.default_defs(ctx)  # a namespace served on any device (migrate/default_kernels.py)
    if kernel_values.loads_values(ctx.source):
        out += kernel_values.loaded_values(ctx)
    if "from ." in ctx.source and "cuda" in ctx.source:  # an absent CUDA-named module (migrate/absent_cuda_modules.py)
        from migrate import absent_cuda_modules

        out += absent_cuda_modules.facts(ctx)
    if kernel_values.is_package_init(ctx.path):
        out += kernel_values.package_reexports(ctx)
    elif " as " in ctx.source and kernel_values.ALIAS_HINT.search(ctx.source):
        out += kernel_values.module_aliases(ctx)
    if "import" in ctx.source and kernel_values.OP_ALIAS_LINE.search(ctx.source):
        out += kernel_values.op_alias_values(ctx)  # `ml_nms = _C.ml_nms`: another module imports the op by that name
    return out


def plain_cuda_extension(ctx, call, name) -> bool:
    """A setuptools / distutils `Extension(name, sources, ...)` whose sources name a `.cu` file: a CUDA build
    (a custom build_ext compiles the `.cu` with nvcc; the class alone builds plain C/C++). A torch `CppExtension` with
    a `.cu` source too: torch's `BuildExtension` picks the compiler per source file, not per class, and compiles each
    `.cu`/`.cuh` with nvcc (pytorch/pytorch torch/utils/cpp_extension.py, `BuildExtension.build_extensions` ->
    `unix_wrap_single_compile`: `if _is_cuda_file(src): nvcc = [... _join_cuda_home('bin', 'nvcc')]`, and
    `_is_cuda_file` is `os.path.splitext(path)[1] in ['.cu', '.cuh']`): hahnyuan/TorchQuantExtension setup.py
    `cpp_extension.CppExtension("torch_quant_ext", ["quant_tensor_cuda.cpp", "quant_tensor_cuda_kernel.cu"])`."""
    if name not in _PLAIN_EXTENSIONS and name != _CPP_EXTENSION:
        return False
    sources = ctx.keyword(call, "sources")
    if sources is None and len(call.args) > 1:
        sources = call.args[1]
    return sources is not None and (any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().endswith((".cu", ".cuh"))
        for node in walk_nodes(sources)) or bool(followed_cuda_sources(ctx, call)))


def followed_cuda_sources(ctx, call) -> list[ast.Constant]:
    """The `.cu` / `.cuh` strings of the module-level variables a build call's source list reads, each bound once
    (NVlabs/cule setup.py: `sources = [os.path.join('torchcule', f) for f in ['frontend.cpp', 'backend.cu']]`,
    then `Extension('torchcule_atari', sources=sources, ...)`)."""
    sources = ctx.keyword(call, "sources")
    if sources is None and len(call.args) > 1:
        sources = call.args[1]
    if sources is None:
        return []
    # the variables of the build's own function too, one more step through what they read (3dgrut-style setup_*.py:
    # `source_files = ["a.cpp", "k.cu"]`, `source_paths = [os.path.join(root, f) for f in source_files]`, then
    # `jit.load(name="m", sources=source_paths)`); each name bound once in its scope
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    scopes = [ctx.tree.body]
    if function is not None:
        scopes.insert(0, [n for n in walk_nodes(function) if isinstance(n, ast.Assign)
                          and ctx.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) is function])
    out: list[ast.Constant] = []
    seen: set[str] = set()
    frontier = [sources]
    for _ in range(2 if function is not None else 1):
        names = [n for n in dict.fromkeys(node.id for f in frontier for node in walk_nodes(f) if isinstance(node, ast.Name))
                 if n not in seen]
        seen.update(names)
        frontier = []
        for name in names:
            for statements in scopes:
                values = [statement.value for statement in statements if isinstance(statement, ast.Assign)
                          and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)]
                if values:
                    break
            if len(values) == 1:
                frontier.append(values[0])
                out += [node for node in walk_nodes(values[0]) if isinstance(node, ast.Constant)
                        and isinstance(node.value, str) and node.value.strip().endswith((".cu", ".cuh"))]
    return out


def _cmake_extension_classes(ctx) -> frozenset[str]:
    """Classes of a setup.py that drive a CMake build: a subclass of an `...Extension` whose `__init__` hands
    its base no sources (`super().__init__(name, sources=[])`), in a file that runs cmake (IST-DASLab/QUIK
    setup.py: `class CMakeExtension(Extension)`, built by a `build_ext` subclass running `cmake --build`)."""
    if "cmake" not in ctx.source.lower():
        return frozenset()
    out = set()
    for node in ctx.nodes.get(ast.ClassDef, ()):
        if not any((b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")).endswith("Extension") for b in node.bases):
            continue
        for call in walk_nodes(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__":
                sources = ctx.keyword(call, "sources")
                if isinstance(sources, (ast.List, ast.Tuple)) and not sources.elts:
                    out.add(node.name)
    return frozenset(out)


def _cmake_extension_defs(ctx) -> list[Definition]:
    """Kind "cmakeext": each call of a CMake-driving extension class (`_cmake_extension_classes`), its dotted
    module name, and (in `why`) the CMake target it builds: `target=` when given, else the name's last part
    (`CMakeExtension('quik._C', source_dir=HERE)` -> `_C`); `build_index` links it to that target."""
    classes = _cmake_extension_classes(ctx)
    out = []
    for call in ctx.nodes.get(ast.Call, ()) if classes else ():
        if isinstance(call.func, ast.Name) and call.func.id in classes:
            module = extension_name(ctx, call)
            target = ctx.keyword(call, "target")
            target = ctx.string_value(target) if target is not None else None
            if module:
                out.append(Definition("cmakeext", module, ctx.path, call.lineno, False, target or module.rsplit(".", 1)[-1]))
    return out


def _build_defs(ctx) -> list[Definition]:
    out: list[Definition] = _cmake_extension_defs(ctx)
    variables = extension_class_variables(ctx)
    source_sets = source_set_tables.class_variables(ctx)
    cpu_variables = cpu_builds.cpu_class_variables(ctx) if variables else frozenset()
    # `register_op = torch.library.custom_op` chosen at import time (migrate/op_register_aliases.py)
    registrations = op_register_aliases.registration_aliases(ctx) if "torch.library" in ctx.source else {}
    for call in ctx.nodes.get(ast.Call, ()):
        name = ctx.qualname(call.func)
        if name is None and isinstance(call.func, ast.Name) and call.func.id in registrations:
            name = registrations[call.func.id]
        if name is None and isinstance(call.func, ast.Name) and call.func.id in variables:
            name = f"{_EXT}.CUDAExtension"  # called through the variable it was assigned to
            if call.func.id in cpu_variables:  # also bound to CppExtension: a CPU build of it too (migrate/cpu_builds.py)
                module = extension_name(ctx, call)
                if module:
                    out.append(Definition(cpu_builds.KIND, cpu_builds.row(module), ctx.path, call.lineno, False))
        if jit_cuda_build_wrapper(ctx, call, name):
            module = extension_name(ctx, call, WRAPPER_NAME_KEYWORDS) or _computed_name(ctx, call)
            if module:
                out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call)))
            helper = _helper_name(ctx, call)
            if helper and not device_gated_builds.in_builder(ctx, call):  # built only for CUDA tensors: not a helper use  # the helper's own body (another module) builds CUDA: `CudaExtension.uses` reports it there
                out.append(Definition("jithelper", helper, ctx.path, call.lineno, True))
            continue
        if name is None and isinstance(call.func, ast.Name) and call.func.id in source_sets:
            module = extension_name(ctx, call)  # `Extension = SOURCE_SETS[target][0]` (migrate/source_set_tables.py)
            if module:
                out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call)))
                out.extend(Definition(source_set_tables.KIND, row, ctx.path, call.lineno, False)
                           for row in source_set_tables.cpu_rows(module, source_sets[call.func.id]))
            continue
        if name is None:
            continue
        if plain_cuda_extension(ctx, call, name):
            module = extension_name(ctx, call)
            if module:
                followed = " ".join(dict.fromkeys(node.value.strip() for node in followed_cuda_sources(ctx, call)))
                out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call) or followed))
            continue
        if name in _PLAIN_EXTENSIONS or name == f"{_EXT}.CppExtension":
            libraries = _linked_libraries(ctx, call)
            module = extension_name(ctx, call)
            if module and libraries:  # `link_cmake_modules` makes it a CUDA build when it links a CMake CUDA target
                out.append(Definition("extlink", module, ctx.path, call.lineno, False, " ".join(libraries)))
            elif module:  # a CPU build of that name: `Index._misplaced` never takes it for another package's CUDA module
                out.append(Definition("cpuext", module, ctx.path, call.lineno, False))
            continue
        if name == f"{_EXT}.CUDAExtension" or name in (f"{_EXT}.load", f"{_EXT}.load_inline"):
            module = extension_name(ctx, call)
            if module is None and not name.endswith("CUDAExtension"):
                module = file_computed_name(ctx, call)
            if module and (name.endswith("CUDAExtension") or _jit_with_cuda(ctx, call)):
                out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call)))
        elif name == "torch.utils.ffi.create_extension":
            from migrate.rules.npu505_cuda_extension import ffi_with_cuda

            module = extension_name(ctx, call)
            if module and ffi_with_cuda(ctx, call):
                # torch < 1.0's cffi builder: the package `_ext.op` (its generated `__init__` wraps the
                # functions) around the compiled library `_ext.op._op`, which that `__init__` imports
                out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call)))
                out.append(Definition("module", f"{module}._{module.rsplit('.', 1)[-1]}", ctx.path, call.lineno, True, cuda_sources(call)))
        elif name in ("torch.library.Library", "torch.library.define", "torch.library.custom_op", "torch.library.impl"):
            text = _module_string(ctx, call.args[0]) if call.args else None
            if text is None and call.args and name in op_register_aliases.REGISTRATIONS:
                text = op_register_aliases.name_pattern(call.args[0])  # `f"ns::na{dim}d_forward"` from a factory
                if text and _python_implementation(ctx, call, name):
                    out.append(Definition("opimpl", text, ctx.path, call.lineno, False, "python"))
                continue
            if not text or text.split("::", 1)[0] in BUILTIN_NAMESPACES:
                continue
            namespace = text.split("::", 1)[0]
            second = (ctx.string_value(call.args[1]) if len(call.args) > 1 else None) or ""
            if name == "torch.library.Library" and second.upper() == "IMPL":
                continue  # implements ops of a namespace defined elsewhere
            if name in ("torch.library.impl", "torch.library.custom_op"):
                op = text.split("::", 1)[1].split(".", 1)[0] if "::" in text else ""
                if op:  # who implements the op: a Python function of the repository, or something else
                    out.append(Definition("opimpl", f"{namespace}::{op}", ctx.path, call.lineno, False,
                                          "python" if _python_implementation(ctx, call, name) else "other"))
            cuda = name == "torch.library.impl" and "cuda" in second.lower()
            if name == "torch.library.impl" and not cuda:
                continue
            out.append(Definition("namespace", namespace, ctx.path, call.lineno, cuda))
    return out


def _linked_libraries(ctx, call) -> list[str]:
    """The literal `libraries=[...]` an extension links (`CppExtension('pkg.m', ['b.cpp'], libraries=['warprnnt'])`)."""
    node = ctx.keyword(call, "libraries")
    if not isinstance(node, (ast.List, ast.Tuple)):
        return []
    return [text for e in node.elts if (text := ctx.string_value(e)) and re.fullmatch(r"[\w.+-]+", text)]


def _module_string(ctx, node) -> str | None:
    """A string literal, or a module-level name bound once to one (xDiT inductor_passes.py: `_REALIZE_OP_NAME =
    "xfuser::_realize_for_inductor"` then `@torch.library.custom_op(_REALIZE_OP_NAME, ...)`)."""
    text = ctx.string_value(node)
    if text is not None or not isinstance(node, ast.Name):
        return text
    bound = [s.value for s in ctx.tree.body if isinstance(s, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == node.id for t in s.targets)]
    return ctx.string_value(bound[0]) if len(bound) == 1 else None


def _python_implementation(ctx, call, name: str) -> bool:
    """`torch.library.impl("ns::op", key)` / `custom_op("ns::op", ...)` registers a Python function of this
    file as the op's implementation: used as a decorator of a `def`, applied to one
    (`impl("ns::op", key)(fn)`), or given one (`impl("ns::op", key, fn)`, a lambda, `func=fn`). The
    function's body holds whatever kernel it calls (reported there); `impl("ns::op", key, _C.op)` hands
    over the compiled op itself."""
    parent = ctx.parent(call)
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and call in parent.decorator_list:
        return True
    position = 2 if name == "torch.library.impl" else 1
    given = call.args[position] if len(call.args) > position else ctx.keyword(call, "func") or ctx.keyword(call, "fn")
    if given is None and isinstance(parent, ast.Call) and parent.func is call and parent.args:
        given = parent.args[0]
    if isinstance(given, ast.Lambda):
        return True
    return isinstance(given, ast.Name) and ctx.qualname(given) is None and any(
        f.name == given.id for f in ctx.nodes.get(ast.FunctionDef, ()))


def cuda_sources(call) -> str:
    """The CUDA source files a build call lists (string literals ending in .cu / .cuh anywhere in its
    arguments), space-separated: a kernel's own source list (`deps.kernels_to_port`)."""
    return " ".join(dict.fromkeys(
        node.value.strip() for node in walk_nodes(call)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().endswith(CUDA_SOURCE_SUFFIXES)
        and " " not in node.value.strip()))


# The keywords a project's JIT-build helper takes the extension's name by: `name=` as cpp_extension.load
# itself, `module_name=` (StyleGAN3's `custom_ops.get_plugin(module_name='bias_act_plugin', sources=...)`;
# StyleGAN2-ADA passes the same name positionally), and the `ext_name=` / `extension_name=` / `relative_name=` spellings
# (`get_cuda_extension(path, relative_name="ops_cuda", relative_sources=[...])`, the name under a package prefix).
WRAPPER_NAME_KEYWORDS = ("name", "module_name", "ext_name", "extension_name", "relative_name")


def extension_name(ctx, call, keywords: tuple[str, ...] = ("name",)) -> str | None:
    """The module name a build call gives its extension: the first of `keywords` it is given (`name=`), or
    the first argument, a literal or an f-string rendered with its fields (`f"wkv_{T_MAX}"` -> `wkv_{T_MAX}`:
    not importable by that spelling, but the variable the build is assigned to is still linked to it)."""
    node = next((k for k in map(lambda key: ctx.keyword(call, key), keywords) if k is not None), None) \
        or (call.args[0] if call.args else None)
    text = ctx.string_value(node) if node is not None else None
    if text is None and isinstance(node, ast.Name):
        text = _module_constant(ctx, node.id)  # exllama: `extension_name = "exllama_ext"` ... `load(name=extension_name)`
        if text is None:  # `CUDAExtension(__cuda_pkg_name__, ...)` after `exec(open('pkg/version.py').read())`
            from migrate.shared_names import shared_name

            text = shared_name(ctx, node)
    if text is None and isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            # flute: `LIBRARY_NAME = "flute"` ... `CUDAExtension(f"{LIBRARY_NAME}._C", ...)` -> `flute._C`
            constant = (_module_constant(ctx, value.value.id) if isinstance(value.value, ast.Name)
                        and value.format_spec is None and value.conversion in (-1, 115) else None)
            if constant is not None:
                parts.append(constant)
            else:
                parts.append("{" + (ctx.segment(value.value) or "...") + "}")
        text = "".join(parts)
    return text or None


def _helper_name(ctx, call) -> str | None:
    """The dotted name of the project function a JIT-build helper call calls, resolved through the file's imports,
    relative ones too (`from .. import custom_ops` ... `custom_ops.get_plugin(...)` in `pkg/torch_utils/ops/bias_act.py`
    -> `pkg.torch_utils.custom_ops.get_plugin`); None for a function of this file or one not imported."""
    from migrate.kernel_values import _chain, _imported_names

    chain = _chain(call.func)
    if chain is None:
        return None
    base = _imported_names(ctx).get(chain[0])
    if base is None or base.split(".", 1)[0] in ("torch", "setuptools", "distutils"):
        return None
    return ".".join([base, *chain[1]])


def _computed_name(ctx, call) -> str | None:
    """`{config.function}` for a build helper given a computed name (`load(name=config.function, sources=[...])`,
    NX-AI/xlstm): not importable by that spelling (braces), but the build is listed among the kernels to port."""
    node = next((k for k in map(lambda key: ctx.keyword(call, key), WRAPPER_NAME_KEYWORDS) if k is not None), None)
    text = ctx.segment(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) else None
    return "{" + text + "}" if text and "\n" not in text else None


def file_computed_name(ctx, call, node=None) -> str | None:
    """`{build_params.name}@pkg/ops/build` for a JIT build `load(name=build_params.name, ...)` whose name is computed
    (gsplat's four build.py files each load `name=build_params.name`): the computed text, qualified by the module
    that builds it, so that two files building under the same expression stay two extensions. Not importable by
    that spelling; the functions returning the build (kernel_values.wrapper_values) and the loaders bound to them
    (migrate/lazy_backends.py) carry it to the code that calls its ops. `node`: the name expression itself
    (`_import_module_from_library(build_params.name, ...)` loading the same build)."""
    if node is None:
        node = ctx.keyword(call, "name") or (call.args[0] if call.args else None)
    text = ctx.segment(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) else None
    # the module's path, with slashes: a dotted qualifier would let an import ending like it reach the build
    # (`Index.module_for` matches dotted suffixes: `from .kernels.cuda.build import f` in another package)
    where = "/".join(module_parts(ctx.path))
    return "{" + text + "}@" + where if text and "\n" not in text and where else None


def _module_constant(ctx, name: str) -> str | None:
    """The string a module-level name is bound to, when the file binds it exactly once, to a literal."""
    values = [statement.value for statement in ctx.tree.body if isinstance(statement, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)]
    if len(values) == 1 and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str):
        return values[0].value
    return None


def jit_cuda_build_wrapper(ctx, call, name: str | None) -> bool:
    """A call that is not `cpp_extension.load` itself but passes it nvcc flags (`extra_cuda_cflags=`,
    a keyword only `load` / `load_inline` take): a project helper that JIT-builds a CUDA extension
    (StyleGAN2-ADA's `custom_ops.get_plugin('bias_act_plugin', sources=..., extra_cuda_cflags=[...])`)."""
    if name is not None and name.startswith(_EXT + "."):
        return False
    if _holds_only(ctx, call, name):
        return False
    extra = ctx.keyword(call, "extra_cuda_cflags")
    if extra is not None and not (isinstance(extra, ast.Constant) and extra.value is None):
        return True
    return _imported_helper_with_cuda_sources(ctx, call, name)


# builtins that only hold what they are given (a record of build parameters, not a build)
_HOLDERS = frozenset({"dict", "tuple", "list", "set", "frozenset"})


def _holds_only(ctx, call, name: str | None) -> bool:
    """A standard-library or builtin constructor that only holds the build's parameters: gsplat's build.py returns
    `SimpleNamespace(name=name, sources=sources, extra_cuda_cflags=extra_cuda_cflags, ...)` for the function that then
    calls `jit.load(...)` with them (set 24b); `dict(extra_cuda_cflags=...)` likewise. No project helper, no build."""
    if name is not None:
        return name.split(".", 1)[0] in STDLIB
    return isinstance(call.func, ast.Name) and call.func.id in _HOLDERS and not any(
        f.name == call.func.id for f in ctx.nodes.get(ast.FunctionDef, ()))


def _imported_helper_with_cuda_sources(ctx, call, name: str | None) -> bool:
    """A call of a function defined in another module of the project given `sources=[...]` that lists `.cu` files
    (NX-AI/xlstm slstm/cell.py: `from .src.cuda_init import load` ... `load(name=config.function, sources=[...
    "slstm_forward.cu", ...])`, whose body hands them to cpp_extension.load): a JIT build of those CUDA sources.
    Not an extension class (`*Extension`, setuptools / distutils / torch), nor a helper of the same file
    (`kernel_values.build_helpers` reads those with their body). The helper's own spelling of the keyword counts
    too, one ending in `_sources` (bitorch-engine style `get_cuda_extension(path, relative_name="ops_cuda",
    relative_sources=["ops.cpp", "ops_kernel.cu"])`, whose body joins them and returns `CUDAExtension(...)`)."""
    if own_cuda_source(call) is not None:
        return _project_callee(ctx, call, name)
    sources = ctx.keyword(call, "sources")
    if sources is None:
        sources = next((k.value for k in call.keywords if k.arg and k.arg.endswith("_sources")), None)
        if sources is None:
            sources = _positional_cuda_sources(call)
        if sources is None or not _cuda_literal(sources):
            return False
    elif not (_cuda_literal(sources) or followed_cuda_sources(ctx, call)):
        return False
    if name is not None and name.split(".", 1)[0] in ("torch", "setuptools", "distutils", "numpy", "Cython"):
        return False
    last = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id if isinstance(call.func, ast.Name) else ""
    if not last or last.endswith("Extension") or last in extension_class_variables(ctx):
        return False
    if isinstance(call.func, ast.Name) and any(f.name == last for f in ctx.nodes.get(ast.FunctionDef, ())):
        return False
    if isinstance(call.func, ast.Name):  # imported from a module (a relative import gives no qualified name)
        return any(alias.asname == last or (alias.asname is None and alias.name == last)
                   for statement in ctx.nodes.get(ast.ImportFrom, ()) for alias in statement.names) \
            or (sources is _positional_cuda_sources(call) and _unbound(ctx, last))
    return name is not None


def own_cuda_source(call):
    """The one argument of a call that is the calling module's own CUDA source, its path computed from `__file__`
    with the `.cu` suffix: StyleGAN2's TensorFlow ops (NVlabs/stylegan2 dnnlib/tflib/ops/fused_bias_act.py,
    upfirdn_2d.py) build their plugin with `custom_ops.get_plugin(os.path.splitext(__file__)[0] + '.cu')`, whose
    body runs nvcc on that file and loads the result with `tf.load_op_library` (dnnlib/tflib/custom_ops.py). The
    argument, or None."""
    if len(call.args) != 1 or call.keywords:
        return None
    argument = call.args[0]
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Add) \
            and isinstance(argument.right, ast.Constant) and argument.right.value == ".cu" \
            and any(isinstance(n, ast.Name) and n.id == "__file__" for n in walk_nodes(argument.left)):
        return argument
    return None


def _project_callee(ctx, call, name: str | None) -> bool:
    """The callee is a function of another module of the project: reached through a name that a relative import
    binds (`from .. import custom_ops` ... `custom_ops.get_plugin(...)`; relative imports give no qualified name) or
    an absolute import of a module that is neither the standard library nor torch / TensorFlow / setuptools."""
    if name is not None:
        return name.split(".", 1)[0] not in STDLIB | {"torch", "tensorflow", "setuptools", "distutils", "numpy"}
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    return any((alias.asname or alias.name) == root.id for statement in ctx.nodes.get(ast.ImportFrom, ())
               if statement.level for alias in statement.names)


# a project JIT-build helper's own switch for its CUDA path (`load_pb11(srcs, target, cwd, cuda=True)`), as `with_cuda=`
CUDA_SWITCH_KEYWORDS = frozenset({"cuda", "with_cuda", "use_cuda", "enable_cuda"})
# CUDA source names: `.cu` / `.cuh`, and TensorFlow's `.cu.cc` (a CUDA unit compiled by nvcc:
# https://www.tensorflow.org/guide/create_op#compile_the_op_using_your_system_compiler, `cuda_op_kernel.cu.cc`)
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh", ".cu.cc")


def _positional_cuda_sources(call):
    """The literal source list a helper takes first, positionally (Det3D-style `load_pb11(["./nms_kernel.cu.cc",
    "./nms.cc"], target, cwd, cuda=True)`): read only where the call also switches the helper's CUDA path on
    (`cuda=True`) or a source is a plain `.cu` file, so that a list of `.cu.cc` names alone (data, a glob) is no build."""
    if not call.args or not isinstance(call.args[0], (ast.List, ast.Tuple)):
        return None
    switched = any(k.arg in CUDA_SWITCH_KEYWORDS and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in call.keywords)
    plain = any(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.strip().endswith((".cu", ".cuh"))
                for e in call.args[0].elts)
    return call.args[0] if switched or plain else None


def _unbound(ctx, name: str) -> bool:
    """A name the file calls but never binds (no import, definition, assignment or parameter) and that is no builtin:
    a helper the module expects from elsewhere in the project (Det3D's nms_cpu.py calls `load_pb11(...)` without
    importing it; its sibling nms_gpu.py imports it from the project's buildtools)."""
    import builtins

    if hasattr(builtins, name):
        return False
    for node in walk_nodes(ctx.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return False
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.arg) and node.arg == name:
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".", 1)[0]) == name or a.name == "*" for a in node.names):
            return False
    return True


def _cuda_literal(node) -> bool:
    return any(isinstance(sub, ast.Constant) and isinstance(sub.value, str)
               and sub.value.strip().endswith(CUDA_SOURCE_SUFFIXES) and "\n" not in sub.value
               for sub in walk_nodes(node))


def forwarded_keywords(ctx, call) -> dict[str, ast.AST]:
    """The keywords a call receives through `**name` where `name` is bound, in the call's function (or module), to
    a dict literal (NX-AI/xlstm slstm/src/cuda_init.py: `myargs = {"verbose": True, "with_cuda": True,
    "extra_cuda_cflags": [...]}` then `_load(name + suffix, sources, **myargs)`): literal key -> value node."""
    out: dict[str, ast.AST] = {}
    names = {k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)}
    if not names:
        return out
    from migrate.rules._loop import enclosing_scope

    scope = enclosing_scope(ctx, call)
    for node in walk_nodes(scope):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and t.id in names for t in node.targets):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out.setdefault(key.value, value)
    return out


# a torch CUDA runtime library a C++-only build links by name (`["c10_cuda", "torch_cuda"]`, `-lcudart`, `libtorch_cuda.so`)
_CUDA_LIBRARY = re.compile(r"^(?:-l|lib)?(?:c10_cuda|torch_cuda|cudart)(?:\.so|\.lib)?$")


def cuda_link_nodes(ctx, call) -> list[ast.AST]:
    """What makes a JIT build of C++ sources only a CUDA build (gsplat's scene extension, label ruling 24b-8): its CUDA
    headers, `cpp_extension.include_paths("cuda")` (`include_paths(cuda=True)` before torch 2.6), and the torch CUDA
    libraries it links by name (`torch_cuda_libs = ["c10_cuda", "torch_cuda"]` joined into `extra_ldflags`). Read in
    the build call's function and in the functions of the same file that function calls by name (`params =
    get_build_parameters()`, which gathers them into a `SimpleNamespace`); the `hip` libraries of a ROCm branch are no
    CUDA. Such a module runs CUDA code through the headers' API (streams, allocators, kernels of torch_cuda) and does
    not load where torch has no CUDA."""
    from migrate.rules._loop import enclosing_scope

    scope = enclosing_scope(ctx, call)
    if isinstance(scope, ast.Module):
        return []
    functions = {f.name: f for f in ctx.tree.body if isinstance(f, ast.FunctionDef)}
    called = [functions[n.func.id] for n in walk_nodes(scope) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name) and n.func.id in functions and functions[n.func.id] is not scope]
    out: list[ast.AST] = []
    for function in [scope, *dict.fromkeys(called)]:
        for node in walk_nodes(function):
            if isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").endswith("cpp_extension.include_paths") and (
                    any(isinstance(a, ast.Constant) and a.value == "cuda" for a in node.args)
                    or any(k.arg in ("cuda", "device_type") and isinstance(k.value, ast.Constant)
                           and k.value.value in (True, "cuda") for k in node.keywords)):
                out.append(node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _CUDA_LIBRARY.match(node.value):
                out.append(node)
    return out


def _jit_with_cuda(ctx, call) -> bool:
    with_cuda = ctx.keyword(call, "with_cuda")
    if isinstance(with_cuda, ast.Constant) and with_cuda.value is True:
        return True
    forwarded = forwarded_keywords(ctx, call)
    if forwarded and ((isinstance(forwarded.get("with_cuda"), ast.Constant) and forwarded["with_cuda"].value is True)
                      or "extra_cuda_cflags" in forwarded or "cuda_sources" in forwarded):
        return True
    if ctx.keyword(call, "cuda_sources") is not None:
        return True
    extra = ctx.keyword(call, "extra_cuda_cflags")
    if extra is not None and not (isinstance(extra, ast.Constant) and extra.value is None):
        return True  # nvcc flags: the sources include CUDA
    for node in walk_nodes(call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().endswith((".cu", ".cuh")):
            return True
    return any(text.strip().endswith((".cu", ".cuh")) for text in named_sources(ctx, call)) or bool(cuda_link_nodes(ctx, call))


def named_sources(ctx, call) -> list[str]:
    """The strings of the module-level lists a build's `sources=` reads by name, each bound once, to a literal list
    or tuple (DirectVoxGO lib/masked_adam.py: `sources=['cuda/adam_upd.cpp', 'cuda/adam_upd_kernel.cu']`, then
    `load(name=..., sources=[os.path.join(parent_dir, path) for path in sources])`)."""
    given = ctx.keyword(call, "sources")
    if given is None and len(call.args) > 1:
        given = call.args[1]
    if given is None:
        return []
    names = {node.id for node in walk_nodes(given) if isinstance(node, ast.Name)}
    out: list[str] = []
    for name in names:
        values = [statement.value for statement in ctx.tree.body if isinstance(statement, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)]
        if len(values) == 1 and isinstance(values[0], (ast.List, ast.Tuple)):
            out += [e.value for e in values[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return out


# CMake patterns shared with NPU511 (migrate/rules/npu511_cmake_cuda_build.py): a comment, and the lines
# that make CUDA a language of the project. `find_package(CUDA)` (the deprecated FindCUDA, whose
# `cuda_add_library` runs nvcc) is one; `find_package(CUDAToolkit)` is not: FindCUDAToolkit "locates the NVIDIA
# CUDA toolkit and the associated libraries, but does not require the CUDA language be enabled"
# (https://cmake.org/cmake/help/v3.24/module/FindCUDAToolkit.html): it links `CUDA::cudart`, nvcc compiles nothing.
CMAKE_COMMENT = re.compile(r"#[^\n]*")
CMAKE_CUDA_LANGUAGE = re.compile(r"\b(?:enable_language\s*\(\s*CUDA\b|project\s*\([^)]*\bCUDA\b|find_package\s*\(\s*CUDA\b)", re.I)
# CMake's own CUDA language, under which nvcc compiles a project's targets; FindCUDA alone compiles only what its
# `cuda_add_*` commands are given (a plain `add_library(ft SHARED ft.cc)` beside `find_package(CUDA)` is built by the
# C++ compiler: https://cmake.org/cmake/help/v3.24/module/FindCUDA.html, "cuda_add_library ... Same as add_library
# but propagates CUDA flags and uses the nvcc compiler for .cu files")
_CMAKE_LANGUAGE_ON = re.compile(r"\b(?:enable_language\s*\(\s*CUDA\b|project\s*\([^)]*\bCUDA\b)", re.I)
_CMAKE_TARGET = re.compile(r"\b(cuda_add_library|cuda_add_module|cuda_add_executable|pybind11_add_module|python_add_library|add_library"
                           r"|add_executable)\s*\(\s*([\w.-]+|\$\{\w+\}|\"[\w.-]+\")([^)]*)\)", re.I)
# the branch commands of a CMakeLists.txt, and a condition naming the GPU build (`if(WITH_GPU)`, `IF (USE_CUDA)`)
_CMAKE_BRANCH = re.compile(r"\b(if|elseif|else|endif)\s*\(([^)]*)\)", re.I)
_GPU_CONDITION = re.compile(r"^\s*\$?\{?\w*(?:GPU|CUDA)\w*\}?\s*$", re.I)


_CMAKE_VAR = re.compile(r"\$\{(\w+)\}")
_CMAKE_SET = re.compile(r"\b(?:set\s*\(\s*(\w+)|list\s*\(\s*APPEND\s+(\w+))([^)]*)\)", re.I)
# `foreach(src IN LISTS srcs)` / `foreach(src ${srcs})` / `foreach(src a.cu b.cu)` (group 2: the words name lists)
_CMAKE_FOREACH = re.compile(r"\bforeach\s*\(\s*(\w+)\s+(?:IN\s+(?:(LISTS)|ITEMS)\s+)?([^)]*)\)", re.I)
# `file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)`: a list of the files a pattern matches
CMAKE_GLOB = re.compile(r"\bfile\s*\(\s*GLOB(?:_RECURSE)?\s+(\w+)([^)]*)\)", re.I)
_CMAKE_GLOB_OPTIONS = frozenset({"CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "TRUE", "FALSE", "RELATIVE", "FOLLOW_SYMLINKS"})


def _cmake_lists(code: str) -> dict[str, str]:
    """Source lists a CMakeLists.txt assembles in variables, every branch's together: `set(srcs a.cu b.cpp)`,
    `list(APPEND srcs c.cu)` -> {"srcs": "a.cu b.cpp c.cu"}, also a `.cu` under a folder variable
    (`${KERNEL_PATH}/k.cu`, kept as written) (k2-fsa/fast_rnnt fast_rnnt/csrc/CMakeLists.txt builds
    `add_library(mutual_information_core ${srcs})`); a `file(GLOB srcs ... *.cu)` holds its patterns, and a
    `${var}` of a list assembled above is replaced by its words (IST-DASLab/QUIK test/unit/CMakeLists.txt:
    `list(APPEND TEST_UNITS ${srcs})` of a glob); no condition is evaluated, nothing but this file is read."""
    lists: dict[str, str] = {}
    matches = sorted([*_CMAKE_SET.finditer(code), *CMAKE_GLOB.finditer(code), *_CMAKE_FOREACH.finditer(code)],
                     key=lambda m: m.start())
    for match in matches:
        if match.re is CMAKE_GLOB:
            name, rest = match.group(1), match.group(2)
        elif match.re is _CMAKE_FOREACH:  # the loop variable holds each item: the list's words, for `${var}` in the body
            name, rest = match.group(1), " ".join(
                f"${{{w}}}" if match.group(2) else w for w in match.group(3).split() if w.upper() not in ("ITEMS", "LISTS"))
        else:
            name, rest = match.group(1) or match.group(2), match.group(3)
        words = []
        for word in rest.split():
            var = _CMAKE_VAR.fullmatch(word.strip('"'))
            if var:
                words += lists.get(var.group(1), "").split()
            elif not word.startswith("${") and word.upper() not in ("CACHE", "PARENT_SCOPE") and (
                    match.re is not CMAKE_GLOB or word.upper() not in _CMAKE_GLOB_OPTIONS):
                words.append(word)
            elif word.strip('"').endswith((".cu", ".cuh")):
                # `${CMAKE_CURRENT_SOURCE_DIR}/*.cu` in a glob; a CUDA source under a folder variable in a list
                # (`list(APPEND SRC_CU ${KERNEL_PATH}/gemm/fp16_gemm.cu)`), kept whole as the line writes it
                words.append(word)
        lists[name] = " ".join(dict.fromkeys((lists.get(name, "") + " " + " ".join(words)).split()))
    return lists


def cmake_defs(path: str, text: str, programs: bool = False, compiled: bool = False) -> list[Definition]:
    """Libraries and Python modules a CMakeLists.txt builds with CUDA: `cuda_add_library(name ...)`
    (FindCUDA), and `add_library` / `pybind11_add_module` / `python_add_library` targets with `.cu`
    sources or in a project with the CUDA language (`project(x CXX CUDA)`, `enable_language(CUDA)`).
    Kind "module": `import name` of a pybind11 module and `ctypes.CDLL(".../libname.so")` link to it.
    `programs`: executables too (NPU511), also one named by a computed name (`add_executable(${name} ${src})` in a
    `foreach` over `.cu` sources: the name as written). `compiled`: only targets nvcc compiles (NPU511): in a project
    that only finds FindCUDA (`find_package(CUDA)`, no CUDA language), a plain `add_library` of C++ sources is C++
    (it may link CUDA libraries, so Python imports of it still link to it in the index)."""
    code = CMAKE_COMMENT.sub("", text)
    cuda_project = bool((_CMAKE_LANGUAGE_ON if compiled else CMAKE_CUDA_LANGUAGE).search(code))
    lists = _cmake_lists(code)
    no_gpu = _no_gpu_spans(code) if cuda_project else []
    out = []
    for match in _CMAKE_TARGET.finditer(code):
        command, name, rest = match.group(1).lower(), _cmake_name(match.group(2), lists), match.group(3)
        if command.endswith("add_executable") and not programs:  # a program: no module Python imports (NPU511 reports it)
            continue
        rest = _CMAKE_VAR.sub(lambda m: " " + lists.get(m.group(1), m.group(0)) + " ", rest)
        if not name and programs and ".cu" in rest:
            name = match.group(2).strip('"')
        if not name:
            continue
        words = [w.strip('"') for w in rest.split()]
        if command == "add_library" and words[:1] and words[0].upper() in ("INTERFACE", "IMPORTED", "ALIAS", "OBJECT"):
            continue
        # a library of the no-GPU branch (`if(WITH_GPU) cuda_add_library(...) else() add_library(x SHARED x.cpp)`) is
        # CUDA only by its own sources
        by_project = cuda_project and not any(start <= match.start() < end for start, end in no_gpu)
        if by_project and command == "add_library" and _literal_cxx_sources(words[1:]):
            # every source named as a C/C++ file (`add_library(VT SHARED view_transformer.cpp)` beside a CUDA
            # executable of globbed `.cu` files, set 72b Fast-BEV): CMake compiles it with the C++ compiler, the
            # project's own C++ target (label ruling (L105)), not one nvcc builds
            by_project = False
        if command.startswith("cuda_") or ".cu" in rest or (by_project and command not in ("add_library", "add_executable")) or (
                by_project and any(w.upper() in ("SHARED", "MODULE") for w in words[:1])):
            sources = " ".join(w for w in words if w.endswith((".cu", ".cuh")))
            # a Python extension target (`pybind11_add_module`, `python_add_library`): its file is `<name>.<abi>.so`,
            # imported as `name` from wherever the build script copies it (`Index.module_for`, mode "pymodule")
            mode = "pymodule" if command in ("pybind11_add_module", "python_add_library") else ""
            out.append(Definition("module", name, path, code.count("\n", 0, match.start()) + 1, True, sources, mode))
    return out


_CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".c++", ".h", ".hpp", ".hh", ".hxx")


def _literal_cxx_sources(words: list[str]) -> bool:
    """Whether a target's sources (after its SHARED / MODULE / STATIC word) are all literal C/C++ files (at least one,
    no variable left unexpanded, no generator expression): none of them is compiled by nvcc."""
    sources = [w for w in words if w.upper() not in ("SHARED", "MODULE", "STATIC", "EXCLUDE_FROM_ALL")]
    return bool(sources) and all(w.lower().endswith(_CXX_SUFFIXES) and "$" not in w for w in sources)


def _cmake_name(word: str, lists: dict) -> str | None:
    """A target's name: literal, quoted, or a `${VAR}` set above to one word (`set(TARGET "vptq")` ...
    `cuda_add_library(${TARGET} SHARED ${SOURCES})`, microsoft/VPTQ csrc/CMakeLists.txt); None when unknown."""
    var = _CMAKE_VAR.fullmatch(word)
    if var:
        value = lists.get(var.group(1), "").split()
        word = value[0] if len(value) == 1 else ""
    word = word.strip('"')
    return word if re.fullmatch(r"[\w.-]+", word) else None


def gpu_switch_spans(code: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the branches a condition naming the GPU build takes (`if(WITH_CUDA) enable_language(CUDA)
    file(GLOB srcs ${srcs} csrc/cuda/*.cu) endif()`: the body up to its `else()` / `elseif()` / `endif()`), comments
    already removed."""
    spans, stack = [], []  # stack: [start of the GPU branch's body, or -1]
    for match in _CMAKE_BRANCH.finditer(code):
        word = match.group(1).lower()
        if word == "if":
            stack.append(match.end() if _GPU_CONDITION.match(match.group(2)) else -1)
        elif not stack:
            continue
        elif word in ("else", "elseif", "endif"):
            if stack[-1] >= 0:
                spans.append((stack[-1], match.start()))
            if word == "endif":
                stack.pop()
            else:
                stack[-1] = -1
    return spans


def _no_gpu_spans(code: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the ELSE branches of a condition naming the GPU build (`if(WITH_GPU) ... else()
    ... endif()`: HawkAaron/warp-transducer CMakeLists.txt builds its CPU-only library there)."""
    spans, stack = [], []  # stack: [condition is a GPU switch, start of its else branch or -1]
    for match in _CMAKE_BRANCH.finditer(code):
        word = match.group(1).lower()
        if word == "if":
            stack.append([bool(_GPU_CONDITION.match(match.group(2))), -1])
        elif not stack:
            continue
        elif word == "else" and stack[-1][0]:
            stack[-1][1] = match.end()
        elif word == "elseif":
            stack[-1][0] = False
        elif word == "endif":
            gpu, start = stack.pop()
            if start >= 0:
                spans.append((start, match.start()))
    return spans


# `PYBIND11_MODULE(decoupleQ_kernels, m)`: a literal module name (not `TORCH_EXTENSION_NAME`, which setup.py fills in)
PYBIND_KIND = "pybindmod"
_PYBIND_MODULE = re.compile(r"\bPYBIND11_MODULE\s*\(\s*([A-Za-z_]\w*)\s*,")


def _pybind_targets(modules: dict, defined: list) -> None:
    """A CMake shared library whose sources define the pybind11 module of its own name (`add_library(decoupleQ_kernels
    SHARED w2a16.cu ...)` beside `PYBIND11_MODULE(decoupleQ_kernels, m)` in w2a16.cu, a build script copying
    `libdecoupleQ_kernels.so` to `decoupleQ/decoupleQ_kernels.so`) is a Python extension like `pybind11_add_module`'s
    (mode "pymodule"): imported as that name from the package the build puts it in (`from .decoupleQ_kernels import
    op`; label rule 42c-7)."""
    names = {d.name for d in defined if d.name != "TORCH_EXTENSION_NAME"}
    for name, definition in list(modules.items()):
        if name in names and not definition.mode and definition.cuda and definition.path.endswith("CMakeLists.txt"):
            modules[name] = Definition(definition.kind, name, definition.path, definition.line, True, definition.why, "pymodule")


_CMAKE_LINK = re.compile(r"\btarget_link_libraries\s*\(\s*([\w.-]+|\$\{\w+\})([^)]*)\)", re.I)
_CMAKE_LINK_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES",
                                  "DEBUG", "OPTIMIZED", "GENERAL"})


def _words(text: str) -> list[str]:
    return [w.strip('"') for w in text.split() if w.strip('"')]


def cmake_links(path: str, text: str) -> list[Definition]:
    """The CMake link graph of one CMakeLists.txt, for `build_index` (`link_cmake_modules`): kind "cmlink", a
    target it defines (any: `pybind11_add_module(_C MODULE binding.cpp)` compiles no CUDA itself) and, in
    `why`, what `target_link_libraries` links to it, this file's variables substituted and each `${VAR}`
    also kept for a subdirectory's; kind "cmvar", a list a subdirectory hands its parent
    (`list(APPEND _C_LIBRARIES _C_LIBRARY_MATMUL)` + `set(_C_LIBRARIES "${_C_LIBRARIES}" PARENT_SCOPE)`,
    IST-DASLab/QUIK src/matmul/CMakeLists.txt). Linear in the file; no condition is evaluated."""
    if "target_link_libraries" not in text and "PARENT_SCOPE" not in text:
        return []
    code = CMAKE_COMMENT.sub("", text)
    lists = _cmake_lists(code)
    out = []
    defined = {name: code.count("\n", 0, m.start()) + 1 for m in _CMAKE_TARGET.finditer(code)
               if (name := _cmake_name(m.group(2), lists))}
    linked: dict[str, list[str]] = {}
    for match in _CMAKE_LINK.finditer(code):
        target = _cmake_name(match.group(1), lists)
        if not target or target not in defined:
            continue
        words = linked.setdefault(target, [])
        for word in _words(match.group(2)):
            if word.upper() in _CMAKE_LINK_KEYWORDS:
                continue
            var = _CMAKE_VAR.fullmatch(word)
            if var:
                words += [w for w in _words(lists.get(var.group(1), "")) if not w.startswith("${")] + [word]
            elif "${" not in word and "::" not in word:
                words.append(word)
    for name, words in linked.items():
        if words:
            out.append(Definition("cmlink", name, path, defined[name], False, " ".join(dict.fromkeys(words))))
    for match in _CMAKE_SET.finditer(code):
        if match.group(1) and "PARENT_SCOPE" in match.group(3).upper().split():
            words = [w for w in _words(lists.get(match.group(1), "")) if "${" not in w]
            if words:
                out.append(Definition("cmvar", match.group(1), path, code.count("\n", 0, match.start()) + 1, False, " ".join(words)))
    return out


# NVIDIA's GPU runtime libraries as a target links them (`target_link_libraries(m PRIVATE nvinfer cudart)`): the CUDA
# runtime, driver and math libraries of the toolkit's lib64/ and TensorRT's inference runtime, none of which an Ascend
# host has (label rulings (L36)/(L43): these link lines are build labels)
_GPU_RUNTIME_LIBRARIES = frozenset({
    "cudart", "cudart_static", "cuda", "cublas", "cublasLt", "cudnn", "curand", "cufft", "cusparse", "cusolver", "nvrtc",
    "nvinfer", "nvinfer_plugin", "nvonnxparser", "nvparsers"})


def _link_gpu_runtimes(modules: dict, links: list) -> None:
    """A CMake Python module compiled from C++ only (no `.cu` of its own) that links an NVIDIA GPU runtime library
    directly (`pybind11_add_module(ReID reid.cpp)` + `target_link_libraries(ReID PRIVATE ${ENGINE_LIB} nvinfer)`, the
    Python interface of a TensorRT engine) runs on the GPU through it: its imports and uses are the extension's
    (label note 48d). Its `why` names the libraries (`Index._own_cuda`). A C++-only module linking none stays C++
    (label rule 34d-1)."""
    for link in links:
        current = modules.get(link.name)
        if current is None or current.mode != "pymodule" or current.why or not current.path.endswith("CMakeLists.txt"):
            continue
        runtimes = [w for w in link.why.split() if w.removeprefix("-l") in _GPU_RUNTIME_LIBRARIES]
        if runtimes:
            modules[link.name] = Definition(current.kind, current.name, current.path, current.line, True,
                                            " ".join(f"lib{w.removeprefix('-l')}.so" for w in runtimes), current.mode)


def link_cmake_modules(modules: dict, links: list, variables: list, extensions: list) -> None:
    """Python modules built by CMake whose CUDA lies in the libraries they link (IST-DASLab/QUIK: `quik._C` is
    `CMakeExtension('quik._C')` in setup.py, the target `pybind11_add_module(_C MODULE binding.cpp)`, which
    links `${_C_LIBRARIES}`: three STATIC libraries compiled from `.cu`). `links` / `variables` are the
    "cmlink" / "cmvar" Definitions (`cmake_links`), `extensions` setup.py's "cmakeext" ones. A target that links
    a CUDA target becomes one (its sources: theirs), to a fixed point over the links; a `${VAR}` reads the
    lists set with PARENT_SCOPE by CMakeLists.txt one folder down. A CMake extension whose target is a CUDA
    target is added under its dotted name, and replaces that target and the libraries linked into it in
    `modules` (the compiled module is what Python imports)."""
    if not links and not extensions:
        return
    _link_gpu_runtimes(modules, links)
    handed: dict[tuple[str, str], list[str]] = {}
    for v in variables:
        parent = os.path.dirname(os.path.dirname(v.path))
        handed.setdefault((parent, v.name), []).extend(v.why.split())
    resolved = []
    for link in links:
        here = os.path.dirname(link.path)
        words = []
        for word in link.why.split():
            var = _CMAKE_VAR.fullmatch(word)
            words += handed.get((here, var.group(1)), []) if var else [word]
        resolved.append((link, list(dict.fromkeys(words))))
    into: dict[str, list[str]] = {}
    for _ in range(len(resolved) + 1):
        changed = False
        for link, words in resolved:
            current = modules.get(link.name)
            if current is not None and current.cuda:
                continue
            cuda = [w for w in words if w in modules and modules[w].cuda and modules[w].path.endswith("CMakeLists.txt")]
            if cuda:
                sources = " ".join(dict.fromkeys(s for w in cuda for s in modules[w].why.split()))
                modules[link.name] = Definition("module", link.name, link.path, link.line, True, sources)
                into[link.name] = cuda
                changed = True
        if not changed:
            break
    for ext in extensions:
        target = modules.get(ext.why)
        if target is None or not target.cuda or not target.path.endswith("CMakeLists.txt") or ext.name in modules:
            continue
        modules[ext.name] = Definition("module", ext.name, ext.path, ext.line, True, target.why)
        for name in [ext.why] + into.get(ext.why, []):
            modules.pop(name, None)


def cpp_defs(path: str, text: str) -> list[Definition]:
    """`TORCH_LIBRARY(ns, m)` / `TORCH_LIBRARY_IMPL(ns, CUDA, m)` / `torch::RegisterOperators("ns::op", ...)`
    registrations in C++ / CUDA sources;
    CUDA targets of a CMakeLists.txt (`cmake_defs`) and its link graph (`cmake_links`)."""
    if path.endswith(("CMakeLists.txt", ".cmake")):  # the Find modules it pulls in (migrate/cmake_find_modules.py)
        from migrate import ascend_builds, cmake_find_modules, cmake_npu_switch

        found = cmake_find_modules.facts(path, text) + cmake_npu_switch.facts(path, text)  # an NPU build switch
        found += ascend_builds.facts(path, text)  # an Ascend build (migrate/ascend_builds.py)
        if path.endswith("CMakeLists.txt"):  # and the folders it adds (migrate/cmake_subdirs.py)
            from migrate import cmake_subdirs

            return cmake_defs(path, text) + cmake_links(path, text) + found + cmake_subdirs.facts(path, text)
    else:
        from migrate import ascend_builds

        found = ascend_builds.facts(path, text)  # a source including torch_npu / ACL headers (migrate/ascend_builds.py)
    from migrate import cpu_only_ops

    scopes = found + cpu_only_ops.cpp_facts(path, text)  # pybind registrations and namespaces: ops with only a CPU build
    from migrate import reflected_ops

    scopes += reflected_ops.cpp_facts(path, text)  # pybind op names, called through a filled object (reflected_ops.py)
    from migrate import cpu_kernel_ops

    scopes += cpu_kernel_ops.cpp_facts(path, text)  # registered ops with only a CPU kernel (cpu_kernel_ops.py)
    scopes += cpu_builds.binding_facts(path, text)  # a pybind source binding CUDA-only functions unguarded
    if "PYBIND11_MODULE" in text:  # the Python module a source defines (`_pybind_targets`)
        scopes += [Definition(PYBIND_KIND, m.group(1), path, text.count("\n", 0, m.start()) + 1, False)
                   for m in _PYBIND_MODULE.finditer(text)]
    if "TORCH_LIBRARY" not in text and "RegisterOperators" not in text:
        return scopes
    out = scopes
    cuda_file = path.endswith((".cu", ".cuh", ".cu.h", ".cu.hpp"))
    for match in list(_CPP_LIBRARY.finditer(text)) + list(_CPP_REGISTER.finditer(text)):
        out.append(Definition("namespace", match.group(1), path, text.count("\n", 0, match.start()) + 1, cuda_file))
    for match in _CPP_IMPL.finditer(text):
        if match.group(1) in TORCH_NAMESPACES:  # CUDA kernels for torch's own ops (`aten::add`): the op exists on every host
            continue
        key = match.group(2)
        out.append(Definition("namespace", match.group(1), path, text.count("\n", 0, match.start()) + 1, cuda_file or "CUDA" in key))
    from migrate import named_ops

    return out + named_ops.cpp_facts(path, text)  # the ops it registers, called by name elsewhere


# an import inside a function: an accessor may return what it imports (`def load(): import pkg._C as C; return C`)
_LOCAL_IMPORT = re.compile(r"^[ \t]+(?:import [\w.]+|from [\w.]+ import )", re.MULTILINE)
# a function returning an attribute of a module it imports: an accessor may hand on what that module holds
# (`from . import _backend` ... `def require(): return _backend._C`, kernel_values._chain_refs)
_RETURNED_ATTRIBUTE = re.compile(r"^[ \t]+return (?!self\.|cls\.)[A-Za-z_]\w*\.[A-Za-z_]\w*[ \t]*\r?$", re.MULTILINE)


def wants_python_defs(text: str, path: str = "") -> bool:
    """A build or registration, or a wrapper of a kernel op (kernel_values.wrapper_values) may be here;
    with `path`, also a package `__init__` that re-exports names it imports (kernel_values.package_reexports)."""
    from migrate import kernel_values

    return any(hint in text for hint in _PY_DEF_HINTS) or (".apply" in text or "partial(" in text or "def get_" in text) \
        or next(line_matches(_LOCAL_IMPORT, text, "import "), None) is not None \
        or next(line_matches(_RETURNED_ATTRIBUTE, text, "return "), None) is not None or (kernel_values.is_package_init(path) and "import " in text) \
        or (" as " in text and kernel_values.ALIAS_HINT.search(text) is not None) \
        or kernel_values.OP_ALIAS_LINE.search(text) is not None \
        or "torch.classes." in text or ("getattr(" in text and "return " in text) \
        or "__getattr__" in text or "register_kernel" in text \
        or kernel_values.loads_values(text) \
        or ("from ." in text and "cuda" in text)  # called_kernels.called_values, lazy_backends.lazy_values, kernel_values.loaded_values; absent_cuda_modules


def encode(defs: list[Definition], refs: list[str], imports=(), requirements=(), uses: str | None = None,
           sites: str | None = None, images=()) -> tuple:
    """Facts as plain JSON-able tuples (they are cached with the file's findings); `imports`:
    (top-level name, line) pairs for the open-world dependency list (migrate/deps.py),
    `requirements`: (normalised distribution name, line) pairs a manifest declares, and `uses`: the
    names the file reaches through its imports (`link_uses`; None when not recorded), `sites`: its use
    sites for linking without a second parse (`link_sites`; None when not recorded), `images`: (image name, line)
    pairs of a Dockerfile's `FROM` instructions (migrate/base_images.py)."""
    return tuple(("def", d.kind, d.name, d.line, d.cuda) + ((d.why, d.mode) if d.kind in ("export", "value") or d.why or d.mode
                                                             else ()) for d in defs) + \
        tuple(("ref", r) for r in refs) + tuple(("imp", name, line) for name, line in imports) + \
        tuple(("req", name, line) for name, line in requirements) + ((("use", uses),) if uses is not None else ()) + \
        ((("site", sites),) if sites is not None else ()) + tuple(("img", name, line) for name, line in images)


def link_uses(ctx) -> str:
    """What the cross-file step needs to know of a file without parsing it again: every dotted name
    the file reaches through an import, space-separated, longest of each prefix family only. Each
    outermost Name/Attribute chain rooted at an imported name gives one (`torch.cuda.amp.autocast`,
    resolved as `chain_tops` does; a relative import bound as linking binds it,
    `from .ir import x` -> `_inductor.ir.x`), and so does each import's own name. `files_to_link`
    re-reads a file that imports an exporting module only when one of these names reaches an
    exported name or a kernel (torch: 137 files re-parsed became 63).

    Called after the rules, so the chain list is theirs, computed once: the only rule that binds names
    of its own in `ctx.imports` is NPU508, in a file that defines an extension, which is always linked
    (and names bound there only add chains)."""
    from migrate.rules._device_helpers import chain_tops

    names = {qual for _, qual in chain_tops(ctx)}
    relative: dict[str, str] = {}
    for statement in ctx.nodes.get(ast.Import, ()):
        names.update(alias.name for alias in statement.names)
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level else statement.module or ""
        for alias in statement.names:
            if alias.name == "*":
                continue
            full = f"{base}.{alias.name}" if base else alias.name
            names.add(full)
            if statement.level:
                relative[alias.asname or alias.name] = full
    from migrate.star_imports import free_names, star_statements

    free = free_names(ctx)
    if free:  # a name a star import binds: reached as `<module>.<name>` of each (migrate/star_imports.py)
        modules = [module for _, module in star_statements(ctx)]
        parent_of, attribute = ctx._parents.get, ast.Attribute
        for node in ctx.nodes.get(ast.Name, ()):
            if node.id not in free:
                continue
            parts, top, parent = [node.id], node, parent_of(id(node))
            while parent.__class__ is attribute and parent.value is top:
                parts.append(parent.attr)
                top, parent = parent, parent_of(id(parent))
            names.update(f"{module}.{'.'.join(parts)}" for module in modules)
    if relative:  # the resolver leaves relative imports out; linking binds them (bind_relative_imports)
        parent_of, attribute = ctx._parents.get, ast.Attribute
        for node in ctx.nodes.get(ast.Name, ()):
            full = relative.get(node.id)
            if full is None:
                continue
            parts, top, parent = [full], node, parent_of(id(node))
            while parent.__class__ is attribute and parent.value is top:
                parts.append(parent.attr)
                top, parent = parent, parent_of(id(parent))
            names.add(".".join(parts))
    ordered = sorted(n for n in names if n)
    # in sorted order a name's dotted extensions follow it directly ('.' sorts before every identifier character)
    return " ".join(n for n, following in zip(ordered, ordered[1:] + [""]) if not following.startswith(n + "."))


def linked_by_sites(refs: list[str]) -> bool:
    """Whether a file with these references (`import_facts`) can be linked from its use sites at all: under
    an index `linking.from_facts` accepts (no extension module, no namespace named like torch's own) only a
    module name or a custom `torch.ops.<ns>` can match (`Index.matches`), never a library file or an
    f-string pattern; a file with neither is never linked there, so its sites are not recorded."""
    return any(not r.startswith(("re:", "so:", "cu:")) and not (r.startswith("ops:") and r[4:] in BUILTIN_NAMESPACES)
               for r in refs)


# the parents under which `availability_probe` / `is_prose` can be true of a Name or Attribute chain
_PROBE_PARENTS = frozenset({ast.Compare, ast.UnaryOp, ast.BoolOp, ast.If, ast.IfExp, ast.While})
_PROSE_PARENTS = frozenset({ast.JoinedStr, ast.FormattedValue, ast.Call, ast.BinOp, ast.keyword, ast.Tuple, ast.List, ast.Set,
                            ast.Dict, ast.Starred})


def link_sites(ctx) -> str | None:
    """What linking needs of each use site so that it links this file from its facts, without parsing
    it again (`linking.link_from_facts`): every outermost chain rooted at an imported name (as
    `chain_tops`) or at a name a relative import binds (as `link_uses` walks them). Four parts, `|`
    lines between them:
    - one line per chain (root name and attributes after it): `root rest site site ...` (`rest` `-` for
      a bare name), each site `line,col,end_line-line,end_col` (the span a finding there points at,
      `report_node`'s: the call when the chain is called; columns in characters), then `,n:kw;kw` when
      it is called (positional count, keyword names); `~` before a site where NPU510 reports nothing
      (not a Load, an availability probe, prose, shadowed by a local, inside a Triton kernel or a test that skips
      without a GPU-only package, migrate/body_skips.py), which is
      kept only under `torch.ops.` (NPU508 reports those), and `!` before that where NPU508 does not
      (`hasattr(torch.ops.ns, "op")`);
    - what each root resolves to without the relative imports: `root base`;
    - each relative import `alias full`, in the order `bind_relative_imports` binds them;
    - the file's `noqa` comments as `engine._line_suppressed` reads them (`line:CODE,CODE`, `line:*`,
      `file`);
    - `{` when a call is given a string holding a brace (`_holds_a_brace`): see `linking._may_reach`.
    The sites of a file are few per line and found from the chains the rules already listed, so this
    costs a small share of the file's analysis. None where linking must parse the file again: two
    chains at one position (`chain_tops` then keeps the tree's order) or a relative import that could
    name a Triton decorator."""
    from migrate.reexports import inside_triton_kernel, triton_kernel
    from migrate.rules._device_helpers import availability_probe, chain_tops, shadowed
    from migrate.rules._text import is_prose
    from migrate.rules.npu508_custom_extension_use import _hasattr_probe
    from migrate.star_imports import star_pairs

    relative: list[tuple[str, str]] = []
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if not statement.level:
            continue
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "")
        for alias in statement.names:
            full = f"{base}.{alias.name}" if base else alias.name
            if alias.name == "*" or "." not in full:
                continue
            if full == "triton" or full.startswith("triton."):
                return None  # binding it could make a decorator `triton.jit` (inside_triton_kernel)
            relative.append((alias.asname or alias.name, full))
    relative += star_pairs(ctx)  # names star imports bind, bound after them (migrate/star_imports.py)
    tops = chain_tops(ctx)
    if relative:
        tops = list(tops)
        names = {id(node) for node, _ in tops}
        aliases = {alias for alias, _ in relative}
        parent_of, attribute = ctx._parents.get, ast.Attribute
        for node in ctx.nodes.get(ast.Name, ()):
            if node.id not in aliases:
                continue
            top, parent = node, parent_of(id(node))
            while parent.__class__ is attribute and parent.value is top:
                top, parent = parent, parent_of(id(parent))
            if id(top) not in names:
                names.add(id(top))
                tops.append((top, None))
    if len({(n.lineno, n.col_offset, n.__class__) for n, _ in tops}) < len(tops):
        return None
    # Cheap tests first, each exact: a root can be shadowed only where some scope binds that name; a site is
    # inside a Triton kernel only within the lines of one; a probe, prose and a call depend on the parent's type
    rebound = {n.id for n in ctx.nodes.get(ast.Name, ()) if n.ctx.__class__ is not ast.Load}
    rebound.update(a.arg for a in ctx.nodes.get(ast.arg, ()))
    rebound.update(h.name for h in ctx.nodes.get(ast.ExceptHandler, ()) if h.name)
    skipped = body_skips.skipped_spans(ctx)  # tests that skip without a GPU-only package: NPU510 reports nothing there
    kernels = []
    if "triton" in ctx.source:
        for function in (*ctx.nodes.get(ast.FunctionDef, ()), *ctx.nodes.get(ast.AsyncFunctionDef, ())):
            if function.decorator_list and triton_kernel(ctx, function):
                first = min([function.lineno] + [d.lineno for d in function.decorator_list])
                kernels.append((first, function.end_lineno or function.lineno))
    chains: dict[tuple[str, str], list[str]] = {}
    bases: dict[str, str] = {}
    load, attribute, call_type = ast.Load, ast.Attribute, ast.Call
    parent_of = ctx._parents.get
    ascii_text = ctx.source.isascii()  # columns in characters are the parser's byte offsets
    for node, qual in tops:
        root, rest = node, []
        while root.__class__ is attribute:
            rest.append(root.attr)
            root = root.value
        parent = parent_of(id(node))
        kind = parent.__class__
        clean = node.ctx.__class__ is load and not (
            (kind in _PROBE_PARENTS and availability_probe(ctx, node))
            or (kind in _PROSE_PARENTS and is_prose(ctx, node))
            or (root.id in rebound and shadowed(ctx, node))
            or (kernels and any(a <= node.lineno <= b for a, b in kernels) and inside_triton_kernel(ctx, node))
            or (skipped and body_skips.inside(skipped, node.lineno)))
        if not clean and not (qual is not None and qual.startswith(TORCH_NAMESPACE_ROOTS)):
            continue
        tail = ".".join(reversed(rest)) if rest else "-"
        if qual is not None:
            bases[root.id] = qual[: len(qual) - len(tail) - 1] if rest else qual
        target = parent if kind is call_type and parent.func is node else node  # report_node
        if ascii_text:
            line, col, end_line, end_col = target.lineno, target.col_offset, target.end_lineno, target.end_col_offset
        else:
            line, col, end_line, end_col = ctx.span(target)
        site = f"{line},{col},{end_line - line},{end_col}" if clean else f"~{line},{col},{end_line - line},{end_col}"
        if kind is call_type and parent.func is not node and qual is not None and qual.startswith(TORCH_NAMESPACE_ROOTS) \
                and _hasattr_probe(ctx, node):  # `hasattr(torch.ops.ns, "op")`: NPU508 reports nothing there
            site = "!" + site
        if target is parent:
            site += f",{len(parent.args)}:{';'.join(k.arg for k in parent.keywords if k.arg)}"
        key = (root.id, tail)
        found = chains.get(key)
        if found is None:
            chains[key] = [site]
        else:
            found.append(site)
    noqa: list[str] = []
    if "noqa" in ctx.source:
        from migrate import suppress
        from migrate.context import split_lines

        comments = suppress.line_comments(split_lines(ctx.source))
        if suppress.file_is_suppressed(comments):
            noqa = ["file"]
        else:
            noqa = [f"{line}:{','.join(sorted(codes))}" for line, codes in suppress.comment_noqa(comments).items()]
    # `{` when a call of the file is given a string holding a brace (`importlib.import_module("{x}")`, an f-string with
    # `{{`): where the index holds a module under a computed name, `{name}`, NPU508's loader reading could reach it
    braced = ["{"] if "import_module" in ctx.source and any(
        call.args and _holds_a_brace(call.args[0]) for call in ctx.nodes.get(ast.Call, ())) else []
    return "\n|\n".join("\n".join(part) for part in (
        [f"{root} {tail} {' '.join(sites)}" for (root, tail), sites in chains.items()],
        [f"{root} {base}" for root, base in bases.items()], [f"{alias} {full}" for alias, full in relative], noqa, braced))


def _holds_a_brace(node) -> bool:
    """A string literal holding `{`, or an f-string one of whose literal parts holds it."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and "{" in node.value
    return isinstance(node, ast.JoinedStr) and any(
        isinstance(part, ast.Constant) and isinstance(part.value, str) and "{" in part.value for part in node.values)


def export_defs(ctx) -> list[Definition]:
    """Module-level names of this file that stand for a CUDA-specific API (NPU510)."""
    from migrate import reexports
    from migrate.star_imports import star_exports

    return [Definition("export", e.name, ctx.path, e.line, e.error, e.why, e.mode) for e in reexports.module_exports(ctx)] + \
        [Definition("starexp", name, ctx.path, line, error, why, "alias") for name, line, error, why in star_exports(ctx)]


@lru_cache(maxsize=65536)
def _module_parts(path: str) -> tuple[str, ...]:
    parts = [p for p in os.path.normpath(path).replace(os.sep, "/").split("/") if p and p not in (".", "..")]
    if parts and parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
        if parts[-1] == "__init__":
            parts.pop()
    return tuple(parts)


def module_parts(path: str) -> list[str]:
    """The dotted-name parts a file is importable as, innermost last (`pkg/__init__.py` -> pkg)."""
    return list(_module_parts(path))


# ---- linking ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Index:
    modules: dict  # extension module name -> Definition
    namespaces: dict  # op namespace -> Definition (a CUDA one preferred)
    exports: dict = field(default_factory=dict)  # exported name -> [Definition] (NPU510)
    python_ops: frozenset = frozenset()  # `ns::op` implemented only by Python functions of the repository
    # dotted names of project functions called as JIT CUDA build helpers (`custom_ops.get_plugin(..., extra_cuda_cflags=
    # [...])`): their own `load(...)` / `import_module(...)` lines are build lines (`CudaExtension.uses`)
    helpers: frozenset = frozenset()
    # the names of the repository's Python folders and modules (`_module_parts` of every .py file): a CMake Python
    # extension (mode "pymodule") is matched inside a dotted import that starts with one of them
    packages: frozenset = frozenset()
    # the dotted names of the repository's CPU-only extension builds (`CppExtension(name="pointseg._C", ...)`)
    cpu_built: frozenset = frozenset()
    # module-level plain imports of GPU-only packages in the modules some file star-imports (kind "starexp", name ->
    # [Definition]), and the star imports of the repository's files: (module parts of the importer, its star-imported
    # modules in source order); migrate/star_imports.py
    star_names: dict = field(default_factory=dict)
    stars: tuple = ()
    # the dotted names of the repository's plain Python module files (`pkg/config/defaults.py` ->
    # pkg.config.defaults; not a package's `__init__.py`, not a name that is also a folder): a name imported from one is
    # an attribute of that file (`Index._misplaced`)
    module_files: frozenset = frozenset()
    # the dotted names of the folders holding a scanned file but no `__init__.py` (`kernels/main.cu` -> kernels): an
    # extension a build moves or builds into one is imported from it (`Index._placed_in_folder`)
    bare_folders: frozenset = frozenset()

    def __bool__(self) -> bool:
        return bool(self.modules or self.namespaces or self.exports or self.helpers or self.star_names)

    def helper_functions(self, path: str) -> frozenset:
        """Names of the functions of the file at `path` that the scan calls as JIT CUDA build helpers."""
        parts = list(_module_parts(path))
        out = set()
        for helper in self.helpers:
            module, _, function = helper.rpartition(".")
            if module and _suffix(parts, module.split(".")):
                out.add(function)
        return frozenset(out)

    def matches(self, ref: str) -> bool:
        if ref.startswith("cu:"):  # a CUDA file named (migrate/cuda_builds.py): not a module reference
            return False
        return self.matches_kernel(ref) or self.matches_export(ref)

    def matches_kernel(self, ref: str) -> bool:
        """`ref` names an extension module or op namespace of the scan, or a module holding a kernel value (NPU508)."""
        if ref.startswith(("cu:", "all:")):
            return False
        if ref.startswith("ops:"):
            return ref[4:] in self.namespaces
        if ref.startswith("re:"):
            return self.module_matching(ref[3:]) is not None
        if ref.startswith("so:"):
            return self.module_for_library(ref[3:]) is not None
        return self.module_for(ref) is not None or self.holder(ref) is not None or ref in self._builder_objects

    @cached_property
    def _builder_objects(self) -> frozenset[str]:
        """`pkg.ffi.CUDA_COMPLIER` for each `pkg.ffi.CUDA_COMPLIER.complie` value (migrate/loader_objects.py): a file
        importing the object may call the method that runs the build."""
        objects = [d.name.split(".")[:-1] for d in self.modules.values()
                   if d.kind == "value" and d.mode == "call" and d.name.count(".") > 1]
        # every dotted tail: the scan's root may sit above the package (`/abs/pp/core/ffi.py`, imported as `pp.core.ffi`)
        return frozenset(".".join(parts[start:]) for parts in objects for start in range(len(parts) - 1))

    def holder(self, module: str) -> Definition | None:
        """The kernel value a plain `import module` reaches as an attribute: exllama's `import cuda_ext`
        then `cuda_ext.exllama_ext.q4_mlp(...)`, where cuda_ext.py binds `exllama_ext = load(...)`."""
        return self._holders.get(tuple(module.split(".")))

    @cached_property
    def _holders(self) -> dict:
        out = {}
        for definition in self.modules.values():
            if definition.kind == "value" and definition.mode not in ("wrap", "call"):  # called_kernels.CALLED: calls only
                parts = tuple(definition.name.split(".")[:-1])
                for start in range(len(parts)):
                    out.setdefault(parts[start:], definition)
        return out

    def matches_export(self, ref: str) -> bool:
        """`ref` is an exported CUDA-specific name or a module that exports one (NPU510)."""
        if ref.startswith(("ops:", "re:", "so:", "cu:", "all:")):
            return False
        if ref.endswith(".*"):  # a star import of a module carrying a GPU-only name (migrate/star_imports.py)
            return bool(self.stars) and self._star_carrier(ref[:-2], 0)
        return self.export_for(ref) is not None or self._exporting_module(ref)

    def _star_carrier(self, module: str, depth: int) -> bool:
        """`module` holds a "starexp" name or an export, or star-imports a module that does (chains of up to 4)."""
        wanted = module.split(".")
        if any(_suffix(list(module_parts(d.path)), wanted) for table in (self.star_names, self.exports)
               for ds in table.values() for d in ds):
            return True
        return depth < 4 and any(self._star_carrier(source, depth + 1) for sources in self._stars_of(module) for source in sources)

    def _stars_of(self, module: str) -> list:
        """The star-imported modules of each file of the scan that `module` names (`Index.stars`)."""
        wanted = module.split(".")
        return [sources for parts, sources in self._stars_by_name.get(wanted[-1], ()) if _suffix(list(parts), wanted)]

    @cached_property
    def _stars_by_name(self) -> dict:
        out: dict = {}
        for parts, sources in self.stars:
            if parts:
                out.setdefault(parts[-1], []).append((parts, sources))
        return out

    def _star_export(self, module: str, name: str, depth: int) -> Definition | None:
        """What `name` read through a star import of `module` stands for: a "starexp" name or an export of the last
        star-imported module that has it, looked up through their own star imports (migrate/star_imports.py)."""
        if name.startswith("_") or depth > 4:
            return None
        for sources in self._stars_of(module):
            for source in reversed(sources):
                found = self._export_or_star(f"{source}.{name}", depth + 1)
                if found is not None:
                    return found
        return None

    def reaches(self, uses: str) -> bool:
        """One of a file's `link_uses` names (or a prefix of one) is an exported name, an extension, a
        kernel op, or a loader that can bind one: linking may find something in that file."""
        namespaces, seen = self.namespaces, self._reached
        for dotted in uses.split():
            if dotted.startswith(TORCH_NAMESPACE_ROOTS):
                parts = dotted.split(".")
                if len(parts) > 2 and parts[2] in namespaces:
                    return True
            hit = seen.get(dotted)
            if hit is None:
                hit = self._reaches_from(dotted)
            if hit:
                return True
        return False

    def _reaches_from(self, dotted: str) -> bool:
        """`dotted` or one of its prefixes reaches something (`reaches`); remembered for each prefix walked,
        so a name or prefix another file shares is looked at once per scan."""
        seen = self._reached
        walked = []
        prefix = dotted
        while True:
            hit = seen.get(prefix)
            if hit is not None:
                break
            walked.append(prefix)
            if prefix in _BINDING_CALLS or self.module_for(prefix) is not None or self.holder(prefix) is not None or (
                    "." in prefix and self.export_for(prefix) is not None):
                hit = True
                break
            cut = prefix.rfind(".")
            if cut < 0:
                hit = False
                break
            prefix = prefix[:cut]
        for name in walked:
            seen[name] = hit
        return hit

    @cached_property
    def _reached(self) -> dict:
        return {}  # prefix -> whether it or a shorter prefix reaches something (`_reaches_from`), shared by every file of a scan

    def export_for(self, dotted: str | None) -> Definition | None:
        """The exported CUDA-specific name `dotted` (`pkg.mod.name`, also a relative spelling that
        resolved to the innermost package only) refers to."""
        return self._export_or_star(dotted, 0)

    def _export_or_star(self, dotted: str | None, depth: int) -> Definition | None:
        if not dotted or "." not in dotted:
            return None
        module, name = dotted.rsplit(".", 1)
        wanted = module.split(".")
        for definition in self.exports.get(name, ()):
            if _suffix(module_parts(definition.path), wanted):
                return definition
        if not self.stars:
            return None
        for definition in self.star_names.get(name, ()):  # in a module some file star-imports (migrate/star_imports.py)
            if _suffix(module_parts(definition.path), wanted):
                return definition
        return self._star_export(module, name, depth)

    def export_in(self, qual: str) -> Definition | None:
        """The exported name the longest dotted prefix of the use `qual` refers to (`pkg.mod.amp.autocast(...)`
        reaches `pkg.mod.amp`): NPU510's lookup, on the parsed tree and when linking from the facts."""
        parts = qual.split(".")
        for end in range(len(parts), 1, -1):
            definition = self.export_for(".".join(parts[:end]))
            if definition is not None:
                return definition
        return None

    def _exporting_module(self, module: str) -> bool:
        return tuple(module.split(".")) in self._export_module_suffixes

    @cached_property
    def _export_module_suffixes(self) -> frozenset:
        """Every dotted-name suffix of every exporting file (`a.b.c` -> c, b.c, a.b.c): one set lookup per
        reference instead of a pass over all exports (this ran per reference and per file)."""
        out = set()
        for ds in self.exports.values():
            for d in ds:
                parts = module_parts(d.path)
                out.update(tuple(parts[i:]) for i in range(len(parts)))
        return frozenset(out)

    def _in_package(self, name: str, dotted: str) -> bool:
        """`dotted` reaches the CMake Python extension `name` (mode "pymodule") inside a package of the repository, or
        inside the CMake build tree (`_in_build_tree`)."""
        return self.modules[name].mode == "pymodule" and "." in dotted and name in dotted.split(".")[1:] \
            and (dotted.split(".", 1)[0] in self.packages or self._in_build_tree(name, dotted)) and self._own_cuda(name)

    def _in_build_tree(self, name: str, dotted: str) -> bool:
        """`from build.pybind_interface.ReID import ReID` after `sys.path.append("../")`: CMake's binary tree mirrors the
        source tree, so the module of `pybind11_add_module(ReID ...)` in pybind_interface/CMakeLists.txt is built as
        build/pybind_interface/ReID.<abi>.so. The part before the module's name is the folder of the CMakeLists.txt that
        defines it (label note 48d: FastRT's Python interface)."""
        parts = dotted.split(".")
        folder = os.path.basename(os.path.dirname(os.path.normpath(self.modules[name].path)))
        return bool(folder) and any(parts[i] == name and parts[i - 1] == folder for i in range(1, len(parts)))

    def _own_cuda(self, name: str) -> bool:
        """The CMake target `name` compiles CUDA sources of its own (`.cu`/`.cuh` in its source list, after its list
        variables): only then is it matched inside a dotted import of a package (`_in_package`, absolute or relative).
        A C++-only pybind11 module in a project that enables CUDA (`project(x CXX CUDA)` +
        `pybind11_add_module(tri_ext triangulation.cpp binding.cpp)`, a CGAL build whose op moves its input to the CPU)
        runs its ops on the CPU: nothing to port where `from . import tri_ext as cpp` binds it or a script calls
        `cpp.triangulate` (label rule 34d-1). Its build lines stay NPU511's."""
        return bool(self.modules[name].why)  # its sources, or the NVIDIA runtime libraries it links (`link_cmake_modules`)

    def module_for(self, dotted: str, relative: bool = False) -> str | None:
        """The extension module `dotted` is (or is inside of, or is a relative spelling of).
        `relative`: `dotted` comes from a relative import, which never reaches a top-level module
        (a JIT build's `load(name="upfirdn2d")` is not `from .upfirdn2d import upfirdn2d`)."""
        stdlib = dotted.split(".", 1)[0] in STDLIB
        for name in self._named_in(dotted):
            # a CMake target never claims a standard-library module: `add_library(copy STATIC copy.cu)` is no `import copy`
            if stdlib and self.modules[name].path.endswith(("CMakeLists.txt", ".cmake")):
                continue
            if relative and "." not in name:
                if self._beside_setup(name, dotted) or self._in_package(name, dotted):
                    return name  # (a CMake Python extension the build copies into the package: `from .ext import op`)
                continue
            if dotted == name or dotted.startswith(name + "."):
                return name
            if "." not in name and "." in dotted and self._beside_setup(name, dotted):  # `from lib.nms.gpu_nms import x`
                return name
            if "." not in name and "." in dotted and self._placed_in_folder(name, dotted):  # `from kernels import ext`
                return name
            # a CMake shared library `lib<target>.so` imported from the package folder the build puts it in
            if name.startswith("lib") and f".{name}." in f".{dotted}." and self.modules[name].path.endswith("CMakeLists.txt"):
                return name
            # a CMake-built Python extension (`pybind11_add_module(_kernels ...)`) that a build script copies or links into
            # a package of the repository (`ln -s build/_kernels*.so ../`): `import quest._kernels`, and the same module
            # reached through a package that imported it (`quest.utils._kernels.op`); not inside a dotted name of
            # another package (`torch._C` is not the repository's `_C`)
            if self._in_package(name, dotted):
                return name
            # a relative import resolves to the innermost package only (`from . import _C` -> `pkg._C`)
            if "." in name and "." in dotted:
                if dotted.endswith("." + name) or name.endswith("." + dotted):
                    return name
                # an attribute of a relatively spelled one: `pkg.backend._backend.op` for `repo.pkg.backend._backend`
                parts = dotted.split(".")
                for end in range(len(parts) - 1, 1, -1):
                    prefix = ".".join(parts[:end])
                    # `pkg.backend._backend.op` for `repo.pkg.backend._backend`; `roi_align._ext.roi_align.op`
                    # (`from .._ext import roi_align`, resolved from roi_align/functions/) for `_ext.roi_align`
                    if name.endswith("." + prefix) or prefix.endswith("." + name):
                        return name
        return self._templated(dotted) or self._misplaced(dotted)

    def _named_in(self, dotted: str) -> list:
        """The modules, in the table's order, whose last name part is a part of `dotted`: every match of `module_for`'s
        loop needs it (the name is `dotted`, a prefix or a suffix of it, a part of it, or ends in a prefix of it), and
        a large repository asks thousands of times (torch: ~15k). The table grows while wrappers resolve: the lookup
        is rebuilt whenever its names (or their order) changed."""
        by_last = self._names_lookup()[0]
        found = [entry for part in set(dotted.split(".")) for entry in by_last.get(part, ())]
        if len(found) > 1:
            found.sort()
        return [name for _, name in found]

    def _names_lookup(self) -> tuple:
        """(last name part -> [(position, name)], the names built under an f-string) of the table as it is now."""
        keys = tuple(self.modules)
        held = self._by_last_part
        if held[0] != keys:
            by_last: dict[str, list] = {}
            for position, name in enumerate(keys):
                by_last.setdefault(name.rsplit(".", 1)[-1], []).append((position, name))
            held[:] = [keys, (by_last, [name for name in keys if "{" in name])]
        return held[1]

    @cached_property
    def _by_last_part(self) -> list:
        return [None, ({}, [])]  # [the module names it was built from, `_names_lookup`'s answer]

    def _misplaced(self, dotted: str) -> str | None:
        """An extension `pkg._CUDA` imported under another package of the repository (AutoSmoothQuant's
        layers/nn/bmm.py `from .._CUDA import op`, which resolves to `pkg.layers._CUDA`; the relative spelling reaches
        here as `layers._CUDA`): no file or folder of the repository has that name, so the import can only mean the
        compiled module of that name, when the scan builds exactly one (a broken spelling is still an import of
        compiled code, label rule 32b-3). Every part before the name must be a package of the repository, and no CPU
        build of the repository may carry that dotted name (Pointcept's libs/pointseg/setup.py builds `pointseg._C` as a
        CppExtension: `from pointseg._C import ...` is that, not pointops' CUDA `pointops._C`). Only after every exact
        match failed."""
        parts = dotted.split(".")
        if len(parts) < 2 or parts[0] not in self.packages:  # every part before the name is a package: none can match
            return None
        # the name is the first part that is no package (every part before it is one): one place to look
        at = next((i for i in range(1, len(parts)) if parts[i] not in self.packages), None)
        if at is None:
            return None
        # the part before the name is a Python module file of the repository, not a folder: the name is that file's
        # own attribute (detectron-style configs: `from .defaults import _C` in pkg/config/__init__.py is the yacs
        # node `_C = CN()` of pkg/config/defaults.py, not the compiled `pkg._C`); no compiled module sits inside a file
        if self._module_file(parts[:at]):
            return None
        # (the names ending in `.<part>`: those whose last name part it is, with a dot before it)
        names = [name for _, name in self._names_lookup()[0].get(parts[at], ())
                 if "." in name and self.modules[name].kind == "module"]
        if len(names) == 1 and ".".join(parts[:at + 1]) not in self.cpu_built:
            return names[0]
        return None


    def _module_file(self, parts: list) -> bool:
        """`parts` (a dotted name, perhaps spelled from its innermost package only, as a relative import resolves) names
        one of the repository's Python module files (`module_files`)."""
        return ".".join(parts) in self._module_file_suffixes

    @cached_property
    def _module_file_suffixes(self) -> frozenset:
        """Every dotted suffix of every name of `module_files` (`a.b.c` -> `c`, `b.c`, `a.b.c`): `_module_file` asks
        once per misplaced import, thousands of times in a large repository (torch: ~13k), so the set is built once."""
        out = set()
        for name in self.module_files:
            parts = name.split(".")
            out.update(".".join(parts[i:]) for i in range(len(parts)))
        return frozenset(out)

    def _beside_setup(self, name: str, dotted: str) -> bool:
        """`python setup.py build_ext --inplace` puts a top-level extension beside the setup.py that builds it, so
        the files of that folder import it relatively: DUSt3R/CroCo's curope3d.py `from . import curope` next to the
        setup.py building `CUDAExtension(name='curope', ...)` (`dotted` is `curope.curope`: the folder, then the name)."""
        definition = self.modules[name]
        base = os.path.basename(definition.path)
        # a setup script of another name too: HRNet lib/nms/setup_linux.py builds `Extension('gpu_nms', ...)` in place,
        # and lib/nms/nms.py imports `from .gpu_nms import gpu_nms` (set 23, leoxiaobin/deep-high-resolution-net.pytorch)
        if definition.kind != "module" or not (base.startswith("setup") and base.endswith(".py")):
            return False
        # the folder, or the folder qualified by its packages above (`lib.nms.gpu_nms`), then the name
        folders = os.path.dirname(definition.path).replace(os.sep, "/").split("/")
        for start in range(len(folders) - 1, -1, -1):
            spelled = ".".join([*folders[start:], name])
            if dotted == spelled or dotted.startswith(spelled + "."):
                return True
        return False

    def _placed_in_folder(self, name: str, dotted: str) -> bool:
        """A top-level extension a setup script builds (`CUDAExtension(name='shadowkv', ...)`) imported from a folder of
        the repository (`from kernels import shadowkv`): the build leaves the `.so` there (ShadowKV's setup.py moves it,
        `shutil.move(so_file, os.path.join('kernels', so_file))`; an `--inplace` build or a copy does the same), since
        nothing else of that name lies in the folder. Only a folder without `__init__.py` (whose `__init__` could bind
        the name), and only while no Python file or folder of the repository is named like the extension (a real
        `kernels/shadowkv.py` or `kernels/shadowkv/` is what the import finds)."""
        definition = self.modules[name]
        base = os.path.basename(definition.path)
        if definition.kind != "module" or not (base.startswith("setup") and base.endswith(".py")) or name in self.packages:
            return False
        parts = dotted.split(".")
        return any(parts[i] == name and ".".join(parts[:i]) in self.bare_folders
                   and not self._module_file(parts[:i + 1]) and ".".join(parts[:i + 1]) not in self.bare_folders
                   for i in range(1, len(parts)))

    def module_matching(self, pattern: str) -> str | None:
        """The extension module an f-string's pattern (`fstring_pattern`) can name. A build named by an f-string
        itself (`CUDAExtension(name=f"pkg_bindings._{cc}_C")`, one module per GPU architecture, imported as
        `importlib.import_module(f"pkg_bindings._{cc}_C")`) is matched with each of its holes standing for one
        name part."""
        compiled = re.compile(pattern)
        for name, definition in self.modules.items():
            if definition.kind == "value":  # a variable of a module (`pkg.models.ext`), not a module import_module loads
                continue
            spelled = _BUILD_HOLE.sub("0", name)
            if compiled.fullmatch(spelled) or any(compiled.fullmatch(spelled[i + 1:]) for i, c in enumerate(spelled) if c == "."):
                return name
        return None

    def _templated(self, dotted: str) -> str | None:
        """The extension built under an f-string name (`pkg_bindings._{cc}_C`) that `dotted` is, or is inside of
        (`import pkg_bindings._86_C`): a hole stands for one name part."""
        for name in self._names_lookup()[1]:
            pattern = fstring_pattern(name)
            if pattern and re.fullmatch(pattern + r"(?:\.[\w.]+)?", dotted):
                return name
        return None

    def module_for_library(self, stem: str) -> str | None:
        """The extension (or CMake library target) a shared library `lib<stem>.so` / `<stem>.so` is built from."""
        for name, definition in self.modules.items():
            if definition.kind == "module" and name.rsplit(".", 1)[-1] == stem:
                return name
            if definition.mode == "library" and library_stem(name) == stem:  # `libfoo.so` linked by nvcc
                return name  # (migrate/nvcc_libraries.py)
        return None


def digest(index: Index) -> str:
    """Changes whenever a definition the index links against changes (name, place, CUDA or not)."""
    import hashlib

    rows = sorted((d.kind, d.name, d.path, d.line, d.cuda) for table in (index.modules, index.namespaces) for d in table.values())
    rows += sorted((d.kind, d.name, d.path, d.line, d.cuda, d.why, d.mode) for ds in index.exports.values() for d in ds)
    rows += sorted(index.helpers)
    rows += sorted(index.cpu_built)
    if index.star_names:
        rows += sorted((d.kind, d.name, d.path, d.line, d.cuda, d.why) for ds in index.star_names.values() for d in ds)
        rows += sorted(index.stars)
    return hashlib.blake2b(repr(rows).encode(), digest_size=16).hexdigest()


_LAST_INDEX: list = []  # [(key, the facts tuples keyed on, the index)]: the scan's last index


def build_index(results) -> Index:
    """The repository index of `results`' facts. Built once per set of facts: linking builds it on the scan's results
    and the summary again on the final ones (the drops after linking keep each file's facts tuple), so the last index
    is kept with the facts it was built from (held, so their ids stay theirs) and handed out again for the same files
    with the same facts."""
    key = _facts_key(results)
    if _LAST_INDEX and _LAST_INDEX[0][0] == key:
        return _LAST_INDEX[0][2]
    index = _build_index(results)
    _LAST_INDEX[:] = [(key, [getattr(r, "facts", ()) for r in results], index)]
    return index


def _facts_key(results) -> frozenset:
    return frozenset((r.path, id(getattr(r, "facts", ()))) for r in results)  # the same files in any order


def remember(results, index: Index) -> None:
    """`build_index` hands out `index` for `results`' facts from now on: the index of these facts read back from the
    analyze cache (linking.py's plan), so the summary reads it too instead of building it again."""
    _LAST_INDEX[:] = [(_facts_key(results), [getattr(r, "facts", ()) for r in results], index)]


_INDEX_FIELDS = ("modules", "namespaces", "exports", "python_ops", "helpers", "packages", "cpu_built", "star_names", "stars",
                 "module_files", "bare_folders")


def _definition_row(d: Definition) -> list:
    return [d.kind, d.name, d.path, d.line, d.cuda, d.why, d.mode]


def index_to_json(index: Index) -> dict | None:
    """The index as JSON values (the analyze cache stores it: `index_from_json`); None when the Index has fields this
    does not know (a field added later is never silently dropped)."""
    from dataclasses import fields

    if tuple(f.name for f in fields(Index)) != _INDEX_FIELDS:
        return None
    return {
        "modules": [[name, *_definition_row(d)] for name, d in index.modules.items()],
        "namespaces": [[name, *_definition_row(d)] for name, d in index.namespaces.items()],
        "exports": [[name, [_definition_row(d) for d in ds]] for name, ds in index.exports.items()],
        "python_ops": list(index.python_ops), "helpers": list(index.helpers), "packages": list(index.packages),
        "cpu_built": list(index.cpu_built),
        "star_names": [[name, [_definition_row(d) for d in ds]] for name, ds in index.star_names.items()],
        "stars": [[list(parts), list(sources)] for parts, sources in index.stars],
        "module_files": list(index.module_files),
        "bare_folders": list(index.bare_folders),
    }


def _definition_from_row(row) -> Definition:
    kind, name, path, line, cuda, why, mode = row
    if not (isinstance(kind, str) and isinstance(name, str) and isinstance(path, str) and isinstance(why, str)
            and isinstance(mode, str) and isinstance(cuda, bool)):
        raise TypeError("index entry of the wrong shape")
    return Definition(kind, name, path, line, cuda, why, mode)


def _strings(values) -> frozenset:
    if not all(isinstance(v, str) for v in values):
        raise TypeError("index entry of the wrong shape")
    return frozenset(values)


def definition_lists_from_json(rows) -> dict:
    """name -> [Definition] (`Index.exports`, `Index.star_names`) as `index_to_json` stored it."""
    return {name: [_definition_from_row(row) for row in definitions] for name, definitions in rows}


def index_from_json(data: dict) -> Index:
    """The Index `index_to_json` stored (tables in their order); raises KeyError / TypeError / ValueError for a
    stored value of the wrong shape."""
    return Index(
        {name: _definition_from_row(row) for name, *row in data["modules"]},
        {name: _definition_from_row(row) for name, *row in data["namespaces"]},
        definition_lists_from_json(data["exports"]),
        _strings(data["python_ops"]), _strings(data["helpers"]), _strings(data["packages"]), _strings(data["cpu_built"]),
        definition_lists_from_json(data["star_names"]),
        tuple((tuple(parts), tuple(sources)) for parts, sources in data["stars"]),
        _strings(data["module_files"]),
        _strings(data.get("bare_folders", ())),
    )


def _build_index(results) -> Index:
    modules: dict[str, Definition] = {}
    namespaces: dict[str, Definition] = {}
    exports: dict[str, list[Definition]] = {}
    implementations: dict[str, set] = {}
    defaults: list[tuple] = []
    cmake: dict[str, list[Definition]] = {}
    helpers: set[str] = set()
    cpu_built: set[str] = set()
    helper_cpu: list[tuple[str, str, str]] = []  # rows of helper-built CPU builds, with their C++ source names
    bindings: set[str] = set()  # pybind sources binding CUDA-only functions unguarded (migrate/cpu_builds.py)
    absent: list[Definition] = []  # relative imports of CUDA-named modules (migrate/absent_cuda_modules.py)
    submodules: list[Definition] = []
    import_paths: list[str] = []  # folders some file puts on the import path (migrate/submodules.py)
    star_names: dict[str, list[Definition]] = {}
    for result in results:
        for fact in getattr(result, "facts", ()):
            if fact[0] != "def":
                continue
            kind, name, line, cuda = fact[1:5]
            if kind == "jithelper":
                helpers.add(name)
                continue
            if kind == "opdefault":  # a namespace with a Python default kernel (migrate/default_kernels.py)
                defaults.append((name, fact[5] if len(fact) > 5 else "", fact[6] if len(fact) > 6 else ""))
                continue
            if kind == "opimpl":  # who implements a torch.library op (`python_ops`)
                implementations.setdefault(name, set()).add(fact[5])
                continue
            if kind == "submodule":  # a git submodule of a GPU-only package: an extension when it is not checked out
                submodules.append(Definition(kind, name, result.path, line, bool(cuda), *fact[5:7]))
                continue
            if kind == "importpath":  # `sys.path.insert(0, 'third_party/X')`: a research-project submodule's packages
                import_paths.append(name)
                continue
            if kind == cpu_builds.KIND and len(fact) > 5 and fact[5]:  # a helper's CPU build, checked against its bindings
                helper_cpu.append((name, result.path, fact[5]))
                continue
            if kind == "absentrel":  # a relative import of a CUDA-named module (migrate/absent_cuda_modules.py)
                absent.append(Definition(kind, name, result.path, line, True, fact[5]))
                continue
            if kind == cpu_builds.BINDING_KIND:
                bindings.add(name)
                continue
            if kind in ("cpuext", source_set_tables.KIND, cpu_builds.KIND):  # a CPU build, or `<module>|<CPU target>` of a source-set table
                cpu_built.add(name)
                continue
            if kind in ("flag", "triton", "localinstall", "checked", "namedop", "cppop", "cmfind", "cmsub",
                        "cmproj", "cmnpu", "cmcpu", "ascbuild", "ascsrc", "reflholder", "reflop", "pipinstaller", "pipcall") or kind.startswith("cfg"):  # an availability flag (migrate/imported_flags.py), a
                # Triton kernel (migrate/imported_kernels.py), a local install (migrate/local_installs.py), a package checked
                # under an option (migrate/requirement_checks.py), ops called or registered by name (migrate/named_ops.py),
                # a CMake Find module pulled in (migrate/cmake_find_modules.py), a folder a CMakeLists.txt adds or its
                # project() (migrate/cmake_subdirs.py), an NPU build switch (migrate/cmake_npu_switch.py), an Ascend build or
                # NPU-header source (migrate/ascend_builds.py), an option compared or set
                # (migrate/config_options.py), a holder of reflected ops (migrate/reflected_ops.py), a pip installer and its calls
                # (migrate/runtime_installers.py): no extension
                continue
            if kind in ("cmlink", "cmvar", "cmakeext", "extlink", PYBIND_KIND):  # the CMake link graph (`link_cmake_modules`)
                cmake.setdefault(kind, []).append(Definition(kind, name, result.path, line, False, *fact[5:7]))
                continue
            if kind == "starexp":  # a GPU-only package a star import may carry (migrate/star_imports.py)
                named = [f[1][4:] for f in result.facts if f[0] == "ref" and f[1].startswith("all:")]
                if named and name not in named:
                    continue  # a literal `__all__` leaves it out of a star import
                star_names.setdefault(name, []).append(Definition(kind, name, result.path, line, bool(cuda), *fact[5:7]))
                continue
            if kind == "export":
                exports.setdefault(name, []).append(Definition(kind, name, result.path, line, bool(cuda), *fact[5:7]))
                continue
            definition = Definition(kind, name, result.path, line, bool(cuda), *fact[5:7])
            table = modules if kind in ("module", "value") else namespaces
            current = table.get(name)
            # an extension's build beats a re-export that spells the same dotted name (`from . import nms_rotated_cuda`
            # in the package the build puts it in): whichever file was read first, the name is the built module
            if current is None or (definition.cuda and not current.cuda) or (
                    kind == "module" and current.kind == "value" and definition.cuda >= current.cuda):
                table[name] = definition
    if helper_cpu:
        cpu_built |= cpu_builds.kept_rows(helper_cpu, bindings)
    if absent:
        from migrate import absent_cuda_modules

        for definition in absent_cuda_modules.missing_modules(absent, [r.path for r in results], modules):
            modules.setdefault(definition.name, definition)
    if submodules:
        from migrate import submodules as git_submodules

        for definition in git_submodules.missing_extensions(submodules, [r.path for r in results]):
            modules.setdefault(definition.name, definition)
        if import_paths:
            scanned = [r.path for r in results]
            for definition in git_submodules.project_packages(submodules, scanned, import_paths):
                modules.setdefault(definition.name, definition)
    if cmake:
        link_cmake_modules(modules, cmake.get("cmlink", []), cmake.get("cmvar", []), cmake.get("cmakeext", []))
        _link_extensions_to_cmake(modules, cmake.get("extlink", []))
        _pybind_targets(modules, cmake.get(PYBIND_KIND, []))
    # the repository's Python folder and module names (`Index._misplaced`; `_cmake_python_modules` below)
    packages = frozenset(part for r in results if r.path.endswith(".py") for part in _module_parts(r.path))
    module_files = _module_files(results)
    bare_folders = _bare_folders(results)
    if any(d.path.endswith("CMakeLists.txt") for d in modules.values()):
        _cmake_library_names(modules, results)
        packages = _cmake_python_modules(modules, results)
    if any(d.mode in ("via", "wrap", "accessor", "builder", "lazy") for d in modules.values()):
        from migrate import kernel_values

        resolver = Index(modules, namespaces, packages=packages, module_files=module_files, bare_folders=bare_folders)
        kernel_values.resolve_wrappers(modules, resolver.module_for, namespaces, python_ops(implementations), resolver.module_matching)
    if modules:  # values re-exported by any module, star imports of the repository's own modules
        from migrate import kernel_values

        kernel_values.module_reexports(results, modules, Index(modules, namespaces, packages=packages,
                                                               module_files=module_files,
                                                               bare_folders=bare_folders).module_for)
    stars = _star_imports(results) if star_names or exports else ()
    if star_names:  # kept for the modules some file star-imports only (a plain import of such a module reads none)
        sources = {tuple(s.split(".")) for _, ss in stars for s in ss}
        star_names = {name: kept for name, ds in star_names.items()
                      if (kept := [d for d in ds if any(_suffix(list(module_parts(d.path)), list(s)) for s in sources)])}
    ops = python_ops(implementations)
    if defaults:  # ops an NPU tensor dispatches to a plain-PyTorch default kernel (migrate/default_kernels.py)
        from migrate import default_kernels

        ops |= default_kernels.served(defaults, modules)
    return Index(modules, namespaces, exports, ops, frozenset(helpers), packages, frozenset(cpu_built),
                 star_names, stars, module_files, bare_folders)


def _module_files(results) -> frozenset:
    """`Index.module_files`: the dotted names of the plain `.py` files (not `__init__.py`) of `results`, less any that
    is also a folder's dotted name (a package folder beside a same-named file is what the import finds)."""
    files, folders = set(), set()
    for r in results:
        if not r.path.endswith(".py"):
            continue
        parts = _module_parts(r.path)
        if not parts:
            continue
        if os.path.basename(r.path) == "__init__.py":
            folders.add(".".join(parts))
        else:
            files.add(".".join(parts))
            folders.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(files - folders)


def _bare_folders(results) -> frozenset:
    """`Index.bare_folders`: the dotted names of the folders that hold a scanned file of any kind, less those holding
    an `__init__.py`."""
    folders, packages = set(), set()
    for r in results:
        parts = [p for p in os.path.normpath(r.path).replace(os.sep, "/").split("/") if p and p not in (".", "..")]
        folders.update(tuple(parts[:i]) for i in range(1, len(parts)))
        if parts and parts[-1] == "__init__.py":
            packages.add(tuple(parts[:-1]))
    # each with its dotted suffixes: a scan given an absolute root names its files from there (`/tmp/x/kernels/a.cu`)
    return frozenset(".".join(folder[i:]) for folder in folders - packages for i in range(len(folder)))


def _star_imports(results) -> tuple:
    """(module parts, star-imported modules) of each Python file with a star import, from its `X.*` references
    (`import_facts`, source order lost: sorted; a name two of them carry is then the later one's by name)."""
    out = []
    for result in results:
        if not result.path.endswith(".py"):
            continue
        sources = tuple(sorted(f[1][:-2] for f in getattr(result, "facts", ()) if f[0] == "ref" and f[1].endswith(".*")))
        if sources:
            out.append((module_parts(result.path), sources))
    return tuple(out)


def _link_extensions_to_cmake(modules: dict, links: list) -> None:
    """A C++ extension (`CppExtension` / setuptools `Extension`) that links a library the repository's CMake builds
    with CUDA (`libraries=['warprnnt']` beside `CUDA_ADD_LIBRARY(warprnnt SHARED ...)`, HawkAaron/warp-transducer
    pytorch_binding/setup.py) runs CUDA kernels: it is a CUDA module (its sources: the library's)."""
    for link in links:
        for library in link.why.split():
            target = modules.get(library)
            if target is not None and target.cuda and target.path.endswith("CMakeLists.txt") and link.name not in modules:
                modules[link.name] = Definition("module", link.name, link.path, link.line, True, target.why)
                break


def _cmake_library_names(modules: dict, results) -> None:
    """A CMake library target named like a Python package of the repository (`cuda_add_library(vptq SHARED ...)`
    beside the package `vptq/`, microsoft/VPTQ) is not that package: the file it builds is `lib<name>.so`, which
    Python imports as `lib<name>` wherever the build puts it (`import vptq.libvptq`: its
    `PYBIND11_MODULE(libvptq, m)`). Such a target is keyed `lib<name>` (`Index.module_for` matches it as any
    part of a dotted import); a target named otherwise keeps its name."""
    packages = {part for r in results if r.path.endswith(".py") for part in _module_parts(r.path)}
    for name in [n for n, d in modules.items() if "." not in n and n in packages and d.path.endswith("CMakeLists.txt")]:
        definition = modules.pop(name)
        modules.setdefault(f"lib{name}", definition)


def _cmake_python_modules(modules: dict, results) -> frozenset:
    """The repository's Python folder and module names, for `Index.module_for`'s match of a CMake Python extension
    (mode "pymodule") inside a dotted import. An extension named like a Python module of the repository (a
    `_kernels.py` beside the build) is matched as written only: the import may be that file."""
    parts = [_module_parts(r.path) for r in results if r.path.endswith(".py")]
    stems = {p[-1] for p in parts if p}
    for name, definition in list(modules.items()):
        if definition.mode == "pymodule" and name in stems:
            modules[name] = Definition(definition.kind, name, definition.path, definition.line, definition.cuda, definition.why)
    return frozenset(part for p in parts for part in p)


def python_ops(implementations) -> frozenset:
    """`ns::op` names whose every registered implementation is a Python function of the repository:
    `implementations` maps an op to the kinds its registrations gave ("python" / "other"), or is the
    "opimpl" Definitions of one file."""
    if not isinstance(implementations, dict):
        grouped: dict[str, set] = {}
        for d in implementations:
            if d.kind == "opimpl":
                grouped.setdefault(d.name, set()).add(d.why)
        implementations = grouped
    return frozenset(op for op, kinds in implementations.items() if kinds == {"python"})


def _suffix(parts: list[str], wanted: list[str]) -> bool:
    return bool(wanted) and len(parts) >= len(wanted) and parts[len(parts) - len(wanted):] == wanted


def files_to_link(results, index: Index) -> list:
    """Results whose facts reference a defined name, plus the files defining a JIT-loaded module
    (its `ext = load(...)` variable is used in the same file). A file whose only link is an import
    of an exporting module (NPU510) is kept only when a name it uses through its imports reaches
    an exported name (its `use` fact; a file without one is kept): most files importing a module
    use other names of it, and each kept file is parsed again."""
    kernel_refs: dict[str, bool] = {}  # files share most of their references: each is matched once
    kernel_uses: dict[str, bool] = {}  # the same for the names files use (`_uses_a_kernel_module`)
    export_refs: dict[str, bool] = {}
    # a CMake Python extension a module of the repository imports is reached through that module too (`import
    # pkg.util` then `pkg.util._kernels.op(...)`): a file importing such a module is linked (NPU508 reads its chains)
    importers: set[tuple] = set()
    if any(d.mode == "pymodule" for d in index.modules.values()):
        found: dict[str, str | None] = {}  # files share most of their references: each is looked up once

        def pymodule(ref: str) -> bool:
            name = found[ref] if ref in found else found.setdefault(ref, index.module_for(ref))
            return name is not None and index.modules[name].mode == "pymodule"

        for result in results:
            refs = [f[1] for f in getattr(result, "facts", ()) if f[0] == "ref"]
            if result.path.endswith(".py") and any(pymodule(r) for r in refs if not r.startswith(("ops:", "re:", "so:", "cu:", "all:"))):
                parts = _module_parts(result.path)
                importers.update(parts[start:] for start in range(len(parts)))
    out = []
    for result in results:
        facts = getattr(result, "facts", ())
        refs = [f[1] for f in facts if f[0] == "ref"]
        for ref in refs:
            if ref not in kernel_refs:
                kernel_refs[ref] = index.matches_kernel(ref)
                export_refs[ref] = index.matches_export(ref)
        if any(f[0] == "def" and f[1] == "module" for f in facts) or any(kernel_refs[r] for r in refs) or (
                index.helpers and result.path.endswith(".py") and index.helper_functions(result.path)):
            out.append(result)
        elif any(export_refs[r] for r in refs):
            uses = next((f[1] for f in facts if f[0] == "use"), None)
            if uses is None or any(f[0] == "def" and f[1] == "value" for f in facts) or index.reaches(uses):
                out.append(result)
        elif importers and any(tuple(r.split(".")) in importers for r in refs):
            out.append(result)
        elif _uses_a_kernel_module(facts, index, kernel_uses):
            out.append(result)
    return out


def _uses_a_kernel_module(facts, index: Index, seen: dict[str, bool]) -> bool:
    """A chain through the package reaches one of its compiled modules without importing it: kaolin's tests do
    `import kaolin as kal` and call `kal._C.render.mesh.dibr_soft_mask_forward_cuda(...)`, the `_C` attribute being
    set on the package when any of its modules imports it (label note 46b: the call is a label, as (L79)). The
    file's "use" names (`link_uses`) hold `kaolin._C.render.mesh...`: a name past its first part naming an extension
    module of the scan links the file (NPU508 reads its chains)."""
    uses = next((f[1] for f in facts if f[0] == "use"), None)
    if not uses:
        return False
    for dotted in uses.split():
        if "." not in dotted:
            continue
        hit = seen.get(dotted)
        if hit is None:
            module = index.module_for(dotted)
            hit = seen[dotted] = module is not None and "." in module and index.modules[module].kind == "module"
        if hit:
            return True
    return False
