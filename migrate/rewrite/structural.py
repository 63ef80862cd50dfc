"""The structural step of apply: the libcst codemods (torch_npu imports, ConfigChecker hooks), run only
when needed, and on the import header alone when no hooks are wanted (most of a big repo's files)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from migrate.context import split_lines

_IMPORTS = (ast.Import, ast.ImportFrom)


@dataclass(frozen=True)
class Structural:
    text: str
    added: tuple[str, ...] = ()
    manual: tuple[str, ...] = ()  # messages about the hooks
    limit: str = ""  # the structural step was skipped: libcst cannot take the file (NPU905 item)


TOO_DEEP = ("nested too deeply for libcst (RecursionError): the rule rewrites were made, the torch_npu "
            "imports / ConfigChecker hooks were not added; add `import torch_npu` by hand")


@dataclass(frozen=True)
class _Window:
    lines: int  # how many lines libcst reads
    torch_anywhere: bool  # some top-level statement imports torch
    block_ends: bool  # the statement after the window is not import-like: the opening block ends there


def _reading_window(tree: ast.Module, lines: list[str]) -> _Window:
    """How much libcst should read for the import codemod: the opening import-like statements, and
    on through the first top-level statement importing torch when they have none. Only an estimate
    on the stdlib ast (whose import-like statements include libcst's): `inject_npu_imports.
    placement_known` checks it on the libcst parse, and the whole module is parsed when it was not
    enough. Never the function bodies after the imports (a 16,000-line module reads 4 lines)."""
    body = tree.body
    import_lines = {line for s in body if isinstance(s, _IMPORTS) for line in (s.lineno, s.end_lineno)}

    def may_be_import_like(index: int) -> bool:  # a superset of libcst's import-like statements
        stmt = body[index]
        if index == 0 and isinstance(stmt, ast.Expr):
            return True  # the docstring
        return isinstance(stmt, (*_IMPORTS, ast.If, ast.Try)) or stmt.lineno in import_lines or stmt.end_lineno in import_lines

    index = 0
    while index < len(body) and may_be_import_like(index):
        index += 1
    block_ends = index < len(body)
    anywhere = any(_imports_torch(s) for s in body)
    if anywhere and not any(_imports_torch(s) for s in body[:index]):
        while not _imports_torch(body[index]):
            index += 1
        index += 1  # through the first torch import
    if index == 0:
        return _Window(0, anywhere, block_ends)
    cut = body[index - 1].end_lineno or body[index - 1].lineno
    for stmt in body[index:]:
        if stmt.lineno > cut:
            break
        cut = max(cut, stmt.end_lineno or stmt.lineno)  # statements sharing the last line (`import a; b()`)
    return _Window(min(cut, len(lines)), anywhere, block_ends)


def _imports_torch(stmt: ast.stmt) -> bool:
    """A top-level torch import as libcst's `imported_modules` may see one (a superset): an import
    statement, or one directly in a branch of a top-level `if` / `try` (never inside functions)."""
    if isinstance(stmt, ast.Import):
        return any(a.name.split(".")[0] in ("torch", "torch_npu") for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        return not stmt.level and (stmt.module or "").split(".")[0] in ("torch", "torch_npu")
    if isinstance(stmt, (ast.If, ast.Try)):
        blocks = [stmt.body, stmt.orelse, getattr(stmt, "finalbody", []), *(h.body for h in getattr(stmt, "handlers", []))]
        return any(_imports_torch(inner) for block in blocks for inner in block if isinstance(inner, (*_IMPORTS, ast.If)))
    return False


def add_npu_structure(text: str, tree: ast.Module, *, torch_npu: bool, transfer: bool, hooks: bool, zip_path: str) -> Structural:
    """Add what the file still lacks: `import torch_npu`, the `transfer_to_npu` patcher, the hooks.
    A file libcst cannot take (it recurses once per nesting level: a long `1+1+...` chain, hundreds
    of `elif`s) keeps the text it came with and says so in `limit`."""
    if "\r" in text and "\n" not in text:
        # libcst drops the last line end of a file whose lines end in CR alone: work on LF, give CR back
        done = add_npu_structure(text.replace("\r", "\n"), tree, torch_npu=torch_npu, transfer=transfer, hooks=hooks,
                                 zip_path=zip_path)
        return Structural(done.text.replace("\n", "\r"), done.added, done.manual, done.limit)
    try:
        return _add_npu_structure(text, tree, torch_npu=torch_npu, transfer=transfer, hooks=hooks, zip_path=zip_path)
    except RecursionError:
        return Structural(text, limit=TOO_DEEP)


def _add_npu_structure(text: str, tree: ast.Module, *, torch_npu: bool, transfer: bool, hooks: bool, zip_path: str) -> Structural:
    from migrate.codemods.inject_npu_imports import NpuImports, existing_npu_imports

    present = existing_npu_imports(tree) if "torch_npu" in text else NpuImports(False, False)
    add_torch_npu = torch_npu and not present.torch_npu
    add_transfer = transfer and not present.transfer
    if hooks and "ConfigChecker" in text:
        hooks = not _has_hooks_text(text)
    manual: list[str] = []
    if hooks and not _builds_optimizer_from_parameters(tree):
        # The hook is anchored on `<model>.parameters()` handed to an optimizer; without any such
        # call it cannot be placed, so skip the full-module libcst parse (most of apply's cost on a
        # big repo) and report what the codemod would have reported.
        hooks = False
        manual.append("ConfigChecker hook not added: no optimizer built from `<model>.parameters()` found")
    if not (add_torch_npu or add_transfer or hooks):
        return Structural(text, (), tuple(manual))
    if hooks:
        return _with_hooks(text, add_torch_npu, add_transfer, zip_path, manual)
    return _imports_only(text, tree, add_torch_npu, add_transfer, manual)


def _with_hooks(text: str, add_torch_npu: bool, add_transfer: bool, zip_path: str, manual: list[str]) -> Structural:
    import libcst as cst

    from migrate.codemods.config_check_hooks import add_config_check_hooks
    from migrate.codemods.inject_npu_imports import inject_npu_imports

    injected = inject_npu_imports(cst.parse_module(text), torch_npu=add_torch_npu, transfer=add_transfer)
    added = list(injected.added)
    result = add_config_check_hooks(injected.module, zip_path=zip_path)
    if result.changed:
        added.append(f"ConfigChecker hooks on `{result.model}` ({zip_path})")
    elif not result.already_present:
        manual.append(result.message)
    return Structural(result.module.code, tuple(added), tuple(manual))


def _imports_only(text: str, tree: ast.Module, add_torch_npu: bool, add_transfer: bool, manual: list[str]) -> Structural:
    import libcst as cst

    from migrate.codemods.inject_npu_imports import inject_npu_imports, placement_known

    lines = split_lines(text)
    window = _reading_window(tree, lines)
    cut = window.lines
    head, rest = "".join(lines[:cut]), "".join(lines[cut:])
    if not head or (not head.endswith(("\n", "\r")) and rest):
        head, rest = text, ""  # no imports: the whole module, so a shebang or licence header stays first
    module = cst.parse_module(head)
    if rest and not placement_known(module.body, torch_imported_later=window.torch_anywhere, block_ends=window.block_ends):
        head, rest = text, ""
        module = cst.parse_module(text)
    injected = inject_npu_imports(module, torch_npu=add_torch_npu, transfer=add_transfer)
    new_head = injected.module.code
    if head and not rest and not head.endswith(("\n", "\r")) and new_head.endswith(("\n", "\r")):
        new_head = new_head.rstrip("\r\n")
    return Structural(new_head + rest, injected.added, tuple(manual))


def _builds_optimizer_from_parameters(tree: ast.Module) -> bool:
    """Cheap necessary condition for placing the ConfigChecker hook (see codemods/config_check_hooks):
    a `<model>.parameters()` (or `*_parameters()`), an optimizer method or factory, or a trainer call."""
    from migrate.codemods.config_check_hooks import _OPTIMIZER_FACTORY, _OPTIMIZER_METHOD, _parameter_method, is_trainer_call

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _parameter_method(node.attr):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            attribute = isinstance(node.func, ast.Attribute)
            last = node.func.attr if attribute else node.func.id
            name = ast.unparse(node.func) if last == "fit" else last  # `trainer.fit`: the receiver matters
            if is_trainer_call(name) or _OPTIMIZER_FACTORY.match(last) or (attribute and _OPTIMIZER_METHOD.search(last)):
                return True
    return False


def _has_hooks_text(text: str) -> bool:
    import libcst as cst

    from migrate.codemods.config_check_hooks import has_hooks

    try:
        return has_hooks(cst.parse_module(text))
    except cst.ParserSyntaxError:
        return True
