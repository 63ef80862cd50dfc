"""A compiled op called on inputs the code itself moved to the CPU (NPU508; label rulings (L28), (L79)).

An extension built for the CPU as well dispatches on the device of its inputs (`if (points.is_cuda()) ... else
<CPU kernel>`), and its inputs share one device. A call whose arguments the caller placed on the host runs the CPU
kernel, on any machine:

    dists_cuda = _C.point_edge_dist_forward(points, edges)                  # on the tensors' device: reported
    points_cpu = points.clone().cpu()
    dists_cpu = _C.point_edge_dist_forward(points_cpu, edges.cpu())         # host tensors: the CPU build
    pairs = _C.find_verts(edge_num.cpu()).to(edge_num.device)               # a host round trip

Nothing there needs porting (label ruling (L28): off CUDA; 45a-3). An argument is on the host when it is `x.cpu()`,
`x.to("cpu")` / `x.to(device="cpu")` / `x.to(torch.device("cpu"))`, `torch.from_numpy(a)` (host memory), or a name every assignment of which in the
enclosing function is one of those. The call is off CUDA when at least one argument is on the host and none is put
on CUDA (`x.cuda()`, `x.to("cuda")`); arguments the code does not place (a size, a flag, a tensor of unknown device)
follow the placed ones.
"""

from __future__ import annotations

import ast


def _device_value(node: ast.AST) -> str | None:
    """"cpu" / "cuda" for a device literal (`"cuda:0"`, `torch.device("cpu")`), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and node.args \
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "device":
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        kind = node.value.split(":", 1)[0]
        return kind if kind in ("cpu", "cuda") else None
    return None


def _placed(node: ast.AST) -> str | None:
    """"cpu" / "cuda" where the expression moves a tensor there (`x.cpu()`, `x.cuda()`, `x.to("cpu")`), else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    # `torch.from_numpy(a)`: a tensor sharing a numpy array's host memory (mmdet's nms_match: `dets_t =
    # dets.detach().cpu()` or `torch.from_numpy(dets)`, label note 48b b-4)
    if node.func.attr == "from_numpy" and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch":
        return "cpu"
    if node.func.attr in ("cpu", "cuda"):
        return node.func.attr
    if node.func.attr == "to":
        for value in [*node.args, *(k.value for k in node.keywords if k.arg == "device")]:
            device = _device_value(value)
            if device is not None:
                return device
    return None


def _name_placed(ctx, call: ast.Call, name: str) -> str | None:
    """Where every assignment of `name` in the function holding `call` puts its value (all the same), else None."""
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return None
    arguments = function.args
    if name in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
        return None  # the caller's tensor, of its device
    places = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name) and target.id == name:
                    places.add(_placed(node.value) if node.value is not None else None)
                elif any(isinstance(b, ast.Name) and b.id == name for b in ast.walk(target)):
                    places.add(None)  # unpacked: `a, b = f(...)`
        else:
            targets = [node.target] if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.comprehension)) \
                else [i.optional_vars for i in node.items if i.optional_vars is not None] if isinstance(node, (ast.With, ast.AsyncWith)) \
                else []
            if any(isinstance(b, ast.Name) and b.id == name for t in targets for b in ast.walk(t)):
                places.add(None)
    return places.pop() if len(places) == 1 else None


def called_on_cpu_inputs(ctx, node: ast.AST) -> bool:
    """The call whose function is `node` (an op of a compiled extension) gets host tensors and none put on CUDA."""
    call = ctx.parent(node)
    if not (isinstance(call, ast.Call) and call.func is node):
        return False
    places = set()
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(argument, ast.Starred):
            argument = argument.value
        place = _placed(argument)
        if place is None and isinstance(argument, ast.Name):
            place = _name_placed(ctx, call, argument.id)
        places.add(place)
    return "cpu" in places and "cuda" not in places
