"""How believable the simulation of a site is: each candidate site policy simulated on a trace as
recorded (no resampling), its schedule compared with the one the log records, per week."""

# its `simcore` subcommands, in their module's order (commands.py COMMANDS; simcore/cli.py lists them)
COMMANDS = ("recorded-schedule", "recorded-schedule-slurm", "recorded-schedule-tables")
