"""`npu-migrate instrument`: only the ConfigChecker hooks (no NPU rewrites), for the baseline side."""

from __future__ import annotations

from migrate import fileio
from migrate.codemods.config_check_hooks import DEFAULT_GPU_PACK
from migrate.rewrite.model import InstrumentResult


def instrument_source(source: str, *, zip_path: str = DEFAULT_GPU_PACK) -> InstrumentResult:
    """Add only the ConfigChecker hooks (no NPU rewrites) to a script's source text."""
    import libcst as cst

    from migrate.codemods.config_check_hooks import add_config_check_hooks

    try:
        module = cst.parse_module(source)
        result = add_config_check_hooks(module, zip_path=zip_path)
    except cst.ParserSyntaxError as exc:
        return InstrumentResult(source, False, f"cannot parse: {exc.message}")
    except RecursionError:
        return InstrumentResult(source, False, "cannot parse: nested too deeply for libcst (RecursionError)")
    if result.already_present:
        return InstrumentResult(source, True, result.message)
    return InstrumentResult(result.module.code, result.model_found, result.message)


def instrument_file(path: str, data: bytes, *, zip_path: str = DEFAULT_GPU_PACK) -> tuple[bytes, InstrumentResult]:
    """Raises fileio.ReadError when the bytes do not decode."""
    decoded = fileio.decode(data, python=True)
    result = instrument_source(decoded.body, zip_path=zip_path)
    if result.text == decoded.body:
        return data, result
    return decoded.encode(result.text), result
