"""A module-level name that the module rebinds, after its import, to an object of its own (NPU507).

A script imports a package under a short name and later reuses the name for its own object:

    import tensorrt as trt
    ...
    if __name__ == "__main__":
        trt = TrtEngine(args.model_path)            # the name now holds the script's own wrapper
        feat = trt.inference_on_images([img])       # a method of TrtEngine, not of tensorrt

Below the rebinding, in the block holding it (or one nested in that block), the module-level code reads the new
object: a chain rooted at the name is no use of the package (label note 48d: `trt.inference_on_images` is the
script's TrtEngine method). Only module-level code is read: a function body runs when it is called, which the
rebinding's place does not say. A rebinding to the package itself (`trt = tensorrt`) or to a chain rooted at the same
name (`trt = trt.Builder(...)`) keeps the package's reading.
"""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _module_names(ctx) -> frozenset[str]:
    """The names module-level assignments of the file bind (cached on the context)."""
    names = ctx.__dict__.get("_npu_module_assigned")
    if names is None:
        names = frozenset(t.id for statement in ctx.nodes.get(ast.Assign, ()) for t in statement.targets
                          if isinstance(t, ast.Name) and ctx.enclosing(statement, _SCOPES) is None)
        ctx.__dict__["_npu_module_assigned"] = names
    return names


def rebound(ctx, node: ast.AST) -> bool:
    """The chain `node`, read at module level, is rooted at a name the module rebound above it (in an enclosing block)
    to a value that is not the package's."""
    root = _root(node)
    if not isinstance(root, ast.Name) or root.id not in _module_names(ctx) or ctx.enclosing(node, _SCOPES) is not None:
        return False
    package = (ctx.qualname(root) or "").split(".", 1)[0]
    ancestors = []
    current = node
    while current is not None:
        ancestors.append(current)
        current = ctx.parent(current)
    chain = {id(a) for a in ancestors}
    for statement in ctx.nodes.get(ast.Assign, ()):
        if statement.lineno >= node.lineno or ctx.enclosing(statement, _SCOPES) is not None:
            continue
        if not any(isinstance(t, ast.Name) and t.id == root.id for t in statement.targets):
            continue
        value_root = _root(statement.value)
        if isinstance(value_root, ast.Name) and (value_root.id == root.id
                                                 or (ctx.qualname(value_root) or "").split(".", 1)[0] == package):
            continue  # `trt = trt.Builder(...)`, `trt = tensorrt`: still the package's
        block = ctx.parent(statement)
        if block is None or id(block) not in chain:
            continue
        # the use's statement in that block follows the rebinding in the same list (not the `else:` of its `if`)
        step = next((a for a in ancestors if ctx.parent(a) is block), None)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(block, field, None)
            if isinstance(statements, list) and statement in statements and step in statements:
                return True
    return False
