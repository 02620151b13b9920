"""Responsive scheduling and elastic provisioning: SARSA with an echo-state-network Q-function (docs/elastic.md)."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("elastic-run", "elastic-sets", "elastic-tables", "plot-elastic")
