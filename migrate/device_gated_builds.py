"""A run-time CUDA build taken only for CUDA tensors, with plain PyTorch on every other device, is a per-device path
(label rulings (L103), as 45e-2/(L90): StyleGAN2-ADA / StyleGAN3 `torch_utils/ops`).

A module that JIT-builds its CUDA plugin lazily, and builds and calls it only when the input tensor is on a CUDA
device, runs its plain-PyTorch reference on any other device, the NPU included:

    _plugin = None

    def _init():                                         # the build: runs only where the test below lets it
        global _plugin
        if _plugin is None:
            _plugin = custom_ops.get_plugin("bias_act_plugin", sources=["bias_act.cpp", "bias_act.cu"],
                                            extra_cuda_cflags=["--use_fast_math"])
        return True

    def bias_act(x, b, impl="cuda"):
        if impl == "cuda" and x.device.type == "cuda" and _init():
            return _bias_act_cuda().apply(x, b)          # the plugin's ops: only inside `_bias_act_cuda`
        return _bias_act_ref(x, b)                       # plain PyTorch: what an NPU tensor runs

    def _bias_act_cuda():
        class BiasActCuda(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, b):
                return _plugin.bias_act(x, b)
        return BiasActCuda

On an Ascend host `x.device.type` is "npu": `_init()` never runs, nothing is compiled, `_plugin` is never read.
Keyed on, per Python file (facts cached with it):

- a *builder*: a module-level function with a private name (`_init`) holding a JIT CUDA build (a call
  repo_index.jit_cuda_build_wrapper reads as one, `cpp_extension.load(...)` with CUDA sources, ...), whose every
  reference in the module is a call made in the test of an `if`, after a CUDA-device test joined to it by `and`
  (`x.device.type == "cuda"`, `x.is_cuda`, `"cuda" == x.device.type`), or in the body of an `if` whose test is
  such a device test (a conjunction holding one); each such `if` has a way on for other devices: an `else:`, or a
  statement after it in its block;
- the module names the builder binds (`global _plugin` then `_plugin = ...`): every read of them outside the builder
  is in the body of such an `if`, or inside a private module-level function (or class) whose every reference
  outside itself is in such a body, or is a module-level alias of it (`op_cuda = _OpCuda.apply`) that the file
  reads only in such bodies (`if x.is_cuda: fn = op_cuda` / `else: fn = op_cpu`). The alias may be re-exported:
  another module calling it with no device test is not seen from here (facts are per file).

The same holds for an extension built ahead (setup.py) and imported at module level (`import bias_act_cuda`, label
note 52b: imaginaire's copy of StyleGAN2-ADA's ops): its reads on the gated path, as above (in the body of such an
`if`, or inside a private module-level function or class whose every reference outside itself is in such a body),
are per-device uses, not reported (kind `cudagatedreads`: the import's name and those lines) where every read of
the name is on that path; the import itself stays reported (a host without the build fails at it), and a module also
read off the path (`if x.is_cuda: ext.nms(x) else: ext.nms(x)`, a CPU build of the same extension) keeps all its reads.

Then, not reported: NPU505's build lines inside the builder, NPU508's uses on the lines reading those names, NPU508
uses of the extension modules the builder defines elsewhere only where no other build defines them, the CUDA
sources only such builders build (NPU506, cuda_builds.built_only_by), and the project's build helper
(`custom_ops.get_plugin`, NPU505 `uses`) where these builders are all its callers: the gated call records no
`jithelper` fact. Kept: a builder any other way reaches (a public name, an ungated call, `if x.is_cuda or force:`),
a plugin read outside the gated path, a gated `if` whose body is the whole rest of its block (nothing runs for
other devices), and everything a file builds elsewhere besides.
"""

from __future__ import annotations

import ast

from migrate.context import walk_nodes
from migrate.findings import FileResult

KIND = "cudagated"  # Definition kind: name = "<first>-<last>" lines of a builder; why = the lines reading its names
READS = "cudagatedreads"  # Definition kind: name = a module-level import's name; why = its reads on the gated path
_CODES = frozenset({"NPU505", "NPU508"})


def wants(text: str) -> bool:
    return "cuda" in text and ("device" in text or "is_cuda" in text)


def _device_test(node: ast.AST) -> bool:
    """`x.device.type == "cuda"` (either side), `x.is_cuda`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "is_cuda"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        sides = [node.left, node.comparators[0]]
        for value, other in ((sides[1], sides[0]), (sides[0], sides[1])):
            if isinstance(value, ast.Constant) and value.value == "cuda" and isinstance(other, ast.Attribute) \
                    and other.attr == "type" and isinstance(other.value, ast.Attribute) and other.value.attr == "device":
                return True
    return False


def _gating_test(test: ast.AST) -> bool:
    return _device_test(test) or (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                                  and any(_device_test(v) for v in test.values))


def _has_way_on(ctx, statement: ast.If) -> bool:
    """Other devices go on: an `else:`, or a statement after the `if` in its block."""
    return bool(statement.orelse or ctx.statements_after(statement))


def _gated(ctx, node: ast.AST, in_test: bool) -> bool:
    """`node` sits in the body of a gating `if` with a way on, or (`in_test`) in its test after a device test."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, ast.If) and _gating_test(parent.test) and _has_way_on(ctx, parent):
            if any(child is s for s in parent.body):
                return True
            if in_test and child is parent.test and isinstance(child, ast.BoolOp):
                return False  # a device test alone as the test, the call in it: nothing before it
        if in_test and isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            grand = ctx.parent(parent)
            index = next((i for i, v in enumerate(parent.values) if v is child), -1)
            if isinstance(grand, ast.If) and grand.test is parent and any(_device_test(v) for v in parent.values[:index]) \
                    and _has_way_on(ctx, grand):
                return True
        child, parent = parent, ctx.parent(parent)
    return False


def _inside(node: ast.AST, scope: ast.AST) -> bool:
    return scope.lineno <= node.lineno <= (scope.end_lineno or scope.lineno)


def _names(ctx, name: str, skip: ast.AST) -> list[ast.Name]:
    return [n for n in ctx.nodes.get(ast.Name, ()) if n.id == name and not _inside(n, skip)]


def builders(ctx) -> list[tuple[ast.FunctionDef, list[int]]]:
    """Each builder of the file (see the module doc) with the lines reading the names it binds."""
    from migrate.repo_index import jit_cuda_build_wrapper

    _EXT = "torch.utils.cpp_extension."
    out = []
    top = {s.name: s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    for function in ctx.tree.body:
        if not isinstance(function, ast.FunctionDef) or not function.name.startswith("_"):
            continue
        builds = False
        for node in walk_nodes(function):
            if isinstance(node, ast.Call):
                name = ctx.qualname(node.func)
                if (name or "").startswith(_EXT + "load") or jit_cuda_build_wrapper(ctx, node, name):
                    builds = True
                    break
        if not builds:
            continue
        uses = _names(ctx, function.name, function)
        if not uses or not all(isinstance(ctx.parent(n), ast.Call) and ctx.parent(n).func is n
                               and _gated(ctx, ctx.parent(n), True) for n in uses):
            continue
        bound = {name for node in walk_nodes(function) if isinstance(node, ast.Global) for name in node.names}
        reads: list[int] = []
        ok = bool(bound)
        for name in bound:
            for node in _names(ctx, name, function):
                if isinstance(node.ctx, ast.Store) and isinstance(ctx.parent(node), ast.Assign) \
                        and ctx.parent(ctx.parent(node)) is ctx.tree:
                    continue  # the module's own initial `_plugin = None`
                if not _read_on_gated_path(ctx, node, top):
                    ok = False
                    break
                reads.append(node.lineno)
            if not ok:
                break
        if ok:
            out.append((function, sorted(set(reads))))
    return out


def _read_on_gated_path(ctx, node: ast.Name, top: dict) -> bool:
    if not isinstance(node.ctx, ast.Load):
        return False
    if _gated(ctx, node, False):
        return True
    holder = next((s for s in top.values() if _inside(node, s)), None)
    if holder is None or not holder.name.startswith("_"):
        return False
    refs = _names(ctx, holder.name, holder)
    return bool(refs) and all(_gated(ctx, r, False) or _gated_alias(ctx, r) for r in refs)


def _gated_alias(ctx, ref: ast.Name) -> bool:
    """`ref` is the whole value of a module-level binding, or its `.apply` (`sigmoid_focal_loss_cuda =
    _SigmoidFocalLoss.apply`, cvpods losses/sigmoid_focal_loss.py), whose name the file reads, and reads only on the
    gated path (`if logits.is_cuda: loss_func = sigmoid_focal_loss_cuda` / `else: loss_func = ..._cpu`)."""
    value = ctx.parent(ref)
    value = value if isinstance(value, ast.Attribute) and value.value is ref and value.attr == "apply" else ref
    statement = ctx.parent(value)
    if not (isinstance(statement, ast.Assign) and statement.value is value and ctx.parent(statement) is ctx.tree
            and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return False
    alias = statement.targets[0].id
    others = [n for n in _names(ctx, alias, statement)]
    loads = [n for n in others if isinstance(n.ctx, ast.Load)]
    return bool(loads) and len(loads) == len(others) and all(_gated(ctx, n, False) for n in loads)


def gated_imports(ctx) -> list[tuple[str, int, list[int]]]:
    """Each name a module-level import binds, its line and the lines reading it on the gated path (module doc)."""
    top = {s.name: s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    if not any(_gating_test(n.test) for n in ctx.nodes.get(ast.If, ())):
        return []
    out = []
    for statement in ctx.tree.body:
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        for alias in statement.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name.split(".")[0]
            loads = [n for n in _names(ctx, name, statement) if isinstance(n.ctx, ast.Load)]
            if loads and all(_read_on_gated_path(ctx, n, top) for n in loads):
                out.append((name, statement.lineno, sorted({n.lineno for n in loads})))
    return out


def facts(ctx) -> list:
    from migrate.repo_index import Definition

    out = [Definition(KIND, f"{f.lineno}-{f.end_lineno or f.lineno}", ctx.path, f.lineno, False,
                      " ".join(map(str, reads))) for f, reads in builders(ctx)] if "global " in ctx.source else []
    out.extend(Definition(READS, name, ctx.path, line, False, " ".join(map(str, reads)))
               for name, line, reads in gated_imports(ctx))
    return out


def in_builder(ctx, call: ast.AST) -> bool:
    """`call` is inside a builder of its file (its helper call then records no `jithelper` fact)."""
    cached = ctx.__dict__.get("_npu_gated_builders")
    if cached is None:
        cached = [f for f, _ in builders(ctx)] if wants(ctx.source) and "global " in ctx.source else []
        ctx.__dict__["_npu_gated_builders"] = cached
    return any(_inside(call, f) for f in cached)


def _spans(result) -> tuple[list[tuple[int, int]], set[int]]:
    spans, reads = [], set()
    imported = set()
    for fact in getattr(result, "facts", ()) or ():
        if fact[0] == "def" and fact[1] == KIND:
            first, _, last = str(fact[2]).partition("-")
            spans.append((int(first), int(last)))
            if len(fact) > 5 and fact[5]:
                reads.update(int(x) for x in str(fact[5]).split())
        elif fact[0] == "def" and fact[1] == READS and len(fact) > 5 and fact[5]:
            imported.update(int(x) for x in str(fact[5]).split())
    return spans, reads, imported


def drop_gated(results: list[FileResult]) -> list[FileResult]:
    """`results` less the builds, sources and uses of device-gated builders (see the module doc)."""
    gated: dict[str, tuple[list, set]] = {}
    gated_reads: dict[str, set] = {}
    for result in results:
        if result.path.endswith(".py"):
            spans, reads, imported = _spans(result)
            if spans:
                gated[result.path] = (spans, reads)
            if imported:
                gated_reads[result.path] = imported
    if not gated and not gated_reads:
        return results

    def within(line, spans):
        return any(a <= line <= b for a, b in spans)

    # the modules defined only inside builders, and the files every build of which is inside one
    modules_in, modules_out = set(), set()
    whole = set()
    for result in results:
        spans = gated.get(result.path, ([], set()))[0]
        for fact in getattr(result, "facts", ()) or ():
            if fact[0] == "def" and fact[1] == "module":
                (modules_in if within(fact[3], spans) else modules_out).add(fact[2])
        if result.path in gated and all(f.code != "NPU505" or within(f.line, spans) for f in result.findings):
            whole.add(result.path)
    modules = modules_in - modules_out
    from migrate.cuda_builds import built_only_by

    sources = built_only_by(results, whole) if whole else set()

    def keep(result):
        spans, reads = gated.get(result.path, ([], set()))
        reads = reads | gated_reads.get(result.path, set())

        def kept(f):
            if f.code == "NPU505" and within(f.line, spans):
                return False
            if f.code == "NPU508" and (f.line in reads or f.package in modules):
                return False
            return not (f.code == "NPU506" and result.path in sources)
        return kept

    return [r.keeping(keep(r)) if r.findings else r for r in results]
