"""Shared helpers for the device, identity and AMP rules (NPU102-NPU105, NPU201-NPU207, NPU401-NPU404).

Not a rule (the leading underscore keeps it out of the registry). Three jobs:

* find each *use* of a dotted API once: the outermost Name/Attribute chain whose qualified name
  (through the file's imports) starts with a prefix such as `torch.cuda`;
* turn `torch.cuda.X` into `torch.npu.X` with the smallest textual edits: rename just the attribute
  names that differ, or, when the changed part is hidden in an imported name
  (`from torch.cuda.amp import GradScaler`), rewrite just the module text of that import when every
  name it imports has a same-named counterpart;
* recognise CUDA device strings ("cuda", "cuda:1", f"cuda:{rank}", "cuda:" + str(i), ...).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from migrate.context import subtree
from migrate.findings import Edit

CUDA = "torch.cuda"
NPU = "torch.npu"

# torch.cuda names that the same-name mapping must never rewrite (another rule owns them and has
# no rewrite): an import statement importing one of these is not rewritten either.
CAPABILITY_APIS = ("torch.cuda.get_device_capability", "torch.cuda.get_arch_list")

CUDA_DEVICE_TEXT = re.compile(r"cuda(?::|$)")


def under(qual: str | None, prefix: str) -> bool:
    return qual is not None and (qual == prefix or qual.startswith(prefix + "."))


def annotation(ctx, node) -> bool:
    """A name inside a type annotation (`self.attn_bias: Optional[AttentionBias] = None`, `def f(x: dr.RasterizeGLContext)`,
    `-> xops.AttentionBias`): a hint, no package code runs there (as for a type check); the import that
    brings the name in is the line to change."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.arg) and parent.annotation is child:
            return True
        child, parent = parent, ctx.parent(parent)
    return (isinstance(parent, ast.AnnAssign) and parent.annotation is child) or (
        isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.returns is child)


# ---- chains ---------------------------------------------------------------------------------------
def chain_tops(ctx) -> list[tuple[ast.AST, str]]:
    """(node, qualified name) of every outermost Name/Attribute chain rooted at an imported name."""
    cached = ctx.__dict__.get("_npu_chain_tops")
    if cached is not None:
        return cached
    # A chain resolves exactly when its root Name is an imported one: start from those Names and
    # climb to the outermost Attribute, instead of resolving every Attribute and Name of the file.
    imports, parent_of, attribute = ctx.imports, ctx._parents.get, ast.Attribute
    out: list[tuple[ast.AST, str]] = []
    for node in ctx.nodes.get(ast.Name, ()):
        if imports.get(node.id) is None and not (ctx.star_modules and ctx._resolve_star(node.id) is not None):
            continue
        top, parent = node, parent_of(id(node))
        while parent.__class__ is attribute and parent.value is top:
            top, parent = parent, parent_of(id(parent))
        qual = ctx.qualname(top)
        if qual is not None:
            out.append((top, qual))
    out.sort(key=lambda item: (item[0].lineno, item[0].col_offset, item[0].__class__ is not attribute))
    if len({(n.lineno, n.col_offset, n.__class__) for n, _ in out}) < len(out):
        out = _chain_tops_in_tree_order(ctx)  # two chains at one position (f-string offsets): the order of the tree
    ctx.__dict__["_npu_chain_tops"] = out
    return out


def _chain_tops_in_tree_order(ctx) -> list[tuple[ast.AST, str]]:
    out: list[tuple[ast.AST, str]] = []
    # a node is inside a longer chain exactly when it is the `.value` of an Attribute
    inner = {id(node.value) for node in ctx.nodes.get(ast.Attribute, ())}
    for kind in (ast.Attribute, ast.Name):
        for node in ctx.nodes.get(kind, ()):
            if id(node) in inner:
                continue
            qual = ctx.qualname(node)
            if qual is not None:
                out.append((node, qual))
    out.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
    return out


def _chains_by_head(ctx) -> dict[str, list[tuple[ast.AST, str]]]:
    """`chain_tops(ctx)` grouped by the first two parts of the qualified name (`torch.cuda`; one part for a
    one-part name), each group in `chain_tops` order; rebuilt when the chain list is (names bound later)."""
    tops = chain_tops(ctx)
    cached = ctx.__dict__.get("_npu_chains_by_head")
    if cached is not None and cached[0] is tops:
        return cached[1]
    groups: dict[str, list[tuple[ast.AST, str]]] = {}
    for item in tops:
        parts = item[1].split(".", 2)
        groups.setdefault(".".join(parts[:2]), []).append(item)
    ctx.__dict__["_npu_chains_by_head"] = (tops, groups)
    return groups


def uses(ctx, prefix: str, *, loads_only: bool = True) -> Iterator[tuple[ast.AST, str]]:
    """Outermost chains whose qualified name is `prefix` or below it."""
    parts = prefix.split(".", 2)
    # a name under a prefix of two parts or more starts with the prefix's first two parts: only that group is read
    chains = _chains_by_head(ctx).get(".".join(parts[:2]), ()) if len(parts) > 1 else chain_tops(ctx)
    for node, qual in chains:
        if not under(qual, prefix):
            continue
        if loads_only and not isinstance(getattr(node, "ctx", None), ast.Load):
            continue
        yield node, qual


def prefix_node(node: ast.AST, qual: str, parts: int) -> ast.AST | None:
    """The sub-chain of `node` whose qualified name is the first `parts` parts of `qual`."""
    steps = len(qual.split(".")) - parts
    for _ in range(steps):
        if not isinstance(node, ast.Attribute):
            return None
        node = node.value
    return node


def report_node(ctx, node: ast.AST) -> ast.AST:
    """Where to point a finding about a chain: the call when the chain is called."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return parent
    return node


def root_name(node: ast.AST) -> str | None:
    """The name a chain starts from: `amp` for `amp.scale_loss(loss)`, None for a literal."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def module_aliases(ctx, module: str) -> Iterator[tuple[ast.alias, str]]:
    """The import lines that bind `module` itself under a short name (`import torch.backends.cudnn
    as cudnn`, `from torch.backends import cudnn`): (alias node, the statement as shown to a user).
    A plain `import torch.backends.cudnn` binds `torch`, not the module, and is left out."""
    parent, _, last = module.rpartition(".")
    for statement in ctx.nodes.get(ast.Import, ()):
        for alias in statement.names:
            if alias.name == module and alias.asname:
                yield alias, f"import {module} as {alias.asname}"
    for statement in ctx.nodes.get(ast.ImportFrom, ()):
        if statement.module == parent and not statement.level:
            for alias in statement.names:
                if alias.name == last:
                    yield alias, f"from {parent} import {last}"


def statement_of(ctx, node: ast.AST) -> ast.AST:
    current = node
    while current is not None and not isinstance(current, ast.stmt):
        current = ctx.parent(current)
    return current if current is not None else node


# ---- rewriting torch.cuda.X -> torch.npu.X ------------------------------------------------------------
def _position(ctx, node: ast.AST, offset: int) -> tuple[int, int]:
    """(line, col0) of the character `offset` characters into the node's source segment."""
    line, col, _, _ = ctx.span(node)
    rest = len(ctx.lines[line - 1]) - col
    while offset >= rest and line < len(ctx.lines):
        offset -= rest
        line += 1
        col = 0
        rest = len(ctx.lines[line - 1])
    return line, col + offset


def _binding_imports(ctx, name: str) -> list[ast.AST] | None:
    """Import statements that bind `name`; None when any of them is an `import x.y as name`."""
    found: list[ast.AST] = []
    for stmt in ctx.nodes.get(ast.Import, ()):
        for alias in stmt.names:
            bound = alias.asname or alias.name.split(".", 1)[0]
            if bound == name:
                return None
    for stmt in ctx.nodes.get(ast.ImportFrom, ()):
        for alias in stmt.names:
            if (alias.asname or alias.name) == name:
                found.append(stmt)
    return found


def import_statement_is_mappable(ctx, stmt: ast.ImportFrom) -> bool:
    """True when `from torch.cuda[.sub] import a, b` can become `from torch.npu[.sub] import a, b`:
    every imported name has a same-named torch.npu counterpart in the target torch_npu."""
    module = stmt.module or ""
    if stmt.level or not under(module, CUDA):
        return False
    new_module = NPU + module[len(CUDA):]
    kb = ctx.kb
    for alias in stmt.names:
        if alias.name == "*":
            return False
        full = f"{module}.{alias.name}"
        if full in CAPABILITY_APIS:
            return False
        api = kb.cuda_api(full) if kb is not None else None
        if api is None or api.npu != f"{new_module}.{alias.name}":
            return False
    return True


def import_module_edit(ctx, stmt: ast.ImportFrom) -> Edit | None:
    """Replace just `cuda` in the module text of a `from torch.cuda... import` statement."""
    text = ctx.segment(stmt)
    index = text.find("cuda")  # the statement starts with `from`, so the first `cuda` is in the module
    if index < 0:
        return None
    line, col = _position(ctx, stmt, index)
    return Edit(line, col, line, col + 4, "npu")


def _import_edits(ctx, name: str, bound: str, new_bound: str) -> list[Edit] | None:
    statements = _binding_imports(ctx, name)
    if not statements:
        return None  # bound by `import x.y as name`, a star import, or not found
    edits = []
    for stmt in statements:
        alias = next(a for a in stmt.names if (a.asname or a.name) == name)
        if f"{stmt.module}.{alias.name}" != bound:
            return None  # the name is bound differently elsewhere: do not guess
        module = stmt.module or ""
        if not under(module, CUDA) or new_bound != f"{NPU}{module[len(CUDA):]}.{alias.name}":
            return None
        if not import_statement_is_mappable(ctx, stmt):
            return None
        edit = import_module_edit(ctx, stmt)
        if edit is None:
            return None
        edits.append(edit)
    return edits


def rename_edits(ctx, node: ast.AST, qual: str, target: str) -> list[Edit] | None:
    """Edits turning the chain `node` (qualified name `qual`) into `target`, or None when that cannot
    be done safely by renaming attributes and rewriting `from torch.cuda... import` statements."""
    old, new = qual.split("."), target.split(".")
    if len(old) != len(new):
        return None
    attrs: list[ast.Attribute] = []
    current = node
    while isinstance(current, ast.Attribute):
        attrs.append(current)
        current = current.value
    if not isinstance(current, ast.Name):
        return None
    root_parts = len(old) - len(attrs)
    if root_parts < 1:
        return None
    edits: list[Edit] = []
    for offset, attr in enumerate(reversed(attrs)):  # innermost attribute first
        index = root_parts + offset
        if old[index] != new[index]:
            edits.append(ctx.replace_attr_name(attr, new[index]))
    if old[:root_parts] != new[:root_parts]:
        imports = _import_edits(ctx, current.id, ".".join(old[:root_parts]), ".".join(new[:root_parts]))
        if imports is None:
            return None
        edits.extend(imports)
    return edits


def _locally_bound(ctx, function) -> set[str]:
    """Names a function binds itself (parameters, assignments, loop / with / except targets), minus
    those it declares global or nonlocal. Imports inside the function are not counted: the file's
    import table already holds them (`def main(): import apex; apex.parallel...` is apex). Cached."""
    cache = ctx.__dict__.setdefault("_npu_local_names", {})
    found = cache.get(id(function))
    if found is not None:
        return found
    args = function.args
    found = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    found.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared: set[str] = set()
    body = function.body if isinstance(function.body, list) else [function.body]
    for node in subtree(body):  # what `ast.walk` of each statement finds, faster
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    found -= declared
    cache[id(function)] = found
    return found


def shadowed(ctx, node: ast.AST) -> bool:
    """The chain's root name is a parameter or local of an enclosing function, so it is not the
    module-level import it resolves to (`import torch._inductor.config as config` ...
    `def __init__(self, config): config.n_embd`)."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    parent = ctx.parent(root)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and root.id in _locally_bound(ctx, parent):
            return True
        parent = ctx.parent(parent)
    return False


def binding_scope(ctx, node: ast.AST, name: str) -> ast.AST | None:
    """The innermost function enclosing `node` that binds `name` itself (a parameter, an assignment; not one it
    declares global), None where the name read at `node` is the module's."""
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and name in _locally_bound(ctx, parent):
            return parent
        parent = ctx.parent(parent)
    return None


def availability_probe(ctx, node: ast.AST) -> bool:
    """`x is None` / `x is not None` / `if x:` / `not x`: asks whether an optional import worked,
    does not use it."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Compare):
        operands = [parent.left, *parent.comparators]
        return any(isinstance(o, ast.Constant) and o.value is None for o in operands)
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return True
    if isinstance(parent, ast.BoolOp):
        return True
    return isinstance(parent, (ast.If, ast.IfExp, ast.While)) and parent.test is node


# The first torch with the device-neutral `torch.amp.<name>` (torch/amp/grad_scaler.py arrived in
# 2.3, from pytorch/pytorch PR #99301's refactor; `torch.amp.autocast` is in every torch torch_npu supports).
_NEUTRAL_AMP_SINCE = {"GradScaler": (2, 3), "autocast": (2, 1)}
_FALLBACK_ERRORS = frozenset({"AttributeError", "TypeError", "ImportError", "ModuleNotFoundError"})


def old_torch_fallback(ctx, node: ast.AST, qual: str) -> bool:
    """`try: s = torch.amp.GradScaler(device=device) except (AttributeError, TypeError): s =
    torch.cuda.amp.GradScaler()`: the `torch.cuda.amp` name sits in the fallback of a `try` whose
    body already uses the device-neutral `torch.amp` name, and the target torch has it, so the
    fallback never runs."""
    name = qual.rsplit(".", 1)[-1]
    since = _NEUTRAL_AMP_SINCE.get(name)
    version = getattr(ctx.kb, "version", None)
    if since is None or version is None or tuple(int(p) for p in version.split(".")[:2]) < since:
        return False
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, ast.ExceptHandler) and parent.type is not None:
            types = parent.type.elts if isinstance(parent.type, ast.Tuple) else [parent.type]
            if not {getattr(t, "id", None) for t in types} & _FALLBACK_ERRORS:
                return False
            attempt = ctx.parent(parent)
            return isinstance(attempt, ast.Try) and any(
                ctx.qualname(n) in (f"torch.amp.{name}", f"torch.{name}")
                for statement in attempt.body for n in ast.walk(statement) if isinstance(n, (ast.Attribute, ast.Name))
            )
        parent = ctx.parent(parent)
    return False


def guards_optional_fast_path(ctx, node: ast.AST) -> bool:
    """`if x.is_cuda:` whose body only *tries* a CUDA-only fast path and falls back when it fails
    (whisper's `if x.is_cuda: try: return dtw_cuda(x) except RuntimeError: warn(...)`, then the CPU
    code): False on an NPU host is the right answer there, the fallback runs. A handler that
    re-raises makes the fast path required, so that is still reported."""
    test = node
    parent = ctx.parent(node)
    while isinstance(parent, (ast.BoolOp, ast.Compare)):
        test, parent = parent, ctx.parent(parent)
    if not (isinstance(parent, ast.If) and parent.test is test and not parent.orelse and parent.body):
        return False
    attempt = parent.body[0]
    return (
        len(parent.body) == 1
        and isinstance(attempt, ast.Try)
        and bool(attempt.handlers)
        and not any(isinstance(n, ast.Raise) for h in attempt.handlers for n in ast.walk(h))
    )


def edit_anchor(ctx, node: ast.AST, edits) -> ast.AST:
    """Where to report a rewrite: the import alias when every edit is in the import statement
    (`from torch.cuda.amp import GradScaler` ... `GradScaler()`): the line `apply` changes."""
    if not edits:
        return node
    first, last = node.lineno, node.end_lineno or node.lineno
    if any(first <= e.line <= last for e in edits):
        return node
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return node
    edit_lines = {e.line for e in edits}
    for kind in (ast.ImportFrom, ast.Import):
        for statement in ctx.nodes.get(kind, ()):
            if not (statement.lineno <= min(edit_lines) and max(edit_lines) <= (statement.end_lineno or statement.lineno)):
                continue
            for alias in statement.names:
                if (alias.asname or alias.name.split(".", 1)[0]) == root.id:
                    return alias
    return node


def cuda_device_literals(node: ast.AST | None) -> list[ast.AST]:
    """The string literal nodes of a device expression that name a CUDA device: "cuda", "cuda:0",
    f"cuda:{rank}", "cuda:" + str(i), "cuda:%d" % i, "cuda:{}".format(i), both branches of
    `"cuda" if ... else "cpu"` and the operands of `x or "cuda"`."""
    if node is None:
        return []
    if isinstance(node, ast.Constant):
        return [node] if isinstance(node.value, str) and CUDA_DEVICE_TEXT.match(node.value) else []
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and CUDA_DEVICE_TEXT.match(first.value):
            return [node]
        return []
    if isinstance(node, ast.IfExp):
        return cuda_device_literals(node.body) + cuda_device_literals(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [lit for value in node.values for lit in cuda_device_literals(value)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return cuda_device_literals(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        if isinstance(node.func.value, (ast.Constant, ast.JoinedStr)):
            return cuda_device_literals(node.func.value)
    return []


def literal_to_npu(ctx, literal: ast.AST) -> tuple[Edit | None, str | None]:
    """(edit replacing just `cuda` with `npu` inside the literal's text, the new literal text)."""
    edit = ctx.replace_in_node(literal, "cuda", "npu")
    return edit, (edit.replacement if edit is not None else None)


def device_like_name(name: str | None) -> bool:
    """`device`, `dev`, `*_device` (any case): a variable that holds a device."""
    if not name:
        return False
    lowered = name.lower()
    return lowered in ("device", "dev") or lowered.endswith("_device")


def device_type_name(name: str | None) -> bool:
    """`device_type`, `*_device_type` (any case): a variable that holds a device type string."""
    if not name:
        return False
    lowered = name.lower()
    return lowered == "device_type" or lowered.endswith("_device_type")


def holds_device(name: str | None) -> bool:
    """A device or device-type variable. NPU201 rewrites the "cuda" it is compared with and NPU104
    the "cuda" assigned to it: both rules use this one test, so that a rewritten script compares a
    variable with the same string it was given (`device_type = "npu" ...; if device_type == "npu"`)."""
    return device_like_name(name) or device_type_name(name)


def target_name(node: ast.AST) -> str | None:
    """The last name of an assignment target: `device`, `self.device`, `cfg["device"]`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return None


# ---- torch.cuda API uses (NPU102 / NPU103 / NPU204 share these) ------------------------------------
def gated_properties_nodes(ctx) -> set[int]:
    """ids of `torch.cuda.get_device_properties` chains whose result's `.major` / `.minor` is read
    (directly, or through a variable assigned from the call): compute-capability gates (NPU204)."""
    cached = ctx.__dict__.get("_npu_gated_properties")
    if cached is not None:
        return cached
    read_names = {
        node.value.id
        for node in ctx.nodes.get(ast.Attribute, ())
        if node.attr in ("major", "minor") and isinstance(node.value, ast.Name)
    }
    gated: set[int] = set()
    for node, qual in uses(ctx, "torch.cuda.get_device_properties"):
        if qual != "torch.cuda.get_device_properties":
            continue
        call = ctx.parent(node)
        if not (isinstance(call, ast.Call) and call.func is node):
            continue
        parent = ctx.parent(call)
        if isinstance(parent, ast.Attribute) and parent.value is call and parent.attr in ("major", "minor"):
            gated.add(id(node))
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if any(isinstance(t, ast.Name) and t.id in read_names for t in targets):
                gated.add(id(node))
    ctx.__dict__["_npu_gated_properties"] = gated
    return gated


def owned_elsewhere(qual: str) -> bool:
    """torch.cuda names that the specialised rules own (AMP, availability, capability gates)."""
    return under(qual, "torch.cuda.amp") or under(qual, "torch.cuda.is_available") or any(under(qual, c) for c in CAPABILITY_APIS)


def cuda_api_uses(ctx) -> list[tuple[ast.AST, str, object]]:
    """(node, qualified name, CudaApi or None) for each `torch.cuda...` chain, reported once at the
    longest prefix the knowledge base knows (`torch.cuda.memory.memory_allocated`, not also
    `torch.cuda.memory`). CudaApi None: not a known torch.cuda name."""
    cached = ctx.__dict__.get("_npu_cuda_api_uses")
    if cached is not None:
        return cached
    kb = ctx.kb
    gated = gated_properties_nodes(ctx)
    out: list[tuple[ast.AST, str, object]] = []
    for node, qual in uses(ctx, CUDA):
        if owned_elsewhere(qual) or id(node) in gated:
            continue
        parts = qual.split(".")
        lowest = 3 if len(parts) >= 3 else 2
        found = None
        for count in range(len(parts), lowest - 1, -1):
            prefix = ".".join(parts[:count])
            api = kb.cuda_api(prefix) if kb is not None else None
            if api is None:
                continue
            sub = prefix_node(node, qual, count)
            if sub is not None:
                found = (sub, prefix, api)
            break
        if found is None:
            count = min(lowest, len(parts))
            sub = prefix_node(node, qual, count) or node
            found = (sub, ".".join(parts[:count]), None)
        if id(found[0]) in gated:
            continue
        out.append(found)
    ctx.__dict__["_npu_cuda_api_uses"] = out
    return out
