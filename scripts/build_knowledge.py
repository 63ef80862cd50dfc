#!/usr/bin/env python3
"""Generate migrate/knowledge/ data from real torch_npu wheels (developer-run, never in CI).

    .venv/bin/python scripts/build_knowledge.py            # everything
    .venv/bin/python scripts/build_knowledge.py --no-trace # keep existing api_ops.json

What it does (see docs/knowledge.md):
  * `pip download --no-deps` one cp311 x86_64 wheel per torch_npu release line into the wheel cache
    ($NPU_WHEEL_CACHE, default /tmp/npu-wheels) and reads each wheel as a zip. torch_npu is never
    installed or imported.
  * parses the installed torch's torchgen native_functions.yaml to learn which aten ops need a
    backend kernel at all (torch_ops.json);
  * statically (ast) lists public names of torch_npu modules and of torch.cuda (never importing);
  * traces python API -> aten ops with torch's OpInfo/ModuleInfo databases under a
    TorchDispatchMode on CPU (api_ops.json). Needs torch (the dev venv), nothing else.
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

GENERATOR_VERSION = "2"  # 2: module_definitions (names outside __all__), deprecated, TORCH_HCCL_* env vars
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "migrate" / "knowledge"
CACHE = Path(os.environ.get("NPU_WHEEL_CACHE", "/tmp/npu-wheels"))

# release line key -> exact PyPI version picked (newest post release of the line on PyPI
# when this was generated; `pip index versions torch-npu`).
LINES = {
    "2.1.0": "2.1.0.post17",
    "2.3.1": "2.3.1.post6",
    "2.4.0": "2.4.0.post4",
    "2.5.1": "2.5.1.post1",
    "2.6.0": "2.6.0.post5",
    "2.7.1": "2.7.1.post11",
    "2.8.0": "2.8.0.post5",
    "2.9.1": "2.9.1",
    "2.10.0": "2.10.0.post7",
    "2.11.0": "2.11.0.post3",
    "2.12.0": "2.12.0.post3",
    "2.13.0": "2.13.0",
    "2.14.0": "2.14.0",
}
PY_TAGS = ["3.11", "3.10", "3.9"]

# torch_npu modules whose public names are recorded (plus every public submodule of these)
MODULE_ROOTS = [
    "torch_npu", "torch_npu.npu", "torch_npu.contrib", "torch_npu.optim", "torch_npu.utils",
    "torch_npu.profiler", "torch_npu.distributed", "torch_npu.onnx", "torch_npu.testing",
    "torch_npu.asd", "torch_npu.jit", "torch_npu.op_plugin",
]
MAX_DEPTH = 4  # dotted components

ENV_PATTERNS = [rb"ASCEND_[A-Z0-9_]+", rb"TORCH_HCCL_[A-Z0-9_]+", rb"HCCL_[A-Z0-9_]+", rb"PYTORCH_NPU_[A-Z0-9_]+",
                rb"NPU_[A-Z0-9_]+", rb"TORCH_NPU_[A-Z0-9_]+", rb"INF_NAN_MODE_[A-Z0-9_]+",
                rb"ACL_[A-Z0-9_]+", rb"MULTI_STREAM_MEMORY_REUSE", rb"TASK_QUEUE_ENABLE",
                rb"COMBINED_ENABLE", rb"P2P_HCCL_BUFFSIZE", rb"CPU_AFFINITY_CONF"]
ENV_KEEP = re.compile(r"^(TORCH_HCCL_|ASCEND_RT_|ASCEND_LAUNCH|ASCEND_GLOBAL|ASCEND_PROCESS|ASCEND_TOOLKIT|"
                      r"ASCEND_HOME|ASCEND_OPP|ASCEND_CACHE|ASCEND_WORK|ASCEND_MAX|ASCEND_DEVICE|"
                      r"HCCL_|PYTORCH_NPU_|TORCH_NPU_|INF_NAN_MODE_|MULTI_STREAM_MEMORY_REUSE$|"
                      r"TASK_QUEUE_ENABLE$|COMBINED_ENABLE$|P2P_HCCL_BUFFSIZE$|CPU_AFFINITY_CONF$|"
                      r"NPU_ASD_|ACL_OP_INIT_MODE$|ACL_DEVICE_SYNC_TIMEOUT$)")

COMPOSITE_KEYS = {"CompositeImplicitAutograd", "CompositeExplicitAutograd",
                  "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutogradNestedTensor"}


# ---------------------------------------------------------------------------------- helpers
def base_name(func: str) -> str:
    """'add.out(Tensor self, ...) -> Tensor' / 'add.out' -> 'add'."""
    name = func.split("(", 1)[0].strip()
    return name.split(".", 1)[0]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(version: str) -> tuple[Path, str]:
    CACHE.mkdir(parents=True, exist_ok=True)
    for py in PY_TAGS:
        tag = "cp" + py.replace(".", "")
        have = sorted(CACHE.glob(f"torch_npu-{version}-{tag}-{tag}-*x86_64*.whl"))
        if have:
            return have[0], py
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", f"torch-npu=={version}",
               "--python-version", py, "--only-binary=:all:", "-d", str(CACHE),
               "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_17_x86_64",
               "--platform", "manylinux_2_28_x86_64"]
        if subprocess.run(cmd, capture_output=True).returncode == 0:
            have = sorted(CACHE.glob(f"torch_npu-{version}-{tag}-{tag}-*x86_64*.whl"))
            if have:
                return have[0], py
    raise SystemExit(f"no x86_64 wheel for torch-npu=={version}")


def yaml_load(text: str):
    import yaml  # dev-only dependency (PyYAML ships with torch's deps)
    return yaml.safe_load(text)


# ---------------------------------------------------------------------------------- torch yaml
def torch_yaml_path() -> Path:
    import torchgen  # noqa: PLC0415 - dev only, no torch import needed
    return Path(torchgen.__file__).parent / "packaged" / "ATen" / "native" / "native_functions.yaml"


def parse_torch_yaml() -> dict:
    entries = yaml_load(torch_yaml_path().read_text())
    needs, cpu_only, all_ops = set(), set(), set()
    keys_by_op: dict[str, set] = {}
    for e in entries:
        name = base_name(e["func"])
        all_ops.add(name)
        disp = e.get("dispatch") or {}
        keys = set()
        for k in disp:
            keys.update(x.strip() for x in k.split(","))
        if e.get("structured_delegate"):
            keys.add("structured_delegate")
        keys_by_op.setdefault(name, set()).update(keys)
        if keys and not (keys & COMPOSITE_KEYS):
            needs.add(name)
    for name, keys in keys_by_op.items():
        if name not in needs:
            continue
        cpuish = {k for k in keys if "CPU" in k}
        cudaish = {k for k in keys if "CUDA" in k}
        if cpuish and not cudaish and "structured_delegate" not in keys:
            cpu_only.add(name)
    # ops whose name says they are a CPU/mkldnn code path
    for name in needs:
        if re.search(r"mkldnn|_mkl_|^mkl_|_cpu$|_cpu_|^slow_conv|_slow_conv|nnpack|fbgemm|onednn", name):
            cpu_only.add(name)
    # ops with a CUDA-only kernel: a GPU user hits them on CUDA only (cudnn, flash attention ...)
    cuda_only = set()
    for name, keys in keys_by_op.items():
        if name in needs and any("CUDA" in k for k in keys) and not any("CPU" in k for k in keys) \
                and "structured_delegate" not in keys:
            cuda_only.add(name)
    import torch  # version only
    return {
        "torch_version": torch.__version__.split("+")[0],
        "source": "torchgen/packaged/ATen/native/native_functions.yaml",
        "all_ops": sorted(all_ops),
        "needs_backend_kernel": sorted(needs),
        "cpu_only": sorted(cpu_only),
        "cuda_only": sorted(cuda_only),
    }


# ---------------------------------------------------------------------------------- static names
def _literal_list(node):
    try:
        v = ast.literal_eval(node)
        if isinstance(v, (list, tuple)):
            return [x for x in v if isinstance(x, str)]
    except Exception:
        pass
    return None


def public_names(source: str) -> tuple[list[str], bool]:
    """Public names of a module from its source: __all__ (+=, extend) if present, else top-level
    defs/classes/assignments/imports not starting with '_'. Returns (names, had___all__)."""
    tree = ast.parse(source)
    all_names: list[str] | None = None
    top: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    if t.id == "__all__":
                        lst = _literal_list(node.value)
                        if lst is not None:
                            all_names = list(lst)
                    else:
                        top.append(t.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.append(node.target.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "__all__":
            lst = _literal_list(node.value)
            if lst is not None:
                all_names = (all_names or []) + lst
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.value.id == "__all__" and f.attr in ("extend", "append") and node.value.args:
                a = node.value.args[0]
                lst = _literal_list(a) if f.attr == "extend" else (
                    [a.value] if isinstance(a, ast.Constant) and isinstance(a.value, str) else None)
                if lst is not None:
                    all_names = (all_names or []) + lst
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top.append(node.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                top.append((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    top.append(a.asname or a.name)
    if all_names is not None:
        return sorted(set(all_names)), True
    return sorted({n for n in top if not n.startswith("_")}), False


def defined_names(source: str) -> list[str]:
    """Every name a module defines at top level (functions, classes, assignments), private ones
    included: `torch_npu/npu/memory.py` defines `_record_memory_history` outside its `__all__`,
    and `torch.cuda.memory._record_memory_history` maps to it. Dunder names are left out."""
    out: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return sorted(n for n in out if not (n.startswith("__") and n.endswith("__")))


def deprecated_names(source: str) -> dict[str, str]:
    """Top-level functions / classes decorated with `@deprecated("message", ...)`
    (typing_extensions / warnings): name -> the message the wheel shows its users."""
    out = {}
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for decorator in node.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else None
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if name == "deprecated" and decorator.args:
                try:
                    message = ast.literal_eval(decorator.args[0])
                except ValueError:
                    message = ""
                if isinstance(message, str):
                    out[node.name] = message
    return out


def class_members(source: str, cls: str) -> list[str] | None:
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            out = set()
            for b in node.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(b.name)
                elif isinstance(b, ast.Assign):
                    out.update(t.id for t in b.targets if isinstance(t, ast.Name))
            return sorted(n for n in out if not n.startswith("_"))
    return None


def wheel_modules(zf: zipfile.ZipFile) -> dict[str, str]:
    """dotted module -> path in wheel for public torch_npu modules under MODULE_ROOTS."""
    mods = {}
    for path in zf.namelist():
        if not path.startswith("torch_npu/") or not path.endswith(".py"):
            continue
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts[1:]):
            continue
        dotted = ".".join(parts)
        if len(parts) > MAX_DEPTH:
            continue
        if not any(dotted == r or dotted.startswith(r + ".") for r in MODULE_ROOTS):
            continue
        mods[dotted] = path
    return mods


# ---------------------------------------------------------------------------------- one wheel
def read_wheel(path: Path, torch_ops: dict) -> dict:
    all_torch = set(torch_ops["all_ops"])
    zf = zipfile.ZipFile(path)
    names = set(zf.namelist())
    gen = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"
    hand = "torch_npu/csrc/aten/npu_native_functions.yaml"
    src = gen if gen in names else hand
    y = yaml_load(zf.read(src).decode())
    sections = {}
    aten, custom = set(), set()
    for sec in ("supported", "autograd", "symint", "quant", "custom", "tocpu", "unsupported"):
        items = y.get(sec) or []
        got = set()
        for it in items:
            func = it if isinstance(it, str) else (it.get("func") if isinstance(it, dict) else None)
            if func:
                got.add(base_name(func))
        sections[sec] = len(items)
        if sec == "custom":
            custom |= got
        elif sec in ("supported", "autograd", "symint", "quant"):
            for n in got:
                (aten if n in all_torch and not n.startswith("npu_") else custom).add(n)
    aten -= custom

    # modules
    mods = wheel_modules(zf)
    module_names: dict[str, list[str]] = {}
    definitions: dict[str, list[str]] = {}  # defined at top level but outside the public names
    deprecated: dict[str, str] = {}  # dotted name -> the wheel's own deprecation message
    had_all: dict[str, bool] = {}
    for dotted, p in sorted(mods.items()):
        try:
            ns, has = public_names(zf.read(p).decode("utf-8", "replace"))
        except SyntaxError:
            ns, has = [], False
        subs = {d.rpartition(".")[2] for d in mods if d.rpartition(".")[0] == dotted}
        module_names[dotted] = sorted(set(ns) | subs)
        had_all[dotted] = has
        try:
            extra = sorted(set(defined_names(zf.read(p).decode("utf-8", "replace"))) - set(module_names[dotted]))
        except SyntaxError:
            extra = []
        if extra:
            definitions[dotted] = extra
        try:
            for name, message in deprecated_names(zf.read(p).decode("utf-8", "replace")).items():
                deprecated[f"{dotted}.{name}"] = message
        except SyntaxError:
            pass
    # `from .mstx import mstx`: the runtime attribute torch_npu.npu.mstx is the class, not the
    # submodule, so record the class's public members as that dotted name's names.
    shadowed = []
    for dotted, p in sorted(mods.items()):
        parent, _, leaf = dotted.rpartition(".")
        if parent in mods:
            members = class_members(zf.read(p).decode("utf-8", "replace"), leaf)
            if members is not None and re.search(
                    rb"from \." + leaf.encode() + rb" import [^\n]*\b" + leaf.encode() + rb"\b",
                    zf.read(mods[parent])):
                module_names[dotted] = members
                shadowed.append(dotted)
    # torch_npu top level also exports every torch.ops.npu custom op (see _init/core/_exports.py
    # in >= 2.10 and the older `for name in dir(torch.ops.npu)` loop in torch_npu/__init__.py)
    module_names["torch_npu"] = sorted(set(module_names.get("torch_npu", [])) | custom)

    # Tensor methods / switches
    def grep_py(pattern: bytes) -> list[str]:
        return sorted(p for p in names if p.endswith(".py") and p.startswith("torch_npu/")
                      and pattern in zf.read(p))
    privateuse1 = bool(grep_py(b"generate_methods_for_privateuse1_backend"))
    cpu_fallback = False
    # env vars: grep .py and .so bytes
    env: set[str] = set()
    for p in names:
        if p.startswith("torch_npu/") and (p.endswith(".py") or ".so" in p.rsplit("/", 1)[-1]):
            data = zf.read(p)
            if b"will fall back to run on the CPU" in data:
                cpu_fallback = True
            for pat in ENV_PATTERNS:
                for m in re.findall(pat, data):
                    s = m.decode()
                    if ENV_KEEP.match(s) and not s.endswith("_"):
                        env.add(s)

    # transfer_to_npu
    tt = {}
    tp = "torch_npu/contrib/transfer_to_npu.py"
    if tp in names:
        tree = ast.parse(zf.read(tp).decode())
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id.endswith("_list"):
                lst = _literal_list(node.value)
                if lst is not None:
                    tt[node.targets[0].id] = sorted(lst)
    apis_config = None
    if "torch_npu/contrib/apis_config.json" in names:
        apis_config = json.loads(zf.read("torch_npu/contrib/apis_config.json"))
    # entry points
    eps = {}
    for p in names:
        if p.endswith(".dist-info/entry_points.txt"):
            sec = None
            for line in zf.read(p).decode().splitlines():
                line = line.strip()
                if line.startswith("["):
                    sec = line.strip("[]")
                elif "=" in line and sec:
                    eps.setdefault(sec, []).append(line.split("=", 1)[0].strip())
    requires = []
    for p in names:
        if p.endswith(".dist-info/METADATA"):
            for line in zf.read(p).decode().splitlines():
                if line.startswith("Requires-Dist:"):
                    requires.append(line.split(":", 1)[1].strip())
    return {
        "op_source": src,
        "sections": sections,
        "npu_ops": sorted(aten),
        "custom_ops": sorted(custom),
        "modules": module_names,
        "modules_shadowed_by_class": shadowed,
        "module_definitions": definitions,
        "deprecated": deprecated,
        "cpu_fallback": cpu_fallback,
        "modules_without___all__": sorted(k for k, v in had_all.items() if not v),
        "tensor_npu_methods": privateuse1,
        "env_vars_seen": sorted(env),
        "transfer_to_npu": tt,
        "apis_config": apis_config,
        "entry_points": eps,
        "requires_dist": requires,
    }


# ---------------------------------------------------------------------------------- torch.cuda
def torch_cuda_names() -> dict:
    import torch  # only for the file location; torch.cuda is read statically
    base = Path(torch.__file__).parent / "cuda"
    out = {}
    for path in sorted(base.glob("*.py")) + sorted(base.glob("*/__init__.py")):
        rel = path.relative_to(base.parent.parent)
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts[2:]):
            continue
        ns, _ = public_names(path.read_text())
        out[".".join(parts)] = ns
    subs = {k.rsplit(".", 1)[1] for k in out if k.count(".") == 2}
    out["torch.cuda"] = sorted(set(out["torch.cuda"]) | subs)
    return out


# ---------------------------------------------------------------------------------- main
def dump(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=0, sort_keys=True, separators=(",", ":")) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-trace", action="store_true", help="keep the existing api_ops.json")
    ap.add_argument("--lines", nargs="*", help="only these release lines")
    args = ap.parse_args(argv)
    today = _dt.date.today().isoformat()

    torch_ops = parse_torch_yaml()
    dump(OUT / "data" / "torch_ops.json", {**torch_ops, "generated": today,
                                           "generator_version": GENERATOR_VERSION})
    print("torch ops:", len(torch_ops["all_ops"]), "need a kernel:",
          len(torch_ops["needs_backend_kernel"]))
    cuda = torch_cuda_names()
    dump(OUT / "data" / "torch_cuda.json", {"torch_version": torch_ops["torch_version"],
                                            "modules": cuda, "generated": today})
    index = {}
    for line, ver in LINES.items():
        if args.lines and line not in args.lines:
            continue
        whl, py = download(ver)
        data = read_wheel(whl, torch_ops)
        data["provenance"] = {
            "source": f"PyPI torch-npu=={ver}",
            "wheel": whl.name,
            "sha256": sha256(whl),
            "python_tag": py,
            "torch_yaml": f"torch {torch_ops['torch_version']} native_functions.yaml",
            "generator_version": GENERATOR_VERSION,
            "generated": today,
        }
        dump(OUT / "data" / "versions" / f"{line}.json", data)
        index[line] = {"pypi_version": ver, "wheel": whl.name, "npu_ops": len(data["npu_ops"]),
                       "custom_ops": len(data["custom_ops"]),
                       "torch_npu.npu": len(data["modules"].get("torch_npu.npu", []))}
        print(line, index[line])
    if not args.lines:
        dump(OUT / "data" / "index.json", {"lines": index, "generated": today,
                                           "generator_version": GENERATOR_VERSION})
    if not args.no_trace:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from trace_api_ops import infer_inner, trace_api_ops

        api_ops = infer_inner(trace_api_ops(), torch_ops)
        dump(OUT / "data" / "api_ops.json", {
            "torch_version": torch_ops["torch_version"], "generated": today,
            "method": "OpInfo/ModuleInfo sample inputs (<=3, CPU, float32) under TorchDispatchMode"
                      "; 'inner' = _foo inferred for CompositeExplicitAutograd foo (see docs/knowledge.md)",
            "apis": api_ops})
        print("traced APIs:", len(api_ops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
