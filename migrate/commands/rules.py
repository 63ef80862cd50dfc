"""`npu-migrate rules`: list the codes, or print the README's rule table."""

from __future__ import annotations

import click


@click.command()
@click.option("--markdown", is_flag=True, help="Print the Markdown table the README embeds.")
def rules(markdown):
    """List every finding code with its severity, category and whether `apply` fixes it."""
    from migrate.rules._docs import markdown_table, text_table

    click.echo(markdown_table() if markdown else text_table(), nl=False)
