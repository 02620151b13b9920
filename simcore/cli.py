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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simcore", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.add_commands(commands)
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
