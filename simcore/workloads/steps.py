"""One declaration per workflow step: a step command's arguments, each an input file, an option or
an output, make both its argparse parser and the provenance its Parquet outputs carry.

    from simcore.workloads import steps as step

    STEPS = step.Steps()
    add_commands = STEPS.add_parsers

    @STEPS.step("simple-aggregate: tables of the simple-policies study",
                step.inputs("--runs", "--weekly", nargs="+"),
                step.option("--threshold-factor", type=positive_float, default=3.0),
                step.TABLES, step.SECTION)
    def run_aggregate(args) -> None:
        files.write_parquet(frame, path, step.provenance(args))

    COMMANDS = STEPS.commands()

The provenance is the command's name and every input and option as parsed, never an output (whose
path says nothing of how it was made, and whose old file a rerun must not read for its lineage);
a step adds what it derives (`provenance(args, threshold=threshold)`). A step's run returns
nothing: it fails by raising (simcore.cli turns a ValueError or an OSError into one line and exit
status 2). The user-facing commands (simulate, filter, ...) keep hand-written parsers.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from simcore.workloads.arguments import output_file, output_folder

INPUT, OPTION, OUTPUT = "input", "option", "output"


@dataclass(frozen=True)
class Argument:
    """One argument of a step: its flags (or positional name), its role and argparse's options."""

    flags: tuple[str, ...]
    role: str
    options: dict = field(default_factory=dict)


def _named(flags: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The flags grouped by argument: a short flag (`-o`) is the alias of the flag before it."""
    grouped = []
    for flag in flags:
        if len(flag) == 2 and flag.startswith("-") and grouped:
            grouped[-1] += (flag,)
        else:
            grouped.append((flag,))
    return grouped


def _arguments(role: str, flags: tuple[str, ...], options: dict) -> tuple[Argument, ...]:
    """One Argument per flag (with its short alias), each with the same options; a flag is required
    unless it has a default or the options say otherwise (a positional name takes no `required`)."""
    return tuple(
        Argument(
            names,
            role,
            {"required": True, **options} if names[0].startswith("-") and "default" not in options else options,
        )
        for names in _named(flags)
    )


def inputs(*flags: str, **options) -> tuple[Argument, ...]:
    """Files the step reads, one argument per flag; required unless a default is given."""
    return _arguments(INPUT, flags, options)


def option(*flags: str, **options) -> tuple[Argument, ...]:
    """One option of the step (several flags: its aliases); required only when it says so."""
    return (Argument(flags, OPTION, options),)


def output(*flags: str, **options) -> tuple[Argument, ...]:
    """Files the step writes, one argument per flag: required, and refused at once when they
    cannot be written (output_file)."""
    return _arguments(OUTPUT, flags, {"type": output_file, **options})


def folder_output(*flags: str, **options) -> tuple[Argument, ...]:
    """The folder the step writes its files in (output_folder)."""
    return _arguments(OUTPUT, flags, {"type": output_folder, **options})


def _plain(value):
    """A parsed value as JSON writes it: dataclasses as mappings, paths as text, tuples as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value


@dataclass(frozen=True)
class Step:
    """A step command: its name, its help line, its arguments and what it runs."""

    name: str
    help: str
    arguments: tuple[Argument, ...]
    run: Callable[[argparse.Namespace], None]

    def add_parser(self, commands) -> argparse.ArgumentParser:
        parser = commands.add_parser(self.name, help=self.help)
        for argument in self.arguments:
            parser.add_argument(*argument.flags, **argument.options)
        parser.set_defaults(step=self)  # for provenance(args)
        return parser

    def dests(self, *roles: str) -> list[str]:
        """The attributes of the parsed arguments of these roles, in declaration order."""
        parser = argparse.ArgumentParser(add_help=False)
        return [
            parser.add_argument(*argument.flags, **argument.options).dest
            for argument in self.arguments
            if argument.role in roles
        ]

    def provenance(self, args: argparse.Namespace) -> dict:
        """The command and every input and option it was given, as parsed."""
        return {"command": self.name, **{dest: _plain(getattr(args, dest)) for dest in self.dests(INPUT, OPTION)}}

    def __call__(self, args: argparse.Namespace) -> int:
        self.run(args)
        return 0


def provenance(args: argparse.Namespace, **derived) -> dict:
    """The provenance of the step that parsed `args` (Step.provenance), with what it derived."""
    return {**args.step.provenance(args), **derived}


def _flattened(groups: Iterable[tuple[Argument, ...]]) -> tuple[Argument, ...]:
    return tuple(argument for group in groups for argument in group)


class Steps(dict):
    """A commands module's steps by name, in declaration order."""

    def step(self, title: str, *groups: tuple[Argument, ...]):
        """Declare the decorated function `run(args)` as the step `title` names, "name: help line"."""
        name, colon, help = title.partition(": ")
        if not (colon and name and help):
            raise ValueError(f"step {title!r}: give it as 'name: help line'")

        def declare(run):
            self[name] = Step(name, help, _flattened(groups), run)
            return run

        return declare

    def add_parsers(self, commands) -> None:
        for step in self.values():
            step.add_parser(commands)

    def commands(self) -> dict[str, Step]:
        """{name: callable(args)}, for the module's COMMANDS table."""
        return dict(self)


# The trace's name, written into the rows of the steps that run one trace
TRACE_NAME = option("--trace", required=True, help="trace name written into the rows")
# A study's chunk of variants (the steps that sweep variants): the variants file, the range, the trace
VARIANT_RANGE = (
    *inputs("variants", metavar="VARIANTS.parquet"),
    *option("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range"),
    *TRACE_NAME,
)
# What a study's tables step writes: its tables' folder, its section of the reproduction report
# and the section's published-vs-ours rows
TABLES = folder_output("--outdir", help="directory of the tables")
SECTION = (
    *output("--markdown", metavar="SECTION.md", help="the study's section of the reproduction report"),
    *output("--rows", metavar="ROWS.csv", help="its published-vs-ours rows"),
)
