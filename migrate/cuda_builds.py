"""Which CUDA source files a repository builds: a `.cu` / `.cuh` file nothing builds is no work item.

NPU506 reports each CUDA source file once (the kernels in it must be rewritten for Ascend). A file that
no build, include or script of the scan names (faster-rcnn.pytorch's `lib/model/nms/nms_kernel.cu`, an
older copy beside the `src/nms_cuda_kernel.cu` its make.sh compiles) is not part of the port; its
finding is dropped. Decided after the per-file pass, from per-file facts (`mentions`, cached with each
file) on every run, and only where nothing can build a file without naming it:

- the scan must hold a CUDA build this tool recognises (an NPU505 or NPU511 finding: a setup.py / JIT /
  cffi build, an nvcc command, a CMake CUDA target); with none, the build is somewhere the scan does not
  read (a Makefile, another repository), and every CUDA file stays reported;
- a wildcard mention anywhere but in a shell / CI file that runs no nvcc (a formatter's `find -name '*.cuh'`) or a
  Python comment (StyleGAN3's `# around the *.cu dependency bug in ninja config.`; a file a Python comment names by
  name still counts)
  (`glob("src/*.cu")`, `file(GLOB ... *.cu)`, a name computed into
  `"{}.cu".format(name)` / f"{name}.cu" / `name + ".cu"`, not `os.path.splitext(__file__)[0] + ".cu"`, which names
  the one file beside the module with its stem, StyleGAN2's TensorFlow ops; the bare extension as an element of a source
  walker's list: `[".cpp", ".cu"]`, an extension filter `f.endswith(".cu")` in a text that lists a directory)
  or a quoted file pattern whose extension part matches `.cu` beside others (`"*.c*"`, `"*.c?"`: Gorilla-Lab's
  `get_sources(module, surfix="*.c*")`; not `*.cpp`, `*.c` or `*.*`)
  could name any file: every file stays reported (a bare `'.cu'` elsewhere,
  `compiler.src_extensions.append('.cu')`, says how listed sources compile, not which);
- a wildcard that can only match `.cu` files (`"*.cu"`, not `*.cuh` / `*.cu*`) keeps every `.cu` file; a `.cuh`
  header is then kept where another file names (includes) it, as below; a pattern joined to a variable after literal
  folder names (`os.path.join(extensions_dir, "cuda", "*.cu")`) keeps only the `.cu` files of folders ending in those
  names (InternImage: a TensorRT plugin's kernel shipped for another project's build, in a folder of its own, is not
  one; label rule 27d-5), and of those under the naming file's folder where there are any (the variable is most often
  that folder joined: Vision-RWKV's detection/ops/setup.py does not build the backbones' old `cuda/` copies, set 72c);
- headers named for nvcc (`.cu.h`, `.cu.hpp`: spconv 1.x) are CUDA files like `.cuh`, built where a built file
  includes them;
- otherwise a file is built when another file names it (a source list, an nvcc command, an
  `#include "k.cuh"`), by file name; a Makefile names none (label ruling (L19): the sources only a Makefile builds,
  a developer's test program beside the package's kernels, are no porting work; NPU505 does not report its nvcc); a CUDA file that is itself not built names nothing (the include graph is
  walked from the built sources: a header included only by an unbuilt header is not built). A name written with a relative folder (`load(sources=["cuda/k.cu"])`)
  is resolved against the naming file's folder and each folder above it (a script may run from its own
  folder, from its project's or from the repository root): where that finds files of the scan, only those
  copies are built (RWKV-LM: `cuda/wkv7_cuda.cu` loaded by RWKV-v5/src/model.py builds RWKV-v5/cuda/, not the
  same-named copy in RWKV-v7/train_temp/cuda/ that no script there loads); where it finds none (a path
  relative to an include folder or to a `cd` of a shell script), the files whose path ends with it are (mmdet's
  `make_cuda_ext(module='pkg.ops.x', sources_cuda=['src/x_cuda.cu'])` joins it to the package folder: not the copy in
  src/temp/, label note 48b b-10), and with none of those any file of that name is, as before. A bare name
  (no folder: `#include "k.cuh"`, `load("ext", [os.path.join(root_dir, "k_impl.cu")])`) names the copies in the
  naming file's folder or below it where there are any, any copy otherwise (MixFormer's vendored PreciseRoIPooling:
  pytorch/prroi_pool/functional.py loads src/ under its own folder; the top-level src/ copies beside pytorch/, which
  nothing builds or includes, are not built; label note 44c c-3).
"""

from __future__ import annotations

import os
import posixpath
import re

from migrate.findings import FileResult
from migrate.sources import is_makefile

# a CUDA file named in text: `src/k.cu`, "k.cuh", <gpu/bvh.cuh>, <spconv/indice.cu.h>; the name's own characters only
# a name starts where a run of `[\w.+-]` starts (or after its leading dots): from a later position of the run the same
# greedy match, were there one, would have started earlier; the look-behind spares those tries (the whole run was
# scanned again from each of its characters)
_NAMED = re.compile(r"(?<![\w+-])([\w+-][\w.+-]*\.(?:cuh?|cu\.hpp|cu\.h))(?![\w.])")
# a pattern or a computed name that can stand for any CUDA file
_WILDCARD = re.compile(
    r"\*\.cuh?\b|\}\.cuh?\b|\+\s*[rbuf]?['\"]\.cuh?['\"]|%s\.cuh?\b"
    # the bare extension as an element of a list or tuple: a source walker's `[".cpp", ".cu"]`
    r"|[\[,]\s*[rbuf]?(['\"])\.cuh?\1|[rbuf]?(['\"])\.cuh?\2\s*,"
)
# a file-name filter on the bare extension (`f.endswith('.cu')`, `splitext(f)[1] == ".cu"`) in a text that lists a
# directory (`os.walk`, `os.listdir`, `os.scandir`, `glob`, `Path.iterdir` / `rglob`): PointTransformerV2's
# `[os.path.join(root, f) for root, dirs, files in os.walk('src') for f in files if f.endswith('.cpp') or
# f.endswith('.cu')]` selects every CUDA file under a folder. The same test without a listing says how listed sources
# compile (faster-rcnn.pytorch's nvcc compiler hook: `splitext(src)[1] == '.cu'`), not which
_EXTENSION_FILTER = re.compile(r"endswith\(\s*[rbuf]?(['\"])\.cuh?\1\s*\)|==\s*[rbuf]?(['\"])\.cuh?\2|(['\"])\.cuh?\3\s*==")
_LISTS_A_DIRECTORY = re.compile(r"\b(?:walk|listdir|scandir|glob|iglob|rglob|iterdir)\s*\(")
# every match of either pattern holds `.cu` / `.cuh` ending a word: a text without one has no match
# (`torch.cuda` holds `.cu`, so the plain `".cu" in text` test lets a quarter of the torch files through)
_ENDING = re.compile(r"\.cuh?\b")
WILDCARD = "cu:*"
# a wildcard that names `.cu` files only (`file(GLOB_RECURSE S "*.cu" "*.cc")`, microsoft/VPTQ csrc/CMakeLists.txt):
# a `.cuh` header is then built only where a file includes (names) it
CU_WILDCARD = "cu:*.cu"
_BUILD_CODES = ("NPU505", "NPU511")


# a C / C++ / CUDA comment (a string literal is matched first and kept): `// see pytorch/cuda/k.cu for the layout` in
# another device's source (mmcv's MLU sparse_conv_mlu.cpp) names the file for the reader, it includes nothing
_C_COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', re.S)
_C_LIKE = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".mm", ".mu", ".mlu")


# the module's own CUDA source, its path computed from `__file__` (StyleGAN2's TensorFlow ops, NVlabs/stylegan2
# dnnlib/tflib/ops/upfirdn_2d.py: `custom_ops.get_plugin(os.path.splitext(__file__)[0] + '.cu')`): it names the one
# file beside the module with its stem (`upfirdn_2d.cu`), not any CUDA file as another computed name (`name + ".cu"`) does
_OWN_SOURCE = re.compile(r"splitext\(\s*__file__\s*\)\s*\[\s*0\s*\]\s*\+\s*[rbu]?(['\"])\.(cuh?)\1")


def _without_python_comments(text: str) -> str:
    """A Python text without its `#` comments (StyleGAN3's torch_utils/custom_ops.py: `# around the *.cu dependency
    bug in ninja config.` names no file for a build); the text as it is where it does not tokenize."""
    import io
    import tokenize

    try:
        comments = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return text
    if not comments:
        return text
    lines = text.split("\n")
    for token in comments:
        row, column = token.start
        if row > len(lines):  # a lone carriage return counted as a line end
            return text
        line = lines[row - 1]
        lines[row - 1] = line[:column] + " " * (len(line) - column)
    return "\n".join(lines)


def mentions(text: str, path: str = "") -> list[str]:
    """Facts (`cu:<file name>`, or `cu:*` for a wildcard) for the CUDA files a file's text names; in a C / C++ / CUDA
    source, outside its comments. A C / C++ source's `#include` inside a block compiled only in a GPU build
    (`#if BUILD_CUDA`, `#ifdef WITH_CUDA`, `#if BUILD_CUDA || BUILD_HIP`: see _gpu_only_lines) names its file as
    `cu:@<name>`: only a build that defines that macro compiles it (built_only_by)."""
    if ".cu" not in text or not _ENDING.search(text):
        return [WILDCARD] if "*.c" in text and not path.endswith(_C_LIKE) and _matches_cuda(text) else []
    own = []
    if path.endswith(".py") and _OWN_SOURCE.search(text):  # `splitext(__file__)[0] + '.cu'`: the module's own CUDA file
        stem = posixpath.splitext(posixpath.basename(path.replace("\\", "/")))[0]
        own = [f"cu:{stem}.{m.group(2)}" for m in _OWN_SOURCE.finditer(text)]
        text = _OWN_SOURCE.sub("", text)
    if path.endswith(_C_LIKE):
        text = _C_COMMENT.sub(lambda m: m.group(1) or "", text)
        if not _ENDING.search(text):
            return []
        guarded = _gpu_only_lines(text)
        if guarded:
            lines = text.split("\n")
            outside = "\n".join("" if i in guarded else line for i, line in enumerate(lines))
            inside = "\n".join(line if i in guarded else "" for i, line in enumerate(lines))
            out = set(named(outside))
            out.update("cu:@" + fact[3:] for fact in named(inside) if fact not in out)
            out.update(wildcards(text))
            return sorted(out)
    out = set(named(text)) | set(own)
    if path.endswith(".py") and "#" in text:  # a file a comment names stays named; a pattern in one is prose
        text = _without_python_comments(text)
    out.update(wildcards(text))
    if "*.c" in text and _matches_cuda(text):
        out.add(WILDCARD)
    if _EXTENSION_FILTER.search(text) and _LISTS_A_DIRECTORY.search(text):  # a directory walk filtered by extension
        out.add(WILDCARD)
    return sorted(out)


# a preprocessor condition that holds only in a GPU build: identifiers (besides `defined`) that all name CUDA / HIP /
# ROCm / nvcc (`BUILD_CUDA`, `WITH_CUDA`, `__CUDACC__`, `BUILD_CUDA || BUILD_HIP`), no negation or comparison
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_GPU_MACRO = re.compile(r"CUDA|HIP|ROCM|NVCC", re.I)


def _gpu_condition(directive: str, condition: str) -> bool:
    if directive == "ifndef" or re.search(r"[!<>=]", condition):
        return False
    names = [n for n in re.findall(r"[A-Za-z_]\w*", condition) if n != "defined"]
    return bool(names) and all(_GPU_MACRO.search(n) for n in names)


def _gpu_only_lines(text: str) -> set[int]:
    """The 0-based lines of a C / C++ text inside a preprocessor block whose condition holds only in a GPU build
    (bitsandbytes' csrc/pythonInterface.cpp: `#if BUILD_CUDA` / `#include <ops.cuh>` / `#endif`, the file also built
    for the CPU); an `#else` / `#elif` branch of such a block is not (it is the other build's)."""
    if "#" not in text:
        return set()
    stack: list[bool] = []  # per open block: its current branch is GPU-only
    out: set[int] = set()
    for number, line in enumerate(text.split("\n")):
        match = _DIRECTIVE.match(line)
        if match:
            directive, condition = match.group(1), match.group(2)
            if directive in ("if", "ifdef", "ifndef"):
                stack.append(_gpu_condition(directive, condition))
            elif directive in ("elif", "else") and stack:
                stack[-1] = False
            elif directive == "endif" and stack:
                stack.pop()
            continue
        if any(stack):
            out.add(number)
    return out


# a quoted file pattern whose extension starts with `c` and holds a glob character (`"*.c*"`, `"src/*.c?"`): Gorilla-Lab's
# `get_sources(module, surfix="*.c*")` globs the `.cpp` and the `.cu` files of a folder alike
_EXTENSION_GLOB = re.compile(r"""(['"])([^'"\n]{0,200}?\*\.c[^'"\n/]*)\1""")


def _matches_cuda(text: str) -> bool:
    """The text holds a file pattern that matches `.cu` files beside others (`"*.c*"`); `"*.cu"` itself is read by
    `wildcards`."""
    import fnmatch

    return any(any(c in extension for c in "*?[") and fnmatch.fnmatchcase("k.cu", "*" + extension)
               for _, pattern in _EXTENSION_GLOB.findall(text) for extension in [pattern[pattern.rindex("*."):][1:]])


# the relative folder written before a CUDA file's name (`cuda/` in "cuda/k.cu", `../common/` in "../common/k.cuh"):
# folder names only, not the tail of a URL or of an absolute path (their first name follows a `/`)
_FOLDER = re.compile(r"(?<![\w./+-])(?:[\w.+-]+/)+$")


def named(text: str) -> list[str]:
    """The `cu:` facts of the CUDA files a text names: `cu:<name>`, or `cu:<folder>/<name>` where the name is written
    with a relative folder (resolved in `drop_unbuilt`)."""
    out = []
    for match in _NAMED.finditer(text):
        folder = _FOLDER.search(text, max(0, match.start() - 200), match.start())
        path = folder.group(0) + match.group(1) if folder else match.group(1)
        out.append("cu:" + posixpath.normpath(path))
    return out


_PATTERN_END = ("", "'", '"', " ", "\t", "\n", ")", ",", "]", "}")
# a pattern given as the last argument of a path join after a variable and literal folder names, `os.path.join(
# extensions_dir, "cuda", "*.cu")` (Deformable-DETR-style ops setup.py): the folder's own names are written, what
# comes before them is not; the fact `cu:.../cuda/*.cu` matches the files of any folder ending so (`drop_unbuilt`)
_JOINED = re.compile(r"\w\s*,\s*((?:[rbuf]?(['\"])[\w.+-]+\2\s*,\s*)+)[rbuf]?['\"]$")
_JOINED_PART = re.compile(r"(['\"])([\w.+-]+)\1")
_ANY_FOLDER = ".../"


def wildcards(text: str) -> set[str]:
    """The wildcard facts of a text: CU_WILDCARD for patterns naming `.cu` files only (`.cu` then a quote, a space,
    a bracket or the end), WILDCARD for any other (`*.cuh`, `*.cu*`, `*.cu.in`); a pattern written under a literal
    relative folder (`glob("punica/ops/csrc/gen/*.cu")`, `src/*.cuh`) is `cu:<folder>/*.cu(h)`: the files of that
    folder with that extension (resolved like a named file's relative folder, see `drop_unbuilt`)."""
    out = set()
    for match in _WILDCARD.finditer(text):
        if match.group(0).startswith("*") and text[match.end():match.end() + 1] in _PATTERN_END:
            folder = _FOLDER.search(text, max(0, match.start() - 200), match.start())
            if folder:  # `glob("csrc/gen/*.cu")`: the files of that folder only
                out.add("cu:" + posixpath.normpath(folder.group(0) + match.group(0)))
                continue
            joined = _JOINED.search(text, max(0, match.start() - 200), match.start())
            if joined:  # `os.path.join(extensions_dir, "cuda", "*.cu")`: the files of a folder so named, wherever it is
                parts = [part for _, part in _JOINED_PART.findall(joined.group(1))]
                out.add("cu:" + _ANY_FOLDER + "/".join(parts) + "/" + match.group(0))
                continue
        after = match.start(0) + match.group(0).rindex(".cu") + 3
        if text[after:after + 1] not in _PATTERN_END:
            out.add(WILDCARD)
            break
        out.add(CU_WILDCARD)
    return out


def drop_unbuilt(results: list[FileResult]) -> list[FileResult]:
    """Results without the NPU506 finding of a CUDA file nothing in the scan builds (see the module doc)."""
    sources = [r for r in results if any(f.code == "NPU506" for f in r.findings)]
    if not sources or not any(f.code in _BUILD_CODES for r in results for f in r.findings):
        return results
    built = built_sources(results, sources)
    if built is None:
        return results
    source_ids = {id(r) for r in sources}
    return [r.keeping(lambda f: f.code != "NPU506") if id(r) in source_ids and r.path not in built else r for r in results]


def built_sources(results: list[FileResult], sources: list[FileResult], ignored: frozenset[str] = frozenset(),
                  builds_only: frozenset[str] | None = None, gpu_guarded: bool = True) -> set[str] | None:
    """The paths of `sources` (CUDA files) that some file of `results` builds, by the namings the module doc lists;
    None where a wildcard could name any of them. The files of `ignored` name nothing (migrate/accelerator_builders.py:
    a CUDA file only an accelerator abstraction's CUDA-side builders name is built only through that abstraction), nor,
    where `builds_only` is given, does a script (Python, notebook, launcher) with no build finding of its own that it
    does not hold (a copyright or format script's `*.cu` list); sources still name what they include. Without
    `gpu_guarded`, an include compiled only in a GPU build (`cu:@<name>`, see mentions) names nothing."""
    named: dict[str, set[tuple[str, str]]] = {}  # file name -> (naming file, the relative path written, or "")
    every_cu = False  # a wildcard naming every `.cu` file (not the headers)
    patterns: list[tuple[str, str]] = []  # (naming file, `folder/*.cu` as written)
    for result in results:
        # a shell script or CI file that compiles nothing (no nvcc command): its pattern lists files for a tool
        # (`find csrc/ -name '*.cuh' | xargs clang-format -i`, microsoft/VPTQ scripts/format.sh), it builds none
        lister = result.kind == "launcher" and not any(f.code in _BUILD_CODES for f in result.findings)
        if is_makefile(result.path) or result.path in ignored:  # label ruling (L19): what only a Makefile builds is no porting work
            continue
        if (builds_only is not None and result.kind in ("python", "notebook", "launcher") and result.path not in builds_only
                and not any(f.code in _BUILD_CODES for f in result.findings)):
            continue
        for fact in getattr(result, "facts", ()):
            if fact[0] == "ref" and fact[1].startswith("cu:"):
                if lister and fact[1] in (WILDCARD, CU_WILDCARD):
                    continue
                if fact[1] == WILDCARD:
                    return None
                if fact[1] == CU_WILDCARD:
                    every_cu = True
                    continue
                written = fact[1][3:]
                if written.startswith("@"):  # included only under `#if BUILD_CUDA` (mentions)
                    if not gpu_guarded:
                        continue
                    written = written[1:]
                if "*" in written:  # `csrc/gen/*.cu`: the files with that extension of the folder it resolves to
                    patterns.append((result.path, written))
                    continue
                named.setdefault(posixpath.basename(written), set()).add((result.path, written if "/" in written else ""))
    candidates = {id(r) for r in sources if not (every_cu and r.path.endswith(".cu"))}
    scanned = {os.path.normpath(r.path) for r in results}
    folders = {os.path.dirname(p) for p in scanned}

    def resolved(naming: str, written: str, known: set) -> set:
        """The paths of `known` that `written` resolves to from the naming file's folder or one above."""
        folder, found = os.path.dirname(os.path.normpath(naming)), set()
        while True:
            candidate = os.path.normpath(os.path.join(folder, written))
            if candidate in known:
                found.add(candidate)
            parent = os.path.dirname(folder)
            if parent == folder:
                return found
            folder = parent

    def nearest(naming: str, path: str) -> bool:
        """A bare name (`#include "k.cuh"`, `os.path.join(root_dir, "k.cu")`) names the files so called in the naming
        file's folder or below it where the scan holds any there (the preprocessor looks beside the including file
        first; a loader joins its own folder's path), and any file so called otherwise."""
        base = os.path.dirname(os.path.normpath(naming))
        if not base:
            return True
        name = os.path.basename(path)
        inside = [p for p in scanned if os.path.basename(p) == name and p.startswith(base + os.sep)]
        return not inside or os.path.normpath(path) in inside

    def builds(naming: str, written: str, path: str) -> bool:
        """`naming` names the file at `path`: by its name, or by a relative path that resolves to it from the naming
        file's folder or one above; a relative path that resolves to no file of the scan names every file so called."""
        if naming == path:
            return False
        if not written:  # a bare name: the copies in the naming file's folder or below it where there are any
            return nearest(naming, path)
        found = resolved(naming, written, scanned) or ended_by(written)
        return not found or os.path.normpath(path) in found

    def ended_by(written: str) -> set:
        """The files of the scan whose path ends with the relative path `written` (`src/k.cu` joined by a build helper to
        a package folder, `os.path.join(*module.split('.'), p)`): not a same-named copy in another folder
        (`src/temp/k.cu`, label note 48b b-10)."""
        tail = os.sep + os.path.normpath(written)
        return {p for p in scanned if p.endswith(tail)}

    def globs(naming: str, written: str, path: str) -> bool:
        """The pattern `folder/*.cu` of `naming` matches the file at `path`: the extension, and the folder resolved from
        the naming file's folder or one above; a folder that resolves to no folder of the scan matches any such file.
        A folder joined to an unknown path (`.../cuda/*.cu`) matches the files of the folders ending in those names under
        the naming file's folder where there are any, of every folder ending so otherwise."""
        folder, extension = posixpath.split(written)
        if naming == path or not path.endswith(extension[1:]):
            return False
        if folder.startswith(_ANY_FOLDER):
            tail = "/" + folder[len(_ANY_FOLDER):]
            here = os.path.dirname(os.path.normpath(path))
            if not ("/" + here.replace(os.sep, "/")).endswith(tail):
                return False
            # the unknown path is most often the naming file's own folder joined (`this_dir = os.path.dirname(
            # os.path.abspath(__file__))`, `extensions_dir = os.path.join(this_dir, "src")`): where folders so named
            # lie under the naming file's folder, only theirs are built, not a same-named `cuda/` folder of another
            # project of the repository (OpenGVLab/Vision-RWKV: detection/ops/setup.py's `src/cuda/*.cu` glob does not
            # build the old cuda/wkv_cuda.cu copies of the classification and segmentation backbones, set 72c)
            base = os.path.dirname(os.path.normpath(naming))
            inside = [f for f in folders if ("/" + f.replace(os.sep, "/")).endswith(tail) and f.startswith(base + os.sep)] \
                if base else []
            return not inside or here in inside
        found = resolved(naming, folder, folders)
        return not found or os.path.dirname(os.path.normpath(path)) in found

    # the include graph is walked from what is built: a CUDA file that is itself dropped names nothing (QuaRot's
    # flashinfer/mma.cuh, included only by prefill.cuh, which no built source includes), so the built set grows from
    # the files that are no candidates (build scripts, C++ files, sources a wildcard builds) to a fixed point
    candidate_paths = {r.path for r in results if id(r) in candidates}
    built: set[str] = set()
    while True:
        grown = {r.path for r in results if id(r) in candidates and r.path not in built and (any(
            (naming not in candidate_paths or naming in built) and builds(naming, written, r.path)
            for naming, written in named.get(os.path.basename(r.path), ())) or any(
            (naming not in candidate_paths or naming in built) and globs(naming, written, r.path) for naming, written in patterns))}
        if not grown:
            break
        built |= grown
    return built | {r.path for r in sources if id(r) not in candidates}


def built_only_by(results: list[FileResult], files) -> set[str]:
    """The CUDA files (those with an NPU506 finding) that the files of `files` build and no other file of `results`
    does: what goes with a build reached only through another route (migrate/accelerator_builders.py,
    migrate/target_device_builds.py). Only files that build something name sources here (a script listing `*.cu`
    files for a tool builds none); empty where a wildcard could name any of them."""
    sources = [r for r in results if any(f.code == "NPU506" for f in r.findings)]
    if not sources:
        return set()
    files = frozenset(files)
    every = built_sources(results, sources, builds_only=files)
    # outside the route, a C++ source's include compiled only under a GPU macro (`#if BUILD_CUDA`) is not built: the
    # build that defines the macro is the route's CUDA build (bitsandbytes' CMake `add_compile_definitions(BUILD_CUDA)`
    # under its CUDA backend choice), the others compile the same C++ file without it
    elsewhere = built_sources(results, sources, files, builds_only=frozenset(), gpu_guarded=False)
    if every is None or elsewhere is None:
        return set()
    return every - elsewhere


def drop_route(results: list[FileResult], route, codes, sources: set[str], packages: set[str]) -> list[FileResult]:
    """`results` less what goes with a build reached by another route (migrate/accelerator_builders.py,
    migrate/target_device_builds.py): the `codes` findings of the files of `route`, NPU506 of `sources` (built_only_by)
    and NPU508 uses of the extensions in `packages`."""
    def keep(result):
        inside = result.path in route
        return lambda f: not ((inside and f.code in codes) or (f.code == "NPU506" and result.path in sources)
                              or (f.code == "NPU508" and f.package in packages))

    return [r.keeping(keep(r)) if r.findings else r for r in results]


def add_symlinked_sources(results: list[FileResult]) -> list[FileResult]:
    """A CUDA source of a CMake CUDA target that is a symbolic link to a C++ file (HawkAaron/warp-transducer:
    `CUDA_ADD_LIBRARY(warprnnt SHARED src/rnnt_entrypoint.cu)`, the `.cu` a link to `rnnt_entrypoint.cpp`, so nvcc
    compiles the C++ file as CUDA): the real file gets NPU506's finding at its line 1 (the walker reads the real
    file once, as C++). Only the sources the CMake targets list (`repo_index.cmake_defs`) are looked at."""
    links = []
    for result in results:
        if not result.path.endswith("CMakeLists.txt"):
            continue
        for fact in getattr(result, "facts", ()):
            if fact[0] == "def" and fact[1] == "module" and fact[4] and len(fact) > 5 and fact[5]:
                for source in str(fact[5]).split():
                    full = os.path.join(os.path.dirname(result.path), source)
                    if os.path.islink(full):
                        links.append((os.path.realpath(full), source, fact[2]))
    if not links:
        return results
    from migrate.findings import Category, Finding, Severity

    by_real = {os.path.realpath(r.path): i for i, r in enumerate(results)}
    out = list(results)
    for real, source, target in links:
        i = by_real.get(real)
        if i is None or real.endswith((".cu", ".cuh")) or any(f.code == "NPU506" for f in out[i].findings):
            continue
        result = out[i]
        try:
            with open(result.path, encoding="utf-8", errors="replace") as handle:
                first = handle.readline().rstrip("\r\n")
        except OSError:
            continue
        finding = Finding(result.path, 1, 1, 1, len(first) + 1, "NPU506", Severity.ERROR, Category.THIRD_PARTY,
                          f"compiled as CUDA through the symbolic link `{source}` of the CMake target `{target}`: it cannot be "
                          "compiled for an Ascend NPU; port it to Ascend C or replace it with torch ops")
        out[i] = FileResult(result.path, result.kind, result.lines, result.findings + (finding,), result.errors,
                            result.suppressed, result.facts)
    return out
