"""Classes handed in a list to a repository function that only type-checks them (NPU507, label ruling (L35)).

A quantization or calibration tool finds the layers to hook by type, with a helper of its own:

    def _find_layers(module, layers=None, name=""):
        if not layers:
            layers = [torch.nn.Linear, LinearBase]          # not a use: only type-checked below
        if isinstance(module, tuple(layers)):
            return {name: module}
        for name1, child in module.named_children():
            res.update(_find_layers(child, layers=layers, name=...))

    moe_layers = _find_layers(model, layers=[FusedMoE])      # not a use: FusedMoE is only type-checked

A class of a GPU-only package in such a list constructs nothing and runs none of the package's code: it is named for
`isinstance`, as in `isinstance(m, FusedMoE)` ((L35); label note 61c on AngelSlim's vLLM calibration hooks). The
import that brings the class stays NPU501's.

The helper is found by its name among the repository's functions (any module, it is usually imported from a sibling
one). Its parameter is type-only where every read of it is the class argument of `isinstance` / `issubclass` (alone or
as `tuple(param)`), the right side of `type(x) in param`, a truth test, or the same argument handed on to the same
function (its recursion). Every
definition of that name must read it so; a list holding anything but class names (a call, a constant) is not such a
list. Decided after the scan, from the findings' files read again.
"""

from __future__ import annotations

import ast
import re

_TYPE_CHECKS = frozenset({"isinstance", "issubclass"})

# facts recorded at the scan (engine), so that the pass reads again only the files that may matter (a warm run reads
# nothing from a repository without them): a list or tuple literal starting with a name as an argument or a value
# (`layers=[FusedMoE]`), and a parameter checked as a collection of types (`isinstance(m, tuple(layers))`,
# `type(m) in layers`)
CALL_FACT = ("hint", "typelist")
DEF_FACT = ("hint", "typeparam")
# each pattern opens with a literal (`=`, `isinstance(`, `type(`), which the regex engine finds fast; the word before
# `=` (a name, `layers =`) or before `type(` (none: not `dtype(`) is checked by hand: a pattern opening with `\w` tries
# every position of the text (1.2 s of a cold torch-corpus scan)
_CALL_HINT = re.compile(r"=\s*[\[(]\s*[A-Za-z_][\w.]*\s*[,\])]")
_ISINSTANCE_HINT = re.compile(r"isinstance\([^,()]+,\s*tuple\(\s*\w+\s*\)\s*\)")
_TYPE_IN_HINT = re.compile(r"type\([^()]*\)\s+(?:not\s+)?in\s+\w+")


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _call_hint(text: str) -> bool:
    r"""`\w\s*=\s*[\[(]\s*name\s*[,\])]`: an assignment or keyword whose value is a list / tuple opening with a name."""
    for match in _CALL_HINT.finditer(text):
        k = match.start() - 1
        while k >= 0 and text[k].isspace():
            k -= 1
        if k >= 0 and _word_char(text[k]):
            return True
    return False


def _def_hint(text: str) -> bool:
    r"""`isinstance(x, tuple(name))` or `\btype(...) [not] in name`."""
    if _ISINSTANCE_HINT.search(text):
        return True
    return any(match.start() == 0 or not _word_char(text[match.start() - 1]) for match in _TYPE_IN_HINT.finditer(text))


def hint_facts(text: str) -> tuple:
    """The facts of a Python file's text for `drop_type_list_uses` (see CALL_FACT / DEF_FACT)."""
    return ((CALL_FACT,) if _call_hint(text) else ()) + ((DEF_FACT,) if _def_hint(text) else ())


def _class_list(node) -> bool:
    """A list / tuple literal of class names only (`[torch.nn.Linear, LinearBase]`)."""
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(
        isinstance(e, (ast.Name, ast.Attribute)) for e in node.elts)


def _parents(tree) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _slot(parents, literal) -> tuple[str, str | int] | None:
    """(function name, keyword or position) the list is handed to: an argument of a call, or the value assigned to a
    parameter inside the function that owns it (`layers = [...]` under `def _find_layers(module, layers=None)`)."""
    parent = parents.get(id(literal))
    if isinstance(parent, ast.keyword) and parent.arg:
        call = parents.get(id(parent))
        name = _callee(call) if isinstance(call, ast.Call) else None
        return (name, parent.arg) if name else None
    if isinstance(parent, ast.Call) and literal in parent.args:
        name = _callee(parent)
        return (name, parent.args.index(literal)) if name else None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        function = parents.get(id(parent))
        while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = parents.get(id(function))
        if function is not None and parent.targets[0].id in _parameters(function):
            return function.name, parent.targets[0].id
    return None


def _parameters(function) -> list[str]:
    a = function.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]


def _type_only(function, slot: str | int) -> bool:
    """Every read of the parameter at `slot` in `function` is a type check, a truth test or the same slot handed on
    to the function itself."""
    names = _parameters(function)
    if isinstance(slot, int):
        positional = [p.arg for p in (*function.args.posonlyargs, *function.args.args)]
        if slot >= len(positional):
            return False
        name = positional[slot]
    elif slot in names:
        name = slot
    else:
        return False
    parents = _parents(function)
    reads = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(_checked_read(parents, n, function.name, name) for n in reads)


def _checked_read(parents, node, function: str, name: str) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "tuple" \
            and parent.args == [node]:
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _TYPE_CHECKS \
            and len(parent.args) == 2 and parent.args[1] is node:
        return True
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
            and parent.comparators[0] is node and isinstance(parent.left, ast.Call) \
            and isinstance(parent.left.func, ast.Name) and parent.left.func.id == "type":
        return True  # `type(module) in layers`: an exact type check
    if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and parent.test is node \
            or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return True  # `if not layers:` before the default is set
    if isinstance(parent, ast.keyword) and parent.arg == name:
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _callee(call) == function
    return False


def drop_type_list_uses(results: list, fresh: dict, max_file_size: int) -> list:
    """`results` less the NPU507 findings at a class in a list that a repository function only type-checks."""
    from migrate import engine
    from migrate.findings import FileResult

    python = [r for r in results if r.path.endswith(".py")]
    defining = [r for r in python if DEF_FACT in (r.facts or ())]
    candidates = [r for r in python if CALL_FACT in (r.facts or ())
                  and any(f.code == "NPU507" and f.cell is None for f in r.findings)]
    if not candidates or not defining:
        return results
    tree_of = engine.trees_again(fresh, max_file_size)
    slots: dict[str, dict[tuple[int, int], tuple[str, str | int]]] = {}
    for result in candidates:
        tree = None
        text = None
        index = None  # the tree's names and attributes by (line, column) with its parent map, built once per file
        for finding in result.findings:
            if finding.code != "NPU507" or finding.cell is not None:
                continue
            text = text if text is not None else engine.text_again(result.path, fresh.get(result.path), max_file_size) or ""
            if not _listed_here(text, finding):
                continue  # parse only the files where a finding sits in a bracketed list (most never do)
            tree = tree or tree_of(result.path)
            if tree is None:
                break
            index = index or _index(tree)
            slot = _finding_slot(index, finding)
            if slot is not None:
                slots.setdefault(result.path, {})[(finding.line, finding.column)] = slot
    if not slots:
        return results
    wanted = {name for found in slots.values() for name, _ in found.values()}
    definitions = _definitions(defining, wanted, fresh, max_file_size, tree_of)
    out = []
    for result in results:
        found = slots.get(result.path)
        if found:
            kept = tuple(f for f in result.findings if not (
                (f.line, f.column) in found and _typed(definitions.get(found[(f.line, f.column)][0]), found[(f.line, f.column)][1])))
            if len(kept) != len(result.findings):
                result = FileResult(result.path, result.kind, result.lines, kept, result.errors, result.suppressed, result.facts)
        out.append(result)
    return out


_ELEMENT_BEFORE = re.compile(r"[\[(,]\s*$")


def _listed_here(text: str, finding) -> bool:
    """The finding's name follows `[`, `(` or `,` on its line: it may be an element of a list or tuple."""
    lines = text.splitlines()
    if not 0 < finding.line <= len(lines):
        return False
    return bool(_ELEMENT_BEFORE.search(lines[finding.line - 1][:finding.column - 1]))


def _typed(functions, slot) -> bool:
    return bool(functions) and all(_type_only(f, slot) for f in functions)


def _index(tree) -> tuple[dict, dict]:
    """The tree's names and attributes by (line, 1-based column), in walk order, and its parent map: what
    `_finding_slot` asks of each finding of a file (once per file, not a walk of the whole tree per finding)."""
    at: dict[tuple[int, int], list] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)):
            at.setdefault((node.lineno, node.col_offset + 1), []).append(node)
    return at, _parents(tree)


def _finding_slot(index, finding) -> tuple[str, str | int] | None:
    """The slot of the class-name list that holds the finding's node, None where it is no such list."""
    at, parents = index
    for node in at.get((finding.line, finding.column), ()):
        literal = parents.get(id(node))
        if _class_list(literal):
            return _slot(parents, literal)
    return None


def _definitions(python, names: set[str], fresh: dict, max_file_size: int, tree_of) -> dict[str, list]:
    """Function name -> its definitions in the repository's Python files (those whose text defines it)."""
    from migrate import engine

    pattern = re.compile(r"\bdef\s+(" + "|".join(re.escape(n) for n in sorted(names)) + r")\s*\(")
    out: dict[str, list] = {}
    for result in python:
        text = engine.text_again(result.path, fresh.get(result.path), max_file_size)
        if text is None or not pattern.search(text):
            continue
        tree = tree_of(result.path)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
                out.setdefault(node.name, []).append(node)
    return out
