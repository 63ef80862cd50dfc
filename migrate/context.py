"""Per-file analysis context for Python rules.

Built on the stdlib `ast` module: one parse and one walk per file, nodes bucketed by type so each
rule looks only at the node kinds it cares about. Qualified names are resolved through the file's
imports (`import torch as th`, `from torch import cuda`, `from torch.cuda import amp`), which is what
makes the rules alias-aware without libcst's (much slower) scope analysis.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from migrate.findings import Edit

if TYPE_CHECKING:  # pragma: no cover
    from migrate.knowledge import KnowledgeBase

_LINE_SPLIT = re.compile(r"(?<=\r\n)|(?<=\n)|(?<=\r)(?!\n)")


_OTHER_BREAKS = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_ASCII_BREAKS = ("\v", "\f", "\x1c", "\x1d", "\x1e")  # those of an ASCII text: five `in` tests, 3x faster than the class


def split_lines(source: str) -> list[str]:
    """Split like the Python tokenizer does (only \\n, \\r\\n, \\r end a line), keeping the ends."""
    if not (any(c in source for c in _ASCII_BREAKS) if source.isascii() else _OTHER_BREAKS.search(source)):
        return source.splitlines(True)  # same result, 25x faster, when no other break character occurs
    lines = _LINE_SPLIT.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_matches(pattern: re.Pattern, text: str, word: str) -> Iterator[re.Match]:
    """`pattern.finditer(text)` for a multi-line pattern whose every match starts at a line start (`^`) and holds `word`
    on that line: tried only at the start of each line holding `word`. Python's `re` tries a `^` at every position of
    the text, which made such a search over a module cost as much as a few dozen `in` tests."""
    resume = 0  # where the last match ended: finditer goes on from there
    at = text.find(word)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        if start >= resume:
            match = pattern.match(text, start)
            if match is not None:
                yield match
                resume = match.end()
        end = text.find("\n", at)
        if end == -1:
            return
        at = text.find(word, max(end + 1, resume))


# Fields holding CPython's shared singleton nodes (`Load()`, `Store()`, `Add()`, `Eq()`, ...): one
# object serves the whole tree, so it has no parent of its own; skipping them leaves a quarter of
# the nodes out of the walk. Rules read them through their owner (`node.ctx`, `compare.ops`).
_SHARED_FIELDS = frozenset({"ctx", "op", "ops"})
# ASDL types of fields that never hold a node (`Name.id`, `Constant.value`, `ImportFrom.level`): each
# node class's docstring is its ASDL signature, `Attribute(expr value, identifier attr, expr_context ctx)`
_LEAF_TYPES = frozenset({"identifier", "string", "int", "constant"})


def _node_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that can hold child nodes, in `_fields` order."""
    fields = [f for f in cls._fields if f not in _SHARED_FIELDS]
    signature = re.fullmatch(rf"{cls.__name__}\((.*)\)", (cls.__doc__ or "").strip())
    if signature:
        types = {}
        for part in signature.group(1).split(","):
            words = part.split()
            if len(words) == 2:
                types[words[1]] = words[0].rstrip("?*")
        fields = [f for f in fields if types.get(f) not in _LEAF_TYPES]
    return tuple(fields)


# Per node class, a function that appends each child node to a walk, one attribute read per field (generated from the
# ASDL signature), and one that also records each child's parent: a field typed `T*` holds a list of nodes, `T` / `T?`
# one node or None. Fields whose list may hold None (`Dict.keys`, `arguments.kw_defaults`) or whose type the signature
# does not give are tested item by item, as a generic walk does.
_VISITORS: dict[type, object] = {}  # class -> visit(node, parents, append)
_WALKERS: dict[type, object] = {}  # class -> visit(node, append, extend)
_NONE_IN_LISTS = frozenset({("Dict", "keys"), ("arguments", "kw_defaults")})


def _visitor(cls: type, parents: bool = True):
    signature = re.fullmatch(rf"{cls.__name__}\((.*)\)", (cls.__doc__ or "").strip())
    types = {}
    for part in signature.group(1).split(",") if signature else ():
        words = part.split()
        if len(words) == 2:
            types[words[1]] = words[0]
    body = []
    for field in _node_fields(cls):
        kind = types.get(field, "")
        if kind.endswith("*") and (cls.__name__, field) not in _NONE_IN_LISTS:
            if parents:
                body += [f"    for child in getattr(node, {field!r}, ()):", "        parents[id(child)] = node", "        append(child)"]
            else:
                body += [f"    extend(getattr(node, {field!r}, ()))"]
        elif kind and not kind.endswith("*"):
            body += [f"    child = getattr(node, {field!r}, None)", "    if child is not None:",
                     *(["        parents[id(child)] = node"] if parents else []), "        append(child)"]
        else:
            body += [f"    value = getattr(node, {field!r}, None)", "    if value.__class__ is list:", "        for child in value:",
                     "            if isinstance(child, AST):", *(["                parents[id(child)] = node"] if parents else []),
                     "                append(child)",
                     "    elif isinstance(value, AST):", *(["        parents[id(value)] = node"] if parents else []), "        append(value)"]
    if not body:
        return None
    namespace = {"AST": ast.AST}
    head = "def visit(node, parents, append):" if parents else "def visit(node, append, extend):"
    exec("\n".join([head, *body]), namespace)  # built from the node class's field names only
    return namespace["visit"]


def index_tree(tree: ast.AST) -> tuple[dict[type, list[ast.AST]], dict[int, ast.AST]]:
    """One breadth-first pass (the order of `ast.walk`) that buckets nodes by type and records
    each node's parent. Each node's children are read by its class's generated visitor (`_visitor`):
    faster than `ast.walk` alone, which matters because every file that can hold a finding goes through here."""
    parents: dict[int, ast.AST] = {}
    order = [tree]
    append = order.append
    visitor_of = _VISITORS.get
    for node in order:  # the loop reads the children appended as it goes: breadth first
        cls = node.__class__
        visit = visitor_of(cls, _VISITORS)
        if visit is _VISITORS:
            visit = _VISITORS[cls] = _visitor(cls)
        if visit is not None:
            visit(node, parents, append)
    nodes: dict[type, list[ast.AST]] = defaultdict(list)
    for node in order:
        nodes[node.__class__].append(node)
    return nodes, parents


def bound_dotted(node: ast.AST, bound: dict[str, str]) -> str | None:
    """The dotted name an attribute chain reads through the module's imports (`tl.extra.ascend.pow` with `bound`
    {"tl": "triton.language"} -> "triton.language.extra.ascend.pow"); None where its head is no bound name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in bound:
        return None
    return ".".join([bound[node.id], *reversed(parts)])


def walk_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes `ast.walk(node)` yields, in its (breadth-first) order, but for the shared `ctx` / `op` singletons
    (`Load()`, `Add()`, `Eq()`: read them through their owner), ~3x faster: each node's children are read by its
    class's generated visitor (`_visitor`). Lazy, like `ast.walk`: a search that stops early walks no further."""
    order = [node]
    append, extend = order.append, order.extend
    walker_of = _WALKERS.get
    for current in order:  # the loop reads the children appended as it goes: breadth first
        cls = current.__class__
        visit = walker_of(cls, _WALKERS)
        if visit is _WALKERS:
            visit = _WALKERS[cls] = _visitor(cls, parents=False)
        if visit is not None:
            visit(current, append, extend)  # before the node is handed out, as `ast.walk` reads them
        yield current


def subtree(roots: Iterable[ast.AST]) -> list[ast.AST]:
    """Every node under `roots` (the roots included), as `ast.walk` of each finds them but for the shared
    `ctx` / `op` singletons, in no promised order: for a set of what a subtree holds, ~3x faster than `ast.walk`."""
    out = list(roots)
    append, extend = out.append, out.extend
    walker_of = _WALKERS.get
    for node in out:  # breadth first over all the roots at once
        cls = node.__class__
        visit = walker_of(cls, _WALKERS)
        if visit is _WALKERS:
            visit = _WALKERS[cls] = _visitor(cls, parents=False)
        if visit is not None:
            visit(node, append, extend)
    return out


def collect_imports(imports, import_froms) -> tuple[dict[str, str], list[str]]:
    """Local name -> qualified name for `import` / `from ... import` statements, and the modules
    star-imported. Relative imports are left out (they are never torch)."""
    names: dict[str, str] = {}
    stars: list[str] = []
    for node in imports:
        for alias in node.names:
            if alias.asname:
                names[alias.asname] = alias.name
            else:
                root = alias.name.split(".", 1)[0]
                names[root] = root
    for node in import_froms:
        if node.level or not node.module:
            continue
        for alias in node.names:
            if alias.name == "*":
                stars.append(node.module)
            else:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return _as_forked_language(names), stars


def _as_forked_language(names: dict[str, str]) -> dict[str, str]:
    """Names bound to a renamed copy of a kernel language resolve to that language (`import triton_pre_mlir as
    triton`: `@triton.jit` reads as `triton.jit`), so its kernels are read like Triton's: decorators and launches
    reported, bodies not. The import statement keeps its own module name (NPU501 names the fork). Names imported from
    a package that re-exports another's module resolve to that module the same way (knowledge `reexports`:
    `from vllm.triton_utils import tl, triton` binds Triton's own modules)."""
    from migrate.knowledge import forked_roots, reexported_modules
    forks, reexported = forked_roots(), reexported_modules()
    reexporting = {key.split(".", 1)[0] for key in reexported}
    for name, full in names.items():
        root, dot, rest = full.partition(".")
        if root in forks:
            names[name] = forks[root] + dot + rest
        elif root in reexporting:
            names[name] = _as_reexported(full, reexported)
    return names


def _as_reexported(full: str, reexported: dict[str, str]) -> str:
    """`full` with its longest re-exported prefix replaced by the module re-exported there (`vllm.triton_utils.tl.load`
    -> `triton.language.load`), `full` itself where no prefix is re-exported."""
    prefix = full
    while prefix:
        if prefix in reexported:
            return reexported[prefix] + full[len(prefix):]
        prefix = prefix.rpartition(".")[0]
    return full


_UNKNOWN = object()


class PythonContext:
    """Everything a Python rule needs about one module (or one notebook cell)."""

    kind = "python"

    def __init__(self, path: str, source: str, tree: ast.Module, kb: KnowledgeBase, *, cell: int | None = None):
        self.path = path
        self.source = source
        self.tree = tree
        self.kb = kb
        self.cell = cell
        self.lines = split_lines(source)
        self.nodes, self._parents = index_tree(tree)
        self.imports: dict[str, str] = {}
        self.star_modules: list[str] = []
        self._collect_imports()
        self._qualname_cache: dict[int, str | None] = {}

    # ---- imports and qualified names -------------------------------------------------------
    def _collect_imports(self) -> None:
        self.imports, self.star_modules = collect_imports(self.nodes.get(ast.Import, ()), self.nodes.get(ast.ImportFrom, ()))
        # names bound by an import inside a function: name -> {id(function): qualified name, None for a relative import}
        self._function_imports: dict[str, dict[int, str | None]] = {}
        for node in list(self.nodes.get(ast.Import, ())) + list(self.nodes.get(ast.ImportFrom, ())):
            function = self.parent(node)
            while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                function = self.parent(function)
            if function is None:
                continue
            bound, _ = collect_imports([node] if isinstance(node, ast.Import) else (), [node] if isinstance(node, ast.ImportFrom) else ())
            for alias in node.names:
                name = alias.asname or alias.name.split(".", 1)[0] if isinstance(node, ast.Import) else alias.asname or alias.name
                if name != "*":
                    self._function_imports.setdefault(name, {})[id(function)] = bound.get(name)
        # a name the module binds at its own level resolves there outside the functions that import it themselves:
        # another function's local import of the same name binds nothing there (MInference patch.py: `LlamaAttention`
        # from transformers at the top, `from vllm.model_executor.models.llama import LlamaAttention` inside the vLLM
        # patcher; the top's class is the one a sibling function reads)
        if self._function_imports:
            module_level = [node for node in list(self.nodes.get(ast.Import, ())) + list(self.nodes.get(ast.ImportFrom, ()))
                            if self.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) is None]
            top, _ = collect_imports([n for n in module_level if isinstance(n, ast.Import)],
                                     [n for n in module_level if isinstance(n, ast.ImportFrom)])
            for name in self._function_imports:
                if name in top:
                    self.imports[name] = top[name]
                elif any(alias.asname == name or alias.name == name for node in module_level
                         if isinstance(node, ast.ImportFrom) and node.level for alias in node.names):
                    self.imports.pop(name, None)  # the module's own relative import: bound by bind_import if resolved

    def bind_import(self, statement: ast.AST, name: str, full: str) -> None:
        """Bind `name` to `full` where `statement` imports it (a relative import the resolver left out): file-wide,
        and inside the function that holds the statement, if one does."""
        self.imports[name] = full
        function = self.parent(statement)
        while function is not None and not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            function = self.parent(function)
        if function is not None and id(function) in self._function_imports.get(name, {}):
            self._function_imports[name][id(function)] = full

    def _function_import(self, node: ast.Name) -> tuple[bool, str | None]:
        """(True, qualified name) where `node` lies in a function that imports its name itself (the innermost such
        function: its own import binds the name there, not another function's import of the same name; ChatTTS
        velocity/llm_engine.py: `from .worker import Worker` in one method, `from vllm.worker.worker import Worker`
        in another); (False, None) otherwise."""
        bindings = self._function_imports.get(node.id)
        if bindings is None:
            return False, None
        current = self.parent(node)
        while current is not None:
            if id(current) in bindings:
                return True, bindings[id(current)]
            current = self.parent(current)
        return False, None

    def imported_modules(self) -> Iterable[tuple[ast.AST, str]]:
        """(statement, dotted module) for every absolute import in the file."""
        for node in self.nodes.get(ast.Import, ()):
            for alias in node.names:
                yield node, alias.name
        for node in self.nodes.get(ast.ImportFrom, ()):
            if node.level or not node.module:
                continue
            yield node, node.module

    def qualname(self, node: ast.AST) -> str | None:
        """Dotted name of a Name/Attribute chain resolved through imports, or None when the root
        is not an imported name (a local variable, `self`, an argument...)."""
        key = id(node)
        known = self._qualname_cache.get(key, _UNKNOWN)  # one lookup: asked ~5M times on torch, mostly answered here
        if known is not _UNKNOWN:
            return known
        parts: list[str] = []
        current = node
        while isinstance(current, ast.Attribute):
            parts.append(current.attr)
            current = current.value
        result: str | None = None
        if isinstance(current, ast.Name):
            local, base = self._function_import(current) if self._function_imports else (False, None)
            if not local:
                base = self.imports.get(current.id)
            if base is None and not local and self.star_modules:
                base = self._resolve_star(current.id)
            if base is not None:
                parts.append(base)
                result = ".".join(reversed(parts))
        self._qualname_cache[key] = result
        return result

    def _resolve_star(self, name: str) -> str | None:
        for module in self.star_modules:
            if module == "torch" or module.startswith("torch."):
                if module.startswith("torch.cuda"):
                    candidate = f"{module}.{name}"
                    if self.kb is not None and self.kb.cuda_api(candidate) is not None:
                        return candidate
        return None

    # ---- tree helpers ------------------------------------------------------------------------
    def parent(self, node: ast.AST) -> ast.AST | None:
        return self._parents.get(id(node))

    def statements_after(self, statement: ast.AST) -> list | None:
        """The statements after `statement` in the block that holds it (its parent's body, orelse or finalbody;
        an except handler's body), None when no block of its parent holds it."""
        parent = self.parent(statement)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is statement for s in block):
                return block[next(i for i, s in enumerate(block) if s is statement) + 1:]
        return None

    def enclosing(self, node: ast.AST, kinds) -> ast.AST | None:
        """The innermost ancestor of `node` that is one of `kinds` (None: the module)."""
        parent = self.parent(node)
        while parent is not None and not isinstance(parent, kinds):
            parent = self.parent(parent)
        return parent

    @staticmethod
    def string_value(node: ast.AST | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

    @staticmethod
    def keyword(call: ast.Call, name: str) -> ast.AST | None:
        for kw in call.keywords:
            if kw.arg == name:
                return kw.value
        return None

    # ---- positions and edits -----------------------------------------------------------------
    def char_col(self, lineno: int, byte_col: int) -> int:
        """ast columns are UTF-8 byte offsets; findings and edits use characters."""
        if not 1 <= lineno <= len(self.lines):
            return byte_col
        line = self.lines[lineno - 1]
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """(line, col0, end_line, end_col0) in characters."""
        line = node.lineno
        end_line = node.end_lineno or line
        return (
            line,
            self.char_col(line, node.col_offset),
            end_line,
            self.char_col(end_line, node.end_col_offset if node.end_col_offset is not None else node.col_offset),
        )

    def segment(self, node: ast.AST) -> str:
        line, col, end_line, end_col = self.span(node)
        if line == end_line:
            return self.lines[line - 1][col:end_col]
        parts = [self.lines[line - 1][col:]]
        parts.extend(self.lines[line : end_line - 1])
        parts.append(self.lines[end_line - 1][:end_col])
        return "".join(parts)

    def replace_node(self, node: ast.AST, text: str) -> Edit:
        line, col, end_line, end_col = self.span(node)
        return Edit(line, col, end_line, end_col, text)

    def replace_attr_name(self, node: ast.Attribute, new_attr: str) -> Edit:
        """Replace just the attribute name at the end of `value.attr` (keeps spacing and the value)."""
        _, _, end_line, end_col = self.span(node)
        return Edit(end_line, end_col - len(node.attr), end_line, end_col, new_attr)

    def replace_in_node(self, node: ast.AST, old: str, new: str) -> Edit | None:
        """Replace the first `old` inside the node's source text (e.g. cuda -> npu in a literal,
        keeping the quotes, prefixes and f-string fields as written)."""
        text = self.segment(node)
        index = text.find(old)
        if index < 0:
            return None
        return self.replace_node(node, text[:index] + new + text[index + len(old) :])
