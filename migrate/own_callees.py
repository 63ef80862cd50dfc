"""A computed option handed to the repository's own class is that class's parameter (NPU503, label note 63b).

NPU503 reads `use_flash_attention_2=<computed>` / `load_in_4bit=<computed>` as transformers' keywords when the callee is
no function of the same file or folder package (rules/npu503_gpu_only_option.py `_own_parameter`,
`_repository_callee`). A training script beside the package imports the project's classes by their absolute name:

    from lightrft.models.actor_vl import ActorVL       # examples/gsm8k_geo3k/train_colocate.py; lightrft/ is scanned
    Actor = ActorLanguage if args.text_only else ActorVL
    actor = Actor(args.pretrain, use_flash_attention_2=args.flash_attn, load_in_4bit=args.load_in_4bit)

The keyword is the class's own parameter: the line where the class turns it into the library's value is reported there
(`attn_impl = "flash_attention_2" if use_flash_attention_2 else "eager"`), or nowhere when the class swallows it in
`**kwargs` (LightRFT's ActorVL never forwards load_in_4bit). Likewise a callee the file never binds (no import, no
definition, no assignment, no star import: `get_vlm_for_sequence_regression(...)` called but defined nowhere) hands
its keywords to no library. Decided after the scan, since which packages are the repository's own is known only
then: a top-level package of the scan (a folder with an `__init__.py` whose parent has none). Only the files holding
such a finding are parsed again.

Unless the class hands the keyword on (66a: Medusa's cli.py `MedusaModel.from_pretrained(name, load_in_8bit=args.
load_in_8bit)`, EAGLE's webui.py `EaModel.from_pretrained(..., load_in_4bit=args.load_in_4bit)`): the method called
(`from_pretrained` on the class, `__init__` for the class called, or the function) takes `**kwargs`, names no
parameter of the keyword's name, and passes `**kwargs` on in a call (`super().from_pretrained(name, **kwargs)`,
`KVLlamaForCausalLM.from_pretrained(path, **kwargs)`): the keyword reaches the library there, so the caller's line
is the option. The definition is read in the file the import names (absolute: a file of the scan whose path ends in
the module's; relative: beside the importing file), only for a call that would otherwise be dropped.
"""

from __future__ import annotations

import ast
import builtins
import os

from migrate.findings import FileResult


def _top_packages(paths) -> frozenset[str]:
    """The names of the scan's top-level packages: folders holding an `__init__.py` whose parent folder holds none."""
    inits = {os.path.dirname(os.path.normpath(p)) for p in paths if os.path.basename(p) == "__init__.py"}
    return frozenset(os.path.basename(d) for d in inits if d and os.path.dirname(d) not in inits)


def _bindings(tree) -> tuple[dict[str, str], dict[str, list[ast.AST]], bool, dict[str, list[tuple[str, int, str]]]]:
    """(name -> the absolute module it is imported from, name -> the values assigned to it, star import?, name -> every
    (module, level, name imported) of a `from` import binding it)."""
    imported: dict[str, str] = {}
    sources: dict[str, list[tuple[str, int, str]]] = {}
    assigned: dict[str, list[ast.AST]] = {}
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    star = True
                else:
                    imported[alias.asname or alias.name] = "." if node.level else (node.module or "")
                    sources.setdefault(alias.asname or alias.name, []).append((node.module or "", node.level, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".", 1)[0]] = alias.name if alias.asname else alias.name.split(".", 1)[0]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
            assigned.setdefault(node.target.id, []).append(getattr(node, "value", None))
        elif isinstance(node, ast.arg):
            assigned.setdefault(node.arg, []).append(None)
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.withitem, ast.ExceptHandler)):
            for name in ast.walk(getattr(node, "target", None) or getattr(node, "optional_vars", None) or ast.Pass()):
                if isinstance(name, ast.Name):
                    assigned.setdefault(name.id, []).append(None)
            if isinstance(node, ast.ExceptHandler) and node.name:
                assigned.setdefault(node.name, []).append(None)
    return imported, assigned, star, sources


def _own_callee(func, bindings, own: frozenset[str]) -> bool:
    """Whether `func` is a class or function of the repository's own packages, or a name bound nowhere in the file."""
    imported, assigned, star, _ = bindings
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name):
        return False
    name = func.id
    if name in imported:
        module = imported[name]
        return module != "." and module.split(".", 1)[0] in own
    values = assigned.get(name)
    if values is None:  # bound nowhere: a NameError, no library's keyword
        return not star and not hasattr(builtins, name)
    # `Actor = ActorLanguage if text_only else ActorVL` / assigned in an if-else: every value an own class
    names = []
    for value in values:
        if isinstance(value, ast.IfExp):
            names += [value.body, value.orelse]
        else:
            names.append(value)
    return bool(names) and all(isinstance(v, ast.Name) and v.id in imported and imported[v.id] != "."
                               and imported[v.id].split(".", 1)[0] in own for v in names)


def _module_files(paths) -> dict[str, str]:
    """normalized path (forward slashes) -> the path as the scan holds it, for the scan's Python files."""
    return {os.path.normpath(p).replace(os.sep, "/"): p for p in paths if p.endswith(".py")}


def _definition_file(path: str, module: str, level: int, files: dict[str, str]) -> str | None:
    """The scan's file of `module` imported into `path` (`level` dots: relative to its folder), or None."""
    parts = [part for part in module.split(".") if part]
    if level:
        folder = os.path.dirname(os.path.normpath(path)).replace(os.sep, "/")
        for _ in range(level - 1):
            folder = os.path.dirname(folder)
        stem = "/".join(([folder] if folder else []) + parts)
        for candidate in (stem + ".py", stem + "/__init__.py"):
            if candidate in files:
                return files[candidate]
        return None
    if not parts:
        return None
    stem = "/".join(parts)
    found = [original for normalized, original in files.items()
             if any(normalized == c or normalized.endswith("/" + c) for c in (stem + ".py", stem + "/__init__.py"))]
    return found[0] if len(found) == 1 else None


def _hands_on(function, keyword: str) -> bool:
    """Whether `function` takes `**kwargs`, no parameter named `keyword`, and passes `**kwargs` on in a call of
    something other than a builtin (`dict(**kwargs)` copies, it hands nothing to a library)."""
    spread = function.args.kwarg
    if spread is None:
        return False
    named = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    if keyword in named:
        return False
    for call in ast.walk(function):
        if not isinstance(call, ast.Call):
            continue
        if isinstance(call.func, ast.Name) and hasattr(builtins, call.func.id):
            continue
        if any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == spread.arg for k in call.keywords):
            return True
    return False


def _forwards(call: ast.Call, keyword: str, path: str, bindings, files: dict[str, str], tree_of) -> bool:
    """Whether the repository's own callee of `call` hands `keyword` on to the call it makes with `**kwargs`."""
    func = call.func
    if isinstance(func, ast.Name):
        name, method = func.id, "__init__"
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name, method = func.value.id, func.attr
    else:
        return False
    for module, level, original in bindings[3].get(name, ()):
        where = _definition_file(path, module, level, files)
        tree = tree_of(where) if where else None
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == original and method == "__init__":
                return _hands_on(node, keyword)
            if isinstance(node, ast.ClassDef) and node.name == original:
                for member in node.body:
                    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name == method:
                        return _hands_on(member, keyword)
                return False
    return False


def drop_own_callee_options(results: list[FileResult], fresh: dict, max_file_size: int) -> list[FileResult]:
    """`results` less the NPU503 `<computed>` keywords handed to a class of the repository's own packages (see above)."""
    if not any(f.code == "NPU503" for r in results for f in r.findings):
        return results
    from migrate.rules.npu503_gpu_only_option import COMPUTED_MARK  # the rule's own wording of such a finding

    candidates = [r for r in results if r.path.endswith(".py")
                  and any(f.code == "NPU503" and f.cell is None and COMPUTED_MARK in f.message for f in r.findings)]
    if not candidates:
        return results
    own = _top_packages(r.path for r in results)
    from migrate import engine

    tree_of = engine.trees_again(fresh, max_file_size)
    dropped: dict[str, set[tuple[int, int]]] = {}
    files = None
    for result in candidates:
        tree = tree_of(result.path)
        if tree is None:
            continue
        bindings = _bindings(tree)
        at = {(f.line, f.column) for f in result.findings if f.code == "NPU503" and COMPUTED_MARK in f.message}
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            spots = {(k.value.lineno, k.value.col_offset + 1): k.arg for k in call.keywords if k.arg}
            spots = {spot: keyword for spot, keyword in spots.items() if spot in at}
            if not spots or not _own_callee(call.func, bindings, own):
                continue
            if files is None:
                files = _module_files(r.path for r in results)
            dropped.setdefault(result.path, set()).update(
                spot for spot, keyword in spots.items()
                if not _forwards(call, keyword, result.path, bindings, files, tree_of))
    if not dropped:
        return results
    out = []
    for result in results:
        spots = dropped.get(result.path)
        if spots:
            kept = tuple(f for f in result.findings if not (f.code == "NPU503" and (f.line, f.column) in spots))
            result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts)
        out.append(result)
    return out
