"""The online policy-selection study: the bandit paper's learners and its Table 3."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("learn", "aggregate-learners", "plot-learners", "bandit-tables")
