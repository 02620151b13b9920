"""The online policy-selection study's `simcore` subcommands: learn,
aggregate-learners, plot-learners, bandit-tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from simcore.reporting.cumulative_wait import CONFIG_COLUMNS, change_table, weekly_change_curves
from simcore.studies.bandit.report import (
    TABLE3,
    predictions_markdown,
    reproduction_section,
    strategies_markdown,
    table3_rows,
)
from simcore.studies.bandit.study import (
    choice_shares,
    choice_weighted,
    learner_variant,
    regret_curves,
    regret_table,
)
from simcore.workloads import files
from simcore.workloads import steps as step

TABLE_COLUMNS = ["trace", *CONFIG_COLUMNS, "mean", "p10", "p90", "variants"]


STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "learn: online policy-selection strategies on a range of variants",
    step.VARIANT_RANGE,
    step.option(
        "--strategies",
        required=True,
        type=json.loads,
        metavar="JSON",
        help='{"Full-W": {"learner": "full", "period": "week"}, ...}',
    ),
    step.option(
        "--base",
        type=json.loads,
        default={},
        metavar="JSON",
        help="options every strategy starts from (threshold, backfill, candidates, ...)",
    ),
    step.option("--seed", type=int, default=0, help="learner seed of variant i: seed + i"),
    step.output("--runs", metavar="RUNS.parquet"),
    step.output("--weekly", metavar="WEEKLY.parquet"),
    step.output("--choices", metavar="CHOICES.parquet", help="the order chosen per period"),
)
def run_learn(args) -> None:
    frames, count = files.map_variants(
        args.variants,
        args.select,
        args.trace,
        lambda workload, weeks, number: learner_variant(
            workload, args.strategies, args.base, weeks, args.seed + number
        ),
    )
    for frame, path in zip(frames, (args.runs, args.weekly, args.choices)):
        files.write_parquet(frame, path, step.provenance(args))
    print(f"{args.runs}: {len(args.strategies)} strategies on {count} variants of {args.trace}")


@STEPS.step(
    "aggregate-learners: combine learner outputs of one trace",
    step.inputs("--runs", "--weekly", "--choices", nargs="+"),
    step.option("--strategies", nargs="+", required=True, help="strategy names"),
    step.output("--summary", metavar="SUMMARY.parquet"),
    step.output("--curves", "--regret-curves", metavar="CURVES.parquet"),
    step.output("--table", metavar="TABLE.csv"),
    step.output("--regret", metavar="REGRET.parquet"),
    step.output("--shares", metavar="SHARES.parquet", help="share of each order chosen per period across variants"),
    step.output(
        "--predicted", metavar="PREDICTED.csv", help="each strategy's change as its choices predict it from Table 2"
    ),
)
def run_aggregate_learners(args) -> None:
    runs, weekly, choices = files.read_all(args.runs), files.read_all(args.weekly), files.read_all(args.choices)
    regret = regret_table(runs, args.strategies)
    files.write_parquet(runs, args.summary, step.provenance(args))
    files.write_parquet(weekly_change_curves(weekly), args.curves, step.provenance(args))
    files.write_parquet(regret, args.regret, step.provenance(args))
    files.write_parquet(regret_curves(weekly, regret), args.regret_curves, step.provenance(args))
    files.write_parquet(choice_shares(choices), args.shares, step.provenance(args))
    files.write_csv(choice_weighted(weekly, choices, args.strategies), args.predicted)
    table = change_table(weekly)
    table = table[table["order"].isin(args.strategies)]
    files.write_csv(
        table.iloc[np.argsort([args.strategies.index(name) for name in table["order"]], kind="stable")], args.table
    )
    print(f"{args.table}: {len(args.strategies)} strategies over {runs['variant'].nunique()} variants")


@STEPS.step(
    "plot-learners: figures of one trace's learner study",
    step.option("--trace", required=True),
    step.inputs("--curves", "--regret-curves", metavar="CURVES.parquet"),
    step.inputs("--shares", metavar="SHARES.parquet"),
    step.option("--strategies", nargs="+", required=True),
    step.option(
        "--learners", nargs="+", required=True, help="the learner of each strategy, in the same order (its family)"
    ),
    step.output("--cumulative-wait", "--regret", "--choices", nargs="+", metavar="FILE.png|pdf"),
)
def run_plot_learners(args) -> None:
    from simcore.reporting.figures import cumulative_wait_figure
    from simcore.reporting.style import save
    from simcore.studies.bandit.figures import choices_figure, families

    grouped = families(args.strategies, args.learners)
    panels = [strategy for members in grouped.values() for strategy in members]
    curves = files.read_parquet(args.curves)
    strategies = curves[curves["order"].isin(args.strategies)]
    save(cumulative_wait_figure(strategies, args.trace, policies=panels), args.cumulative_wait)
    regret = files.read_parquet(args.regret_curves)
    save(cumulative_wait_figure(regret, args.trace, "the best fixed order", policies=panels), args.regret)
    save(choices_figure(files.read_parquet(args.shares), args.trace, grouped), args.choices)
    print(f"learner figures of {args.trace}")


@STEPS.step(
    "bandit-tables: the strategies table of every trace and its reproduction section",
    step.inputs("tables", nargs="*", metavar="TRACE.bandit.csv"),
    step.inputs(
        "--predicted", nargs="*", default=[], metavar="TRACE.bandit.predicted.csv", help="from aggregate-learners"
    ),
    step.option(
        "--configuration",
        choices=sorted(TABLE3),
        default="default",
        help="the configuration the runs are in: labels the reproduction rows (artifact: the published artifact's)",
    ),
    step.output("--table-csv", "--table-md"),
    step.output("--section", metavar="SECTION.md", help="its reproduction-report section"),
    step.output("--rows", metavar="ROWS.csv", help="its published-vs-ours rows"),
)
def run_tables(args) -> None:
    strategies = (
        pd.concat([pd.read_csv(path) for path in args.tables], ignore_index=True)
        if args.tables
        else pd.DataFrame(columns=TABLE_COLUMNS)
    )
    files.write_csv(strategies, args.table_csv)
    files.write_text(args.table_md, strategies_markdown(strategies))
    rows = table3_rows(strategies, args.configuration)
    files.write_csv(rows, args.rows)
    predicted = [pd.read_csv(path) for path in args.predicted]
    section = reproduction_section(rows, args.configuration)
    if section and predicted:
        section += "\n" + predictions_markdown(pd.concat(predicted, ignore_index=True))
    files.write_text(args.section, section)
    print(f"{args.table_md}: {len(rows)} published values compared")


COMMANDS = STEPS.commands()
