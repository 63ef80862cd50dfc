"""Knowledge base: facts read from real torch_npu wheels, schema of every data file.

Must not import torch or torch_npu.
"""
from __future__ import annotations

import ast
import json
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

from migrate import knowledge as k

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

PKG = Path(k.__file__).parent


def test_no_torch_import():
    assert "torch_npu" not in sys.modules
    # the loader itself never pulls torch in (other tests may import it; check in a subprocess)
    import subprocess
    code = ("import sys, migrate.knowledge as k; kb = k.load('2.13.0'); kb.unsupported_apis(); "
            "k.third_party(); k.env_vars(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_versions():
    vs = k.known_versions()
    assert vs[0] == "2.1.0" and vs[-1] == k.newest_version() == "2.14.0"
    assert {"2.13.0", "2.9.1", "2.7.1"} <= set(vs)
    assert [tuple(map(int, v.split("."))) for v in vs] == sorted(
        tuple(map(int, v.split("."))) for v in vs)


@pytest.mark.parametrize("text,key", [("2.13", "2.13.0"), ("2.13.0", "2.13.0"),
                                      ("2.1.0.post12", "2.1.0"), ("2.9.0.post9", "2.9.1"),
                                      ("2.9", "2.9.1"), ("2.7.1.post2", "2.7.1"),
                                      ("v2.14.0", "2.14.0"), ("2.13.0+cpu", "2.13.0")])
def test_resolve_version(text, key):
    assert k.resolve_version(text) == key


@pytest.mark.parametrize("bad", ["1.11", "3.0", "latest", "", "2.2.0"])
def test_resolve_version_unknown(bad):
    with pytest.raises(ValueError, match="known versions"):
        k.resolve_version(bad)


def test_resolve_version_default(monkeypatch):
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: None)
    assert k.resolve_version(None) == k.newest_version()
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "2.1.0.post12")
    assert k.resolve_version(None) == "2.1.0"
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "9.9.9")
    assert k.resolve_version(None) == k.newest_version()


def test_load_cached_and_frozen():
    a = k.load("2.13")
    assert a is k.load("2.13")
    assert k.load("2.13.0").version == "2.13.0"
    with pytest.raises(AttributeError):  # frozen
        a.version = "x"  # type: ignore[misc]


# ---- facts from torch_npu-2.13.0-cp311-cp311-manylinux_2_28_x86_64.whl
# (torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml, torch_npu/npu/__init__.py)
def test_facts_2_13():
    kb = k.load("2.13.0")
    assert "addmm" in kb.npu_ops and kb.op_supported("aten::addmm") is True
    assert kb.op_supported("aten::addmm.out") is True
    for op in ("_linalg_eigh", "linalg_inv_ex", "cholesky", "_scaled_dot_product_flash_attention"):
        assert op not in kb.npu_ops
    assert kb.op_supported("aten::_linalg_eigh") is False
    assert "_fft_r2c" in kb.npu_ops and "_linalg_svd" in kb.npu_ops
    assert kb.op_supported("linalg_eigh") is None  # CompositeImplicitAutograd in torch
    npu = kb.module_names("torch.npu")
    assert npu == kb.module_names("torch_npu.npu")
    assert "mstx" in npu and "nvtx" not in npu and "NPUGraph" in npu and "amp" in npu
    assert kb.has_api("torch.npu.mstx") and not kb.has_api("torch.npu.nvtx")
    assert kb.has_api("torch.npu.mstx.range_push")  # torch.npu.mstx is the class mstx
    assert not kb.has_api("torch.npu.cudart")
    assert kb.has_api("torch_npu.npu_fusion_attention")
    assert "npu_fusion_attention" in kb.custom_ops
    assert "ASCEND_RT_VISIBLE_DEVICES" in kb.env_vars_seen
    assert kb.tensor_npu_methods
    assert "torch_cuda_fn_white_list" in kb.transfer_to_npu
    p = kb.provenance
    assert p["wheel"] == "torch_npu-2.13.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert len(p["sha256"]) == 64 and p["source"] == "PyPI torch-npu==2.13.0"


# ---- facts from torch_npu-2.1.0.post17-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
# (`grep _scaled_mm` finds nothing in its npu_native_functions_by_codegen.yaml; its
#  torch_npu/npu/__init__.py __all__ has "mstx" and "NPUGraph" but not "npurt")
def test_facts_2_1():
    kb = k.load("2.1.0")
    assert kb.provenance["source"] == "PyPI torch-npu==2.1.0.post17"
    assert "addmm" in kb.npu_ops
    assert kb.op_supported("_scaled_mm") is False
    npu = kb.module_names("torch.npu")
    assert "mstx" in npu and "NPUGraph" in npu and "npurt" not in npu
    assert "nvtx" not in npu


# ---- facts from torch_npu-2.7.1.post11-cp311-cp311-manylinux_2_28_x86_64.whl
# (its torch_npu/npu/__init__.py __all__ has "npurt"; its codegen yaml lists _fused_adam_)
def test_facts_2_7():
    kb = k.load("2.7.1")
    assert "npurt" in kb.module_names("torch.npu")
    assert kb.op_supported("aten::_fused_adam_") is True
    assert k.load("2.1.0").op_supported("aten::_fused_adam_") is False


def test_cuda_api_mapping():
    kb = k.load("2.13.0")
    a = kb.cuda_api("torch.cuda.synchronize")
    assert a.npu == "torch.npu.synchronize"
    assert kb.cuda_api("torch.cuda.amp.autocast").npu == "torch.npu.amp.autocast"
    assert kb.cuda_api("torch.cuda.CUDAGraph").npu == "torch.npu.NPUGraph"
    n = kb.cuda_api("torch.cuda.nvtx.range_push")
    assert n.npu is None and n.alternative == "torch.npu.mstx.range_push"
    c = kb.cuda_api("torch.cuda.cudart")
    assert c.npu is None and c.alternative
    assert kb.cuda_api("torch.cuda.get_arch_list").npu is None
    assert kb.cuda_api("torch.cuda.no_such_thing") is None
    assert kb.cuda_api("torch.nn.Linear") is None


def test_every_public_torch_cuda_name_resolves():
    kb = k.load("2.13.0")
    cuda = k.torch_cuda_names()
    for name in cuda["torch.cuda"]:
        info = kb.cuda_api("torch.cuda." + name)
        assert info is not None, name
        if info.npu:
            assert kb.has_api(info.npu), info


def test_rename_targets_exist():
    renames = tomllib.loads((PKG / "cuda_renames.toml").read_text())["api"]
    newest = k.load(k.newest_version())
    for key, e in renames.items():
        assert key.startswith("torch.cuda."), key
        assert e.get("source"), key
        assert set(e) <= {"npu", "alternative", "alternative_api", "note", "source", "neutral", "works_as"}, key
        if e.get("npu"):
            assert newest.has_api(e["npu"]), key
            assert newest.cuda_api(key).npu == e["npu"]
        if e.get("alternative_api"):
            assert newest.has_api(e["alternative_api"]), key
        assert e.get("npu") or e.get("alternative") or e.get("works_as"), key
        if e.get("neutral"):
            assert e["neutral"].startswith("torch.amp."), key  # device-neutral, takes device_type


def test_third_party():
    tp = k.third_party()
    for root in ("apex", "flash_attn", "xformers", "bitsandbytes", "triton", "deepspeed", "cupy",
                 "pynvml", "nvidia.dali", "tensorrt", "apex.optimizers", "apex.normalization",
                 "apex.amp", "apex.parallel", "apex.fp16_utils"):
        assert root in tp, root
    newest = k.load(k.newest_version())
    for root, e in tp.items():
        assert isinstance(e, k.ThirdParty)
        assert e.status in {"unsupported", "partial", "npu-port", "works"}, root
        assert e.severity in {"error", "warning", "info"}, root
        # a module inside a package that is no GPU-only package itself (megatron-core's Transformer Engine wrappers,
        # `megatron.core.extensions.transformer_engine`) names no distribution: NPU502 would read the package's
        # requirement as GPU-only
        assert e.source and (e.pip_names or "." in root), root
        if e.alternative_api:
            assert newest.has_api(e.alternative_api), (root, e.alternative_api)
    assert tp["flash_attn"].alternative_api == "torch_npu.npu_fusion_attention"
    assert tp["apex.optimizers"].alternative_api == "torch_npu.optim.NpuFusedAdamW"


def test_reexports_name_the_package_own_modules_and_a_known_package():
    """A re-export is a dotted name inside the entry's own package that binds another entry's module (vLLM's
    `vllm.triton_utils.tl` is `triton.language`), and a name imported from there resolves to it."""
    from migrate.context import collect_imports
    tp = k.third_party()
    for root, e in tp.items():
        for name, target in e.reexports:
            assert name.split(".", 1)[0] == root.split(".", 1)[0], (root, name)
            assert target.split(".", 1)[0] in tp, (root, target)
    assert k.reexported_modules()["vllm.triton_utils.tl"] == "triton.language"
    node = ast.parse("from vllm.triton_utils import tl, triton, HAS_TRITON").body[0]
    names, _ = collect_imports((), [node])
    assert names == {"tl": "triton.language", "triton": "triton", "HAS_TRITON": "vllm.triton_utils.HAS_TRITON"}


def test_device_neutral():
    """data/device_neutral.toml: every entry read from its own PyPI file (its source names the wheel or sdist and
    says no CUDA library was found), and none is in the GPU catalogue (third_party.toml) by import or pip name,
    so a package is either device-neutral or catalogued, never both."""
    from migrate.sources import normalise

    dn, tp = k.device_neutral(), k.third_party()
    assert len(dn) >= 50
    roots = {key.split(".", 1)[0] for key in tp}
    catalogue_pips = {normalise(p) for e in tp.values() for p in e.pip_names}
    for key, e in dn.items():
        assert isinstance(e, k.DeviceNeutral)
        assert e.imports and e.pip_names, key
        assert any(e.source.startswith(normalise(p).replace("-", "_")) for p in e.pip_names) or \
            e.source.lower().startswith(tuple(p.lower() for p in e.pip_names)), (key, e.source)
        assert e.source.split(" ", 1)[0].endswith((".whl", ".tar.gz", ".zip")), (key, e.source)
        assert "none naming a CUDA library" in e.source or "pure Python" in e.source, key
        assert not set(e.imports) & roots, (key, e.imports)
        assert not {normalise(p) for p in e.pip_names} & catalogue_pips, (key, e.pip_names)
    assert {"numpy", "PIL", "cv2", "yaml", "sklearn", "skimage"} <= {i for e in dn.values() for i in e.imports}

def test_env_vars():
    ev = k.env_vars()
    assert ev["CUDA_VISIBLE_DEVICES"].npu == "ASCEND_RT_VISIBLE_DEVICES"
    assert ev["PYTORCH_CUDA_ALLOC_CONF"].npu == "PYTORCH_NPU_ALLOC_CONF"
    assert ev["CUDA_LAUNCH_BLOCKING"].npu == "ASCEND_LAUNCH_BLOCKING"
    assert ev["NCCL_SOCKET_IFNAME"].npu == "HCCL_SOCKET_IFNAME"
    assert ev["NCCL_IB_DISABLE"].npu is None
    seen = k.load(k.newest_version()).env_vars_seen
    for name, e in ev.items():
        assert e.name == name and e.source
        if e.source == "wheel" and e.npu:
            assert e.npu in seen, name  # backed by the wheel grep


def test_unsupported_apis_no_false_positives():
    for v in ("2.13.0", "2.1.0", "2.14.0"):
        u = k.load(v).unsupported_apis()
        for api in ("torch.nn.utils.clip_grad_norm_", "torch.nn.functional.max_pool2d",
                    "torch.nn.MaxPool2d", "torch.nn.functional.conv2d", "torch.nn.Conv2d",
                    "torch.addmm", "torch.nn.functional.cross_entropy", "torch.optim.AdamW",
                    "torch.nn.functional.layer_norm", "torch.nn.functional.batch_norm",
                    "torch.matmul", "Tensor.add_", "torch.nn.functional.linear"):
            assert api not in u, (v, api, u.get(api))
    kb = k.load("2.13.0")
    for api in ("torch.nn.utils.clip_grad_norm_", "torch.nn.functional.max_pool2d",
                "torch.nn.functional.conv2d", "torch.addmm"):
        assert kb.api_ops(api), api  # it was traced, so "not unsupported" means something


def test_unsupported_apis_true_positives():
    u = k.load("2.13.0").unsupported_apis()
    assert u["torch.linalg.eigh"] == ("_linalg_eigh",)
    assert "_logcumsumexp" in u["torch.logcumsumexp"]
    assert all(isinstance(v, tuple) and v for v in u.values())


def test_module_names_for_stand_in():
    kb = k.load("2.13.0")
    assert "GradScaler" in kb.module_names("torch_npu.npu.amp")
    assert "NpuFusedAdamW" in kb.module_names("torch_npu.optim")
    assert "npu_fusion_attention" in kb.module_names("torch_npu")
    assert kb.module_names("torch_npu.no_such") is None


# ---- schema of every data file
def _data_files():
    root = resources.files("migrate.knowledge")
    return [p for p in Path(str(root)).rglob("*") if p.suffix in (".json", ".toml")]


def test_data_size_bound():
    total = sum(p.stat().st_size for p in _data_files())
    assert total < 3_000_000, total


def test_schema_versions():
    index = json.loads((PKG / "data" / "index.json").read_text())
    assert set(index["lines"]) == set(k.known_versions())
    for v in k.known_versions():
        d = json.loads((PKG / "data" / "versions" / f"{v}.json").read_text())
        for key in ("npu_ops", "custom_ops", "modules", "env_vars_seen", "provenance",
                    "transfer_to_npu", "sections", "op_source"):
            assert key in d, (v, key)
        assert d["npu_ops"] == sorted(set(d["npu_ops"]))
        assert all("." not in op for op in d["npu_ops"])
        assert 500 < len(d["npu_ops"]) < 2000
        assert "torch_npu.npu" in d["modules"] and "torch_npu" in d["modules"]
        prov = d["provenance"]
        for key in ("source", "wheel", "sha256", "torch_yaml", "generator_version", "generated"):
            assert prov.get(key), (v, key)
        assert prov["source"] == f"PyPI torch-npu=={index['lines'][v]['pypi_version']}"


def test_schema_torch_files():
    t = json.loads((PKG / "data" / "torch_ops.json").read_text())
    assert t["torch_version"] and set(t["needs_backend_kernel"]) <= set(t["all_ops"])
    assert "addmm" in t["needs_backend_kernel"] and "linalg_eigh" not in t["needs_backend_kernel"]
    c = json.loads((PKG / "data" / "torch_cuda.json").read_text())
    assert "nvtx" in c["modules"]["torch.cuda"] and "range_push" in c["modules"]["torch.cuda.nvtx"]
    a = json.loads((PKG / "data" / "api_ops.json").read_text())
    assert len(a["apis"]) > 500
    for api, v in a["apis"].items():
        assert api.split(".")[0] in ("torch", "Tensor"), api
        assert set(v) <= {"fwd", "bwd", "inner"}


def test_load_is_cheap():
    import subprocess
    code = ("import time; t=time.perf_counter(); import migrate.knowledge as k; "
            "k.load('2.13.0'); print(time.perf_counter()-t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout) < 1.0
    t = time.perf_counter()
    k.load("2.13.0").unsupported_apis()
    assert time.perf_counter() - t < 1.0


def test_cpu_only_ops_are_cpu_implementation_details():
    from migrate.knowledge import cpu_only_ops, load

    ops = cpu_only_ops()
    assert "mkldnn_rnn_layer" in ops or any(op.endswith("_for_cpu") for op in ops)
    kb = load("2.13.0")
    assert not any(kb.op_supported(op) for op in ops if op.endswith("_for_cpu"))


def test_version_note_names_the_line_used_for_an_installed_release_without_one(monkeypatch):
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "2.2.0")  # users still run 2.2.0
    assert k.resolve_version(None) == k.newest_version()
    note = k.version_note(None)
    assert note.startswith("the installed torch_npu 2.2.0 has no knowledge line")
    assert f"using {k.newest_version()}, the newest" in note
    assert "--torch-npu-version" in note


def test_version_note_same_series_and_silent_cases(monkeypatch):
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "2.9.0")  # the data has a 2.9.1 line
    assert "using 2.9.1, the knowledge line of the same 2.9 series" in k.version_note(None)
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "2.1.0.post12")
    assert k.version_note(None) is None  # its own line
    assert k.version_note("2.13") is None  # chosen on the command line
    monkeypatch.setattr(k, "_installed_torch_npu", lambda: None)
    assert k.version_note(None) is None


def test_analyze_says_which_line_it_uses(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from migrate.cli import cli

    monkeypatch.setattr(k, "_installed_torch_npu", lambda: "2.2.0")
    script = tmp_path / "train.py"
    script.write_text("import torch\nx = torch.zeros(2).cuda()\n")
    result = CliRunner().invoke(cli, ["analyze", str(script), "--no-cache", "--format", "text"])
    assert result.exit_code == 1, result.output
    assert "npu-migrate: the installed torch_npu 2.2.0 has no knowledge line" in result.stderr
    assert "has no knowledge line" not in result.stdout


def test_torch_npu_is_looked_up_in_installed_metadata_only_where_importlib_metadata_could_find_it(tmp_path, monkeypatch):
    # `_may_be_installed` spares a run the import of importlib.metadata where no sys.path folder holds an entry named
    # like torch_npu's metadata; wherever importlib.metadata finds a torch_npu, the pre-test says "may be"
    import sys
    from importlib import metadata

    from migrate import knowledge

    layouts = {
        "none": ["torch-2.1.0.dist-info", "numpy"],
        "dist-info": ["torch_npu-2.1.0.dist-info"],
        "upper": ["Torch_NPU-2.1.0.dist-info"],
        "dotted": ["torch.npu-2.1.0.dist-info"],
        "egg-info": ["torch_npu-2.1.0.egg-info"],
        "package-only": ["torch_npu"],
    }
    found = {}
    for name, entries in layouts.items():
        root = tmp_path / name
        for entry in entries:
            (root / entry).mkdir(parents=True)
            if entry.endswith((".dist-info", ".egg-info")):
                meta = "METADATA" if entry.endswith(".dist-info") else "PKG-INFO"
                dist = entry.rsplit("-", 1)[0]
                (root / entry / meta).write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 2.1.0\n")
        monkeypatch.setattr(sys, "path", [str(root), str(tmp_path / "absent")])
        try:
            installed = metadata.version("torch-npu")
        except metadata.PackageNotFoundError:
            installed = None
        found[name] = (knowledge._may_be_installed(), installed)
        if installed is None:
            assert knowledge._installed_torch_npu() is None
        else:
            assert found[name][0] and knowledge._installed_torch_npu() == installed
    assert found["none"] == (False, None) and found["package-only"] == (True, None)
    assert all(found[name] == (True, "2.1.0") for name in ("dist-info", "upper", "dotted", "egg-info"))
    archive = tmp_path / "site.zip"
    archive.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert knowledge._may_be_installed()  # importlib.metadata reads inside archives: the pre-test does not


def test_a_parsed_knowledge_file_is_kept_as_json_and_read_back_only_for_the_same_text(tmp_path, monkeypatch):
    # with the analyze cache on, each knowledge TOML file is parsed once and kept as JSON (tomllib cost a warm run
    # ~30 ms): read back equal to tomllib's result for every file shipped; a kept file that is damaged, of another
    # text or not a regular file is parsed again
    import hashlib
    import json
    import os
    from pathlib import Path

    parses = []
    real = k._toml.loads
    monkeypatch.setattr(k._toml, "loads", lambda text: parses.append(1) or real(text))
    folder = Path(k._HERE)
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.toml"))
    assert "third_party.toml" in names and "data/device_neutral.toml" in names
    for name in names:
        text = (folder / name).read_text(encoding="utf-8")
        parses.clear()
        first = k._parsed_toml(name, text, str(tmp_path))
        again = k._parsed_toml(name, text, str(tmp_path))
        assert first == again == real(text) and len(parses) == 1  # the second read decodes the kept JSON
    name, text = "third_party.toml", (folder / "third_party.toml").read_text(encoding="utf-8")
    kept = tmp_path / "knowledge-third_party.toml.json"
    for damage in ("truncate", "other_text", "not_a_dict", "fifo"):
        if damage == "truncate":
            kept.write_bytes(kept.read_bytes()[:-9])
        elif damage == "not_a_dict":
            digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
            kept.write_text(json.dumps({"digest": digest, "data": [1]}))  # this text's digest, data of another shape
        elif damage == "fifo":
            kept.unlink()
            os.mkfifo(kept)
        parses.clear()
        edited = text + "\n# edited\n" if damage == "other_text" else text
        assert k._parsed_toml(name, edited, str(tmp_path)) == real(text) and len(parses) == 1, damage
    # the FIFO was never opened (the run did not block): replaced by the kept JSON, read back without parsing
    parses.clear()
    assert kept.is_file() and k._parsed_toml(name, text, str(tmp_path)) == real(text) and parses == []
