"""Cheap exact pre-tests in front of costly work: a pre-test may skip only work that would find nothing.

Each test here checks a pre-test against the work it guards, on inputs built to sit at its edge (the
spellings the pre-test must still let through)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from migrate import cuda_builds


def _mentions_without_pretest(text: str) -> list[str]:
    """`cuda_builds.mentions` read off its two patterns alone, over the whole text."""
    out = set(cuda_builds.named(text))
    out.update(cuda_builds.wildcards(text))
    if cuda_builds._EXTENSION_FILTER.search(text) and cuda_builds._LISTS_A_DIRECTORY.search(text):
        out.add(cuda_builds.WILDCARD)
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
        # a relative folder is kept (resolved by `drop_unbuilt`); a URL's or an absolute path's is not
        "sources = ['src/k.cu']": ["cu:src/k.cu"],
        "#include <gpu/bvh.cuh>": ["cu:gpu/bvh.cuh"],
        "# from https://github.com/o/r/blob/main/k.cu": ["cu:k.cu"],
        "nvcc /opt/src/k.cu": ["cu:k.cu"],
        "nvcc -c kernel.cu": ["cu:kernel.cu"],
        "src = 'ядро.cu'": ["cu:ядро.cu"],
        "glob('csrc/*.cu.in')": [cuda_builds.WILDCARD],
        # names of `.cu` files only (set 19: a header is then built where a source includes it)
        "name + '.cu'": [cuda_builds.CU_WILDCARD],
        "exts = ['.cpp', '.cu']": [cuda_builds.CU_WILDCARD],
        "glob('*.cuh')": [cuda_builds.WILDCARD],
        # a pattern under a literal relative folder: that folder's files of that extension (set 25b, Atom's setup.py)
        "glob('k/*.cuh')": ["cu:k/*.cuh"],
        "glob('punica/ops/csrc/gen/*.cu') + glob('a/**/*.cu')": [cuda_builds.CU_WILDCARD, "cu:punica/ops/csrc/gen/*.cu"],
        # a directory walk filtered by extension (PointTransformerV2 libs/pointops/setup.py); the same filter without a
        # listing is a compiler hook's test (faster-rcnn.pytorch), no wildcard
        "[os.path.join(r, f) for r, _, fs in os.walk('src') for f in fs if f.endswith('.cpp') or f.endswith('.cu')]":
            [cuda_builds.WILDCARD],
        "[p for p in Path(d).rglob('*') if os.path.splitext(p)[1] == '.cu']": [cuda_builds.WILDCARD],
        "if os.path.splitext(src)[1] == '.cu': self.set_executable('compiler_so', CUDA['nvcc'])": [],
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
    # optional_modules reads each importer of a candidate module's imports from the first pass (no second parse: torch
    # 326 files, 6-7 s CPU in the parent); they are cached under the file's content, so a warm run parses none (torch:
    # 1.9 s of a 3.7 s warm run), an edited importer is read again, and a damaged entry is parsed around
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

    # cold: use.py's imports come from the first pass (fact "optimp"), not a second parse; quick.py optional
    assert kept() == ["eager.py"] and len(parses) == 0
    assert kept() == ["eager.py"] and len(parses) == 0  # warm: nothing parsed, the imports read from the cache
    (repo / "pkg/use.py").write_text("from . import quick\nfrom . import eager\n")
    os.utime(repo / "pkg/use.py", (old + 1, old + 1))
    assert kept() == ["eager.py", "quick.py"] and len(parses) == 0  # the importer changed: read again in the first pass
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
    assert kept() == ["eager.py", "quick.py"] and len(parses) == 1  # damaged: parsed around, same findings


def test_optional_modules_read_imports_from_the_node_index_as_the_statement_walk_reads_them():
    # the first pass records each file's imports from the node index and parents the rules use (no walk of every
    # statement, no second parse in drop_optional_modules): the same names, guarded flags and order as the walk
    import ast

    from migrate.context import index_tree
    from migrate.optional_modules import tree_imports

    source = (
        "import os, a.b as c\n"
        "try:\n    from .x import y\n    import marlin\nexcept ImportError:\n    import z\n    from . import marlin\n"
        "try:\n    try:\n        from ..q import r\n    except ValueError:\n        from ..q import w\n"
        "except (ModuleNotFoundError, KeyError):\n    pass\nelse:\n    import e1\nfinally:\n    import f1\n"
        "try:\n    try:\n        import k\n    except ImportError:\n        import k\nexcept RuntimeError:\n    import n\n"
        "if is_apex_available():\n    from apex import amp\nelse:\n    from torch.cuda import autocast\n"
        "if HAS_APEX and args.fused:\n    import apex.optimizers\n"
        "if env['has_flash_attn_3']:\n    if cond:\n        from . import fa3\n"
        "def f():\n    try:\n        from .deep import thing\n    except:\n        pass\n    import plain\n"
        "class C:\n    def m(self):\n        with lock:\n            try:\n                import w2\n"
        "            except Exception:\n                w2 = None\n"
        "match v:\n    case 1:\n        try:\n            import mm\n        except ImportError:\n            mm = None\n"
        "try:\n    import s1\nexcept* ImportError:\n    pass\n"
        "for i in x:\n    pass\nelse:\n    try:\n        from ... import up\n    except ImportError:\n        up = None\n"
        "if experimental and 'cuda' in str(self.device):\n    from .cuda import te_model\n"  # a CUDA-device branch (f18b)
        "if device.type == 'cuda':\n    import cu_only\nif torch.cuda.is_available():\n    import cu_avail\n"
    )
    tree = ast.parse(source)
    nodes, parents = index_tree(tree)
    for path in ("pkg/sub/mod.py", "pkg/sub/__init__.py"):
        walked = tree_imports(tree, path)
        assert tree_imports(tree, path, nodes, lambda n: parents.get(id(n))) == walked
        flags = {name[-1] if name else "": guarded for name, guarded, _ in walked}
        # guarded where the walk guards; not where a handler imports the same name again (`marlin`, `k`)
        assert flags["te_model"] and flags["cu_only"] and flags["cu_avail"]
        assert flags["y"] and flags["r"] and flags["amp"] and flags["fa3"] and flags["thing"] and flags["w2"] and flags["mm"]
        assert not flags["marlin"] and not flags["k"] and not flags["os"] and not flags["e1"] and not flags["s1"] \
            and not flags["autocast"]


def test_a_cached_finding_read_back_from_its_row_equals_the_finding_stored():
    # the results file stores a finding as a row of its fields and builds it back without Finding.__init__ (a warm
    # run reads thousands): every field, the defaults, equality and the hash are those of the finding stored
    import json

    from migrate import cache
    from migrate.findings import Category, Edit, FileResult, Finding, Severity

    full = Finding("a/b.py", 3, 5, 4, 9, "NPU507", Severity.WARNING, Category.THIRD_PARTY, "m ü", True,
                   (Edit(3, 4, 3, 8, "npu"), Edit(4, 0, 4, 2, "")), 2, "torch.npu", "apex", True)
    bare = Finding("a/b.py", 1, 1, 1, 2, "NPU101", Severity.ERROR, Category.DEVICE, "x")
    stored = json.loads(json.dumps(cache.result_to_dict(FileResult("a/b.py", "python", 9, (full, bare), (), 1, (("ref", "x"),)))))
    back = cache.result_from_dict("a/b.py", stored)
    assert back.findings == (full, bare) and [hash(f) for f in back.findings] == [hash(full), hash(bare)]
    assert [vars(f) for f in back.findings] == [vars(full), vars(bare)]
    assert back == FileResult("a/b.py", "python", 9, (full, bare), (), 1, (("ref", "x"),))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.integers(0, 12)), max_size=25), st.integers(0, 45))
@example([(3, 2), (4, 2)], 5)  # (3, 5) and (4, 6) hold line 5, both 2 long: the first sorted, as min() gave
def test_the_statement_holding_a_line_is_the_shortest_range_holding_it_the_first_sorted_on_a_tie(pairs, line):
    # suppress.StatementRanges.lines_for scans back from the last range starting at or before the line and stops early:
    # the same range as the smallest-length one of all holding it (ties: the first in sorted order), else the line
    from migrate.suppress import StatementRanges

    ranges = sorted((start, start + length) for start, length in pairs)
    statements = StatementRanges.__new__(StatementRanges)
    statements._ranges, statements._starts = ranges, [start for start, _ in ranges]
    holding = [(start, end) for start, end in ranges if start <= line <= end]
    start, end = min(holding, key=lambda r: r[1] - r[0]) if holding else (line, line)
    assert statements.lines_for(line) == range(start, end + 1)


NOQA_SHAPES = (
    "x = 1  # noqa: NPU101\n",
    "x = 'a # noqa'  # real comment\ny = 'b # noqa'\n",  # `#` in a string before the comment; a string only
    "s = '''doc\n# noqa: NPU102 inside the docstring\n'''  # noqa: NPU103\n",  # a `#` in a triple-quoted string
    "s = r'''a\\''' b # noqa'''  # NOQA\n",  # an escaped quote does not close it
    "s = ('a'  # noqa: NPU104 between the parts\n     'b')\n",  # implicitly concatenated over two lines
    "s = ('''a''' '''\n# noqa''')  # noqa\n",  # triple-quoted parts, a comment-looking line inside the second
    "s = b'\\x00' + f'{x}#'  # noqa:NPU105\r\nt = 2  # npu-migrate: noqa\r\n",  # bytes, an f-string, CRLF
    "s = 'é' + \"ü#\"  # noqa: NPU106 après\n",  # non-ASCII before the `#`
    "def f():\n    '''x\n    noqa'''\n    return 1  # noqa\n",
    "noqa_flag = 1\nx = [noqa_flag,  # keep\n     2]  # noqa\n",
)


def test_noqa_comments_read_off_the_tree_are_the_comments_tokenize_gives():
    # suppress.noqa_comments: the comments of the lines that mention noqa, from the tree's string spans (the
    # only comments the noqa reading acts on); None (tokenize) only where a comment may sit between string parts
    import ast

    from migrate import suppress
    from migrate.context import index_tree, split_lines

    fell_back = []
    for text in NOQA_SHAPES + tuple(open(path, encoding="utf-8").read() for path in (suppress.__file__, __file__)):
        lines = split_lines(text)
        found = suppress.noqa_comments(lines, index_tree(ast.parse(text))[0])
        marked = {number for number, line in enumerate(lines, 1) if "noqa" in line.lower()}
        if found is None:
            fell_back.append(text)
            continue
        assert found == {k: v for k, v in suppress.python_comments(text).items() if k in marked}, text
    assert fell_back == [NOQA_SHAPES[4], NOQA_SHAPES[5]]


def test_noqa_comments_of_a_file_in_newer_syntax_are_tokenized(monkeypatch):
    # a tree read by newer_syntax.parse_newer (3.12 syntax): its comments come from tokenize as before, not the tree
    from migrate import engine, suppress

    tokenized = []
    real = suppress.python_comments
    monkeypatch.setattr(suppress, "python_comments", lambda text: tokenized.append(text) or real(text))
    newer = "def f[T](x: T) -> T:\n    return x.cuda()  # noqa: NPU101\n"
    plain = "def f(x):\n    return x.cuda()  # noqa: NPU101\n"
    for text in (newer, plain):
        findings, errors, suppressed = engine.analyze_python_text("m.py", text, "2.14.0")
        assert (findings, errors, suppressed) == ([], [], 1)
    assert tokenized == [newer]


def test_the_pip_table_is_built_once_per_knowledge_table_and_again_for_another(monkeypatch):
    # NPU502's pip table (sorted pip names -> import keys) is kept for the third-party table it was read from: the
    # same object while knowledge.third_party() gives the same table, built afresh from a table that replaced it
    import dataclasses

    from migrate import knowledge
    from migrate.rules import npu502_gpu_only_dependency as npu502

    first = npu502._pip_table()
    assert npu502._pip_table() is first and ("flash-attn", "flash_attn") in first
    table = dict(knowledge.third_party())
    table["flash_attn"] = dataclasses.replace(table["flash_attn"], pip_names=("flash-attention-x",))
    monkeypatch.setattr(knowledge, "third_party", lambda: table)
    other = npu502._pip_table()
    assert ("flash-attention-x", "flash_attn") in other and ("flash-attn", "flash_attn") not in other
    monkeypatch.undo()
    assert npu502._pip_table() == first


def test_the_pip_lookup_through_its_index_answers_as_the_scan_of_the_table():
    # GpuOnlyDependency._lookup reads an index of the table (plain names in a dict, the globs in order): the key of
    # the first entry matching, a glob listed before a plain name winning over it, as the scan of every entry found it
    from fnmatch import fnmatchcase

    from migrate.rules import npu502_gpu_only_dependency as npu502

    def scanned(name, pips):
        return next((key for pattern, key in pips if pattern == name or ("*" in pattern and fnmatchcase(name, pattern))), None)

    made = (("cupy-cuda*", "cupy"), ("flash-attn", "flash_attn"), ("flash-attn", "other"), ("nvidia-*", "nvidia"),
            ("nvidia-dali", "dali"), ("tensorrt", "tensorrt"))
    real = npu502._pip_table()
    names = {p.replace("*", "12x") for p, _ in (*made, *real)} | {p for p, _ in (*made, *real)} | {"numpy", "torch", ""}
    for pips in (made, real):
        for name in names:
            assert npu502.GpuOnlyDependency._lookup(name, pips) == scanned(name, pips), name
    assert npu502.GpuOnlyDependency._lookup("nvidia-dali", made) == "nvidia"  # the glob comes first


def test_the_node_index_holds_what_ast_walk_finds_in_its_order_with_each_parent():
    # context.index_tree (generated visitors per node class): every node `ast.walk` finds but the shared ctx / op
    # singletons, bucketed by class in walk order, and each node's parent as ast.iter_child_nodes gives it; on this
    # project's sources, the shapes they lack, None among a list's items (`{**d}`, a keyword-only argument without a
    # default) and a node built by hand without its list fields
    import ast
    from pathlib import Path

    from migrate.context import index_tree

    shared = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    extra = ("match p:\n    case {'k': [1, *rest]} | Point(x=0) as q if q:\n        pass\n"
             "try:\n    pass\nexcept* (ValueError, TypeError) as group:\n    global g\n"
             "def f(a, /, b=1, *c, d, e=2, **k) -> int:\n    return {**k, 1: 2}\n"
             "f = lambda a=1, *b, c, **d: [y async for y in a if (z := y)]\nprint(f'{x!r:>{w}}', {**d}, {1: 2}[1:2:3])\n")
    trees = [ast.parse(Path(p).read_text()) for p in ("migrate/engine.py", "migrate/context.py", "migrate/rules/_device_helpers.py")]
    trees += [ast.parse(extra), ast.Module(body=[ast.Expr(ast.Call(ast.Name("f", ast.Load())))])]  # Call without args
    for tree in trees:
        walked = [n for n in ast.walk(tree) if not isinstance(n, shared)]
        nodes, parents = index_tree(tree)
        by_class = {}
        for node in walked:
            by_class.setdefault(node.__class__, []).append(node)
        assert list(nodes) == list(by_class)
        assert all([id(n) for n in nodes[cls]] == [id(n) for n in by_class[cls]] for cls in by_class)
        expected = {id(child): node for node in walked for child in ast.iter_child_nodes(node) if not isinstance(child, shared)}
        assert parents.keys() == expected.keys() and all(parents[key] is expected[key] for key in expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["apex", "apex_C", "triton", "xformers", "import ", "cud", "a", "flash_attn", "\n", "é",
                                 "mmcv", "nvidia", "cupy", "pynvml", "_", "."]), max_size=8).map("".join))
def test_wants_exports_reads_the_trigger_search_and_the_minimal_hints_as_a_search_of_every_hint(text):
    # reexports.wants_exports: the hints holding no other hint, each answered from what engine._applying found of the
    # text where it searched it: the same answer as searching every hint in the text
    from migrate import engine, knowledge, reexports

    version = knowledge.resolve_version(None)
    searched: dict[str, bool] = {}
    engine._applying(engine._rules_for(version)["python"], text, engine._kb(version), searched)
    expected = "cuda" in text or any(hint in text for hint in reexports._hints())
    assert reexports.wants_exports(text, searched) == expected == reexports.wants_exports(text)


@given(st.lists(st.sampled_from(["torch.load", "torch", ".", "load", "(", "CUDA_", "HOME", "cuda", "nvidia-smi", " ",
                                 "\n", "é", "_", "x", "apex", "Extension(", "cpp_extension", "-", "'", "\t"]),
                max_size=10).map("".join))
def test_trigger_search_in_distinct_runs_and_words_answers_as_a_search_of_the_text(text):
    # engine._applying searches word triggers in the distinct words, others without whitespace in the distinct runs
    from migrate import engine, knowledge

    version = knowledge.resolve_version(None)
    kb = engine._kb(version)
    for rules in engine._rules_for(version).values():
        searched: dict[str, bool] = {}
        active = engine._applying(rules, text, kb, searched)
        assert all(hit == (trigger in text) for trigger, hit in searched.items())
        assert active == [r for r in rules if not engine._minimal_triggers(r, kb)
                          or any(t in text for t in engine._minimal_triggers(r, kb))]
