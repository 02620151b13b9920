"""The `simcore` command: the engine's, the workloads' and every study's subcommands.

Each layer and each study keeps its subcommands in its own `commands.py`
(`add_commands(subparsers)` and a `COMMANDS` table); this module only lists
them. A new study adds one line to COMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import sys

from simcore.engine.workload import WorkloadError
from simcore.reporting import commands as report_commands
from simcore.studies.bandit import commands as bandit_commands
from simcore.studies.coscheduling import commands as coscheduling_commands
from simcore.studies.dynamic_scheduling import commands as dynamic_scheduling_commands
from simcore.studies.elastic import commands as elastic_commands
from simcore.studies.fixed_policy import commands as fixed_policy_commands
from simcore.studies.job_selection import commands as job_selection_commands
from simcore.studies.learned_policies import commands as learned_policies_commands
from simcore.studies.prediction import commands as prediction_commands
from simcore.studies.simple_policies import commands as simple_policies_commands
from simcore.workloads import commands as workload_commands
from simcore.workloads.catalogue import FetchError

COMMAND_MODULES = (
    workload_commands,
    fixed_policy_commands,
    bandit_commands,
    prediction_commands,
    simple_policies_commands,
    learned_policies_commands,
    dynamic_scheduling_commands,
    coscheduling_commands,
    elastic_commands,
    job_selection_commands,
    report_commands,
)
COMMANDS = {name: run for module in COMMAND_MODULES for name, run in module.COMMANDS.items()}


def _group_title(module) -> str:
    """ "the engine and workloads", "the fixed policy study", "reporting": from its package."""
    package = module.__name__.split(".")[1:-1]
    if package == ["workloads"]:
        return "the engine and workloads"
    return f"the {package[1].replace('_', ' ')} study" if package[0] == "studies" else package[0]


def build_parser() -> argparse.ArgumentParser:
    """The parser; its help lists the subcommands by layer and study, the engine's first."""
    parser = argparse.ArgumentParser(
        prog="simcore", description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    lines = []
    for module in COMMAND_MODULES:
        first = len(commands._choices_actions)  # argparse keeps each subcommand's help line there
        module.add_commands(commands)
        lines += ["", f"{_group_title(module)}:"]
        lines += [f"  {action.dest:<22}{action.help}" for action in commands._choices_actions[first:]]
    commands._choices_actions.clear()  # listed by group in the epilog instead, in the same words
    commands.help = "one of the following; `simcore COMMAND --help` for its options"
    parser.epilog = "\n".join(lines[1:])
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, WorkloadError, OSError, FetchError) as error:
        # SwfFormatError is a ValueError; its message names file and line.
        print(f"simcore {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
