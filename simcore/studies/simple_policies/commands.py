"""`simcore` subcommands of the simple-policies study (simcore.studies.simple_policies.study)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simcore.engine.policies import BACKFILLS, ORDERS, any_case
from simcore.studies.simple_policies.report import reproduction_rows, simple_policies_markdown
from simcore.studies.simple_policies.study import (
    gains_table,
    premature,
    study_variant,
    summary_table,
    threshold_for,
    weekly_curves,
)
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import positive_float
from simcore.workloads.resample import WEEK

STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "simple-sweep: simple policies with a threshold on a range of variants",
    step.VARIANT_RANGE,
    step.inputs(
        "--trace-workload", metavar="TRACE.parquet", help="the filtered trace, whose largest request sets the threshold"
    ),
    step.option("--orders", nargs="+", choices=ORDERS, type=any_case(ORDERS), default=["FCFS", "SPF", "SQF", "SAF"]),
    step.option(
        "--threshold-factor",
        type=positive_float,
        default=3.0,
        help="threshold = factor x the trace's largest requested time (default 3)",
    ),
    step.option("--backfill", choices=BACKFILLS, type=any_case(BACKFILLS), default="queue"),
    step.output("--runs", metavar="RUNS.parquet"),
    step.output("--weekly", metavar="WEEKLY.parquet"),
    step.output("--delayed", metavar="DELAYED.parquet", help="the 100 jobs of highest slowdown per variant and order"),
)
def run_sweep(args) -> None:
    threshold = threshold_for(files.read_workload(args.trace_workload), args.threshold_factor)
    first, _, stop = args.select.partition(":")
    weeks = files.read_provenance(args.variants).get("weeks")
    collected = ([], [], [])
    for number, workload in files.iter_variants(args.variants, range(int(first), int(stop))):
        span = weeks or int(np.ceil((workload.submit.max() + 1) / WEEK))
        for parts, frame in zip(collected, study_variant(workload, args.orders, threshold, args.backfill, span)):
            parts.append(frame.assign(trace=args.trace, variant=number))
    for parts, path in zip(collected, (args.runs, args.weekly, args.delayed)):
        files.write_parquet(pd.concat(parts, ignore_index=True), path, step.provenance(args, threshold=threshold))
    print(
        f"{args.runs}: {len(args.orders)} orders on {len(collected[0])} variants "
        f"of {args.trace}, threshold {threshold:.0f} s"
    )


@STEPS.step(
    "simple-aggregate: tables of the simple-policies study",
    step.inputs("--runs", "--weekly", "--delayed", nargs="+"),
    step.inputs(
        "--traces", nargs="+", metavar="TRACE.parquet", help="the filtered traces (for the share of premature jobs)"
    ),
    step.option("--threshold-factor", type=positive_float, default=3.0, help="as given to simple-sweep"),
    step.TABLES,
    step.SECTION,
)
def run_aggregate(args) -> None:
    runs, weekly, delayed = (files.read_all(paths) for paths in (args.runs, args.weekly, args.delayed))
    outdir = Path(args.outdir)
    premature_share = pd.DataFrame(
        [
            {"trace": Path(path).stem, "jobs": len(w), "premature_pct": 100.0 * float(premature(w).mean())}
            for path, w in ((path, files.read_workload(path)) for path in args.traces)
        ]
    )
    files.write_parquet(runs, outdir / "runs.parquet", step.provenance(args))
    files.write_parquet(weekly_curves(weekly), outdir / "curves.parquet", step.provenance(args))
    files.write_parquet(delayed, outdir / "delayed.parquet", step.provenance(args))
    files.write_csv(gains_table(runs), outdir / "gains.csv")
    files.write_csv(summary_table(runs), outdir / "summary.csv")
    files.write_csv(premature_share, outdir / "premature.csv")
    summary, gains = summary_table(runs), gains_table(runs)
    files.write_csv(reproduction_rows(premature_share, summary, gains), args.rows)
    files.write_text(args.markdown, simple_policies_markdown(premature_share, summary, gains, args.threshold_factor))
    print(f"{outdir}: {runs['trace'].nunique()} traces, {runs['variant'].nunique()} variants")


@STEPS.step(
    "simple-plot: figures of the simple-policies study (PNG + PDF)",
    step.inputs("--tables", help="directory written by simple-aggregate"),
    step.option("--trace", help="only this trace's Figure 4.1 (default: the three summary figures)"),
    step.folder_output("--outdir", help="directory of the figures"),
)
def run_plot(args) -> None:

    from simcore.reporting.style import save
    from simcore.studies.simple_policies.figures import (
        simple_backfilled_figure,
        simple_categories_figure,
        simple_delayed_figure,
        simple_objectives_figure,
    )

    tables, outdir = Path(args.tables), Path(args.outdir)
    if args.trace:
        curves = files.read_parquet(tables / "curves.parquet")
        part = curves[curves["trace"] == args.trace]
        if part.empty:
            raise ValueError(f"{tables / 'curves.parquet'}: no trace {args.trace!r}")
        # written with curves.parquet by simple-aggregate: how many variants the percentiles summarise
        summary = pd.read_csv(tables / "summary.csv")
        variants = int(summary.loc[summary["trace"] == args.trace, "variants"].min())
        save(
            simple_objectives_figure(part, args.trace, variants),
            [outdir / f"{args.trace}.objectives.{ext}" for ext in ("png", "pdf")],
        )
        print(f"{outdir}: Figure 4.1 of {args.trace}")
        return
    figures = {
        "delayed": simple_delayed_figure(files.read_parquet(tables / "delayed.parquet")),
        "categories": simple_categories_figure(pd.read_csv(tables / "summary.csv")),
        "backfilled": simple_backfilled_figure(files.read_parquet(tables / "runs.parquet")),
    }
    for name, figure in figures.items():
        save(figure, [outdir / f"{name}.{ext}" for ext in ("png", "pdf")])
    print(f"{outdir}: summary figures")


COMMANDS = STEPS.commands()
