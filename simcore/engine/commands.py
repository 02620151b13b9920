"""The engine's `simcore` subcommands (simulate, filter, info), and the argument
types that the other command modules share."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from simcore.engine.predictors import PREDICTORS
from simcore.engine.priority import THESIS_FUNCTIONS
from simcore.engine.simulation import BACKFILLS, CORRECTIONS, NAMED_ORDERS, simulate
from simcore.engine.swf import FILTER_MODES, parse_swf, read_swf
from simcore.workloads.files import workload_provenance, write_parquet, write_workload


def _add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", help="SWF log, plain or gzip")
    parser.add_argument("--machine-size", type=int, metavar="M",
                        help="processors (default: MaxProcs, else MaxNodes, of the header)")
    parser.add_argument("--filter", choices=FILTER_MODES, default="strict",
                        help="job filter of SEMANTICS §1 (default: strict)")


def threshold(text: str) -> float:
    """argparse type: seconds >= 0."""
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def optional_threshold(text: str):
    """argparse type: seconds >= 0, or `none`."""
    return None if text.lower() == "none" else threshold(text)


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def add_commands(commands) -> None:
    sim = commands.add_parser("simulate", help="simulate EASY(order, threshold) on a trace")
    _add_trace_arguments(sim)
    sim.add_argument("--policy", choices=NAMED_ORDERS + tuple(THESIS_FUNCTIONS), default="FCFS",
                     help="queue order, or one of the thesis's functions F1-F4 (default: FCFS)")
    sim.add_argument("--threshold", type=threshold, metavar="SECONDS",
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


COMMANDS = {"simulate": run_simulate, "filter": run_filter, "info": run_info}
