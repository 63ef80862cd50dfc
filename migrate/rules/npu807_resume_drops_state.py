import ast

from migrate.findings import Category, Severity
from migrate.rules._loop import enclosing_scope, is_test_module, saved_object, state_kind, torch_loads, torch_saves, walk_scope
from migrate.rules.base import Invalid, Rule


def _saved_dicts(ctx) -> list[tuple[int, list[str]]]:
    """(line, string keys) of each dict literal that `torch.save` writes."""
    found = []
    for call in torch_saves(ctx):
        obj = saved_object(ctx, call)
        if isinstance(obj, ast.Dict):
            found.append((call.lineno, [k.value for k in obj.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]))
    return found


def _keyed_reads(ctx, load: ast.Call) -> set[str] | None:
    """The string keys read from a loaded checkpoint (`ck = torch.load(p)`; `ck["model"]`,
    `ck.get("epoch")`); None when the checkpoint is used in any other way (passed on whole,
    iterated, unpacked), since the keys may then be read elsewhere."""
    stmt = ctx.parent(load)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name = stmt.targets[0].id
    scope = [n for n in walk_scope(enclosing_scope(ctx, load)) if isinstance(n, ast.Name) and n.id == name]
    # the uses up to the name's next assignment (nanoGPT reuses `checkpoint` for the dict it saves)
    rebound = min((n.lineno for n in scope if isinstance(n.ctx, ast.Store) and n.lineno > load.lineno), default=None)
    reads = set()
    for node in scope:
        if not isinstance(node.ctx, ast.Load) or node.lineno < load.lineno or (rebound is not None and node.lineno >= rebound):
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant):
            reads.add(str(parent.slice.value))
        elif isinstance(parent, ast.Attribute) and parent.attr == "get" and isinstance(ctx.parent(parent), ast.Call):
            call = ctx.parent(parent)
            if not call.args or ctx.string_value(call.args[0]) is None:
                return None
            reads.add(call.args[0].value)
        elif isinstance(parent, ast.Compare) and isinstance(parent.left, ast.Constant):
            reads.add(str(parent.left.value))  # `"scaler" in ck`: the resume looks for it
        else:
            return None
    return reads


def _in_resume_code(ctx, node: ast.AST) -> bool:
    """Inside an `if` whose test, or a function whose name, mentions resuming."""
    current = ctx.parent(node)
    while current is not None:
        if isinstance(current, ast.If) and "resume" in ctx.segment(current.test).lower():
            return True
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and "resume" in current.name.lower():
            return True
        current = ctx.parent(current)
    return False


class ResumeDropsState(Rule):
    """A resume that restores less than the checkpoint holds: the script's `torch.save` writes a
    dict with optimizer / scheduler / scaler / step keys, and the code that `torch.load`s it reads
    the model key but never reads some of those. The optimizer's moments, the learning-rate
    position, the loss scale or the epoch counter then restart from their initial values and the
    resumed run is not the interrupted one. Restore each with `load_state_dict` (and the step
    into the loop counter). Only judged when save and load are in the same module, the save is a
    dict literal and the loaded checkpoint is read by key only (a checkpoint handed whole to other
    code is not judged). A load counts as a resume when it reads some training state or sits
    under an `if` / in a function that mentions resuming; a load of the weights alone for
    evaluation or export is not one. Severity info: the run itself trains as written (on the GPU as on
    the NPU); only a resumed run differs."""

    CODE = "NPU807"
    NAME = "resume-drops-state"
    CATEGORY = Category.TRAINING
    SEVERITY = Severity.INFO
    MESSAGE = "this resume does not restore {what}, which the checkpoint saved at line {line} holds: the resumed run starts that state afresh"
    TRIGGERS = ("torch.load", "load(")
    VALID = [
        "import torch\ndef save(path):\n    torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), 'scaler': scaler.state_dict(), 'epoch': epoch}, path)\n"
        "def resume(path):\n    ck = torch.load(path)\n    model.load_state_dict(ck['model'])\n    opt.load_state_dict(ck['optimizer'])\n"
        "    scaler.load_state_dict(ck['scaler'])\n    return ck['epoch'] + 1\n",
        # handed on whole: not judged
        "import torch\ntorch.save({'model': model.state_dict(), 'optimizer': opt.state_dict()}, p)\nck = torch.load(p)\nrestore(ck)\n",
        # optional keys looked up
        "import torch\ntorch.save({'model': m.state_dict(), 'scaler': s.state_dict()}, p)\nck = torch.load(p)\nm.load_state_dict(ck['model'])\n"
        "if 'scaler' in ck:\n    s.load_state_dict(ck['scaler'])\n",
        # a reload of the weights for evaluation, not a resume
        "import torch\ntorch.save({'net': net.state_dict(), 'optimizer': opt.state_dict(), 'epoch': epoch}, p)\n"
        "state = torch.load(p, map_location='cpu')\nnet.load_state_dict(state['net'])\nevaluate(net)\n",
    ]
    INVALID = [
        Invalid(
            "import torch\ndef save_checkpoint(path, epoch):\n    torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
            "                'epoch': epoch}, path)\ndef load_checkpoint(path):\n    checkpoint = torch.load(path, map_location='cpu')\n"
            "    model.load_state_dict(checkpoint['model'])\n    return checkpoint['epoch'] + 1\n",
            count=1,
        ),
        Invalid(
            "import torch\nif args.resume:\n    ck = torch.load(args.resume)\n    model.load_state_dict(ck['state_dict'])\n"
            "    optimizer.load_state_dict(ck['optimizer'])\nfor epoch in range(start_epoch, epochs):\n    train()\n"
            "    torch.save({'state_dict': model.state_dict(), 'optimizer': optimizer.state_dict(), 'scaler': scaler.state_dict(), 'epoch': epoch}, 'ck.pt')\n",
            count=1,
        ),
    ]

    def check(self, ctx):
        if is_test_module(ctx.path):
            return  # a test's checkpoints are fixtures, partial on purpose
        saved = _saved_dicts(ctx)
        if not saved:
            return
        for load in torch_loads(ctx):
            reads = _keyed_reads(ctx, load)
            if not reads:
                continue
            if not any(state_kind(key) for key in reads) and not _in_resume_code(ctx, load):
                continue  # the weights alone are loaded (evaluation, export, a reload check): not a resume
            for line, keys in saved:
                if not reads & set(keys):
                    continue  # another checkpoint (pretrained weights, another format)
                missing = [key for key in keys if state_kind(key) and key not in reads]
                if missing:
                    what = ", ".join(f"'{key}'" for key in missing)
                    yield self.finding(ctx, load, self.MESSAGE.format(what=what, line=line))
                    break
