"""The fixed-policy study's `simcore` subcommands: sweep, aggregate, plot, fixed-policy-tables."""

from __future__ import annotations

import pandas as pd

from simcore.engine.simulation import BACKFILLS, BANDIT_ORDERS, NAMED_ORDERS
from simcore.reporting.cumulative_wait import change_table, weekly_change_curves
from simcore.studies.fixed_policy.report import TABLE2, fixed_policy_markdown, reproduction_section, table2_rows
from simcore.studies.fixed_policy.study import sweep_variant
from simcore.workloads.commands import any_case, optional_threshold
from simcore.workloads.files import map_variants, read_all, read_parquet, write_csv, write_parquet, write_text


def add_commands(commands) -> None:
    sweep = commands.add_parser("sweep", help="fixed policies on a range of variants")
    sweep.add_argument("variants", metavar="VARIANTS.parquet")
    sweep.add_argument("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range")
    sweep.add_argument(
        "--orders", nargs="+", choices=NAMED_ORDERS, type=any_case(NAMED_ORDERS), default=list(BANDIT_ORDERS)
    )
    sweep.add_argument("--thresholds", nargs="+", type=optional_threshold, default=[None], metavar="SECONDS|none")
    sweep.add_argument(
        "--backfills", nargs="+", choices=BACKFILLS, type=any_case(BACKFILLS), default=["queue"], metavar="BACKFILL"
    )
    sweep.add_argument("--trace", required=True, help="trace name written into the rows")
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
    write_text(args.section, section)
    print(f"{args.table_md}: {len(table)} configurations, {len(rows)} published values compared")
    return 0


COMMANDS = {"sweep": run_sweep, "aggregate": run_aggregate, "plot": run_plot, "fixed-policy-tables": run_tables}
