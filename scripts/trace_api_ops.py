#!/usr/bin/env python3
"""Trace which aten ops each public torch API reaches (api_ops.json), for scripts/build_knowledge.py.

Runs torch's own OpInfo/ModuleInfo sample inputs (at most 3 per op, CPU, float32) under a
TorchDispatchMode and records the aten ops seen forward and backward. Needs torch (the dev venv),
never torch_npu. `infer_inner` adds the inner op of CompositeExplicitAutograd ops the trace cannot
see (see docs/knowledge.md).
"""
from __future__ import annotations

import sys


def trace_api_ops(max_samples: int = 3) -> dict:
    import types
    import unittest
    if "expecttest" not in sys.modules:  # torch.testing._internal imports it; not needed here
        m = types.ModuleType("expecttest")
        m.TestCase = unittest.TestCase
        sys.modules["expecttest"] = m
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.utils._python_dispatch import TorchDispatchMode

    class Rec(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.add(func._schema.name.split("::", 1)[-1].split(".", 1)[0]
                         if func.namespace == "aten" else f"{func.namespace}::{func._schema.name}")
            return func(*args, **(kwargs or {}))

    def api_names(op):
        names = []
        parts = op.name.split(".")
        obj = torch
        for p in parts:
            obj = getattr(obj, p, None)
            if obj is None:
                break
        if obj is not None:
            names.append("torch." + op.name)
        if op.method_variant is not None and "." not in op.name:
            names.append("Tensor." + op.name)
        if op.inplace_variant is not None and "." not in op.name:
            names.append("Tensor." + op.name + "_")
        return names

    result: dict[str, dict] = {}

    def run(api, fn_runs):
        fwd, bwd = set(), set()
        for f in fn_runs:
            try:
                rec = Rec()
                with rec:
                    out = f()
                fwd |= rec.ops
            except Exception:
                continue
            try:
                outs = out if isinstance(out, (tuple, list)) else [out]
                t = next((o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad
                          and o.is_floating_point()), None)
                if t is not None:
                    rec = Rec()
                    with rec:
                        t.sum().backward()
                    bwd |= rec.ops
            except Exception:
                pass
        if fwd or bwd:
            e = result.setdefault(api, {"fwd": set(), "bwd": set()})
            e["fwd"] |= fwd
            e["bwd"] |= bwd

    for op in op_db:
        names = api_names(op)
        if not names:
            continue
        try:
            samples = list(op.sample_inputs("cpu", torch.float32, requires_grad=op.supports_autograd))
        except Exception:
            continue
        samples = samples[:max_samples]
        for api in names:
            if api.startswith("Tensor.") and api.endswith("_"):
                fn = op.inplace_variant

                def mk(s, fn=fn):
                    return lambda: fn(s.input.detach().clone(), *s.args, **s.kwargs)
            elif api.startswith("Tensor."):
                fn = op.method_variant

                def mk(s, fn=fn):
                    return lambda: fn(s.input, *s.args, **s.kwargs)
            else:
                fn = op.op

                def mk(s, fn=fn):
                    return lambda: fn(s.input, *s.args, **s.kwargs)
            run(api, [mk(s) for s in samples])

    # nn.Module classes from ModuleInfo
    try:
        from torch.testing._internal.common_modules import module_db
        for mi in module_db:
            cls = mi.module_cls
            api = "torch.nn." + cls.__name__ if getattr(torch.nn, cls.__name__, None) is cls else None
            if api is None:
                continue
            try:
                inputs = mi.module_inputs_func(mi, device="cpu", dtype=torch.float32,
                                               requires_grad=True, training=True)[:max_samples]
            except Exception:
                continue

            def mkm(mi_in, cls=cls):
                def f():
                    m = cls(*mi_in.constructor_input.args, **mi_in.constructor_input.kwargs)
                    fi = mi_in.forward_input
                    if fi is None:
                        raise RuntimeError
                    return m(*fi.args, **fi.kwargs)
                return f
            run(api, [mkm(x) for x in inputs])
    except Exception as exc:  # pragma: no cover
        print("module_db skipped:", exc)

    # hand-picked extras with no OpInfo
    def clip(fn):
        def f():
            p = [torch.nn.Parameter(torch.randn(4, 4)) for _ in range(2)]
            for x in p:
                x.grad = torch.randn(4, 4)
            fn(p, 1.0)
        return f
    run("torch.nn.utils.clip_grad_norm_", [clip(torch.nn.utils.clip_grad_norm_)])
    run("torch.nn.utils.clip_grad_value_", [clip(torch.nn.utils.clip_grad_value_)])
    for oname in ("SGD", "Adam", "AdamW"):
        def opt(oname=oname, foreach=False):
            def f():
                p = [torch.nn.Parameter(torch.randn(4, 4))]
                p[0].grad = torch.randn(4, 4)
                o = getattr(torch.optim, oname)(p, lr=0.1, foreach=foreach)
                o.step()
            return f
        run(f"torch.optim.{oname}", [opt()])
    return {api: {"fwd": sorted(v["fwd"]), "bwd": sorted(v["bwd"] - v["fwd"])}
            for api, v in sorted(result.items())}


def infer_inner(api_ops: dict, torch_ops: dict) -> dict:
    """A CompositeExplicitAutograd op runs its inner ops below the Python dispatch key, so the
    trace cannot see them (torch.logcumsumexp -> aten::_logcumsumexp). Heuristic: for a recorded
    op `foo` that does not itself need a backend kernel, add `_foo` when `_foo` needs one."""
    needs = set(torch_ops["needs_backend_kernel"])
    for v in api_ops.values():
        seen = set(v["fwd"]) | set(v["bwd"])
        v["inner"] = sorted({"_" + op for op in seen if op not in needs and "_" + op in needs}
                            - seen)
    return api_ops
