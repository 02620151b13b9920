"""The online policy-selection study's `simcore` subcommands: learn,
aggregate-learners, plot-learners, bandit-tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from simcore.reporting.cumulative_wait import CONFIG_COLUMNS, change_table, weekly_change_curves
from simcore.studies.bandit.report import TABLE3, reproduction_section, strategies_markdown, table3_rows
from simcore.studies.bandit.study import choice_shares, learner_variant, regret_curves, regret_table
from simcore.workloads.arguments import variant_range_arguments
from simcore.workloads.files import map_variants, read_all, read_parquet, write_csv, write_parquet, write_text

TABLE_COLUMNS = ["trace", *CONFIG_COLUMNS, "mean", "p10", "p90", "variants"]


def add_commands(commands) -> None:
    learn = commands.add_parser("learn", help="online policy-selection strategies on a range of variants")
    variant_range_arguments(learn)
    learn.add_argument(
        "--strategies",
        required=True,
        type=json.loads,
        metavar="JSON",
        help='{"Full-W": {"learner": "full", "period": "week"}, ...}',
    )
    learn.add_argument(
        "--base",
        type=json.loads,
        default={},
        metavar="JSON",
        help="options every strategy starts from (threshold, backfill, candidates, ...)",
    )
    learn.add_argument("--seed", type=int, default=0, help="learner seed of variant i: seed + i")
    learn.add_argument("--runs", required=True, metavar="RUNS.parquet")
    learn.add_argument("--weekly", required=True, metavar="WEEKLY.parquet")
    learn.add_argument("--choices", required=True, metavar="CHOICES.parquet", help="the order chosen per period")

    aggregate_learn = commands.add_parser("aggregate-learners", help="combine learner outputs of one trace")
    aggregate_learn.add_argument("--runs", nargs="+", required=True)
    aggregate_learn.add_argument("--weekly", nargs="+", required=True)
    aggregate_learn.add_argument("--choices", nargs="+", required=True)
    aggregate_learn.add_argument("--strategies", nargs="+", required=True, help="strategy names")
    aggregate_learn.add_argument("--summary", required=True, metavar="SUMMARY.parquet")
    aggregate_learn.add_argument("--curves", required=True, metavar="CURVES.parquet")
    aggregate_learn.add_argument("--table", required=True, metavar="TABLE.csv")
    aggregate_learn.add_argument("--regret", required=True, metavar="REGRET.parquet")
    aggregate_learn.add_argument("--regret-curves", required=True, metavar="CURVES.parquet")
    aggregate_learn.add_argument(
        "--shares",
        required=True,
        metavar="SHARES.parquet",
        help="share of each order chosen per period across variants",
    )

    plot_learn = commands.add_parser("plot-learners", help="figures of one trace's learner study")
    plot_learn.add_argument("--trace", required=True)
    plot_learn.add_argument("--curves", required=True, metavar="CURVES.parquet")
    plot_learn.add_argument("--regret-curves", required=True, metavar="CURVES.parquet")
    plot_learn.add_argument("--shares", required=True, metavar="SHARES.parquet")
    plot_learn.add_argument("--strategies", nargs="+", required=True)
    plot_learn.add_argument(
        "--learners", nargs="+", required=True, help="the learner of each strategy, in the same order (its family)"
    )
    plot_learn.add_argument("--cumulative-wait", nargs="+", required=True, metavar="FILE.png|pdf")
    plot_learn.add_argument("--regret", nargs="+", required=True, metavar="FILE.png|pdf")
    plot_learn.add_argument("--choices", nargs="+", required=True, metavar="FILE.png|pdf")

    tables = commands.add_parser(
        "bandit-tables", help="the strategies table of every trace and its reproduction section"
    )
    tables.add_argument("tables", nargs="*", metavar="TRACE.bandit.csv")
    tables.add_argument(
        "--configuration",
        choices=sorted(TABLE3),
        default="default",
        help="the configuration the runs are in: labels the reproduction rows (artifact: the published artifact's)",
    )
    tables.add_argument("--table-csv", required=True)
    tables.add_argument("--table-md", required=True)
    tables.add_argument("--section", required=True, metavar="SECTION.md", help="its reproduction-report section")
    tables.add_argument("--rows", required=True, metavar="ROWS.csv", help="its published-vs-ours rows")


def run_learn(args) -> int:
    frames, count = map_variants(
        args.variants,
        args.select,
        args.trace,
        lambda workload, weeks, number: learner_variant(
            workload, args.strategies, args.base, weeks, args.seed + number
        ),
    )
    provenance = {
        "command": "learn",
        "variants_file": args.variants,
        "select": args.select,
        "strategies": args.strategies,
        "base": args.base,
        "seed": args.seed,
    }
    for frame, path in zip(frames, (args.runs, args.weekly, args.choices)):
        write_parquet(frame, path, provenance)
    print(f"{args.runs}: {len(args.strategies)} strategies on {count} variants of {args.trace}")
    return 0


def run_aggregate_learners(args) -> int:
    runs, weekly, choices = read_all(args.runs), read_all(args.weekly), read_all(args.choices)
    provenance = {"command": "aggregate-learners", "inputs": args.runs + args.weekly + args.choices}
    regret = regret_table(runs, args.strategies)
    write_parquet(runs, args.summary, provenance)
    write_parquet(weekly_change_curves(weekly), args.curves, provenance)
    write_parquet(regret, args.regret, provenance)
    write_parquet(regret_curves(weekly, regret), args.regret_curves, provenance)
    write_parquet(choice_shares(choices), args.shares, provenance)
    table = change_table(weekly)
    table = table[table["order"].isin(args.strategies)]
    write_csv(
        table.iloc[np.argsort([args.strategies.index(name) for name in table["order"]], kind="stable")], args.table
    )
    print(f"{args.table}: {len(args.strategies)} strategies over {runs['variant'].nunique()} variants")
    return 0


def run_plot_learners(args) -> int:
    from simcore.reporting.figures import cumulative_wait_figure
    from simcore.reporting.style import save
    from simcore.studies.bandit.figures import choices_figure, families

    grouped = families(args.strategies, args.learners)
    panels = [strategy for members in grouped.values() for strategy in members]
    curves = read_parquet(args.curves)
    strategies = curves[curves["order"].isin(args.strategies)]
    save(cumulative_wait_figure(strategies, args.trace, policies=panels), args.cumulative_wait)
    regret = read_parquet(args.regret_curves)
    save(cumulative_wait_figure(regret, args.trace, "the best fixed order", policies=panels), args.regret)
    save(choices_figure(read_parquet(args.shares), args.trace, grouped), args.choices)
    print(f"learner figures of {args.trace}")
    return 0


def run_tables(args) -> int:
    strategies = (
        pd.concat([pd.read_csv(path) for path in args.tables], ignore_index=True)
        if args.tables
        else pd.DataFrame(columns=TABLE_COLUMNS)
    )
    write_csv(strategies, args.table_csv)
    write_text(args.table_md, strategies_markdown(strategies))
    rows = table3_rows(strategies, args.configuration)
    write_csv(rows, args.rows)
    write_text(args.section, reproduction_section(rows, args.configuration))
    print(f"{args.table_md}: {len(rows)} published values compared")
    return 0


COMMANDS = {
    "learn": run_learn,
    "aggregate-learners": run_aggregate_learners,
    "plot-learners": run_plot_learners,
    "bandit-tables": run_tables,
}
