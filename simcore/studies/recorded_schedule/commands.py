"""`simcore` subcommands of the recorded-schedule study (simcore.studies.recorded_schedule.study)."""

from __future__ import annotations

import json

from simcore.engine.policies import POLICIES_HELP, check_policies
from simcore.reporting.style import save
from simcore.studies.recorded_schedule.figures import recorded_schedule_figure
from simcore.studies.recorded_schedule.report import recorded_schedule_markdown
from simcore.studies.recorded_schedule.slurm import check_slurm_variants, site_slurm_runs
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
    "recorded-schedule-slurm: a site's log in the Slurm mode under its slurm.conf and variants of it",
    step.inputs("log", metavar="LOG", help="the site's sacct dump (the README's command) or SWF log"),
    step.TRACE_NAME,
    step.inputs("--slurm-conf", metavar="slurm.conf"),
    step.inputs("--slurm-assoc", metavar="FILE", default=None, help="sshare -a -l -P (fair share)"),
    step.option(
        "--variants", required=True, type=json.loads, metavar="JSON", help="{name: {SlurmOptions field: value}}"
    ),
    step.output("--runs", metavar="SLURM.parquet", help="one row per configuration: the site's, each variant's"),
)
def run_slurm(args) -> None:
    variants = check_slurm_variants(args.variants, "--variants")
    runs = site_slurm_runs(args.log, args.slurm_conf, args.slurm_assoc, variants).assign(trace=args.trace)
    files.write_parquet(runs, args.runs, step.provenance(args, variants=variants))
    site = runs.iloc[0]
    print(
        f"{args.runs}: {args.trace} in the Slurm mode, {len(variants)} variants; the site's configuration puts "
        f"{site.within_5s:.1%} of {site.jobs:,} jobs within 5 s of their recorded start"
    )


@STEPS.step(
    "recorded-schedule-tables: the recorded-schedule table, section and figure",
    step.inputs("--runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs("--weekly", nargs="+", metavar="WEEKLY.parquet"),
    step.inputs("--slurm", nargs="*", default=[], metavar="SLURM.parquet", help="the Slurm-mode rows of site logs"),
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
    slurm = files.read_all(args.slurm) if args.slurm else None
    files.write_text(args.section, recorded_schedule_markdown(runs, best, policies, slurm))
    save(recorded_schedule_figure(weekly, runs["trace"], list(policies)), args.figure)
    for row in best.itertuples(index=False):
        print(f"{row.trace}: {row.verdict_text}; Spearman {row.spearman:.3f}")


COMMANDS = STEPS.commands()
