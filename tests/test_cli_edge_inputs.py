"""Every `simcore` subcommand that reads a trace, a workload or variants, on the smallest inputs:
no job, one job, every job at one instant. Each either writes its rows or stops with one
clear line (exit 2, no traceback, no output file); MUST_RUN says which must succeed."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import HEADER, job_line

from simcore.cli import main
from simcore.engine.workload import Workload
from simcore.workloads.files import write_variants, write_workload

MACHINE = 8
EDGE_INPUTS = ("no job", "one job", "one instant")


def edge_workload(edge: str) -> Workload:
    """Jobs of `edge` with every column the studies read (efficiency, memory), truncate-filtered."""
    jobs = {"no job": 0, "one job": 1, "one instant": 5}[edge]
    submit = np.zeros(jobs) if edge == "one instant" else np.arange(jobs) * 60.0
    workload = Workload.from_arrays(
        submit,
        run=np.full(jobs, 600.0),
        requested=np.full(jobs, 1200.0),
        procs=np.arange(jobs) % MACHINE + 1,
        machine_size=MACHINE,
        user=np.arange(jobs) % 2,
        source=f"{edge}.swf",
        efficiency=np.full(jobs, 0.8),
        memory=np.full(jobs, 1000.0),
    )
    return Workload(**{**workload.__dict__, "filter_mode": "truncate"})


def edge_swf(edge: str) -> str:
    if edge == "no job":  # every job lacks a requested time
        return HEADER + "".join(job_line(i, 60 * i, 600, 2, -1) for i in (1, 2))
    jobs = edge_workload(edge)
    return HEADER + "".join(
        job_line(i + 1, int(s), 600, int(q), 1200) for i, (s, q) in enumerate(zip(jobs.submit, jobs.procs))
    )


# The arguments of each command after its input file, given the directories of its inputs and outputs.
COMMANDS = {
    "simulate": lambda inputs, out: ["--json", "-o", out / "jobs.parquet"],
    "info": lambda inputs, out: ["--json"],
    "filter": lambda inputs, out: ["-o", out / "w.parquet"],
    "resample": lambda inputs, out: ["--variants", "2", "--weeks", "1", "-o", out / "v.parquet"],
    "sweep": lambda inputs, out: [
        *("--select", "0:1", "--trace", "t", "--orders", "FCFS", "--thresholds", "none", "--backfills", "queue"),
        *("--runs", out / "runs.parquet", "--weekly", out / "weekly.parquet"),
    ],
    "learn": lambda inputs, out: [
        *(
            "--select",
            "0:1",
            "--trace",
            "t",
            "--strategies",
            json.dumps({"R": {"learner": "random", "period": "week"}}),
        ),
        *("--runs", out / "runs.parquet", "--weekly", out / "weekly.parquet", "--choices", out / "choices.parquet"),
    ],
    "predict-grid": lambda inputs, out: [
        *("--trace", "t", "--learning-rates", "1", "--weightings", "large_area", "--bases", "squared"),
        *("--corrections", "request", "--backfills", "EASY"),
        *("--runs", out / "runs.parquet", "--predictions", out / "pred.parquet"),
    ],
    "predict-variants": lambda inputs, out: [
        *("--trace", "t", "--select", "0:1", "--selection", inputs / "selection.csv", "--runs", out / "runs.parquet"),
    ],
    "simple-sweep": lambda inputs, out: [
        *("--trace-workload", inputs / "trace.parquet", "--trace", "t", "--select", "0:1", "--orders", "FCFS"),
        *("--runs", out / "runs.parquet", "--weekly", out / "weekly.parquet", "--delayed", out / "delayed.parquet"),
    ],
    "trial-scores": lambda inputs, out: [
        *("--tuples", "2", "--select", "0:2", "--trials", "2", "--output", out / "scores.parquet"),
    ],
    "trial-spread": lambda inputs, out: ["--trials", "2", "--repeats", "2", "--output", out / "spread.csv"],
    "dynamic-sweep": lambda inputs, out: [
        *("--trace", "t", "--policies", "FCFS", "--settings", "actual", "--days", "1", "-o", out / "runs.parquet"),
    ],
    "coscheduling-run": lambda inputs, out: [
        *("--trace", "t", "--experiment", "E1", "--loads", "8", "--seeds", "1", "--window", "4"),
        *("--output", out / "runs.parquet"),
    ],
    "elastic-run": lambda inputs, out: [
        *("--trace", "t", "--set", "1", "--set-jobs", "5", "--pre-training", "1", "--seeds", "1"),
        *("-o", out / "runs.parquet", "--series", out / "series.parquet", "--pools", out / "pools.parquet"),
    ],
    "rl-baselines": lambda inputs, out: [
        *("--trace", "t", "--orders", "FCFS", "--sequences", "1", "--length", "4", "-o", out / "runs.parquet"),
    ],
}
SWF_COMMANDS = {"simulate", "info", "filter"}
VARIANTS_COMMANDS = {"sweep", "learn", "predict-variants", "simple-sweep"}

# The commands that must give rows on one job and on jobs all submitted at one instant; the others
# need more than the input holds (a week between the first and last, a window, a sequence, a job set)
# and say so.
MUST_RUN = {
    "simulate",
    "info",
    "filter",
    "sweep",
    "learn",
    "predict-grid",
    "predict-variants",
    "simple-sweep",
}


def edge_input(command: str, edge: str, directory):
    """The input file of `command` holding `edge`, and its companions (the trace workload,
    an empty selection)."""
    if command in SWF_COMMANDS:
        path = directory / "trace.swf"
        path.write_text(edge_swf(edge))
        return path
    workload = edge_workload(edge)
    write_workload(workload, directory / "trace.parquet", {"command": "test"})
    if command not in VARIANTS_COMMANDS:
        return directory / "trace.parquet"
    (directory / "selection.csv").write_text("trace\n")
    write_variants([(0, workload)], directory / "variants.parquet", {"machine_size": MACHINE, "weeks": 1})
    return directory / "variants.parquet"


@pytest.mark.parametrize("edge", EDGE_INPUTS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_edge_input_gives_rows_or_one_clear_line(command, edge, tmp_path, capsys):
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    path = edge_input(command, edge, inputs)
    code = main([command, str(path), *map(str, COMMANDS[command](inputs, out))])
    err = capsys.readouterr().err
    if code == 0:
        assert edge != "no job", f"{command} accepted a workload without a job"
        written = [pd.read_parquet(path) for path in out.glob("*.parquet")]
        assert all(len(frame) for frame in written), f"{command} exited 0 with an empty table"
        return
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"simcore {command}: error: "), err
    assert not out.exists() or not any(out.iterdir()), "an output was left behind"
    assert edge == "no job" or command not in MUST_RUN, err


def test_variants_not_in_the_file_are_named(tmp_path, capsys):
    variants = tmp_path / "variants.parquet"
    write_variants([(0, edge_workload("one job"))], variants, {"machine_size": MACHINE, "weeks": 1})
    out = tmp_path / "out"
    arguments = [*COMMANDS["sweep"](tmp_path, out), "--select", "0:3"]  # the last --select is the one read
    code = main(["sweep", str(variants), *map(str, arguments)])
    assert code == 2 and not out.exists()
    assert capsys.readouterr().err == (
        f"simcore sweep: error: {variants}: no job of variants 1..2 in the file (variants with jobs: 0)\n"
    )
