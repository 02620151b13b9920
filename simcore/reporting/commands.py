"""The study-independent reporting commands: `simcore report` (the workloads table, and the
reproduction report assembled from every study's section and rows), `simcore cost`, and
`simcore gantt` (a Gantt figure of a window of one simulation)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from simcore.reporting.cost import cost_markdown, cost_table, read_benchmarks
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, assemble
from simcore.reporting.workloads import workloads_markdown, workloads_table
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import output_file
from simcore.workloads.commands import add_simulation_arguments, read_trace, simulate_as_asked, simulation_description

SECONDS_PER = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
TRACE_TIME = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhdw]?)\s*$")


def trace_time(text: str) -> float:
    """argparse type: seconds since the trace's start, plain or with a unit (90m, 36h, 2d, 1.5w)."""
    match = TRACE_TIME.match(text.lower())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds, or a number with a unit s, m, h, d or w (36h, 2d)")
    return float(match.group(1)) * SECONDS_PER[match.group(2)]


def figure_file(text: str) -> str:
    """argparse type of a figure: a writable .png or .pdf file."""
    if not text.endswith((".png", ".pdf")):
        raise argparse.ArgumentTypeError(f"{text}: name a .png or a .pdf file")
    return output_file(text)


STEPS = step.Steps()


def add_commands(commands) -> None:
    STEPS.add_parsers(commands)
    gantt = commands.add_parser("gantt", help="Gantt figure of a time window of a simulated schedule")
    add_simulation_arguments(gantt)
    gantt.add_argument(
        "--window",
        nargs=2,
        required=True,
        type=trace_time,
        metavar=("START", "END"),
        help="from START to END, in seconds since the trace's start (submit time 0) or with a unit: 90m, 36h, 2d, 1w",
    )
    gantt.add_argument(
        "--output",
        "-o",
        action="append",
        required=True,
        type=figure_file,
        metavar="FIG.png|pdf",
        help="repeatable",
    )


@STEPS.step(
    "report: the workloads table and the reproduction report",
    step.inputs(
        "--workloads",
        nargs="*",
        default=[],
        metavar="TRACE.parquet",
        help="the filtered or generated traces (for the filter-count table)",
    ),
    step.inputs(
        "--sections", nargs="*", default=[], metavar="SECTION.md", help="the studies' report sections, in order"
    ),
    step.inputs(
        "--section-rows",
        nargs="*",
        default=[],
        metavar="ROWS.csv",
        help="their published-vs-ours rows, in the same order",
    ),
    step.output("--workloads-csv", "--workloads-md", "--reproduction-csv", "--reproduction-md"),
)
def run_report(args) -> None:
    workloads = workloads_table({Path(path).stem: files.read_provenance(path) for path in args.workloads})
    files.write_csv(workloads, args.workloads_csv)
    files.write_text(args.workloads_md, workloads_markdown(workloads))
    # a section's rows lie beside it; a study with no paper writes none
    rows_by_folder = {Path(path).parent: pd.read_csv(path) for path in args.section_rows}
    text, rows = assemble(
        [Path(path).read_text() for path in args.sections],
        [rows_by_folder.get(Path(path).parent, pd.DataFrame(columns=REPRODUCTION_COLUMNS)) for path in args.sections],
    )
    files.write_csv(rows, args.reproduction_csv)
    files.write_text(args.reproduction_md, text)
    print(f"{args.reproduction_md}: {len(rows)} published values compared")


@STEPS.step(
    "cost: CPU and wall time per study and trace, from the benchmark files",
    step.inputs("--benchmarks", metavar="DIR", help="a run's benchmarks/ (e.g. results/demo/benchmarks)"),
    step.inputs(
        "--trace-preparation",
        default=None,
        metavar="DIR",
        help="the campaign's benchmarks/, whose trace preparation (traces/) counts for --traces only",
    ),
    step.option("--traces", nargs="*", default=[], help="the traces the root uses"),
    step.option(
        "--studies",
        nargs="*",
        help="the studies of this run (their folders, trace preparation and the report count; default: every folder)",
    ),
    step.option(
        "--other-traces",
        nargs="*",
        default=[],
        help="traces this run does not use: a benchmark file naming one is an earlier run's and is left out",
    ),
    step.output("--csv", "--md"),
)
def run_cost(args) -> None:
    jobs = read_benchmarks(args.benchmarks, args.traces, args.studies, args.other_traces)
    if args.trace_preparation:
        shared = read_benchmarks(args.trace_preparation, args.traces, args.studies, args.other_traces)
        shared = shared[(shared["study"] == "traces") & shared["trace"].isin(args.traces)]
        jobs = pd.concat([shared, jobs], ignore_index=True)
    table = cost_table(jobs)
    files.write_csv(table, args.csv)
    files.write_text(args.md, cost_markdown(table))
    print(f"{args.md}: {len(jobs)} jobs, {jobs['wall_s'].sum() / 3600:.2f} h of job wall time")


def run_gantt(args) -> int:
    from simcore.reporting.gantt import gantt_figure  # imported here: the other commands need no matplotlib
    from simcore.reporting.style import save

    _, workload, _ = read_trace(args)
    result = simulate_as_asked(workload, args)
    trace = Path(args.trace).name.removesuffix(".gz").removesuffix(".swf")
    save(gantt_figure(result, args.window, f"{trace}\n{simulation_description(args)}"), args.output)
    print(", ".join(args.output))
    return 0


COMMANDS = {**STEPS.commands(), "gantt": run_gantt}
