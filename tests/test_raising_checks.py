"""A function that raises when a package is missing is a check: the uses after its call are optional paths
(migrate/raising_checks.py, label ruling (L34), label note 46b b-8). The fixture is a small renderer written here: one
module keeps the import attempt and a context helper that raises on request, others call it before the package."""

from __future__ import annotations

from pathlib import Path

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

CONTEXT = """try:
    import nvdiffrast.torch as dr
    _has_dr = True
except ImportError:
    dr = None
    _has_dr = False

_contexts = {}


def dr_is_available():
    return _has_dr


def default_context(device, raise_error=False):
    if not dr_is_available():
        if raise_error:
            raise ValueError("nvdiffrast must be installed for this backend")
        return None
    if device not in _contexts:
        _contexts[device] = dr.RasterizeCudaContext(device=device)
    return _contexts[device]


def require_dr():
    if not dr_is_available():
        raise ImportError("pip install nvdiffrast")
"""

RASTER = """import torch

from .context import default_context, require_dr

try:
    import nvdiffrast.torch as dr
except ImportError:
    dr = None


def rasterize(pos, tri, size):
    ctx = default_context(pos.device, raise_error=True)
    rast, _ = dr.rasterize(ctx, pos, tri, size)
    return rast


def texture(tex, uv):
    require_dr()
    return dr.texture(tex, uv)
"""

# the same helper called without `raise_error=True` returns None: the uses after it fail without the package
UNCHECKED = """from render.context import default_context

try:
    import nvdiffrast.torch as dr
except ImportError:
    dr = None


def rasterize(pos, tri, size):
    ctx = default_context(pos.device)
    return dr.rasterize(ctx, pos, tri, size)
"""

REPO = {
    "render/__init__.py": "",
    "render/context.py": CONTEXT,
    "render/raster.py": RASTER,
    "render/unchecked.py": UNCHECKED,
}


def test_a_call_that_raises_without_the_package_guards_the_uses_after_it(tmp_path: Path):
    write_files(tmp_path, REPO)
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version="2.14.0")
    assert finding_lines(result, "NPU501", "render/raster.py") == []  # the None stand-in is never reached bare
    assert finding_lines(result, "NPU507", "render/raster.py") == []
    assert finding_lines(result, "NPU501", "render/unchecked.py") == [4]
    assert finding_lines(result, "NPU507", "render/unchecked.py") == [11]


def test_a_raising_helper_called_after_an_import_does_not_guard_it(tmp_path: Path):
    # a training script's main(): a flag-gated bitsandbytes import whose handler only re-raises, then (further down)
    # a project helper that raises without torchvision. The helper names no package and comes after the import: the
    # import and its use stay reported (a raising call guards only what follows it in its block)
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": ("def is_torchvision_available():\n    try:\n        import torchvision  # noqa: F401\n"
                         "    except ImportError:\n        return False\n    return True\n\n\n"
                         "def resolve_mode(name):\n    if not is_torchvision_available():\n"
                         "        raise ImportError('install torchvision')\n    return name\n"),
        "train.py": ("import torch\n\nfrom pkg.utils import resolve_mode\n\n\ndef main(args):\n"
                     "    if args.use_8bit_adam:\n        try:\n            import bitsandbytes as bnb\n"
                     "        except ImportError:\n            raise ImportError('pip install bitsandbytes')\n"
                     "        optimizer_class = bnb.optim.AdamW8bit\n    else:\n        optimizer_class = torch.optim.AdamW\n"
                     "    optimizer = optimizer_class(args.params, lr=1e-3)\n"
                     "    mode = resolve_mode(args.interpolation)\n    return optimizer, mode\n"),
    })
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU501", "train.py") == [9]
    assert finding_lines(result, "NPU507", "train.py") == [15]  # the construction through the alias (label ruling (L52))
