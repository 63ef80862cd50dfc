"""A git submodule of a CUDA-kernel package that the checkout does not hold (migrate/submodules.py, NPU508).

The fixtures are small trees written here in the shape of a detector that vendors its deformable-convolution
kernels as a submodule and imports them relatively under a bare `try`, not copies of any repository.
"""

from __future__ import annotations

from pathlib import Path

from migrate import submodules
from migrate.engine import scan
from tests.helpers import write_files

NEWEST = "2.14.0"

GITMODULES = """\
[submodule "devkit"]
\tpath = tools/devkit
\turl = https://github.com/example/devkit
[submodule "DCN-v2"]
\tpath = lib/networks/DCNv2
\turl = https://github.com/CharlesShang/DCNv2/
\tbranch = master
"""

BACKBONE = """\
import torch.nn as nn

try:
    from .DCNv2.dcn_v2 import DCN
except:
    print('import DCN failed')
    DCN = None


class DeformConv(nn.Module):
    def __init__(self, chi, cho):
        super().__init__()
        self.conv = DCN(chi, cho, kernel_size=(3, 3), stride=1, padding=1)

    def forward(self, x):
        return self.conv(x)
"""

NECK = """\
try:
    from ..DCNv2.dcn_v2 import DCN
except:
    DCN = None


def up_layer(c):
    return DCN(c, c, kernel_size=(3, 3), stride=1, padding=1)
"""


def _npu508(tmp_path: Path) -> list[tuple[str, int]]:
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    return sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU508")


def test_gitmodules_are_read_with_their_header_lines():
    assert submodules.read(GITMODULES) == [("tools/devkit", "https://github.com/example/devkit", 1),
                                           ("lib/networks/DCNv2", "https://github.com/CharlesShang/DCNv2/", 4)]
    # only the submodule whose repository the knowledge counts as a CUDA-kernel package is kept
    assert [(d.name, d.line, d.mode) for d in submodules.facts(GITMODULES)] == [("lib/networks/DCNv2", 4, "dcn_v2")]
    assert submodules.package_of_url("git@github.com:CharlesShang/DCNv2.git") == "dcn_v2"
    assert submodules.package_of_url("https://github.com/nutonomy/nuscenes-devkit") is None


def test_imports_and_uses_of_a_missing_kernel_submodule_are_extension_uses(tmp_path):
    write_files(tmp_path, {".gitmodules": GITMODULES, "lib/networks/dla.py": BACKBONE, "lib/networks/necks/up.py": NECK})
    # `DCN = None` in a bare except is no fallback: DCN(...) is called unguarded (label ruling (L30))
    assert _npu508(tmp_path) == [("dla.py", 4), ("dla.py", 13), ("up.py", 2), ("up.py", 8)]
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    message = next(f.message for f in result.findings if f.code == "NPU508")
    assert "git submodule `lib.networks.DCNv2`" in message and "CharlesShang/DCNv2" in message


def test_a_checked_out_submodule_is_scanned_like_any_code_and_an_unknown_one_is_nothing(tmp_path):
    write_files(tmp_path, {".gitmodules": GITMODULES, "lib/networks/dla.py": BACKBONE,
                      "lib/networks/DCNv2/dcn_v2.py": "import torch\n\n\nclass DCN(torch.nn.Module):\n    pass\n"})
    assert _npu508(tmp_path) == []
    other = GITMODULES.replace("CharlesShang/DCNv2", "example/deform-utils")
    write_files(tmp_path, {".gitmodules": other})
    (tmp_path / "lib/networks/DCNv2/dcn_v2.py").unlink()
    assert _npu508(tmp_path) == []


SPLAT_GITMODULES = """\
[submodule "submodules/fork-rasterizer"]
\tpath = submodules/fork-rasterizer
\turl = https://github.com/graphdeco-inria/hierarchy-rasterizer.git
[submodule "submodules/lod"]
\tpath = submodules/lodhierarchy
\turl = https://github.com/graphdeco-inria/gaussian-hierarchy.git
"""


def test_a_fork_named_by_its_repository_and_a_submodule_folder_of_another_name(tmp_path):
    # a fork that builds a catalogued package under another repository name (the knowledge's `folder_names`)
    assert submodules.package_of_url("https://github.com/graphdeco-inria/hierarchy-rasterizer.git") == "diff_gaussian_rasterization"
    assert submodules.package_of_url("https://github.com/graphdeco-inria/gaussian-hierarchy") == "gaussian_hierarchy"
    write_files(tmp_path, {
        ".gitmodules": SPLAT_GITMODULES,
        "requirements.txt": "plyfile\nsubmodules/fork-rasterizer\nsubmodules/lodhierarchy\n",
        "model.py": "from gaussian_hierarchy._C import load_hierarchy\n\n\ndef load(path):\n    return load_hierarchy(path)\n",
    })
    result = scan([str(tmp_path)], use_cache=False, torch_npu_version=NEWEST)
    # the folder `lodhierarchy` is no name of the package: the submodule's URL names it
    assert sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "NPU502") == [
        ("requirements.txt", 2), ("requirements.txt", 3)]
    assert sorted((f.code, f.line) for f in result.findings if Path(f.path).name == "model.py") == [
        ("NPU501", 1), ("NPU507", 5)]


PROJECT_GITMODULES = """\
[submodule "third_party/DefDETR"]
\tpath = third_party/DefDETR
\turl = https://github.com/fundamentalvision/Deformable-DETR.git
"""

TRAIN = """\
import sys
sys.path.insert(0, 'third_party/DefDETR')
from det.arch import build
"""

ARCH = """\
import torch.nn as nn
from models.deformable_transformer import DeformableTransformer
from models.matcher import HungarianMatcher
from models.deformable_detr import SetCriterion
from util.misc import NestedTensor


class Criterion(SetCriterion):
    def __init__(self, n):
        super().__init__(n, HungarianMatcher(), {}, [])


def build(d):
    return DeformableTransformer(d_model=d), HungarianMatcher()
"""


def test_a_missing_research_project_submodule_on_the_import_path_reports_its_package_imports(tmp_path):
    # the project's `models` package loads its CUDA-only op on import: each `from models.X import` is reported, and
    # the constructions of the classes the entry lists, not its pure-PyTorch helpers nor `util` (label rule 40c-1)
    write_files(tmp_path, {".gitmodules": PROJECT_GITMODULES, "train.py": TRAIN, "det/__init__.py": "",
                           "det/arch.py": ARCH})
    assert _npu508(tmp_path) == [("arch.py", 2), ("arch.py", 3), ("arch.py", 4), ("arch.py", 14)]
    assert [(d.name, d.mode) for d in submodules.facts(PROJECT_GITMODULES)] == [
        ("third_party/DefDETR", "project:fundamentalvision/deformable-detr")]
    # a launcher's PYTHONPATH names the folder as well
    write_files(tmp_path, {"train.py": "from det.arch import build\n",
                           "run.sh": "PYTHONPATH=third_party/DefDETR:$PYTHONPATH python train.py\n"})
    assert len(_npu508(tmp_path)) == 4


def test_a_research_project_submodule_off_the_import_path_or_checked_out_is_nothing(tmp_path):
    write_files(tmp_path, {".gitmodules": PROJECT_GITMODULES, "train.py": "from det.arch import build\n",
                           "det/__init__.py": "", "det/arch.py": ARCH})
    assert _npu508(tmp_path) == []  # no file puts the folder on the import path: `models` may be anyone's
    write_files(tmp_path, {"train.py": TRAIN, "third_party/DefDETR/models/__init__.py": "",
                           "third_party/DefDETR/models/matcher.py": "class HungarianMatcher:\n    pass\n"})
    assert _npu508(tmp_path) == []  # checked out: its code is scanned like any other


def test_a_missing_chamfer_submodule_reports_its_kernel_uses_not_its_plain_helper_calls(tmp_path):
    # AtlasNet-shaped (label note 52c, (L30)/(L54)): ThibaultGROUEIX/ChamferDistancePytorch, no PyPI package, vendored as a
    # submodule: the import of its JIT-building module and the construction are uses; the plain-torch fscore helper is
    # imported from the absent package (a use) but its call runs no kernel
    gitmodules = ("[submodule \"auxiliary/ChamferDistancePytorch\"]\n\tpath = auxiliary/ChamferDistancePytorch\n"
                  "\turl = https://github.com/ThibaultGROUEIX/ChamferDistancePytorch\n")
    loss = ("import auxiliary.ChamferDistancePytorch.chamfer3D.dist_chamfer_3D as dist_chamfer_3D\n"
            "from auxiliary.ChamferDistancePytorch.fscore import fscore\n\n\n"
            "def build():\n    return dist_chamfer_3D.chamfer_3DDist()\n\n\n"
            "def score(d1, d2):\n    return fscore(d1, d2)\n")
    write_files(tmp_path, {".gitmodules": gitmodules, "auxiliary/__init__.py": "", "training/loss.py": loss})
    assert submodules.package_of_url("https://github.com/ThibaultGROUEIX/ChamferDistancePytorch") == "ChamferDistancePytorch"
    assert _npu508(tmp_path) == [("loss.py", 1), ("loss.py", 2), ("loss.py", 6)]
