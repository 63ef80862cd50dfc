"""migrate/absent_cuda_modules.py: a relative import of a CUDA-named module the tree does not hold (NPU508; label note
68b, by analogy with label ruling (L30)).

The tree is written here in the shape of a detection library whose rotated-IoU op imports a CUDA op folder that the
image build copies in, not copied from any repository.
"""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

INTERSECTION = """\
import torch
from .cuda_op.cuda_ext import sort_v
from .geometry import box_corners


def intersection(a, b):
    vertices, mask = box_corners(a), box_corners(b)
    return sort_v(vertices, mask, 4)
"""


def test_an_absent_cuda_named_module_is_an_extension(tmp_path):
    write_files(tmp_path, {
        "det/__init__.py": "", "det/rotated/__init__.py": "", "det/rotated/geometry.py": "def box_corners(x):\n    return x\n",
        "det/rotated/intersection.py": INTERSECTION,
    })
    result = scan([str(tmp_path)], use_cache=False)
    # the import and the call of what it binds; not the import of the present `.geometry`
    assert finding_lines(result, "NPU508", "det/rotated/intersection.py") == [2, 8]


def test_a_present_or_plainly_named_module_is_not(tmp_path):
    write_files(tmp_path, {
        "det/__init__.py": "", "det/rotated/__init__.py": "", "det/rotated/geometry.py": "def box_corners(x):\n    return x\n",
        "det/rotated/cuda_op/__init__.py": "", "det/rotated/cuda_op/cuda_ext.py": "def sort_v(v, m, n):\n    return v\n",
        "det/rotated/intersection.py": INTERSECTION,
        "det/other/__init__.py": "", "det/other/use.py": "import torch\nfrom .sorting import sort_v  # cuda\n",
    })
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU508", "det/rotated/intersection.py") == []
    assert finding_lines(result, "NPU508", "det/other/use.py") == []
