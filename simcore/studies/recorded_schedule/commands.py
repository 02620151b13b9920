"""`simcore` subcommands of the recorded-schedule study (simcore.studies.recorded_schedule.study)."""

from __future__ import annotations

import json

from simcore.engine.policies import POLICIES_HELP, check_policies
from simcore.reporting.style import save
from simcore.studies.recorded_schedule.figures import recorded_schedule_figure
from simcore.studies.recorded_schedule.report import recorded_schedule_markdown
from simcore.studies.recorded_schedule.study import best_policies, run_recorded_schedule
from simcore.workloads.arguments import output_file
from simcore.workloads.files import read_all, read_workload, write_csv, write_parquet, write_text


def add_commands(commands) -> None:
    run = commands.add_parser(
        "recorded-schedule", help="site policies on a trace as recorded, compared with its recorded waits"
    )
    run.add_argument("workload", metavar="WORKLOAD.parquet", help="a filtered trace (simcore filter)")
    run.add_argument("--trace", required=True, help="trace name written into the rows")
    run.add_argument("--policies", required=True, type=json.loads, metavar="JSON", help=POLICIES_HELP)
    run.add_argument("--runs", required=True, type=output_file, metavar="RUNS.parquet", help="one row per policy")
    run.add_argument(
        "--weekly", required=True, type=output_file, metavar="WEEKLY.parquet", help="one row per policy and week"
    )

    tables = commands.add_parser("recorded-schedule-tables", help="the recorded-schedule table, section and figure")
    tables.add_argument("--runs", nargs="+", required=True, metavar="RUNS.parquet")
    tables.add_argument("--weekly", nargs="+", required=True, metavar="WEEKLY.parquet")
    tables.add_argument("--policies", required=True, type=json.loads, metavar="JSON", help=POLICIES_HELP)
    tables.add_argument("--summary", required=True, metavar="RUNS.parquet", help="every policy, every trace")
    tables.add_argument("--table-csv", required=True, metavar="BEST.csv", help="the closest policy per trace")
    tables.add_argument("--section", required=True, metavar="REPORT.md")
    tables.add_argument("--figure", nargs="+", required=True, metavar="FILE.png|pdf")


def run_recorded(args) -> int:
    policies = check_policies(args.policies, "--policies")
    workload = read_workload(args.workload)
    runs, weekly = run_recorded_schedule(workload, policies)
    provenance = {"command": "recorded-schedule", "workload": args.workload, "policies": policies}
    write_parquet(runs.assign(trace=args.trace), args.runs, provenance)
    write_parquet(weekly.assign(trace=args.trace), args.weekly, provenance)
    print(f"{args.runs}: {len(policies)} policies on {len(workload):,} jobs of {args.trace}")
    return 0


def run_tables(args) -> int:
    policies = check_policies(args.policies, "--policies")
    runs, weekly = read_all(args.runs), read_all(args.weekly)
    best = best_policies(runs)
    provenance = {"command": "recorded-schedule-tables", "inputs": args.runs + args.weekly, "policies": policies}
    write_parquet(runs, args.summary, provenance)
    write_csv(best, args.table_csv)
    write_text(args.section, recorded_schedule_markdown(runs, best, policies))
    save(recorded_schedule_figure(weekly, runs["trace"], list(policies)), args.figure)
    for row in best.itertuples(index=False):
        print(f"{row.trace}: {row.verdict_text}; Spearman {row.spearman:.3f}")
    return 0


COMMANDS = {"recorded-schedule": run_recorded, "recorded-schedule-tables": run_tables}
