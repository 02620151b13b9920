"""The thesis's chapter 3: trial scores and priority functions learned by regression."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("trial-scores", "trial-spread", "fit-functions", "plot-trial-scores")
