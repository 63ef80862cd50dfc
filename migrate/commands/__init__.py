"""Click commands, one module per subcommand, imported lazily by `migrate.cli`."""
