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
from simcore.workloads.arguments import variant_range_arguments
from simcore.workloads.files import map_variants, read_all, read_parquet, write_csv, write_parquet, write_text


def add_commands(commands) -> None:
    sweep = commands.add_parser("sweep", help="fixed policies on a range of variants")
    variant_range_arguments(sweep)
    sweep.add_argument(
        "--orders", nargs="+", choices=NAMED_ORDERS, type=any_case(NAMED_ORDERS), default=list(BANDIT_ORDERS)
    )
    sweep.add_argument("--thresholds", nargs="+", type=optional_threshold, default=[None], metavar="SECONDS|none")
    sweep.add_argument(
        "--backfills", nargs="+", choices=BACKFILLS, type=any_case(BACKFILLS), default=["queue"], metavar="BACKFILL"
    )
    sweep.add_argument("--runs", required=True, metavar="RUNS.parquet", help="one row per run")
    sweep.add_argument("--weekly", required=True, metavar="WEEKLY.parquet", help="cumulative wait per week per run")

    aggregate = commands.add_parser("aggregate", help="combine sweep outputs into summaries and tables")
    aggregate.add_argument("--runs", nargs="+", required=True, metavar="RUNS.parquet")
    aggregate.add_argument("--weekly", nargs="+", required=True, metavar="WEEKLY.parquet")
    aggregate.add_argument(
        "--summary",
        required=True,
        metavar="SUMMARY.parquet",
        help="all runs, one row per (trace, variant, configuration)",
    )
    aggregate.add_argument(
        "--curves",
        required=True,
        metavar="CURVES.parquet",
        help="weekly change against FCFS: mean and 10/90th percentiles",
    )
    aggregate.add_argument(
        "--table",
        required=True,
        metavar="TABLE.csv",
        help="change of cumulative wait against FCFS (the bandit paper's Table 2)",
    )

    plot = commands.add_parser("plot", help="figures of one trace's fixed-policy study (PNG + PDF)")
    plot.add_argument("--trace", required=True)
    plot.add_argument("--summary", required=True, metavar="SUMMARY.parquet")
    plot.add_argument("--curves", required=True, metavar="CURVES.parquet")
    plot.add_argument("--cumulative-wait", nargs="+", required=True, metavar="FILE.png|pdf")
    plot.add_argument("--bsld", nargs="+", required=True, metavar="FILE.png|pdf")

    tables = commands.add_parser(
        "fixed-policy-tables", help="the fixed-policy table of every trace and its reproduction section"
    )
    tables.add_argument("tables", nargs="+", metavar="TRACE.fixed_policy.csv")
    tables.add_argument(
        "--threshold",
        type=optional_threshold,
        default=None,
        metavar="SECONDS|none",
        help="the runs compared with published numbers",
    )
    tables.add_argument("--backfill", choices=BACKFILLS, type=any_case(BACKFILLS), default="queue")
    tables.add_argument(
        "--weeks",
        type=lambda value: None if value == "interior" else int(value),
        default=None,
        metavar="WEEKS|interior",
        help="length of the variants, for the report's configuration text",
    )
    tables.add_argument(
        "--configuration",
        choices=sorted(TABLE2),
        default="default",
        help="the configuration the runs are in: labels the reproduction rows (artifact: the published artifact's)",
    )
    tables.add_argument("--table-csv", required=True)
    tables.add_argument("--table-md", required=True)
    tables.add_argument("--section", required=True, metavar="SECTION.md", help="its reproduction-report section")
    tables.add_argument("--rows", required=True, metavar="ROWS.csv", help="its published-vs-ours rows")
    tables.add_argument(
        "--site-policies", metavar="SITE_POLICIES.md", help="the site policies' section, appended to the report's"
    )

    site = commands.add_parser("sweep-site-policies", help="site policies (depth, multifactor) on a range of variants")
    variant_range_arguments(site)
    site.add_argument(
        "--policies",
        required=True,
        type=json.loads,
        metavar="JSON",
        help=POLICIES_HELP,
    )
    site.add_argument("--runs", required=True, metavar="RUNS.parquet", help="one row per (variant, policy)")
    site.add_argument("--fair-share", required=True, metavar="FAIR_SHARE.parquet", help="MULTIFACTOR runs' factors")

    site_tables = commands.add_parser("site-policy-tables", help="the site policies' table, section and figure")
    site_tables.add_argument("--runs", nargs="+", required=True, metavar="RUNS.parquet")
    site_tables.add_argument("--fair-share", nargs="+", required=True, metavar="FAIR_SHARE.parquet")
    site_tables.add_argument("--policies", required=True, type=json.loads, metavar="JSON")
    site_tables.add_argument("--summary", required=True, metavar="RUNS.parquet", help="every run, every trace")
    site_tables.add_argument("--fair-share-out", required=True, metavar="FAIR_SHARE.parquet")
    site_tables.add_argument("--table-csv", required=True)
    site_tables.add_argument("--section", required=True, metavar="SECTION.md")
    site_tables.add_argument("--figure", nargs="+", required=True, metavar="FILE.png|pdf")


def run_sweep(args) -> int:
    (runs, weekly), count = map_variants(
        args.variants,
        args.select,
        args.trace,
        lambda workload, weeks, number: sweep_variant(workload, args.orders, args.thresholds, args.backfills, weeks),
    )
    provenance = {
        "command": "sweep",
        "variants_file": args.variants,
        "select": args.select,
        "orders": args.orders,
        "thresholds": args.thresholds,
        "backfills": args.backfills,
    }
    write_parquet(runs, args.runs, provenance)
    write_parquet(weekly, args.weekly, provenance)
    print(f"{args.runs}: {len(runs)} runs on {count} variants of {args.trace}")
    return 0


def run_aggregate(args) -> int:
    runs, weekly = read_all(args.runs), read_all(args.weekly)
    provenance = {"command": "aggregate", "inputs": args.runs + args.weekly}
    write_parquet(runs, args.summary, provenance)
    write_parquet(weekly_change_curves(weekly), args.curves, provenance)
    table = change_table(weekly)
    write_csv(table, args.table)
    print(f"{args.table}: {len(table)} configurations over {runs['variant'].nunique()} variants")
    return 0


def run_plot(args) -> int:
    from simcore.reporting.figures import cumulative_wait_figure
    from simcore.reporting.style import save
    from simcore.studies.fixed_policy.figures import bsld_figure

    save(cumulative_wait_figure(read_parquet(args.curves), args.trace), args.cumulative_wait)
    save(bsld_figure(read_parquet(args.summary), args.trace), args.bsld)
    print(f"figures of {args.trace}: {' '.join(args.cumulative_wait + args.bsld)}")
    return 0


def run_tables(args) -> int:
    table = pd.concat([pd.read_csv(path) for path in args.tables], ignore_index=True)
    write_csv(table, args.table_csv)
    write_text(args.table_md, fixed_policy_markdown(table))
    rows = table2_rows(table, args.threshold, args.backfill, args.configuration)
    write_csv(rows, args.rows)
    variants = int(table["variants"].max())
    section = reproduction_section(rows, args.threshold, args.backfill, variants, args.weeks, args.configuration)
    if args.site_policies:
        with open(args.site_policies) as site_policies:
            section = section.rstrip("\n") + "\n\n" + site_policies.read()
    write_text(args.section, section)
    print(f"{args.table_md}: {len(table)} configurations, {len(rows)} published values compared")
    return 0


def run_site_sweep(args) -> int:
    policies = check_policies(args.policies, "--policies")
    (runs, shares), count = map_variants(
        args.variants, args.select, args.trace, lambda workload, weeks, number: run_site_policies(workload, policies)
    )
    provenance = {"command": "sweep-site-policies", "variants_file": args.variants, "select": args.select}
    write_parquet(runs, args.runs, {**provenance, "policies": policies})
    write_parquet(shares, args.fair_share, {**provenance, "policies": policies})
    print(f"{args.runs}: {len(runs)} runs on {count} variants of {args.trace}")
    return 0


def run_site_tables(args) -> int:
    from simcore.reporting.style import save

    policies = check_policies(args.policies, "--policies")
    runs = read_all(args.runs)
    baseline = baseline_name(policies)
    table = site_change_table(runs, baseline)
    provenance = {"command": "site-policy-tables", "inputs": args.runs, "policies": policies}
    write_parquet(runs, args.summary, provenance)
    write_parquet(read_all(args.fair_share), args.fair_share_out, provenance)
    write_csv(table, args.table_csv)
    write_text(args.section, site_policies_markdown(table, policies, baseline))
    save(site_policies_figure(table, baseline), args.figure)
    print(f"{args.table_csv}: {len(table)} (trace, policy) rows over {runs['variant'].nunique()} variants")
    return 0


COMMANDS = {
    "sweep": run_sweep,
    "aggregate": run_aggregate,
    "plot": run_plot,
    "fixed-policy-tables": run_tables,
    "sweep-site-policies": run_site_sweep,
    "site-policy-tables": run_site_tables,
}
