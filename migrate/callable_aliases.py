"""Names bound to a callable that a rule reports, called later through the name (NPU507, NPU508).

A wrapper module often picks the compiled op into a short name before calling it:

    def bgmv(y, x, w, idx, layer, scale):
        f = punica.ops._kernels.dispatch_bgmv       # the alias: the op is named here
        f(y, x, w, idx, layer, scale)               # the call: the op runs here

    def forward(self, x):
        f = {"int8": torch_int._CUDA.linear_i8, "fp32": torch_int._CUDA.linear_f32}[self.out_dtype]
        return f(x, self.weight)

Each call of the name is a call of the op. The binding only names the op (label ruling (L52), which replaced
25b-13's reading of both lines): where a call through the name is found, NPU508's chain pass skips the bound
chains (`binding_chains`); a binding never called through stays a use of the chain. An alias is
a name assigned, in one scope (a function, or the module), only chains the rule resolves (`resolve(node)`
returns a key for the chain, None otherwise), either directly or as a literal dict of them indexed right away.
A function's alias is called in that function at or after its first binding line; a module-level alias is
called anywhere its name is not a parameter or local of the calling function. A name also bound to something
else in the same scope is no alias (the call may run either), the module's own `def`/`class` of the name
included (`class RMSNorm` ... `try: RMSNorm = FusedRMSNorm`: the own class stays where the import fails).

A module-level alias of a whole compiled module is read the same way, its calls being those of the module's ops
(`method_calls`):

    try:
        import fused_ext
    except ImportError:
        fused_ext = load(name="fused_ext", sources=["fused.cu"])
    ext_c = fused_ext                               # the alias: names the module, runs nothing

    def pack(w):
        return ext_c.make_q_matrix(w)               # the call: the op runs here

Where the caller asks (`none_standin=True`), a binding to None (`except ImportError: ext = None`, a stand-in
that leaves each call failing) does not make the name "bound to something else"."""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass

from migrate.context import walk_nodes
from migrate.rules._device_helpers import shadowed


@dataclass(frozen=True)
class CallableAlias:
    name: str
    scope: int | None  # id() of the function binding the name; None: module level
    line: int  # the first line binding it
    keys: tuple  # what `resolve` returned for each chain the name may hold, in source order


@dataclass(frozen=True)
class AliasCall:
    call: ast.Call
    alias: CallableAlias | ClassAttributeAlias


def _chains(value: ast.expr) -> list[ast.expr] | None:
    """The chains a bound value may be: the value itself, every value of a literal dict indexed on the spot, or both
    branches of `a if c else b` of those (`index_fn = faiss.GpuIndexFlatIP if cosine else faiss.GpuIndexFlatL2`: each
    choice resolved, the calls `index_fn(...)` run one; a choice with a fallback that is no chain of the rule is
    `switched_aliases`'s)."""
    if isinstance(value, (ast.Attribute, ast.Name)):
        return [value]
    if getattr_lookup(value) is not None:  # `getattr(ext, "quant_cuda", None)`: the call node stands for `ext.quant_cuda`
        return [value]
    if isinstance(value, ast.IfExp):
        body, orelse = _chains(value.body), _chains(value.orelse)
        return body + orelse if body is not None and orelse is not None else None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict) and value.value.values \
            and None not in value.value.keys:  # no `**other` spread: every value is written here
        values = list(value.value.values)
        return values if all(isinstance(v, (ast.Attribute, ast.Name)) for v in values) else None
    return None


def getattr_lookup(node) -> tuple[ast.expr, str] | None:
    """(object, attribute) of `getattr(obj, "name")` / `getattr(obj, "name", None)`: a lookup of a literal name, the
    chain `obj.name` written as a call (fastvideo-kernel's turbodiffusion_ops.py: `quant_cuda =
    getattr(fastvideo_kernel_ops, "quant_cuda", None)`, then `quant_cuda(x, None, None)`). A resolver that does not
    read call nodes (its `ctx.qualname` answers None for them) leaves such a binding as it was: no alias."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and not node.keywords and len(node.args) in (2, 3)):
        return None
    obj, name = node.args[0], node.args[1]
    if not (isinstance(obj, (ast.Attribute, ast.Name)) and isinstance(name, ast.Constant) and isinstance(name.value, str)
            and name.value.isidentifier()):
        return None
    if len(node.args) == 3 and not (isinstance(node.args[2], ast.Constant) and node.args[2].value is None):
        return None  # a default that is itself something to run
    return obj, name.value


def _scope(ctx, node):
    # a class body's names are not the module's nor a method's
    return ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))


def callable_aliases(ctx, resolve, none_standin: bool = False) -> dict[tuple[int | None, str], CallableAlias]:
    """(scope id, name) -> alias, for every name all of whose bindings in its scope are resolved chains (or None,
    with `none_standin`)."""
    found: dict[tuple[int | None, str], CallableAlias] = {}
    other: set[tuple[int | None, str]] = set()  # bound to something else too
    for statement in ctx.nodes.get(ast.Assign, ()):
        targets = [t for t in statement.targets if isinstance(t, ast.Name)]
        if len(targets) != 1 or len(statement.targets) != 1:
            continue
        scope = _scope(ctx, statement)
        if isinstance(scope, (ast.ClassDef, ast.Lambda)):
            continue
        key = (id(scope) if scope is not None else None, targets[0].id)
        if none_standin and isinstance(statement.value, ast.Constant) and statement.value.value is None:
            continue
        chains = _chains(statement.value)
        keys = [resolve(c) for c in chains] if chains else []
        if isinstance(statement.value, ast.Subscript):
            # a dict of callables picked on the spot, some the rule's and some not (ShadowKV's `fc = {"stream_llm":
            # streaming_forward, "block_sparse": block_sparse_kernel}[ty]`, a local wrapper beside minference's op):
            # the call `fc(...)` may run the rule's one, and is its use; the entries only name them (label note 70d, (L52))
            keys = [k for k in keys if k is not None]
        if not keys or any(k is None for k in keys):
            other.add(key)
            continue
        known = found.get(key)
        line = min(known.line, statement.lineno) if known else statement.lineno
        found[key] = CallableAlias(targets[0].id, key[0], line, (*(known.keys if known else ()), *keys))
    if not found:
        return {}
    # any other binding of the name in its scope (a loop target, `with ... as f`, an augmented assignment, a parameter)
    for node in ctx.nodes.get(ast.Name, ()):
        if isinstance(node.ctx, (ast.Store, ast.Del)) and not isinstance(ctx.parent(node), ast.Assign):
            scope = _scope(ctx, node)
            other.add((id(scope) if scope is not None else None, node.id))
    # the module's own `def`/`class` of the name: rebinding it to the package in a try (`RMSNorm = FusedRMSNorm`
    # after `from apex... import FusedRMSNorm`) leaves the own one where the import fails
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        for definition in ctx.nodes.get(kind, ()):
            scope = _scope(ctx, definition)
            other.add((id(scope) if scope is not None else None, definition.name))
    for (scope, name) in list(found):
        if (scope, name) in other:
            del found[(scope, name)]
    if any(scope is not None for scope, _ in found):
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            for function in ctx.nodes.get(kind, ()):
                args = function.args
                names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
                for name in names:
                    found.pop((id(function), name), None)
    return found


def _returned_names(function, returns_by_line: list | None = None) -> list[ast.Name] | None:
    """The names a module function's only `return` gives back (`return gemm` -> [gemm]; `return SfLayout, mm_fp4,
    nvfp4_quantize` -> the three), else None. With `returns_by_line` (every `return` of the file as (line, column,
    node), sorted), a module-level function's returns are those within its lines (none of another top-level
    statement's can be), without a walk of its body."""
    if returns_by_line is None:
        returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    else:
        lo = bisect.bisect_left(returns_by_line, (function.lineno, -1))
        hi = bisect.bisect_right(returns_by_line, (function.end_lineno, float("inf")))
        returns = [node for _, _, node in returns_by_line[lo:hi]]
    if len(returns) != 1 or returns[0].value is None:
        return None
    value = returns[0].value
    elements = value.elts if isinstance(value, ast.Tuple) else [value]
    return list(elements) if all(isinstance(e, ast.Name) for e in elements) else None


def loader_aliases(ctx, resolve) -> tuple[dict[tuple[int | None, str], CallableAlias], dict[tuple[int | None, str], ast.Name]]:
    """Names bound to what a loader function of the module returns: a module-level `def` that imports a package's
    callables in its body and returns them (`def _require_flashinfer(): try: from flashinfer import SfLayout, mm_fp4
    ... except ImportError: raise ImportError(...); return SfLayout, mm_fp4, nvfp4_quantize`), its result bound by a
    caller to a name or unpacked by position (`_, mm_fp4, _ = _require_flashinfer()`, then `mm_fp4(a, b, ...)`).
    Each call through the name is a call of the returned callable; the `return` only hands it over (label ruling
    (L52); FastVideo's nvfp4_config.py, minimax_h3_checkpoint_fp8.py and fastvideo-kernel's cute forward, labels 61a).
    Returns the aliases (keyed as `callable_aliases`) and, for each, the returned name it stands for."""
    # the names some assignment calls (`x = f()`): only those functions are read for their returns (a module of many
    # functions and few such calls reads few)
    assigned = {statement.value.func.id for statement in ctx.nodes.get(ast.Assign, ())
                if isinstance(statement.value, ast.Call) and isinstance(statement.value.func, ast.Name)}
    if not assigned:
        return {}, {}
    loaders: dict[str, list[ast.Name]] = {}
    returns_by_line = sorted((n.lineno, n.col_offset, n) for n in ctx.nodes.get(ast.Return, ()))
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        for function in ctx.nodes.get(kind, ()):
            if function.name in assigned and _scope(ctx, function) is None:
                names = _returned_names(function, returns_by_line)
                if names is not None:
                    loaders[function.name] = names
    if not loaders:
        return {}, {}
    aliases: dict[tuple[int | None, str], CallableAlias] = {}
    returned: dict[tuple[int | None, str], ast.Name] = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        value = statement.value
        if len(statement.targets) != 1 or not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                               and value.func.id in loaders) or shadowed(ctx, value.func):
            continue
        names = loaders[value.func.id]
        target = statement.targets[0]
        if isinstance(target, ast.Name) and len(names) == 1:
            pairs = [(target, names[0])]
        elif isinstance(target, ast.Tuple) and len(target.elts) == len(names) and all(isinstance(t, ast.Name) for t in target.elts):
            pairs = list(zip(target.elts, names))
        else:
            continue
        scope = _scope(ctx, statement)
        if isinstance(scope, (ast.ClassDef, ast.Lambda)):
            continue
        for bound, name in pairs:
            if bound.id == "_":
                continue
            found = resolve(name)
            if found is None:
                continue
            key = (id(scope) if scope is not None else None, bound.id)
            if key in aliases:  # bound twice in one scope: no single callable
                aliases[key] = None
                continue
            aliases[key] = CallableAlias(bound.id, key[0], statement.lineno, (found,))
            returned[key] = name
    kept = {key: alias for key, alias in aliases.items() if alias is not None}
    return kept, {key: returned[key] for key in kept}


def binding_chains(ctx, called: set[tuple[int | None, str]]) -> frozenset[int]:
    """id() of each chain bound to one of the `called` aliases ((scope id, name), as `callable_aliases` keys them):
    the binding only names the op; the calls through the name run it (label ruling (L52))."""
    if not called:
        return frozenset()
    out: set[int] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
            continue
        scope = _scope(ctx, statement)
        if (id(scope) if scope is not None else None, statement.targets[0].id) in called:
            for chain in _chains(statement.value) or ():
                out.add(id(chain))
                lookup = getattr_lookup(chain)
                if lookup is not None:  # the object the chain pass reads inside `getattr(ext, "op", None)`
                    out.add(id(lookup[0]))
    return frozenset(out)


def bound_chains(ctx, alias: CallableAlias) -> list[ast.expr]:
    """The chains the bindings of `alias` name (in its scope)."""
    out: list[ast.expr] = []
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name) or statement.targets[0].id != alias.name:
            continue
        scope = _scope(ctx, statement)
        if (id(scope) if scope is not None else None) == alias.scope:
            out += _chains(statement.value) or []
    return out


def alias_calls(ctx, aliases: dict[tuple[int | None, str], CallableAlias]) -> list[AliasCall]:
    """Each call `name(...)` through an alias of `callable_aliases`."""
    return _calls_through(ctx, aliases, lambda func: func if isinstance(func, ast.Name) else None)


def method_calls(ctx, aliases: dict[tuple[int | None, str], CallableAlias]) -> list[AliasCall]:
    """Each call `name.attr(...)` through a module alias of `callable_aliases` (`ext_c.make_q_matrix(w)`), also of a
    submodule's function (`_plugin.cuda.register_gl_buffer(h)`: pybind11's `def_submodule`)."""
    def root(func):
        if not isinstance(func, ast.Attribute):
            return None
        node = func.value
        while isinstance(node, ast.Attribute):
            node = node.value
        return node if isinstance(node, ast.Name) else None

    return _calls_through(ctx, aliases, root)


def _calls_through(ctx, aliases, called_name) -> list[AliasCall]:
    """Each call whose callee names an alias (`called_name(call.func)`: the ast.Name standing for it, or None)."""
    if not aliases:
        return []
    names = {name for _, name in aliases}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        name = called_name(call.func)
        if name is not None and name.id in names:
            alias = _alias_at(ctx, call, name, aliases)
            if alias is not None:
                out.append(AliasCall(call, alias))
    return out


def _alias_at(ctx, call: ast.Call, name: ast.Name, aliases) -> CallableAlias | None:
    """The alias `name` holds at `call`: the calling function's own (at or after its first binding line), else the
    module's where the function does not bind the name itself."""
    scope = _scope(ctx, call)
    alias = aliases.get((id(scope), name.id)) if scope is not None else None
    if alias is not None:
        return alias if call.lineno >= alias.line else None
    alias = aliases.get((None, name.id))
    return alias if alias is not None and not shadowed(ctx, name) else None


@dataclass(frozen=True)
class ClassAttributeAlias:
    name: str  # the class attribute
    classes: tuple[str, ...]  # the classes of the file whose bodies bind it to a resolved chain
    line: int  # the first such binding
    keys: tuple  # what `resolve` returned for each chain bound, in source order


def class_attribute_aliases(ctx, resolve) -> dict[str, ClassAttributeAlias]:
    """Class attributes that subclasses bind to a resolved chain, called through `cls` / `self` in a method of the
    class or of a base class of the file (a template method):

        class GroupOp(torch.autograd.Function):
            @classmethod
            def forward(cls, ctx, *inputs):
                return cls.forward_op(*inputs)                             # the call: the op runs here

        class Exp(GroupOp):
            forward_op, backward_op = ext.expm, ext.expm_backward          # the alias: names the op, runs nothing

        class ToMatrix(GroupOp):
            forward_op, backward_op = ext.as_matrix, None                  # None: no such op, a stand-in

    Every binding of the name in a class body of the file is a resolved chain or None (tuple assignments element by
    element); an attribute of that name stored elsewhere (`self.forward_op = ...`, a method of that name) leaves it
    alone: the call may run something else (label ruling (L52), rule 48a a-6)."""
    found: dict[str, ClassAttributeAlias] = {}
    other: set[str] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        holder = _scope(ctx, statement)
        if not isinstance(holder, ast.ClassDef):
            continue
        pairs = _pairs(statement)
        if pairs is None:
            other.update(t.id for target in statement.targets for t in walk_nodes(target) if isinstance(t, ast.Name))
            continue
        for name, value in pairs:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            chains = _chains(value)
            keys = [resolve(c) for c in chains] if chains else []
            if not keys or any(k is None for k in keys):
                other.add(name)
                continue
            known = found.get(name)
            found[name] = ClassAttributeAlias(
                name, (*(known.classes if known else ()), holder.name),
                min(known.line, statement.lineno) if known else statement.lineno, (*(known.keys if known else ()), *keys))
    if not found:
        return {}
    for node in ctx.nodes.get(ast.Attribute, ()):
        if node.attr in found and isinstance(node.ctx, (ast.Store, ast.Del)):
            other.add(node.attr)
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        for definition in ctx.nodes.get(kind, ()):
            if definition.name in found and isinstance(_scope(ctx, definition), ast.ClassDef):
                other.add(definition.name)
    for node in ctx.nodes.get(ast.Name, ()):  # `for forward_op in ...` in a class body
        if node.id in found and isinstance(node.ctx, (ast.Store, ast.Del)) and not isinstance(ctx.parent(node), (ast.Assign, ast.Tuple)) \
                and isinstance(_scope(ctx, node), ast.ClassDef):
            other.add(node.id)
    return {name: alias for name, alias in found.items() if name not in other}


def class_attribute_calls(ctx, aliases: dict[str, ClassAttributeAlias]) -> list[AliasCall]:
    """Each call `cls.name(...)` / `self.name(...)` in a method of a class that binds the alias or is a base (by name,
    in the file) of one that does."""
    if not aliases:
        return []
    bases: dict[str, set[str]] = {}
    for definition in ctx.nodes.get(ast.ClassDef, ()):
        bases.setdefault(definition.name, set()).update(
            b.id if isinstance(b, ast.Name) else b.attr for b in definition.bases if isinstance(b, (ast.Name, ast.Attribute)))

    def ancestors(name: str) -> set[str]:
        seen, stack = {name}, [name]
        while stack:
            for base in bases.get(stack.pop(), ()):
                if base not in seen:
                    seen.add(base)
                    stack.append(base)
        return seen

    reach = {name: set().union(*(ancestors(c) for c in alias.classes)) for name, alias in aliases.items()}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in aliases and isinstance(func.value, ast.Name)
                and func.value.id in ("cls", "self")):
            continue
        method = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
        holder = ctx.parent(method) if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if isinstance(holder, ast.ClassDef) and holder.name in reach[func.attr]:
            out.append(AliasCall(call, aliases[func.attr]))
    return out


def class_attribute_chains(ctx, called: set[str]) -> frozenset[int]:
    """id() of each chain a class body binds to one of the `called` class attribute aliases."""
    if not called:
        return frozenset()
    out: set[int] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        if isinstance(_scope(ctx, statement), ast.ClassDef):
            for name, value in _pairs(statement) or ():
                if name in called:
                    out.update(id(chain) for chain in _chains(value) or ())
    return frozenset(out)


@dataclass(frozen=True)
class SwitchedAlias:
    name: str  # the local or module name, or `self.attr`
    scope: int | None  # id() of the binding's function (a name), class (`self.attr`), or None: module level
    line: int  # the first line binding it
    key: object  # what `resolve` returned for the (first) GPU-only choice
    branches: tuple  # the GPU-only choices as written in the bindings
    until: int | None  # a name rebound to the result of calling it (`attn = attn(...)`): later calls are the object's


def _choices(value: ast.expr) -> list[ast.expr] | None:
    """What a bound value may name: a chain, a constant, or either branch of `a if c else b` of those."""
    if isinstance(value, ast.IfExp):
        body, orelse = _choices(value.body), _choices(value.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return [value] if isinstance(value, (ast.Name, ast.Attribute, ast.Constant)) else None


def _one_switch(ctx, statements: list[ast.Assign]) -> bool:
    """The bindings choose once: one `a if c else b`, or one binding in each branch of one `if` (not a default bound
    first and overridden under a switch later, `attn = F.sdpa` ... `if USE_SAGE: attn = sageattn`: that override is
    the line, label rule 30b-1)."""
    if len(statements) == 1:
        return isinstance(statements[0].value, ast.IfExp)
    if len(statements) != 2:
        return False
    a, b = (ctx.parent(s) for s in statements)
    return a is b and isinstance(a, ast.If) and (statements[0] in a.body) != (statements[1] in a.body)


def _lazy_attribute(statements: list[ast.Assign]) -> bool:
    """An attribute of `self` set to None (in `__init__`) and bound once, elsewhere, to a callable the first time a
    method needs it:

        self.criterion = None                                  # __init__: a stand-in, runs nothing
        ...
        if self.criterion is None:
            from warp_rnnt import rnnt_loss
            self.criterion = rnnt_loss                         # the binding: names the op
        loss = self.criterion(log_probs, labels, ...)          # the call: the op runs here

    The None is no other choice of the program (every call runs after the binding): the calls are the uses (L52)."""
    nones = [s for s in statements if isinstance(s.value, ast.Constant) and s.value.value is None]
    rest = [s for s in statements if not (isinstance(s.value, ast.Constant) and s.value.value is None)]
    return bool(nones) and len(rest) == 1 and isinstance(rest[0].value, (ast.Name, ast.Attribute))


def switched_aliases(ctx, resolve) -> list[SwitchedAlias]:
    """Names bound to a choice between a resolved chain and a fallback that is not one, by a switch of the program:

        inner_attn_cls = FlashSelfAttention if use_flash_attn else SelfAttention   # the alias: runs nothing
        self.inner_attn = inner_attn_cls(causal=causal)                            # the call: the class is built here
        if use_flash_attn:
            attn_fn = flash_attn_varlen_kvpacked_func                              # also in the branches of an `if`
        else:
            attn_fn = SelfAttention
        self.attn = flash_attn_varlen_kvpacked_func if use_flash_attn else SelfAttention
        ...
        context = self.attn(q=q, kv=kv)                                            # in another method of the class

    The bindings only name the package's callable (label ruling (L46)); each call through the name runs it: a
    local or module name, every binding of it in its scope such a choice made once (`_one_switch`) (or, after them, the name rebound to
    the result of calling it, `inner_attn = inner_attn(causal=True)`: the object, not reported further), or an
    attribute of `self` bound in a method and called in any method of the class (another binding of it only
    wrapping it, `self.attn = Wrapper(self.attn)`, keeps it). A name every binding of which names the package
    is a plain alias (`callable_aliases`, its binding reported)."""
    bindings: dict[tuple[int | None, str], list[ast.Assign]] = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            scope = _scope(ctx, statement)
            if isinstance(scope, (ast.ClassDef, ast.Lambda)):
                continue
            key = (id(scope) if scope is not None else None, target.id)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            holder = ctx.enclosing(statement, (ast.ClassDef,))
            if holder is None:
                continue
            key = (id(holder), f"self.{target.attr}")
        else:
            continue
        bindings.setdefault(key, []).append(statement)
    if not any(isinstance(s.value, (ast.IfExp, ast.Name, ast.Attribute)) for group in bindings.values() for s in group):
        return []
    other_stores = None  # names also bound otherwise (loop targets, `with ... as`, ...): built for the first candidate
    out = []
    for key, statements in bindings.items():
        name = key[1]
        choosing, rest = [], []
        for statement in statements:
            (choosing if _choices(statement.value) is not None else rest).append(statement)
        if not choosing or not (_one_switch(ctx, choosing) or (name.startswith("self.") and _lazy_attribute(choosing))):
            continue
        picked = [(c, resolve(c)) for s in choosing for c in _choices(s.value)]
        gpu = [(c, k) for c, k in picked if k is not None]
        if not gpu or len(gpu) == len(picked):
            continue
        if other_stores is None:
            other_stores = {(id(scope) if (scope := _scope(ctx, n)) is not None else None, n.id)
                            for n in ctx.nodes.get(ast.Name, ())
                            if isinstance(n.ctx, (ast.Store, ast.Del)) and not isinstance(ctx.parent(n), ast.Assign)}
        if key in other_stores:
            continue
        first = min(s.lineno for s in choosing)
        until = None
        for statement in rest:
            value = statement.value
            if name.startswith("self.") and any(isinstance(n, ast.Attribute) and ctx.segment(n) == name for n in walk_nodes(value)):
                continue  # `self.attn = Wrapper(self.attn)`
            if not name.startswith("self.") and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id == name and statement.lineno > first:
                until = statement.lineno if until is None else min(until, statement.lineno)
                continue  # `inner_attn = inner_attn(...)`: the call is one, the name then holds the object
            break
        else:
            if until is not None and any(s.lineno > until for s in choosing):
                continue
            out.append(SwitchedAlias(name, key[0], first, gpu[0][1], tuple(c for c, _ in gpu), until))
    return out


def switched_calls(ctx, aliases: list[SwitchedAlias]) -> list[tuple[ast.Call, SwitchedAlias]]:
    """Each call through a `switched_aliases` name: `name(...)` in its function (after its first binding, up to the
    line rebinding it to a call's result) or, for a module name, where no function shadows it; `self.attr(...)` in
    any method of the class."""
    if not aliases:
        return []
    names = {(a.scope, a.name): a for a in aliases}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        func = call.func
        if isinstance(func, ast.Name):
            scope = _scope(ctx, call)
            alias = names.get((id(scope), func.id)) if scope is not None else None
            if alias is not None:
                if call.lineno > alias.line and (alias.until is None or call.lineno <= alias.until):
                    out.append((call, alias))
                continue
            alias = names.get((None, func.id))
            if alias is not None and not shadowed(ctx, func):
                out.append((call, alias))
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            holder = ctx.enclosing(call, (ast.ClassDef,))
            alias = names.get((id(holder), f"self.{func.attr}")) if holder is not None else None
            if alias is not None:
                out.append((call, alias))
    return out


def _pairs(statement: ast.Assign) -> list[tuple[str, ast.expr]] | None:
    """(name, value) for each name an assignment binds: `f = v`, or `f, g = v, w` element by element; None for other
    shapes (`f, g = pair`: what each name gets is not written here)."""
    if len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
            and all(isinstance(t, ast.Name) for t in target.elts) and not any(isinstance(v, ast.Starred) for v in value.elts):
        return [(t.id, v) for t, v in zip(target.elts, value.elts)]
    return None


def global_aliases(ctx, resolve) -> list[SwitchedAlias]:
    """Module names bound to None at the top and to a resolved chain only by a function declaring them `global`, a lazy
    import of the package's callables:

        flash_attn_func, pad_input = None, None                        # the stand-in: names nothing
        def _import_flash_attn():
            global flash_attn_func, pad_input
            from flash_attn import flash_attn_func as _f
            from flash_attn.bert_padding import pad_input as _p
            flash_attn_func, pad_input = _f, _p                        # the binding: names the callable, runs nothing
        def forward(self, q, k, v):
            out = flash_attn_func(q, k, v)                             # the call: runs it

    Read as a switch between the callable and the None stand-in (`switched_aliases`, label ruling (L46)): each call
    through the name in the module's functions is the use, the binding line is not. Every binding of the name, in the
    module or a function that declares it global, is None or a chain `resolve` knows (tuple assignments element by
    element); any other store of it (a loop target, a binding to something else) leaves it alone."""
    declared: dict[int, set[str]] = {}
    for statement in ctx.nodes.get(ast.Global, ()):
        function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        if function is not None:
            declared.setdefault(id(function), set()).update(statement.names)
    if not declared:
        return []
    names = set().union(*declared.values())
    standins: set[str] = set()
    picks: dict[str, list[tuple[int, ast.expr, object]]] = {}
    spoiled: set[str] = set()
    counted: set[int] = set()  # the Name nodes the assignments read here bind
    for statement in ctx.nodes.get(ast.Assign, ()):
        pairs = _pairs(statement)
        bound = [t for target in statement.targets for t in walk_nodes(target) if isinstance(t, ast.Name) and t.id in names]
        if not bound:
            continue
        scope = _scope(ctx, statement)
        if pairs is None or (scope is not None and (isinstance(scope, (ast.ClassDef, ast.Lambda)) or id(scope) not in declared)):
            if pairs is None or scope is None or isinstance(scope, (ast.ClassDef, ast.Lambda)):
                spoiled.update(t.id for t in bound)
            continue  # a function's own local of that name, or a binding whose values are not written element by element
        counted.update(id(t) for t in bound)
        for name, value in pairs:
            if name not in names:
                continue
            if scope is not None and name not in declared[id(scope)]:
                continue
            if isinstance(value, ast.Constant) and value.value is None:
                standins.add(name)
                continue
            key = resolve(value) if isinstance(value, (ast.Name, ast.Attribute)) and scope is not None else None
            if key is None:
                spoiled.add(name)
            else:
                picks.setdefault(name, []).append((statement.lineno, value, key))
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id in picks and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in counted:
            scope = _scope(ctx, node)
            if scope is None or id(scope) in declared and node.id in declared[id(scope)]:
                spoiled.add(node.id)
    out = []
    for name, found in picks.items():
        if name in spoiled or name not in standins:
            continue
        found.sort(key=lambda item: item[0])
        out.append(SwitchedAlias(name, None, found[0][0], found[0][2], tuple(v for _, v, _ in found), None))
    return out


def _follows(ctx, statement: ast.stmt, call: ast.AST, climb: bool) -> bool:
    """`call` sits in a statement after `statement` in the block holding it (or, with `climb`, in the block of one of
    its enclosing statements: after the `if` chain around it)."""
    anchor = statement
    while isinstance(anchor, ast.stmt) and not isinstance(anchor, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        holder = ctx.parent(anchor)
        node = call
        while node is not None and ctx.parent(node) is not holder:
            node = ctx.parent(node)
        if node is not None:
            for field in ("body", "orelse", "finalbody"):
                block = getattr(holder, field, None)
                if isinstance(block, list) and any(s is anchor for s in block):
                    at = next((i for i, s in enumerate(block) if s is node), None)
                    if at is not None:
                        return at > next(i for i, s in enumerate(block) if s is anchor)
        if not climb:
            return False
        anchor = holder
    return False


def rebound_calls(ctx, resolve) -> list[tuple[ast.Call, SwitchedAlias]]:
    """Calls through a function's local rebound by several switches in turn, each picking a class or callable for
    the call that follows it (diffusers' trainers: `optimizer_class = bnb.optim.AdamW8bit` under `if
    args.use_8bit_adam:`, `torch.optim.AdamW` in its `else:`, then `optimizer = optimizer_class(params)`; later
    `optimizer_class = prodigyopt.Prodigy` and its own construction):

        if args.use_8bit_adam:
            cls = bnb.optim.AdamW8bit            # a choice: names the class, runs nothing
        else:
            cls = torch.optim.AdamW
        opt = cls(params)                        # the call: reported, with the GPU-only choice
        cls = bnb.optim.Adam8bit if args.use_8bit_adam else torch.optim.Adam   # the next switch
        opt = cls(params)                        # reported
        cls = prodigyopt.Prodigy
        opt = cls(params)                        # not: this binding reaches it

    Each call of the name takes the binding nearest above it: one `a if c else b`, or the pair binding it in both
    branches of one `if` (the call after that `if`, also after the `if`/`elif` chain around it), or one plain binding
    the call follows in the same block. A GPU-only choice there makes the call the use and the binding not one
    (label ruling (L52)); a lone override under an `if` with no `else` reaching a later call leaves the call alone and
    the override reported (label rule 30b-1). Names `callable_aliases` (every binding the package's) or
    `switched_aliases` (one switch) already read are left to them, as are names stored otherwise (loop targets...)."""
    groups: dict[tuple[int, str], list[ast.Assign]] = {}
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
            continue
        scope = _scope(ctx, statement)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            groups.setdefault((id(scope), statement.targets[0].id), []).append(statement)
    candidates = {}
    for key, statements in groups.items():
        if len(statements) < 3:
            continue  # one switch or one alias: the readers above
        choices = [(s, [(c, resolve(c)) for c in _choices(s.value)] if _choices(s.value) is not None else None)
                   for s in statements]
        gpu = [k for _, picked in choices if picked for _, k in picked if k is not None]
        if not gpu or all(picked and all(k is not None for _, k in picked) for _, picked in choices):
            continue
        candidates[key] = sorted(choices, key=lambda item: item[0].lineno)
    if not candidates:
        return []
    stored = {(id(scope) if (scope := _scope(ctx, n)) is not None else None, n.id) for n in ctx.nodes.get(ast.Name, ())
              if isinstance(n.ctx, (ast.Store, ast.Del)) and not isinstance(ctx.parent(n), ast.Assign)}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        if not isinstance(call.func, ast.Name):
            continue
        scope = _scope(ctx, call)
        key = (id(scope), call.func.id) if scope is not None else None
        if key not in candidates or key in stored:
            continue
        before = [(s, picked) for s, picked in candidates[key] if s.end_lineno < call.lineno]
        if not before:
            continue
        nearest, picked = before[-1]
        holder = ctx.parent(nearest)
        pair = [(s, p) for s, p in candidates[key] if s is not nearest and ctx.parent(s) is holder
                and isinstance(holder, ast.If) and (s in holder.body) != (nearest in holder.body)]
        if len(pair) == 1 and pair[0][1] is not None and picked is not None \
                and _follows(ctx, holder, call, climb=True):
            unit = [(nearest, picked), pair[0]]
        elif not pair and isinstance(nearest.value, ast.IfExp) and _follows(ctx, nearest, call, climb=True):
            unit = [(nearest, picked)]
        elif not pair and not isinstance(nearest.value, ast.IfExp) and _follows(ctx, nearest, call, climb=False):
            unit = [(nearest, picked)]
        else:
            continue
        if any(p is None for _, p in unit):
            continue
        branches = [(c, k) for s, p in sorted(unit, key=lambda item: item[0].lineno) for c, k in p if k is not None]
        if branches:
            first = min(s.lineno for s, _ in unit)
            out.append((call, SwitchedAlias(call.func.id, key[0], first, branches[0][1], tuple(c for c, _ in branches), None)))
    return out


def global_module_caches(ctx, resolve_local) -> dict[tuple[None, str], CallableAlias]:
    """Module names bound to None at the top and, in a loader function declaring them `global`, to a local of that
    function that holds the compiled module (imported there, or built by a project helper when the import fails):

        _plugin = None                                   # the stand-in: names nothing
        def load_plugin(conf):
            global _plugin
            try:
                from . import lib_cc as ext              # the compiled module, when prebuilt
            except ImportError:
                ext = setup_ext(conf)                    # ... else JIT-built (the helper returns the module)
            _plugin = ext                                # the cache: names the module, runs nothing
                                                         # (or `_plugin = setup_ext(conf)` itself)
        class Tracer:
            def __init__(self, conf):
                load_plugin(conf)
                self.impl = _plugin.OptixTracer(conf)    # an op (a class) of the module: runs it

    Keyed as a module alias ((None, name)) so that `method_calls` finds each `_plugin.op(...)` in the file's
    functions. `resolve_local(function, value)` returns the key of the module the bound value holds (a local every
    binding of which in the function is the compiled module, or a call of a helper returning it), None otherwise. Any other binding of the cache (a non-None value at the
    top, another value in a function, a loop target) leaves the name alone."""
    declared: dict[int, set[str]] = {}
    for statement in ctx.nodes.get(ast.Global, ()):
        function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        if function is not None:
            declared.setdefault(id(function), set()).update(statement.names)
    if not declared:
        return {}
    names = set().union(*declared.values())
    standins: set[str] = set()
    picks: dict[str, tuple[int, object]] = {}
    spoiled: set[str] = set()
    counted: set[int] = set()
    for statement in ctx.nodes.get(ast.Assign, ()):
        if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name) \
                or statement.targets[0].id not in names:
            continue
        name, value = statement.targets[0].id, statement.value
        counted.add(id(statement.targets[0]))
        scope = _scope(ctx, statement)
        if scope is None:
            if isinstance(value, ast.Constant) and value.value is None:
                standins.add(name)
            else:
                spoiled.add(name)
            continue
        if isinstance(scope, (ast.ClassDef, ast.Lambda)) or name not in declared.get(id(scope), ()):
            continue  # a local of that name elsewhere: not the module's
        key = resolve_local(scope, value) if isinstance(value, (ast.Name, ast.Call)) else None
        if key is None and not (isinstance(value, ast.Constant) and value.value is None):
            spoiled.add(name)
        elif key is not None and name not in picks:
            picks[name] = (statement.lineno, key)
    for node in ctx.nodes.get(ast.Name, ()):
        if node.id in picks and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in counted:
            scope = _scope(ctx, node)
            if scope is None or node.id in declared.get(id(scope), ()):
                spoiled.add(node.id)
    return {(None, name): CallableAlias(name, None, line, (key,))
            for name, (line, key) in picks.items() if name in standins and name not in spoiled}


def local_bindings(function, name: str) -> list[ast.AST] | None:
    """Every statement of `function` (outside nested functions and classes) that binds the local `name`: an import
    alias or a plain assignment to it; None when some other construct binds it (a loop target, `with ... as`, an
    augmented assignment, a parameter)."""
    args = function.args
    if name in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}:
        return None
    out: list[ast.AST] = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".", 1)[0]) == name for a in node.names):
                out.append(node)
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name:
            out.append(node)
            stack.append(node.value)
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return None
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return None
        stack.extend(ast.iter_child_nodes(node))
    return out


@dataclass(frozen=True)
class ModuleAttribute:
    name: str  # the attribute of `self`
    scope: int  # id() of the class whose methods bind it
    line: int  # the first line binding it
    qual: str  # the module's dotted name
    root: str  # the name the file's import binds (`cuda` of `import pycuda.driver as cuda`)
    chains: frozenset  # id() of each chain bound to it


@dataclass(frozen=True)
class ModuleAttributeCall:
    call: ast.Call
    alias: ModuleAttribute
    qual: str  # the called function's dotted name: the module's, then the attributes after `self.<name>`


def module_attributes(ctx, resolve) -> dict[tuple[int, str], ModuleAttribute]:
    """Attributes of `self` holding an imported module of a package, called through in the class's methods:

        class TSDFVolume:
            def __init__(self, use_gpu=True):
                import pycuda.driver as cuda
                self.cuda = cuda                                   # the alias: names the module, runs nothing
                ...
            def get_volume(self):
                self.cuda.memcpy_dtoh(self._tsdf_cpu, self._tsdf_gpu)  # the call: `pycuda.driver.memcpy_dtoh` runs here

    Each call `self.<name>.<function>(...)` in a method of the class is a call of the module's function; the binding
    only names the module (label ruling (L46)/(L52), label note 53d on NeuralRecon's fusion.py). The bound value is a
    name an `import` statement of the file binds (`import a.b as m`: a module, never a class), or an attribute chain
    under one, and `resolve` must know it; every store of the attribute in the class binds the same module."""
    modules = {alias.asname or alias.name.split(".")[0] for node in ctx.nodes.get(ast.Import, ()) for alias in node.names}
    if not modules:
        return {}
    found: dict[tuple[int, str], ModuleAttribute] = {}
    other: set[tuple[int, str]] = set()
    for node in ctx.nodes.get(ast.Attribute, ()):
        if not (isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name) and node.value.id == "self"):
            continue
        owner = ctx.enclosing(node, (ast.ClassDef,))
        if owner is None:
            continue
        key = (id(owner), node.attr)
        statement = ctx.parent(node)
        value = statement.value if isinstance(statement, ast.Assign) and statement.targets == [node] else None
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        qual = resolve(value) if isinstance(root, ast.Name) and root.id in modules else None
        known = found.get(key)
        if qual is None or (known is not None and known.qual != qual):
            other.add(key)
            continue
        found[key] = ModuleAttribute(node.attr, id(owner), min(known.line, statement.lineno) if known else statement.lineno,
                                     qual, root.id, (known.chains if known else frozenset()) | {id(value)})
    return {key: alias for key, alias in found.items() if key not in other}


def module_attribute_calls(ctx, aliases: dict[tuple[int, str], ModuleAttribute]) -> list[ModuleAttributeCall]:
    """Each call `self.<name>.<attributes>(...)` of an alias of `module_attributes` in a method of its class."""
    if not aliases:
        return []
    names = {name for _, name in aliases}
    out = []
    for call in ctx.nodes.get(ast.Call, ()):
        parts, node = [], call.func
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if len(parts) < 2 or parts[-1] not in names or not (isinstance(node, ast.Name) and node.id == "self"):
            continue
        owner = ctx.enclosing(call, (ast.ClassDef,))
        alias = aliases.get((id(owner), parts[-1])) if owner is not None else None
        if alias is not None:
            out.append(ModuleAttributeCall(call, alias, ".".join([alias.qual, *reversed(parts[:-1])])))
    return out


@dataclass(frozen=True)
class StoredAttribute:
    name: str  # the attribute
    line: int  # the first line storing it
    keys: tuple  # what `resolve` returned for each chain stored, in source order
    chains: frozenset[int]  # id() of each chain stored (the bindings: named, not run)


def stored_attributes(ctx, resolve) -> dict[str, StoredAttribute]:
    """Attributes that the file stores on another object (`module.full_attn_func = ...` in a patching function, not
    `self.<name>` in the class's own methods) only as a resolved callable, or as a call of something else that is handed one (a wrapper object,
    `functools.partial`), and calls as `self.<name>(...)` (`stored_attribute_calls`):

        def enable_duo_attention(model):
            for module in model.layers:
                module.full_attn_func = flash_attn_func                    # the alias: names the callable, runs nothing
                module.forward = types.MethodType(duo_forward, module)
        def duo_forward(self, q, k, v):
            return self.full_attn_func(q, k, v)                            # the call: flash_attn_func runs here

        class SS2D(nn.Module):
            def __init__(self):
                self.selective_scan = selective_scan_fn                     # a class's own alias of an imported name
            def forward(self, xs):
                return self.selective_scan(xs, ...)                         # the call: selective_scan_fn runs here

    (mit-han-lab/duo-attention's duo_attn/patch/llama.py, with `UlyssesAttention(attn_func=flash_attn_func)` as the
    other store: label set 63e by ruling (L52), the call is the use, the bindings are not.) Every store of the
    attribute in the file, whatever its object, must be of that shape: one of anything else (`self.full_attn_func =
    sdpa`, `+=`, a method or class-body name of that name) leaves it alone, the call may run something else."""
    found: dict[str, StoredAttribute] = {}
    other: set[str] = set()
    for node in ctx.nodes.get(ast.Attribute, ()):
        if not isinstance(node.ctx, (ast.Store, ast.Del)):
            continue
        statement = ctx.parent(node)
        value = statement.value if isinstance(statement, ast.Assign) and statement.targets == [node] else None
        if isinstance(node.value, ast.Name) and node.value.id == "self" and not isinstance(value, ast.Name):
            # a class's own `self.fill = triton.runtime.driver.active.utils.fill_1d_tma_descriptor` in `__init__`:
            # left to the class's readers (set 61 labelled hao-ai-lab/FastVideo's such lines at the binding, whose
            # `driver.active` runs Triton's driver lookup there, (L51)); only an object patched from outside is read.
            # A bare imported name stored on `self` (`self.selective_scan = selective_scan_fn` in `__init__`, then
            # `self.selective_scan(xs, ...)` in `forward`: Swin-UMamba, labels 69d) looks nothing up: an alias, (L52)
            other.add(node.attr)
            continue
        chains: list[ast.expr] = []
        if isinstance(value, (ast.Name, ast.Attribute)):
            chains = [value]
        elif isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and resolve(value.func) is None:
            chains = [a for a in (*value.args, *(k.value for k in value.keywords)) if isinstance(a, (ast.Name, ast.Attribute))
                      and resolve(a) is not None]
        keys = [resolve(c) for c in chains]
        if not keys or None in keys:
            other.add(node.attr)
            continue
        known = found.get(node.attr)
        found[node.attr] = StoredAttribute(node.attr, min(known.line, statement.lineno) if known else statement.lineno,
                                           (*(known.keys if known else ()), *keys),
                                           (known.chains if known else frozenset()) | {id(c) for c in chains})
    if not found:
        return {}
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        for definition in ctx.nodes.get(kind, ()):
            if definition.name in found and isinstance(_scope(ctx, definition), ast.ClassDef):
                other.add(definition.name)
    for node in ctx.nodes.get(ast.Name, ()):  # a class attribute of that name (`full_attn_func = staticmethod(...)`)
        if node.id in found and isinstance(node.ctx, ast.Store) and isinstance(_scope(ctx, node), ast.ClassDef):
            other.add(node.id)
    return {name: alias for name, alias in found.items() if name not in other}


def stored_attribute_calls(ctx, aliases: dict[str, StoredAttribute]) -> list[tuple[ast.Call, StoredAttribute]]:
    """Each call `self.<name>(...)` of a `stored_attributes` alias in the file."""
    if not aliases:
        return []
    return [(call, aliases[call.func.attr]) for call in ctx.nodes.get(ast.Call, ())
            if isinstance(call.func, ast.Attribute) and call.func.attr in aliases
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"]


@dataclass(frozen=True)
class ParameterModule:
    name: str  # the parameter
    function: int  # id() of the function taking it
    keys: tuple  # what `resolve` returned for each module handed to it that it knows, in source order
    arguments: frozenset[int]  # id() of each argument handing a module over (the bindings: named, not run)


@dataclass(frozen=True)
class ParameterModuleCall:
    call: ast.Call
    alias: ParameterModule
    qual: str  # the called function's dotted name: the module's, then the attributes after the parameter


def _positional(function) -> list[str]:
    return [a.arg for a in (*function.args.posonlyargs, *function.args.args)]


def parameter_modules(ctx, resolve) -> dict[tuple[int, str], ParameterModule]:
    """Parameters of a module-level function that each call of it in the file binds to an imported module, one at least
    a module `resolve` knows:

        def build_selective_scan_fn(selective_scan_cuda: object = None, mode="mamba_ssm"):
            class SelectiveScanFn(torch.autograd.Function):
                def forward(ctx, u, delta, ...):
                    out, x, *rest = selective_scan_cuda.fwd(u, delta, ...)   # the call: the handed module's op runs
            ...
        import selective_scan_cuda
        selective_scan_fn = build_selective_scan_fn(selective_scan_cuda, mode="mamba_ssm")  # hands it over, runs nothing

    (TerryPei/EfficientVMamba selective_scan/test_selective_scan.py, Mzero's copy of VMamba's kernel test, labels 69c:
    the calls through the parameter are labelled, the hand-overs are not, as a binding under (L46)/(L57).) Each call
    `<param>.<attributes>(...)` inside the function (nested functions and classes included, unless one takes or binds
    a name of that spelling itself) is a call of the module's function. Every argument given for the parameter, at
    every call in the file, must be a name an `import` statement of the file binds: anything else (a torch module, a
    local, `*args`) leaves it alone, the calls may run something else. A module `resolve` does not know (another
    rule's compiled module, an unknown one) may stand beside the known one."""
    modules = {alias.asname or alias.name.split(".")[0] for node in ctx.nodes.get(ast.Import, ()) for alias in node.names}
    if not modules:
        return {}
    functions: dict[str, ast.FunctionDef] = {}
    for definition in ctx.nodes.get(ast.FunctionDef, ()):
        if ctx.parent(definition) is ctx.tree:
            functions[definition.name] = None if definition.name in functions else definition  # a name defined twice: none
    functions = {name: f for name, f in functions.items() if f is not None}
    if not functions:
        return {}
    handed: dict[tuple[int, str], list[ast.expr]] = {}
    other: set[tuple[int, str]] = set()
    for call in ctx.nodes.get(ast.Call, ()):
        if not (isinstance(call.func, ast.Name) and call.func.id in functions) or shadowed(ctx, call.func):
            continue
        function = functions[call.func.id]
        params = _positional(function)
        pairs = [(params[i] if i < len(params) else None, a) for i, a in enumerate(call.args)]
        pairs += [(k.arg, k.value) for k in call.keywords]
        if any(isinstance(a, ast.Starred) for a in call.args) or any(p is None for p, _ in pairs):
            other.update((id(function), p) for p in params + [a.arg for a in function.args.kwonlyargs])
            continue
        for param, arg in pairs:
            key = (id(function), param)
            if isinstance(arg, ast.Name) and arg.id in modules:
                handed.setdefault(key, []).append(arg)
            else:
                other.add(key)
    out: dict[tuple[int, str], ParameterModule] = {}
    for (function_id, param), arguments in handed.items():
        if (function_id, param) in other:
            continue
        keys = tuple(k for k in (resolve(a) for a in arguments) if k is not None)
        if keys:
            out[(function_id, param)] = ParameterModule(param, function_id, keys, frozenset(id(a) for a in arguments))
    return out


def parameter_module_calls(ctx, aliases: dict[tuple[int, str], ParameterModule]) -> list[ParameterModuleCall]:
    """Each call `<param>.<attributes>(...)` of a `parameter_modules` alias inside its function."""
    if not aliases:
        return []
    by_function: dict[int, dict[str, ParameterModule]] = {}
    for (function_id, name), alias in aliases.items():
        by_function.setdefault(function_id, {})[name] = alias
    out = []
    for definition in ctx.nodes.get(ast.FunctionDef, ()):
        names = by_function.get(id(definition))
        if not names:
            continue
        # a store of the name anywhere in the function: the calls may run what was stored
        names = {n: a for n, a in names.items() if not any(
            isinstance(node, ast.Name) and node.id == n and isinstance(node.ctx, (ast.Store, ast.Del))
            for node in ast.walk(definition))}
        todo = list(definition.body)
        while todo and names:
            node = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                own = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
                if own & set(names):  # takes a name of that spelling itself: its uses are its own
                    continue
            if isinstance(node, ast.Call):
                parts, func = [], node.func
                while isinstance(func, ast.Attribute):
                    parts.append(func.attr)
                    func = func.value
                if parts and isinstance(func, ast.Name) and func.id in names:
                    alias = names[func.id]
                    out.append(ParameterModuleCall(node, alias, ".".join([alias.keys[0], *reversed(parts)])))
            todo.extend(ast.iter_child_nodes(node))
    return out
