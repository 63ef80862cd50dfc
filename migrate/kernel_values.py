"""Values that stand for compiled CUDA code, followed across a repository's own modules (NPU508).

`migrate/repo_index.py` records where extensions are built. This module adds the two ways real
repositories hand such a build to the rest of their code that a literal `CUDAExtension(name="m")`
does not show:

- a **module-level variable bound to a JIT build** (`_backend = load(name="_raymarching", ...)` in
  `raymarching/backend.py`, torch-ngp) is an attribute of that module: `from .backend import
  _backend` elsewhere imports the compiled extension, and `_backend.op(...)` calls it. Recorded as a
  definition of kind "value" named `<the file's dotted module>.<variable>` whose `why` is the
  extension's own name;
- a **project build helper** (`def make_cuda_ext(name, module, sources, sources_cuda=None): ...
  return CUDAExtension(name=f"{module}.{name}", ...)` in BasicSR's / mmdetection's setup.py) builds
  an extension whose name is computed from the helper's arguments: each call with literal arguments
  (`make_cuda_ext(name="deform_conv_ext", module="basicsr.ops.dcn", ...)`) defines the module
  `basicsr.ops.dcn.deform_conv_ext`, which `from . import deform_conv_ext` in `basicsr/ops/dcn/` imports.

Both are read from one file's syntax tree in the per-file pass (facts, cached with the file), so the
cost stays linear in the repository's size; nothing is executed.
"""

from __future__ import annotations

import ast
import re

from migrate import op_register_aliases
from migrate.context import walk_nodes

_EXT = "torch.utils.cpp_extension"
_JIT = (f"{_EXT}.load", f"{_EXT}.load_inline")


def _scope_is_module(ctx, node) -> bool:
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        parent = ctx.parent(parent)
    return True


def module_values(ctx, defs) -> list:
    """Module-level variables of this file bound to a CUDA extension it JIT-builds (`defs`: this
    file's definitions from `repo_index.python_defs`): kind "value" definitions."""
    from migrate.repo_index import Definition, jit_cuda_build_wrapper, module_parts

    built = {(d.line, d.name) for d in defs if d.kind == "module"}
    if not built:
        return []
    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    out = []
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if not (isinstance(value, ast.Call) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            continue
        name = ctx.qualname(value.func)
        helper = isinstance(value.func, ast.Name) and name is None  # `_knn = load_cpp_ext("knn")`: helper_builds' line
        if name not in _JIT and not jit_cuda_build_wrapper(ctx, value, name) and not helper:
            continue
        extension = next((n for line, n in built if line == value.lineno), None)
        if extension is None or not _scope_is_module(ctx, statement) or loader_object(ctx, value):
            continue
        out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, value.lineno, True, extension))
    return out


_CLASS_NAME = re.compile(r"^_*[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")


def loader_object(ctx, call: ast.Call) -> bool:
    """`_EXT = TorchOpsJitExtension(name="m", sources=..., extra_cuda_cflags=...)`: a project CLASS given the build's
    parameters makes a Python object that builds and loads the extension on demand, not the compiled module. Its
    attributes are the class's own (`_EXT.clear_cache()`, `_EXT.last_error_message()`, `_EXT._op_cache`), no op of
    the extension; the ops it hands out by name are migrate/named_ops.py's. Known by the callee's CapWords name (as
    PEP 8 names classes) or a class of the file; the build itself stays reported at the construction (NPU505)."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id if isinstance(call.func, ast.Name) else ""
    return bool(_CLASS_NAME.match(last)) or any(c.name == last for c in ctx.nodes.get(ast.ClassDef, ()))


def _builds_cuda(ctx, function) -> ast.Call | None:
    """The `CUDAExtension(...)` call (direct, or through a variable bound to it) or the JIT build of CUDA
    sources (`load(name=ext_name, ..., with_cuda=True)`: KNN_CUDA's `load_cpp_ext("knn")`) inside `function`."""
    if id(function) not in _functions_building_cuda(ctx):
        return None
    for node in walk_nodes(function):  # the first such call in the order of the walk
        if node.__class__ is ast.Call and _is_cuda_build(ctx, node):
            return node
    return None


def _is_cuda_build(ctx, node: ast.Call) -> bool:
    from migrate.repo_index import _jit_with_cuda, extension_class_variables

    name = ctx.qualname(node.func)
    if name == f"{_EXT}.CUDAExtension" or (isinstance(node.func, ast.Name) and node.func.id in extension_class_variables(ctx)):
        return True
    return name in _JIT and _jit_with_cuda(ctx, node)


def _may_name_cpp_extension(ctx) -> bool:
    """Whether a name of this file can resolve to one of `torch.utils.cpp_extension` (`ctx.qualname`: an import's
    module, relative ones resolved, and the attributes after it): the file, its path or one of its imports holds
    the word. Without it no call is a CUDA build (`_is_cuda_build`)."""
    word = "cpp_extension"
    return word in ctx.source or word in ctx.path or any(word in module for module in ctx.imports.values())


def _functions_building_cuda(ctx) -> frozenset[int]:
    """id() of every function holding a CUDA build call (`_is_cuda_build`), found with one pass over the
    file's calls: `helper_builds` asks about every function, and walking each one (nested ones again
    for each enclosing function) cost more than the rest of the file's facts on large files."""
    cached = ctx.__dict__.get("_npu_functions_building_cuda")
    if cached is not None:
        return cached
    if not _may_name_cpp_extension(ctx):
        ctx.__dict__["_npu_functions_building_cuda"] = out = frozenset()
        return out
    from migrate.repo_index import _jit_with_cuda, extension_class_variables

    out: set[int] = set()
    variables, qualname, name_type, extension = extension_class_variables(ctx), ctx.qualname, ast.Name, f"{_EXT}.CUDAExtension"
    for call in ctx.nodes.get(ast.Call, ()):  # `_is_cuda_build` of each call, inlined (asked ~250k times on torch)
        func = call.func
        name = qualname(func)
        if not (name == extension or (func.__class__ is name_type and func.id in variables)
                or (name in _JIT and _jit_with_cuda(ctx, call))):
            continue
        parent = ctx.parent(call)
        while parent is not None:
            out.add(id(parent))
            parent = ctx.parent(parent)
    ctx.__dict__["_npu_functions_building_cuda"] = out = frozenset(out)
    return out


def _render(node, env: dict) -> str | None:
    """The string `node` evaluates to with the helper's parameters bound to `env` (literals,
    f-strings, `+`, parameter names); None when it depends on anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion not in (-1, 115):
                    return None
                text = _render(value.value, env)
            else:
                text = _render(value, env)
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, env), _render(node.right, env)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _render_percent(node, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _render_format(node, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join":
        return _render_join(node, env)
    return None


def _render_join(call, env: dict) -> str | None:
    """`".".join([module, name])` (Gorilla-Lab's `make_extension`: `CUDAExtension(name=".".join([module, name]))`):
    a literal separator joining a literal list or tuple of renderable parts; None otherwise."""
    separator = call.func.value
    if not (isinstance(separator, ast.Constant) and isinstance(separator.value, str)) or call.keywords or len(call.args) != 1:
        return None
    parts = call.args[0]
    if not isinstance(parts, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in parts.elts):
        return None
    texts = [_render(e, env) for e in parts.elts]
    return None if any(t is None for t in texts) else separator.value.join(texts)


def _render_format(call, env: dict) -> str | None:
    """`'{}.{}'.format(module, name)` / `'{0}.{1}'` / `'{module}.{name}'.format(module=..., name=...)`
    (open-mmlab's `make_cuda_ext`, MVIG-SJTU/AlphaPose setup.py): plain replacement fields only (no
    attribute, index, conversion or format spec); None otherwise."""
    import string

    template = _render(call.func.value, env)
    if template is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    args = [_render(a, env) for a in call.args]
    kwargs = {k.arg: _render(k.value, env) for k in call.keywords}
    parts, auto = [], 0
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for literal, field, spec, conversion in fields:
        parts.append(literal)
        if field is None:
            continue
        if spec or conversion not in (None, "s"):
            return None
        if field == "":
            field, auto = str(auto), auto + 1
        value = (args[int(field)] if int(field) < len(args) else None) if field.isdigit() else kwargs.get(field)
        if value is None:
            return None
        parts.append(value)
    return "".join(parts)


def _render_percent(node, env: dict) -> str | None:
    """`'%s.%s' % (module, name)` / `'%s' % name`: `%s` fields only (and `%%`); None otherwise."""
    template = _render(node.left, env)
    if template is None:
        return None
    values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    pieces = re.split(r"(%.)", template)
    out, index = [], 0
    for piece in pieces:
        if piece == "%%":
            out.append("%")
        elif piece.startswith("%") and len(piece) == 2:
            if piece != "%s" or index >= len(values):
                return None
            text = _render(values[index], env)
            if text is None:
                return None
            out.append(text)
            index += 1
        elif "%" in piece:
            return None
        else:
            out.append(piece)
    return "".join(out) if index == len(values) else None


_CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c")


def _cpp_only(node) -> bool:
    """`node` lists C/C++ source files (string literals) and no CUDA source."""
    names = [n.value.strip() for n in walk_nodes(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return any(name.endswith(_CPP_SUFFIXES) for name in names) and not any(name.endswith((".cu", ".cuh")) for name in names)


def build_helpers(ctx) -> dict[str, tuple[ast.FunctionDef, ast.AST]]:
    """Project build helpers defined in this file (`def make_cuda_ext(name, module, sources, sources_cuda=None)`
    whose body builds a CUDA extension named from its parameters): function name -> (function, name node)."""
    if "CUDAExtension" not in ctx.source and "cpp_extension" not in ctx.source:
        return {}
    helpers: dict[str, tuple[ast.FunctionDef, ast.AST]] = {}
    for function in ctx.nodes.get(ast.FunctionDef, ()):
        build = _builds_cuda(ctx, function)
        if build is None:
            continue
        name_node = ctx.keyword(build, "name") or (build.args[0] if build.args else None)
        params = {a.arg for a in function.args.args + function.args.kwonlyargs}
        if name_node is None or not any(isinstance(n, ast.Name) and n.id in params for n in walk_nodes(name_node)):
            continue  # a literal name is already a definition of its own (repo_index.python_defs)
        helpers[function.name] = (function, name_node)
    return helpers


def _per_value_name(call, name_node, positional: list[str], env: dict) -> str | None:
    """The templated module name of a helper call given a computed value for a parameter the name is formed from
    (`ext_modules = [make_extension(cc) for cc in archs]`, the helper building
    `CUDAExtension(name=f"pkg_bindings._{compute_capability}_C", ...)`: one module per GPU architecture):
    `pkg_bindings._{compute_capability}_C`, the hole standing for one name part (repo_index.fstring_pattern), so
    that `importlib.import_module(f"pkg_bindings._{cc}_C")` and `import pkg_bindings._86_C` reach it. Only a name that
    begins with a literal holding a dot (the package of the per-value modules pins it: `{name}_cuda` could be any
    `*_cuda` module) and whose unknown parts are whole parameters given plain names (a loop variable)."""
    given = {param: arg for param, arg in zip(positional, call.args)}
    given.update({k.arg: k.value for k in call.keywords if k.arg})
    holes = dict(env)
    for param, arg in given.items():
        if param not in holes and isinstance(arg, ast.Name):
            holes[param] = "{" + param + "}"
    module = _render(name_node, holes)
    if module is None or module == _render(name_node, env):
        return None
    prefix = module.split("{", 1)[0]
    return module if "." in prefix.strip(".") and re.fullmatch(r"[\w.{}]+", module) else None


def _global_cache_builds(ctx) -> set[int]:
    """Lines of the JIT builds whose result a loader stores in a module global (bound to None at the top, declared
    `global` in the loader), the per-size kernel cache of RWKV-style attention:

        wkv_kernel = None                                       # the stand-in
        def load_wkv_kernel(context_size):
            global wkv_kernel
            wkv_kernel = load(name=f"wkv_{context_size}", sources=[...  "wkv_cuda.cu"], ...)
        class WKV(torch.autograd.Function):
            def forward(ctx, w, u, k, v):
                wkv_kernel.forward(w, u, k, v, out)             # an op of the build: runs it

    The build's name is a template of the loader's parameter (not importable by that spelling), but the global holds
    the compiled module whatever the parameter is, so the build stays a module definition (`wkv_{context_size}`) that
    the name is linked to (NPU508 `_bind`), whether or not a call of the loader is found here."""
    if "global" not in ctx.source:
        return set()
    standins = {t.id for statement in ctx.tree.body if isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Constant) and statement.value.value is None
                for t in statement.targets if isinstance(t, ast.Name)}
    out: set[int] = set()
    for declaration in ctx.nodes.get(ast.Global, ()):
        function = ctx.enclosing(declaration, (ast.FunctionDef, ast.AsyncFunctionDef))
        names = set(declaration.names) & standins
        if function is None or not names:
            continue
        for statement in walk_nodes(function):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id in names \
                    and isinstance(statement.value, ast.Call) and _is_cuda_build(ctx, statement.value):
                out.add(statement.value.lineno)
    return out


def helper_builds(ctx) -> tuple[list, set[int]]:
    """Extensions declared through a project build helper defined in the same file: one module
    definition per helper call whose arguments make the extension's name a literal; and the lines of
    the helpers' own build calls (their name is a template, `{module}.{name}`, not a module)."""
    from migrate.repo_index import Definition

    helpers = build_helpers(ctx)
    if not helpers:
        return [], set()
    templates = {name_node.lineno for _, name_node in helpers.values()} | {
        build.lineno for function, _ in helpers.values() for build in [_builds_cuda(ctx, function)] if build is not None}
    templates -= _global_cache_builds(ctx)
    from migrate import cpu_builds

    cpu_classes = cpu_builds.cpu_class_variables(ctx)
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        if not (isinstance(call.func, ast.Name) and call.func.id in helpers):
            continue
        function, name_node = helpers[call.func.id]
        positional = [a.arg for a in function.args.args]
        env: dict[str, str] = {}
        for param, arg in zip(positional, call.args):
            text = _render(arg, {})
            if text is not None:
                env[param] = text
        for keyword in call.keywords:
            text = _render(keyword.value, {}) if keyword.arg else None
            if text is not None:
                env[keyword.arg] = text
        module = _render(name_node, env)
        if module is None:
            module = _per_value_name(call, name_node, positional, env)
        if module and _cpp_only(call) and not any(
                isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip().endswith((".cu", ".cuh"))
                for n in walk_nodes(function)):
            # `make_cuda_ext(name='nms_cpu', sources=['src/nms_cpu.cpp'])` (MVIG-SJTU/AlphaPose setup.py, set 22):
            # C++ sources only, compiled by the host compiler: a CPU extension whose ops are not CUDA kernels
            continue
        if module:
            from migrate.repo_index import cuda_sources

            out.append(Definition("module", module, ctx.path, call.lineno, True, cuda_sources(call)))
            build = _builds_cuda(ctx, function)
            if build is not None and isinstance(build.func, ast.Name) and build.func.id in cpu_classes:
                # the helper builds it with CppExtension where there is no CUDA (mmdet's make_cuda_ext: `else:
                # extension = CppExtension`): a CPU build of this module too (migrate/cpu_builds.py, label note 48b b-4)
                # (its C++ source names: a binding among them that binds the CUDA functions unguarded is no CPU build)
                out.append(Definition(cpu_builds.KIND, cpu_builds.row(module), ctx.path, call.lineno, False,
                                      cpu_builds.source_names(call)))
    return out, templates


# ---- wrappers of a kernel op: Function.apply aliases, functools.partial, accessors ------------------------
WRAPPER_HINTS = (".apply", "partial(", "return ", "torch.ops.")
WRAPPER = "wrap"  # mode of a Function.apply alias: calling it runs the op inside the Function's body
ACCESSOR = "accessor"  # mode of a function returning the extension: what a call of it returns is the extension
BUILDER = "builder"  # mode of a function that JIT-builds the extension when called and returns it: a build helper (L10)
ACCESSORS = (ACCESSOR, BUILDER)
LAZY = "lazy"  # mode of a module attribute a PEP 562 `__getattr__` loads on first access (migrate/lazy_backends.py)


def _imported_names(ctx) -> dict[str, str]:
    """Local name -> full dotted name for every import of the file, relative ones resolved against its
    path (the name resolver leaves those out)."""
    from migrate.repo_index import _resolve_relative

    out: dict[str, str] = {}
    for statement in ctx.nodes.get(ast.Import, ()):
        for alias in statement.names:
            out[alias.asname or alias.name.split(".", 1)[0]] = alias.name if alias.asname else alias.name.split(".", 1)[0]
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level else (statement.module or "")
        for alias in statement.names:
            if alias.name != "*":
                out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return out


def _chain(node) -> tuple[str, list[str]] | None:
    """(root name, attributes) of `a.b.c`; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, parts[::-1]) if isinstance(node, ast.Name) else None


def _refs(node, local: dict[str, set[str]]) -> set[str]:
    """Dotted names (imports of the file, module variables standing for them) that `node` mentions."""
    out: set[str] = set()
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Name) and sub.id in local:
            out |= local[sub.id]
    return out


def wrapper_values(ctx, defs) -> list:
    """Module-level names of this file that wrap a kernel op: `my_op = MyFn.apply` (a `Function` whose
    body mentions an imported / JIT-built extension), `op = partial(_C.op, ...)`, and an accessor
    `def get_backend(): return _backend` (also through a variable it stored it in). Recorded as kind
    "value" definitions of mode "via" (the value is the extension or its op), ACCESSOR (a function
    whose call returns the extension: `_C = utils.get_ext()` in another module binds `_C` to it) or WRAPPER (a
    `Function.apply` alias, whose callers run the op through it) whose `why` lists the dotted names they mention; the index keeps
    those whose names resolve to an extension of the scan (`repo_index.build_index`), so the decision
    needs the whole repository but the facts stay per file."""
    from migrate.repo_index import Definition, _never_an_extension, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    out = _op_aliases(ctx, dotted) if "torch.ops." in ctx.source else []

    # the standard library and torch are never a repository's extension (as in repo_index.python_refs)
    local: dict[str, set[str]] = {k: {v} for k, v in _imported_names(ctx).items() if not _never_an_extension(v)}
    for d in defs:
        if d.kind == "value" and d.path == ctx.path:
            local.setdefault(d.name.rsplit(".", 1)[1], set()).add(d.name)
    module_level = {t.id for s in ctx.tree.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    module_level |= {n for g in ctx.nodes.get(ast.Global, ()) for n in g.names}
    for statement in ctx.nodes.get(ast.Assign, ()):  # `BACKEND = _backend` (module level or `global BACKEND`)
        refs = _refs(statement.value, local) if isinstance(statement.value, (ast.Name, ast.Attribute)) else set()
        if refs:
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id in module_level:
                    local.setdefault(target.id, set()).update(refs)
    functions: dict[str, set[str]] = {}  # autograd Function classes -> what their bodies mention
    for cls in ctx.tree.body:
        if isinstance(cls, ast.ClassDef) and any((_chain(b) or ("", []))[0] == "Function" or (_chain(b) or ("", [""]))[1][-1:] == ["Function"] for b in cls.bases):
            refs = _refs(cls, local)
            if refs:
                functions[cls.name] = refs
    # a function-local variable bound by a build of this file (`m = _load_helper("m", sources, flags)`, a build
    # `repo_index` recorded at that line) and returned (`return m`): the function is an accessor of the extension
    # (BigVGAN alias_free_activation/cuda/load.py `def load(): ... return anti_alias_activation_cuda`)
    built = {d.line: d.name for d in defs if d.kind == "module" and d.path == ctx.path}
    built_locals: dict[int, dict[str, set[str]]] = {}  # id(top-level function) -> local name -> the module built
    if built:
        for statement in ctx.nodes.get(ast.Assign, ()):
            if isinstance(statement.value, ast.Call) and statement.value.lineno in built and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name) and not _scope_is_module(ctx, statement):
                top = statement
                while (parent := ctx.parent(top)) is not None and parent is not ctx.tree:
                    top = parent
                built_locals.setdefault(id(top), {})[statement.targets[0].id] = {built[statement.value.lineno]}
    if not local and not built_locals and not built:
        return out
    # top-level functions holding a `return <name>` that mentions one of them: the only accessors
    # (found from the file's Return nodes; walking every function of a large module cost more than the rest)
    accessors = set()
    for node in ctx.nodes.get(ast.Return, ()):
        top = node
        while (parent := ctx.parent(top)) is not None and parent is not ctx.tree:
            top = parent
        if _returned_build(node, built, top if isinstance(top, ast.FunctionDef) else None) or _returned_call(node, local):
            accessors.add(id(top))
            continue
        if built_locals and isinstance(node.value, ast.Name):
            top = node
            while (parent := ctx.parent(top)) is not None and parent is not ctx.tree:
                top = parent
            if node.value.id in built_locals.get(id(top), {}):
                accessors.add(id(top))
                continue
        if isinstance(node.value, (ast.Name, ast.Attribute)) and _refs(node.value, local):
            top = node
            while (parent := ctx.parent(top)) is not None and parent is not ctx.tree:
                top = parent
            accessors.add(id(top))

    def add(name: str, line: int, refs: set[str], mode: str = "via") -> None:
        out.append(Definition("value", f"{dotted}.{name}", ctx.path, line, True, " ".join(sorted(refs)), mode))

    for statement in ctx.tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            value, refs = statement.value, set()
            if isinstance(value, ast.Call) and value.args and (ctx.qualname(value.func) == "functools.partial"):
                value = value.args[0]
                refs = _refs(value, local) if isinstance(value, (ast.Name, ast.Attribute)) else set()
            chain = _chain(value)
            if chain and chain[1] == ["apply"] and chain[0] in functions:  # a wrapper: its body calls the op
                add(statement.targets[0].id, statement.lineno, refs | functions[chain[0]], WRAPPER)
            elif refs:  # a partial of the op itself
                add(statement.targets[0].id, statement.lineno, refs)
        elif isinstance(statement, ast.FunctionDef) and id(statement) in accessors:
            own = built_locals.get(id(statement), {})
            returns = [node for node in walk_nodes(statement) if isinstance(node, ast.Return)]
            found, builds = set(), False
            for node in returns:  # the extension itself returned, before the result of a call
                if isinstance(node.value, (ast.Name, ast.Attribute)):
                    builds = isinstance(node.value, ast.Name) and node.value.id in own  # built in the function, then returned
                    found = own[node.value.id] if builds else _refs(node.value, local)
                    found = found | _chain_refs(node.value, local) if found else found
                    if found:
                        break
            for node in returns if not found else ():
                found = _returned_build(node, built, statement)
                builds = bool(found)  # `return jit.load(...)`: each call builds
                found = found or _returned_call(node, local)
                if found:
                    break
            if found:
                add(statement.name, statement.lineno, found, BUILDER if builds else ACCESSOR)
    return out


RETURNED = "ret:"  # a mentioned function whose *result* the value is (an accessor's call: `return build_and_load()`)


def _chain_refs(node, local: dict[str, set[str]]) -> set[str]:
    """`pkg.kernels._backend._C` for `_backend._C` (after `from . import _backend`): the attribute a module holds,
    which may itself be an extension value (a lazily loaded one: migrate/lazy_backends.py)."""
    chain = _chain(node)
    if chain is None or not chain[1] or chain[0] not in local:
        return set()
    return {".".join([ref, *chain[1]]) for ref in local[chain[0]]}


def _returned_build(node, built: dict, function=None) -> set[str]:
    """`return jit.load(name=..., ...)`: the build of this file the function returns, directly (gsplat
    geometry/kernels/cuda/build.py `build_and_load_geometry_cuda`). Not where the name is one of the function's
    parameters (`def build(name, flags): return load(name=name, ...)`): a helper of any build, no one extension."""
    value = node.value
    if not (isinstance(value, ast.Call) and value.lineno in built):
        return set()
    from migrate.repo_index import WRAPPER_NAME_KEYWORDS

    named = next((k.value for k in value.keywords if k.arg in WRAPPER_NAME_KEYWORDS), value.args[0] if value.args else None)
    root = _chain(named)[0] if named is not None and _chain(named) else None
    if function is not None and root in {a.arg for a in function.args.args + function.args.kwonlyargs}:
        return set()
    standalone = next((k.value for k in value.keywords if k.arg == "is_python_module"), None)
    # `is_python_module=False`: the build returns the library's path (a test executable), no module
    return set() if isinstance(standalone, ast.Constant) and standalone.value is False else {built[value.lineno]}


def _returned_call(node, local: dict[str, set[str]]) -> set[str]:
    """`return build_and_load_ext()`: the result of calling an imported function (`from .cuda.build import
    build_and_load_ext` inside the function): the extension when that function is an accessor (`RETURNED` refs,
    which `resolve_wrappers` keeps only then)."""
    value = node.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))):
        return set()
    return {RETURNED + ref for ref in _refs(value.func, local)} if _chain(value.func) else set()


OPS = "ops:"  # a mentioned `torch.ops.<ns>.<op>`, written `ops:<ns>::<op>`


def _op_aliases(ctx, dotted: str) -> list:
    """Module-level names bound to a registered op, directly or through `typing.cast` (which returns its
    second argument): flute's package `__init__` binds `qgemm = cast(Callable[...], torch.ops.flute.qgemm_raw_simple)`,
    so `from . import qgemm` / `flute.qgemm(...)` elsewhere call the op. "via" values mentioning `ops:<ns>::<op>`;
    `resolve_wrappers` keeps those whose namespace the scan registers."""
    from migrate.repo_index import Definition

    out = []
    for statement in ctx.tree.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            continue
        value = statement.value
        if isinstance(value, ast.Call) and len(value.args) == 2 and ctx.qualname(value.func) == "typing.cast":
            value = value.args[1]
        name = ctx.qualname(value) if isinstance(value, ast.Attribute) else None
        parts = name.split(".") if name else []
        if len(parts) == 4 and parts[:2] == ["torch", "ops"]:
            out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, statement.lineno, True,
                                  f"{OPS}{parts[2]}::{parts[3]}", "via"))
    return out


RELATIVE = "rel:"  # a mentioned name that comes from a relative import

# a module-level `name = other` (an alias of an imported module: `import kmod as K` ... `_backend = K`), or a
# `from pkg import ext as _C` (the compiled module re-exported under the `as` name)
ALIAS_HINT = re.compile(r"^(?:[A-Za-z_]\w*[ \t]*=[ \t]*[A-Za-z_]\w*[ \t]*(?:#[^\n]*)?\r?$|[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\w+[ \t]+as[ \t])", re.M)


def module_aliases(ctx) -> list:
    """Module-level names bound to a module the file imports: `import kmod as K` then `_backend = K` (the issue's
    `from .backend import _backend` elsewhere is then the compiled module), and the `as` name itself, also of a
    `from pkg import ext as _C` (gsplat's cuda/_backend.py: `try: from gsplat import csrc as _C`, then
    `from ._backend import _C` elsewhere; a relative one resolved like `package_reexports`). "via" values
    `resolve_wrappers` keeps where the imported module is an extension of the scan."""
    from migrate.repo_index import Definition, _never_an_extension, _resolve_relative, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    imported: dict[str, str] = {}
    out = []
    for statement in ctx.tree.body:
        for node in ([statement] if not isinstance(statement, ast.Try) else statement.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and not _never_an_extension(alias.name):
                        imported[alias.asname] = alias.name
                        out.append(Definition("value", f"{dotted}.{alias.asname}", ctx.path, node.lineno, True, alias.name, "via"))
            elif isinstance(node, ast.ImportFrom) and not is_package_init(ctx.path):  # `__init__`: package_reexports
                base = _resolve_relative(ctx.path, "." * node.level, node.module or "") if node.level else (node.module or "")
                for alias in node.names:
                    full = f"{base}.{alias.name}" if base else alias.name
                    if alias.asname and alias.asname != alias.name and not _never_an_extension(full):
                        ref = f"{RELATIVE}{full}" if node.level else full
                        out.append(Definition("value", f"{dotted}.{alias.asname}", ctx.path, node.lineno, True, ref, "via"))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Name) and node.value.id in imported:
                out.append(Definition("value", f"{dotted}.{node.targets[0].id}", ctx.path, node.lineno, True,
                                      imported[node.value.id], "via"))
    return out


# a module-level line binding a name to an attribute of another name, `ml_nms = _C.ml_nms` (`op_alias_values`); `$`
# of `re.M` matches before `\n` only, so a file with Windows line ends (`\r\n`: GLIP's layers/nms.py) needs `\r?` before it
OP_ALIAS_LINE = re.compile(r"^[A-Za-z_]\w*[ \t]*=[ \t]*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+[ \t]*(?:#[^\n]*)?\r?$", re.M)


def op_alias_values(ctx) -> list:
    """Module-level names bound once, at the top level of the module, to an attribute of a module the file imports:
    cvpods layers/nms.py `from cvpods import _C` then `ml_nms = _C.ml_nms`, listed in `__all__`. "via" values
    `<this module>.<name>` mentioning `cvpods._C.ml_nms`, kept by `resolve_wrappers` where the imported module is an
    extension of the scan: another module's `from cvpods.layers.nms import ml_nms` then `ml_nms(...)` calls the
    compiled op, the call being the use and the binding none (label rulings (L52)/(L104))."""
    from migrate.repo_index import Definition, _never_an_extension, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    imported = _imported_names(ctx)
    bound: dict[str, int] = {}  # module-level name -> how many statements bind it
    for node in ctx.nodes.get(ast.Name, ()):
        if isinstance(node.ctx, (ast.Store, ast.Del)) and _scope_is_module(ctx, node):
            bound[node.id] = bound.get(node.id, 0) + 1
    out = []
    for statement in ctx.tree.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Attribute)):
            continue
        chain = _chain(statement.value)
        name = statement.targets[0].id
        if chain is None or chain[0] not in imported or bound.get(name) != 1 or _never_an_extension(imported[chain[0]]):
            continue
        ref = ".".join([imported[chain[0]], *chain[1]])
        out.append(Definition("value", f"{dotted}.{name}", ctx.path, statement.lineno, True, ref, "via"))
    return out


LOADED_HINT = "import_module("
PATTERN = "re:"  # a mentioned module name given as a pattern (an f-string's, repo_index.fstring_pattern)
# `ops = import_extension("ops_cuda")`: a module-level binding to the result of the project's own import helper (a
# function whose name says it imports: `import_extension`, `safe_import`, `try_import_ext`) given a module name
_IMPORTER_CALL = re.compile(r"=[ \t]*[\w.]*import\w*\([ \t]*['\"][\w.]+['\"]")


def loads_values(text: str) -> bool:
    """`loaded_values` may find something in `text`."""
    return LOADED_HINT in text or _IMPORTER_CALL.search(text) is not None


def importer_call(ctx, call) -> bool:
    """A call of a function of the repository's own whose last name says it imports a module (`import_extension`,
    `safe_import`) given a module name literal (`"pack_cuda"`, `"pkg.ops_cuda"`): not one of the standard library's
    or of a known package's (`importlib.import_module` is read apart)."""
    from migrate.repo_index import STDLIB, _never_an_extension

    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if "import" not in last.lower() or last == "import_module" or last.startswith("__") or not call.args:
        return False
    root = (ctx.qualname(func) or "").split(".", 1)[0]
    if root in STDLIB or root in _NOT_IMPORTERS:
        return False
    text = ctx.string_value(call.args[0])
    return bool(text) and _MODULE_NAME.fullmatch(text) is not None and not _never_an_extension(text)


_NOT_IMPORTERS = frozenset({"torch", "setuptools", "pkg_resources", "transformers", "lazy_loader"})
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def loaded_values(ctx) -> list:
    """Module-scope variables bound to an `importlib.import_module(...)` of a module name (a literal, or an f-string
    whose literal parts pin it: `_C = importlib.import_module(f"pkg_bindings._{cc}_C")` in a loop over the GPU
    architectures the package was built for): "via" values `<this module>.<name>` mentioning that name (an
    f-string's as a pattern), kept by `resolve_wrappers` when it names an extension of the scan. Another file's
    `from pkg.modules import _C` then `_C.op(...)` calls the compiled module's op."""
    from migrate.repo_index import Definition, _never_an_extension, fstring_pattern, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    out = []
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if not (isinstance(value, ast.Call) and value.args and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and _scope_is_module(ctx, statement)):
            continue
        arg = value.args[0]
        if ctx.qualname(value.func) != "importlib.import_module":
            # the project's import helper (`import_extension("q_linear_cuda")`, whose body imports
            # `EXTENSION_PREFIX + name` and hands back a placeholder that raises on use when it is missing): the name
            # is the module's last part; kept only when an extension of the scan ends with it
            if importer_call(ctx, value):
                text = ctx.string_value(arg)
                out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, statement.lineno, True,
                                      PATTERN + re.escape(text), "via"))
            continue
        text = ctx.string_value(arg)
        if text:
            ref = None if _never_an_extension(text) or "{" in text else text  # a brace spells no importable name
        elif isinstance(arg, ast.JoinedStr):
            pattern = fstring_pattern("".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                                              for v in arg.values))
            ref = PATTERN + pattern if pattern else None
        else:
            ref = None
        if ref:
            out.append(Definition("value", f"{dotted}.{statement.targets[0].id}", ctx.path, statement.lineno, True, ref, "via"))
    return out


def is_package_init(path: str) -> bool:
    return path.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py"


def package_reexports(ctx) -> list:
    """Names a package `__init__` imports at module level and so re-exports: `from fp_ext import gemm_cuda`
    (or `from ._C import gemm as gemm_cuda`) in `pkg/__init__.py` makes `import pkg` then `pkg.gemm_cuda(...)`
    a call of the compiled op. Recorded as "via" values `pkg.<bound name>` mentioning the imported dotted
    name; `resolve_wrappers` keeps those that resolve to an extension of the scan. A star import names
    nothing that can be read here and is left out. The compiled module bound under an `as` name
    (`import pointnet2_batch_cuda as pointnet2_cuda` in openpoints/cpp/pointnet2_batch/__init__.py, PointNeXt) is
    re-exported the same way, as `module_aliases` records it in a plain module: `from pkg import pointnet2_cuda`
    elsewhere, then `pointnet2_cuda.ball_query_wrapper(...)`, calls the compiled op."""
    from migrate.repo_index import Definition, _never_an_extension, _resolve_relative, module_parts

    dotted = ".".join(module_parts(ctx.path))
    if not dotted:
        return []
    out = []
    for statement in ctx.tree.body:
        for node in ([statement] if not isinstance(statement, ast.Try) else statement.body):
            if isinstance(node, ast.Import):  # `import pointnet2_batch_cuda as pointnet2_cuda` in pkg/__init__.py
                for alias in node.names:
                    if alias.asname and not _never_an_extension(alias.name):
                        out.append(Definition("value", f"{dotted}.{alias.asname}", ctx.path, node.lineno, True, alias.name, "via"))
        if not isinstance(statement, ast.ImportFrom):
            continue
        base = _resolve_relative(ctx.path, "." * statement.level, statement.module or "") if statement.level else (statement.module or "")
        for alias in statement.names:
            full = f"{base}.{alias.name}" if base else alias.name
            if alias.name == "*" or _never_an_extension(full):
                continue
            # a relative import never reaches a top-level module (`Index.module_for`'s `relative`): marked for `resolve_wrappers`
            ref = f"{RELATIVE}{full}" if statement.level else full
            out.append(Definition("value", f"{dotted}.{alias.asname or alias.name}", ctx.path, statement.lineno, True, ref, "via"))
    return out


def resolve_wrappers(modules: dict, module_for, namespaces=None, python_ops=frozenset(), module_matching=None) -> None:
    """Keep the "via" values whose mentioned names resolve to an extension (`module_for`), bound to
    that extension's build; a wrapper of a wrapper resolves in a later round. A value mentioning an op
    (`ops:<ns>::<op>`) resolves to the scan's CUDA registration of `<ns>` (`namespaces`), as a wrapper
    when Python functions of the repository implement the op (`python_ops`)."""
    from migrate.called_kernels import CALLED, LAZY_OP

    pending = {name: d for name, d in modules.items() if d.mode in ("via", WRAPPER, CALLED, LAZY_OP, LAZY, *ACCESSORS)}
    for name in pending:
        del modules[name]
    for name, d in list(pending.items()):
        if d.why.startswith(OPS):
            namespace = (namespaces or {}).get(d.why[len(OPS):].split("::", 1)[0])
            # an op accessor or class alias (called_kernels) reaches any namespace of the scan, as `torch.ops.<ns>` does
            if namespace is not None and (namespace.cuda or d.mode in (CALLED, LAZY_OP)):
                mode = WRAPPER if op_register_aliases.implemented_in_python(python_ops, d.why[len(OPS):]) else d.mode
                modules[name] = type(d)("value", name, namespace.path, namespace.line, namespace.cuda,
                                        f"torch.ops.{namespace.name}", mode)
            del pending[name]
    for _ in range(5):  # an accessor's result through a loader (`lazy_backends`) takes two more rounds
        progressed = False
        for name, d in list(pending.items()):
            for ref in d.why.split():
                returned = ref.startswith(RETURNED)
                ref = ref[len(RETURNED):] if returned else ref
                if ref.startswith(PATTERN):  # `loaded_values`: an f-string's pattern names the module
                    found = module_matching(ref[len(PATTERN):]) if module_matching else None
                else:
                    found = module_for(ref[len(RELATIVE):], True) if ref.startswith(RELATIVE) else module_for(ref)
                if found is None:
                    continue
                target = modules[found]
                if returned and not (target.kind == "value" and target.mode in ACCESSORS and _same_module(found, ref.removeprefix(RELATIVE))):
                    continue  # the result of a call of anything but an accessor of the extension: not the extension
                extension = target.why if target.kind == "value" else target.name
                mode = WRAPPER if WRAPPER in (d.mode, target.mode) else CALLED if target.mode == CALLED else d.mode
                if (d.mode == "via" and target.mode in ACCESSORS and not returned) or (returned and d.mode in ACCESSORS):
                    mode = target.mode  # a re-export of an accessor is one; a function returning a builder's result builds
                member = not returned and member_of(target, found, ref.removeprefix(RELATIVE))
                modules[name] = type(d)("value", name, target.path, target.line, target.cuda, extension, mode, member)
                del pending[name]
                progressed = True
                break
        if not progressed:
            break


def member_of(target, found: str, ref: str) -> bool:
    """`ref` (a mentioned dotted name that `module_for` resolved to `found`, the definition `target`) names a member of
    the compiled module rather than the module: `pkg.ext_cuda.nms` for the extension `pkg.ext_cuda`, or a value that is
    itself such a member. Its re-imports through Python modules only bind the name (label note 44b b-4)."""
    if target.kind == "value" and target.member:
        return True
    # the module's own name inside the dotted name, not at its end (a pattern's or a loader's module is no member)
    return target.kind == "module" and not ref.startswith(PATTERN) and found.rsplit(".", 1)[-1] in ref.split(".")[:-1]


# the prefixes of `ref` facts that name no importable module (repo_index.import_facts, cuda_builds.mentions)
_NOT_A_MODULE_REF = ("ops:", "re:", "so:", "cu:", "all:")


def _same_module(a: str, b: str) -> bool:
    """Two dotted names of one module, one of them possibly spelled from a deeper root (`pkg.ops`, `repo.pkg.ops`)."""
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def module_reexports(results, modules: dict, module_for) -> None:
    """Kernel values any module of the repository re-exports, added to `modules` (the index's table).

    Python makes every name a module imports at its top level an attribute of that module: with
    `from ._C import roi_align_forward` in pkg/ops.py, `from pkg.ops import roi_align_forward` elsewhere
    (or `ops.roi_align_forward(...)`) is the compiled op; `from .ops import *` in pkg/layers.py
    re-exports it again (only the names of `__all__` when ops.py has one; else its public names); a plain
    `import ext` binds `ext` the same way (`from .jit import ext` elsewhere).
    Read from the `ref` facts every Python file already records (`repo_index.import_facts`: `X.a`
    for `from X import a`, `X.*` for a star import, `all:a` for each name of a literal `__all__`), so
    nothing is parsed again and no new per-file fact is needed; a package `__init__` is also read on
    its syntax tree (`package_reexports`, which knows `as` names). Limits: the name bound is the
    imported one (`from X import a as b` outside an `__init__` binds `a` here), and an import inside a
    function counts like a top-level one; `from X import a` beside `import X.a` reads as the from-import.
    Chains of re-exports resolve over up to three rounds."""
    from migrate.called_kernels import CALLED, LAZY_OP
    from migrate.repo_index import Definition, module_parts

    files = []
    all_names: dict[str, frozenset] = {}
    for result in results:
        path = result.path
        if not path.endswith(".py"):
            continue
        refs = [f[1] for f in getattr(result, "facts", ()) if f[0] == "ref"]
        if not refs:
            continue
        dotted = ".".join(module_parts(path))
        if not dotted:
            continue
        named = frozenset(r[4:] for r in refs if r.startswith("all:"))
        if named:
            all_names[dotted] = named
        # `X.a` of `from X import a` (import_facts records `X` beside it); not `X` itself, and not a plain
        # `import a.b` (no `a` beside it), which binds `a` here, not `b`
        present = set(refs)
        bases = {r.rsplit(".", 1)[0] for r in refs}
        from_bases = {r.rsplit(".", 1)[0] for r in refs if "." in r}
        plain = [r for r in refs if "." in r and r not in bases and r.rsplit(".", 1)[0] in present
                 and not r.startswith(_NOT_A_MODULE_REF) and not r.endswith(".*")]
        stars = [r[:-2] for r in refs if r.endswith(".*") and not r.startswith(_NOT_A_MODULE_REF)]
        # (the name bound, the module): `from X import a` binds `a`; a plain `import X` binds `X` (`import
        # tutel_custom_kernel` in impls/jit_compiler.py, then `from .jit_compiler import tutel_custom_kernel`
        # elsewhere); a dotted `import a.b` binds `a`, never an extension, and is left out. A bare `X` beside `X.a` is
        # the module of `from X import a`, which binds `a` only (H3's csrc/cauchy/cauchy.py imports from the compiled
        # `cauchy_mult` and defines its own Python `def cauchy_mult`: `from cauchy import cauchy_mult` elsewhere is that
        # wrapper, rule 39b-5). Limit: a file with both `import X` and `from X import a` loses the `X` binding.
        bound = [(r.rsplit(".", 1)[1], r) for r in plain] + [(r, r) for r in refs if "." not in r and ":" not in r
                                                             and r not in from_bases and not r.startswith("{")]
        # (`{NAME}`: `import_module(NAME)` of a name a shared file binds, migrate/shared_names.py; it binds no `{NAME}`)
        if bound or stars:
            files.append((dotted, path, bound, stars))
    if not files:
        return

    def public(module: str, name: str) -> bool:
        named = next((v for k, v in all_names.items() if _same_module(k, module)), None)
        return name in named if named is not None else not name.startswith("_")

    def bind(name: str, found: str, ref: str) -> bool:
        if name in modules or found == name:
            return False
        target = modules[found]
        extension = target.why if target.kind == "value" else target.name
        # a lazy op alias imported elsewhere is called there, like an accessor (its holder is its own package only)
        mode = CALLED if target.mode == LAZY_OP else target.mode if target.mode in (WRAPPER, CALLED, *ACCESSORS) else "via"
        modules[name] = Definition("value", name, target.path, target.line, target.cuda, extension, mode,
                                   member_of(target, found, ref))
        return True

    for _ in range(3):
        progressed = False
        seen: dict[str, str | None] = {}
        for dotted, _path, plain, stars in files:
            for name, ref in plain:
                found = seen[ref] if ref in seen else seen.setdefault(ref, module_for(ref))
                if found is not None and not _same_module(found, dotted):
                    progressed |= bind(f"{dotted}.{name}", found, ref)
            for source in stars:
                for key in list(modules):
                    module, _, name = key.rpartition(".")
                    if module and _same_module(module, source) and not _same_module(module, dotted) and public(module, name):
                        progressed |= bind(f"{dotted}.{name}", key, key)
        if not progressed:
            return
