"""A kernel registry that runs each kernel's factory only on the hardware the kernel is registered for: a factory
registered with a GPU requirement is the CUDA branch of a device selection (migrate/optional_modules.gated_factories,
label rulings (L56)/(L88); ByteDance-Seed/VeOmni's KERNEL_REGISTRY of KernelSpec(factory=..., hardware=
HardwareRequirement(device_type="gpu" | "npu" | "any"))). The fixture is a small registry written here."""

from __future__ import annotations

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

REGISTRY = """from dataclasses import dataclass


@dataclass(frozen=True)
class HardwareRequirement:
    device_type: str

    def is_satisfied(self):
        from .device import current_device_type

        return self.device_type in ("any", current_device_type())


@dataclass(frozen=True)
class KernelSpec:
    name: str
    factory: object
    hardware: HardwareRequirement


class KernelRegistry:
    def __init__(self):
        self.specs = {}

    def register(self, spec):
        self.specs[spec.name] = spec

    def resolve(self, name):
        spec = self.specs[name]
        if not spec.hardware.is_satisfied():
            raise RuntimeError(f"kernel {name} requires {spec.hardware.device_type}")
        return spec.factory()


KERNEL_REGISTRY = KernelRegistry()
"""

MOE = """from ..registry import KERNEL_REGISTRY, HardwareRequirement, KernelSpec


def _quack_factory():
    from .quack_gemm import quack_moe

    return quack_moe


def _liger_factory():  # a GPU-only package with no Ascend backend of its own (liger_kernel has one: migrate/npu_plugins.py)
    from flash_attn.ops.activations import swiglu

    return swiglu


def _npu_factory():
    from .npu_gemm import npu_moe

    return npu_moe


def _tile_factory():
    from .tile_gemm import tile_moe

    return tile_moe


KERNEL_REGISTRY.register(KernelSpec(name="quack", factory=_quack_factory,
                                    hardware=HardwareRequirement(device_type="gpu")))
KERNEL_REGISTRY.register(KernelSpec(name="npu", factory=_npu_factory, hardware=HardwareRequirement(device_type="npu")))
for name, factory in (("liger", _liger_factory), ("tile", _tile_factory)):
    KERNEL_REGISTRY.register(KernelSpec(name=name, factory=factory, hardware=HardwareRequirement(device_type="gpu")))
"""

QUACK = """import torch
from quack.gemm_interface import gemm


def quack_moe(x, w):
    return gemm(x, w)
"""

TILE = QUACK.replace("quack_moe", "tile_moe")

NPU = """import torch_npu


def npu_moe(x, w):
    return torch_npu.npu_grouped_matmul([x], [w])
"""


def _files(moe: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/registry.py": REGISTRY, "pkg/device.py": "def current_device_type():\n    return 'npu'\n",
            "pkg/moe/__init__.py": moe, "pkg/moe/quack_gemm.py": QUACK, "pkg/moe/tile_gemm.py": TILE,
            "pkg/moe/npu_gemm.py": NPU}


def test_a_kernel_reached_only_through_a_gpu_gated_factory_is_the_cuda_branch(tmp_path):
    write_files(tmp_path, _files(MOE))
    result = scan([str(tmp_path)], use_cache=False)
    for code in ("NPU501", "NPU507"):
        assert finding_lines(result, code, "quack_gemm.py") == []
        assert finding_lines(result, code, "tile_gemm.py") == []  # registered in a loop over its factories
        assert finding_lines(result, code, "moe/__init__.py") == []  # liger imported in its factory


def test_the_same_factory_without_a_gpu_requirement_or_called_directly_stays(tmp_path):
    # registered for any device (or with no requirement at all) the factory runs on the NPU too: still reported; so is
    # a module imported outside any factory
    moe = MOE.replace('device_type="gpu"', 'device_type="any"') + "\nfrom .tile_gemm import tile_moe as direct\n"
    write_files(tmp_path, _files(moe))
    result = scan([str(tmp_path)], use_cache=False)
    assert finding_lines(result, "NPU501", "quack_gemm.py") == [2]
    assert finding_lines(result, "NPU501", "tile_gemm.py") == [2]
    assert finding_lines(result, "NPU501", "moe/__init__.py") == [11]


def test_a_module_imported_only_in_the_else_of_an_npu_check_is_the_cuda_branch(tmp_path):
    # ByteDance-Seed/VeOmni's per-device generated models: `if IS_NPU_AVAILABLE: from .modeling_npu import ... /
    # else: from .modeling_gpu import ...` (label ruling (L20) applied to the module the CUDA branch imports); the same
    # module imported under a plain `if use_fast:` stays reported
    model = ("from .device import IS_NPU_AVAILABLE\n\n"
             "if IS_NPU_AVAILABLE:\n    from .modeling_npu import Model\nelse:\n    from .modeling_gpu import Model\n")
    # flash_attn: no Ascend backend of its own (liger_kernel's would drop it anyway in a repository importing torch_npu)
    gpu = "import torch\nfrom flash_attn.modules.mha import MHA\n\n\nclass Model(MHA):\n    pass\n"
    files = {"pkg/__init__.py": "", "pkg/device.py": "IS_NPU_AVAILABLE = False\n", "pkg/model.py": model,
             "pkg/modeling_npu.py": "import torch_npu\n\n\nclass Model:\n    pass\n", "pkg/modeling_gpu.py": gpu}
    write_files(tmp_path, files)
    assert finding_lines(scan([str(tmp_path)], use_cache=False), "NPU501", "modeling_gpu.py") == []
    write_files(tmp_path, {"pkg/model.py": model.replace("IS_NPU_AVAILABLE", "use_fast")})
    assert finding_lines(scan([str(tmp_path)], use_cache=False), "NPU501", "modeling_gpu.py") == [2]
