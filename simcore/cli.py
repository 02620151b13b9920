"""The `simcore` command: the engine's, the workloads' and every study's subcommands.

Each layer and each study keeps its subcommands in its own `commands.py`
(`add_commands(subparsers)` and a `COMMANDS` table); this module only lists
them, with their command names, so that `simcore COMMAND` imports COMMAND's
module alone (a tenth of a second in each of a campaign's hundreds of jobs).
A study names its subcommands in its package's `__init__.py` (COMMANDS), which this
module reads without importing the study's modules; tests/test_cli.py checks the names
against each commands module's COMMANDS.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

STUDIES = Path(__file__).parent / "studies"


def _study_command_modules() -> dict[str, tuple[str, ...]]:
    """Each study's commands module and its subcommands, from the study package's COMMANDS (a
    package `__init__` that imports nothing): a new study lists itself."""
    return {
        f"simcore.studies.{name}.commands": tuple(importlib.import_module(f"simcore.studies.{name}").COMMANDS)
        for name in sorted(path.parent.name for path in STUDIES.glob("*/commands.py"))
    }


# module -> its subcommands, in the order of `simcore --help`: the engine's first, each study's after
COMMAND_MODULES = {
    "simcore.workloads.commands": (
        "simulate",
        "filter",
        "info",
        "slurm-conf",
        "fetch",
        "model",
        "resample",
        "example",
        "import-sacct",
    ),
    **_study_command_modules(),
    "simcore.reporting.commands": ("report", "cost", "gantt"),
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
