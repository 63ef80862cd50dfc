"""Code a GPU-only option value selects, and option values chosen only where the package imports (label ruling (L102)
with (L42), labeller note 51a-1).

A config that picks flash attention only after its own import of the package succeeded makes an availability
selection, not a GPU-only choice:

    class MiniCPMConfig(PretrainedConfig):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            try:
                import flash_attn                                     # no finding (NPU501)
                self._attn_implementation = "flash_attention_2"       # no finding (NPU503)
            except:
                pass

and the modeling file that registers its flash attention class under that value reaches the class only when the value
was chosen (by the probe above, or by a user's `attn_implementation="flash_attention_2"`, which transformers refuses
with an ImportError where flash_attn is missing; the user's line is the finding there):

    try:
        from flash_attn import flash_attn_func                        # no finding: read only in the class below
    except:
        pass

    class MiniCPMFlashAttention2(MiniCPMAttention):
        def forward(self, q, k, v):
            return flash_attn_func(q, k, v)                           # no finding (NPU507)

    MINICPM_ATTENTION_CLASSES = {"eager": MiniCPMAttention, "flash_attention_2": MiniCPMFlashAttention2}

Kept (still findings): a class named anywhere else in the module (called directly, a default, `__all__`), a read of
the imported names outside such classes, and a try body that does more with the package than record the choice.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase

from migrate.cuda_tested_entries import classes_reached_only, inside


def _guards_match(guards, package: str) -> bool:
    return any(fnmatchcase(package.lower(), guard) for guard in guards)


def selecting_values(package: str) -> frozenset[str]:
    """The string values of the GPU-only options (migrate/knowledge/data/gpu_only_options.toml) whose guards name
    `package`: `"flash_attention_2"` / `"flash_attention_3"` for flash_attn."""
    from migrate.rules.npu503_gpu_only_option import gpu_only_options

    return frozenset(value for option in gpu_only_options()[0] if _guards_match(option.guards, package)
                     for value in option.values if isinstance(value, str))


def selected_classes(ctx, package: str) -> frozenset[int]:
    """The ids of the module's top-level classes that every mention reaches as the value under a key that selects
    `package` in a dict (`{"flash_attention_2": MiniCPMFlashAttention2}`): an implementation registry keyed by the
    option's value."""
    values = selecting_values(package)
    if not values or not any(f'"{v}"' in ctx.source or f"'{v}'" in ctx.source for v in values):
        return frozenset()
    return classes_reached_only(ctx, lambda node: _registered_under(ctx, node, values))


def _registered_under(ctx, node: ast.Name, values: frozenset[str]) -> bool:
    parent = ctx.parent(node)
    if not (isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Dict)):
        return False
    for key, value in zip(parent.keys, parent.values):
        if value is node:
            return isinstance(key, ast.Constant) and key.value in values
    return False


def read_only_where_selected(ctx, names: set[str], package: str) -> bool:
    """Every read of `names` in the module lies in a class the option value selecting `package` registers
    (`selected_classes`), and there is at least one."""
    classes = selected_classes(ctx, package)
    if not classes:
        return False
    reads = [n for n in ctx.nodes.get(ast.Name, ()) if n.id in names and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(inside(ctx, n, classes) for n in reads)


def _imports(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if isinstance(statement, ast.ImportFrom) and not statement.level:
        return [statement.module or ""]
    return []


def chosen_after_import(ctx, node: ast.AST, guards) -> bool:
    """`node` lies in a `try:` body after an import of a package matching `guards`, in a try whose handlers catch the
    import's failure without raising (`try: import flash_attn; self._attn_implementation = "flash_attention_2" /
    except: pass`): the value is set only where the package imported."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error

    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if isinstance(parent, ast.Try) and child in parent.body:
            before = parent.body[:parent.body.index(child)]
            imported = [module for s in before for module in _imports(s)]
            if any(_guards_match(guards, module) for module in imported) and parent.handlers \
                    and all(_catches_import_error(h) for h in parent.handlers):
                return True
        child, parent = parent, ctx.parent(parent)
    return False


def _own_attribute(target: ast.expr) -> bool:
    """`self.x`: an attribute of the object being set up, which keeps the value its class gave it (a plain name set
    only in the try is unbound without the package: `try: import x; use_x = True / except: pass` stays a finding)."""
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def records_a_choice(ctx, statement, attempt: ast.Try) -> bool:
    """The import only decides a setting: its names are read nowhere in the module, every handler only passes or
    tells the user, and the rest of the try body assigns constants to the object's own attributes
    (`self._attn_implementation = "flash_attention_2"`): without the package the setting keeps its default."""
    from migrate.rules.npu501_gpu_only_import import _catches_import_error, _notice

    if any(alias.name == "*" for alias in statement.names) or not attempt.handlers:
        return False
    if not all(_catches_import_error(h) and all(_notice(s) for s in h.body) for h in attempt.handlers):
        return False
    rest = [s for s in attempt.body if not _imports(s)]
    if not rest or not all(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
                           and all(_own_attribute(t) for t in s.targets) for s in rest):
        return False
    names = {(alias.asname or alias.name).split(".", 1)[0] for alias in statement.names}
    return not any(n.id in names and isinstance(n.ctx, ast.Load) for n in ctx.nodes.get(ast.Name, ()))
