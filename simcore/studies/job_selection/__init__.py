"""Job selection: the field's RL benchmark over the exact EASY core (docs/job_selection.md)."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("rl-baselines", "rl-baselines-tables")
