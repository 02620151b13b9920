"""`simcore` subcommands of the job-selection baselines (simcore.studies.job_selection.study)."""

from __future__ import annotations

from pathlib import Path

from simcore.engine.policies import NAMED_ORDERS, any_case
from simcore.studies.job_selection.env import BASELINES
from simcore.studies.job_selection.report import baselines_markdown, reproduction_rows
from simcore.studies.job_selection.study import (
    DEFAULT_ORDERS,
    SEED,
    SEQUENCE_JOBS,
    SEQUENCES,
    evaluate_orders,
    summary_table,
)
from simcore.workloads import files
from simcore.workloads import steps as step

STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "rl-baselines: the orders on RLScheduler-style episodes of one trace",
    step.inputs("workload", metavar="WORKLOAD.parquet", help="a filtered trace (simcore filter)"),
    step.TRACE_NAME,
    step.option("--orders", nargs="+", choices=BASELINES, type=any_case(BASELINES), default=list(DEFAULT_ORDERS)),
    step.option("--sequences", type=int, default=SEQUENCES, help=f"episodes (default {SEQUENCES})"),
    step.option("--length", type=int, default=SEQUENCE_JOBS, help=f"jobs per episode (default {SEQUENCE_JOBS})"),
    step.option("--seed", type=int, default=SEED, help=f"of the episodes' starts (default {SEED})"),
    step.option(
        "--lookahead",
        nargs="*",
        default=[],
        choices=NAMED_ORDERS,
        type=any_case(NAMED_ORDERS),
        metavar="ORDER",
        help="the lookahead baseline over forks, once per base order (docs/job_selection.md §6)",
    ),
    step.option("--lookahead-heads", type=int, help="slots it tries per decision (default: every filled slot)"),
    step.output("--output", "-o", metavar="RUNS.parquet"),
)
def run_baselines(args) -> None:
    if args.sequences < 1 or args.length < 1:
        raise ValueError(f"--sequences and --length must be >= 1, got {args.sequences} and {args.length}")
    if args.lookahead_heads is not None and args.lookahead_heads < 1:
        raise ValueError(f"--lookahead-heads must be >= 1, got {args.lookahead_heads}")
    workload = files.read_workload(args.workload)
    try:
        runs = evaluate_orders(
            workload,
            args.trace,
            tuple(args.orders),
            args.sequences,
            args.length,
            args.seed,
            tuple(args.lookahead),
            args.lookahead_heads,
        )
    except ValueError as error:
        raise ValueError(f"{args.workload}: {error}") from None
    files.write_parquet(runs, args.output, step.provenance(args))
    print(f"{args.output}: {args.trace}, {args.sequences} sequences of {args.length} jobs, {len(args.orders)} orders")


@STEPS.step(
    "rl-baselines-tables: the baselines' summary and report section",
    step.inputs("runs", nargs="+", metavar="RUNS.parquet"),
    step.TABLES,
    step.SECTION,
)
def run_tables(args) -> None:
    summary = summary_table(files.read_all(args.runs))
    outdir = Path(args.outdir)
    files.write_csv(summary, outdir / "summary.csv")
    files.write_csv(reproduction_rows(summary), args.rows)
    files.write_text(args.markdown, baselines_markdown(summary))
    print(f"{outdir}: {summary['trace'].nunique()} traces")


COMMANDS = STEPS.commands()
