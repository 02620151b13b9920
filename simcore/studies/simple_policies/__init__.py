"""The thesis's chapter 4: simple queue orders against EASY under three objectives."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("simple-sweep", "simple-aggregate", "simple-plot")
