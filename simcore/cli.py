"""The `simcore` command: simulate, filter, info, example."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.campaign import (choice_shares, fixed_policy_table, learner_variant, regret_curves, regret_table,
                              sweep_variant, weekly_change_curves)
from simcore.example import write_example
from simcore.fetch import FetchError, fetch_trace, load_catalogue
from simcore.output import (read_provenance, read_variants, read_workload, workload_provenance,
                            write_parquet, write_variants, write_workload)
from simcore.resample import RESAMPLE_METHODS, WEEK, resample, variant_seed
from simcore import dynamic_scheduling_cli, learned_policies_cli, prediction_cli, simple_policies_cli
from simcore.cli_common import read_all, write_csv, write_text
from simcore.predictors import PREDICTORS
from simcore.priority import THESIS_FUNCTIONS
from simcore.simulation import BACKFILLS, BANDIT_ORDERS, CORRECTIONS, NAMED_ORDERS, simulate
from simcore.swf import FILTER_MODES, parse_swf, read_swf
from simcore.workload import WorkloadError


def _add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", help="SWF log, plain or gzip")
    parser.add_argument("--machine-size", type=int, metavar="M",
                        help="processors (default: MaxProcs, else MaxNodes, of the header)")
    parser.add_argument("--filter", choices=FILTER_MODES, default="strict",
                        help="job filter of SEMANTICS §1 (default: strict)")


def _threshold(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    sim = commands.add_parser("simulate", help="simulate EASY(order, threshold) on a trace")
    _add_trace_arguments(sim)
    sim.add_argument("--policy", choices=NAMED_ORDERS + tuple(THESIS_FUNCTIONS), default="FCFS",
                     help="queue order, or one of the thesis's functions F1-F4 (default: FCFS)")
    sim.add_argument("--threshold", type=_threshold, metavar="SECONDS",
                     help="jobs waiting longer than this go first (default: none)")
    sim.add_argument("--backfill", choices=BACKFILLS, default="queue", metavar="none|queue|ORDER",
                     help="backfill in queue order (default), not at all, or by an order "
                          "(SPF = EASY-SJBF)")
    sim.add_argument("--estimate", choices=tuple(PREDICTORS), default="request",
                     help="running-time estimate (default: request)")
    sim.add_argument("--correction", choices=CORRECTIONS, default="request",
                     help="correction on under-prediction (default: request)")
    sim.add_argument("--output", "-o", metavar="FILE.parquet", help="write one row per job")
    sim.add_argument("--json", action="store_true", help="print a one-line JSON summary")

    filt = commands.add_parser("filter", help="filter a trace and write it as Parquet")
    _add_trace_arguments(filt)
    filt.add_argument("--output", "-o", required=True, metavar="FILE.parquet")

    info = commands.add_parser("info", help="machine size, jobs, span, users, filter counts")
    _add_trace_arguments(info)
    info.add_argument("--json", action="store_true", help="print JSON")

    fetch = commands.add_parser("fetch", help="fetch a catalogued PWA trace, verified by sha256")
    fetch.add_argument("name", help="trace name in the catalogue")
    fetch.add_argument("--catalogue", required=True, metavar="FILE.yaml")
    fetch.add_argument("--mirror", metavar="DIR_OR_URL", help="tried before the archive")
    fetch.add_argument("--output", "-o", required=True, metavar="FILE.swf.gz")

    model = commands.add_parser("model", help="generate a Lublin-Feitelson workload (Parquet)")
    model.add_argument("--jobs", type=int, required=True)
    model.add_argument("--machine-size", type=int, required=True)
    model.add_argument("--seed", type=int, required=True)
    model.add_argument("--output", "-o", required=True, metavar="FILE.parquet")

    resample = commands.add_parser("resample", help="resampled variants of a workload (SEMANTICS §8)")
    resample.add_argument("workload", metavar="WORKLOAD.parquet", help="from `simcore filter` or `model`")
    resample.add_argument("--variants", type=int, default=100)
    resample.add_argument("--base-seed", type=int, default=0, help="variant i uses seed base + i")
    resample.add_argument("--method", choices=RESAMPLE_METHODS, default="user-weeks")
    resample.add_argument("--weeks", type=int, help="length of a variant (default: the log's interior)")
    resample.add_argument("--output", "-o", required=True, metavar="VARIANTS.parquet")

    sweep = commands.add_parser("sweep", help="fixed policies on a range of variants")
    sweep.add_argument("variants", metavar="VARIANTS.parquet")
    sweep.add_argument("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range")
    sweep.add_argument("--orders", nargs="+", choices=NAMED_ORDERS, default=list(BANDIT_ORDERS))
    sweep.add_argument("--thresholds", nargs="+", type=_optional_threshold, default=[None],
                       metavar="SECONDS|none")
    sweep.add_argument("--backfills", nargs="+", choices=BACKFILLS, default=["queue"], metavar="BACKFILL")
    sweep.add_argument("--trace", required=True, help="trace name written into the rows")
    sweep.add_argument("--runs", required=True, metavar="RUNS.parquet", help="one row per run")
    sweep.add_argument("--weekly", required=True, metavar="WEEKLY.parquet",
                       help="cumulative wait per week per run")

    aggregate = commands.add_parser("aggregate", help="combine sweep outputs into summaries and tables")
    aggregate.add_argument("--runs", nargs="+", required=True, metavar="RUNS.parquet")
    aggregate.add_argument("--weekly", nargs="+", required=True, metavar="WEEKLY.parquet")
    aggregate.add_argument("--summary", required=True, metavar="SUMMARY.parquet",
                           help="all runs, one row per (trace, variant, configuration)")
    aggregate.add_argument("--curves", required=True, metavar="CURVES.parquet",
                           help="weekly change against FCFS: mean and 10/90th percentiles")
    aggregate.add_argument("--table", required=True, metavar="TABLE.csv",
                           help="change of cumulative wait against FCFS (the bandit paper's Table 2)")

    learn = commands.add_parser("learn", help="online policy-selection strategies on a range of variants")
    learn.add_argument("variants", metavar="VARIANTS.parquet")
    learn.add_argument("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range")
    learn.add_argument("--trace", required=True, help="trace name written into the rows")
    learn.add_argument("--strategies", required=True, type=json.loads, metavar="JSON",
                       help='{"Full-W": {"learner": "full", "period": "week"}, ...}')
    learn.add_argument("--base", type=json.loads, default={}, metavar="JSON",
                       help="options every strategy starts from (threshold, backfill, candidates, ...)")
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
    aggregate_learn.add_argument("--shares", required=True, metavar="SHARES.parquet",
                                 help="share of each order chosen per period across variants")

    plot = commands.add_parser("plot", help="figures of one trace's fixed-policy study (PNG + PDF)")
    plot.add_argument("--trace", required=True)
    plot.add_argument("--summary", required=True, metavar="SUMMARY.parquet")
    plot.add_argument("--curves", required=True, metavar="CURVES.parquet")
    plot.add_argument("--cumulative-wait", nargs="+", required=True, metavar="FILE.png|pdf")
    plot.add_argument("--bsld", nargs="+", required=True, metavar="FILE.png|pdf")

    plot_learn = commands.add_parser("plot-learners", help="figures of one trace's learner study")
    plot_learn.add_argument("--trace", required=True)
    plot_learn.add_argument("--curves", required=True, metavar="CURVES.parquet")
    plot_learn.add_argument("--regret-curves", required=True, metavar="CURVES.parquet")
    plot_learn.add_argument("--shares", required=True, metavar="SHARES.parquet")
    plot_learn.add_argument("--strategies", nargs="+", required=True)
    plot_learn.add_argument("--cumulative-wait", nargs="+", required=True, metavar="FILE.png|pdf")
    plot_learn.add_argument("--regret", nargs="+", required=True, metavar="FILE.png|pdf")
    plot_learn.add_argument("--choices", nargs="+", required=True, metavar="FILE.png|pdf")

    prediction_cli.add_commands(commands)
    simple_policies_cli.add_commands(commands)
    learned_policies_cli.add_commands(commands)
    dynamic_scheduling_cli.add_commands(commands)

    report = commands.add_parser("report", help="fixed-policy tables and the reproduction report")
    report.add_argument("tables", nargs="+", metavar="TRACE.fixed_policy.csv")
    report.add_argument("--threshold", type=_optional_threshold, default=None, metavar="SECONDS|none",
                        help="the runs compared with published numbers")
    report.add_argument("--backfill", choices=BACKFILLS, default="queue")
    report.add_argument("--workloads", nargs="+", required=True, metavar="TRACE.parquet",
                        help="the filtered or generated traces (for the filter-count table)")
    report.add_argument("--workloads-csv", required=True)
    report.add_argument("--workloads-md", required=True)
    report.add_argument("--bandit-tables", nargs="*", default=[], metavar="TRACE.bandit.csv")
    report.add_argument("--bandit-csv", required=True)
    report.add_argument("--bandit-md", required=True)
    report.add_argument("--table-csv", required=True)
    report.add_argument("--table-md", required=True)
    report.add_argument("--reproduction-csv", required=True)
    report.add_argument("--reproduction-md", required=True)
    report.add_argument("--sections", nargs="*", default=[], metavar="SECTION.md",
                        help="further report sections (other studies), appended in order")
    report.add_argument("--section-rows", nargs="*", default=[], metavar="ROWS.csv",
                        help="their published-vs-ours rows, appended to the reproduction CSV")

    example = commands.add_parser("example", help="write the generated example workload (SWF)")
    example.add_argument("--output", "-o", default="example.swf", metavar="FILE.swf")
    example.add_argument("--jobs", type=int, default=2000)
    example.add_argument("--seed", type=int, default=2024)
    return parser


def _optional_threshold(text: str):
    return None if text.lower() == "none" else _threshold(text)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, WorkloadError, OSError, FetchError) as error:
        # SwfFormatError is a ValueError; its message names file and line.
        print(f"simcore {args.command}: error: {error}", file=sys.stderr)
        return 2


def _read(args):
    began = time.perf_counter()
    workload = read_swf(args.trace, machine_size=args.machine_size, filter=args.filter)
    return workload, time.perf_counter() - began


def run_simulate(args) -> int:
    workload, read_seconds = _read(args)
    function = THESIS_FUNCTIONS.get(args.policy)
    result = simulate(workload, order="FUNCTION" if function else args.policy, threshold=args.threshold,
                      backfill=args.backfill, estimate=args.estimate, correction=args.correction, function=function)
    summary = result.summary()
    if args.output:
        # Timings stay out of the file so that reruns give identical bytes.
        metrics = {key: value for key, value in summary.items() if key != "kernel_seconds"}
        write_parquet(result.to_frame(), args.output,
                      {**workload_provenance(workload), "options": result.options, "summary": metrics,
                       "command": "simulate"})
    summary["read_seconds"] = read_seconds
    if args.json:
        print(json.dumps({"trace": args.trace, **result.options, **summary}, sort_keys=True))
        return 0
    print(f"trace        {args.trace}  ({workload.filter_mode} filter, m = {workload.machine_size})")
    print(f"policy       EASY({args.policy}, threshold={args.threshold}), backfill={args.backfill}, "
          f"estimate={args.estimate}, correction={args.correction}")
    rows = [
        ("jobs", f"{summary['jobs']:,}"),
        ("mean wait", f"{summary['avg_wait']:,.1f} s"),
        ("max wait", f"{summary['max_wait']:,.0f} s"),
        ("AVEbsld", f"{summary['avg_bsld']:.3f}  (tau = 10 s)"),
        ("mean pp-bsld", f"{summary['avg_ppbsld']:.3f}"),
        ("mean flow", f"{summary['avg_flow']:,.1f} s"),
        ("utilization", f"{summary['utilization']:.4f}"),
        ("backfilled", f"{summary['backfilled']:,}"),
        ("time", f"read+filter {read_seconds:.3f} s, kernel {summary['kernel_seconds']:.3f} s"),
    ]
    for label, value in rows:
        print(f"{label:<13}{value}")
    if args.output:
        print(f"{'per-job rows':<13}{args.output}")
    return 0


def run_filter(args) -> int:
    workload, _ = _read(args)
    write_workload(workload, args.output, {"command": "filter"})
    print(f"{args.output}: {len(workload):,} jobs kept of {workload.filter_counts['lines']:,} "
          f"({args.filter} filter)")
    return 0


def run_info(args) -> int:
    log = parse_swf(args.trace)     # parsed once, filtered both ways
    counts = {mode: log.workload(args.machine_size, mode) for mode in FILTER_MODES}
    workload = counts[args.filter]
    info = {
        "trace": args.trace,
        "machine_size": workload.machine_size,
        "job_lines": workload.filter_counts["lines"],
        "jobs": len(workload),
        "first_submit": float(workload.submit[0]),
        "last_submit": float(workload.submit[-1]),
        "span_days": float(workload.submit[-1] - workload.submit[0]) / 86400.0,
        "users": int(len(np.unique(workload.user))),
        "filter": args.filter,
        "filter_counts": {mode: w.filter_counts for mode, w in counts.items()},
        "computer": workload.header.get("Computer", ""),
    }
    if args.json:
        print(json.dumps(info, sort_keys=True))
        return 0
    print(f"trace         {args.trace}")
    if info["computer"]:
        print(f"computer      {info['computer']}")
    print(f"machine size  {info['machine_size']:,}")
    print(f"job lines     {info['job_lines']:,}")
    print(f"jobs kept     {info['jobs']:,} ({args.filter} filter)")
    print(f"submit span   {info['first_submit']:.0f} .. {info['last_submit']:.0f} s "
          f"({info['span_days']:.1f} days)")
    print(f"users         {info['users']:,}")
    print("dropped by rule:")
    rules = [key for key in counts["strict"].filter_counts if key not in ("lines", "kept")]
    print(f"  {'rule':<20}" + "".join(f"{mode:>10}" for mode in FILTER_MODES))
    for rule in rules + ["kept"]:
        print(f"  {rule:<20}" + "".join(f"{counts[mode].filter_counts[rule]:>10,}" for mode in FILTER_MODES))
    return 0


def run_example(args) -> int:
    write_example(args.output, jobs=args.jobs, seed=args.seed)
    print(args.output)
    return 0


def run_fetch(args) -> int:
    catalogue = load_catalogue(args.catalogue)
    if args.name not in catalogue:
        raise ValueError(f"{args.catalogue}: no trace named {args.name!r} "
                         f"(known: {', '.join(sorted(catalogue))})")
    source = fetch_trace(args.name, catalogue[args.name], args.output, mirror=args.mirror)
    print(f"{args.output}: {args.name} from {source}, checksum verified")
    return 0


def run_model(args) -> int:
    from simcore.models import lublin_workload
    workload = lublin_workload(args.jobs, args.machine_size, args.seed)
    write_workload(workload, args.output, {"command": "model", "model": "lublin", "seed": args.seed})
    print(f"{args.output}: {len(workload):,} jobs on {args.machine_size} processors (seed {args.seed})")
    return 0


def run_resample(args) -> int:
    workload = read_workload(args.workload)
    variants = {i: resample(workload, variant_seed(args.base_seed, i), args.method, args.weeks)[0]
                for i in range(args.variants)}
    write_variants(variants, args.output, {
        **workload_provenance(workload), "command": "resample", "method": args.method, "weeks": args.weeks,
        "base_seed": args.base_seed, "variants": args.variants})
    print(f"{args.output}: {args.variants} variants of {workload.source}")
    return 0


def _per_variant(args, study) -> tuple[list[pd.DataFrame], int]:
    """Run `study(workload, weeks, number)` -> frames on the selected variants;
    each returned frame concatenated over variants, tagged with trace and variant."""
    first, _, stop = args.select.partition(":")
    variants = read_variants(args.variants, range(int(first), int(stop)))
    weeks = read_provenance(args.variants).get("weeks")
    collected = None
    for number, workload in variants.items():
        span = weeks or int(np.ceil((workload.submit.max() + 1) / WEEK))
        frames = study(workload, span, number)
        collected = collected or [[] for _ in frames]
        for parts, frame in zip(collected, frames):
            parts.append(frame.assign(trace=args.trace, variant=number))
    return [pd.concat(parts, ignore_index=True) for parts in collected], len(variants)






def run_sweep(args) -> int:
    (runs, weekly), count = _per_variant(args, lambda workload, weeks, number: sweep_variant(
        workload, args.orders, args.thresholds, args.backfills, weeks))
    provenance = {"command": "sweep", "variants_file": args.variants, "select": args.select,
                  "orders": args.orders, "thresholds": args.thresholds, "backfills": args.backfills}
    write_parquet(runs, args.runs, provenance)
    write_parquet(weekly, args.weekly, provenance)
    print(f"{args.runs}: {len(runs)} runs on {count} variants of {args.trace}")
    return 0


def run_aggregate(args) -> int:
    runs, weekly = read_all(args.runs), read_all(args.weekly)
    provenance = {"command": "aggregate", "inputs": args.runs + args.weekly}
    write_parquet(runs, args.summary, provenance)
    write_parquet(weekly_change_curves(weekly), args.curves, provenance)
    table = fixed_policy_table(weekly)
    write_csv(table, args.table)
    print(f"{args.table}: {len(table)} configurations over {runs['variant'].nunique()} variants")
    return 0


def run_learn(args) -> int:
    frames, count = _per_variant(args, lambda workload, weeks, number: learner_variant(
        workload, args.strategies, args.base, weeks, args.seed + number))
    provenance = {"command": "learn", "variants_file": args.variants, "select": args.select,
                  "strategies": args.strategies, "base": args.base, "seed": args.seed}
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
    table = fixed_policy_table(weekly)
    table = table[table["order"].isin(args.strategies)]
    write_csv(table.iloc[np.argsort([args.strategies.index(name) for name in table["order"]], kind="stable")],
               args.table)
    print(f"{args.table}: {len(args.strategies)} strategies over {runs['variant'].nunique()} variants")
    return 0


def run_plot(args) -> int:
    from simcore.plots import bsld_figure, cumulative_wait_figure, save
    save(cumulative_wait_figure(pd.read_parquet(args.curves), args.trace), args.cumulative_wait)
    save(bsld_figure(pd.read_parquet(args.summary), args.trace), args.bsld)
    print(f"figures of {args.trace}: {' '.join(args.cumulative_wait + args.bsld)}")
    return 0


def run_plot_learners(args) -> int:
    from simcore.plots import choices_figure, cumulative_wait_figure, save
    curves = pd.read_parquet(args.curves)
    save(cumulative_wait_figure(curves[curves["order"].isin(args.strategies)], args.trace), args.cumulative_wait)
    save(cumulative_wait_figure(pd.read_parquet(args.regret_curves), args.trace, "the best fixed order"),
         args.regret)
    save(choices_figure(pd.read_parquet(args.shares), args.trace), args.choices)
    print(f"learner figures of {args.trace}")
    return 0




def run_report(args) -> int:
    from simcore.report import (bandit_table2_rows, bandit_table3_rows, fixed_policy_markdown,
                                reproduction_markdown, strategies_markdown, workloads_markdown, workloads_table)
    workloads = workloads_table({Path(path).stem: read_provenance(path) for path in args.workloads})
    write_csv(workloads, args.workloads_csv)
    write_text(args.workloads_md, workloads_markdown(workloads))
    table = pd.concat([pd.read_csv(path) for path in args.tables], ignore_index=True)
    write_csv(table, args.table_csv)
    write_text(args.table_md, fixed_policy_markdown(table))
    strategies = (pd.concat([pd.read_csv(path) for path in args.bandit_tables], ignore_index=True)
                  if args.bandit_tables else pd.DataFrame(columns=table.columns))
    write_csv(strategies, args.bandit_csv)
    write_text(args.bandit_md, strategies_markdown(strategies))
    rows = pd.concat([bandit_table2_rows(table, args.threshold, args.backfill), bandit_table3_rows(strategies)],
                     ignore_index=True)
    sections = [Path(path).read_text() for path in args.sections]
    write_csv(pd.concat([rows, *(pd.read_csv(path) for path in args.section_rows)], ignore_index=True),
               args.reproduction_csv)
    write_text(args.reproduction_md, "\n".join([reproduction_markdown(rows, args.threshold, args.backfill),
                                                 *sections]))
    print(f"{args.reproduction_md}: {len(rows)} published values compared")
    return 0


COMMANDS = {"simulate": run_simulate, "filter": run_filter, "info": run_info, "example": run_example,
            "fetch": run_fetch, "model": run_model, "resample": run_resample, "sweep": run_sweep,
            "aggregate": run_aggregate, "plot": run_plot, "report": run_report, "learn": run_learn,
            "aggregate-learners": run_aggregate_learners, "plot-learners": run_plot_learners,
            **prediction_cli.COMMANDS, **simple_policies_cli.COMMANDS, **learned_policies_cli.COMMANDS,
            **dynamic_scheduling_cli.COMMANDS}

if __name__ == "__main__":
    sys.exit(main())
