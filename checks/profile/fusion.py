"""Fused-operator chances before an NPU exists: msprof-analyze's own op-sequence rules applied to the
emulated run.

msprof-analyze's advisor (26.2.0) matches its rules (migrate/knowledge/data/fusion_rules.json, read
from its wheel by scripts/build_fusion_rules.py) against the `aten::` events of an Ascend profiler
trace: the torch-level ops in the order the host issued them. Here the same sequence comes from a
TorchFunctionMode in the profile child: each torch-level call the user's code makes in a traced step
(nested calls inside a torch function are not seen, as a top-level `aten::softmax` hides its
`aten::_softmax`), named as the dispatcher names it, at the user's line (checks/profile/frames.py).
The rules are matched per traced step, with the advisor's pattern syntax (`_format_rule_to_pattern`):
each match is one chance at the line of its first op, with the lines it spans.

Only fused APIs the data records as present in the torch_npu wheel and that the target torch_npu
release has (knowledge data) are matched (see `usable`). The `Optimizer` rules (AdamW.step ->
NpuFusedAdamW) are the `optimizer` finding's job (checks/profile/fusedopt.py), not repeated here.
"""
from __future__ import annotations

import re

SEP = "-"
RULES_FILE = ("data", "fusion_rules.json")
# calls that read metadata on the host: the dispatcher never sees them, the profiler records no event
METADATA = frozenset({
    "size", "dim", "numel", "stride", "is_contiguous", "element_size", "data_ptr", "get_device",
    "is_floating_point", "is_complex", "storage_offset", "ndimension", "nelement", "requires_grad_",
    "register_hook", "retain_grad", "untyped_storage", "tolist", "_set_grad_enabled",
})
# dtype conversions by method: the dispatcher records aten::to for each (even when it returns self)
CONVERSIONS = frozenset({"float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"})
# Tensor operators whose torch function name is not the aten op the dispatcher records
OPERATORS = {
    "__add__": ("add",), "__radd__": ("add",), "__iadd__": ("add_",),
    "__sub__": ("sub",), "__rsub__": ("rsub",), "__isub__": ("sub_",),
    "__mul__": ("mul",), "__rmul__": ("mul",), "__imul__": ("mul_",),
    "__truediv__": ("div",), "__div__": ("div",), "__itruediv__": ("div_",), "__idiv__": ("div_",),
    "__rtruediv__": ("reciprocal", "mul"), "__rdiv__": ("reciprocal", "mul"),  # torch/_tensor.py: reciprocal() * other
    "__matmul__": ("matmul",), "__rmatmul__": ("matmul",), "__pow__": ("pow",), "__rpow__": ("pow",),
    "__neg__": ("neg",), "__abs__": ("abs",), "__floordiv__": ("floor_divide",), "__mod__": ("remainder",),
    "__and__": ("bitwise_and",), "__or__": ("bitwise_or",), "__xor__": ("bitwise_xor",), "__invert__": ("bitwise_not",),
    "__eq__": ("eq",), "__ne__": ("ne",), "__lt__": ("lt",), "__le__": ("le",), "__gt__": ("gt",), "__ge__": ("ge",),
}


# ------------------------------------------------------------------------------------- the rules
def load_rules(kb, data: dict | None = None) -> list[tuple[str, str, re.Pattern]]:
    """(api, rule text, compiled pattern) for the newest rule set, keeping the APIs the torch_npu wheel
    has (data) and the target release has (kb: knowledge data of the targeted torch_npu version)."""
    if data is None:
        from migrate.knowledge import read_json

        data = read_json(*RULES_FILE)
    newest = data["rule_sets"][-1]["rules"].get("aten", {})
    out = []
    for api, patterns in newest.items():
        if not usable(api, data["apis"].get(api, {}), kb):
            continue
        for text in patterns:
            out.append((api, text, re.compile(to_regex(text))))
    return out


def usable(api: str, entry: dict, kb) -> bool:
    """torch_npu's fused APIs the wheel has and the target release has. Not torch's own (`torch.addmm`
    for `mul-mul-add`): that rule also matches elementwise `a * b + c * d` (llama2.c's rotary lines),
    where a matrix product does not apply, and it is no NPU fused kernel."""
    if entry.get("status") != "present":
        return False
    if api.startswith("torch_npu.") and kb is not None:
        return bool(kb.has_api(api))
    return True


def to_regex(rule: str) -> str:
    """msprof-analyze's `_format_rule_to_pattern`: `(mul){0,1}-softmax` -> `(-mul-){0,1}(-softmax-)`
    over the op names joined as `-a--b--c-`."""
    parts = []
    for piece in rule.split(SEP):
        m = re.search(r"\((\w+(?:\|\w+)*)\)", piece)
        if m:
            names, suffix = m.group(1), piece[m.end():]
        else:
            names, suffix = piece, ""
        alts = "|".join(re.escape(f"{SEP}{n.strip()}{SEP}") for n in names.split("|"))
        parts.append(f"({alts}){suffix}")
    return "".join(parts)


def match(ops: list[str], rules) -> list[tuple[str, str, int, int]]:
    """(api, rule, first op index, last op index) of every non-overlapping match of each rule."""
    text = "".join(f"{SEP}{name}{SEP}" for name in ops)
    starts = []
    pos = 0
    for name in ops:  # character offset of each op's token
        starts.append(pos)
        pos += len(name) + 2
    index = {s: i for i, s in enumerate(starts)}
    found = []
    for api, rule, pattern in rules:
        for m in pattern.finditer(text):
            first = index.get(m.start())
            if first is None or m.end() == m.start():
                continue
            last = _last_op(starts, m.end())
            found.append((api, rule, first, last))
    return found


def _last_op(starts: list[int], end: int) -> int:
    lo = 0
    for i, s in enumerate(starts):
        if s < end:
            lo = i
        else:
            break
    return lo


# ------------------------------------------------------------------------------------- in the child
def aten_names(func, args) -> tuple[str, ...]:
    """The aten op(s) the dispatcher records for a torch-level call (empty: none, e.g. metadata)."""
    name = getattr(func, "__name__", None)
    if not name:
        return ()
    if name in OPERATORS:
        return OPERATORS[name]
    if name == "__getitem__":
        return _index_ops(args[1] if len(args) > 1 else None)
    if name in CONVERSIONS:
        return ("to",)
    if name == "type":  # t.type() reads the type name; t.type(dtype) converts
        return ("to",) if len(args) > 1 else ()
    if name.startswith("__") or name in METADATA:
        return ()
    return (name,)


def _index_ops(key) -> tuple[str, ...]:
    """`x[...]` as torch's applySlicing issues it: a slice -> slice (a full `:` is skipped), an int ->
    select, None -> unsqueeze, a tensor or list -> index."""
    items = key if isinstance(key, tuple) else (key,)
    out = []
    for k in items:
        if k is Ellipsis:
            continue
        if k is None:
            out.append("unsqueeze")
        elif isinstance(k, slice):
            if not (k.start in (None, 0) and k.stop is None and k.step in (None, 1)):
                out.append("slice")
        elif isinstance(k, bool):
            out.append("index")
        elif isinstance(k, int):
            out.append("select")
        else:
            out.append("index")
    return tuple(out)


def make_recorder(torch, state, rules):
    """A TorchFunctionMode recording the traced step's torch-level ops with their user line. The ops the
    stand-in's fused APIs compute with (their reference math) are not recorded: on the NPU each is one
    kernel, so a rewritten script must not match the rule it was rewritten for."""
    import os
    import sys

    from torch.overrides import TorchFunctionMode

    from checks.profile.frames import CHECKS

    aten = torch.ops.aten
    reference_math = os.path.join(CHECKS, "standin", "torch_npu", "_fused.py")

    torch_dir = os.path.dirname(torch.__file__) + os.sep

    def from_reference_math() -> bool:
        # the first caller outside torch's own files: `torch.rsqrt` in _fused.py is called from there
        # directly, `F.silu` / `F.group_norm` reach this mode through torch.overrides.handle_torch_function
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith(torch_dir):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename == reference_math

    class FusionRecorder(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.rules = rules
            self.ops: list[str] = []
            self.where: list = []
            self.known: dict = {}  # name -> is it an aten op
            self.active = False

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            # the DataLoader's own work (collate, a Dataset's indexing) is not the step's compute: as the
            # tracer and host_sync do, it is not recorded (nor timed into the data-loading wait)
            if (not state.in_loader and state.measuring and not state.harness and not state.in_backward
                    and not from_reference_math()):
                names = aten_names(func, args)
                if names:
                    known = self.known.get(names[0])
                    if known is None:
                        known = self.known[names[0]] = hasattr(aten, names[0])
                    if known:
                        where = state.frames.first_user(2)
                        if where is not None:
                            for n in names:
                                self.ops.append(n)
                                self.where.append(where)
            return out

        def start(self) -> None:
            self.__enter__()
            self.active = True

        def stop(self) -> bool:
            try:
                self.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - the script pushed its own mode on top of ours
                return False
            self.active = False
            return True

        def end_step(self) -> None:
            """Match this step's sequence and count each chance at its first op's line."""
            ops, where = self.ops, self.where
            self.ops, self.where = [], []
            covered: dict = {}  # api -> op indices already matched (two rules of one API: one chance)
            for api, _rule, first, last in match(ops, self.rules):
                taken = covered.setdefault(api, set())
                span = range(first, last + 1)
                if taken.intersection(span):
                    continue
                taken.update(span)
                lines = sorted({w[1] for w in where[first:last + 1] if w[0] == where[first][0]})
                state.count("fusion", where[first], api, SEP.join(ops[first:last + 1]),
                            example=f"{SEP.join(ops[first:last + 1])} (lines {', '.join(map(str, lines))})")

    return FusionRecorder()
