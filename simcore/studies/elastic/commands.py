"""`simcore` subcommands of the elastic study (simcore.studies.elastic.study)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simcore.studies.elastic.jobsets import SET_JOBS, consecutive_sets, whole_set
from simcore.studies.elastic.study import DEFAULT_RUNS, run_jobset, speedups, summary_table
from simcore.workloads.files import read_all, read_workload, write_csv, write_parquet

RUN_KEYS = ("elastic", "model", "lambda")


def _runs(text: str) -> dict:
    """--runs: JSON {name: {"elastic": bool, "model": "ORA" | "EST", "lambda": λ}}."""
    runs = json.loads(text)
    checked = {}
    for name, options in runs.items():
        if set(options) != set(RUN_KEYS):
            raise argparse.ArgumentTypeError(
                f"run {name!r} needs exactly the keys {', '.join(RUN_KEYS)}, got {sorted(options)}"
            )
        if options["model"] not in ("ORA", "EST") or not 0 <= options["lambda"] <= 1:
            raise argparse.ArgumentTypeError(f"run {name!r}: model ORA or EST and lambda in [0, 1], got {options}")
        checked[name] = (bool(options["elastic"]), options["model"], float(options["lambda"]))
    return checked


def add_commands(commands) -> None:
    run = commands.add_parser("elastic-run", help="SARSA+ESN scheduling and elastic provisioning on one job set")
    run.add_argument("workload", metavar="WORKLOAD.parquet", help="a trace filtered with --filter truncate")
    run.add_argument("--trace", required=True, help="trace name written into the rows")
    run.add_argument(
        "--set",
        required=True,
        help="K: the K-th (from 1) consecutive set of --set-jobs serial jobs; all: every serial job as one set",
    )
    run.add_argument("--set-jobs", type=int, default=SET_JOBS, help=f"jobs per set (default {SET_JOBS})")
    run.add_argument("--runs", type=_runs, help="JSON runs (default: the paper's nine)")
    run.add_argument("--seeds", type=int, default=5, help="learner seeds (default 5)")
    run.add_argument("--output", "-o", required=True, metavar="RUNS.parquet")
    run.add_argument("--series", required=True, metavar="SERIES.parquet", help="per-job W, wait and F (seed 0)")
    run.add_argument("--pools", required=True, metavar="POOLS.parquet", help="the pool over time (seed 0)")

    tables = commands.add_parser("elastic-tables", help="the elastic study's tables over seeds and job sets")
    tables.add_argument("runs", nargs="+", metavar="RUNS.parquet")
    tables.add_argument("--outdir", required=True)


def run_experiment(args) -> int:
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    workload = read_workload(args.workload)
    if args.set == "all":
        jobs = whole_set(workload, args.trace)
    else:
        try:
            number = int(args.set)
        except ValueError:
            raise ValueError(f"--set must be a set number (from 1) or all, got {args.set!r}") from None
        sets = consecutive_sets(workload, args.trace, args.set_jobs)
        if not 1 <= number <= len(sets):
            raise ValueError(f"{args.workload}: {args.trace} has {len(sets)} sets of {args.set_jobs} serial jobs")
        jobs = sets[number - 1]
    runs = args.runs or DEFAULT_RUNS
    frame, series, pools = run_jobset(jobs, runs, args.seeds)
    provenance = {
        "command": "elastic-run",
        "workload_file": args.workload,
        "set": args.set,
        "set_jobs": args.set_jobs,
        "runs": {name: list(options) for name, options in runs.items()},
        "seeds": args.seeds,
        "rigid_pool": jobs.rigid_pool,
        "groups": list(jobs.groups),
        "shares": jobs.shares.tolist(),
    }
    for table, path in ((frame, args.output), (series, args.series), (pools, args.pools)):
        table.insert(0, "trace", args.trace)
        write_parquet(table, path, provenance)
    print(f"{args.output}: {jobs.name}, {len(frame)} runs, rigid pool {jobs.rigid_pool}")
    return 0


def run_tables(args) -> int:
    runs = read_all(args.runs)
    outdir = Path(args.outdir)
    write_parquet(runs, outdir / "runs.parquet", {"command": "elastic-tables", "inputs": args.runs})
    for trace, part in runs.groupby("trace", sort=False):
        write_csv(summary_table(part), outdir / f"{trace}.summary.csv")
    write_csv(speedups(runs).merge(runs[["jobset", "trace"]].drop_duplicates(), on="jobset"), outdir / "speedups.csv")
    print(f"{outdir}: {runs['trace'].nunique()} traces, {runs['jobset'].nunique()} job sets, {len(runs)} runs")
    return 0


COMMANDS = {"elastic-run": run_experiment, "elastic-tables": run_tables}
