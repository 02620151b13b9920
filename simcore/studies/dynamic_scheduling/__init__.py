"""The thesis's section 3.3: learned priority functions against hand-engineered orders."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("dynamic-sweep", "dynamic-tables", "plot-dynamic")
