"""Shared helpers for rules that look at text: string constants in Python, shell and YAML lines.

Not a rule (the leading underscore keeps it out of the registry). Two questions come up in many
rules: "is this Python string prose (a docstring, a log or exception message) rather than a value
the program uses?" and "which parts of this launcher line are commands rather than comments or
text printed by echo?".
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

# Calls whose string arguments are messages for a human, not values the program acts on.
_PROSE_CALL_NAMES = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "echo", "secho"}
)
_PROSE_CALL_SUFFIXES = ("Error", "Exception", "Warning")


def _call_simple_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


# Expressions that only carry a value along into the enclosing call (a message built from parts);
# a subscript, attribute or other call in between means the string is used for something else.
_CARRIERS = (ast.BinOp, ast.keyword, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred)


def is_prose(ctx, node: ast.AST) -> bool:
    """True for a string (or a dict, list ... holding strings) that is a docstring / bare string
    statement, part of an f-string, or a message handed to a print / logging / warnings / exception
    call: directly, or inside `+`, `%`, a keyword, a tuple, list or dict argument
    (`print("defaults", {"device": "cuda"})`). A string used inside such a call for something else,
    like `print(os.environ["X"])` or `print(x.to("cuda"))`, is not prose. The one answer to "is this
    text for a person?" for every rule."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Expr) and isinstance(node, (ast.Constant, ast.JoinedStr)):
        return True  # docstring or a bare string statement
    if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)):
        return True  # a piece of an f-string (messages, mostly); columns are unreliable there too
    return _handed_to_a_message(ctx, node, parent)


def _formats_text(parent: ast.AST | None, node: ast.AST) -> bool:
    """`node` is an argument of `"...".format(...)`: it only fills in a text."""
    return (
        isinstance(parent, ast.Call)
        and node is not parent.func
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr == "format"
        and isinstance(parent.func.value, ast.Constant)
        and isinstance(parent.func.value.value, str)
    )


def _handed_to_a_message(ctx, node: ast.AST, parent: ast.AST | None) -> bool:
    """`node` (child of `parent`) is an argument of a print / logging / warnings / exception call,
    directly or through `_CARRIERS`."""
    while isinstance(parent, _CARRIERS) or _formats_text(parent, node):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Call) and node is not parent.func:
        name = _call_simple_name(parent)
        return name is not None and (name in _PROSE_CALL_NAMES or name.endswith(_PROSE_CALL_SUFFIXES))
    return False


def only_displayed(ctx, node: ast.AST) -> bool:
    """True for a value that is only shown to a person: an f-string field of a message
    (`logger.info(f"{torch.backends.cudnn.allow_tf32=}")`) or a direct argument of a print /
    logging call (`print(torch.backends.cudnn.benchmark)`, `print(torch.cuda.is_available())`, also
    through `"...".format(...)`). Reading a flag to log it changes nothing."""
    parent = ctx.parent(node)
    while isinstance(parent, ast.Attribute):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Call) and parent.func is node:  # the value is the call's result
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.FormattedValue):
        joined = ctx.parent(parent)
        return isinstance(joined, ast.JoinedStr) and is_prose(ctx, joined)
    return _handed_to_a_message(ctx, node, parent)


# calls that run (or look up) a command given as a string or a list of strings (NPU504's command strings,
# NPU502's `pip install` commands run from Python)
COMMAND_RUNNERS = frozenset(
    {
        "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
        "subprocess.Popen", "subprocess.getoutput", "subprocess.getstatusoutput",
        "os.system", "os.popen", "os.execvp", "os.execlp", "os.spawnlp", "shutil.which",
        "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell", "sh.Command",
    }
)


_STRINGS_KEY = "_npu_string_constants"


def string_constants(ctx) -> list[ast.Constant]:
    """Every str constant of the module that is not prose (see `is_prose`), in the order of the node index: found
    once per file (several rules ask: NPU301, NPU703, the command strings of NPU302/504/704, the environment reads)."""
    found = ctx.__dict__.get(_STRINGS_KEY)
    if found is None:
        found = ctx.__dict__[_STRINGS_KEY] = [node for node in ctx.nodes.get(ast.Constant, ())
                                              if isinstance(node.value, str) and not is_prose(ctx, node)]
    return found


def command_strings(ctx) -> Iterator[tuple[ast.AST, str]]:
    """(node, text) for every non-prose str constant and f-string; an f-string's text has its
    fields replaced by `{}` (enough to recognise a command such as f"nvidia-smi -i {gpu}")."""
    for node in string_constants(ctx):
        yield node, node.value
    for node in ctx.nodes.get(ast.JoinedStr, ()):
        if is_prose(ctx, node):
            continue
        parts = [v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values]
        yield node, "".join(parts)


def word_pattern(words) -> re.Pattern:
    """A regex matching any of `words` as a whole identifier-like word (longest first)."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


# ---- shell / YAML lines -------------------------------------------------------------------------
_ECHO_WORDS = frozenset({"echo", "printf"})
_SEPARATORS = (";", "&&", "||", "|", "&")


def strip_comment(line: str) -> str:
    """The line without its shell/YAML comment: a `#` at the start or after whitespace, outside
    quotes. Returns the code part (same columns)."""
    quote: str | None = None
    previous = " "
    for index, char in enumerate(line):
        if quote:
            if char == quote and (quote == "'" or previous != "\\"):
                quote = None
        elif char in ("'", '"'):
            quote = char
        elif char == "#" and (previous.isspace() or index == 0):
            return line[:index]
        previous = char
    return line


def command_segments(line: str) -> Iterator[tuple[int, int, bool]]:
    """(start, end, is_echo) for each command of a shell line (split on ; && || | & outside
    quotes, comment removed). `is_echo`: the command is echo/printf, whose arguments are text."""
    code = strip_comment(line.rstrip("\r\n"))
    quote: str | None = None
    start = 0
    index = 0
    previous = ""
    bounds: list[tuple[int, int]] = []
    while index < len(code):
        char = code[index]
        if quote:
            if char == quote and (quote == "'" or previous != "\\"):
                quote = None
        elif char in ("'", '"'):
            quote = char
        else:
            for sep in _SEPARATORS:
                if code.startswith(sep, index):
                    bounds.append((start, index))
                    index += len(sep)
                    start = index
                    previous = ""
                    break
            else:
                previous = char
                index += 1
                continue
            continue
        previous = char
        index += 1
    bounds.append((start, len(code)))
    for begin, end in bounds:
        words = code[begin:end].split()
        # skip leading VAR=value assignments and a YAML list dash to find the command word
        first = next((w for w in words if w != "-" and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)), "")
        yield begin, end, first.strip("\"'") in _ECHO_WORDS


def shell_matches(lines: list[str], pattern: re.Pattern, *, in_echo: re.Pattern | None = None) -> Iterator[tuple[int, re.Match]]:
    """(1-based line, match) for each match of `pattern` in the command part of shell/YAML lines.
    Comments are skipped; in echo/printf commands only `in_echo` is searched (None: nothing)."""
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for begin, end, is_echo in command_segments(line):
            search = in_echo if is_echo else pattern
            if search is None:
                continue
            for match in search.finditer(line, begin, end):
                yield number, match
