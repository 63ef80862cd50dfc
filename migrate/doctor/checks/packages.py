"""torch / torch_npu / torchvision versions from installed metadata (no import) and their pairing.

The installed torch_npu's and torchvision's own METADATA say which torch they need; the release
data (wheel metadata from PyPI) names the pair to install when they do not match.
"""
from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from migrate.doctor import releases
from migrate.doctor.host import Host
from migrate.doctor.result import CheckResult, Status

ID = "packages"
TITLE = "torch / torch_npu / torchvision"


def torch_requirement(host: Host, dist_name: str) -> Requirement | None:
    dist = host.distribution(dist_name)
    for text in (dist.requires or []) if dist else []:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower() == "torch" and (req.marker is None or "extra" not in str(req.marker)):
            return req
    return None


def satisfied(req: Requirement | None, version: str | None) -> bool | None:
    if req is None or version is None:
        return None
    return req.specifier.contains(version, prereleases=True)


# torch builds with a `+cpu` label are not on PyPI; they come from PyTorch's CPU index
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def torch_install(pin: str) -> str:
    cmd = f"torch=={pin}"
    tvs = releases.torchvision_for_torch(pin)
    if tvs:
        cmd += f" torchvision=={tvs[0]}"
    if "+cpu" in pin:
        cmd += f" --extra-index-url {CPU_INDEX}"
    return cmd


def pair_command(release: releases.Release, arch: str) -> str:
    """`pip install torch==X torchvision==Y torch-npu==Z` for one release (torchvision when known)."""
    pin = release.torch_pin(arch)
    if not pin:
        return f"pip install torch-npu=={release.version}"
    return f"pip install torch-npu=={release.version} {torch_install(pin)}"


def is_cuda_build(host: Host, torch_version: str) -> bool:
    """A `+cuXXX` label, or PyPI's default Linux build (no label, depends on nvidia-* wheels)."""
    if "+cu" in torch_version:
        return True
    dist = host.distribution("torch")
    return any(r.startswith("nvidia-") for r in (dist.requires or [])) if dist else False


def nvidia_visible(host: Host) -> bool:
    return bool(list(host.dev_dir.glob("nvidia[0-9]*"))) or host.which("nvidia-smi") is not None


def run(host: Host, done: dict) -> CheckResult:
    torch = host.version_of("torch")
    npu = host.version_of("torch_npu")
    tv = host.version_of("torchvision")
    npu_req = torch_requirement(host, "torch_npu")
    tv_req = torch_requirement(host, "torchvision")
    target = releases.find(host.target_torch_npu) if host.target_torch_npu else None
    evidence = [f"torch {torch or 'not installed'}",
                f"torch_npu {npu or 'not installed'}"
                + (f" (requires {npu_req})" if npu_req else ""),
                f"torchvision {tv or 'not installed'}" + (f" (requires {tv_req})" if tv_req else "")]
    facts = {"torch": torch, "torch_npu": npu, "torchvision": tv}
    fails: list[tuple[str, str]] = []  # (summary, fix)
    warns: list[tuple[str, str]] = []

    if target is not None and npu != target.version:
        fails.append((f"torch_npu {npu or 'not installed'}, wanted {target.version}",
                      pair_command(target, host.machine)))
    elif npu is None:
        fails.append(("torch_npu is not installed", _install_fix(torch, host.machine)))
    elif torch is None:
        rel = releases.find(npu)
        pin = rel.torch_pin(host.machine) if rel else None
        fails.append((f"torch is not installed (torch_npu {npu} needs {npu_req})",
                      f"pip install {torch_install(pin)}" if pin else f"pip install '{npu_req}'"))
    elif satisfied(npu_req, torch) is False:
        fails.append((f"torch {torch} does not pair with torch_npu {npu} (needs {npu_req})",
                      _mismatch_fix(torch, npu, host.machine)))

    if tv and torch and satisfied(tv_req, torch) is False:
        wanted = releases.torchvision_for_torch(torch)
        fails.append((f"torchvision {tv} needs {tv_req}, torch is {torch}",
                      f"pip install torchvision=={wanted[0]}" if wanted else
                      f"install the torchvision release built for torch {torch}"))
    if torch and npu and is_cuda_build(host, torch):
        # torch_npu/__init__.py refuses when torch._C._get_accelerator() is not cpu/npu; a CUDA
        # build reports cuda only where CUDA works (checked: cpu on a host without NVIDIA GPUs)
        if nvidia_visible(host):
            warns.append((f"torch {torch} is a CUDA build and an NVIDIA device is visible",
                          "torch_npu refuses to load when torch reports a CUDA accelerator ('Two "
                          "accelerators cannot be used at the same time'): pip install "
                          f"torch=={releases.public(torch)} --index-url {CPU_INDEX}"))
        else:
            evidence.append(f"torch {torch} is a CUDA build; harmless here (no NVIDIA device, "
                            "so torch reports no CUDA accelerator)")
    if npu:
        from migrate import knowledge

        note = knowledge.version_note(None, installed=npu)
        if note:
            evidence.append(f"analyze / apply knowledge: {note}")
    evidence.append("pairing data: migrate/knowledge/data/releases.json (wheel METADATA on PyPI, "
                    f"generated {releases.source()['generated']})")
    if fails:
        return CheckResult(ID, TITLE, Status.FAIL, "; ".join(s for s, _ in fails + warns),
                           tuple(evidence), fix="; ".join(f for _, f in fails + warns), facts=facts)
    if warns:
        return CheckResult(ID, TITLE, Status.WARN, "; ".join(s for s, _ in warns),
                           tuple(evidence), fix="; ".join(f for _, f in warns), facts=facts)
    return CheckResult(ID, TITLE, Status.PASS,
                       f"torch {torch} + torch_npu {npu}" + (f" + torchvision {tv}" if tv else "")
                       + " pair", tuple(evidence), facts=facts)


def _install_fix(torch: str | None, arch: str) -> str:
    if torch:
        paired = releases.for_torch(torch, arch)
        if paired:
            return (f"pip install torch-npu=={paired[0].version} (the release for torch "
                    f"{torch}; only on the Ascend host, with CANN)")
        newest = releases.releases()[0]
        return (f"no torch_npu release accepts torch {torch}; install the pair: "
                f"{pair_command(newest, arch)} (only on the Ascend host, with CANN)")
    return f"{pair_command(releases.releases()[0], arch)} (only on the Ascend host, with CANN)"


def _mismatch_fix(torch: str, npu: str, arch: str) -> str:
    options = []
    rel = releases.find(npu)
    if rel is not None and rel.torch_pin(arch):
        options.append(f"keep torch_npu {npu}: pip install {torch_install(rel.torch_pin(arch))}")
    paired = releases.for_torch(torch, arch)
    if paired:
        options.append(f"keep torch {torch}: pip install torch-npu=={paired[0].version}")
    return " or ".join(options) or f"install the torch that torch_npu {npu} requires"
