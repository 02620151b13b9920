"""`simcore` subcommands of the running-time prediction study (simcore.studies.prediction.study)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.engine._regression import REGRESSION_BASES, REGRESSION_WEIGHTINGS
from simcore.engine.simulation import CORRECTIONS
from simcore.engine.swf import read_swf
from simcore.studies.prediction.study import (
    BACKFILL_VARIANTS,
    HEADER_SIZE_TRIPLES,
    PAPER_BACKFILLS,
    TRIPLE,
    chunk_of_grid,
    correlations,
    evaluate_triples,
    figure_triples,
    header_size_table,
    selection_table,
    table1,
    table6,
    table8,
    triple_grid,
    variant_table,
    variant_triples,
)
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import positive_float
from simcore.workloads.progress import progress

# The options of the steps that run the predictors on a trace
MODEL_OPTIONS = (
    *step.TRACE_NAME,
    *step.option("--l2", type=float, default=1e-6, help="regression L2 weight (default 1e-6)"),
    *step.option(
        "--default-learning-rate",
        type=positive_float,
        default=1.0,
        help="E-Loss learning rate when no other trace can choose it (default 1)",
    ),
)


STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "predict-grid: heuristic triples on a whole workload (a chunk of the grid)",
    step.inputs("workload", metavar="WORKLOAD.parquet"),
    MODEL_OPTIONS,
    step.option("--learning-rates", nargs="+", type=positive_float, default=[0.1, 1.0, 10.0]),
    step.option(
        "--bases",
        nargs="+",
        choices=REGRESSION_BASES,
        default=list(REGRESSION_BASES),
        help="under/over-prediction loss bases",
    ),
    step.option("--weightings", nargs="+", choices=REGRESSION_WEIGHTINGS, default=list(REGRESSION_WEIGHTINGS)),
    step.option("--corrections", nargs="+", choices=CORRECTIONS, default=list(CORRECTIONS)),
    step.option("--backfills", nargs="+", choices=tuple(BACKFILL_VARIANTS), default=list(PAPER_BACKFILLS)),
    step.option("--chunk", type=int, default=0, help="this job's share: triples chunk, chunk+chunks, ..."),
    step.option("--chunks", type=int, default=1),
    step.output("--runs", metavar="RUNS.parquet", help="one row per triple"),
    step.output(
        "--predictions",
        metavar="PREDICTIONS.parquet",
        help="per-job predictions of AVE2 and the E-Loss/squared regressions (incremental, SJBF)",
    ),
)
def run_grid(args) -> None:
    workload = files.read_workload(args.workload)
    grid = triple_grid(args.learning_rates, args.bases, args.weightings, args.corrections, args.backfills)
    mine = chunk_of_grid(grid, args.chunk, args.chunks)
    runs, kept = evaluate_triples(
        workload,
        mine,
        args.l2,
        figure_triples(args.learning_rates),
        label=f"{args.trace} triples of chunk {args.chunk}",
    )
    runs.insert(0, "trace", args.trace)
    predictions = pd.DataFrame(
        {
            "job_id": workload.job_id,
            "run": workload.run,
            "procs": workload.procs,
            "requested": workload.requested,
            **kept,
        }
    )
    files.write_parquet(runs, args.runs, step.provenance(args))
    files.write_parquet(predictions, args.predictions, step.provenance(args))
    print(f"{args.runs}: {len(runs)} of {len(grid)} triples on {args.trace}")


@STEPS.step(
    "predict-header-size: Table 6's baselines and EASY++ at the machine size of the trace's header",
    step.inputs("swf", metavar="TRACE.swf[.gz]"),
    step.TRACE_NAME,
    step.option("--filter", choices=("strict", "truncate"), default="truncate"),
    step.output("--runs", metavar="RUNS.parquet", help="one row per triple"),
)
def run_header_size(args) -> None:
    workload = read_swf(args.swf, filter=args.filter)
    runs, _ = evaluate_triples(workload, HEADER_SIZE_TRIPLES, l2=0.0)
    runs.insert(0, "trace", args.trace)
    runs.insert(1, "machine_size", workload.machine_size)
    files.write_parquet(runs, args.runs, step.provenance(args))
    print(f"{args.runs}: {len(runs)} triples on {args.trace} at {workload.machine_size:,} processors")


def _read_selection(path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=True)


@STEPS.step(
    "predict-select: leave-one-trace-out triple selection",
    step.inputs("--runs", nargs="+", metavar="RUNS.parquet", help="predict-grid outputs"),
    step.option("--default-learning-rate", type=positive_float, default=1.0),
    step.output("--grid", metavar="GRID.parquet", help="all triples of all traces"),
    step.output("--selection", metavar="SELECTION.csv"),
)
def run_select(args) -> None:
    grid = files.read_all(args.runs)
    grid = grid.sort_values(["trace", *TRIPLE], kind="stable").reset_index(drop=True)
    selection = selection_table(grid, args.default_learning_rate)
    files.write_parquet(grid, args.grid, step.provenance(args))
    files.write_csv(selection, args.selection)
    print(f"{args.selection}: triples selected for {len(selection)} traces")


@STEPS.step(
    "predict-variants: baselines and selected triples on resampled variants",
    step.inputs("variants", metavar="VARIANTS.parquet"),
    MODEL_OPTIONS,
    step.option("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range"),
    step.inputs("--selection", metavar="SELECTION.csv"),
    step.output("--runs", metavar="RUNS.parquet"),
)
def run_variants(args) -> None:
    selection = _read_selection(args.selection).set_index("trace")
    row = selection.loc[args.trace].to_dict() if args.trace in selection.index else None
    triples = variant_triples(row, args.default_learning_rate)
    first, _, stop = args.select.partition(":")
    numbers = range(int(first), int(stop))
    frames = []
    variants = files.iter_variants(args.variants, numbers)
    for number, workload in progress(variants, len(numbers), f"{args.trace} variants {args.select}"):
        runs, _ = evaluate_triples(workload, triples, args.l2)
        frames.append(runs.assign(trace=args.trace, variant=number))
    runs = pd.concat(frames, ignore_index=True)
    files.write_parquet(runs, args.runs, step.provenance(args, triples=triples.values.tolist()))
    print(f"{args.runs}: {len(triples)} triples on {len(frames)} variants of {args.trace}")


@STEPS.step(
    "predict-tables: the prediction paper's tables and report section",
    step.inputs("--grid", metavar="GRID.parquet"),
    step.inputs("--selection", metavar="SELECTION.csv"),
    step.inputs("--variant-runs", nargs="*", default=[], metavar="RUNS.parquet"),
    step.inputs(
        "--header-size-runs", nargs="*", default=[], metavar="RUNS.parquet", help="predict-header-size outputs"
    ),
    step.TABLES,
    step.SECTION,
)
def run_tables(args) -> None:
    from simcore.studies.prediction.report import prediction_markdown, reproduction_rows

    grid = files.read_parquet(args.grid)
    selection = _read_selection(args.selection)
    variant_runs = files.read_all(args.variant_runs) if args.variant_runs else None
    tables = {
        "table1": table1(grid),
        "table6": table6(grid),
        "table7": selection,
        "table8": table8(grid, selection),
        "correlations": correlations(grid),
    }
    if variant_runs is not None:
        tables["variants"] = variant_table(variant_runs)
    if args.header_size_runs:
        tables["header_size"] = header_size_table(grid, files.read_all(args.header_size_runs))
    outdir = Path(args.outdir)
    for name, frame in tables.items():
        files.write_csv(frame, outdir / f"{name}.csv")
    rows = reproduction_rows(tables)
    files.write_csv(rows, args.rows)
    files.write_text(args.markdown, prediction_markdown(tables))
    print(f"{args.markdown}: {len(rows)} published values compared")


@STEPS.step(
    "plot-predictions: ECDFs of one trace's predictions (Figures 4, 5)",
    step.option("--trace", required=True),
    step.inputs("--predictions", nargs="+", metavar="PREDICTIONS.parquet"),
    step.inputs("--selection", metavar="SELECTION.csv"),
    step.output("--errors", "--values", nargs="+", metavar="FILE.png|pdf"),
)
def run_plot(args) -> None:
    from simcore.reporting.style import save
    from simcore.studies.prediction.figures import prediction_ecdf_figure

    predictions = pd.concat([files.read_parquet(path) for path in args.predictions], axis=1)
    predictions = predictions.loc[:, ~predictions.columns.duplicated()]
    selection = _read_selection(args.selection).set_index("trace")
    eloss = selection.at[args.trace, "eloss_predictor"] if args.trace in selection.index else None
    save(prediction_ecdf_figure(predictions, args.trace, eloss, "errors"), args.errors)
    save(prediction_ecdf_figure(predictions, args.trace, eloss, "values"), args.values)
    print(f"prediction ECDFs of {args.trace}")


@STEPS.step(
    "plot-correlations: triples' AVEbsld between traces (Figure 3)",
    step.inputs("--grid", metavar="GRID.parquet"),
    step.output("--output", nargs="+", metavar="FILE.png|pdf"),
)
def run_correlations(args) -> None:
    from simcore.reporting.style import save
    from simcore.studies.prediction.figures import correlation_figure

    save(correlation_figure(files.read_parquet(args.grid)), args.output)
    print(f"correlation figure of {args.grid}")


COMMANDS = STEPS.commands()
