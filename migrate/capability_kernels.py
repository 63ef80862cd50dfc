"""Triton kernels that a caller takes only after asking the GPU what it is, with plain PyTorch otherwise, are the CUDA
side of a device-capability selection (label rulings (L90)/45e-2 and (L103), as (L42)).

A kernel module whose wrappers another module calls only on the branch that a test of the device's capability or
name picks, with its own PyTorch code on the other branch:

    from xattn.src.kernels import flat_group_gemm_fuse_reshape, softmax_fuse_block_sum   # Triton wrappers

    def estimate(q, k, use_triton=True):
        if use_triton and "100" not in torch.cuda.get_device_properties(0).name:
            use_triton = False                                # the selection: only A100 / H100 take the kernels
        if use_triton:
            attn = flat_group_gemm_fuse_reshape(q, k)         # the kernels' side
            return softmax_fuse_block_sum(attn)
        else:
            return torch.matmul(q, k.transpose(-1, -2))       # the working fallback every other device takes

Any device the test does not name takes the PyTorch branch, an NPU included (its answer to the test is not an
A100's), so the Triton kernels behind those wrappers are one side of a selection that already has another working
way. Keyed on, read again after the scan (a per-file hint fact says which files read a device's capability):

- a *capability read*: a call of `torch.cuda.get_device_capability`, `get_device_properties` or `get_device_name`
  (any `....cuda.<name>(...)` chain);
- a *capability flag* of a function: a name the function binds to a constant in the body of an `if` whose test holds
  a capability read, or binds to a value holding one (`use_triton = torch.cuda.get_device_capability()[0] >= 9`);
- a reference, in a module of the repository (tests aside) that holds a capability read, to a function that a module
  with Triton findings defines and it imports by name: *selected* when it is in the body or `else:` of an `if` (not
  its test) that has both ways (an `else:`), whose test holds a capability read or a capability flag of the function
  holding the reference; any other reference is *direct* (a reference inside another function of the module: that
  function's state).

A function of the kernel module is selected when every reference to it is selected (a kernel takes the state of the
wrappers that launch it, as migrate/registry_kernels.py); one direct reference keeps it. A wrapper that a selecting
module imports in the same statement as selected ones, and that nothing references at all, goes with them (imported
for that branch, never called). Dropped: the Triton uses (NPU507) inside selected functions, decorators and launches.
Kept: the kernel module's `import triton` lines (NPU501: the module loads everywhere), a selection with no other way
(an `if` without `else:`), and a user switch that no capability test sets (label ruling (L74)).
"""

from __future__ import annotations

import ast
import os
import re

from migrate.findings import FileResult
from migrate.registry_kernels import (
    _DEFS,
    _TEST_PATH,
    _module_path,
    _parents,
    _top_owner,
    _triton_finding,
    drop_triton_in,
    reached_only_by_selections,
)

_CAPABILITY_CALLS = frozenset({"get_device_capability", "get_device_properties", "get_device_name"})
_HINT = re.compile(r"\bcuda\.get_device_(?:capability|properties|name)\b")
HINT_FACT = ("hint", "capability")


def hint_facts(text: str) -> tuple:
    """`HINT_FACT` where a Python file's text may read a CUDA device's capability (checked again after the scan)."""
    return (HINT_FACT,) if _HINT.search(text) else ()


def _capability_read(node: ast.AST) -> bool:
    """Anything in `node` calling `<...>.cuda.get_device_capability/properties/name(...)`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in _CAPABILITY_CALLS \
                and isinstance(sub.func.value, ast.Attribute) and sub.func.value.attr == "cuda":
            return True
    return False


def _flags(function: ast.AST) -> frozenset:
    """The capability flags of `function` (see the module's docstring)."""
    out: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.If) and _capability_read(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                    out.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Assign) and _capability_read(node.value):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(out)


def _selected(node: ast.AST, parent: dict, flags: dict) -> bool:
    """A reference in a two-way `if` whose test reads the device's capability or a flag set from it."""
    child, up = node, parent.get(node)
    function = None
    while up is not None and function is None:
        if isinstance(up, _DEFS):
            function = up
        child, up = up, parent.get(up)
    if function is None:
        return False
    if function not in flags:
        flags[function] = _flags(function)
    names = flags[function]
    child, up = node, parent.get(node)
    while up is not None and up is not function:
        if isinstance(up, ast.If) and child is not up.test and up.orelse and (
                _capability_read(up.test)
                or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(up.test))):
            return True
        child, up = up, parent.get(up)
    return False


def _selects_from_targets(tree: ast.AST, importer: str, paths: dict, targets: set) -> bool:
    """The module imports a name from a kernel module and reads a device's capability in a function."""
    return any(isinstance(node, ast.ImportFrom)
               and _module_path(node.module or "", node.level, importer, paths) in targets for node in ast.walk(tree)) \
        and _capability_read(tree)


def _from_import_naming(stems: set) -> re.Pattern:
    """A `from` import whose module path ends in one of `stems` (`from .kernels import f`, `from x.src.kernels import
    f`), or that imports one of them from a package (`from . import kernels`, `from x.src import kernels as k`)."""
    names = "|".join(sorted(map(re.escape, stems)))
    return re.compile(rf"^[ \t]*from[ \t]+(?:[\w.]*[.\s])?(?:{names})[ \t]+import\b"
                      rf"|^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t(][^\n]*\b(?:{names})\b", re.M)


def _summary(tree: ast.AST, selector: bool) -> dict:
    """What the pass needs of one file, whatever the other files are (kept per content: `_Derived` in
    migrate/optional_modules.py): its top-level functions and classes with their spans (decorators included), its
    from-imports (module, level, [name, bound as]), whether it reads a device's capability, and each read of a name it
    defines or imports: [name, state, owner], state "sel" (a selected reference: `_selected`, only in a selector) or
    None, owner the top-level function or class holding it (None at the module's top)."""
    defs = [[n.name, min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno or n.lineno]
            for n in tree.body if isinstance(n, (ast.ClassDef, *_DEFS))]
    imports = [[node.module or "", node.level, [[a.name, a.asname or a.name] for a in node.names]]
               for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    names = {d[0] for d in defs} | {bound for _, _, aliases in imports for _, bound in aliases}
    parent = _parents(tree)
    flags: dict = {}
    refs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            owner = _top_owner(node, parent, tree)
            refs.append([node.id, "sel" if selector and _selected(node, parent, flags) else None, owner])
    return {"defs": defs, "imports": imports, "refs": refs, "capability": _capability_read(tree)}


def drop_capability_selected(results: list[FileResult], fresh: dict, max_file_size: int, cache=None,
                             digests: dict | None = None) -> list[FileResult]:
    """`results` less the Triton uses inside functions reached only through a device-capability selection. With
    `cache` (a ResultCache) and `digests` (path -> (cache key, content digest)), each file's summary is kept under its
    content: a warm re-run parses none of the files again."""
    from migrate import engine, fileio
    from migrate.optional_modules import _Derived

    targets = {os.path.normpath(r.path) for r in results
               if r.path.endswith(".py") and any(_triton_finding(f) for f in r.findings)}
    selectors = {os.path.normpath(r.path) for r in results
                 if r.path.endswith(".py") and HINT_FACT in (r.facts or ())
                 and not _TEST_PATH.search(os.path.normpath(r.path).replace(os.sep, "/"))}
    if not targets or not selectors:
        return results
    paths = {os.path.normpath(r.path): r.path for r in results if r.path.endswith(".py")}
    derived = _Derived(cache, digests)
    resolved: dict[tuple, str | None] = {}

    def module_of(module: str, level: int, importer: str) -> str | None:
        key = (module, level, os.path.dirname(importer) if level else "")
        if key not in resolved:
            resolved[key] = _module_path(module, level, importer, paths)
        return resolved[key]

    def summary(normal: str, text: str | None = None) -> dict | None:
        selector = normal in selectors

        def compute():
            source = text if text is not None else engine.text_again(paths[normal], fresh.get(paths[normal]), max_file_size)
            tree = fileio.parse_python(source) if source is not None else None
            return _summary(tree, selector) if tree is not None else None

        return derived.ask("capability", paths[normal], "selector" if selector else "plain", compute)

    stems = {os.path.splitext(os.path.basename(t))[0] for t in targets}
    summaries: dict[str, dict] = {}
    # the selectors first, and only those with a from-import line naming a kernel module (a cheap text test, on a cold
    # run; a warm one keeps each file's summary): most files that read a device's capability select no Triton kernel
    naming = _from_import_naming(stems)
    for normal in selectors:
        key, digest = derived.digests.get(paths[normal], ("", ""))
        known = derived.cache.get_derived("capability", key, digest, "selector") if (derived.cache and key and digest) else None
        if known is None:
            text = engine.text_again(paths[normal], fresh.get(paths[normal]), max_file_size)
            if text is None or not naming.search(text):
                continue
            facts = summary(normal, text)
        else:
            facts = known[0] if isinstance(known, list) and len(known) == 1 else summary(normal)
        if facts is not None and facts["capability"] and any(
                module_of(module, level, normal) in targets for module, level, _ in facts["imports"]):
            summaries[normal] = facts
    if not summaries:
        return results
    # the kernel modules' own functions, and who else imports them: the importers not read yet are read only where
    # they name one of the kernel modules' functions (a cheap text test), to see whether they call it directly
    refs: dict[tuple[str, str], set] = {}
    grouped: list[tuple[list, set]] = []  # (imported keys, keys selected there) per from-import of a selecting module

    def read(importer: str, facts: dict) -> None:
        bound: dict[str, tuple[str, str]] = {name: (importer, name) for name, _, _ in facts["defs"]}
        imports: list[list] = []
        for module, level, aliases in facts["imports"]:
            module = module_of(module, level, importer)
            if module is not None and module != importer and module in targets:
                keys = []
                for name, as_name in aliases:
                    bound[as_name] = (module, name)
                    keys.append((module, name))
                imports.append(keys)
        here: set = set()
        for name, state, owner in facts["refs"]:
            if name not in bound or bound[name] == (importer, owner):
                continue  # not a kernel module's name, or a recursion
            state = "sel" if state == "sel" else (importer, owner) if owner is not None else "direct"
            refs.setdefault(bound[name], set()).add(state)
            if state == "sel":
                here.add(bound[name])
        grouped.extend((keys, here) for keys in imports)

    for importer, facts in list(summaries.items()):
        read(importer, facts)
    if not any("sel" in states for states in refs.values()):
        return results  # no selection at all: no kernel module needs reading
    # then the kernel modules the selections reach, through their imports of one another (only those can lose findings;
    # a kernel module nothing selecting imports keeps them all)
    pending = {module for module, _ in refs} - set(summaries)
    while pending:
        normal = pending.pop()
        facts = summary(normal)
        summaries[normal] = facts or {"defs": [], "imports": [], "refs": [], "capability": False}
        if facts is not None:
            read(normal, facts)
        pending |= {module for module, _ in refs} - set(summaries)
    # importers of the kernel modules that hold no capability read: read where their text names a kernel module's
    # function, so that a direct call elsewhere keeps it
    # only the functions some selection reaches are in question, and a file can import one only by naming its module
    wanted = [(os.path.splitext(os.path.basename(module))[0], name) for (module, name), states in refs.items()
              if "sel" in states]
    for normal, path in paths.items():
        if normal in summaries or _TEST_PATH.search(normal.replace(os.sep, "/")):
            continue
        text = engine.text_again(path, fresh.get(path), max_file_size)
        if text is None or not any(stem in text and name in text for stem, name in wanted):
            continue
        facts = summary(normal, text)
        if facts is None:
            continue
        bound = {}
        for module, level, aliases in facts["imports"]:
            module = module_of(module, level, normal)
            if module is not None and module in targets:
                for name, as_name in aliases:
                    bound[as_name] = (module, name)
        for name, _state, owner in facts["refs"]:
            if name in bound:
                refs.setdefault(bound[name], set()).add((normal, owner) if owner is not None else "direct")
    for keys, here in grouped:  # imported beside selected ones and referenced nowhere: imported for that branch
        if here & set(keys):
            for key in keys:
                refs.setdefault(tuple(key), {"sel"})
    spans = {normal: [(start, end, name) for name, start, end in facts["defs"]]
             for normal, facts in summaries.items() if normal in targets}
    return drop_triton_in(results, spans, reached_only_by_selections(refs, memo_in_cycles=True))
