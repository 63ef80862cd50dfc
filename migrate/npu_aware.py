"""Code that already handles the NPU next to its CUDA branch is not a construct to port.

timm's `train.py`: `if device.type == 'cuda': torch.cuda.synchronize() elif device.type == 'npu':
torch.npu.synchronize()`; its `distributed.py`: `{"cuda": "nccl", "npu": "hccl"}` and
`if device_type == 'cuda': assert torch.cuda.is_available()` followed by the same `if` for 'npu'.
The CUDA branch of such a dispatch needs no change, so device findings inside it are dropped:

- an `if` / `elif` chain, or `if` statements of one block that test the same thing
  (`device_type == ...`), where one test names CUDA ("cuda", "cuda:N", `torch.cuda...`) and another
  names the NPU ("npu", `torch.npu...`, `torch_npu...`): the CUDA branches' test and body. An
  `if device.startswith("cuda:"): torch.cuda.set_device(device)` beside them, with no NPU
  counterpart, is still reported;
- a dict literal with both a "cuda" and an "npu" key: its "cuda" entries; a tuple / list / set
  literal naming both (`device.type in ("cuda", "npu")`): its CUDA items. "nccl" / "hccl" name
  the CUDA / NPU side of a backend dispatch (`if backend == "hccl": ... elif backend == "nccl": ...`);
- separate `if`s asking whether a device is available (`if torch.cuda.is_available(): ...` then
  `if is_torch_npu_available(): ...`), and a test that asks about both devices itself.

The `else` of a chain whose test asks for the NPU (`if torch_npu is not None: ... else:
torch.cuda.set_device(r)`, or the `if` body of `if torch_npu is None: ... else: ...`), and the
`except ImportError` handler of a `try` that imports torch_npu (`try: import torch_npu; backend = "hccl"
except ImportError: backend = "nccl"`), are the branches for a host without the NPU: left alone too.

A test names a device also through a helper predicate whose name says so (`is_torch_npu_available()`,
`is_npu_available()`, `accelerate.utils.is_cuda_available()`): `if is_torch_npu_available(): ...
elif torch.cuda.is_available(): ...` handles the NPU first, so its CUDA branch is left alone.

A dispatch over an enum (or class of constants) with an NPU member is one too (yunchang's
`AttnType.NPU` beside `AttnType.FA`): `if impl == AttnType.NPU: ... elif impl == AttnType.FA: <flash_attn>`,
separate `if`s of one block comparing the same subject with members of the same enum, `if
self.attn_type is AttnType.NPU: ... else: ...`, and a dict keyed by its members (`{Backend.NPU: npu_attn,
Backend.FLASH: flash_attn_func}`): the other members' branches (and entries) are the other devices'
paths, chosen by the same switch that chooses the NPU. A member names the NPU when "NPU" is one of the
`_`-separated words of its upper-case name (`NPU`, `NPU_FUSED`); a bare upper-case constant the same.

Per file, from its own syntax tree (so cached results stay correct). Device-identity codes, the
uses of GPU-only packages (NPU507: the branch's `flash_attn_func(...)` is the other device's path) and
the GPU-only imports inside such a branch (NPU501: `if is_npu_available(): import torch_npu else: import
xformers.ops`, also `if not is_npu_available(): <CUDA> else: <NPU>` and `if is_npu_available() and ...:
<NPU> else: <CUDA>`) are dropped: on the NPU host the import never runs, as in the `except ImportError`
of a `try: import torch_npu`. An import of the package anywhere else in the file is still reported.
The GPU-only option and method uses (NPU503: `unet.enable_xformers_memory_efficient_attention()`) the same.

A test that can hold only off the NPU (`if not is_npu_available():`, `if is_xformers_available() and not
is_npu_available():`, with or without an `else`) and the statements of a block after an NPU exit (`if
is_npu_available(): raise ValueError(...)`, no `else`) are the other device's path too (AnimateDiff). After an NPU branch
that returns a value of its own (`if is_npu_tensor(q): return npu_forward(q, k, v)`), the rest of the block is the CUDA
path for the GPU-only package codes only (`from flash_attn... import` below it: NPU501/503/507); device findings there
stay reported (a fallback `return torch.device("cuda:0")` after `return torch.device("npu:0")`).

A module-level flag bound to an NPU availability probe and otherwise only to True / False / None (`try: import torch_npu;
use_torch_npu = torch_npu.npu.is_available() except: use_torch_npu = False`, `HAS_NPU = is_torch_npu_available()`,
`hasattr(torch, "npu") and torch.npu.is_available()`, `find_spec("torch_npu") is not None`; `npu_flags`) names the NPU in
a test, and `CUDA_HOME` (torch's CUDA toolkit root) names CUDA: `if CUDA_HOME is not None: <CUDAExtension> elif
BUILD_NPU: ...` is an NPU-aware build chain (NPU505 too), `if not use_torch_npu: import ext` holds only off the NPU
(NPU508 too). A name that only a module-level import on such a CUDA side binds exists only off the NPU: the module's
uses of it (`ext.dequantize(...)` inside a function) are that choice's CUDA path for the package codes and NPU508
(`off_npu_import_uses`; NPU508's cross-file uses read the same lines, `extension_use_lines`).
"""

from __future__ import annotations

import ast
import re

from migrate import accelerator_tests
from migrate.context import walk_nodes

# the NPU as a word of its own (`"npu"`, `torch.npu`, `torch_npu`, `is_npu_available`) or its collective
# backend; "npu" inside a word (`input`, in nearly every file) is not a mention
_MENTIONS_NPU = re.compile(r"(?<![a-z0-9])npu|hccl", re.I)
_WORD_BEFORE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def mentions_npu(text: str) -> bool:
    """`_MENTIONS_NPU.search(text)`, for an ASCII text read off its lower-case copy: the pattern's look-behind
    is tried at every position, a third of a second per 100 files of torch; `find` jumps between the
    occurrences of `npu` (in `input`, in nearly every file)."""
    if not text.isascii():
        return _MENTIONS_NPU.search(text) is not None
    low = text.lower()
    if "hccl" in low:
        return True
    at = low.find("npu")
    while at != -1:
        if at == 0 or low[at - 1] not in _WORD_BEFORE:
            return True
        at = low.find("npu", at + 3)
    return False
CODES = frozenset({"NPU101", "NPU102", "NPU103", "NPU104", "NPU201", "NPU202", "NPU203", "NPU301",
                   "NPU401", "NPU402", "NPU403", "NPU501", "NPU503", "NPU505", "NPU507", "NPU508"})


def _npu_member(node: ast.AST) -> bool:
    """`AttnType.NPU`, `Backend.NPU_FUSED`, a constant `NPU`: an enum member / constant naming the NPU."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name.isupper() and "NPU" in name.split("_")


def _names(test: ast.AST, flags: frozenset[str] = frozenset()) -> set[str]:
    """The devices a test names: "cuda" / "npu" strings, `torch.cuda...` / `torch.npu...` / `torch_npu` chains,
    helper predicates (`_predicate_device`), `CUDA_HOME` (torch's CUDA toolkit root: `if CUDA_HOME is not None:`
    picks the CUDA build), and the module's NPU availability flags (`npu_flags`)."""
    found: set[str] = set()
    for node in walk_nodes(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.lower()
            if text == "cuda" or text.startswith("cuda:") or text == "nccl":
                found.add("cuda")
            elif text in ("npu", "hccl", "torch_npu") or text.startswith("npu:"):  # `find_spec("torch_npu")`
                found.add("npu")
        elif isinstance(node, ast.Attribute):
            chain = []
            current: ast.AST = node
            while isinstance(current, ast.Attribute):
                chain.append(current.attr)
                current = current.value
            if isinstance(current, ast.Name):
                chain.append(current.id)
                dotted = ".".join(reversed(chain))
                if dotted.startswith("torch.cuda"):
                    found.add("cuda")
                elif dotted.startswith(("torch.npu", "torch_npu")) or _npu_member(node):
                    found.add("npu")
        elif isinstance(node, ast.Name) and (node.id == "torch_npu" or node.id in flags or _npu_member(node)):
            found.add("npu")
        elif isinstance(node, ast.Name) and node.id == "CUDA_HOME":
            found.add("cuda")
        if isinstance(node, ast.Call):  # a project / library predicate: `is_torch_npu_available()`
            device = _predicate_device(node.func)
            if device:
                found.add(device)
    return found


def _predicate_device(func: ast.AST) -> str | None:
    """"npu" / "cuda" for a call of a helper predicate whose name says which device it tests:
    `is_torch_npu_available()` (transformers, accelerate), `is_npu_available()`, `is_cuda_available()`;
    a name with "npu" / "cuda" as one of its `_`-separated words, read as a question (`is_...` /
    `..._available`)."""
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    words = name.lower().split("_")
    if not (words[0] in ("is", "has", "use") or words[-1] in ("available", "enabled")):
        return None
    if "npu" in words:
        return "npu"
    if "cuda" in words:
        return "cuda"
    return None


def _module_assignments(body: list):
    """The assignments of a module's own level, also those inside its `try:` statements (body, handlers, else)."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            yield statement
        elif isinstance(statement, ast.Try):
            yield from _module_assignments(statement.body + [s for h in statement.handlers for s in h.body]
                                           + statement.orelse)


def _probe(value: ast.AST) -> bool:
    """An availability question: `x.is_available()`, a predicate (`is_torch_npu_available()`), `hasattr(...)`,
    `find_spec(...)` (`is not None` after it), or an `and` of such questions; not `... is None` (the negation)."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And):
        return all(_probe(v) for v in value.values)
    if isinstance(value, ast.Compare):
        return not _negated(value) and _probe(value.left)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("is_available", "hasattr", "find_spec") or _predicate_device(func) == "npu"


def npu_flags(tree: ast.AST) -> frozenset[str]:
    """Module-level names bound to an NPU availability probe and otherwise only to True / False / None:
    `use_torch_npu = torch_npu.npu.is_available()` in a `try: import torch_npu` whose handler binds it False,
    `HAS_NPU = is_torch_npu_available()`, `NPU = hasattr(torch, "npu") and torch.npu.is_available()`,
    `NPU = importlib.util.find_spec("torch_npu") is not None`. A test of such a flag names the NPU
    (`if not use_torch_npu: import KTransformersOps`, `elif KTRANSFORMERS_BUILD_NPU:`)."""
    if not isinstance(tree, ast.Module):
        return frozenset()
    probed: set[str] = set()
    other: set[str] = set()
    for statement in _module_assignments(tree.body):
        names = {t.id for t in statement.targets if isinstance(t, ast.Name)}
        if len(names) != len(statement.targets):
            continue
        value = statement.value
        if isinstance(value, ast.Constant) and value.value in (True, False, None):
            continue
        if _probe(value) and _names(value) == {"npu"}:
            probed |= names
        else:
            other |= names
    return frozenset(probed - other)


def _chain(statement: ast.If) -> list[tuple[ast.AST, list]]:
    """(test, body) of each branch of an if / elif chain."""
    out = []
    current: ast.AST | None = statement
    while isinstance(current, ast.If):
        out.append((current.test, current.body))
        orelse = current.orelse
        current = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
    return out


def _span(test: ast.AST, body: list) -> range:
    end = max(getattr(node, "end_lineno", None) or node.lineno for node in body) if body else test.lineno
    return range(test.lineno, end + 1)


def _subject(test: ast.AST) -> str | None:
    """What a test asks about: `device_type` in `device_type == "cuda"`, `device` in
    `device.startswith("cuda:")`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare):
        return ast.unparse(test.left)
    if isinstance(test, ast.Call) and (
        _predicate_device(test.func) or (isinstance(test.func, ast.Attribute) and test.func.attr == "is_available")
    ):
        return "<is a device available>"  # `if torch.cuda.is_available(): ...` then `if is_torch_npu_available(): ...`
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute):
        return ast.unparse(test.func.value)
    return None


def _mark(kinds, lines: set[int]) -> None:
    for k, test, _ in kinds:  # `if torch.npu.is_available() or not torch.cuda.is_available():` asks about both
        if "cuda" in k and "npu" in k:
            lines.update(range(test.lineno, (getattr(test, "end_lineno", None) or test.lineno) + 1))
    if len(kinds) > 1 and any("npu" in k for k, _, _ in kinds):
        for k, test, body in kinds:
            if "cuda" in k and "npu" not in k:
                lines.update(_span(test, body))


def _members(test: ast.AST) -> tuple[str, str, list] | None:
    """(subject, enum, member names) of `subject == Enum.MEMBER`, `subject is Enum.MEMBER`,
    `subject in (Enum.A, Enum.B)`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], (ast.Eq, ast.Is)) and isinstance(right, ast.Attribute):
        items = [right]
    elif isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts \
            and all(isinstance(e, ast.Attribute) for e in right.elts):
        items = right.elts
    else:
        return None
    enums = {ast.unparse(e.value) for e in items}
    return (ast.unparse(test.left), enums.pop(), items) if len(enums) == 1 else None


def _enum_dispatch(branches: list, lines: set[int]) -> None:
    """Branches (test, body) comparing one subject with members of one enum, one member naming the NPU:
    the branches of the other members."""
    found = [(_members(test), test, body) for test, body in branches]
    with_npu = {(m[0], m[1]) for m, _, _ in found if m and any(_npu_member(e) for e in m[2])}
    if not with_npu:
        return
    for m, test, body in found:
        if m and (m[0], m[1]) in with_npu and not any(_npu_member(e) for e in m[2]):
            lines.update(_span(test, body))


def _negated(test: ast.AST) -> bool:
    """`not x`, `x is None`, `x == False`: the test holds when what it names is absent."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) and \
        isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in (None, False)


def _excludes_npu(test: ast.AST, names) -> bool:
    """`not is_npu_available()`, `torch_npu is None`, or an `and` one of whose operands is such a test
    (`is_xformers_available() and not is_npu_available()`, AnimateDiff train.py): the test never holds on an
    NPU host."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_excludes_npu(value, names) for value in test.values)
    if not _negated(test):
        return False
    inner = test.operand if isinstance(test, ast.UnaryOp) else test.left
    found = names(inner)
    return "npu" in found and "cuda" not in found


def _exits(body: list) -> bool:
    """The body refuses the NPU (`raise`); an NPU branch that returns its own result (`return torch.device("npu:0")`)
    leaves the rest of the block reported, as before (tests/test_kernel_values.py)."""
    return bool(body) and isinstance(body[-1], ast.Raise)


def _npu_exit(statement: ast.AST, names) -> bool:
    """`if is_npu_available(): raise ValueError("AscendNPU does not support xformers")` (AnimateDiff
    scripts/animate.py): an NPU test with no `else` whose body raises; what follows it in the block
    runs only on another device."""
    if not (isinstance(statement, ast.If) and not statement.orelse and _exits(statement.body)):
        return False
    found = names(statement.test)
    return "npu" in found and "cuda" not in found and not _negated(statement.test) and not _excludes_npu(statement.test, names)


def _npu_return(statement: ast.AST, names) -> bool:
    """`if is_npu_tensor(q): return npu_forward(q, k, v)`: an NPU test with no `else` whose body returns a value of
    its own. What follows in the block runs only on another device; for the GPU-only package codes (`PACKAGE_CODES`)
    it is the CUDA path beside a ported one (`from flash_attn... import ...` after it). Device findings there stay
    reported (an NPU branch returning `torch.device("npu:0")` before `torch.device("cuda:0")`, tests/test_kernel_values.py)."""
    if not (isinstance(statement, ast.If) and not statement.orelse and statement.body):
        return False
    last = statement.body[-1]
    if not (isinstance(last, ast.Return) and last.value is not None
            and not (isinstance(last.value, ast.Constant) and last.value.value is None)):
        return False
    found = names(statement.test)
    return "npu" in found and "cuda" not in found and not _negated(statement.test) and not _excludes_npu(statement.test, names)


PACKAGE_CODES = frozenset({"NPU501", "NPU503", "NPU507", "NPU508"})


def _block_lines(body: list) -> range:
    return range(body[0].lineno, max(getattr(n, "end_lineno", None) or n.lineno for n in body) + 1)


def _else_of_npu_test(statement: ast.If, names, lines: set[int]) -> None:
    """`if torch_npu is not None: torch_npu.npu.set_device(r) else: torch.cuda.set_device(r)` (TrTr): the
    `else` of a chain that tests for the NPU is the other device's branch; `if torch_npu is None: <CUDA>
    else: <NPU>` the same with the branches swapped."""
    chain = _chain(statement)
    last = statement
    while len(last.orelse) == 1 and isinstance(last.orelse[0], ast.If):
        last = last.orelse[0]
    if not last.orelse:
        return
    npu_tests = [(test, body) for test, body in chain if "npu" in names(test) and "cuda" not in names(test)]
    if any(not _negated(test) and not _excludes_npu(test, names) for test, _ in npu_tests):
        lines.update(_block_lines(last.orelse))
    elif len(chain) == 1 and npu_tests:  # `if torch_npu is None: <CUDA> else: <NPU>`
        lines.update(_span(statement.test, statement.body))


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _import_fallbacks(nodes, lines: set[int]) -> None:
    """`try: import torch_npu ... backend = "hccl" except ImportError: backend = "nccl"` (TrTr adapter/device.py):
    the handler is the branch for a host without torch_npu."""
    for node in nodes.get(ast.Try, ()):
        imports_npu = any(
            (isinstance(s, ast.Import) and any(a.name.split(".", 1)[0] == "torch_npu" for a in s.names))
            or (isinstance(s, ast.ImportFrom) and (s.module or "").split(".", 1)[0] == "torch_npu" and not s.level)
            for s in node.body)
        if not imports_npu:
            continue
        for handler in node.handlers:
            caught = handler.type
            names = [caught] if caught is None or not isinstance(caught, ast.Tuple) else caught.elts
            if any(n is None or (isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS) for n in names) and handler.body:
                lines.update(_block_lines(handler.body))


def aware_lines(tree: ast.AST, index: tuple | None = None, package_lines: set[int] | None = None) -> set[int]:
    """The lines of CUDA branches (and dict entries) that have an NPU counterpart beside them.
    `index` is `context.index_tree(tree)` when the caller has it (PythonContext does). Given `package_lines`, the
    lines after an NPU branch that returns its own result (`_npu_return`) are added there (package codes only)."""
    if index is None:
        from migrate.context import index_tree

        index = index_tree(tree)
    nodes, parents = index
    lines: set[int] = set()
    seen: dict[int, set[str]] = {}
    flags = npu_flags(tree)

    def names(test: ast.AST) -> set[str]:  # each test is met once per chain it is in: walk it once
        key = id(test)
        if key not in seen:
            seen[key] = _names(test, flags)
        return seen[key]

    # only the blocks that hold an `if` can hold a dispatch
    holders = {id(parent): parent for parent in (parents.get(id(n)) for n in nodes.get(ast.If, ())) if parent is not None}
    for node in holders.values():
        block = getattr(node, "body", None)
        blocks = [block] if isinstance(block, list) else []
        blocks += [b for b in (getattr(node, "orelse", None), getattr(node, "finalbody", None)) if isinstance(b, list)]
        for statements in blocks:
            groups: dict = {}
            _enum_dispatch([branch for s in statements if isinstance(s, ast.If) for branch in _chain(s)], lines)
            for at, statement in enumerate(statements):
                if _npu_exit(statement, names) and at + 1 < len(statements):
                    lines.update(_block_lines(statements[at + 1:]))
                elif package_lines is not None and _npu_return(statement, names) and at + 1 < len(statements):
                    package_lines.update(_block_lines(statements[at + 1:]))
                if isinstance(statement, ast.If):
                    if _excludes_npu(statement.test, names):  # `if x and not is_npu_available(): <CUDA>`
                        lines.update(_span(statement.test, statement.body))
                    kinds = [(names(test), test, body) for test, body in _chain(statement)]
                    _mark(kinds, lines)  # one if / elif chain
                    _else_of_npu_test(statement, names, lines)
                    for found, test, body in kinds:  # separate ifs of one block testing the same thing
                        # a test naming neither device can never be marked nor make another one marked
                        subject = _subject(test) if found else None
                        if subject is not None:
                            groups.setdefault(subject, []).append((found, test, body))
            for kinds in groups.values():
                _mark(kinds, lines)
    _import_fallbacks(nodes, lines)
    for kind in (ast.Tuple, ast.List, ast.Set):  # `device.type in ("cuda", "npu")`, `backend in ["nccl", "hccl"]`
        for node in nodes.get(kind, ()):
            named = [(_names(e), e) for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if any("npu" in k for k, _ in named):
                lines.update(e.lineno for k, e in named if "cuda" in k)
    for node in nodes.get(ast.Dict, ()):
        enums = {ast.unparse(k.value) for k in node.keys if isinstance(k, ast.Attribute) and _npu_member(k)}
        for key, value in zip(node.keys, node.values):  # `{AttnType.NPU: npu_attn, AttnType.FA: flash_attn_func}`
            if enums and isinstance(key, ast.Attribute) and not _npu_member(key) and ast.unparse(key.value) in enums:
                lines.update(range(key.lineno, (getattr(value, "end_lineno", None) or value.lineno) + 1))
        keys = {k.value.lower(): k for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if "cuda" in keys and "npu" in keys:
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.lower().startswith("cuda"):
                    lines.update(range(key.lineno, (getattr(value, "end_lineno", None) or value.lineno) + 1))
    if package_lines is not None:
        package_lines.update(off_npu_import_uses(nodes, parents, lines))
    return lines


def _bound_name(statement: ast.AST, alias: ast.alias) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".", 1)[0] if isinstance(statement, ast.Import) else alias.name


def off_npu_import_uses(nodes, parents, lines: set[int]) -> set[int]:
    """The lines reading a name that only a module-level import on the CUDA side of an NPU-aware choice binds
    (`if not torch.xpu.is_available() and not use_torch_npu: import KTransformersOps`, the `else:` of
    `if is_npu_available():`): on the NPU host the name never exists, so each use of it in the module
    (`KTransformersOps.dequantize_q2_k(...)` inside a function) is that choice's CUDA path. A name the module
    also binds another way (another import, an assignment, a parameter) is left alone."""
    off: list[ast.AST] = []
    elsewhere: set[str] = set()
    for kind in (ast.Import, ast.ImportFrom):
        for statement in nodes.get(kind, ()):
            bound = {_bound_name(statement, a) for a in statement.names if a.name != "*"}
            parent = parents.get(id(statement))
            while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                                 ast.Lambda)):
                parent = parents.get(id(parent))
            if statement.lineno in lines and parent is None:
                off.append(statement)
            else:
                elsewhere |= bound
    if not off:
        return set()
    names = {_bound_name(s, a) for s in off for a in s.names if a.name != "*"} - elsewhere
    names -= {n.id for n in nodes.get(ast.Name, ()) if not isinstance(n.ctx, ast.Load)}
    names -= {a.arg for a in nodes.get(ast.arg, ())}
    return {n.lineno for n in nodes.get(ast.Name, ()) if n.id in names and isinstance(n.ctx, ast.Load)}


def extension_use_lines(tree: ast.AST, text: str, index: tuple | None = None) -> frozenset[int]:
    """The lines where NPU508's linked uses are the CUDA side of an NPU-aware choice (the CUDA branches and the
    uses of a name only an import there binds): what `drop_npu_aware` drops from a file's own findings."""
    if not mentions_npu(text):
        return frozenset()
    package_lines: set[int] = set()
    return frozenset(aware_lines(tree, index, package_lines) | package_lines)


def drop_npu_aware(tree: ast.AST, findings: list, text: str | None = None, index: tuple | None = None) -> list:
    """`findings` less the device findings inside CUDA branches that have an NPU branch beside them.
    Given the file's `text`, a file that never mentions the NPU is passed through without a walk."""
    if not any(f.code in CODES for f in findings):
        return findings
    abstraction = accelerator_tests.cuda_side_lines(tree, text)  # `if get_accelerator().device_name() == 'cuda':`
    if text is not None and not mentions_npu(text):
        if not abstraction:
            return findings
        return [f for f in findings if not (f.code in CODES and f.line in abstraction)]
    package_lines: set[int] = set()
    lines = aware_lines(tree, index, package_lines) | abstraction
    if not lines and not package_lines:
        return findings
    return [f for f in findings if not ((f.code in CODES and f.line in lines)
                                        or (f.code in PACKAGE_CODES and f.line in package_lines))]


# ---- shell scripts -------------------------------------------------------------------------------------------------
# An installer that already dispatches the NPU host (pytorch/torchchat @a1a7f37 install/install_torch.sh: `elif [[ -x
# "$(command -v npu-smi)" ]]` picks the wheels torch_npu needs, beside `if [[ -x "$(command -v nvidia-smi)" ]]` picking
# the cu126 index) is the shell form of the dispatches above: on the Ascend host the NVIDIA probe is false and its
# branch never runs. In a shell script one of whose `if` / `elif` tests asks for the NPU (`npu-smi`, an `ASCEND_*`
# variable, `torch_npu`), the branches whose test asks for CUDA (`nvidia-smi`, `nvcc`, a CUDA word) get no NPU5xx
# finding, test and body: the CUDA side of a script that handles the NPU (label rule t21a-4, ruled by the lead). A
# script with no NPU test is read as before (the probe of an installer without an NPU path is reported).
_SHELL_NPU_TEST = re.compile(r"(?<![\w-])npu-smi(?![\w-])|\bASCEND_\w+|\btorch_npu\b")
_SHELL_CUDA_TEST = re.compile(r"(?<![\w-])nvidia-smi(?![\w-])|(?<![\w-])nvcc(?![\w-])|cuda", re.I)
_SHELL_KEYWORD = re.compile(r"^(if|elif|else|fi|then)(?![\w-])")


def shell_branches(lines: list[str]) -> list[tuple[str | None, int, int]]:
    """(test text or None for `else`, first line, last line) of every branch of the `if` / `elif` / `else` / `fi`
    chains of a shell script, 1-based lines, nested chains included (the keywords are read at the start of a
    line or after `;`; a one-line `if ...; then ...; fi` is one branch)."""
    done: list[tuple[str | None, int, int]] = []
    stack: list[list] = []  # per open chain: [test text or None, first line, waiting for `then`]
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        for part in (p.strip() for p in stripped.split(";")):
            keyword = _SHELL_KEYWORD.match(part)
            word = keyword.group(1) if keyword else None
            if word == "if":
                stack.append([part[2:], number, True])
            elif word in ("elif", "else") and stack:
                test, first, _ = stack[-1]
                done.append((test, first, number - 1 if number > first else number))
                stack[-1] = [part[4:] if word == "elif" else None, number, word == "elif"]
            elif word == "fi" and stack:
                test, first, _ = stack.pop()
                done.append((test, first, number))
            elif word == "then" and stack:
                stack[-1][2] = False
            elif stack and stack[-1][2]:
                stack[-1][0] += " " + part
    return done


def shell_aware_lines(lines: list[str]) -> set[int]:
    """The lines of the CUDA branches of a shell script that tests for the NPU (see above); empty otherwise."""
    branches = shell_branches(lines)
    if not any(test and _SHELL_NPU_TEST.search(test) for test, _, _ in branches):
        return set()
    return {line for test, first, last in branches
            if test and _SHELL_CUDA_TEST.search(test) and not _SHELL_NPU_TEST.search(test)
            for line in range(first, last + 1)}


def drop_npu_aware_shell(path: str, text: str, findings: list) -> list:
    """`findings` of a shell script less the NPU5xx ones in its CUDA branches, where the script tests for the NPU."""
    if path.endswith((".yml", ".yaml")) or not any(f.code.startswith("NPU5") for f in findings) \
            or not _SHELL_NPU_TEST.search(text):
        return findings
    lines = shell_aware_lines(text.splitlines())
    return [f for f in findings if not (f.code.startswith("NPU5") and f.line in lines)] if lines else findings
