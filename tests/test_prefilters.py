"""Cheap exact pre-tests in front of costly work: a pre-test may skip only work that would find nothing.

Each test here checks a pre-test against the work it guards, on inputs built to sit at its edge (the
spellings the pre-test must still let through)."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from migrate import cuda_builds


def _mentions_without_pretest(text: str) -> list[str]:
    """`cuda_builds.mentions` read off its two patterns alone, over the whole text."""
    out = {"cu:" + os.path.basename(m) for m in cuda_builds._NAMED.findall(text)}
    out.update(cuda_builds.wildcards(text))
    return sorted(out)


# the pieces a CUDA file name, a wildcard or a near miss is made of (`torch.cuda`, `.cu.bak`, `k.cuh2`)
_PIECES = st.sampled_from([".cu", ".cuh", ".cuda", "k", "h", "2", "_", "é", "*", "{", "}", "%s", "+", " ", "'", '"', ",", "[",
                           "/", ".", "-", "\n", "f", "r"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_cuda_file_mentions_pretest_skips_only_texts_without_a_match(text):
    assert cuda_builds.mentions(text) == _mentions_without_pretest(text)


def test_cuda_file_mentions_in_less_obvious_spellings_are_still_read():
    # a name at the very end of the text, a header, a non-ASCII name, a wildcard before a dot, a computed name
    cases = {
        "sources = ['src/k.cu']": ["cu:k.cu"],
        "#include <gpu/bvh.cuh>": ["cu:bvh.cuh"],
        "nvcc -c kernel.cu": ["cu:kernel.cu"],
        "src = 'ядро.cu'": ["cu:ядро.cu"],
        "glob('csrc/*.cu.in')": [cuda_builds.WILDCARD],
        # names of `.cu` files only (set 19: a header is then built where a source includes it)
        "name + '.cu'": [cuda_builds.CU_WILDCARD],
        "exts = ['.cpp', '.cu']": [cuda_builds.CU_WILDCARD],
        "glob('k/*.cuh')": [cuda_builds.WILDCARD],
        "torch.cuda.synchronize()  # no CUDA file here": [],
        "k.cuh2 k.cu_old k.cu.bak": [],
    }
    for text, expected in cases.items():
        assert cuda_builds.mentions(text) == expected, text


def _npu507_lines(source: str) -> list[int]:
    from migrate import engine, knowledge

    findings, errors, _ = engine.analyze_python_text("launch.py", source, knowledge.resolve_version(None))
    assert not errors
    return sorted(f.line for f in findings if f.code == "NPU507")


def test_gpu_only_returners_are_found_through_an_alias_and_a_bound_name():
    # NPU507's pre-test looks at every returned and assigned value of the file; here the kernel class comes
    # through an `as` name, the returned value is a name bound to it first, and the function is async
    source = (
        "from cupy import RawKernel as RK\n"      # 1
        "async def launch(name, src):\n"          # 2
        "    kernel = RK(src, name)\n"            # 3: the construction, reported as a use
        "    return kernel\n"                     # 4
        "def run(x):\n"                           # 5
        "    launch('k', 'src')(grid=(1,), args=[x])\n"  # 6: a call of what launch returned
        "    k = launch('k', 'src')\n"            # 7
        "    k(grid=(1,), args=[x])\n")           # 8
    assert _npu507_lines(source) == [3, 6, 8]
    # the same returned through a module alias, directly
    source = ("import cupy as cp\n"
              "def launch(name, src):\n"
              "    return cp.RawKernel(src, name)\n"
              "launch('k', 'src')(grid=(1,), args=[])\n")
    assert _npu507_lines(source) == [3, 4]


def test_optional_modules_see_imports_nested_in_any_statement(tmp_path):
    # optional_modules reads only statements for imports (an expression holds none): an import nested in a match
    # case, a `with` in a method, an `else` in a loop or a `try/except*` body outside an ImportError handler is still
    # seen, so each module below, imported once in a try and once there, keeps its findings
    from migrate.engine import scan

    gpu = "import marlin\ndef mul(a, b):\n    return marlin.mul(a, b)\n"
    files = {
        "pkg/__init__.py": "", "pkg/case.py": gpu, "pkg/inwith.py": gpu, "pkg/inelse.py": gpu, "pkg/star.py": gpu,
        "pkg/only.py": gpu,
        "pkg/guarded.py": "".join(f"try:\n    from . import {m}\nexcept ImportError:\n    {m} = None\n"
                                  for m in ("case", "inwith", "inelse", "star", "only")),
        "pkg/user.py": (
            "def pick(kind):\n    match kind:\n        case 'fast':\n            from . import case\n            return case\n"
            "class Loader:\n    def load(self, lock):\n        with lock:\n            from . import inwith\n        return inwith\n"
            "for i in range(2):\n    pass\nelse:\n    from . import inelse\n"
            "try:\n    from . import star\nexcept* ValueError:\n    pass\n"),
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    result = scan([str(tmp_path)], use_cache=False)
    kept = {f.path.rsplit("/", 1)[-1] for f in result.findings if f.code == "NPU501"}
    assert kept == {"case.py", "inwith.py", "inelse.py", "star.py"}  # only.py: imported in a try alone, optional


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["npu", "NPU", "Npu", "nPU", "hccl", "HcCl", "hcc", "in", "_", "1", "a", "Z", " ", ".", "\n",
                                 "put", "İ", "K", "é", "torch_npu", "input"]), max_size=10).map("".join))
def test_npu_mentions_read_off_the_lower_case_text_as_the_pattern_reads_them(text):
    from migrate import npu_aware

    assert npu_aware.mentions_npu(text) == (npu_aware._MENTIONS_NPU.search(text) is not None)


def test_subtree_finds_what_ast_walk_finds():
    # context.subtree stands in for `ast.walk` where only the set of nodes matters (names a function binds); on three of
    # this project's sources plus the shapes they lack: the same nodes but for the shared ctx / op singletons
    import ast
    from pathlib import Path

    from migrate.context import subtree

    shared = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    extra = ("match p:\n    case {'k': [1, *rest]} | Point(x=0) as q if q:\n        pass\n"
             "try:\n    pass\nexcept* (ValueError, TypeError) as group:\n    global g\n"
             "f = lambda a=1, *b, c, **d: [y async for y in a if (z := y)]\nprint(f'{x!r:>{w}}', {**d}, {1: 2}[1:2:3])\n")
    sources = [Path(p).read_text() for p in ("migrate/engine.py", "migrate/context.py", "migrate/rules/_device_helpers.py")] + [extra]
    for source in sources:
        tree = ast.parse(source)
        roots = tree.body
        expected = {id(n) for root in roots for n in ast.walk(root) if not isinstance(n, shared)}
        found = [id(n) for n in subtree(roots)]
        assert len(found) == len(set(found)) and set(found) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([".so", ".sort", ".so.1", "lib", "k", "_", "'", '"', "/", "\\", "(", " ", "\n", "é", "2"]),
                max_size=12).map("".join))
def test_shared_library_references_pretest_skips_only_texts_without_a_match(text):
    from migrate import repo_index

    refs = [r for r in repo_index.import_facts("pkg/mod.py", text)[0] if r.startswith("so:")]
    assert refs == sorted({"so:" + stem for stem in repo_index._SHARED_LIB.findall(text)})


def test_uses_reads_the_chains_of_its_prefix_group_as_a_scan_of_all_chains_would():
    import ast

    from migrate import knowledge, repo_index
    from migrate.context import PythonContext
    from migrate.rules._device_helpers import chain_tops, under, uses

    source = ("import torch\nimport torch.cuda as tc\nfrom torch.cuda import amp\nimport apex\nfrom . import ext\n"
              "torch.cuda.synchronize(); tc.get_device_properties(0).major; amp.autocast(); apex.amp.initialize()\n"
              "torch.backends.cudnn.benchmark = True; x = torch.cudax; torch.cuda = None; ext.op(1)\n")
    ctx = PythonContext("pkg/m.py", source, ast.parse(source), knowledge.load(None))
    prefixes = ["torch", "torch.cuda", "torch.cuda.amp", "torch.cuda.get_device_properties", "torch.backends", "apex",
                "apex.amp", "pkg.ext", "pkg.ext.op", "torch.cudax"]

    def scanned(prefix, loads_only):
        return [(n, q) for n, q in chain_tops(ctx) if under(q, prefix)
                and (not loads_only or isinstance(getattr(n, "ctx", None), ast.Load))]

    for loads_only in (True, False):
        for prefix in prefixes:
            assert list(uses(ctx, prefix, loads_only=loads_only)) == scanned(prefix, loads_only), prefix
    # names bound after the first look (linking binds relative imports): the groups follow the new chain list
    assert not list(uses(ctx, "pkg.ext"))
    ctx.imports["ext"] = "pkg.ext"
    repo_index.forget_resolved_names(ctx)
    assert [q for _, q in uses(ctx, "pkg.ext")] == ["pkg.ext.op"] == [q for _, q in scanned("pkg.ext", True)]


def test_a_file_is_read_with_the_cycle_collector_off_and_the_collector_is_restored_after(monkeypatch):
    # not a pre-test: the other cost cut of the analyze pass (fileio.no_cycle_collection), checked to leave the
    # collector as it found it, also when a file fails
    import gc

    from migrate import engine

    seen = []

    def spy(target, data, version):
        seen.append(gc.isenabled())
        if data == b"boom":
            raise RuntimeError("boom")
        return "result"

    monkeypatch.setattr(engine, "_analyze_file", spy)
    target = engine.Target("m.py", ("python",))
    was = gc.isenabled()
    try:
        gc.enable()
        assert engine.analyze_file(target, b"x = 1\n", "v") == "result" and gc.isenabled()
        assert engine._worker_batch([(target, b"x = 1\n"), (target, b"y = 2\n")], "v") == ["result", "result"]
        assert gc.isenabled()
        try:
            engine.analyze_file(target, b"boom", "v")
        except RuntimeError:
            pass
        assert gc.isenabled()
        gc.disable()
        engine.analyze_file(target, b"x = 1\n", "v")
        assert not gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()
    assert seen == [False] * 5


def test_a_warm_run_reads_the_importers_of_optional_modules_from_the_cache(tmp_path, monkeypatch):
    # optional_modules parses each importer of a candidate module; their imports are cached under the file's content,
    # so a warm run parses none (torch: 56 files, 1.9 s of a 3.7 s warm run), an edited importer is read again, and a
    # damaged entry is parsed around
    import json
    import os
    import time

    from migrate import fileio
    from migrate.engine import scan

    repo, cache = tmp_path / "repo", tmp_path / "cache"
    gpu = "import marlin\ndef mul(a, b):\n    return marlin.mul(a, b)\n"
    files = {"pkg/__init__.py": "", "pkg/quick.py": gpu, "pkg/eager.py": gpu,
             "pkg/use.py": "try:\n    from . import quick\nexcept ImportError:\n    quick = None\nfrom . import eager\n"}
    old = time.time() - 60
    for name, body in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(body)
        os.utime(repo / name, (old, old))  # not "modified within the last 2 s": the stat shortcut of the cache applies
    parses = []
    real = fileio.parse_python
    monkeypatch.setattr(fileio, "parse_python", lambda text: parses.append(1) or real(text))

    def kept():
        result = scan([str(repo)], cache_dir=cache)
        return sorted(f.path.rsplit("/", 1)[-1] for f in result.findings if f.code == "NPU501")

    assert kept() == ["eager.py"] and len(parses) == 1  # cold: use.py parsed once; quick.py optional
    assert kept() == ["eager.py"] and len(parses) == 1  # warm: nothing parsed
    (repo / "pkg/use.py").write_text("from . import quick\nfrom . import eager\n")
    os.utime(repo / "pkg/use.py", (old + 1, old + 1))
    assert kept() == ["eager.py", "quick.py"] and len(parses) == 2  # the importer changed: read again
    stored = None
    for file in cache.glob("analyze-*.json"):
        entries = json.loads(file.read_text())
        if any(k.startswith("imports|") for k in entries):
            stored = file
            for k in entries:
                if k.startswith("imports|"):
                    entries[k] = [entries[k][0], [["not", "rows"]]]
            file.write_text(json.dumps(entries))
    assert stored is not None
    assert kept() == ["eager.py", "quick.py"] and len(parses) == 3  # damaged: parsed around, same findings
