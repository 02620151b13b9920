"""`simcore` subcommands of the recorded-schedule study (simcore.studies.recorded_schedule.study)."""

from __future__ import annotations

import json

from simcore.engine.policies import POLICIES_HELP, check_policies
from simcore.reporting.style import save
from simcore.studies.recorded_schedule.figures import recorded_schedule_figure
from simcore.studies.recorded_schedule.report import recorded_schedule_markdown
from simcore.studies.recorded_schedule.study import best_policies, run_recorded_schedule
from simcore.workloads import files
from simcore.workloads import steps as step

STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "recorded-schedule: site policies on a trace as recorded, compared with its recorded waits",
    step.inputs("workload", metavar="WORKLOAD.parquet", help="a filtered trace (simcore filter)"),
    step.TRACE_NAME,
    step.option("--policies", required=True, type=json.loads, metavar="JSON", help=POLICIES_HELP),
    step.output("--runs", metavar="RUNS.parquet", help="one row per policy"),
    step.output("--weekly", metavar="WEEKLY.parquet", help="one row per policy and week"),
)
def run_recorded(args) -> None:
    policies = check_policies(args.policies, "--policies")
    workload = files.read_workload(args.workload)
    runs, weekly = run_recorded_schedule(workload, policies)
    files.write_parquet(runs.assign(trace=args.trace), args.runs, step.provenance(args, policies=policies))
    files.write_parquet(weekly.assign(trace=args.trace), args.weekly, step.provenance(args, policies=policies))
    print(f"{args.runs}: {len(policies)} policies on {len(workload):,} jobs of {args.trace}")


@STEPS.step(
    "recorded-schedule-tables: the recorded-schedule table, section and figure",
    step.inputs("--runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs("--weekly", nargs="+", metavar="WEEKLY.parquet"),
    step.option("--policies", required=True, type=json.loads, metavar="JSON", help=POLICIES_HELP),
    step.output("--summary", metavar="RUNS.parquet", help="every policy, every trace"),
    step.output("--table-csv", metavar="BEST.csv", help="the closest policy per trace"),
    step.output("--section", metavar="REPORT.md"),
    step.output("--figure", nargs="+", metavar="FILE.png|pdf"),
)
def run_tables(args) -> None:
    policies = check_policies(args.policies, "--policies")
    runs, weekly = files.read_all(args.runs), files.read_all(args.weekly)
    best = best_policies(runs)
    files.write_parquet(runs, args.summary, step.provenance(args, policies=policies))
    files.write_csv(best, args.table_csv)
    files.write_text(args.section, recorded_schedule_markdown(runs, best, policies))
    save(recorded_schedule_figure(weekly, runs["trace"], list(policies)), args.figure)
    for row in best.itertuples(index=False):
        print(f"{row.trace}: {row.verdict_text}; Spearman {row.spearman:.3f}")


COMMANDS = STEPS.commands()
