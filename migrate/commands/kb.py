"""`npu-migrate kb`: query the torch_npu knowledge base (data generated from real wheels)."""
from __future__ import annotations

import json

import click

from migrate import knowledge
from migrate.commands._report_options import deprecated


def _json_format(fmt: str, as_json: bool) -> bool:
    """--format json, or the older bare --json flag (kept this release; says what replaces it, on stderr)."""
    if as_json:
        click.echo(deprecated("--json", "--format json"), err=True)
    return as_json or fmt == "json"


def _version(text: str | None) -> str:
    try:
        return knowledge.resolve_version(text)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None  # exit code 2


@click.group(name="kb")
def kb() -> None:
    """Query the torch_npu knowledge base (ops, torch.cuda -> torch.npu, versions)."""


@kb.command("ops")
@click.option("--torch-npu-version", "--torch-npu", "version", metavar="VERSION", default=None,
              help="Target torch_npu release (default: the installed one, else the newest known).")
@click.option("--unsupported", is_flag=True,
              help="List python APIs whose aten ops have no NPU kernel instead of the ops.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format (json: machine-readable).")
@click.option("--json", "as_json", is_flag=True, help="Deprecated: --format json.")
def ops_cmd(version: str | None, unsupported: bool, fmt: str, as_json: bool) -> None:
    """List aten ops with an NPU kernel (or, with --unsupported, APIs lacking one)."""
    as_json = _json_format(fmt, as_json)
    kbase = knowledge.load(_version(version))
    if unsupported:
        data = kbase.unsupported_apis()
        if as_json:
            click.echo(json.dumps({"version": kbase.version,
                                   "unsupported": {k: list(v) for k, v in sorted(data.items())}},
                                  indent=2))
            return
        click.echo(f"# torch_npu {kbase.version}: {len(data)} python APIs use an aten op "
                   f"without an NPU kernel")
        for api, missing in sorted(data.items()):
            click.echo(f"{api}\t{', '.join('aten::' + m for m in missing)}")
        return
    ops = sorted(kbase.npu_ops)
    if as_json:
        click.echo(json.dumps({"version": kbase.version, "npu_ops": ops,
                               "custom_ops": sorted(kbase.custom_ops),
                               "provenance": kbase.provenance}, indent=2))
        return
    click.echo(f"# torch_npu {kbase.version} ({kbase.provenance.get('wheel', '?')}): "
               f"{len(ops)} aten ops with an NPU kernel, {len(kbase.custom_ops)} NPU custom ops")
    for op in ops:
        click.echo(f"aten::{op}")


@kb.command("api")
@click.argument("name")
@click.option("--torch-npu-version", "--torch-npu", "version", metavar="VERSION", default=None,
              help="Target torch_npu release (default: the installed one, else the newest known).")
def api_cmd(name: str, version: str | None) -> None:
    """What torch.cuda.NAME maps to (exit 1 when torch.npu has no counterpart)."""
    kbase = knowledge.load(_version(version))
    if not name.startswith("torch."):
        name = "torch.cuda." + name
    info = kbase.cuda_api(name)
    if info is None:
        if kbase.has_api(name):
            click.echo(f"{name}: exists in torch_npu {kbase.version}")
            return
        click.echo(f"{name}: not a known torch.cuda API and not in torch_npu {kbase.version}")
        raise SystemExit(1)
    if info.npu:
        click.echo(f"{info.cuda} -> {info.npu}  (torch_npu {kbase.version})")
        if info.note:
            click.echo(f"note: {info.note}")
        return
    click.echo(f"{info.cuda}: no torch.npu counterpart in torch_npu {kbase.version}")
    if info.alternative:
        click.echo(f"instead: {info.alternative}")
    if info.note:
        click.echo(f"note: {info.note}")
    raise SystemExit(1)


@kb.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output format (json: machine-readable).")
@click.option("--json", "as_json", is_flag=True, help="Deprecated: --format json.")
def diff_cmd(old: str, new: str, fmt: str, as_json: bool) -> None:
    """aten ops and torch.npu APIs gained/lost between two torch_npu versions."""
    as_json = _json_format(fmt, as_json)
    a, b = knowledge.load(_version(old)), knowledge.load(_version(new))
    an = a.module_names("torch_npu.npu") or frozenset()
    bn = b.module_names("torch_npu.npu") or frozenset()
    out = {
        "old": a.version, "new": b.version,
        "ops_gained": sorted(b.npu_ops - a.npu_ops),
        "ops_lost": sorted(a.npu_ops - b.npu_ops),
        "custom_ops_gained": sorted(b.custom_ops - a.custom_ops),
        "custom_ops_lost": sorted(a.custom_ops - b.custom_ops),
        "torch.npu_gained": sorted(bn - an),
        "torch.npu_lost": sorted(an - bn),
    }
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(f"# torch_npu {a.version} -> {b.version}")
    for key, prefix in (("ops_gained", "+ aten::"), ("ops_lost", "- aten::"),
                        ("custom_ops_gained", "+ torch_npu."), ("custom_ops_lost", "- torch_npu."),
                        ("torch.npu_gained", "+ torch.npu."), ("torch.npu_lost", "- torch.npu.")):
        click.echo(f"## {key} ({len(out[key])})")
        for n in out[key]:
            click.echo(prefix + n)
