"""A Dockerfile's ARG / ENV values read into its RUN lines (migrate/docker_args.py): NPU502's CUDA wheel index and
wheel URL on an install line, and the clone and folder of a local install of the repository (label ruling (L47),
(L72); set 46 d-7, e-7)."""

from __future__ import annotations

from migrate.docker_args import expand, values_at
from migrate.engine import scan
from tests.helpers import finding_lines, write_files

NEWEST = "2.14.0"
_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
          "setup(name='qnn', ext_modules=[CUDAExtension('qnn_cuda', ['qnn/k.cpp', 'qnn/k_kernel.cu'])],\n"
          "      cmdclass={'build_ext': BuildExtension})\n")


def test_dockerfile_args_are_read_in_their_stage():
    lines = ["ARG BASE=cu121\n", "ARG GLOBAL_ONLY=x\n", "FROM img:${BASE}\n", "ARG BASE\n", "ARG INDEX=https://h/whl/cu121\n",
             'ENV HOME_DIR="/opt/h"\n', "ENV LEGACY /opt/l\n", "RUN pip install torch -i $INDEX\n",
             "FROM other\n", "RUN echo $INDEX\n"]
    assert values_at(lines, 8) == {"BASE": "cu121", "INDEX": "https://h/whl/cu121", "HOME_DIR": "/opt/h",
                                   "LEGACY": "/opt/l"}
    assert values_at(lines, 10) == {}
    assert expand("${INDEX}/x $BASE ${GLOBAL_ONLY} ${UNSET:-d} $UNSET", values_at(lines, 8)) == \
        "https://h/whl/cu121/x cu121 ${GLOBAL_ONLY} d $UNSET"


def test_a_dockerfile_cloning_the_repository_by_an_arg_url_and_installing_an_arg_target_installs_it(tmp_path):
    # the clone's URL and the install target come from ARG lines, the clone written over continued lines; a clone of
    # another project by an ARG URL is not the repository
    root = tmp_path / "qnn"
    root.mkdir()
    write_files(root, {
        "setup.py": _SETUP, "qnn/k_kernel.cu": "__global__ void k(float* x) {}\n", "qnn/k.cpp": "// host\n",
        "docker/Dockerfile": ('FROM base\nARG GIT_URL="https://github.com/owner/qnn.git"\nARG BUILD_TARGET="."\n'
                              'RUN git clone \\\n    --depth 1 \\\n    "${GIT_URL}" \\\n    /qnn && \\\n'
                              '  cd /qnn && \\\n  FORCE_CUDA="true" pip install -e ${BUILD_TARGET} -v\n'
                              'ARG OTHER_URL=https://github.com/acme/other.git\n'
                              'RUN git clone "$OTHER_URL" /other && cd /other && pip install -e ${BUILD_TARGET}\n'),
    })
    assert finding_lines(scan([str(root)], use_cache=False, torch_npu_version=NEWEST), "NPU502", "docker/Dockerfile") == [9]
