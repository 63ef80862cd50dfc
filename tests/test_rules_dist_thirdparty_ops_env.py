"""NPU3xx / NPU5xx / NPU6xx / NPU7xx rules through the real engine and the real knowledge data.

No torch import: everything runs on source text. Expectations that depend on the knowledge base
are derived from it (third_party(), env_vars(), unsupported_apis()), never copied into the test.
"""

from __future__ import annotations

import json
import sys

import pytest

from migrate import knowledge
from migrate.engine import Target, analyze_file
from migrate.findings import Severity
from migrate.rewrite import apply_findings
from migrate.rules.npu503_gpu_only_option import gpu_only_options

VERSION = knowledge.newest_version()


def analyze(code: str, filename: str = "example.py", kinds: tuple[str, ...] = ("python",), version: str = VERSION):
    result = analyze_file(Target(filename, kinds), code.encode("utf-8"), version)
    assert not result.errors, result.errors
    return list(result.findings)


def codes(findings, prefix: str) -> list:
    return [f for f in findings if f.code == prefix]


def fix_and_recheck(code: str, code_id: str, filename: str, kinds: tuple[str, ...]) -> str:
    found = codes(analyze(code, filename, kinds), code_id)
    assert found and all(f.fixable for f in found), found
    fixed, applied, _ = apply_findings(code, found)
    assert applied
    assert codes(analyze(fixed, filename, kinds), code_id) == []
    return fixed


def test_no_torch_imported():
    assert "torch" not in sys.modules


# ---- NPU301 -----------------------------------------------------------------------------------------
def test_nccl_backend_all_forms_fixed_and_clean_after():
    code = (
        "import argparse\n"
        "import torch\n"
        "import torch.distributed as dist\n"
        "from torch.distributed import Backend, init_process_group as ipg\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--dist-backend', default='nccl', choices=['nccl', 'gloo'])\n"
        "BACKEND = 'nccl' if torch.cuda.is_available() else 'gloo'\n"
        "ipg(BACKEND)\n"
        "g = dist.new_group(ranks=[0], backend=Backend.NCCL)\n"
        "if dist.get_backend() == 'nccl':\n"
        "    logger.info('using nccl backend')\n"
    )
    found = codes(analyze(code), "NPU301")
    assert len(found) == 5
    assert {f.line for f in found} == {6, 7, 9, 10}
    fixed = fix_and_recheck(code, "NPU301", "example.py", ("python",))
    assert "Backend.HCCL" in fixed and "default='hccl'" in fixed and "'using nccl backend'" in fixed


@pytest.mark.parametrize(
    "code",
    [
        'def f():\n    """Initialise with the "nccl" backend."""\n',
        'import logging\nlogging.warning("nccl")',
        'raise RuntimeError("nccl" + " failed")',
        "msg = f'{backend} is not nccl'",
        "# dist.init_process_group('nccl')\nx = 1",
    ],
    ids=["docstring", "log", "exception", "fstring", "comment"],
)
def test_nccl_backend_prose_is_not_reported(code):
    assert codes(analyze(code), "NPU301") == []


# ---- NPU302 -----------------------------------------------------------------------------------------
def test_distributed_launch_launcher_with_traps():
    script = (
        "#!/bin/bash\n"
        "# old: python -m torch.distributed.launch --nproc_per_node 8 train.py\n"
        'echo "python -m torch.distributed.launch is deprecated"\n'
        "python -m torch.distributed.launch --nproc_per_node 8 train.py\n"
        "torchrun --nproc_per_node 8 train.py\n"
    )
    found = codes(analyze(script, "run.sh", ("launcher",)), "NPU302")
    assert [f.line for f in found] == [4]
    assert "torchrun" in found[0].message and "torch_npu_run" in found[0].message


def test_distributed_launch_python_aliases():
    found = codes(analyze("import torch.distributed.launch as tdl\ntdl.main()"), "NPU302")
    assert len(found) == 1 and found[0].line == 1
    found = codes(analyze('import subprocess as sp\nsp.Popen("python -m torch.distributed.launch x.py", shell=True)'), "NPU302")
    assert len(found) == 1


# ---- NPU303 -----------------------------------------------------------------------------------------
def test_data_parallel_alias_and_message():
    found = codes(analyze("from torch import nn as tnn\nnet = tnn.DataParallel(net)"), "NPU303")
    assert len(found) == 1 and "DistributedDataParallel" in found[0].message
    assert found[0].severity is Severity.WARNING


# ---- NPU501 / NPU502 --------------------------------------------------------------------------------
def test_every_third_party_entry_is_found_as_import_with_its_severity():
    table = knowledge.third_party()
    assert table
    for key, entry in table.items():
        found = codes(analyze(f"import {key}\n"), "NPU501")
        assert len(found) == 1, key
        assert found[0].severity is Severity.parse(entry.severity), key
        if entry.alternative:
            assert entry.alternative in found[0].message, key


def test_gpu_only_import_most_specific_entry_and_guard():
    table = knowledge.third_party()
    specific = sorted(k for k in table if "." in k and k.split(".", 1)[0] in table)
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
    pip_names = sorted({p for entry in table.values() for p in entry.pip_names if "*" not in p})
    text = "".join(f"{p}>=0.1\n" for p in pip_names)
    found = codes(analyze(text, "requirements.txt", ("manifest",)), "NPU502")
    assert [f.line for f in found] == list(range(1, len(pip_names) + 1))
    for finding, pip in zip(found, pip_names):
        owners = [e for e in table.values() if pip in e.pip_names]
        assert finding.severity in {Severity.parse(e.severity) for e in owners}, pip
        assert normalise(pip) in finding.message


@pytest.mark.parametrize(
    "filename,text,line",
    [
        ("requirements-dev.txt", "# flash-attn\nnumpy\nflash_attn==2.5.8  # fused attention\n", 3),
        ("pyproject.toml", '[project]\nname = "x"\ndependencies = [\n  "torch",\n  "xformers>=0.0.22",\n]\n', 5),
        ("setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    torch\n    bitsandbytes\n", 6),
        ("environment.yml", "name: e\ndependencies:\n  - python=3.10\n  - pip:\n    - deepspeed==0.14\n", 5),
        ("setup.py", "from setuptools import setup\nsetup(name='x',\n      install_requires=['torch', 'triton'])\n", 3),
    ],
)
def test_manifest_formats_through_engine(filename, text, line):
    kinds = ("python", "manifest") if filename == "setup.py" else ("manifest",)
    found = codes(analyze(text, filename, kinds), "NPU502")
    assert [f.line for f in found] == [line]


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


# ---- NPU503 -----------------------------------------------------------------------------------------
def test_every_gpu_only_option_value_is_found():
    options, calls = gpu_only_options()
    assert options and calls
    for option in options:
        assert option.source and option.why
        for value in option.values:
            literal = repr(value)
            assert codes(analyze(f"f(x, {option.key}={literal})"), "NPU503"), (option.key, value)
            assert codes(analyze(f"cfg = {{{option.key!r}: {literal}}}"), "NPU503"), (option.key, value)
            yaml_value = "true" if value is True else value
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


# ---- NPU601 -----------------------------------------------------------------------------------------
ORDINARY = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "loss = F.cross_entropy(logits, target)\n"
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "pool = nn.MaxPool2d(2)\n"
    "y = torch.matmul(a, b).softmax(-1)\n"
    "z = x.sum(dim=1).mean()\n"
    "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
    "h = F.gelu(F.layer_norm(x, (8,)))\n"
)


@pytest.mark.parametrize("version", knowledge.known_versions())
def test_unsupported_op_never_reports_ordinary_ops(version):
    apis = knowledge.load(version).unsupported_apis()
    for ordinary in ("torch.nn.functional.cross_entropy", "torch.nn.utils.clip_grad_norm_", "torch.nn.MaxPool2d"):
        assert ordinary not in apis
    assert codes(analyze(ORDINARY, version=version), "NPU601") == []


def test_unsupported_op_every_api_in_data_is_found():
    apis = knowledge.load(VERSION).unsupported_apis()
    assert apis
    for api, ops in sorted(apis.items()):
        if api.startswith("Tensor."):
            code = f"import torch\ny = torch.Tensor.{api[7:]}(x)\n"
        else:
            module, name = api.rsplit(".", 1)
            code = f"import {module} as m\ny = m.{name}(x)\n"
        found = codes(analyze(code), "NPU601")
        assert len(found) == 1, api
        assert all(op in found[0].message for op in ops) and VERSION in found[0].message


def test_unsupported_op_follows_the_version():
    """A Tensor method unsupported in one version and supported in another is only reported for
    the first (picked from the data, not assumed)."""
    versions = knowledge.known_versions()
    per_version = {v: set(knowledge.load(v).unsupported_apis()) for v in versions}
    candidates = sorted(
        api
        for v in versions
        for api in per_version[v]
        if api.startswith("Tensor.") and api[7:] != "mode" and any(api not in per_version[w] for w in versions)
    )
    if not candidates:
        pytest.skip("no API differs between the known versions")
    api = candidates[0]
    code = f"y = x.{api[7:]}()\n"
    for version in versions:
        found = codes(analyze(code, version=version), "NPU601")
        assert bool(found) == (api in per_version[version]), (api, version)


def test_unsupported_op_aliases_and_shared_method_names():
    apis = knowledge.load(VERSION).unsupported_apis()
    linalg = sorted(a for a in apis if a.startswith("torch.linalg."))
    assert linalg
    name = linalg[0].rsplit(".", 1)[1]
    assert codes(analyze(f"import torch.linalg as LA\nr = LA.{name}(a)"), "NPU601")
    assert codes(analyze(f"from torch.linalg import {name}\nr = {name}(a)"), "NPU601")
    assert codes(analyze(f"import numpy as np\nr = np.linalg.{name}(a)"), "NPU601") == []
    # `mode` is also pandas' DataFrame.mode: the bare method form is not enough evidence
    assert codes(analyze("m = df.mode()"), "NPU601") == []


# ---- NPU602 - NPU607 --------------------------------------------------------------------------------
def test_dtype_and_compile_rules():
    code = (
        "import torch as T\n"
        "from torch import jit\n"
        "a = T.zeros(2, dtype=T.float64)\n"
        "b = a.double()\n"
        "c = T.view_as_complex(x)\n"
        "m = T.compile(model)\n"
        "n = T.compile(model, backend='npu')\n"
        "s = jit.script(model)\n"
        "w = x.to(T.float8_e4m3fn)\n"
        "'''T.float64 and T.compile(model) in a docstring'''\n"
    )
    found = analyze(code)
    assert [f.line for f in codes(found, "NPU602")] == [3, 4]
    assert [f.line for f in codes(found, "NPU603")] == [5]
    assert [f.line for f in codes(found, "NPU604")] == [6]
    assert [f.line for f in codes(found, "NPU605")] == [8]
    assert [f.line for f in codes(found, "NPU607")] == [9]


def test_torch_compile_names_backends_from_data():
    from migrate.rules.npu604_torch_compile import dynamo_backends

    backends = dynamo_backends(VERSION)
    found = codes(analyze("import torch\nm = torch.compile(model)"), "NPU604")
    assert len(found) == 1
    for backend in backends:
        assert f'"{backend}"' in found[0].message


# ---- NPU701 - NPU703 --------------------------------------------------------------------------------
def test_cuda_visible_devices_launcher_fix_and_traps():
    npu = knowledge.env_vars()["CUDA_VISIBLE_DEVICES"].npu
    assert npu
    script = (
        "#!/bin/bash\n"
        "# export CUDA_VISIBLE_DEVICES=0,1,2,3\n"
        'echo "set CUDA_VISIBLE_DEVICES to pick GPUs"\n'
        "export CUDA_VISIBLE_DEVICES=0,1\n"
        "CUDA_VISIBLE_DEVICES=0 python train.py --name CUDA_VISIBLE_DEVICES_run\n"
        'echo "using ${CUDA_VISIBLE_DEVICES}"\n'
    )
    found = codes(analyze(script, "run.sh", ("launcher",)), "NPU701")
    assert [(f.line, f.column) for f in found] == [(4, 8), (5, 1), (6, 15)]
    fixed = fix_and_recheck(script, "NPU701", "run.sh", ("launcher",))
    assert fixed.splitlines()[1:3] == script.splitlines()[1:3]  # comment and prose untouched
    assert f"export {npu}=0,1" in fixed and "CUDA_VISIBLE_DEVICES_run" in fixed


def test_env_vars_in_python_fixed_and_clean_after():
    table = knowledge.env_vars()
    code = (
        "import os\n"
        'os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)\n'
        'os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")\n'
        'cmd = "CUDA_VISIBLE_DEVICES=0 CUDA_LAUNCH_BLOCKING=1 python train.py"\n'
        'print(os.getenv("CUDA_VISIBLE_DEVICES"))\n'
        'logger.info("CUDA_VISIBLE_DEVICES=%s", os.environ["CUDA_VISIBLE_DEVICES"])\n'
    )
    found = analyze(code)
    assert [f.line for f in codes(found, "NPU701")] == [2, 4, 5, 6]
    assert [f.line for f in codes(found, "NPU703")] == [3, 4]
    fixed, _, _ = apply_findings(code, [f for f in found if f.code in ("NPU701", "NPU703")])
    again = analyze(fixed)
    assert codes(again, "NPU701") == [] and codes(again, "NPU703") == []
    assert table["PYTORCH_CUDA_ALLOC_CONF"].npu in fixed and table["CUDA_LAUNCH_BLOCKING"].npu in fixed
    assert '"CUDA_VISIBLE_DEVICES=%s"' in fixed  # the log message is prose


def test_cuda_env_vars_follow_the_table():
    table = knowledge.env_vars()
    others = {n: e for n, e in table.items() if n != "CUDA_VISIBLE_DEVICES" and "NCCL_" not in n}
    assert others
    for name, entry in others.items():
        found = codes(analyze(f"export {name}=1\n", "run.sh", ("launcher",)), "NPU703")
        assert len(found) == 1, name
        assert found[0].fixable is bool(entry.npu), name
        if entry.npu:
            assert fix_and_recheck(f"export {name}=1\n", "NPU703", "run.sh", ("launcher",)) == f"export {entry.npu}=1\n"


def test_nccl_env_vars_messages_follow_the_table():
    table = knowledge.env_vars()
    nccl = {n: e for n, e in table.items() if "NCCL_" in n}
    assert nccl
    for name, entry in nccl.items():
        found = codes(analyze(f'import os\nos.environ["{name}"] = "1"\n'), "NPU702")
        assert len(found) == 1 and not found[0].fixable, name
        if entry.npu:
            assert entry.npu in found[0].message, name
        else:
            assert "no HCCL counterpart" in found[0].message, name
    unknown = "NCCL_" + "X" * 3 + "_UNKNOWN"
    assert unknown not in table
    found = codes(analyze(f"{unknown}=1 torchrun train.py\n", "run.sh", ("launcher",)), "NPU702")
    assert len(found) == 1 and "no HCCL counterpart is known" in found[0].message


def test_env_var_in_yaml_launcher():
    yaml_text = (
        "# CUDA_VISIBLE_DEVICES: '0'\n"
        "env:\n"
        "  CUDA_VISIBLE_DEVICES: \"0\"\n"
        "  NCCL_DEBUG: INFO\n"
        "  - name: PYTORCH_CUDA_ALLOC_CONF\n"
    )
    found = analyze(yaml_text, "job.yaml", ("launcher",))
    assert [f.line for f in codes(found, "NPU701")] == [3]
    assert [f.line for f in codes(found, "NPU702")] == [4]
    assert [f.line for f in codes(found, "NPU703")] == [5]


@pytest.mark.parametrize(
    "line,prose",
    [
        ('print("defaults", {"device": "cuda", "backend": "nccl"})', True),
        ('logger.info("config", extra={"device": "cuda", "backend": "nccl"})', True),
        ('cfg = {"device": "cuda", "backend": "nccl"}', False),
        ('print(json.dumps({"device": "cuda", "backend": "nccl"}))', False),
    ],
    ids=["print-dict", "log-keyword-dict", "assigned-dict", "dict-through-a-call"],
)
def test_nccl_and_device_strings_agree_on_what_is_a_message(line, prose):
    """NPU301 and NPU104 share one answer to "is this text for a person?" (`rules._text.is_prose`)."""
    found = analyze(f"import json\nimport logging\nlogger = logging.getLogger()\n{line}\n")
    reported = {f.code for f in found if f.line == 4}
    assert reported == (set() if prose else {"NPU301", "NPU104"})
