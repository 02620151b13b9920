"""The `simcore` command: the engine's, the workloads' and every study's subcommands.

Each layer and each study keeps its subcommands in its own `commands.py`
(`add_commands(subparsers)` and a `COMMANDS` table); this module only lists
them, with their command names, so that `simcore COMMAND` imports COMMAND's
module alone (a tenth of a second in each of a campaign's hundreds of jobs).
A new study adds one entry to COMMAND_MODULES; tests/test_cli.py checks the
names against each module's COMMANDS.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# module -> its subcommands, in the order of `simcore --help`: the engine's first, each study's after
COMMAND_MODULES = {
    "simcore.workloads.commands": ("simulate", "filter", "info", "fetch", "model", "resample", "example"),
    "simcore.studies.fixed_policy.commands": ("sweep", "aggregate", "plot", "fixed-policy-tables"),
    "simcore.studies.bandit.commands": ("learn", "aggregate-learners", "plot-learners", "bandit-tables"),
    "simcore.studies.prediction.commands": (
        "predict-grid",
        "predict-header-size",
        "predict-select",
        "predict-variants",
        "predict-tables",
        "plot-predictions",
        "plot-correlations",
    ),
    "simcore.studies.simple_policies.commands": ("simple-sweep", "simple-aggregate", "simple-plot"),
    "simcore.studies.learned_policies.commands": ("trial-scores", "trial-spread", "fit-functions", "plot-trial-scores"),
    "simcore.studies.dynamic_scheduling.commands": ("dynamic-sweep", "dynamic-tables", "plot-dynamic"),
    "simcore.studies.coscheduling.commands": (
        "coscheduling-run",
        "coscheduling-paper-queue",
        "coscheduling-tables",
        "plot-coscheduling",
    ),
    "simcore.studies.elastic.commands": ("elastic-run", "elastic-sets", "elastic-tables", "plot-elastic"),
    "simcore.studies.job_selection.commands": ("rl-baselines", "rl-baselines-tables"),
    "simcore.reporting.commands": ("report", "cost"),
}
MODULE_OF = {command: module for module, commands in COMMAND_MODULES.items() for command in commands}


def _group_title(module: str) -> str:
    """ "the engine and workloads", "the fixed policy study", "reporting": from its package."""
    package = module.split(".")[1:-1]
    if package == ["workloads"]:
        return "the engine and workloads"
    return f"the {package[1].replace('_', ' ')} study" if package[0] == "studies" else package[0]


def build_parser(modules=COMMAND_MODULES) -> argparse.ArgumentParser:
    """The parser of the subcommands of `modules`; its help lists them by layer and study."""
    parser = argparse.ArgumentParser(
        prog="simcore", description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    groups = []
    for module in modules:
        first = len(commands._choices_actions)  # argparse keeps each subcommand's help line there
        importlib.import_module(module).add_commands(commands)
        groups.append((_group_title(module), commands._choices_actions[first:]))
    width = max(22, *(len(action.dest) + 2 for _, actions in groups for action in actions))
    lines = []
    for title, actions in groups:
        lines += ["", f"{title}:", *(f"  {action.dest:<{width}}{action.help}" for action in actions)]
    commands._choices_actions.clear()  # listed by group in the epilog instead, in the same words
    commands.help = "one of the following; `simcore COMMAND --help` for its options"
    parser.epilog = "\n".join(lines[1:])
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # `simcore COMMAND ...` needs COMMAND's module only; anything else (--help, a typo) gets every command
    module = MODULE_OF.get(argv[0]) if argv else None
    args = build_parser([module] if module else COMMAND_MODULES).parse_args(argv)
    run = importlib.import_module(MODULE_OF[args.command]).COMMANDS[args.command]
    try:
        return run(args)
    except Exception as error:
        from simcore.workloads.catalogue import FetchError  # imported here: only `fetch` raises it

        # WorkloadError and SwfFormatError are ValueErrors; their messages name the file and line
        if not isinstance(error, (ValueError, OSError, FetchError)):
            raise
        print(f"simcore {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
