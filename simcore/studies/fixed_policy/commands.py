"""The fixed-policy study's `simcore` subcommands: sweep, aggregate, plot, fixed-policy-tables, and
the site policies' sweep-site-policies and site-policy-tables."""

from __future__ import annotations

import json

import pandas as pd

from simcore.engine.policies import (
    BACKFILLS,
    BANDIT_ORDERS,
    NAMED_ORDERS,
    POLICIES_HELP,
    any_case,
    baseline_name,
    check_policies,
    optional_threshold,
)
from simcore.reporting.cumulative_wait import change_table, weekly_change_curves
from simcore.studies.fixed_policy.report import TABLE2, fixed_policy_markdown, reproduction_section, table2_rows
from simcore.studies.fixed_policy.site_policies import (
    run_site_policies,
    site_change_table,
    site_policies_figure,
    site_policies_markdown,
)
from simcore.studies.fixed_policy.study import sweep_variant
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.resample import RESAMPLE_METHODS

STEPS = step.Steps()


def weeks_or_interior(text: str) -> int | None:
    """argparse type of --weeks: a number of weeks, or `interior` (None)."""
    return None if text == "interior" else int(text)


def add_commands(commands) -> None:
    STEPS.add_parsers(commands)


@STEPS.step(
    "sweep: fixed policies on a range of variants",
    step.VARIANT_RANGE,
    step.option("--orders", nargs="+", choices=NAMED_ORDERS, type=any_case(NAMED_ORDERS), default=list(BANDIT_ORDERS)),
    step.option("--thresholds", nargs="+", type=optional_threshold, default=[None], metavar="SECONDS|none"),
    step.option(
        "--backfills", nargs="+", choices=BACKFILLS, type=any_case(BACKFILLS), default=["queue"], metavar="BACKFILL"
    ),
    step.output("--runs", metavar="RUNS.parquet", help="one row per run"),
    step.output("--weekly", metavar="WEEKLY.parquet", help="cumulative wait per week per run"),
)
def run_sweep(args) -> None:
    (runs, weekly), count = files.map_variants(
        args.variants,
        args.select,
        args.trace,
        lambda workload, weeks, number: sweep_variant(workload, args.orders, args.thresholds, args.backfills, weeks),
    )
    files.write_parquet(runs, args.runs, step.provenance(args))
    files.write_parquet(weekly, args.weekly, step.provenance(args))
    print(f"{args.runs}: {len(runs)} runs on {count} variants of {args.trace}")


@STEPS.step(
    "aggregate: combine sweep outputs into summaries and tables",
    step.inputs("--runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs("--weekly", nargs="+", metavar="WEEKLY.parquet"),
    step.output("--summary", metavar="SUMMARY.parquet", help="all runs, one row per (trace, variant, configuration)"),
    step.output("--curves", metavar="CURVES.parquet", help="weekly change against FCFS: mean and 10/90th percentiles"),
    step.output(
        "--table", metavar="TABLE.csv", help="change of cumulative wait against FCFS (the bandit paper's Table 2)"
    ),
)
def run_aggregate(args) -> None:
    runs, weekly = files.read_all(args.runs), files.read_all(args.weekly)
    files.write_parquet(runs, args.summary, step.provenance(args))
    files.write_parquet(weekly_change_curves(weekly), args.curves, step.provenance(args))
    table = change_table(weekly)
    files.write_csv(table, args.table)
    print(f"{args.table}: {len(table)} configurations over {runs['variant'].nunique()} variants")


@STEPS.step(
    "plot: figures of one trace's fixed-policy study (PNG + PDF)",
    step.option("--trace", required=True),
    step.inputs("--summary", metavar="SUMMARY.parquet"),
    step.inputs("--curves", metavar="CURVES.parquet"),
    step.output("--cumulative-wait", "--bsld", nargs="+", metavar="FILE.png|pdf"),
)
def run_plot(args) -> None:
    from simcore.reporting.figures import cumulative_wait_figure
    from simcore.reporting.style import save
    from simcore.studies.fixed_policy.figures import bsld_figure

    save(cumulative_wait_figure(files.read_parquet(args.curves), args.trace), args.cumulative_wait)
    save(bsld_figure(files.read_parquet(args.summary), args.trace), args.bsld)
    print(f"figures of {args.trace}: {' '.join(args.cumulative_wait + args.bsld)}")


@STEPS.step(
    "fixed-policy-tables: the fixed-policy table of every trace and its reproduction section",
    step.inputs("tables", nargs="+", metavar="TRACE.fixed_policy.csv"),
    step.option(
        "--threshold",
        type=optional_threshold,
        default=None,
        metavar="SECONDS|none",
        help="the runs compared with published numbers",
    ),
    step.option("--backfill", choices=BACKFILLS, type=any_case(BACKFILLS), default="queue"),
    step.option(
        "--weeks",
        type=weeks_or_interior,
        default=None,
        metavar="WEEKS|interior",
        help="length of the variants, for the report's configuration text",
    ),
    step.option(
        "--method",
        choices=RESAMPLE_METHODS,
        default="user-weeks",
        help="how the variants were resampled, for the report's configuration text",
    ),
    step.option(
        "--configuration",
        choices=sorted(TABLE2),
        default="default",
        help="the configuration the runs are in: labels the reproduction rows (artifact: the published artifact's)",
    ),
    step.inputs(
        "--site-policies",
        default=None,
        metavar="SITE_POLICIES.md",
        help="the site policies' section, appended to the report's",
    ),
    step.output("--table-csv", "--table-md"),
    step.output("--section", metavar="SECTION.md", help="its reproduction-report section"),
    step.output("--rows", metavar="ROWS.csv", help="its published-vs-ours rows"),
)
def run_tables(args) -> None:
    table = pd.concat([pd.read_csv(path) for path in args.tables], ignore_index=True)
    files.write_csv(table, args.table_csv)
    files.write_text(args.table_md, fixed_policy_markdown(table))
    rows = table2_rows(table, args.threshold, args.backfill, args.configuration)
    files.write_csv(rows, args.rows)
    variants = int(table["variants"].max())
    section = reproduction_section(
        rows, args.threshold, args.backfill, variants, args.weeks, args.configuration, args.method
    )
    if args.site_policies:
        with open(args.site_policies) as site_policies:
            section = section.rstrip("\n") + "\n\n" + site_policies.read()
    files.write_text(args.section, section)
    print(f"{args.table_md}: {len(table)} configurations, {len(rows)} published values compared")


@STEPS.step(
    "sweep-site-policies: site policies (depth, multifactor) on a range of variants",
    step.VARIANT_RANGE,
    step.option("--policies", required=True, type=json.loads, metavar="JSON", help=POLICIES_HELP),
    step.output("--runs", metavar="RUNS.parquet", help="one row per (variant, policy)"),
    step.output("--fair-share", metavar="FAIR_SHARE.parquet", help="MULTIFACTOR runs' factors"),
)
def run_site_sweep(args) -> None:
    policies = check_policies(args.policies, "--policies")
    (runs, shares), count = files.map_variants(
        args.variants, args.select, args.trace, lambda workload, weeks, number: run_site_policies(workload, policies)
    )
    files.write_parquet(runs, args.runs, step.provenance(args, policies=policies))
    files.write_parquet(shares, args.fair_share, step.provenance(args, policies=policies))
    print(f"{args.runs}: {len(runs)} runs on {count} variants of {args.trace}")


@STEPS.step(
    "site-policy-tables: the site policies' table, section and figure",
    step.inputs("--runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs("--fair-share", nargs="+", metavar="FAIR_SHARE.parquet"),
    step.option("--policies", required=True, type=json.loads, metavar="JSON"),
    step.output("--summary", metavar="RUNS.parquet", help="every run, every trace"),
    step.output("--fair-share-out", metavar="FAIR_SHARE.parquet"),
    step.output("--table-csv"),
    step.output("--section", metavar="SECTION.md"),
    step.output("--figure", nargs="+", metavar="FILE.png|pdf"),
)
def run_site_tables(args) -> None:
    from simcore.reporting.style import save

    policies = check_policies(args.policies, "--policies")
    runs = files.read_all(args.runs)
    baseline = baseline_name(policies)
    table = site_change_table(runs, baseline)
    files.write_parquet(runs, args.summary, step.provenance(args, policies=policies))
    files.write_parquet(files.read_all(args.fair_share), args.fair_share_out, step.provenance(args, policies=policies))
    files.write_csv(table, args.table_csv)
    files.write_text(args.section, site_policies_markdown(table, policies, baseline))
    save(site_policies_figure(table, baseline), args.figure)
    print(f"{args.table_csv}: {len(table)} (trace, policy) rows over {runs['variant'].nunique()} variants")


COMMANDS = STEPS.commands()
