"""Co-scheduling: CPU-quota sharing with the ASA_X learner (docs/coscheduling.md)."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("coscheduling-run", "coscheduling-paper-queue", "coscheduling-tables", "plot-coscheduling")
