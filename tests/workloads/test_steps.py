"""Step declarations (simcore.workloads.steps): one declaration gives a step command its parser and
its provenance; every command a workflow rule runs is a step but the user-facing ones."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from simcore.cli import COMMAND_MODULES, MODULE_OF
from simcore.workloads.steps import OUTPUT, Step, Steps, folder_output, inputs, option, output, provenance

REPOSITORY = Path(__file__).resolve().parents[2]
# the commands a user runs by hand too, whose parsers stay hand-written
USER_FACING = {"filter", "fetch", "model", "resample", "import-sacct"}


def _parsed(steps: Steps, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    steps.add_parsers(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def _toy_steps() -> Steps:
    steps = Steps()

    @steps.step(
        "toy: a toy step",
        inputs("runs", nargs="+"),
        inputs("--extra", default=None),
        option("--seed", type=int, default=0),
        output("--table", "--out", "-o"),
        folder_output("--outdir"),
    )
    def run_toy(args) -> None:
        pass

    return steps


def test_a_step_is_named_with_its_help_line():
    with pytest.raises(ValueError, match="give it as 'name: help line'"):
        Steps().step("toy", *option("--seed"))


def test_provenance_has_the_inputs_and_options_never_the_outputs(tmp_path):
    args = _parsed(
        _toy_steps(),
        ["toy", "a.parquet", "b.parquet", "--seed", "4", "--table", str(tmp_path / "t.csv"), "-o", str(tmp_path / "o")]
        + ["--outdir", str(tmp_path / "figures")],
    )
    assert provenance(args) == {"command": "toy", "runs": ["a.parquet", "b.parquet"], "extra": None, "seed": 4}
    assert provenance(args, threshold=3.0)["threshold"] == 3.0
    assert args.out == str(tmp_path / "o")  # -o is --out's alias, not an argument of its own


def test_an_output_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit):
        _parsed(_toy_steps(), ["toy", "a", "--table", str(tmp_path), "--out", "x", "--outdir", str(tmp_path)])
    assert "a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _parsed(_toy_steps(), ["toy", "a", "--table", "t", "--out", "x", "--outdir", str(tmp_path / "file" / "d")])
    assert "cannot be written in" in capsys.readouterr().err


def test_every_command_the_workflow_runs_is_declared_as_a_step():
    rules = "\n".join(path.read_text() for path in (REPOSITORY / "workflow").rglob("*.smk"))
    run = set(re.findall(r'"simcore ([a-z-]+)', rules))
    assert run - USER_FACING, "no workflow command found"
    for command in sorted(run - USER_FACING):
        table = importlib.import_module(MODULE_OF[command]).COMMANDS
        assert isinstance(table[command], Step), f"simcore {command}: a workflow step with a hand-written parser"


@pytest.mark.parametrize("module", sorted(COMMAND_MODULES))
def test_no_step_records_an_output_in_its_provenance(module):
    steps = [command for command in importlib.import_module(module).COMMANDS.values() if isinstance(command, Step)]
    for step in steps:
        outputs = set(step.dests(OUTPUT))
        assert outputs, f"{step.name} writes nothing"
        assert not outputs & set(step.dests("input", "option")), step.name
