"""`simcore` subcommands of the elastic study (simcore.studies.elastic.study)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd

from simcore.studies.elastic.jobsets import (
    MONITORING,
    PRE_TRAINING_JOBS,
    RIGID_POOLS,
    SET_JOBS,
    JobSetError,
    consecutive_sets,
    rank_sets,
    set_statistics,
    whole_set,
)
from simcore.studies.elastic.metrics import measured
from simcore.studies.elastic.report import claims, elastic_markdown, reproduction_rows
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import positive_float
from simcore.workloads.vo_profiles import VO_PROFILES, apply_vo_profile

RUN_KEYS = ("elastic", "model", "lambda")
VARIANT_KEYS = ("utilisation", "pre_training_pool", "pool_request")  # optional: the elastic learner's ablations
LOG_GROUPS = "the trace's groups"  # where a real log's VOs come from (its rows are compared with the paper)


def _runs(text: str) -> dict:
    """--runs: JSON {name: {"elastic": bool, "model": "ORA" | "EST", "lambda": λ[, "utilisation":
    "interval" | "cumulative"][, "pre_training_pool": "explore" | "rigid"][, "pool_request":
    "headroom" | "level"]}}."""
    from simcore.studies.elastic.study import RunSettings

    runs = json.loads(text)
    if not isinstance(runs, dict) or not runs:
        raise argparse.ArgumentTypeError(f"a non-empty JSON object of runs, got {text}")
    checked = {}
    for name, options in runs.items():
        if not isinstance(options, dict) or not set(RUN_KEYS) <= set(options) <= set(RUN_KEYS + VARIANT_KEYS):
            needed, optional = ", ".join(RUN_KEYS), ", ".join(VARIANT_KEYS)
            raise argparse.ArgumentTypeError(
                f"run {name!r} needs the keys {needed} (optional: {optional}), got {options}"
            )
        elastic, model, lam = (options[key] for key in RUN_KEYS)
        number = isinstance(lam, int | float) and not isinstance(lam, bool)
        if not isinstance(elastic, bool) or not number:
            raise argparse.ArgumentTypeError(f"run {name!r}: elastic true or false and a number lambda, got {options}")
        try:
            checked[name] = RunSettings(
                elastic, model, float(lam), **{key: options[key] for key in VARIANT_KEYS if key in options}
            )
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"run {name!r}: {error}") from None
    return checked


def _count(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return value


# The options that make a trace's job sets, shared by elastic-run and elastic-sets
JOB_SET_OPTIONS = (
    *step.inputs("workload", metavar="WORKLOAD.parquet", help="a trace filtered with --filter truncate"),
    *step.TRACE_NAME,
    *step.option("--set-jobs", type=_count, default=SET_JOBS, help=f"jobs per set (default {SET_JOBS})"),
    *step.option(
        "--pre-training",
        type=_count,
        default=PRE_TRAINING_JOBS,
        help=f"the first jobs of a set, run by EDF to pre-train the learner (default {PRE_TRAINING_JOBS})",
    ),
    *step.option(
        "--monitoring",
        choices=MONITORING,
        default="remove",
        help="remove the monitoring-like users' jobs before cutting the sets, as the paper did (default; "
        "docs/elastic.md §1), or keep them",
    ),
    *step.option(
        "--vo-profile",
        choices=sorted(VO_PROFILES),
        help="draw serial jobs and groups from a fitted VO profile (model traces record no groups)",
    ),
    *step.option("--profile-seed", type=int, default=0),
    *step.option(
        "--time-compression",
        type=positive_float,
        default=1.0,
        help="divide the submit times by this factor (a model trace's serial load made a grid site's; default 1)",
    ),
)


STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "elastic-run: SARSA+ESN scheduling and elastic provisioning on one job set",
    JOB_SET_OPTIONS,
    step.option(
        "--set",
        required=True,
        help="K: the K-th (from 1) consecutive set of --set-jobs serial jobs; all: every serial job as one set",
    ),
    step.option("--runs", type=_runs, help="JSON runs (default: the paper's nine)"),
    step.option("--seeds", type=_count, default=5, help="learner seeds (default 5)"),
    step.option(
        "--rigid-pool",
        choices=RIGID_POOLS,
        default="site",
        help="the rigid runs' pool: the site's own cores (the log's machine, default; docs/elastic.md §1.4) "
        "or the load-matched pool",
    ),
    step.output("--output", "-o", metavar="RUNS.parquet"),
    step.output("--series", metavar="SERIES.parquet", help="per-job W, wait and F (seed 0)"),
    step.output("--pools", metavar="POOLS.parquet", help="the pool over time (seed 0)"),
)
def run_experiment(args) -> None:
    # here, not at the top: the learner loads scipy, which every other simcore command would pay for
    from simcore.studies.elastic.study import DEFAULT_RUNS, run_jobset

    workload, source = _workload(args)
    try:
        if args.set == "all":
            jobs = whole_set(workload, args.trace, args.pre_training, args.monitoring)
        else:
            number = int(args.set) if args.set.isdigit() else 0
            if number < 1:
                raise JobSetError(f"--set must be a set number (from 1) or all, got {args.set!r}")
            sets = consecutive_sets(workload, args.trace, args.set_jobs, number, args.pre_training, args.monitoring)
            if number > len(sets):
                raise JobSetError(f"{args.trace} has {len(sets)} sets of {args.set_jobs} serial jobs, no set {number}")
            jobs = sets[number - 1]
        measured(jobs)  # a set too small for the metrics stops here, before any run
    except (JobSetError, ValueError) as error:
        raise JobSetError(f"{args.workload}: {error}") from None
    runs = args.runs or DEFAULT_RUNS
    frame, series, pools = run_jobset(jobs, runs, args.seeds, args.rigid_pool, progress_lines=True)
    recorded = step.provenance(
        args,
        vo_source=source,
        runs={name: asdict(settings) for name, settings in runs.items()},
        rigid_pool_rule=args.rigid_pool,
        rigid_pool=jobs.rigid_pool(args.rigid_pool),
        load_pool=jobs.load_pool,
        groups=list(jobs.groups),
        shares=jobs.shares.tolist(),
        set_statistics=set_statistics(jobs),
    )
    for table, path in ((frame, args.output), (series, args.series), (pools, args.pools)):
        table.insert(0, "trace", args.trace)
        files.write_parquet(table, path, recorded)
    print(
        f"{args.output}: {jobs.name}, {len(frame)} runs, rigid pool {jobs.rigid_pool(args.rigid_pool)} "
        f"({args.rigid_pool}), load-matched pool {jobs.load_pool}"
    )


def _workload(args):
    """The trace of a job-set command, with its VO profile and time compression, and where its VOs come from."""
    workload = files.read_workload(args.workload)
    made = files.read_provenance(args.workload)
    # a model's groups are drawn, not logged: its rows are not compared with the paper's tables
    source = (
        f"the {made['model']} model's groups (seed {made['seed']})" if made.get("command") == "model" else LOG_GROUPS
    )
    if args.vo_profile:
        workload = apply_vo_profile(workload, args.vo_profile, args.profile_seed)
        source = f"the fitted {args.vo_profile} VO profile (seed {args.profile_seed}; docs/elastic.md)"
    if args.time_compression != 1.0:
        workload = replace(workload, submit=workload.submit / args.time_compression)
        source += f", submissions compressed {args.time_compression:g} times"
    return workload, source


@STEPS.step(
    "elastic-sets: every job set of a trace beside the paper's workload, ranked by closeness",
    JOB_SET_OPTIONS,
    step.output("--output", "-o", metavar="SETS.csv"),
)
def run_sets(args) -> None:
    workload, _ = _workload(args)
    try:
        sets = consecutive_sets(workload, args.trace, args.set_jobs, None, args.pre_training, args.monitoring)
    except (JobSetError, ValueError) as error:
        raise JobSetError(f"{args.workload}: {error}") from None
    ranked = pd.DataFrame(rank_sets(sets))
    files.write_csv(ranked, args.output)
    best = ranked[ranked["rank"] > 0].sort_values("rank")["set"].tolist()
    print(f"{args.output}: {len(sets)} sets of {args.trace}, closest to the paper's workload first: {best}")


@STEPS.step(
    "elastic-tables: the elastic study's tables over seeds and job sets",
    step.inputs("runs", nargs="+", metavar="RUNS.parquet"),
    step.TABLES,
    step.SECTION,
)
def run_tables(args) -> None:
    from simcore.studies.elastic.study import speedups, summary_table

    runs = files.read_all(args.runs)
    sources, sets = {}, []  # trace -> where its VOs come from; each job set's statistics
    for path in args.runs:
        trace = files.read_parquet(path, columns=["trace"])["trace"]
        if len(trace):
            recorded = files.read_provenance(path)
            sources[trace.iloc[0]] = recorded.get("vo_source", LOG_GROUPS)
            sets.append({"trace": trace.iloc[0], **recorded["set_statistics"]})
    outdir = Path(args.outdir)
    files.write_parquet(runs, outdir / "runs.parquet", step.provenance(args))
    summary = pd.concat(
        [summary_table(part).assign(trace=trace) for trace, part in runs.groupby("trace", sort=False)],
        ignore_index=True,
    )
    gains = speedups(runs).merge(runs[["jobset", "trace"]].drop_duplicates(), on="jobset")
    files.write_csv(summary, outdir / "summary.csv")
    files.write_csv(gains, outdir / "speedups.csv")
    real = [trace for trace, source in sources.items() if source == LOG_GROUPS]
    files.write_csv(reproduction_rows(runs[runs["trace"].isin(real)], gains[gains["trace"].isin(real)]), args.rows)
    sets = pd.DataFrame(sets)
    files.write_csv(sets, outdir / "job_sets.csv")
    checked = claims(runs, gains)
    files.write_csv(checked, outdir / "claims.csv")
    files.write_text(args.markdown, elastic_markdown(runs, gains, summary, sources, sets, checked))
    print(f"{outdir}: {runs['trace'].nunique()} traces, {runs['jobset'].nunique()} job sets, {len(runs)} runs")


@STEPS.step(
    "plot-elastic: the elastic study's figures of one trace (its first job set)",
    step.inputs("--runs", metavar="RUNS.parquet", help="elastic-tables' runs.parquet"),
    step.inputs("--series", metavar="SERIES.parquet", help="elastic-run's per-job series"),
    step.inputs("--pools", metavar="POOLS.parquet", help="elastic-run's pool over time"),
    step.option("--trace", required=True),
    step.folder_output("--outdir"),
)
def run_plot(args) -> None:
    from simcore.reporting.style import save_figures
    from simcore.studies.elastic.figures import draw_figures

    series, pools = files.read_parquet(args.series), files.read_parquet(args.pools)
    if series.empty:
        raise ValueError(f"{args.series}: no job series to draw")
    jobset = series["jobset"].iloc[0]
    runs = files.read_parquet(args.runs, filters=[("jobset", "==", jobset)])
    drawn = draw_figures(series, pools, runs, jobset)
    outdir = Path(args.outdir)
    save_figures(drawn, outdir, f"{args.trace}.")
    print(f"{outdir}: {len(drawn)} figures of {jobset}")


COMMANDS = STEPS.commands()
