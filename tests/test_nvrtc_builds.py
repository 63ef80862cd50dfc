"""A repository's own run-time CUDA compiler on NVRTC (cuda.core `Program`), its calls, the lists naming its `.cuh`
sources and the launches of its kernels through a project wrapper of `cuda.core.launch` (migrate/nvrtc_builds.py;
label rulings (L96)/(L10)/(L66)/(L95)). The snippets are written for these tests, in the shape of NVlabs/curobo's
cuda_core backend."""

from migrate.engine import scan
from tests.helpers import finding_lines, write_files

_FILES = {
    "proj/__init__.py": "",
    "proj/util.py": "def log_and_raise(msg):\n    raise RuntimeError(msg)\n",
    "proj/kernels/add.cuh": "__global__ void add(float* x) { x[0] += 1; }\n",
    "proj/cache.py": (
        "import os\n\nfrom proj.util import log_and_raise\n\n\n"
        "class KernelCache:\n"
        "    def get_or_compile_kernel(self, source_files, kernel_name, include_dirs):\n"
        "        return self._compile(source_files, kernel_name, include_dirs)\n\n"
        "    def _compile(self, source_files, kernel_name, include_dirs):\n"
        "        from cuda.core import Program, ProgramOptions\n"
        "        if not any(os.path.exists(os.path.join(p, 'nvrtc.h')) for p in include_dirs):\n"
        "            log_and_raise('NVRTC headers not found')\n"
        "        prog = Program(''.join(open(f).read() for f in source_files), code_type='c++',\n"
        "                       options=ProgramOptions(std='c++17'))\n"
        "        return prog.compile('cubin').get_kernel(kernel_name)\n"),
    "proj/launch_helper.py": (
        "from cuda.core import launch\n\n\n"
        "def launch_kernel(name, stream, config, kernel, *args):\n    launch(stream, config, kernel, *args)\n"),
    "proj/add_config.py": "KERNEL_FILES = {\n    'forward': ['add.cuh'],\n}\nOTHER = ['notes.txt']\n",
    "proj/add.py": (
        "import re\n\nfrom proj.add_config import KERNEL_FILES\nfrom proj.launch_helper import launch_kernel\n\n\n"
        "def run(cache, stream, config, x):\n"
        "    kernel = cache.get_or_compile_kernel(\n        KERNEL_FILES['forward'], 'add', ['/usr/include'])\n"
        "    launch_kernel('add', stream, config, kernel, x)\n"
        "    return re.compile('add')\n"),
}


def test_the_compiler_its_calls_sources_and_launches_are_reported(tmp_path):
    write_files(tmp_path, _FILES)
    result = scan([str(tmp_path)], jobs=1)
    assert finding_lines(result, "NPU505", "proj/cache.py") == [13]  # the raise on missing NVRTC headers
    assert finding_lines(result, "NPU505", "proj/add.py") == [8]  # the compiler's call (not re.compile)
    assert finding_lines(result, "NPU508", "proj/add.py") == [10]  # the launch through the project wrapper
    assert finding_lines(result, "NPU505", "proj/add_config.py") == [2]  # the .cuh source in the list


def test_without_an_nvrtc_program_nothing_is_a_build(tmp_path):
    files = dict(_FILES)
    files["proj/cache.py"] = files["proj/cache.py"].replace("prog = Program(", "prog = make_program(")
    files["proj/launch_helper.py"] = "def launch_kernel(name, stream, config, kernel, *args):\n    kernel(*args)\n"
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], jobs=1)
    assert finding_lines(result, "NPU505", "proj/add.py") == []
    assert finding_lines(result, "NPU508", "proj/add.py") == []
    assert finding_lines(result, "NPU505", "proj/add_config.py") == []


# NVIDIA's older NVRTC bindings compiling inline in a module-level function that launches the kernels itself through
# cupy's driver module (the shape of NVIDIA/FastPhotoStyle's smooth_filter.py; label note 53d, (L115))
_INLINE = (
    "from cupy.cuda import function\n"
    "from pynvrtc.compiler import Program\n\n\n"
    "def smooth(src, x, y):\n"
    "    program = Program(src, 'affine_kernel.cu')\n"
    "    ptx = program.compile(['-I/usr/local/cuda/include'])\n"
    "    m = function.Module()\n"
    "    m.load(bytes(ptx.encode()))\n"
    "    kernel = m.get_function('affine_kernel')\n"
    "    kernel(grid=(1, 1), block=(256, 1, 1), args=[x, y])\n"
    "    return re_compile(x)\n\n\n"
    "def run(src, x, y):\n"
    "    return smooth(src, x, y)\n"
)


def test_an_inline_compile_of_a_function_called_by_its_name_is_the_build(tmp_path):
    write_files(tmp_path, {"smooth_filter.py": _INLINE})
    result = scan([str(tmp_path)], jobs=1)
    assert finding_lines(result, "NPU505", "smooth_filter.py") == [7]  # program.compile([...])
    # the import, the program and cupy module constructions, and the kernel's launch (NPU507)
    assert finding_lines(result, "NPU507", "smooth_filter.py") == [6, 8, 11]


def test_a_compiler_called_through_an_object_keeps_its_inner_compile(tmp_path):
    files = {
        "proj/__init__.py": "",
        "proj/jit.py": "class Jit:\n" + "".join(f"    {line}\n" if line else "\n" for line in _INLINE.split("\n")[4:12])
        .replace("def smooth(src", "def smooth(self, src"),
        "proj/use.py": "def go(jit, src, x, y):\n    return jit.smooth(src, x, y)\n",
    }
    files["proj/jit.py"] = "from cupy.cuda import function\nfrom pynvrtc.compiler import Program\n\n\n" + files["proj/jit.py"]
    write_files(tmp_path, files)
    result = scan([str(tmp_path)], jobs=1)
    assert finding_lines(result, "NPU505", "proj/use.py") == [2]  # the compiler's call is the build line
    assert finding_lines(result, "NPU505", "proj/jit.py") == []  # not its program's compile inside


def test_a_warm_run_reports_the_same_as_a_cold_one(tmp_path):
    # the pass read only the bytes the scan had just read: on a re-run every file came from the cache and the
    # compiler's calls, sources and launches were gone (curobo: 1,388 findings cold, 1,331 warm)
    root, cache = tmp_path / "repo", tmp_path / "cache"
    write_files(root, _FILES)
    import os
    import time

    old = time.time() - 60  # older than the cache's 2-second mtime window, so the warm run takes every file from it
    for path in root.rglob("*"):
        os.utime(path, (old, old))
    cold = scan([str(root)], use_cache=True, cache_dir=cache, jobs=1)
    warm = scan([str(root)], use_cache=True, cache_dir=cache, jobs=1)
    assert warm.cached_files == len(warm.files)
    keys = lambda result: sorted((f.path, f.line, f.code) for r in result.files for f in r.findings)  # noqa: E731
    assert keys(warm) == keys(cold)
    assert finding_lines(warm, "NPU505", "proj/add.py") == [8]
    assert finding_lines(warm, "NPU508", "proj/add.py") == [10]
