"""`simcore` subcommands of the co-scheduling study (simcore.studies.coscheduling.study)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from simcore.engine.workload import EmptyWorkloadError
from simcore.studies.coscheduling.claims import claims
from simcore.studies.coscheduling.paper_queue import (
    DEFAULT_WALLTIME_FACTOR,
    PAPER_QUEUE_TRACE,
    PAPER_REPETITIONS,
    PAPER_SCHEDULER,
    queue_runs,
    table2_weighted_mean,
)
from simcore.studies.coscheduling.report import (
    LOAD_LABELS,
    ablation_configurations,
    coscheduling_markdown,
    published_ratios,
    reproduction_rows,
)
from simcore.studies.coscheduling.sharing import EFFICIENCY_MODES, EXPERTS, SCHEDULERS, STRATEGIES, SharingInputError
from simcore.studies.coscheduling.study import (
    DEFAULT_CONFIGURATIONS,
    Sweep,
    check_configurations,
    run_flush,
    run_replay,
    summary_table,
)
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import positive_float
from simcore.workloads.sharing_profiles import SHARING_PROFILES, apply_profile

EXPERIMENTS = ("E1", "E2")


def _kappa(text: str) -> float:
    """argparse type: an interference factor in [0, 1)."""
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"each κ must be in [0, 1), got {text}")
    return value


STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "coscheduling-run: co-scheduling experiment E1 or E2 on one trace (seed 002)",
    step.inputs("workload", metavar="WORKLOAD.parquet", help="a trace filtered with --filter truncate, or a model"),
    step.TRACE_NAME,
    step.option("--experiment", choices=EXPERIMENTS, required=True, help="E1 queue flush or E2 online replay"),
    step.option(
        "--configurations",
        type=json.loads,
        default=DEFAULT_CONFIGURATIONS,
        help='JSON {name: {"strategy": ..., "levels": ..., "loss": ..., "scope": ..., "interference": ..., '
        '"protect_reservation": ..., "fall_through": ..., "learn": ..., "memory_capacity": ..., "warm": ...}} '
        "(default: SPACE, STATIC, ASAX, HEADROOM)",
    ),
    step.option("--loads", type=positive_float, nargs="+", required=True, help="E1: 8 4 2; E2: 0.5 0.7 0.9"),
    step.option("--kappas", type=_kappa, nargs="+", default=[0.0], help="interference factors (default 0)"),
    step.option("--seeds", type=int, default=3, help="learner seeds per setting (default 3)"),
    step.option("--memory", choices=("on", "off"), default="on", help="memory tests (off: the trace has none)"),
    step.option("--memory-capacity", type=positive_float, help="KB per processor (default: from the trace)"),
    step.option("--efficiency", choices=EFFICIENCY_MODES, default="require", help="without SWF field 6"),
    step.option(
        "--profile",
        choices=tuple(SHARING_PROFILES),
        help="draw CPU efficiency and memory from a fitted profile (model traces record neither)",
    ),
    step.option("--profile-seed", type=int, default=0),
    step.option("--window", type=int, default=45, help="E1 window size (default 45, the paper's)"),
    step.option("--max-windows", type=int, help="E1: only the first N windows (default: all)"),
    step.output("--output", "-o", metavar="RUNS.parquet"),
    step.output(
        "--weights", required=False, metavar="WEIGHTS.parquet", help="E2: the learners' expert weights per round"
    ),
)
def run_experiment(args) -> None:
    configurations = check_configurations(args.configurations)
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    if args.window < 1:
        raise ValueError(f"--window must be >= 1, got {args.window}")
    if args.weights and args.experiment == "E1":
        raise ValueError("--weights is written by E2 only (E1's learners are fresh per window)")
    workload = files.read_workload(args.workload)
    if workload.filter_mode not in (None, "truncate"):
        raise ValueError(
            f"{args.workload}: filtered with {workload.filter_mode!r}; the co-scheduling model runs each job's work "
            "min(p, p~) from the truncate filter (docs/coscheduling.md §1)"
        )
    if args.experiment == "E1" and len(workload) < args.window:
        raise EmptyWorkloadError(f"{args.workload}: {len(workload)} jobs, fewer than one E1 window of {args.window}")
    source = "the trace (SWF fields 6, 7 and 10)"
    if args.profile:
        workload = apply_profile(workload, args.profile, args.profile_seed)
        source = f"the fitted {args.profile} profile (seed {args.profile_seed}; docs/sharing_profiles.md)"
    sweep = Sweep(
        configurations,
        tuple(args.loads),
        tuple(args.kappas),
        args.seeds,
        args.memory == "on",
        args.memory_capacity,
        args.efficiency,
    )
    try:
        if args.experiment == "E1":
            label = f"{args.trace} E1 settings"  # a load and a run of the grid, over every window
            runs = run_flush(workload, sweep, window=args.window, max_windows=args.max_windows, label=label)
            weights = None
        else:
            runs, weights = run_replay(workload, sweep, label=f"{args.trace} E2 runs")
    except SharingInputError as error:
        raise SharingInputError(f"{args.workload}: {error}") from None
    runs.insert(0, "trace", args.trace)
    recorded = step.provenance(args, configurations=configurations, efficiency_source=source)
    files.write_parquet(runs, args.output, recorded)
    if args.weights:
        weights.insert(0, "trace", args.trace)
        files.write_parquet(weights, args.weights, recorded)
    print(f"{args.output}: {args.trace} {args.experiment}, {len(runs)} runs of {len(configurations)} configurations")


@STEPS.step(
    "coscheduling-paper-queue: the co-scheduling configurations on the ASA_X paper's queue (seed 002, §4.4)",
    step.option("--configurations", type=json.loads, default=DEFAULT_CONFIGURATIONS, help="as coscheduling-run's"),
    step.option("--kappas", type=_kappa, nargs="+", default=[0.0], help="interference factors (default 0)"),
    step.option("--seeds", type=int, default=3, help="learner seeds per setting (default 3)"),
    step.option(
        "--walltime-factor",
        type=float,
        default=DEFAULT_WALLTIME_FACTOR,
        help="requested time over run time (default 2)",
    ),
    step.option(
        "--queue-configurations",
        type=json.loads,
        default={},
        help="JSON, as --configurations: more configurations run on the queue only (STATIC every-job, EASY variants)",
    ),
    step.option(
        "--scheduler",
        choices=SCHEDULERS,
        default=PAPER_SCHEDULER,
        help="base scheduler of the sharing configurations that name none (default: the paper's first fit); "
        "SPACE stays EASY",
    ),
    step.option("--repetitions", type=int, default=PAPER_REPETITIONS, help="runs of the queue per size (default 3)"),
    step.option(
        "--learner",
        choices=("warm", "fresh"),
        default="warm",
        help="warm: each learner carried from run to run, sizes in the paper's order (default); fresh: new per run",
    ),
    step.output("--output", "-o", metavar="RUNS.parquet"),
    step.output("--classes", metavar="CLASSES.parquet"),
)
def run_paper_queue(args) -> None:
    clashes = sorted(set(args.configurations) & set(args.queue_configurations))
    if clashes:
        raise SharingInputError(f"--queue-configurations: {clashes} already in --configurations")
    configurations = check_configurations(args.configurations | args.queue_configurations)
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    sweep = Sweep(configurations, (), tuple(args.kappas), args.seeds)
    runs, classes = queue_runs(sweep, args.walltime_factor, args.scheduler, args.repetitions, args.learner == "warm")
    runs.insert(0, "trace", PAPER_QUEUE_TRACE)
    recorded = step.provenance(
        args,
        configurations=configurations,
        queue_configurations=sorted(args.queue_configurations),
        efficiency_source="the ASA_X paper's Table 2, Slurm column (docs/sharing_profiles.md)",
    )
    files.write_parquet(runs, args.output, recorded)
    files.write_parquet(classes, args.classes, recorded)
    print(f"{args.output}: the paper's queue at {len(set(runs['load']))} sizes, {len(runs)} runs")


@STEPS.step(
    "coscheduling-tables: co-scheduling tables and the report section",
    step.inputs("runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs("--classes", default=None, metavar="CLASSES.parquet", help="the paper queue's per-workflow rows"),
    step.TABLES,
    step.SECTION,
)
def run_tables(args) -> None:
    runs = files.read_all(args.runs)
    sources, ablations = {}, {}
    for path in args.runs:
        recorded = files.read_provenance(path)
        ablations |= ablation_configurations(recorded.get("configurations", {}))
        trace = files.read_parquet(path, columns=["trace"])["trace"]
        if len(trace):
            sources[trace.iloc[0]] = recorded.get("efficiency_source", "the trace")
    summary = summary_table(runs)
    summary["ablation"] = summary["configuration"].isin(list(ablations))  # their own table, not the figures
    checked = claims(runs)
    outdir = Path(args.outdir)
    files.write_parquet(runs, outdir / "runs.parquet", step.provenance(args))
    files.write_csv(summary, outdir / "summary.csv")
    files.write_csv(checked, outdir / "claims.csv")
    classes = files.read_parquet(args.classes) if args.classes else None
    files.write_csv(reproduction_rows(summary, classes), args.rows)
    files.write_text(args.markdown, coscheduling_markdown(summary, checked, sources, ablations, classes))
    print(f"{outdir}: {summary['trace'].nunique()} traces, {len(runs)} runs")


@STEPS.step(
    "plot-coscheduling: the co-scheduling figures of one trace",
    step.inputs("--tables", help="coscheduling-tables' directory"),
    step.inputs("--weights", nargs="*", default=[], metavar="WEIGHTS.parquet"),
    step.option("--trace", required=True),
    step.folder_output("--outdir", help="<trace>.<figure>.png and .pdf"),
)
def run_plot(args) -> None:
    from simcore.reporting.style import save_figures
    from simcore.studies.coscheduling import figures

    tables, outdir = Path(args.tables), Path(args.outdir)
    summary = pd.read_csv(tables / "summary.csv")
    runs = files.read_parquet(tables / "runs.parquet", filters=[("trace", "==", args.trace)])
    runs = runs[~runs["configuration"].isin(set(summary.loc[summary["ablation"], "configuration"]))]
    weights = (
        files.read_all(args.weights)
        if args.weights
        else pd.DataFrame(columns=["trace", "seed", "kappa", "configuration", "load", "round", *EXPERTS])
    )
    published = {
        (name, load): {
            "mean_wait": values["wait ratio"],
            "mean_response": values["response ratio"],
        }
        for load, label in LOAD_LABELS.items()
        for name in ("STATIC", "ASAX")
        for values in [published_ratios(name, label)]
    }
    published_utilisation = {  # the paper's Table 2 CPU utilisation (%, job-weighted), beside our U_alloc
        (name, load): table2_weighted_mean(name, label)
        for load, label in LOAD_LABELS.items()
        for name in STRATEGIES[:3]
    }
    drawn = {  # figures.FIGURES, in order
        "ratios_e1": figures.ratio_figure(summary, args.trace, "E1", published),
        "ratios_e2": figures.ratio_figure(summary, args.trace, "E2"),
        "utilisation": figures.utilisation_figure(summary, args.trace, published_utilisation),
        "slowdown": figures.slowdown_figure(runs, args.trace),
        "weights": figures.weights_figure(weights, args.trace),
        "actions": figures.actions_figure(runs, args.trace),
    }
    save_figures(drawn, outdir, f"{args.trace}.")
    print(f"{outdir}: {len(drawn)} figures of {args.trace}")


COMMANDS = STEPS.commands()
