"""A repository module imported only in `try: ... except ImportError:` whose handler stops the program (a `raise`, or a
call of a helper named for raising, `log_and_raise(...)`) is no optional module: the import is required, the handler
only gives a clearer error (label ruling (L34): a bare `try: import x / except ImportError: raise ...` stays a label;
migrate/optional_modules.py `_stops`). Its GPU-only imports and uses stay reported. The snippets are written for these
tests."""

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_BACKEND = (
    "import cuda.bindings.runtime as cudart\nfrom cuda.core import launch\n\n\n"
    "def run(stream, config, kernel):\n    launch(stream, config, kernel)\n    return cudart.cudaGetLastError()\n")


def _backend_findings(tmp_path, handler: str) -> list[int]:
    write_files(tmp_path, {
        "proj/__init__.py": "",
        "proj/util.py": "def log_and_raise(msg):\n    raise RuntimeError(msg)\n",
        "proj/backends/__init__.py": "",
        "proj/backends/core_backend.py": _BACKEND,
        "proj/select.py": (
            "from proj.util import log_and_raise\n\n\n"
            "def load_backend():\n    try:\n        import proj.backends.core_backend as cc\n"
            f"        return cc\n    except ImportError as e:\n{handler}"),
    })
    result = scan([str(tmp_path)], jobs=1)
    return finding_lines(result, "NPU501", "core_backend.py") + finding_lines(result, "NPU507", "core_backend.py")


def test_a_handler_calling_a_raising_helper_keeps_the_module_required(tmp_path):
    # curobo backends/__init__.py: the `return None` after the helper is never reached
    handler = "        log_and_raise(f'Error loading backend: {e}')\n        return None\n"
    assert _backend_findings(tmp_path, handler) == [1, 2, 6, 7]


def test_a_handler_that_raises_keeps_the_module_required(tmp_path):
    handler = "        raise RuntimeError('install cuda-core') from e\n"
    assert _backend_findings(tmp_path, handler) == [1, 2, 6, 7]


def test_a_handler_that_goes_on_without_the_module_keeps_it_optional(tmp_path):
    handler = "        print('no backend', e)\n        return None\n"
    assert _backend_findings(tmp_path, handler) == []
