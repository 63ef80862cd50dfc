"""Reading and writing files, shared by analyze and apply: decoding with the bytes needed to encode
back, atomic writes with ordinary file modes, and one size-balanced process-pool batcher."""

from __future__ import annotations

import ast
import codecs
import errno
import gc
import io
import os
import tempfile
import tokenize
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from migrate import newer_syntax


class ReadError(Exception):
    """A file that cannot be decoded: `code` is the NPU9xx code, `line` where it went wrong."""

    def __init__(self, code: str, message: str, line: int = 1):
        super().__init__(message)
        self.code = code
        self.line = line


@dataclass(frozen=True)
class Decoded:
    """A file's text and what it takes to write it back byte for byte."""

    encoding: str
    lead: str  # BOM characters after the first one, kept outside the analysed text
    bom: bool
    body: str

    @property
    def text(self) -> str:
        return self.lead + self.body

    def encode(self, body: str) -> bytes:
        out = (self.lead + body).encode(self.encoding)
        return codecs.BOM_UTF8 + out if self.bom else out


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
              (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _wide_encoding(data: bytes) -> str | None:
    """UTF-16/32 named by a byte order mark, or 'UTF-16-LE/BE without a byte order mark' guessed from
    NULs at every other byte; None for anything else (binary)."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:4096]
    if len(sample) >= 4:
        odd, even = sample[1::2], sample[0::2]
        if odd.count(0) == len(odd) and even.count(0) == 0:
            return "UTF-16-LE without a byte order mark"
        if even.count(0) == len(even) and odd.count(0) == 0:
            return "UTF-16-BE without a byte order mark"
    return None


def _decode_wide(data: bytes) -> Decoded:
    wide = _wide_encoding(data)
    if wide is None:
        raise ReadError("NPU902", "binary file (contains NUL bytes)")
    if " " in wide:
        raise ReadError("NPU902", f"text in {wide}; save it as UTF-8 (or with a BOM)")
    try:
        text = data.decode(wide)  # the codec reads and drops the BOM, and writes one back on encode
    except UnicodeDecodeError as exc:
        raise ReadError("NPU902", f"cannot decode as {wide.upper()}: {exc.reason}") from None
    body = text.lstrip("\ufeff")
    return Decoded(wide, text[: len(text) - len(body)], False, body)


def decode(data: bytes, python: bool) -> Decoded:
    """Python files by their coding cookie (PEP 263), everything else as UTF-8; a UTF-8 BOM is kept
    aside; UTF-16/32 with a byte order mark are decoded. Raises ReadError (NPU902) for binary data
    or text that does not decode."""
    if b"\x00" in data[:8192]:
        return _decode_wide(data)
    encoding = "utf-8"
    if python:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            raise ReadError("NPU902", f"cannot decode: {exc}") from None
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    bom = data.startswith(codecs.BOM_UTF8) and encoding == "utf-8"
    try:
        text = (data[len(codecs.BOM_UTF8):] if bom else data).decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        line = data[: getattr(exc, "start", 0)].count(b"\n") + 1
        shown = "utf-8-sig" if not python else encoding
        raise ReadError("NPU902", f"cannot decode as {shown}: {getattr(exc, 'reason', exc)}", line) from None
    body = text.lstrip("\ufeff")
    return Decoded(encoding, text[: len(text) - len(body)], bom, body)


# ---- writing --------------------------------------------------------------------------------------------
def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: str, data: bytes | str, *, mode: int | None = None, make_parents: bool = False) -> None:
    """Write through a temporary file in the same directory and `os.replace` it into place, so a
    reader never sees half a file. The file gets `mode` (a copied file's permissions) or the mode
    an ordinary `open(path, "w")` would give (umask applied), never mkstemp's 0600."""
    payload = data.encode("utf-8") if isinstance(data, str) else data

    def fill(handle) -> None:
        handle.write(payload)

    _replace_atomically(path, fill, mode, make_parents)


def write_report(path: str, text: str) -> None:
    """A report the user named: a regular file (or a new one) is written whole through atomic_write;
    an existing special file (/dev/stdout, a FIFO a reader waits on) is written into, never replaced
    by a file. An OSError (a folder, a missing or read-only folder) is the caller's exit 2."""
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
    else:
        atomic_write(path, text)


def atomic_copy(source: str, path: str, *, make_parents: bool = True) -> None:
    """Copy a file (bytes, permissions, times) to `path` the same way (for files copied unchanged)."""
    import shutil

    def fill(handle) -> None:
        with open(source, "rb") as src:
            shutil.copyfileobj(src, handle)

    _replace_atomically(path, fill, os.stat(source).st_mode, make_parents, lambda tmp: shutil.copystat(source, tmp))


def _replace_atomically(path: str, fill, mode: int | None, make_parents: bool, finish=None) -> None:
    """An OSError raised here names `path` (not the temporary file) as its filename."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise NotADirectoryError(errno.ENOTDIR, f"Not a directory ({directory} is a file)")
        if make_parents:
            os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".npu-migrate-", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
        os.chmod(tmp, (mode if mode is not None else _default_mode()) & 0o7777)
        if finish is not None:
            finish(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise OSError(exc.errno, exc.strerror or str(exc), path) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str | None) -> None:
    if tmp is not None and os.path.lexists(tmp):
        os.unlink(tmp)


# ---- parallel batches -----------------------------------------------------------------------------------
@contextmanager
def no_cycle_collection(*, freeze: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off while one file is read (and back on after, if it was on). A parse
    allocates a node object per node, all alive until the file is done, and the collections they trigger walk
    every object the process holds (the scan's results so far): torch, the analyze workload, ~9% of its CPU.
    A file's tree and context hold no reference cycles: reference counting frees them; a cycle made while the
    collector is off is collected after. `freeze` (a whole command, migrate/cli.py): what was made moves to the
    oldest generation before the collector is back on (gc.freeze then unfreeze: no walk of it)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if freeze:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def size_balanced_batches(sizes: Sequence[int], workers: int, *, min_budget: int = 1) -> list[list[int]]:
    """Indices grouped into batches of about equal total size, biggest items first (a repo's few
    huge files must not all land in one worker's last batch); about 12 batches per worker keep
    every worker busy to the end."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    budget = max(sum(sizes) // (max(workers, 1) * 12), min_budget)
    batches: list[list[int]] = []
    current: list[int] = []
    current_size = 0
    for index in order:
        current.append(index)
        current_size += sizes[index]
        if current_size >= budget:
            batches.append(current)
            current, current_size = [], 0
    if current:
        batches.append(current)
    return batches


def run_batched(work: Callable[..., list], items: Sequence, sizes: Sequence[int], *, workers: int, args: tuple = (),
                min_budget: int = 1, on_batch: Callable[[int], None] | None = None) -> list:
    """`work(batch_items, *args)` over size-balanced batches in a process pool; results in the
    order of `items`. `on_batch(n)` is called as each batch of n items completes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    batches = size_balanced_batches(sizes, workers, min_budget=min_budget)
    out: list = [None] * len(items)
    context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(work, [items[i] for i in batch], *args): batch for batch in batches}
        for future in as_completed(futures):
            batch = futures[future]
            for index, result in zip(batch, future.result()):
                out[index] = result
            if on_batch:
                on_batch(len(batch))
    return out


# CPython 3.11 keeps the AST constructor's recursion counter per interpreter, not per thread: an
# ast.parse in one thread while another builds an AST (its own ast.parse, or the traceback module's
# caret anchors) can fail with this spurious SystemError (python/cpython gh-106905; seen in validate,
# whose runs go in threads). The parse is pure: it is tried again.
_SPURIOUS_AST_ERROR = "AST constructor recursion depth mismatch"
_PARSE_TRIES = 5


def parse_python(text: str) -> ast.Module | None:
    """The module's tree, or None for text that does not parse (or is too deep or too large to),
    with the parser's SyntaxWarnings silenced; safe to call from several threads."""
    for attempt in range(_PARSE_TRIES):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return newer_syntax.parse(text)  # 3.12+ syntax read too
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        except SystemError as exc:
            if not str(exc).startswith(_SPURIOUS_AST_ERROR) or attempt == _PARSE_TRIES - 1:
                raise
    return None
