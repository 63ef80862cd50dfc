"""`npu-migrate rules`: list the codes, or print the README's rule table."""

from __future__ import annotations

import click


@click.command()
@click.option("--markdown", is_flag=True, help="Print the Markdown table the README embeds.")
def rules(markdown):
    """List every finding code with its severity, category and whether `apply` fixes it."""
    from migrate.rules._docs import markdown_table, text_table

    click.echo(markdown_table() if markdown else text_table(), nl=False)


@click.command()
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def rule(code, fmt):
    """Explain one finding code: what it means, its severity, whether `apply` fixes it, an example."""
    import json
    import sys

    from migrate.rules._docs import explain, explain_text

    entry = explain(code)
    if entry is None:
        click.echo(f"npu-migrate rule: unknown code {code!r} (`npu-migrate rules` lists them)", err=True)
        sys.exit(2)
    click.echo(json.dumps(entry, indent=2) if fmt == "json" else explain_text(entry), nl=fmt == "json")
