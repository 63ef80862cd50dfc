"""A relative import of a CUDA-named module the repository does not hold: a CUDA extension copied in at install time
(NPU508; label note 68b, by analogy with label ruling (L30)).

Some projects vendor another repository's CUDA op by copying its folder into their own package when the image is
built, and import it as if it were there:

    # mmdet3d/ops/rotated_iou/box_intersection_2d.py (fcaf3d)
    from .cuda_op.cuda_ext import sort_v        # cuda_op/ is copied in from lilanxiao/Rotated_IoU by the Dockerfile
    ...
    idx = sort_v(vertices, mask, num_valid)

    # docker/Dockerfile
    RUN cp -r /rotated_iou/cuda_op /mmdetection3d/mmdet3d/ops/rotated_iou
    WORKDIR /mmdetection3d/mmdet3d/ops/rotated_iou/cuda_op
    RUN python setup.py install

The evidence read here is the import alone: a relative import (`from .x.y import z`, `from . import x_cuda`) whose
module lies in a folder of the repository yet has no file there (no `x/y.py`, no `x/y/__init__.py`, nothing under
`x/y/`), and one of whose path parts names CUDA as a word (`cuda_op`, `cuda_ext`, `nms_cuda`; not `cudaext` or
`barracuda`). A module no build of the scan defines and no file holds is a compiled extension built elsewhere; its
name says the build is CUDA's. Such a module stands in the index as a CUDA extension (kind "module", mode `MODE`),
so its import and the calls of what it binds are NPU508 lines, as an absent git submodule's are
(migrate/submodules.py); a build of the scan that defines the same name wins (`modules.setdefault`).

The file records each such import as a fact (`KIND`: the dotted module, resolved against the file's own package, and
its folder path); the absence is decided when the index is assembled, against every scanned path (`missing_modules`).
"""

from __future__ import annotations

import ast
import posixpath
import re

from migrate.repo_index import Definition

KIND = "absentrel"
MODE = "absent"
_CUDA_PART = re.compile(r"(?:^|_)cuda(?:_|$)", re.IGNORECASE)


def facts(ctx) -> list[Definition]:
    """The CUDA-named modules this file imports relatively (see the module doc)."""
    if "cuda" not in ctx.source.lower() or "from ." not in ctx.source:
        return []
    package = posixpath.dirname(ctx.path.replace("\\", "/"))
    out = []
    for node in ctx.nodes.get(ast.ImportFrom, ()):
        if not node.level:
            continue
        base = package
        for _ in range(node.level - 1):
            base = posixpath.dirname(base)
        parts = [p for p in base.split("/") if p and p != "."]
        while parts and not all(p.isidentifier() for p in parts):  # the package path's importable tail
            parts = parts[1:]
        if node.module:
            relatives = [node.module.split(".")]
        else:  # `from . import nms_cuda`: each name is a module of the package
            relatives = [[alias.name] for alias in node.names if alias.name != "*"]
        for relative in relatives:
            if parts and any(_CUDA_PART.search(p) for p in relative):
                folder = posixpath.join(base, *relative)
                out.append(Definition(KIND, ".".join([*parts, *relative]), ctx.path, node.lineno, True, folder))
    return out


def missing_modules(imports: list[Definition], scanned: list[str], defined) -> list[Definition]:
    """The extension modules `imports` stand for: those no scanned file holds and no build of the scan defines."""
    paths = {posixpath.normpath(p.replace("\\", "/")) for p in scanned}
    out = []
    for definition in imports:
        if definition.name in defined:
            continue
        folder = posixpath.normpath(definition.why)
        if f"{folder}.py" in paths or any(p.startswith(folder + "/") for p in paths):
            continue
        if any(p.startswith(f"{folder}.") for p in paths):  # a built file kept in the tree (`nms_cuda.cpython-38.so`)
            continue
        out.append(Definition("module", definition.name, definition.path, definition.line, True, "", MODE))
    return out
