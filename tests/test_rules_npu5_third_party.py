"""Rules NPU5xx third-party and GPU-only dependencies: beyond their embedded examples (aliases, false-positive traps, exact
spans, idempotent fixes, data-driven decisions), through the real engine and knowledge data.

Static tests: torch is never imported here.
"""

from __future__ import annotations

import json

import pytest

from migrate import knowledge
from migrate.findings import Severity
from migrate.rules.npu503_gpu_only_option import gpu_only_options
from tests.rule_helpers import analyze
from tests.rule_helpers import of_code as codes


def _found(root, codes=("NPU501", "NPU502", "NPU507"), *, lines=True):
    """(path relative to `root`, code[, line]) of a whole-repository scan's findings of `codes`, sorted."""
    from migrate.engine import scan

    return sorted((f.path[len(str(root)) + 1:], f.code, f.line) if lines else (f.path[len(str(root)) + 1:], f.code)
                  for f in scan([str(root)], use_cache=False).findings if f.code in codes)


# ---- NPU501 / NPU502 --------------------------------------------------------------------------------
def test_every_third_party_entry_is_found_as_import_with_its_severity():
    table = knowledge.third_party()
    assert table
    for key, entry in table.items():
        found = codes(analyze(f"import {key}\n"), "NPU501")
        if entry.status == "works" or (entry.status == "partial" and entry.severity == "info"):
            # deepspeed.accelerator: the device-neutral API; numba: its CPU JIT keeps working
            assert found == [], key
            continue
        assert len(found) == 1, key
        assert found[0].severity is Severity.parse(entry.severity), key
        if entry.alternative:
            assert entry.alternative in found[0].message, key


def test_gpu_only_import_most_specific_entry_and_guard():
    table = knowledge.third_party()
    # (not an entry whose import is left to its use, `use_only`: a class importable on any host)
    specific = sorted(k for k in table if "." in k and k.split(".", 1)[0] in table and not table[k].use_only)
    assert specific, "the data has no sub-package entry to test with"
    key = specific[0]
    root, sub = key.rsplit(".", 1)
    found = codes(analyze(f"from {root} import {sub}\n"), "NPU501")
    assert len(found) == 1 and f"`{key}`" in found[0].message
    guarded = codes(analyze(f"try:\n    import {key}\nexcept ImportError:\n    pass\n"), "NPU501")
    assert len(guarded) == 1 and "guarded" in guarded[0].message
    expected = Severity.parse(table[key].severity)
    assert guarded[0].severity is (Severity.WARNING if expected is Severity.ERROR else expected)
    # a handler that only re-raises is no fallback: the severity stays
    reraised = codes(analyze(f"try:\n    import {key}\nexcept ImportError:\n    raise\n"), "NPU501")
    assert reraised[0].severity is expected and "guarded" not in reraised[0].message


def test_gpu_only_import_traps():
    code = '"""import apex"""\nimport apex_tools\nfrom .apex import amp\n# import flash_attn\nlog.info("import xformers")\n'
    assert codes(analyze(code), "NPU501") == []


def test_every_pip_name_is_found_in_requirements():
    from migrate.sources import normalise

    table = knowledge.third_party()
    from migrate.rules.npu502_gpu_only_dependency import _CUDA_BUILD_NAME

    # also a partial package whose own install selects its NPU build (knowledge `npu_install`: liger-kernel), and any
    # partial package at a plain requirement line (nerfacc: label ruling (L49), labels 59b / 70e)
    quiet = {p for e in table.values() if e.status == "partial" for p in e.pip_names}
    assert "nerfacc" in quiet
    assert "liger-kernel" in quiet
    assert "numba" in quiet  # numba's CPU JIT keeps working: depending on it is not a finding
    # a package whose pip install builds without nvcc (svox's optional CUDAExtension): its manifest line is no finding
    quiet |= {p for e in table.values() if e.installs_without_cuda for p in e.pip_names}
    # the CUDA wheels of such a package (spconv-cu118 beside spconv's CPU build) are reported as CUDA builds
    cuda_builds = sorted(p for p in quiet if (m := _CUDA_BUILD_NAME.search(normalise(p))) and m.start() > 0)
    assert "spconv-cu118" in cuda_builds
    built = codes(analyze("".join(f"{p}>=0.1\n" for p in cuda_builds), "requirements.txt", ("manifest",)), "NPU502")
    assert [(f.line, f.severity) for f in built] == [(n, Severity.WARNING) for n in range(1, len(cuda_builds) + 1)]
    quiet -= set(cuda_builds)
    pip_names = sorted({p for entry in table.values() for p in entry.pip_names if "*" not in p} - quiet - set(cuda_builds))
    text = "".join(f"{p}>=0.1\n" for p in sorted(quiet)) + "".join(f"{p}>=0.1\n" for p in pip_names)
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == list(range(len(quiet) + 1, len(quiet) + len(pip_names) + 1))
    for finding, pip in zip(found, pip_names):
        owners = [e for e in table.values() if pip in e.pip_names]
        assert finding.severity in {Severity.parse(e.severity) for e in owners}, pip
        assert normalise(pip) in finding.message


def test_quantization_configs_at_their_call_lines_and_their_multi_line_import_at_its_first_line():
    # label rule (L16), text-generation-webui models.py: `GPTQConfig(` / `BitsAndBytesConfig(` at each call line, and
    # their import, a multi-line `from transformers import (`, at the statement's first line (as every import)
    code = ("from transformers import (\n    AutoModel,\n    BitsAndBytesConfig,\n    GPTQConfig,\n)\n"
            "q = BitsAndBytesConfig(load_in_4bit=True)\ng = GPTQConfig(bits=4, disable_exllama=True)\n")
    found = codes(analyze(code), "NPU503")
    assert [f.line for f in found] == [1, 6, 7]
    assert "`BitsAndBytesConfig`, `GPTQConfig`" in found[0].message


def test_quantized_llm_loaders_are_known_by_import_and_by_wheel():
    # set 19 (text-generation-webui): loaders of 4-bit LLMs whose kernels are CUDA builds, imported by their import names
    # and installed from wheels on release pages (`+cu121`, an environment marker after the URL) or with a GPU extra
    # (AutoAWQ's module `awq` is shared with mit-han-lab/llm-awq's own package: only AutoAWQ's loader class is catalogued)
    code = ("import alpaca_lora_4bit.autograd_4bit as autograd_4bit\nfrom gptq_for_llama.quant import make_quant\n"
            "from awq import AutoAWQForCausalLM\nfrom awq.quantize.pre_quant import run_awq\nimport awq\n"
            # AutoAWQ's own layer module (llm-awq has no awq/modules/linear): AutoGPTQ tests/bench_autoawq_autogptq.py
            # (set 57), an import whose handler re-raises
            "try:\n    from awq.modules.linear import WQLinear_GEMM\nexcept ModuleNotFoundError as e:\n"
            "    raise ModuleNotFoundError(f'AutoAWQ is required: {e}')\nlayer = WQLinear_GEMM(4, 128, 64, 64, False, 'cuda')\n")
    assert [f.line for f in codes(analyze(code), "NPU501")] == [1, 2, 3, 7]
    assert [f.line for f in codes(analyze(code), "NPU507")] == [10]
    wheels = "https://github.com/o/r/releases/download/t/"
    text = ('aqlm[gpu,cpu]==1.1.3; platform_system == "Linux"\nautoawq==0.2.3; platform_system == "Linux"\n'
            f'{wheels}gptq_for_llama-0.1.1+cu121-cp311-cp311-linux_x86_64.whl; platform_system == "Linux"\n'
            f'{wheels}llama_cpp_python_cuda_tensorcores-0.2.61+cu121-cp311-cp311-win_amd64.whl; platform_system == "Windows"\n'
            "aqlm[cpu]==1.1.3\n")
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == [1, 2, 3, 4]
    assert "installs `triton`" in found[0].message
    assert all("targets NVIDIA GPUs" in f.message for f in found[1:]), [f.message for f in found]


@pytest.mark.parametrize(
    "filename,text,line",
    [
        ("requirements-dev.txt", "# flash-attn\nnumpy\nflash_attn==2.5.8  # fused attention\n", 3),
        ("pyproject.toml", '[project]\nname = "x"\ndependencies = [\n  "torch",\n  "xformers>=0.0.22",\n]\n', 5),
        # an extra named like the requirement it lists: the quoted requirement is the line, not the extra's key (label
        # 63b, DeepLink-org/LightRFT pyproject.toml `flash-attn = [` / `"flash-attn",`); a poetry key stays the line
        ("pyproject.toml", '[project]\nname = "x"\n[project.optional-dependencies]\nflash-attn = [\n    "flash-attn",\n]\n', 5),
        ("pyproject.toml", '[tool.poetry]\nname = "x"\n[tool.poetry.dependencies]\npython = "^3.10"\nxformers = "^0.0.22"\n', 5),
        ("setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    torch\n    bitsandbytes\n", 6),
        ("environment.yml", "name: e\ndependencies:\n  - python=3.10\n  - pip:\n    - cupy-cuda12x==13.0\n", 5),
        ("setup.py", "from setuptools import setup\nsetup(name='x',\n      install_requires=['torch', 'triton'])\n", 3),
    ],
)
def test_manifest_formats_through_engine(filename, text, line):
    kinds = ("python", "manifest") if filename == "setup.py" else ("manifest",)
    found = codes(analyze(text, filename, kinds), "NPU502")
    assert [f.line for f in found] == [line]


def test_setup_py_dependency_table_entries_named_by_key():
    # a dependency table (`_deps`) whose entries the extras and install_requires name by key: the GPU-only entry
    # is reported at its spec and at the key that reaches setup(); a table entry no key names (flash-attn) is not
    text = (
        "import re\nfrom setuptools import setup\n\n"
        "_deps = [\n"
        '    "accelerate>=0.31.0",\n'
        '    "bitsandbytes>=0.43.3",\n'
        '    "flash-attn>=2.6.0",\n'
        '    "numpy",\n'
        "]\n"
        "deps = {b: a for a, b in (re.findall(r\"^(([^!=<>~ ]+)(?:[!=<>~ ].*)?$)\", x)[0] for x in _deps)}\n\n\n"
        "def deps_list(*pkgs):\n    return [deps[pkg] for pkg in pkgs]\n\n\n"
        "extras = {}\n"
        'extras["quant"] = deps_list("bitsandbytes", "accelerate")\n'
        'extras["dev"] = extras["quant"] + deps_list("numpy")\n'
        'install_requires = [deps["numpy"], deps["accelerate"]]\n'
        "setup(name='x', install_requires=install_requires, extras_require=extras)\n"
    )
    found = codes(analyze(text, "setup.py", ("python", "manifest")), "NPU502")
    assert [f.line for f in found] == [6, 18]
    assert all("`bitsandbytes`" in f.message for f in found)


def test_cupy_wheels_per_cuda_version_are_gpu_only():
    # CuPy's wheels before v11 are named by the CUDA version they were built for (cupy-cuda101, cupy-cuda110):
    # a pip-freeze requirements pins them like any distribution; the ROCm wheels are another name
    text = "numpy==1.19.2\ncupy-cuda101==7.4.0\ncupy_cuda110>=8\ncupy-rocm-5-0==12.0\ncupy-cuda12x\n"
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == [2, 3, 5]
    assert all(f.severity is Severity.ERROR for f in found)
    assert "`cupy-cuda101`" in found[0].message


def test_cuda_builds_in_manifest():
    text = (
        "--extra-index-url https://download.pytorch.org/whl/cu121\n"
        "torch==2.1.0+cu121\n"
        "torchvision==0.16.0\n"
        "# --index-url https://download.pytorch.org/whl/cu118\n"
        "nvidia-nccl-cu12==2.18.1\n"
    )
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == [1, 2, 5]
    assert all(f.severity is Severity.WARNING for f in found)


def test_locally_built_point_cloud_op_libraries_in_a_pip_freeze():
    # SphereFormer's requirements.txt, a pip freeze listing the CUDA-only op libraries installed from their folders
    # (Stratified Transformer's pointops2, SparseTransformer's sptr; both 0.0.0: `python3 setup.py install`)
    text = "plyfile==0.7.4\npointops2==0.0.0\nportalocker==2.4.0\nsptr==0.0.0\n"
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == [2, 4]


def test_point_cloud_op_packages_imported_with_a_handler_that_gives_no_way_without_them():
    # TorchEx (FSD / SST): `except ImportError: name = None` and the name called with no test of it; its CUDA extensions
    # imported by their bare names. Pointcept's pointops behind a handler that only prints (GaussianFormer's lifter):
    # the call meets a NameError. Each import and each call is a line to change (label rulings (L42), (L110))
    text = (
        "try:\n"
        "    from torchex import incremental_points_mask\n"
        "except ImportError:\n"
        "    incremental_points_mask = None\n"
        "try:\n"
        "    from pointops import farthest_point_sampling\n"
        "except:\n"
        "    print('farthest_point_sampling import error.')\n"
        "import dynamic_point_pool_ext\n"
        "import ingroup_indices\n"
        "def f(a, b, size, xyz, offset):\n"
        "    mask = incremental_points_mask(a, b, size)\n"
        "    dynamic_point_pool_ext.forward(a, b)\n"
        "    ingroup_indices.forward(a, b)\n"
        "    return farthest_point_sampling(xyz, offset, offset), mask\n"
    )
    found = analyze(text)
    assert sorted((f.code, f.line) for f in found if f.code in ("NPU501", "NPU507")) == [
        ("NPU501", 2), ("NPU501", 6), ("NPU501", 9), ("NPU501", 10),
        ("NPU507", 12), ("NPU507", 13), ("NPU507", 14), ("NPU507", 15)]
    # a stand-in tested before its use stays optional (label ruling (L60): SST's connected components)
    checked = text.replace("    mask = incremental_points_mask", "    assert incremental_points_mask is not None\n    mask = incremental_points_mask")
    assert ("NPU501", 2) not in [(f.code, f.line) for f in analyze(checked)]


# ---- NPU503 -----------------------------------------------------------------------------------------
def test_every_gpu_only_option_value_is_found():
    options, calls = gpu_only_options()
    assert options and calls
    for option in options:
        assert option.source and option.why
        # an option limited to some packages' files (a generic key such as Lightning's `accelerator`)
        prefix = f"import {option.modules[0]}\n" if option.modules else ""
        for value in option.values:
            literal = repr(value)
            assert codes(analyze(f"{prefix}f(x, {option.key}={literal})"), "NPU503"), (option.key, value)
            assert codes(analyze(f"{prefix}cfg = {{{option.key!r}: {literal}}}"), "NPU503"), (option.key, value)
            if option.modules:
                assert not codes(analyze(f"f(x, {option.key}={literal})"), "NPU503"), (option.key, value)
                continue
            yaml_value = "true" if value is True else value
            if isinstance(value, str) and "|" in value:  # `paged|flash_attention_2`: quoted, as an unquoted `|` reads
                yaml_value = f'"{value}"'                # as a shell pipe in the launcher reader (a known limit)
            assert codes(analyze(f"{option.key}: {yaml_value}\n", "train.yaml", ("launcher",)), "NPU503"), (option.key, value)
    for call in calls:
        for module in call.modules:
            assert codes(analyze(f"import {module} as lib\nq = lib.{call.name}()"), "NPU503"), module


def test_gpu_only_option_traps():
    code = (
        'args = TrainingArguments(optim="adamw_torch", load_in_4bit=False)\n'
        'help_text = "use optim=paged_adamw_32bit on GPUs"\n'
        'logger.info("attn_implementation=flash_attention_2 is faster")\n'
    )
    assert codes(analyze(code), "NPU503") == []
    script = "# python train.py --optim paged_adamw_32bit\necho '--optim paged_adamw_32bit'\n"
    assert codes(analyze(script, "run.sh", ("launcher",)), "NPU503") == []


# ---- NPU504 -----------------------------------------------------------------------------------------
def test_nvidia_smi_in_launcher_with_traps():
    script = (
        "#!/bin/bash\n"
        "# nvidia-smi is not available on Ascend\n"
        'echo "checking with nvidia-smi"\n'
        "printf 'see nvidia-smi\\n'\n"
        "nvidia-smi --query-gpu=memory.used --format=csv  # memory\n"
        "NGPU=$(nvidia-smi -L | wc -l)\n"
        "cat nvidia-smi.log\n"
    )
    found = codes(analyze(script, "run.sh", ("launcher",)), "NPU504")
    assert [f.line for f in found] == [5, 6]
    assert "npu-smi info" in found[0].message


def test_nvidia_smi_run_through_a_name_helper_is_reported_at_each_run():
    # accelerate utils/environment.py (set 25a-7): the helper only returns the command's name; the runs are the uses
    script = (
        "import os, platform, subprocess\n"
        "from shutil import which\n"
        "def _smi():\n"
        "    if platform.system() == 'Windows':\n"
        "        command = which('nvidia-smi')\n"
        "    else:\n"
        "        command = 'nvidia-smi'\n"
        "    return command\n"
        "def gpu_names():\n"
        "    out = subprocess.check_output(\n"
        "        [_smi(), '--query-gpu=name', '--format=csv,noheader'], universal_newlines=True\n"
        "    )\n"
        "    return out.split(os.linesep)\n"
    )
    assert [f.line for f in codes(analyze(script), "NPU504")] == [10]
    # a helper nobody runs keeps its strings reported
    unused = "from shutil import which\ndef _smi():\n    command = 'nvidia-smi'\n    return command\n"
    assert [f.line for f in codes(analyze(unused), "NPU504")] == [3]


def test_nvidia_smi_in_notebook_shell_lines():
    nb = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "markdown", "source": "run nvidia-smi first"},
            {"cell_type": "code", "source": ["import os\n", "!nvidia-smi\n"]},
        ],
    }
    found = codes(analyze(json.dumps(nb), "nb.ipynb", ("notebook",)), "NPU504")
    assert len(found) == 1 and found[0].cell == 1 and found[0].line == 2


def test_notebook_cell_magics_are_read_as_the_kind_of_text_they_hold():
    # facebookresearch/maskrcnn-benchmark demo notebooks: `%%writefile setup.sh` (a shell script the next cell runs) and
    # `%%writefile base_config.yaml` cells were parsed as Python (NPU901, the notebook "not judged"); a written .py
    # module is Python, and `%%capture` keeps its Python body
    nb = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "code", "source": "%%writefile setup.sh\n\nnvidia-smi\npip install ninja yacs\n"},
            {"cell_type": "code", "source": "%%writefile base_config.yaml\nMODEL:\n  DEVICE: 'cuda'\n"},
            {"cell_type": "code", "source": "%%writefile pkg/x.py\nimport os\nos.system('nvidia-smi')\n"},
            {"cell_type": "code", "source": "%%capture\nimport subprocess\nsubprocess.run(['nvidia-smi'])\n"},
            # titu1994/warprnnt_numba notebooks: a user's cell magic (`register_cell_magic`) exec'ing its Python body;
            # one whose body is no Python (nvcc4jupyter's `%%cuda`), and IPython's `%%html`, are not read
            {"cell_type": "code", "source": "%%exec_write_cell script.py\n\nr = subprocess.run(['nvidia-smi'])\n"},
            {"cell_type": "code", "source": "%%cuda\n#include <cstdio>\nint main() { system(\"nvidia-smi\"); }\n"},
            {"cell_type": "code", "source": "%%html\nos.system('nvidia-smi')\n"},
        ],
    }
    found = analyze(json.dumps(nb), "nb.ipynb", ("notebook",))
    assert not [f for f in found if f.code.startswith("NPU9")]
    assert [(f.cell, f.line) for f in codes(found, "NPU504")] == [(0, 3), (2, 3), (3, 3), (4, 3)]


def test_notebook_shell_and_magic_lines_continue_past_a_backslash():
    # OpenGVLab/OmniQuant runing_*.ipynb (set 21b): `!CUDA_VISIBLE_DEVICES=0 python main.py \` continued by `--model ...`
    # lines (IPython joins them into one command) failed to parse as Python (NPU901); they are the shell command's lines
    nb = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "code", "source": "!CUDA_VISIBLE_DEVICES=0 python main.py \\\n--epochs 0 --output_dir ./log \\\n"
                                            "--wbits 3 --lwc\nimport os\nos.system('nvidia-smi')\n"},
            {"cell_type": "code", "source": "%env A=1 \\\n  B=2\n!pip install ninja \\\n  nvidia-smi\nx = 1 + \\\n  2\n"},
        ],
    }
    found = analyze(json.dumps(nb), "nb.ipynb", ("notebook",))
    assert not [f for f in found if f.code.startswith("NPU9")]
    assert [(f.cell, f.line) for f in codes(found, "NPU504")] == [(0, 5), (1, 4)]


def test_notebook_pip_and_conda_line_magics_are_shell_commands():
    # IPython's `%pip LINE` runs `python -m pip LINE` through the shell (IPython/core/magics/packaging.py): a detector's
    # tutorial installing the inference runtime's wheel when `%pip list` does not show it (set 43b); `%env` is no command
    nb = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "code", "source": "%ls /usr/local | grep cuda\n"
                                            "%pip list | grep tensorrt || pip install /content/TensorRT-8.2.0.6/python/"
                                            "tensorrt-8.2.0.6-cp37-none-linux_x86_64.whl  # install\n"
                                            "%env LD_LIBRARY_PATH=/content/TensorRT-8.2.0.6/lib\n%pip install flash-attn\n"
                                            "%pip install numpy\nimport torch\n"},
        ],
    }
    found = analyze(json.dumps(nb), "nb.ipynb", ("notebook",))
    assert not [f for f in found if f.code.startswith("NPU9")]
    assert [(f.cell, f.line) for f in codes(found, "NPU502")] == [(0, 2), (0, 4)]


def test_nvidia_smi_python_forms():
    code = (
        "import os, subprocess\n"
        'os.system("nvidia-smi")\n'
        "subprocess.check_output(['nvidia-smi', '-L'])\n"
        'print("nvidia-smi failed")\n'
        '"""nvidia-smi"""\n'
    )
    assert [f.line for f in codes(analyze(code), "NPU504")] == [2, 3]


# ---- NPU505 / NPU506 --------------------------------------------------------------------------------
def test_cuda_extension_and_cuda_source():
    code = (
        "from torch.utils import cpp_extension as ce\n"
        "a = ce.load_inline('m', cpp_sources=src)\n"  # C++ only: fine
        "b = ce.load_inline('m', src, cuda_src)\n"  # CUDA sources positionally
    )
    assert [f.line for f in codes(analyze(code), "NPU505")] == [3]
    src = "// __global__ in a comment counts too\n__global__ void k1() {}\n__global__ void k2() {}\n"
    found = codes(analyze(src, "ops/kernel.cu", ("cuda-source",)), "NPU506")
    assert len(found) == 1 and found[0].line == 1 and "3 `__global__` kernels" in found[0].message



def test_a_gate_whose_test_opens_a_parenthesis_is_reported_where_it_asks_about_cuda():
    # cvpods setup.py: `if (` alone on its line, the availability question on the next (label: one gate, at :5 here)
    gate = ("import os\nimport torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
            "extension, macros = CppExtension, []\nif (\n"
            "    torch.cuda.is_available() and CUDA_HOME is not None and os.path.isdir(CUDA_HOME)\n"
            ") or os.getenv('FORCE_CUDA', '0') == '1':\n"
            "    extension = CUDAExtension\n    macros += [('WITH_CUDA', None)]\n"
            "ext = [extension('pkg._C', ['a.cpp'], define_macros=macros)]\n")
    assert [f.line for f in codes(analyze(gate, "setup.py", ("python", "manifest")), "NPU505")] == [6, 8, 9]
    # the question on the `if` line itself: reported there
    one_line = gate.replace("if (\n    torch", "if (torch")
    assert [f.line for f in codes(analyze(one_line, "setup.py", ("python", "manifest")), "NPU505")] == [5, 7, 8]


@pytest.mark.parametrize("name", ["requirement.txt", "vim_requirements.txt", "requirements-gpu.txt", "dev-requirement.txt"])
def test_requirement_files_are_read_as_manifests_whatever_their_spelling(tmp_path, name):
    # microsoft/LoRA examples/NLG/requirement.txt pins `torch==1.7.1+cu101`; hustvl/Vim has vim_requirements.txt
    from migrate.engine import scan

    (tmp_path / name).write_text("--find-links https://download.pytorch.org/whl/torch_stable.html\ntorch==1.7.1+cu101\ntriton==2.1.0\n")
    found = [(f.code, f.line) for f in scan([str(tmp_path)], use_cache=False).findings]
    assert found == [("NPU502", 2), ("NPU502", 3)]


def test_a_manifest_of_many_requirements_is_split_into_lines_once(monkeypatch):
    """A requirements file of 400 GPU-only pins gives one finding per line, and its text is split into lines once,
    not once per requirement (that made a large manifest quadratic: a hostile setup.py of 2,000 terms took seconds)."""
    import migrate.sources as sources

    calls = []
    real = sources.split_lines
    monkeypatch.setattr(sources, "split_lines", lambda text: calls.append(1) or real(text))
    text = "".join("apex\n" if n % 2 else f"flash-attn=={n}.0\n" for n in range(400))
    found = codes(analyze(text, "requirements.txt", kinds=("manifest",)), "NPU502")
    assert [f.line for f in found] == list(range(1, 401))
    assert len(calls) <= 2, len(calls)



def test_a_conda_package_is_reported_at_its_line_not_at_a_commented_out_one_above_it():
    """pointMLP-pytorch's environment.yml keeps the old pin as a comment above the one it installs."""
    env = "name: pm\nchannels:\n  - pytorch\ndependencies:\n  # - cudatoolkit=10.2.89\n  - cudatoolkit=11.1\n  - numpy=1.20.2\n"
    found = [f for f in analyze(env, "environment.yml", kinds=("manifest",)) if f.code == "NPU502"]
    assert [(f.line, f.column) for f in found] == [(6, 5)]


def test_the_cuda_build_of_tensorflow_is_reported_where_a_manifest_names_it():
    # a diffusion repository's evaluations/requirements.txt pins `tensorflow-gpu>=2.0`; the plain tensorflow
    # distribution and its import are not GPU-only
    found = codes(analyze("tensorflow-gpu>=2.0\ntensorflow>=2.0\n", "requirements.txt", ("manifest",)), "NPU502")
    assert [(f.line, f.severity) for f in found] == [(1, Severity.WARNING)]
    assert codes(analyze("import tensorflow as tf\n"), "NPU501") == []


def test_a_cuda_manifest_paired_with_its_npu_manifest_is_the_cuda_side_of_a_dispatch(tmp_path):
    # Helios: requirements.txt (triton, nvitop) beside requirements_npu.txt (torch_npu): an Ascend host installs the
    # NPU manifest ((L8)); a manifest no NPU manifest pairs (eval/requirements.txt) is still read
    from migrate.engine import scan

    (tmp_path / "requirements.txt").write_text("torch\ntriton==3.6.0\nnvitop\n")
    (tmp_path / "requirements_npu.txt").write_text("torch_npu==2.9.0\n")
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "requirements.txt").write_text("triton\n")
    # volcengine/verl: requirements-cuda.txt (flash-attn) beside requirements-npu.txt; a CUDA manifest of a folder
    # with no NPU twin is still read
    (tmp_path / "requirements-cuda.txt").write_text("flash-attn\n")
    (tmp_path / "requirements-npu.txt").write_text("torch_npu\n")
    (tmp_path / "eval" / "requirements_gpu.txt").write_text("flash-attn\n")
    found = sorted((f.path[len(str(tmp_path)) + 1:], f.code, f.line)
                   for f in scan([str(tmp_path)], use_cache=False).findings if f.code == "NPU502")
    assert found == [("eval/requirements.txt", "NPU502", 1), ("eval/requirements_gpu.txt", "NPU502", 1)]


def test_a_pyproject_extra_exclusive_with_an_npu_extra_is_the_cuda_side_of_a_dispatch(tmp_path):
    # label ruling (L8), labeller note 59a (ByteDance-Seed/VeOmni pyproject.toml): `[tool.uv] conflicts` declares the
    # `gpu` extra exclusive with `npu` / `npu_aarch64`; an Ascend host installs `--extra npu`, so the `gpu` list and the
    # uv overrides / sources tied to it alone are the CUDA side. Lines naming an NPU extra too, and the base
    # dependencies, stay; without the conflict group the same `gpu` extra is reported
    from migrate.engine import scan

    text = (
        "[project]\nname = 'p'\nversion = '1'\ndependencies = ['flash-attn']\n"
        "[project.optional-dependencies]\n"
        "gpu = [\n  'torch==2.11.0+cu130',\n  # FA2\n  'flash-attn; platform_machine == \"x86_64\"',\n]\n"
        "npu = ['torch==2.10.0+cpu', 'torch-npu==2.10.0']\n"
        "[tool.uv]\noverride-dependencies = [\n  \"torch==2.11.0+cu130; (extra == 'gpu')\",\n"
        "  \"torch==2.10.0+cpu; (extra == 'npu')\",\n]\n"
        "conflicts = [[{ extra = 'gpu' }, { extra = 'npu' }, { extra = 'npu_aarch64' }]]\n"
        "[tool.uv.sources]\ntorch = [\n"
        "  { url = 'https://download.pytorch.org/whl/cu130/torch-2.11.0%2Bcu130-cp311-cp311-manylinux_2_28_x86_64.whl',"
        " extra = 'gpu' },\n]\n"
        "xtorch = [\n  { url = 'https://download.pytorch.org/whl/cu130/xtorch-1.0-py3-none-any.whl',"
        " marker = \"extra == 'gpu' or extra == 'npu'\" },\n]\n")
    (tmp_path / "pyproject.toml").write_text(text)

    def lines():
        return sorted(f.line for f in scan([str(tmp_path)], use_cache=False).findings if f.code == "NPU502")

    assert lines() == [4, 23]
    (tmp_path / "pyproject.toml").write_text(text.replace("conflicts = [[{ extra = 'gpu' }, { extra = 'npu' }, "
                                                          "{ extra = 'npu_aarch64' }]]", "conflicts = [[{ extra = 'gpu' },"
                                                          " { extra = 'cpu' }]]"))
    assert lines() == [4, 7, 9, 20, 23]


def test_a_cuda_dockerfile_beside_an_npu_dockerfile_is_the_cuda_side_of_a_dispatch(tmp_path):
    # one image per accelerator: docker/Dockerfile and docker/Dockerfile_cu124 beside docker/platforms/Dockerfile_ascend
    # (and a CUDA image in a sibling of an ascend/ folder): an Ascend host builds the Ascend image ((L8), note 38d-3);
    # a Dockerfile far from any NPU image (examples/demo/Dockerfile) is still read, and so is the NPU image itself
    from migrate.engine import scan

    (tmp_path / "docker" / "platforms").mkdir(parents=True)
    (tmp_path / "docker" / "Dockerfile").write_text("FROM pytorch/pytorch\nRUN pip install flash-attn\n")
    (tmp_path / "docker" / "Dockerfile_cu124").write_text("FROM pytorch/pytorch\nRUN pip install sageattention\n")
    (tmp_path / "docker" / "platforms" / "Dockerfile_ascend_910b").write_text(
        "FROM ascend/cann\nRUN pip install torch_npu flash-attn\n")
    (tmp_path / "docker" / "platforms" / "Dockerfile_rocm").write_text("FROM rocm/pytorch\nRUN pip install xformers\n")
    (tmp_path / "images" / "ascend").mkdir(parents=True)
    (tmp_path / "images" / "cuda").mkdir(parents=True)
    (tmp_path / "images" / "ascend" / "Dockerfile").write_text("FROM ascend/cann\nRUN pip install torch_npu\n")
    (tmp_path / "images" / "cuda" / "Dockerfile").write_text("FROM nvidia/cuda\nRUN pip install flash-attn\n")
    (tmp_path / "examples" / "demo").mkdir(parents=True)
    (tmp_path / "examples" / "demo" / "Dockerfile").write_text("FROM nvidia/cuda\nRUN pip install flash-attn\n")
    found = sorted((f.path[len(str(tmp_path)) + 1:], f.code, f.line)
                   for f in scan([str(tmp_path)], use_cache=False).findings if f.code == "NPU502")
    assert found == [("docker/platforms/Dockerfile_ascend_910b", "NPU502", 2),
                     ("examples/demo/Dockerfile", "NPU502", 2)]


def test_a_dockerfile_named_for_another_accelerator_is_not_the_cuda_image(tmp_path):
    # THUDM/slime docker/: Dockerfile (CUDA) beside Dockerfile.rocm, Dockerfile.rocm_MI350-5 and
    # Dockerfile_20250810_9a48ba0.rocm, whose `.rocm` is the variant, not a file type: the AMD images are no CUDA build
    # to port (label rule (L15), as requirements_amd.txt), not even their `python -c "import sgl_kernel"` check; a name
    # part that only contains an accelerator's letters (`Dockerfile.amd64`, an x86 image) is still read
    from migrate.engine import scan
    from migrate.sources import other_accelerator_dockerfile

    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "Dockerfile").write_text("FROM nvidia/cuda\nRUN pip install apex\n")
    (tmp_path / "docker" / "Dockerfile.amd64").write_text("FROM nvidia/cuda\nRUN pip install apex\n")
    for name in ("Dockerfile.rocm", "Dockerfile.rocm_MI350-5", "Dockerfile_20250810_9a48ba0.rocm", "rocm.Dockerfile"):
        (tmp_path / "docker" / name).write_text(
            "FROM rocm/pytorch\nRUN pip install apex triton\nRUN python -c \"import sgl_kernel\"\n")
    found = sorted((f.path[len(str(tmp_path)) + 1:], f.code, f.line)
                   for f in scan([str(tmp_path)], use_cache=False).findings if f.code in ("NPU501", "NPU502"))
    assert found == [("docker/Dockerfile", "NPU502", 2), ("docker/Dockerfile.amd64", "NPU502", 2)]
    assert not other_accelerator_dockerfile("requirements_rocm.txt")  # a manifest: NPU502's own name check


def test_a_package_run_through_the_ascend_plugin_the_repository_names_is_npu_aware(tmp_path):
    # label ruling (L38): a repository that imports vllm_ascend (its NPU branch) has taken vLLM to the NPU through the
    # plugin: vLLM's imports and uses elsewhere are not work items; its PyPI requirement still is (NPU502). A repository
    # requiring triton-ascend (the NPU build of the `triton` module) runs its Triton kernels through it (27b-7)

    (tmp_path / "comm.py").write_text(
        "from utils import is_npu_available\nif is_npu_available:\n"
        "    from vllm_ascend.distributed.device_communicators.pyhccl import PyHcclCommunicator as Comm\n"
        "else:\n    from vllm.distributed.device_communicators.pynccl import PyNcclCommunicator as Comm\n")
    (tmp_path / "rollout.py").write_text(
        "from vllm.model_executor.layers.linear import LinearBase\nfrom vllm import LLM\n"
        "def patch(m):\n    LinearBase.forward = m\n    return LLM(model='m')\n")
    (tmp_path / "kernels.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pass\n"
        "def run(x):\n    k[(1,)](x, 4)\n")
    (tmp_path / "requirements-rollout.txt").write_text("vllm==0.11.0\n")
    (tmp_path / "requirements-npu.txt").write_text("torch_npu\ntriton-ascend==3.2.0rc4\n")

    assert _found(tmp_path) == [("requirements-rollout.txt", "NPU502", 1)]
    # without the plugin's import and the NPU build's requirement, the same code is reported
    (tmp_path / "comm.py").write_text("from vllm.distributed.device_communicators.pynccl import PyNcclCommunicator\n")
    (tmp_path / "requirements-npu.txt").write_text("torch_npu\n")
    codes_by_file = {(path, code) for path, code, _ in _found(tmp_path)}
    assert {("comm.py", "NPU501"), ("rollout.py", "NPU501"), ("rollout.py", "NPU507"), ("kernels.py", "NPU501"),
            ("kernels.py", "NPU507"), ("requirements-rollout.txt", "NPU502")} <= codes_by_file


def test_a_package_picking_its_ascend_backend_by_device_is_npu_aware_where_the_repository_runs_on_the_npu(tmp_path):
    # label ruling (L99), note 58a (modelscope/twinkle): Liger-Kernel and flash-linear-attention pick their Ascend kernels
    # by the device (knowledge `npu_backend`); a repository importing torch_npu runs them on the NPU on purpose. Their
    # sub-modules with no Ascend side (liger_kernel.ops.cutile) stay reported; fla's plain requirement installs no CUDA
    # build (its torch/triton come from a backend extra)

    (tmp_path / "kernels.py").write_text(
        "from liger_kernel.transformers import LigerRMSNorm\nfrom fla.modules.convolution import ShortConvolution\n"
        "from liger_kernel.ops.cutile import rms_norm\n")
    (tmp_path / "platform.py").write_text("def npu():\n    import torch_npu\n    return torch_npu\n")
    (tmp_path / "requirements.txt").write_text("flash-linear-attention\nliger-kernel>=0.5\n")

    assert _found(tmp_path) == [("kernels.py", "NPU501", 3)]
    # a repository that never runs on the NPU: the imports are the parts to check (L11)
    (tmp_path / "platform.py").write_text("import torch\n")
    assert _found(tmp_path) == [("kernels.py", "NPU501", 1), ("kernels.py", "NPU501", 2), ("kernels.py", "NPU501", 3)]


def test_a_package_whose_device_value_the_repository_selects_takes_its_npu_route(tmp_path):
    # label ruling (L99), note 67a (DeepLink-org/DLBlas): LMDeploy's PyTorch engine serves Ascend through dlinfer under
    # PytorchEngineConfig(device_type="ascend") (knowledge `npu_device_keyword`); a repository passing that keyword a
    # computed device while running on the NPU, or the NPU value itself, takes that route: lmdeploy's imports and uses
    # are not reported, in every file. TurboMind and the CUDA kernel set imported by its path stay (`device_cuda_only`)
    from migrate.npu_plugins import device_selected

    assert device_selected("from lmdeploy import PytorchEngineConfig\n"
                           "c = PytorchEngineConfig(tp=1, device_type=dev)\n") == (("lmdeploy", 2, "var"),)
    assert device_selected("import lmdeploy\nc = lmdeploy.PytorchEngineConfig(device_type='ascend')\n") \
        == (("lmdeploy", 2, "npu"),)
    assert device_selected("c = PytorchEngineConfig(device_type='cuda')\n") == ()
    (tmp_path / "run.py").write_text(
        "from lmdeploy import PytorchEngineConfig, pipeline\nfrom lmdeploy.messages import TurbomindEngineConfig\n"
        "def run(path, device_type):\n    return pipeline(path, backend_config=PytorchEngineConfig(device_type=device_type))\n"
        "def tm(path):\n    from lmdeploy.turbomind import TurboMind\n    cfg = TurbomindEngineConfig(tp=1)\n"
        "    return TurboMind.from_pretrained(path, engine_config=cfg)\n")
    (tmp_path / "patch.py").write_text("import lmdeploy.pytorch.kernels.cuda as k\nfrom lmdeploy.messages import GenerationConfig\n")
    (tmp_path / "platform.py").write_text("import torch_npu\n")

    kept = [("patch.py", "NPU501", 1), ("run.py", "NPU501", 6), ("run.py", "NPU507", 7), ("run.py", "NPU507", 8)]
    assert _found(tmp_path, ("NPU501", "NPU507")) == kept
    # a computed device in a repository that never runs on the NPU selects nothing: every lmdeploy line is reported
    (tmp_path / "platform.py").write_text("import torch\n")
    assert len(_found(tmp_path, ("NPU501", "NPU507"))) > len(kept)
    # the NPU value itself selects the route without torch_npu; 'cuda' does not
    (tmp_path / "serve.py").write_text("from lmdeploy import PytorchEngineConfig\nc = PytorchEngineConfig(device_type='ascend')\n")
    assert _found(tmp_path, ("NPU501", "NPU507")) == kept
    (tmp_path / "serve.py").write_text("from lmdeploy import PytorchEngineConfig\nc = PytorchEngineConfig(device_type='cuda')\n")
    assert ("serve.py", "NPU501", 1) in _found(tmp_path, ("NPU501", "NPU507"))


def test_megatrons_te_wrappers_run_through_mindspeed_where_the_repository_imports_it(tmp_path):
    # label note 58a (modelscope/twinkle), ruling (L38): MindSpeed, Ascend's Megatron adaptor, replaces the TE* classes
    # of megatron.core.extensions.transformer_engine with NPU ones (knowledge npu_plugin "mindspeed")

    (tmp_path / "lora.py").write_text(
        "def targets(model):\n    from megatron.core.extensions.transformer_engine import TELinear, TEGroupedLinear\n"
        "    return [n for n, m in model.named_modules() if isinstance(m, (TELinear, TEGroupedLinear))]\n")
    (tmp_path / "runtime.py").write_text("def init():\n    import mindspeed.megatron_adaptor  # noqa: F401\n")

    assert _found(tmp_path, ("NPU501", "NPU507")) == []
    (tmp_path / "runtime.py").write_text("def init():\n    pass\n")
    assert _found(tmp_path, ("NPU501", "NPU507")) == [("lora.py", "NPU501", 2)]


def test_a_dockerfile_built_on_the_plugins_image_names_the_plugin(tmp_path):
    # label note 47e-4 (ruling (L38)): an NPU Dockerfile `FROM .../ascend/vllm-ascend:<tag>` runs vLLM through the plugin
    # its base image installs: vLLM's imports and uses are NPU-aware; the requirement line stays NPU502
    from migrate.base_images import images

    assert images("ARG V=1\nFROM --platform=linux/arm64 reg.example.io:5000/ascend/vllm-ascend:v0.11.0@sha256:ab AS npu\n"
                  "FROM ${BASE}\nRUN pip install 'app[core]'\n") == [("vllm-ascend", 2)]
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "npu.Dockerfile").write_text("FROM quay.example.io/ascend/vllm-ascend:v0.11.0\nRUN pip install app\n")
    (tmp_path / "serve.py").write_text("def run(path):\n    from vllm import LLM\n    return LLM(model=path)\n")
    (tmp_path / "requirements.txt").write_text("vllm>=0.10\n")

    assert _found(tmp_path, lines=False) == [("requirements.txt", "NPU502")]
    # a CUDA base image names no plugin: the same code is reported
    (tmp_path / "docker" / "npu.Dockerfile").write_text("FROM vllm/vllm-openai:v0.11.0\nRUN pip install app\n")
    assert ("serve.py", "NPU501") in _found(tmp_path, lines=False)


def test_an_npu_guide_of_the_repository_names_the_plugin(tmp_path):
    # label ruling (L38), note 60a (inclusionAI/AReaL): the repository's NPU installation guide sets up vLLM through
    # vLLM-Ascend ("pre-built vLLM and vLLM-Ascend"): vLLM's imports and uses are NPU-aware, its requirement stays NPU502.
    # Only a page named for the NPU is read (a README that mentions the plugin among others is not an NPU guide)
    from migrate.npu_plugins import guided
    from migrate.sources import classify, is_npu_guide

    assert is_npu_guide("./docs/en/tutorial/installation_npu.md") and is_npu_guide("docker/npu_patch/README.md")
    assert is_npu_guide("docs/ascend/quick_start.rst") and not is_npu_guide("docs/input.md")
    assert not is_npu_guide("README.md") and not is_npu_guide("docs/installation_npu.txt")
    assert classify("docs/installation.md") == () and classify("docs/installation_npu.md") == ("npu-guide",)
    assert guided("# Installation (Ascend NPU)\nThe image has pre-built vLLM and vLLM-Ascend.\n") == (("vllm-ascend", 2),)
    assert guided("```shell\npip install triton-ascend\n```\n") == (("triton-ascend", 2),)
    assert guided("See docs.vllm.ai/projects/ascend and the vllm ascend docs.\n") == ()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "installation_npu.md").write_text(
        "# Installation (Ascend NPU)\n\nOur NPU image contains CANN and pre-built vLLM and vLLM-Ascend.\n")
    (tmp_path / "serve.py").write_text("from vllm import LLM\ndef run(path):\n    return LLM(model=path)\n")
    (tmp_path / "requirements.txt").write_text("vllm>=0.10\n")

    assert _found(tmp_path, lines=False) == [("requirements.txt", "NPU502")]
    # the same sentence in a page not named for the NPU names no plugin: the same code is reported
    (tmp_path / "docs" / "installation_npu.md").rename(tmp_path / "docs" / "installation.md")
    assert ("serve.py", "NPU501") in _found(tmp_path, lines=False)


def test_a_launcher_that_installs_the_plugin_names_the_plugin(tmp_path):
    # label ruling (L40): a repository that requires *or installs* triton-ascend runs its Triton code on the NPU
    # (ByteDance-Seed/VeOmni: its NPU Dockerfile pip-installs the triton-ascend wheel by URL, and no manifest names it);
    # the same for a shell installer. A launcher installing community triton alone names no plugin
    from migrate.engine import scan
    from migrate.npu_plugins import installed

    assert installed("docker/Dockerfile.a3", "RUN pip install triton==3.5.0 && \\\n    pip install \\\n"
                     "    \"https://mirrors.example.com/pypi/triton-ascend/triton_ascend-3.2.1-cp311-cp311-"
                     "manylinux_2_28_aarch64.whl\"\n") == (("triton-ascend", 3),)
    assert installed("setup_npu.sh", "pip install torch_npu triton-ascend==3.2.1\n") == (("triton-ascend", 1),)
    assert installed("install.sh", "pip install triton==3.5.0\n# see triton-ascend docs\n") == ()
    (tmp_path / "kernels.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pass\n"
        "def run(x):\n    k[(1,)](x, 4)\n")
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "Dockerfile").write_text(
        "FROM ubuntu:22.04\nRUN pip install torch_npu && \\\n    pip install triton-ascend==3.2.1\n")

    assert _found(tmp_path, ("NPU501", "NPU507"), lines=False) == []
    # community triton installed first, then triton-ascend over it (triton-ascend's FAQ): the plugin's own recipe, not
    # reported in that launcher; a triton pin in a manifest or in a launcher without the plugin stays NPU502
    (tmp_path / "docker" / "Dockerfile").write_text(
        "FROM ubuntu:22.04\nRUN pip install triton==3.2.0 && \\\n    pip install triton-ascend==3.2.1\n")
    (tmp_path / "requirements.txt").write_text("triton==3.2.0\n")
    (tmp_path / "bench.sh").write_text("pip install triton==3.2.0\n")
    npu502 = sorted((f.path[len(str(tmp_path)) + 1:], f.line) for f in scan([str(tmp_path)], use_cache=False).findings
                    if f.code == "NPU502")
    assert npu502 == [("bench.sh", 1), ("requirements.txt", 1)]
    assert _found(tmp_path, ("NPU501", "NPU507"), lines=False) == []
    (tmp_path / "docker" / "Dockerfile").write_text("FROM ubuntu:22.04\nRUN pip install torch_npu triton==3.2.0\n")
    assert {("kernels.py", "NPU501"), ("kernels.py", "NPU507")} <= set(_found(tmp_path, ("NPU501", "NPU507"), lines=False))


def test_ci_workflows_and_cloud_launcher_yamls_set_up_a_machine(tmp_path):
    # label ruling (L39): a CI workflow and a SkyPilot task YAML provision machines, like a Dockerfile: no NPU5xx
    # finding there; a shell launcher with the same lines and a YAML with only a `run:` key are still read
    from migrate.engine import scan

    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "gpu.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: pip install cupy-cuda12x flash-attn\n      - run: nvidia-smi\n")
    (tmp_path / "sky").mkdir()
    (tmp_path / "sky" / "ppo.yaml").write_text(
        "resources:\n  accelerators: H100:1\nsetup: |\n  pip3 install flashinfer-python\nrun: |\n  nvidia-smi\n")
    (tmp_path / "sky" / "job.yaml").write_text("run: |\n  pip install flash-attn\n")
    (tmp_path / "install.sh").write_text("pip install cupy-cuda12x\nnvidia-smi\n")
    # a pipeline's own scripts in its CI folder (rule 28a-14): a shell step, a Python helper, a requirements file
    scripts = tmp_path / ".azure-pipelines" / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "run_cuda_ut.sh").write_text("pip install flash-attn\nnvidia-smi\n")
    (scripts / "monitor_gpu.py").write_text("import nvitop\n\nprint(nvitop.Device.all())\n")
    (scripts / "requirements.txt").write_text("flash-attn\n")
    found = sorted((f.path[len(str(tmp_path)) + 1:], f.code, f.line)
                   for f in scan([str(tmp_path)], use_cache=False).findings if f.code.startswith("NPU5"))
    assert found == [("install.sh", "NPU502", 1), ("install.sh", "NPU504", 2), ("sky/job.yaml", "NPU502", 2)]


def test_a_package_the_module_probes_for_and_imports_only_in_functions_is_optional(tmp_path):
    # rule 28a-9: NVIDIA's CuTe DSL behind a find_spec probe of the module's own, imported only in the kernel builders,
    # with a PyTorch path when the probe says no; a module importing it at its top, or never asking, keeps its findings
    from migrate.engine import scan

    probe = ("from importlib.util import find_spec\n\n\n"
             "def has_cute():\n    \"\"\"Whether the optional CuTe DSL is installed.\"\"\"\n"
             "    return find_spec(\"cutlass\") is not None\n\n\n")
    (tmp_path / "qdq.py").write_text(
        probe + "def _kernel():\n    import cutlass.cute as cute\n\n    @cute.kernel\n    def k(x: cute.Tensor):\n"
        "        pass\n\n    return cute.compile(k)\n\n\n"
        "def qdq(x):\n    if not has_cute() or not x.is_cuda:\n        return None\n    return _kernel()(x)\n")
    (tmp_path / "eager.py").write_text(
        probe + "import cutlass.cute as cute\n\n\ndef qdq(x):\n    if has_cute():\n        return cute.compile(x)\n")
    (tmp_path / "unasked.py").write_text(probe + "def qdq(x):\n    import cutlass.cute as cute\n    return cute.compile(x)\n")
    found = {(f.path[len(str(tmp_path)) + 1:], f.code) for f in scan([str(tmp_path)], use_cache=False).findings
             if f.code in ("NPU501", "NPU507")}
    assert found == {("eager.py", "NPU501"), ("eager.py", "NPU507"), ("unasked.py", "NPU501"), ("unasked.py", "NPU507")}


def test_a_test_file_copied_from_the_packages_own_suite_is_the_packages(tmp_path):
    # label ruling (L24), rule 28a-11: vLLM's tests/conftest.py copied with its license header into a plugin's tests;
    # the plugin's own test (no such header) and a copied header in a non-test module keep their findings
    from migrate.engine import scan

    header = "# SPDX-License-Identifier: Apache-2.0\n# SPDX-FileCopyrightText: Copyright contributors to the vLLM project\n"
    body = "from vllm import LLM\nfrom vllm.distributed import cleanup_dist_env_and_memory\n\ncleanup_dist_env_and_memory()\n"
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(header + body)
    (tmp_path / "tests" / "test_models.py").write_text("# Copyright (c) 2025 Intel Corporation\n" + body)
    (tmp_path / "layers.py").write_text(header + body)
    found = {f.path[len(str(tmp_path)) + 1:] for f in scan([str(tmp_path)], use_cache=False).findings
             if f.code in ("NPU501", "NPU507")}
    assert found == {"tests/test_models.py", "layers.py"}


def test_dockerfile_variants_are_read_as_launchers():
    # llmc Dockerfile_cu124, LLaMA-Factory docker/docker-cuda/Dockerfile.megatron, OpenPCDet docker/cu116.Dockerfile:
    # variants kept beside the Dockerfile; not a file that only starts with the word
    from migrate.sources import classify

    for name in ("Dockerfile", "docker/Dockerfile_cu124", "docker/Dockerfile.megatron", "docker/cu116.Dockerfile",
                 "train.dockerfile", "Dockerfile-dev"):
        assert classify(name) == ("launcher",), name
    for name in ("Dockerfiles", "DockerfileGenerator.java", "docs/dockerfile.md"):
        assert classify(name) == (), name


def test_package_config_templates_are_read_as_cmake_and_other_templates_are_not(tmp_path):
    # a `configure_package_config_file` template exports the CUDA definition to the package's consumers (ruling (L105))
    from migrate.engine import scan
    from migrate.sources import classify

    for name in ("cmake/GraphOpsConfig.cmake.in", "cmake/graphops-config.cmake.in"):
        assert classify(name) == ("cpp-source",), name
    assert classify("cmake/version.cmake.in") == ()
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "GraphOpsConfig.cmake.in").write_text(
        "find_package(Torch REQUIRED)\nif(@WITH_CUDA@)\n  target_compile_definitions(GraphOps::GraphOps INTERFACE WITH_CUDA)\n"
        "endif()\n")
    result = scan([str(tmp_path)], use_cache=False)
    assert [(f.code, f.line) for f in result.findings] == [("NPU511", 3)]


# ---- NPU507: a package module held by `self`, kernels held from a module object (label note 53d) --------------------
_TSDF = (
    "import numpy as np\n"
    "class TSDFVolume:\n"
    "    def __init__(self, vol):\n"
    "        import pycuda.driver as cuda\n"
    "        from pycuda.compiler import SourceModule\n"
    "        self.cuda = cuda\n"
    "        self._vol_gpu = cuda.mem_alloc(vol.nbytes)\n"
    "        self.cuda.memcpy_htod(self._vol_gpu, vol)\n"
    "        self._mod = SourceModule('__global__ void integrate(float *v) {}')\n"
    "        self._integrate = self._mod.get_function('integrate')\n"
    "    def integrate(self, depth):\n"
    "        self._integrate(self._vol_gpu,\n"
    "                        self.cuda.InOut(depth.astype(np.float32)),\n"
    "                        block=(256, 1, 1), grid=(1, 1))\n"
    "    def get_volume(self, out):\n"
    "        self.cuda.memcpy_dtoh(out, self._vol_gpu)\n"
)


def test_calls_through_a_module_held_by_self_are_the_uses_not_the_binding():
    lines = sorted({f.line for f in codes(analyze(_TSDF), "NPU507")})
    # not 6 (`self.cuda = cuda` names the module), nor 10 (`get_function` on the SourceModule: a method call, (L12))
    assert lines == [7, 8, 9, 12, 13, 16]


def test_a_module_held_by_self_never_called_through_stays_a_use_at_its_binding():
    source = "class V:\n    def __init__(self):\n        import pycuda.driver as cuda\n        self.cuda = cuda\n"
    assert [f.line for f in codes(analyze(source), "NPU507")] == [4]


def test_an_attribute_of_self_bound_twice_is_no_module_alias():
    source = _TSDF.replace("    def get_volume(self, out):\n", "    def get_volume(self, out):\n        self.cuda = out\n")
    # the binding stays the use (6); the calls through `self.cuda` may run something else (8, 13, 17)
    assert sorted({f.line for f in codes(analyze(source), "NPU507")}) == [6, 7, 9, 12]


def test_a_kernel_of_a_module_object_held_by_a_name_is_launched_where_called():
    source = ("from cupy.cuda import function\n\n"
              "def run(ptx, x):\n"
              "    m = function.Module()\n"
              "    m.load(ptx)\n"
              "    kernel = m.get_function('kernel')\n"
              "    kernel(grid=(1, 1), block=(256, 1, 1), args=[x])\n")
    assert [f.line for f in codes(analyze(source), "NPU507")] == [4, 7]
    rebound = source.replace("    m.load(ptx)\n", "    m = other()\n")  # `m` bound twice: whose method it is is unknown
    assert [f.line for f in codes(analyze(rebound), "NPU507")] == [4]


def test_lmdeploy_pytorch_engine_and_helpers_run_as_written_turbomind_stays():
    # set 55a's reading of lmdeploy (like vLLM, (L25)/(L44)): the imports are the lines; the PyTorch engine (per-device
    # kernels with an Ascend set), get_logger, load_image and the vl logging helpers are no lines; the CUDA-only
    # TurboMind engine config stays reported
    src = ("from lmdeploy.utils import get_logger\nfrom lmdeploy.vl import load_image\n"
           "from lmdeploy.vl.model.utils import disable_logging\nfrom lmdeploy.pytorch.engine import Engine\n"
           "from lmdeploy import TurbomindEngineConfig, PytorchEngineConfig\n\n"
           "log = get_logger('x')\nimg = load_image('a.png')\nwith disable_logging():\n    eng = Engine.from_pretrained('m')\n"
           "cfg = PytorchEngineConfig()\ntm = TurbomindEngineConfig(tp=1)\n")
    uses = [(f.line, f.message) for f in codes(analyze(src), "NPU507")]
    assert [line for line, _ in uses] == [12], uses
    assert "TurbomindEngineConfig" in uses[0][1]
    assert len(codes(analyze(src), "NPU501")) == 5


def test_a_pyproject_variant_is_read_as_a_manifest_unless_named_for_another_accelerator(tmp_path):
    # hao-ai-lab/FastVideo's pyproject_other.toml beside pyproject.toml (labels 61a: its gpustat line); a variant named
    # for the ROCm build is that accelerator's (label rule (L15)); a TOML file of another name is no manifest
    body = "[project]\nname = \"app\"\nversion = \"1.0\"\ndependencies = [\n    \"torch\",\n    \"flash-attn\",\n]\n"
    for name in ("pyproject.toml", "pyproject_other.toml", "pyproject-dev.toml", "pyproject_rocm.toml", "other.toml"):
        (tmp_path / name).write_text(body)
    assert _found(tmp_path, ("NPU502",)) == [("pyproject-dev.toml", "NPU502", 6), ("pyproject.toml", "NPU502", 6),
                                             ("pyproject_other.toml", "NPU502", 6)]


def test_triton_code_using_the_plugins_own_modules_names_the_plugin(tmp_path):
    # label note 62a (FlagOpen/FlagGems), rulings (L40)/(L56): a vendor registry picks its `_ascend` backend where
    # torch_npu is there, and that backend's Triton kernels call triton-ascend's language extras
    # (`tl.extra.ascend.libdevice.pow`; knowledge `plugin_modules`): the repository's Triton code runs through
    # triton-ascend, no manifest naming it. Without torch_npu, or without the extras, the same Triton code is reported
    from migrate.npu_plugins import module_uses

    assert module_uses("import triton.language as tl\ntry:\n    import torch_npu\n    pow = tl.extra.ascend.libdevice.pow\n"
                       "except ImportError:\n    pow = None\n") == (("triton-ascend", 4),)
    assert module_uses("from triton.language.extra.cann import libdevice\n") == (("triton-ascend", 1),)
    assert module_uses("from triton.language.extra import cann\n") == (("triton-ascend", 1),)
    assert module_uses("import triton.language.extra.cann.libdevice as ld\n") == (("triton-ascend", 1),)
    assert module_uses("import triton.language as tl\nf = tl.extra.cuda.libdevice.pow\n# extra.cann\n") == ()
    assert module_uses("x = obj.extra.cann\n") == ()  # a name no import binds
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "add.py").write_text(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, n: tl.constexpr):\n    pass\n"
        "def run(x):\n    k[(1,)](x, 4)\n")
    (tmp_path / "backend").mkdir()
    (tmp_path / "backend" / "_ascend.py").write_text(
        "import triton.language as tl\ntry:\n    import torch_npu  # noqa: F401\n    pow = tl.extra.ascend.libdevice.pow\n"
        "except ImportError:\n    pow = None\n")

    assert _found(tmp_path, ("NPU501", "NPU507"), lines=False) == []
    # the NPU runtime named nowhere: the extras alone do not take the repository to the NPU
    (tmp_path / "backend" / "_ascend.py").write_text("import triton.language as tl\npow = tl.extra.ascend.libdevice.pow\n")
    assert {("ops/add.py", "NPU501"), ("ops/add.py", "NPU507")} <= set(_found(tmp_path, ("NPU501", "NPU507"), lines=False))
    # torch_npu without the plugin's modules: community Triton code, reported
    (tmp_path / "backend" / "_ascend.py").write_text("import torch_npu  # noqa: F401\n")
    assert {("ops/add.py", "NPU501"), ("ops/add.py", "NPU507")} <= set(_found(tmp_path, ("NPU501", "NPU507"), lines=False))


def test_deepspeed_mii_is_a_gpu_only_serving_package(tmp_path):
    # label note 62b (FlagGems benchmark_throughput.py `--backend mii`): DeepSpeed-MII requires deepspeed-kernels
    # (CUDA only); its import and the calls of its `serve` / `client` are reported
    (tmp_path / "bench.py").write_text(
        "def run_mii(model, tp):\n    from mii import client, serve\n\n    llm = serve(model, tensor_parallel=tp)\n"
        "    return llm.generate(['a'], max_new_tokens=4)\n")
    assert _found(tmp_path, ("NPU501", "NPU507")) == [("bench.py", "NPU501", 2), ("bench.py", "NPU507", 4)]


def test_the_plugin_module_text_test_wants_the_words_as_code_names_them(monkeypatch):
    """`module_uses` parses a file only where its text names a plugin module's last two words as code does: torch says
    "ascending" in hundreds of files, and the words alone sent nearly every file of the corpus to a second parse."""
    import ast as ast_module

    from migrate import npu_plugins

    parsed = []
    real = ast_module.parse
    monkeypatch.setattr(npu_plugins.ast, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    prose = "import torch\n\n\ndef order(x):\n    # extra care: sorted in ascending order\n    return torch.sort(x)\n"
    assert npu_plugins.module_uses(prose) == () and parsed == []
    uses = "import triton.language as tl\n\n\ndef f(x):\n    return tl.extra.ascend.libdevice.pow(x, 2)\n"
    assert [plugin for plugin, _ in npu_plugins.module_uses(uses)] == ["triton-ascend"] and len(parsed) == 1
    grouped = "from triton.language.extra import (cuda, ascend)\n"
    assert [line for _, line in npu_plugins.module_uses(grouped)] == [1]


def test_a_callable_stored_on_an_object_is_used_where_self_calls_it():
    # mit-han-lab/duo-attention's patch/llama.py: `module.full_attn_func = flash_attn_func` (or a wrapper object handed
    # it) in the patching function, `self.full_attn_func(...)` in the forward it installs: the call is the use, the
    # stores only name the callable (label set 63e, ruling (L52))
    source = ("from flash_attn import flash_attn_func\n"                                  # 1
              "from .ulysses import UlyssesAttention\n"
              "def duo_forward(self, q, k, v):\n"
              "    return self.full_attn_func(q, k, v, causal=True)\n"                    # 4
              "def enable(model, ulysses):\n"
              "    for module in model.layers:\n"
              "        if not ulysses:\n"
              "            module.full_attn_func = flash_attn_func\n"                     # 8
              "        else:\n"
              "            module.full_attn_func = UlyssesAttention(attn_func=flash_attn_func)\n"  # 10
              "        module.streaming_attn_func = pick(flash_attn_func)\n")            # 11: never called through
    assert sorted(f.line for f in codes(analyze(source), "NPU507")) == [4, 11]
    # another store of the attribute (a torch function): the call may run either, the stores stay the uses
    other = source + "def disable(module):\n    module.full_attn_func = sdpa\n"
    assert sorted(f.line for f in codes(analyze(other), "NPU507")) == [8, 10, 11]
    # a class's own store on `self` is left to the class's readers (set 61: FastVideo's binding lines are labels)
    own = ("import triton\nclass H:\n    def __init__(self):\n"
           "        self.fill = triton.runtime.driver.active.utils.fill_1d_tma_descriptor\n"
           "    def go(self, p):\n        self.fill(p)\n")
    assert [f.line for f in codes(analyze(own), "NPU507") if f.line > 1] == [4]


def test_a_project_switch_mapped_to_the_library_value_is_reported_at_the_mapping():
    # DeepLink-org/LightRFT's model classes (label note 63b): `use_flash_attention_2: bool = True` is the class's own
    # parameter, not transformers' old keyword; the line where the class turns it into the library's value is the
    # option, whether the name is the keyword itself or is handed on under it (a keyword or a keyword dict)
    text = (
        "from transformers import AutoModelForVision2Seq\n"
        "class RewardModel:\n"
        "    def __init__(self, pretrain: str, use_flash_attention_2: bool = True, **kwargs) -> None:\n"
        "        attn_implementation = 'flash_attention_2' if use_flash_attention_2 else 'eager'\n"
        "        self.model = AutoModelForVision2Seq.from_pretrained(pretrain, attn_implementation=attn_implementation)\n"
        "class Actor:\n"
        "    def __init__(self, pretrain, use_flash_attention_2=True):\n"
        "        attn_impl = 'flash_attention_2' if use_flash_attention_2 else 'eager'\n"
        "        kwargs = {'trust_remote_code': True, 'attn_implementation': attn_impl}\n"
        "        self.model = AutoModelForVision2Seq.from_pretrained(pretrain, **kwargs)\n"
        "def load(path, use_flash_attention_2=True):\n"
        "    return AutoModelForVision2Seq.from_pretrained(path, use_flash_attention_2=use_flash_attention_2)\n"
    )
    found = codes(analyze(text, "model.py"), "NPU503")
    # the function that hands its parameter on under transformers' own keyword keeps its default reported
    assert [f.line for f in found] == [4, 8, 11, 12]


def test_sglang_named_by_its_npu_extra_or_a_probe_of_its_npu_kernels_is_npu_aware(tmp_path):
    # label notes 60a (AReaL: `sglang[srt_npu]` in a manifest) and 52a (ROLL: its tests probe sgl_kernel_npu, SGLang's
    # NPU kernels): the repository runs SGLang's NPU build, its sglang imports and uses are no lines to change (L38)
    (tmp_path / "a.py").write_text("import sglang\nfrom sglang.srt.utils import kill_process_tree\nkill_process_tree(1)\n")
    assert _found(tmp_path) == [("a.py", "NPU501", 1), ("a.py", "NPU501", 2), ("a.py", "NPU507", 3)]
    (tmp_path / "requirements.txt").write_text("sglang[srt_npu]==0.5.6\n")
    assert _found(tmp_path) == []
    (tmp_path / "requirements.txt").unlink()
    (tmp_path / "test_b.py").write_text('import pytest\ndef test_x():\n    pytest.importorskip("sgl_kernel_npu")\n')
    assert _found(tmp_path) == []


def test_a_computed_option_handed_to_the_repositorys_own_class_is_its_parameter(tmp_path):
    # DeepLink-org/LightRFT (label note 63b): a training script beside the package passes its flags to the package's
    # classes (directly, through an alias chosen in an if-else, or to a name bound nowhere): those are the classes'
    # parameters; the same flag handed to transformers stays reported
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "models.py").write_text("class ActorVL:\n    def __init__(self, path, **kwargs):\n        pass\n"
                                                "class ActorLM(ActorVL):\n    pass\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "train.py").write_text(
        "from transformers import AutoModelForCausalLM\n"
        "from pkg.models import ActorLM, ActorVL\n"
        "def main(args):\n"
        "    if args.text_only:\n        Actor = ActorLM\n    else:\n        Actor = ActorVL\n"
        "    a = Actor(args.path, use_flash_attention_2=args.flash_attn, load_in_4bit=args.load_in_4bit)\n"
        "    b = ActorVL(args.path, use_flash_attention_2=args.flash_attn)\n"
        "    c = build_critic(args.path, load_in_4bit=args.load_in_4bit)\n"
        "    return a, b, c, AutoModelForCausalLM.from_pretrained(args.path, load_in_4bit=args.load_in_4bit)\n")
    assert _found(tmp_path, ("NPU503",)) == [("examples/train.py", "NPU503", 11)]


def test_a_computed_option_handed_to_an_own_class_that_passes_kwargs_on_is_the_option(tmp_path):
    # FasterDecoding/Medusa cli.py, SafeAILab/EAGLE webui.py (66a): the package's loader takes **kwargs and hands them
    # to transformers' from_pretrained (itself or through its own class): the caller's keyword is the option; a
    # loader that names the keyword, keeps kwargs to itself, or only copies them (dict(**kwargs)) consumes it
    (tmp_path / "pkg" / "model").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model" / "wrap.py").write_text(
        "from transformers import AutoModelForCausalLM\n"
        "class Wrapped:\n    @classmethod\n    def from_pretrained(cls, path, *args, **kwargs):\n"
        "        return AutoModelForCausalLM.from_pretrained(path, *args, **kwargs)\n"
        "class Named:\n    def __init__(self, path, load_in_4bit=False, **kwargs):\n        pass\n"
        "class Kept:\n    def __init__(self, path, **kwargs):\n        self.kw = dict(**kwargs)\n"
        "def load(path, **kw):\n    return AutoModelForCausalLM.from_pretrained(path, **kw)\n")
    (tmp_path / "pkg" / "serve").mkdir()
    (tmp_path / "pkg" / "serve" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "serve" / "webui.py").write_text(
        "try:\n    from ..model.wrap import Wrapped\nexcept ImportError:\n    from pkg.model.wrap import Wrapped\n"
        "m = Wrapped.from_pretrained(args.path, load_in_8bit=args.load_in_8bit)\n")
    (tmp_path / "cli.py").write_text(
        "from pkg.model.wrap import Named, Kept, load\n"
        "def main(args):\n"
        "    a = Named(args.path, load_in_4bit=args.load_in_4bit)\n"
        "    b = Kept(args.path, load_in_4bit=args.load_in_4bit)\n"
        "    c = load(args.path, load_in_4bit=args.load_in_4bit)\n"
        "    return a, b, c\n")
    assert _found(tmp_path, ("NPU503",)) == [("cli.py", "NPU503", 5), ("pkg/serve/webui.py", "NPU503", 5)]


@pytest.mark.parametrize("text", [
    # a flag bound by a try-import of flash_attn (VLMEvalKit granite_vision.py, note 59e) and a probe function's result
    # (AngelSlim dflash_benchmark.py, note 61c): availability checks with a fallback, no project switch (L1)
    "from transformers import AutoModel\nflash_attn_flag = False\ntry:\n    import flash_attn\n    flash_attn_flag = True\n"
    "except ImportError:\n    pass\ndef load(p):\n    attn_impl = 'flash_attention_2' if flash_attn_flag else 'eager'\n"
    "    return AutoModel.from_pretrained(p, attn_implementation=attn_impl)\n",
    "from transformers import AutoModel\ndef has_flash_attn():\n    try:\n        import flash_attn\n        return True\n"
    "    except ImportError:\n        return False\ndef load(p):\n    installed = has_flash_attn()\n"
    "    attn_impl = 'flash_attention_2' if installed else 'sdpa'\n"
    "    return AutoModel.from_pretrained(p, attn_implementation=attn_impl)\n",
], ids=["try-flag", "probe-function"])
def test_a_mapping_under_an_import_probe_is_optional(text):
    assert codes(analyze(text, "model.py"), "NPU503") == []


def test_a_repository_that_builds_the_plugin_names_the_plugin(tmp_path):
    # label rulings (L38)/(L99), note 65a (DeepLink-org/dlinfer): the repository's setup.py builds `dlinfer-ascend`, the
    # plugin LMDeploy's Ascend route requires; its adapters import lmdeploy's PyTorch engine to run it on the NPU. A
    # computed name names the plugin only where the placeholders stand for the device word alone
    from migrate.npu_plugins import built

    setup = 'from setuptools import setup\ndef get_device():\n    return "ascend"\nsetup(\n    name={},\n)\n'
    assert built("setup.py", setup.format('f"dlinfer-{get_device()}"')) == (("dlinfer-ascend", 5),)
    assert built("pkg/setup.py", setup.format('"dlinfer_ascend"')) == (("dlinfer-ascend", 5),)
    assert built("setup.py", setup.format('f"{get_device()}-ascend"')) == ()
    assert built("setup.py", setup.format('f"dlinfer{get_device()}"')) == ()
    assert built("setup.py", setup.format('f"dlinfer-{get_device()}-extra"')) == ()
    assert built("setup.py", setup.format('"dlinfer-maca"')) == ()
    assert built("pyproject.toml", '[build-system]\nrequires = []\n[project]\nversion = "1"\nname = "vllm-ascend"\n') \
        == (("vllm-ascend", 5),)
    assert built("pyproject.toml", '[tool.x]\nname = "vllm-ascend"\n') == ()
    (tmp_path / "setup.py").write_text(setup.format('f"dlinfer-{get_device()}"'))
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "engine.py").write_text(
        "from lmdeploy.turbomind import TurboMind\nfrom lmdeploy.messages import TurbomindEngineConfig\n")
    assert _found(tmp_path, ("NPU501", "NPU507")) == []
    (tmp_path / "setup.py").write_text(setup.format('f"dlinfer-{get_device()}-tools"'))
    assert ("ext/engine.py", "NPU501", 1) in _found(tmp_path, ("NPU501", "NPU507"))


def test_deep_gemms_ceil_div_is_a_plain_helper(tmp_path):
    # label note 67a (3), ruling (L54): DeepGEMM's ceil_div is integer arithmetic (deep_gemm/jit_kernels/utils.py,
    # re-exported at the root; knowledge pure_api): its call runs as written, its import stays NPU501's
    (tmp_path / "q.py").write_text("def size(x, a):\n    from deep_gemm import ceil_div\n    return ceil_div(x, a) * a\n"
                                   "def gemm(a, b):\n    import deep_gemm\n    return deep_gemm.gemm_fp8_fp8_bf16_nt(a, b)\n")
    assert _found(tmp_path, ("NPU501", "NPU507")) == [("q.py", "NPU501", 2), ("q.py", "NPU501", 5), ("q.py", "NPU507", 6)]


def test_a_flagged_import_read_when_the_module_is_imported_stays_required(tmp_path):
    # label note 67a (2), ruling (L102) not met: the handler sets a flag, but a class body reads the imported name at
    # import time (`_sms = Buffer.num_sms`): without the package the module fails, so the import is reported; the uses
    # keep their reading (behind the flag: guarded; the class attribute is a value read, (L54))
    body = ("try:\n    from deep_ep import Buffer\n    use_deepep = True\nexcept ImportError:\n    use_deepep = False\n\n"
            "class Dispatcher:\n    _sms = {}\n    def buffer(self, group):\n        if not use_deepep:\n"
            "            raise ImportError('deep_ep')\n        return Buffer(group)\n")
    (tmp_path / "d.py").write_text(body.format("Buffer.num_sms"))
    assert _found(tmp_path, ("NPU501", "NPU507")) == [("d.py", "NPU501", 2)]
    # read only inside functions, behind the flag: optional (L102), nothing reported
    (tmp_path / "d.py").write_text(body.format("24"))
    assert _found(tmp_path, ("NPU501", "NPU507")) == []
    # a handler binding a fallback of the same name (DINOv2's `except ImportError: SwiGLU = SwiGLUFFN`, then `class
    # SwiGLUFFNFused(SwiGLU)`): the class body reads the fallback without the package, the import stays optional
    (tmp_path / "d.py").write_text("class FFN:\n    pass\ntry:\n    from xformers.ops import SwiGLU\n    OK = True\n"
                                   "except ImportError:\n    SwiGLU = FFN\n    OK = False\nclass Fused(SwiGLU):\n    pass\n")
    assert _found(tmp_path, ("NPU501",)) == []


def test_an_unbound_quantization_config_call_is_the_config_at_its_first_line():
    # InvSR's trainer.py shape: `BitsAndBytesConfig(` never imported in a file importing diffusers (meant as the
    # library's class): the construction is reported once at its first line, its `load_in_4bit=True` going with it
    # (label ruling (L29)); a file binding the name itself, or importing none of the class's libraries, is not read so
    code = ("from diffusers import EulerDiscreteScheduler\n\ndef load(cfg):\n    if cfg.quantize:\n"
            "        q = BitsAndBytesConfig(\n            load_in_4bit=True,\n            bnb_4bit_quant_type='nf4',\n"
            "        )\n")
    assert [f.line for f in codes(analyze(code), "NPU503")] == [5]
    own = code.replace("from diffusers import EulerDiscreteScheduler\n", "from diffusers import EulerDiscreteScheduler\n"
                       "from .quant import BitsAndBytesConfig\n")
    assert [f.line for f in codes(analyze(own), "NPU503")] == [7]
    assert [f.line for f in codes(analyze(code.replace("diffusers", "mylib")), "NPU503")] == [6]


def test_a_dockerfile_forcing_the_cuda_build_is_reported_at_each_install_line():
    # mmdetection3d's docker/Dockerfile shape: `ENV FORCE_CUDA="1"` holds for the later RUNs (label rulings (L72),
    # (L106)); the `--force_cuda` install option sits on a continuation line, the finding on the RUN line (label note 68b)
    dockerfile = ('FROM pytorch/pytorch:1.8.1-cuda10.2-cudnn7-devel\nRUN pip install -e .\nENV FORCE_CUDA="1"\n'
                  "RUN pip install -r requirements/build.txt\nRUN pip install --no-cache-dir -e .\n"
                  "RUN pip install \\\n  -U git+https://github.com/o/SparseEngine@v0.5 \\\n"
                  '  --install-option="--force_cuda" \\\n  --no-deps\nWORKDIR /ops/cuda_op\nRUN python setup.py install\n')
    found = codes(analyze(dockerfile, "Dockerfile", kinds=("launcher",)), "NPU502")
    assert sorted(f.line for f in found) == [6, 11]


CLONE_DOCKERFILE = """\
FROM pytorch/pytorch:1.8.1-cuda10.2-cudnn7-devel
RUN git clone https://github.com/o/det3d.git /det3d
WORKDIR /det3d
RUN pip install --no-cache-dir -e .
ENV FORCE_CUDA="1"
RUN pip install -r requirements/build.txt
RUN pip install --no-cache-dir -e .
"""


def test_a_dockerfile_clone_install_under_force_cuda_is_its_projects_cuda_build(tmp_path):
    # mmdetection3d's docker/Dockerfile: the clone installed after `ENV FORCE_CUDA="1"` is the project the Dockerfile
    # ships with, whose setup.py builds CUDA extensions (label rulings (L72), (L106)); the same install before the ENV,
    # and a project whose setup.py builds nothing, are not reported
    from migrate.engine import scan
    from tests.helpers import finding_lines, write_files

    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
             "setup(name='det3d', ext_modules=[CUDAExtension('det3d._ext', ['det3d/ops/k.cpp', 'det3d/ops/k.cu'])],\n"
             "      cmdclass={'build_ext': BuildExtension})\n")
    write_files(tmp_path / "a", {"setup.py": setup, "docker/Dockerfile": CLONE_DOCKERFILE, "det3d/__init__.py": ""})
    write_files(tmp_path / "b", {"setup.py": "from setuptools import setup\nsetup(name='det3d')\n",
                                 "docker/Dockerfile": CLONE_DOCKERFILE, "det3d/__init__.py": ""})
    result = scan([str(tmp_path / "a")], use_cache=False)
    assert finding_lines(result, "NPU502", "docker/Dockerfile") == [7]
    result = scan([str(tmp_path / "b")], use_cache=False)
    assert finding_lines(result, "NPU502", "docker/Dockerfile") == []


def test_a_handler_that_imports_another_gpu_only_module_is_no_fallback():
    """VMamba forks (set 69, LocalMamba local_vmamba.py / EfficientVMamba vmamba_efficient.py): the handler's substitute
    is itself a CUDA-only compiled module, so nothing runs without a GPU; a torch substitute stays a fallback."""
    gpu = ("import warnings\ntry:\n    SSMODE = 'sscore'\n    import selective_scan_cuda_core\nexcept Exception as e:\n"
           "    warnings.warn(str(e))\n    SSMODE = 'mamba_ssm'\n    import selective_scan_cuda\n\n\n"
           "def f(u):\n    if SSMODE == 'mamba_ssm':\n        return selective_scan_cuda.fwd(u)\n"
           "    return selective_scan_cuda_core.fwd(u)\n")
    assert [f.line for f in codes(analyze(gpu), "NPU501")] == [4, 8]
    assert [f.line for f in codes(analyze(gpu), "NPU507")] == [13, 14]
    torch_fallback = gpu.replace("import selective_scan_cuda\n", "from .scan_ref import selective_scan_cuda\n")
    assert [f.line for f in codes(analyze(torch_fallback), "NPU501")] == []


def test_vmamba_scan_builds_are_gpu_only_packages():
    """MzeroMiko/VMamba kernels/selective_scan/setup.py builds selective_scan_cuda_{core,oflex,ndstate,nrow} as
    CUDAExtensions only: a `try: import ... / except: x = None` with uses never None-tested stays required."""
    source = ("try:\n    import selective_scan_cuda_oflex\nexcept:\n    selective_scan_cuda_oflex = None\n\n\n"
              "def f(u):\n    return selective_scan_cuda_oflex.fwd(u)\n")
    assert [f.line for f in codes(analyze(source), "NPU501")] == [2]
    assert [f.line for f in codes(analyze(source), "NPU507")] == [8]


def test_a_class_s_own_alias_of_an_imported_callable_is_used_where_self_calls_it():
    # JiarunLiu/Swin-UMamba SwinUMamba.py (labels 69d): `self.selective_scan = selective_scan_fn` in `__init__` only
    # names the callable (L46)/(L52); `self.selective_scan(...)` in `forward` runs it
    source = ("from mamba_ssm.ops.selective_scan_interface import selective_scan_fn\n"     # 1
              "class SS2D:\n"
              "    def __init__(self):\n"
              "        self.selective_scan = selective_scan_fn\n"                            # 4
              "    def forward(self, xs):\n"
              "        return self.selective_scan(xs, None)\n")                              # 6
    assert [f.line for f in codes(analyze(source), "NPU507")] == [6]
    # stored on self as something else too: the call may run either, the store stays the use
    other = source.replace("    def forward", "    def cpu(self):\n        self.selective_scan = selective_scan_ref\n    def forward")
    assert [f.line for f in codes(analyze(other), "NPU507")] == [4]


def test_a_partial_called_through_its_factory_is_used_at_the_construction():
    # NX-AI/vision-lstm models_mamba.py (labels 69e): `mixer_cls = partial(Mamba, ...)` and `norm_cls = partial(nn.LayerNorm
    # if not rms_norm else RMSNorm, ...)` name the classes; `self.mixer = mixer_cls(dim)` / `self.norm = norm_cls(dim)`
    # construct them (L52)
    source = ("from functools import partial\nimport torch.nn as nn\nfrom mamba_ssm import Mamba\n"
              "from mamba_ssm.ops.triton.layernorm import RMSNorm\n"
              "class Block:\n"
              "    def __init__(self, dim, mixer_cls, norm_cls):\n"
              "        self.mixer = mixer_cls(dim)\n"                                        # 7
              "        self.norm = norm_cls(dim)\n"                                          # 8
              "def create_block(d, rms_norm=True):\n"
              "    mixer_cls = partial(Mamba, layer_idx=0)\n"                                # 10
              "    norm_cls = partial(nn.LayerNorm if not rms_norm else RMSNorm, eps=1e-5)\n"  # 11
              "    return Block(d, mixer_cls, norm_cls)\n"
              "def unused(d):\n"
              "    other_cls = partial(Mamba, layer_idx=1)\n"                                # 14: never called through
              "    return other_cls\n")
    assert sorted(f.line for f in codes(analyze(source), "NPU507")) == [7, 8, 14]


def test_a_module_handed_to_a_function_is_used_where_the_parameter_is_called():
    # TerryPei/EfficientVMamba selective_scan/test_selective_scan.py (labels 69c): `build_selective_scan_fn(
    # selective_scan_cuda, mode=...)` hands the compiled module over (a binding, (L46)/(L57)); its `.fwd` / `.bwd`
    # called on the parameter inside the function (a nested class's methods included) are the uses
    source = ("import torch\n"                                                               # 1
              "def build_fn(selective_scan_cuda=None, mode='mamba_ssm'):\n"
              "    class Fn(torch.autograd.Function):\n"
              "        @staticmethod\n"
              "        def forward(ctx, u):\n"
              "            return selective_scan_cuda.fwd(u)\n"                            # 6
              "        @staticmethod\n"
              "        def backward(ctx, g):\n"
              "            return selective_scan_cuda.bwd(g)\n"                            # 9
              "    return Fn.apply\n"
              "MODE = 'mamba_ssm'\n"
              "if MODE == 'mamba_ssm':\n"
              "    import selective_scan_cuda\n"                                           # 13
              "    fn = build_fn(selective_scan_cuda, mode=MODE)\n"                        # 14
              "else:\n"
              "    import other_scan\n"
              "    fn = build_fn(other_scan, mode=MODE)\n")
    assert [f.line for f in codes(analyze(source), "NPU507")] == [6, 9]
    # a call handing something else than an imported module (a torch reference): the calls may run either
    mixed = source + "ref = build_fn(torch.nn, mode='ref')\n"
    assert [f.line for f in codes(analyze(mixed), "NPU507")] == [14]


# ---- NPU511: a toolkit include dir in a list include_directories reads; a C++-only shared library (set 72b) ----------
def test_cmake_toolkit_dir_in_read_list_and_cxx_library_of_cuda_project():
    code = ("enable_language(CUDA)\nfind_package(CUDAToolkit REQUIRED)\nset(PROJECT_INCLUDE_DIR\n"
            "    ${CMAKE_CURRENT_SOURCE_DIR}/include\n    ${CUDAToolkit_INCLUDE_DIRS}\n)\n"
            "file(GLOB CUDA_SRC \"*.cu\")\nADD_EXECUTABLE(vt.run main.cpp ${CUDA_SRC})\n"
            "target_link_libraries(vt.run PUBLIC cudart)\ninclude_directories(${PROJECT_INCLUDE_DIR})\n"
            "ADD_LIBRARY(VT SHARED view_transformer.cpp)\nadd_library(k SHARED k.cpp ${MORE})\n")
    lines = sorted(f.line for f in analyze(code, "CMakeLists.txt", ("cpp-source",)) if f.code == "NPU511")
    # the list's toolkit line (5) is reported; the `.cpp`-only VT (11) is C++, a library of an unknown list (12) is not
    assert lines == [1, 2, 5, 7, 8, 9, 12]
