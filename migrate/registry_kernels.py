"""Triton kernels that only an op registry with an NPU side reaches are the CUDA side of that registry (label ruling (L50)).

A project that picks each op's implementation by a configured name from a registry of its own, with NPU / Ascend
implementations registered beside the CUDA ones:

    @RMS_WEIGHT_REGISTER("triton")                      # ops/norm.py: a CUDA implementation, chosen by the config
    class TritonRMSWeight(RMSWeightTemplate):
        def apply(self, x):
            return rms_norm_triton(x, self.weight)       # from .triton_ops import rms_norm_triton

    @PLATFORM_RMS_WEIGHT_REGISTER("npu-rms")           # platform/ascend_npu/norm.py: the NPU implementation
    class NpuRMSWeight(RMSWeightTemplate): ...

On an NPU host the configuration names the NPU implementation, so the Triton kernels behind `rms_norm_triton` are
the CUDA side of a choice that already has an NPU answer (label rulings (L42)/(L50)). Keyed on, read again after the
scan (the scan keeps each file's bytes):

- an *NPU registration*: a class or function decorated `@NAME("key")` / `@NAME.register(...)` with `regist` in NAME
  (`OP_REGISTRY`, `ATTN_WEIGHT_REGISTER`), in a file under a folder named for the NPU (`ascend_npu/`, `npu/`) or
  importing torch_npu; without one nothing happens;
- each reference, in another module of the repository (tests aside), to a function that a module with Triton
  findings defines and it imports by name (`from .triton_ops import rms_norm_triton`): *selected* when it is inside a
  registered class or function, a branch of an `a if c else b`, the value a name or attribute is bound to
  (`self.modulate_func = fused_kernel`: a switch that a config picks, the call goes through the binding, (L46)), or
  under an `if` that reads the configuration (`if self.config.get("rope_type") == "triton":`); any other reference (a
  plain call, `apply_rotary_embedding(q, cos, sin)` in a model's forward) is *direct*.

A function of the kernel module is selected when every reference to it, from other modules or from its own module's
functions, is selected (a kernel takes the state of the wrappers that launch it); one direct reference, or one at its
module's top, keeps it; a function nothing references keeps its findings. Dropped: the Triton uses (NPU507) inside a
selected function, its decorators included. Kept: the module's `import triton` lines (NPU501: the module loads on
every platform), and every finding where no NPU registration exists.
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult

_REGISTRY = re.compile(r"regist", re.I)
_NPU_FOLDER = re.compile(r"(?:^|[/_])(?:npu|ascend)(?:[/_]|$)", re.I)
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*\.py$|_test\.py$")
_CONFIG = re.compile(r"config|cfg|args|opts?$|options", re.I)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NPU_FILE_HINT = re.compile(r"@[^\n]*regist", re.I)  # what a file holding a registry decorator holds (_registry_name)
# the per-file fact the scan records where a Python file's text holds that hint (`hint_facts`): a warm re-run (results
# from the cache) then reads no file again to learn that no file holds one, torch's case (2,352 files read, ~0.15 s)
HINT_FACT = ("hint", "registry")


def hint_facts(text: str) -> tuple:
    """The facts of a Python file's text for `drop_registry_selected`: `HINT_FACT` where it may hold a registry decorator."""
    return (HINT_FACT,) if _NPU_FILE_HINT.search(text) else ()


def _registry_name(decorator: ast.AST) -> str | None:
    """NAME of `@NAME("key")`, `@NAME.register("key")`, `@NAME.register` with `regist` in NAME, else None."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    names = []
    while isinstance(target, ast.Attribute):
        names.append(target.attr)
        target = target.value
    if isinstance(target, ast.Name):
        names.append(target.id)
    if names and _REGISTRY.search(names[-1]) and (isinstance(decorator, ast.Call) or len(names) > 1):
        return names[-1]
    return None


def _registered(node: ast.AST, npu_sided: frozenset = frozenset({"*"})) -> bool:
    """A class or function registered in one of the registries `npu_sided` names ("*": any)."""
    return isinstance(node, (ast.ClassDef, *_DEFS)) and any(
        name is not None and ("*" in npu_sided or name in npu_sided)
        for name in map(_registry_name, node.decorator_list))


def _merges(tree: ast.AST) -> list[tuple[str, str]]:
    """`A.merge(B)` / `A.update(B)` at a module's top: B's registrations are A's."""
    out = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("merge", "update") \
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and isinstance(call.args[0], ast.Name):
            out.append((call.func.value.id, call.args[0].id))
    return out


def _reads_config(test: ast.AST) -> bool:
    """An `if` test that reads the configuration: a name or attribute named like one (`self.config.get(...)`)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and _CONFIG.search(node.id) or \
                isinstance(node, ast.Attribute) and _CONFIG.search(node.attr):
            return True
    return False


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _selected(node: ast.AST, parent: dict[ast.AST, ast.AST], npu_sided: frozenset) -> bool:
    """A reference inside a class or function registered in a registry with an NPU side, a conditional expression,
    a binding's value, or under an `if` reading the configuration."""
    child, up = node, parent.get(node)
    if isinstance(up, (ast.Assign, ast.AnnAssign)) and up.value is child:
        return True
    while up is not None:
        if isinstance(up, ast.IfExp) and child is not up.test:
            return True
        if isinstance(up, ast.If) and child is not up.test and _reads_config(up.test):
            return True
        if _registered(up, npu_sided):
            return True
        child, up = up, parent.get(up)
    return False


def _module_path(module: str, level: int, importer: str, paths: dict[str, str]) -> str | None:
    """The scanned file a `from module import ...` names, or None."""
    if level:
        base = os.path.dirname(importer)
        for _ in range(level - 1):
            base = os.path.dirname(base)
        stem = os.path.join(base, *module.split(".")) if module else base
        return stem + ".py" if stem + ".py" in paths else None
    if not module:
        return None
    suffix = os.sep + os.path.join(*module.split(".")) + ".py"
    hits = [p for p in paths if p.endswith(suffix) or p == suffix[1:]]
    return hits[0] if len(hits) == 1 else None


def _npu_file(path: str, text: str, root: str) -> bool:
    """A file under a folder named for the NPU (below the scan's common root) or importing torch_npu."""
    folder = os.path.relpath(os.path.dirname(path), root) if root else os.path.dirname(path)
    return _NPU_FOLDER.search(folder.replace(os.sep, "/")) is not None or "torch_npu" in text


def _maybe_npu_file(result: FileResult, fresh: dict, max_file_size: int) -> bool:
    """False only where `_npu_file` is false for `result` whatever the scan's common root is."""
    from migrate import engine

    if _NPU_FOLDER.search(os.path.dirname(os.path.normpath(result.path)).replace(os.sep, "/")):
        return True
    text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
    return text is None or "torch_npu" in text


def _npu_sided(trees: dict[str, ast.AST], texts: dict[str, str]) -> frozenset:
    """The registries with a registration in an NPU file, and those that merge one in."""
    sided: set[str] = set()
    merges: list[tuple[str, str]] = []
    root = os.path.commonpath(list(trees)) if len(trees) > 1 else ""
    for path, tree in trees.items():
        merges.extend(_merges(tree))
        if _npu_file(path, texts[path], root):
            for node in ast.walk(tree):
                if isinstance(node, (ast.ClassDef, *_DEFS)):
                    sided.update(n for n in map(_registry_name, node.decorator_list) if n)
    for into, source in merges:
        if source in sided:
            sided.add(into)
    return frozenset(sided)


def _triton_finding(finding) -> bool:
    return finding.code == "NPU507" and finding.package == "triton"


def _top_owner(node: ast.AST, parent: dict[ast.AST, ast.AST], tree: ast.AST) -> str | None:
    """The name of the top-level function or class holding `node`, None at the module's top."""
    while node is not None and parent.get(node) is not tree:
        node = parent.get(node)
    return node.name if isinstance(node, (ast.ClassDef, *_DEFS)) else None


def reached_only_by_selections(refs: dict, memo_in_cycles: bool):
    """`reached(key)`: every reference to the function `key` is selected ("sel"), or lies in a function that is itself
    reached only so ((module, owner) states); one "direct" reference, or none at all, keeps it. A cycle decides nothing
    (the other references do). `memo_in_cycles`: keep answers found inside a cycle too (where True was assumed), so the
    walk stays linear (migrate/capability_kernels.py), rather than only those of a walk's own start."""
    selected: dict[tuple[str, str], bool] = {}

    def walk(key: tuple[str, str], seen: frozenset) -> bool:
        if key in selected:
            return selected[key]
        if key in seen:
            return True
        states = refs.get(key, set())
        answer = bool(states) and "direct" not in states and all(
            s == "sel" or walk(s, seen | {key}) for s in states if s != "direct")
        if memo_in_cycles or not seen:
            selected[key] = answer
        return answer

    return lambda key: walk(key, frozenset())


def drop_triton_in(results: list[FileResult], spans: dict, reached) -> list[FileResult]:
    """`results` less the Triton findings inside the top-level functions and classes `reached` answers for:
    `spans` maps a normalised path to its (first line with decorators, last line, name) per definition."""
    out = []
    for result in results:
        normal = os.path.normpath(result.path)
        kept = [(a, b) for a, b, name in spans.get(normal, ()) if reached((normal, name))]
        if kept:
            result = result.keeping(lambda f, kept=kept: not (_triton_finding(f) and any(a <= f.line <= b for a, b in kept)))
        out.append(result)
    return out


def drop_registry_selected(results: list[FileResult], fresh: dict, max_file_size: int) -> list[FileResult]:
    """`results` less the Triton uses inside functions reached only through an op registry with an NPU side."""
    from migrate import engine, fileio

    targets = {os.path.normpath(r.path) for r in results
               if r.path.endswith(".py") and any(_triton_finding(f) for f in r.findings)}
    # no Python file of the scan holds a registry decorator (each decoded file records the hint: `hint_facts`)
    if not targets or not any(HINT_FACT in (r.facts or ()) for r in results if r.path.endswith(".py")):
        return results
    # only a file holding the hint can be an NPU registration's: when none of them sits in a folder named for the NPU
    # (anywhere in its path: the folder below the common root is a tail of it) nor mentions torch_npu, nothing can
    # match, and no other file is read again (torch: 2,352 files read for nothing, ~0.2 s of a warm re-run)
    if not any(_maybe_npu_file(r, fresh, max_file_size) for r in results if r.path.endswith(".py") and HINT_FACT in (r.facts or ())):
        return results
    texts: dict[str, str] = {}
    for result in results:
        if result.path.endswith(".py"):
            text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
            if text is not None:
                texts[os.path.normpath(result.path)] = text
    # parsed only where an NPU registration can be (a registry decorator in an NPU file): most repositories with
    # Triton kernels have none, and parsing every module again cost more than the scan's rules (torch: 2,352 files)
    root = os.path.commonpath(list(texts)) if len(texts) > 1 else ""
    if not any(_NPU_FILE_HINT.search(text) and _npu_file(path, text, root) for path, text in texts.items()):
        return results
    trees: dict[str, ast.AST] = {}
    for normal, text in texts.items():
        tree = fileio.parse_python(text)
        if tree is not None:
            trees[normal] = tree
    npu_sided = _npu_sided(trees, texts)
    if not npu_sided:
        return results
    paths = {p: p for p in trees}
    # (module, top-level name) -> the references to it: "sel", "direct", or the referring (module, name)
    refs: dict[tuple[str, str], set] = {}
    for importer, tree in trees.items():
        if _TEST_PATH.search(importer.replace(os.sep, "/")):
            continue
        parent = _parents(tree)
        bound: dict[str, tuple[str, str]] = {n.name: (importer, n.name) for n in tree.body
                                             if isinstance(n, (ast.ClassDef, *_DEFS))}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = _module_path(node.module or "", node.level, importer, paths)
                if module is not None and module != importer:
                    for alias in node.names:
                        bound[alias.asname or alias.name] = (module, alias.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in bound:
                owner = _top_owner(node, parent, tree)
                if bound[node.id] == (importer, owner):
                    continue  # a recursion
                state = "sel" if _selected(node, parent, npu_sided) else \
                    (importer, owner) if owner is not None else "direct"
                refs.setdefault(bound[node.id], set()).add(state)
    reached = reached_only_by_selections(refs, memo_in_cycles=False)
    spans = {normal: [(min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno or n.lineno, n.name)
                      for n in tree.body if isinstance(n, (ast.ClassDef, *_DEFS))]
             for normal, tree in trees.items() if normal in targets}
    return drop_triton_in(results, spans, reached)
