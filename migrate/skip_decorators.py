"""A test that skips where a GPU-only package does not import is an optional path for that package.

huggingface/trl d708ec27 tests/test_peft_models.py: `@require_bitsandbytes def test_create_bnb_peft_model_from_config(self):`
(tests/testing_utils.py: `try: import bitsandbytes / except ImportError: unittest.skip(...)`) imports
`bitsandbytes.nn.Linear8bitLt` and loads a model with `load_in_8bit=True`. On an NPU host bitsandbytes does not import and
the test is skipped, like a test whose import sits in `try: ... except ImportError: pass` (label rule set 23, (s23a-6)).
A function or class decorated so is such a test: `@require_<pkg>` / `@requires_<pkg>` (transformers' and trl's
helpers), `@pytest.mark.skipif(not is_<pkg>_available(), ...)`, `@unittest.skipUnless(is_<pkg>_available(), ...)` and
`@unittest.skipIf(not is_<pkg>_available(), ...)` (also as one operand of the skipif's `or`, diffusers' `@unittest.skipIf(torch_device
!= "cuda" or not is_xformers_available(), ...)`, or of the skipUnless's `and`), where <pkg> is a GPU-only package of the catalogue
(migrate/knowledge/third_party.toml). Its GPU-only imports and uses of that package (NPU404, NPU501, NPU503, NPU507:
the finding's package, or its message naming it) are dropped; those of another package stay. A test under an
unconditional skip (`@pytest.mark.skip(reason=...)`, `@unittest.skip("...")`) runs on no host (label ruling (L27)): all
its findings of those codes are dropped (its compiled-extension uses, NPU508, after the scan: migrate/decollected_tests.py);
so is a whole test module marked so (`pytestmark = pytest.mark.skip(reason=...)` at module level), unless it also runs as
a script (`if __name__ == "__main__":`).
The availability test may also be a module-level flag the file binds from a probe of the package (pytorch/torchtune
tests/torchtune/rl/test_parameter_server.py: `_has_vllm = importlib.util.find_spec("vllm") is not None`, then
`@pytest.mark.skipif(not _has_ray or not _has_vllm, reason="requires ray and vllm")` over the test class), or a module
bound lazily that is None without the package (`vllm = lazy_import("vllm")`, xoscar's helper, then `@pytest.mark.
skipif(vllm is None, reason="vllm need to be installed")`: xinference's vLLM tests, label rule 46e e-4), and a class or
function of the file that only such tests reference (the same file's `DummyCollector`, a Ray actor importing vllm in its
`__init__`, built only inside the skipped class) goes with them: it runs only where they run (label ruling (L27), label
note 45e).
Per file, from its tree.
"""

from __future__ import annotations

import ast
import functools

CODES = frozenset({"NPU404", "NPU501", "NPU503", "NPU507"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def catalogue_roots() -> frozenset[str]:
    """The top-level import names of the catalogue's GPU-only packages."""
    from migrate import knowledge

    return frozenset(key.split(".", 1)[0] for key in knowledge.third_party())


@functools.lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    """alias -> import root: the short names of the catalogue's packages (third_party.toml `aliases`)."""
    from migrate import knowledge

    return {alias.lower(): key.split(".", 1)[0] for key, entry in knowledge.third_party().items() for alias in entry.aliases}


def catalogue_package(word: str, roots: frozenset[str]) -> str | None:
    """The catalogue package `word` names: `bitsandbytes`, `flash_attn_2` -> flash_attn, `torch_<pkg>` (the <pkg> of
    `is_<pkg>_available()`, `@require_<pkg>`; also migrate/optional_modules.py's availability checks), or one of its
    aliases (`bnb`, `bnb_4bit` -> bitsandbytes: peft's `is_bnb_available()`, `is_bnb_4bit_available()`)."""
    word = word.lower().removeprefix("torch_")
    found = next((r for r in sorted(roots, key=len, reverse=True) if word == r.lower() or word.startswith(r.lower() + "_")),
                 None)
    if found is None:
        found = next((root for alias, root in _aliases().items() if word == alias or word.startswith(alias + "_")), None)
    return found


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _lazy_module(value: ast.AST, roots) -> str | None:
    """The catalogue package of `lazy_import("vllm")`: xoscar's `xoscar.utils.lazy_import(name, ..., placeholder=False)`
    returns None where `pkgutil.find_loader(name)` finds nothing (xorbitsai/xoscar python/xoscar/utils.py), so the
    name bound to it is None without the package; not with `placeholder=` given (a stand-in object then)."""
    if not (isinstance(value, ast.Call) and _name(value.func) == "lazy_import" and value.args
            and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str)
            and not any(k.arg == "placeholder" for k in value.keywords)):
        return None
    return catalogue_package(value.args[0].value.split(".", 1)[0], roots)


def _probe_flags(tree_nodes: dict, roots) -> dict[str, str]:
    """Module-level names bound to a probe of a catalogue package: `_has_vllm = importlib.util.find_spec("vllm") is not
    None` (also `find_spec(...)` / `util.find_spec(...)`, compared `is not None`) -> {"_has_vllm": "vllm"}; also a
    module bound lazily, None without the package (`vllm = lazy_import("vllm")`, `_lazy_module`), which a skip tests
    as `vllm is None` (xinference's vllm/tests/test_distributed_executor.py-like `@pytest.mark.skipif(vllm is None,
    reason="vllm need to be installed")`)."""
    flags: dict[str, str] = {}
    for node in tree_nodes.get(ast.Assign, ()):
        if getattr(node, "col_offset", 1) != 0 or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        value = node.value
        if (package := _lazy_module(value, roots)) is not None:
            flags[node.targets[0].id] = package
            continue
        if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.IsNot)
                and isinstance(value.comparators[0], ast.Constant) and value.comparators[0].value is None):
            continue
        call = value.left
        if not (isinstance(call, ast.Call) and _name(call.func) == "find_spec" and call.args
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            continue
        package = catalogue_package(call.args[0].value.split(".", 1)[0], roots)
        if package is not None:
            flags[node.targets[0].id] = package
    return flags


def _available_in(test: ast.AST, negated: bool, roots, flags: dict | None = None) -> str | None:
    """<pkg> of `is_<pkg>_available()` in `test`, read as `not ...` when `negated` (skipif) or plain (skipUnless); also
    one operand of the `or` a skipif tests (`torch_device != "cuda" or not is_xformers_available()`: it skips whenever
    the package is missing) or of the `and` a skipUnless tests."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or if negated else ast.And):
        return next((p for value in test.values if (p := _available_in(value, negated, roots, flags)) is not None), None)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is if negated else ast.IsNot) \
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:  # skipif(vllm is None) / skipUnless(vllm is not None)
        return flags.get(test.left.id) if flags else None
    if negated:
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return None
        test = test.operand
    if isinstance(test, ast.Name) and flags and test.id in flags:
        return flags[test.id]
    if isinstance(test, ast.Call):
        name = _name(test.func)
        if name.startswith("is_") and name.endswith("_available"):
            return catalogue_package(name[3:-len("_available")], roots)
    return None


ALWAYS = "*"  # an unconditional skip: every package's findings go


def always_skipped(decorator: ast.AST) -> bool:
    """`@pytest.mark.skip`, `@pytest.mark.skip(reason=...)`, `@unittest.skip("...")`: skipped on every host (not
    `skipif` / `skipIf`, whose condition decides)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if not (isinstance(target, ast.Attribute) and target.attr == "skip"):
        return False
    holder = target.value
    return (isinstance(holder, ast.Attribute) and holder.attr == "mark") or (isinstance(holder, ast.Name) and holder.id in ("mark", "unittest"))


def _skipped_package(decorator: ast.AST, roots, flags: dict | None = None) -> str | None:
    call = decorator if isinstance(decorator, ast.Call) else None
    name = _name(call.func if call else decorator)
    for prefix in ("require_", "requires_"):
        if name.startswith(prefix):
            return catalogue_package(name[len(prefix):], roots)
    if call is None or not call.args:
        return None
    if name in ("skipif", "skipIf"):
        return _available_in(call.args[0], True, roots, flags)
    if name == "skipUnless":
        return _available_in(call.args[0], False, roots, flags)
    return None


def _module_skipped(nodes: dict) -> bool:
    """The lines of a test module that pytest skips whole on every host: a module-level `pytestmark =
    pytest.mark.skip(reason=...)` (or a list / tuple holding one) marks each of its tests (modelscope/twinkle
    tests/transformers/test_sequence_parallel_and_cp.py, 'run manually'; label ruling (L27)). Not where the module
    also runs as a script (`if __name__ == "__main__":`): run so, nothing skips (label note 58a,
    tests/sampler/test_30b_weight_sync.py)."""
    module = next(iter(nodes.get(ast.Module, ())), None)
    if module is None:
        return False
    skipped = False
    for statement in module.body:
        if isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare) \
                and isinstance(statement.test.left, ast.Name) and statement.test.left.id == "__name__":
            return False
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                     for t in statement.targets):
            marks = statement.value.elts if isinstance(statement.value, (ast.List, ast.Tuple)) else [statement.value]
            skipped = skipped or any(always_skipped(mark) for mark in marks)
    return skipped


def drop_skipped(findings: list, nodes: dict) -> list:
    """`findings` less the GPU-only ones of a package inside a test that skips without that package."""
    if not any(f.code in CODES for f in findings):
        return findings
    if _module_skipped(nodes):
        return [f for f in findings if f.code not in CODES]
    spans: list[tuple[int, int, str]] = []
    roots = None
    flags = None
    if any(isinstance(h, ast.ExceptHandler) and _skip_statement(h.body[-1]) for h in nodes.get(ast.ExceptHandler, ())
           if h.body):
        roots = catalogue_roots()
        spans += _import_skipping_tests(nodes, roots)
    for kind in _SCOPES:
        for scope in nodes.get(kind, ()):
            if not scope.decorator_list:
                continue
            roots = roots if roots is not None else catalogue_roots()
            flags = flags if flags is not None else _probe_flags(nodes, roots)
            for decorator in scope.decorator_list:
                package = ALWAYS if always_skipped(decorator) else _skipped_package(decorator, roots, flags)
                if package is not None:
                    spans.append((scope.lineno, scope.end_lineno or scope.lineno, package))
    if not spans:
        return findings
    spans += _helpers_of(spans, nodes)

    def skipped(f) -> bool:
        if f.code not in CODES:
            return False
        named = (f.package or "").split(".", 1)[0]
        return any(start <= f.line <= end and (package is ALWAYS or named == package or (not named and package in f.message))
                   for start, end, package in spans)

    return [f for f in findings if not skipped(f)]


def _skip_statement(statement: ast.AST) -> bool:
    """`raise unittest.SkipTest(...)` (or a class of the project named for it: `raise _Skip("...")`), `pytest.skip(...)`,
    `self.skipTest(...)`: the test stops as skipped."""
    call = statement.exc if isinstance(statement, ast.Raise) else \
        statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call):
        call = call.func
    name = call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else ""
    if isinstance(statement, ast.Raise):
        return "Skip" in name
    return name in ("skip", "skipTest")


def _import_skipping_tests(nodes: dict, roots: frozenset[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, package) of each function whose leading statements skip it where a GPU-only package of
    the catalogue does not import: Tencent/AngelSlim tests/sparse/test_save_load.py

        def test_attn_impl_preserved():
            if not CUDA:
                raise _Skip("CUDA required for flash_attention_2")
            try:
                import flash_attn
            except Exception:
                raise _Skip("flash_attn not installed")

    (`_Skip` a `unittest.SkipTest`), the `pytest.importorskip` of a test written by hand: a test skipped when the package
    is missing (label ruling (L27)). Leading: after the docstring, imports, plain calls and `if`s whose body only skips."""
    from migrate.optional_modules import _catches_import_error

    out = []
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        for function in nodes.get(kind, ()):
            for statement in function.body:
                if isinstance(statement, ast.Try):
                    if statement.handlers and all(_catches_import_error(h) and h.body and _skip_statement(h.body[-1])
                                                  for h in statement.handlers):
                        for package in {_root(n, roots) for n in statement.body} - {None}:
                            out.append((function.lineno, function.end_lineno or function.lineno, package))
                    break
                if isinstance(statement, ast.If) and len(statement.body) == 1 and _skip_statement(statement.body[0]) \
                        and not statement.orelse:
                    continue
                if isinstance(statement, (ast.Import, ast.ImportFrom)) or isinstance(statement, ast.Expr) \
                        and isinstance(statement.value, (ast.Constant, ast.Call)):
                    continue
                break
    return out


def _root(statement: ast.AST, roots: frozenset[str]) -> str | None:
    """The catalogue package an import statement imports (`import flash_attn`), else None."""
    if isinstance(statement, ast.Import):
        names = [a.name for a in statement.names]
    elif isinstance(statement, ast.ImportFrom) and not statement.level:
        names = [statement.module or ""]
    else:
        return None
    return next((n.split(".", 1)[0] for n in names if n.split(".", 1)[0] in roots), None)


def _helpers_of(spans: list, nodes: dict) -> list[tuple[int, int, str]]:
    """The module-level classes and functions every reference to which lies inside skipped tests of one package (or
    unconditionally skipped ones): they run only where those tests run."""
    inside = lambda line: {package for start, end, package in spans if start <= line <= end}  # noqa: E731
    loads: dict[str, list[int]] = {}
    for name in nodes.get(ast.Name, ()):
        if isinstance(name.ctx, ast.Load):
            loads.setdefault(name.id, []).append(name.lineno)
    out = []
    for kind in _SCOPES:
        for scope in nodes.get(kind, ()):
            if scope.col_offset != 0 or any(start <= scope.lineno <= end for start, end, _ in spans):
                continue
            lines = loads.get(scope.name)
            if not lines:
                continue
            refs = [inside(line) for line in lines]
            if not all(refs):
                continue
            named = sorted({p for here in refs for p in here if p != ALWAYS})
            package = next((p for p in named if all(p in here or ALWAYS in here for here in refs)), None)
            if package is None and not named:
                package = ALWAYS
            if package is not None:
                out.append((scope.lineno, scope.end_lineno or scope.lineno, package))
    return out
