"""A launcher's download of a package's source or wheel, the fetch of what it installs (NPU502).

`git clone --recursive https://github.com/NVIDIA/TransformerEngine.git` / `cd TransformerEngine` / `pip install .`,
`wget .../flash_attn-${v}+cu${cu}torch${t}-cp310-cp310-linux_x86_64.whl` before `pip install flash_attn-...whl`,
`wget -P $dir https://raw.githubusercontent.com/Dao-AILab/flash-attention/v2.7.2/hopper/flash_attn_interface.py`: the
line that fetches a GPU-only package for an install changes on the NPU with the install itself (label rulings (L36): a
clone of cutlass in a build script; 32d-6: the clone / wget beside the pip install; cd / checkout / rm lines are not).
The package is read from the URL: a wheel or sdist file names its distribution before its version, a GitHub (or
raw.githubusercontent.com) URL names the repository (`apex`, or a catalogued repository name through the catalogue's
`folder_names`: `TransformerEngine` for transformer-engine). Each fetch is a requirement (`sources.Dependency`) at the
URL's package name, looked up like a pip install's argument; an unknown package gives nothing.
"""

from __future__ import annotations

import re

from migrate.sources import Dependency, normalise, requirement

# `git clone [options] URL [dir]`, `wget [options] URL`, `curl [options] URL`: the first http(s)/git URL after the command
_FETCH = re.compile(r"(?<![\w./-])(?:git\s+clone|wget|curl)\b[^;&|]*?(?P<url>(?:https?|git|ssh)://[^\s;&|\"']+|git@[^\s;&|\"']+)")
# the repository of a GitHub URL: github.com/OWNER/REPO/..., raw.githubusercontent.com/OWNER/REPO/REF/path
_GITHUB = re.compile(r"(?:github\.com[/:]|raw\.githubusercontent\.com/)[\w.-]+/(?P<repo>[\w.-]+?)(?:\.git)?(?=$|[/@#?])")


def repository_name(url: str) -> tuple[str, int, int] | None:
    """(name, start, end) of the GitHub repository a URL belongs to (`TransformerEngine` of
    `https://github.com/NVIDIA/TransformerEngine.git`), None for another host."""
    match = _GITHUB.search(url)
    return (match.group("repo"), match.start("repo"), match.end("repo")) if match else None


def fetches(lines: list[str]):
    """Dependencies of the `git clone` / `wget` / `curl` commands of a launcher, each at the package name in its URL:
    a wheel or sdist file's distribution, else the GitHub repository's name."""
    from migrate.rules._text import shell_matches

    for number, match in shell_matches(lines, _FETCH):
        url, column = match.group("url"), match.start("url")
        dep = requirement(url, number, column) if url.split("?", 1)[0].endswith((".whl", ".tar.gz", ".zip")) else None
        if dep is None:
            repo = repository_name(url)
            if repo is None:
                continue
            name, start, end = repo
            dep = Dependency(normalise(name), url, number, column + start, column + end)
        yield dep
