"""A package a module probes for itself and imports only inside functions is an optional path of that module.

    @lru_cache(maxsize=1)
    def is_cute_dsl_available() -> bool:
        return find_spec("cutlass") is not None

    def try_qdq(x):
        if not is_cute_dsl_available() or not x.is_cuda:
            return None                      # the PyTorch reference path runs
        ...
        return _compiled_kernel(...)(x)

    def _compiled_kernel(...):
        import cutlass.cute as cute          # only here, never at the module's top
        ...

The module asks whether the package is installed (a function of its own returning `find_spec("pkg") is not None`,
called in the module) and defers every import of it to function bodies, the shape of an optional backend: on an NPU
host the probe answers False and the module's other path runs (label ruling (L26)/(L34): an availability check is an
optional path; rule 28a-9, NVIDIA's CuTe DSL kernels behind `is_cute_dsl_available()` with a PyTorch fallback). The
findings of that package (NPU501, NPU507, NPU404) in the module are dropped. A module that imports the package at its
top level, or never calls its probe, keeps them; Triton and numba kernels stay work to port however they are imported
(the kernel-language exception of migrate/optional_modules.py, label rule (y5)). Per file, from its tree.

A backend class's own probe counts the same, although the module never calls it: a serving framework's engine
registry asks each backend class whether it can run before offering it, and another engine (plain PyTorch) serves
otherwise (label rule 46e e-4, (L42)/(L56)):

    try:
        import vllm                          # the module's own import attempt: no requirement
        VLLM_INSTALLED = True
    except ImportError:
        VLLM_INSTALLED = False

    class VLLMModel(LLM):
        @classmethod
        def check_lib(cls):                  # asked by the registry in another module
            try:
                importlib.import_module("vllm")
            except ImportError as exc:
                return False, f"Failed to import vLLM: {exc}"
            return True

        def load(self):
            from vllm import LLM             # only reached after check_lib() said True

The probe is a `@classmethod` / `@staticmethod` whose `try:` imports the package (`import x`, `importlib.import_module
("x")`) with a handler answering False (`return False` / `return False, "..."`), or that returns what a helper named
`*available*` answers for the package's name (`dep = check_dependency_available("vllm", "vLLM") ... return dep`).
Here the module's top may import the package in an import attempt (a `try:` catching ImportError) or under `if
TYPE_CHECKING:`, not otherwise.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes

CODES = frozenset({"NPU501", "NPU507", "NPU404"})
_KERNEL_LANGUAGES = frozenset({"triton", "numba"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _probed(function: ast.AST) -> str | None:
    """The package of `return find_spec("pkg") is not None` / `return importlib.util.find_spec("pkg") is not None`."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    value = body[0].value
    if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.IsNot)
            and isinstance(value.comparators[0], ast.Constant) and value.comparators[0].value is None):
        return None
    call = value.left
    if not (isinstance(call, ast.Call) and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)):
        return None
    name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
    return call.args[0].value.split(".", 1)[0] if name == "find_spec" else None


def _returns_unavailable(handler: ast.ExceptHandler) -> bool:
    """The handler answers "not here": its last statement returns False or a tuple opening with False."""
    last = handler.body[-1] if handler.body else None
    value = last.value if isinstance(last, ast.Return) else None
    if isinstance(value, ast.Tuple) and value.elts:
        value = value.elts[0]
    return isinstance(value, ast.Constant) and value.value is False


def _attempted(statement: ast.AST) -> str | None:
    """The package a statement of an import attempt imports: `import vllm`, `importlib.import_module("vllm")`."""
    if isinstance(statement, ast.Import) and statement.names:
        return statement.names[0].name.split(".", 1)[0]
    if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
        return statement.module.split(".", 1)[0]
    call = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", "")) == "import_module" \
            and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value.split(".", 1)[0]
    return None


def _class_probed(function: ast.AST) -> str | None:
    """A backend class's own availability answer, a `@classmethod` / `@staticmethod` the registry asks before it offers
    the class: `try: importlib.import_module("vllm") / except ImportError: return False, "..."`, or the answer of a
    project helper given the package's name, `dep = check_dependency_available("vllm", "vLLM") ... return dep`."""
    if not any(getattr(d, "id", None) in ("classmethod", "staticmethod") for d in function.decorator_list):
        return None
    returned = None  # the names the function returns: walked for only a candidate assignment
    for statement in function.body:
        if isinstance(statement, ast.Try) and any(_returns_unavailable(h) for h in statement.handlers):
            for inner in statement.body:
                if (package := _attempted(inner)) is not None:
                    return package
        call, target = None, None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            call, target = statement.value, statement.targets[0].id
        elif isinstance(statement, ast.Return):
            call, target = statement.value, ""
        if isinstance(call, ast.Call) and call.args \
                and "available" in getattr(call.func, "id", getattr(call.func, "attr", "")) \
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            if target and returned is None:
                returned = {n.value.id for n in walk_nodes(function) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
            if target == "" or target in returned:
                return call.args[0].value.split(".", 1)[0]
    return None


def _attempt_or_type_checking(node: ast.AST) -> bool:
    """A module-level `try:` importing in its body with an ImportError handler (the module's own import attempt:
    `try: import vllm; VLLM_INSTALLED = True / except ImportError: VLLM_INSTALLED = False`), or `if TYPE_CHECKING:`."""
    if isinstance(node, ast.If):
        test = node.test
        return getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING"
    return isinstance(node, ast.Try) and any(
        h.type is None or "ImportError" in ast.dump(h.type) or "Exception" in ast.dump(h.type) for h in node.handlers)


def _top_level_imports(tree: ast.Module, attempts: bool = True) -> set[str]:
    """Roots of the modules imported outside every function (at the top, in an `if`, a `try`, a class body); without
    `attempts`, not those of a module-level import attempt or an `if TYPE_CHECKING:` (`_attempt_or_type_checking`)."""
    out: set[str] = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS) or (not attempts and _attempt_or_type_checking(node)):
            continue
        if isinstance(node, ast.Import):
            out.update(a.name.split(".", 1)[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".", 1)[0])
        stack.extend(ast.iter_child_nodes(node))
    return out


def drop_probed(tree: ast.Module, findings: list, nodes: dict) -> list:
    """`findings` less those of a package the module probes for and imports only in functions (see above)."""
    probes = {f.name: package for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for f in nodes.get(kind, ())
              if (package := _probed(f)) and package not in _KERNEL_LANGUAGES}
    called = {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in nodes.get(ast.Call, ())
              if isinstance(c.func, (ast.Name, ast.Attribute))}
    packages = {package for name, package in probes.items() if name in called} - _top_level_imports(tree)
    backends = {package for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for f in nodes.get(kind, ())
                if (package := _class_probed(f)) and package not in _KERNEL_LANGUAGES}
    if backends:  # a backend class's probe: asked by the registry in another module, so not called here
        packages |= backends - _top_level_imports(tree, attempts=False)
    if not packages:
        return findings
    return [f for f in findings if not (f.code in CODES and (f.package or "").split(".", 1)[0] in packages)]
