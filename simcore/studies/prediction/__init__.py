"""The running-time prediction study: predictors, corrections and backfill variants."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = (
    "predict-grid",
    "predict-header-size",
    "predict-select",
    "predict-variants",
    "predict-tables",
    "plot-predictions",
    "plot-correlations",
)
