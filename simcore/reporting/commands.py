"""The study-independent `simcore report` command: the workloads table, and the
reproduction report assembled from every study's section and rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.reporting.cost import cost_markdown, cost_table, read_benchmarks
from simcore.reporting.reproduction import assemble
from simcore.reporting.workloads import workloads_markdown, workloads_table
from simcore.workloads.files import read_provenance, write_csv, write_text


def add_commands(commands) -> None:
    report = commands.add_parser("report", help="the workloads table and the reproduction report")
    report.add_argument(
        "--workloads",
        nargs="*",
        default=[],
        metavar="TRACE.parquet",
        help="the filtered or generated traces (for the filter-count table)",
    )
    report.add_argument("--workloads-csv", required=True)
    report.add_argument("--workloads-md", required=True)
    report.add_argument(
        "--sections", nargs="*", default=[], metavar="SECTION.md", help="the studies' report sections, in order"
    )
    report.add_argument(
        "--section-rows",
        nargs="*",
        default=[],
        metavar="ROWS.csv",
        help="their published-vs-ours rows, in the same order",
    )
    report.add_argument("--reproduction-csv", required=True)
    report.add_argument("--reproduction-md", required=True)

    cost = commands.add_parser("cost", help="CPU and wall time per study and trace, from the benchmark files")
    cost.add_argument(
        "--benchmarks", required=True, metavar="DIR", help="a run's benchmarks/ (e.g. results/demo/benchmarks)"
    )
    cost.add_argument(
        "--trace-preparation",
        metavar="DIR",
        help="the campaign's benchmarks/, whose trace preparation (traces/) counts for --traces only",
    )
    cost.add_argument("--traces", nargs="*", default=[], help="the traces the root uses")
    cost.add_argument("--csv", required=True)
    cost.add_argument("--md", required=True)


def run_report(args) -> int:
    workloads = workloads_table({Path(path).stem: read_provenance(path) for path in args.workloads})
    write_csv(workloads, args.workloads_csv)
    write_text(args.workloads_md, workloads_markdown(workloads))
    text, rows = assemble(
        [Path(path).read_text() for path in args.sections], [pd.read_csv(path) for path in args.section_rows]
    )
    write_csv(rows, args.reproduction_csv)
    write_text(args.reproduction_md, text)
    print(f"{args.reproduction_md}: {len(rows)} published values compared")
    return 0


def run_cost(args) -> int:
    jobs = read_benchmarks(args.benchmarks, args.traces)
    if args.trace_preparation:
        shared = read_benchmarks(args.trace_preparation, args.traces)
        shared = shared[(shared["study"] == "traces") & shared["trace"].isin(args.traces)]
        jobs = pd.concat([shared, jobs], ignore_index=True)
    table = cost_table(jobs)
    write_csv(table, args.csv)
    write_text(args.md, cost_markdown(table))
    print(f"{args.md}: {len(jobs)} jobs, {jobs['wall_s'].sum() / 3600:.2f} h of job wall time")
    return 0


COMMANDS = {"report": run_report, "cost": run_cost}
