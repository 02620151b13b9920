"""The fixed-policy study: the bandit paper's Table 2 (queue orders x thresholds x backfill variants)."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("sweep", "aggregate", "plot", "fixed-policy-tables", "sweep-site-policies", "site-policy-tables")
