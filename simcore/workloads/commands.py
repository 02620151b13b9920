"""The `simcore` subcommands that work on one trace or workload: simulate,
filter, info (the engine), fetch, model, resample, example, import-sacct (the argument types the
commands share are in simcore.workloads.arguments, a policy's in simcore.engine.policies)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import Counter
from datetime import UTC, datetime

import numpy as np

from simcore.engine.policies import Policy, add_policy_arguments
from simcore.engine.predictors import PREDICTORS
from simcore.engine.simulation import CORRECTIONS, simulate
from simcore.engine.swf import FILTER_MODES, parse_swf
from simcore.workloads.arguments import output_file, swf_file, table_file
from simcore.workloads.catalogue import fetch_trace, load_catalogue
from simcore.workloads.example import write_example
from simcore.workloads.files import (
    file_sha256,
    read_workload,
    workload_provenance,
    write_csv,
    write_parquet,
    write_variants,
    write_workload,
)
from simcore.workloads.lal import lal_workload
from simcore.workloads.lublin import lublin_workload
from simcore.workloads.resample import RESAMPLE_METHODS, resample_variants
from simcore.workloads.sacct import (
    CHECKS,
    COUNT_MODES,
    SACCT_COMMAND,
    check_timezone,
    import_sacct,
    parse_time_limit_seconds,
)
from simcore.workloads.schedule import write_schedule_swf
from simcore.workloads.slurm_assoc import read_associations
from simcore.workloads.slurm_conf import read_slurm_conf
from simcore.workloads.slurm_site import replay_agreement, simulate_site, write_site_schedule_swf

# `simcore model --model NAME`: the generators, called with the job count, machine_size and seed
MODEL_GENERATORS = {"lublin": lublin_workload, "lal": lal_workload}


def _add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "trace", help="SWF log, plain or gzip (a Slurm accounting dump: convert it first with simcore import-sacct)"
    )
    parser.add_argument(
        "--machine-size", type=int, metavar="M", help="processors (default: MaxProcs, else MaxNodes, of the header)"
    )
    parser.add_argument(
        "--filter", choices=FILTER_MODES, default="strict", help="job filter of SEMANTICS §1 (default: strict)"
    )


def add_simulation_arguments(parser: argparse.ArgumentParser) -> None:
    """The trace, the policy and the estimates of a simulation: what `simulate` and `gantt`
    (simcore.reporting) share."""
    _add_trace_arguments(parser)
    add_policy_arguments(parser)
    parser.add_argument(
        "--estimate", choices=tuple(PREDICTORS), default="request", help="running-time estimate (default: request)"
    )
    parser.add_argument(
        "--correction", choices=CORRECTIONS, default="request", help="correction on under-prediction (default: request)"
    )


def add_commands(commands) -> None:
    sim = commands.add_parser("simulate", help="simulate EASY(order, threshold) on a trace")
    add_simulation_arguments(sim)
    sim.add_argument(
        "--output", "-o", type=table_file, metavar="FILE.parquet|csv", help="write one row per job (Parquet or CSV)"
    )
    sim.add_argument(
        "--schedule-out",
        type=swf_file,
        metavar="FILE.swf[.gz]",
        help="write the simulated schedule as SWF: the trace's lines with the simulated wait (docs/schedules.md)",
    )
    sim.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    slurm = sim.add_argument_group(
        "Slurm mode (docs/slurm_mode.md): the site's nodes, partitions and scheduler from its slurm.conf; "
        "TRACE may then be its sacct dump (the README's command) as well as an SWF log"
    )
    slurm.add_argument("--slurm-conf", metavar="slurm.conf", help="simulate Slurm configured from this file")
    slurm.add_argument("--partition", action="append", metavar="NAME", help="only the jobs of this partition")
    slurm.add_argument(
        "--slurm-assoc",
        metavar="FILE",
        help="the accounts, users and shares for fair share, as `sshare -a -l -P` (or `sacctmgr -P show assoc tree "
        "format=Account,User,Share`) prints them; needed when slurm.conf sets PriorityWeightFairshare",
    )
    slurm.add_argument(
        "--slurmctld-start",
        type=int,
        metavar="UNIXTIME",
        help="when slurmctld started: priorities are recomputed every PriorityCalcPeriod, full-queue passes run "
        "every sched_interval and time limits are checked every 30 s from it (default: estimated from the jobs "
        "Slurm killed at their limit, else the first submission)",
    )
    slurm.add_argument(
        "--start-delay",
        type=int,
        metavar="S",
        help="seconds from an event to the main scheduler's pass (default: fitted to the recorded starts, 0-3)",
    )
    slurm.add_argument(
        "--bf-phase",
        type=int,
        metavar="UNIXTIME",
        help="an instant of a backfill cycle that saw nothing; no log records it (default: fitted to the recorded "
        "starts, one of the bf_interval seconds before the first submission)",
    )
    slurm.add_argument(
        "--decay-order",
        choices=("before", "after"),
        help="priority/multifactor: whether the decay thread's instant (PriorityCalcPeriod) comes before or after the "
        "passes and the backfill cycle of its second; no log records it (default: fitted to the recorded starts)",
    )
    slurm.add_argument(
        "--replay",
        action="store_true",
        help="also the one-step replay: the share of recorded starts the model decides within 2 s when it runs on "
        "the recorded history (the dump's NodeList places each job where it ran)",
    )

    filt = commands.add_parser("filter", help="filter a trace and write it as Parquet")
    _add_trace_arguments(filt)
    filt.add_argument(
        "--source",
        metavar="FILE",
        help="the file the SWF log was converted from (a sacct dump): the workload's input, with its sha256",
    )
    filt.add_argument("--output", "-o", required=True, type=output_file, metavar="FILE.parquet")

    info = commands.add_parser("info", help="machine size, jobs, span, users, filter counts")
    _add_trace_arguments(info)
    info.add_argument("--json", action="store_true", help="print JSON")

    conf = commands.add_parser("slurm-conf", help="what schedsweep reads in a site's slurm.conf")
    conf.add_argument("conf", metavar="slurm.conf")
    conf.add_argument("--json", action="store_true", help="print JSON")

    fetch = commands.add_parser("fetch", help="fetch a catalogued PWA trace, verified by sha256")
    fetch.add_argument("name", help="trace name in the catalogue")
    fetch.add_argument("--catalogue", required=True, metavar="FILE.yaml")
    fetch.add_argument("--mirror", metavar="DIR_OR_URL", help="tried before the archive")
    fetch.add_argument("--output", "-o", required=True, type=output_file, metavar="FILE.swf.gz")

    model = commands.add_parser(
        "model", help="generate a model workload (Parquet): Lublin-Feitelson jobs, or the LAL-shaped grid log"
    )
    model.add_argument(
        "--model",
        choices=sorted(MODEL_GENERATORS),
        default="lublin",
        help="lublin: Lublin-Feitelson rigid jobs with Tsafrir estimates (default; docs/workload_models.md); "
        "lal: serial grid jobs shaped like the elastic paper's LAL log (docs/elastic.md §14)",
    )
    model.add_argument("--jobs", type=int, required=True)
    model.add_argument("--machine-size", type=int, required=True)
    model.add_argument("--seed", type=int, required=True)
    model.add_argument("--output", "-o", required=True, type=output_file, metavar="FILE.parquet")

    resample = commands.add_parser("resample", help="resampled variants of a workload (SEMANTICS §8)")
    resample.add_argument("workload", metavar="WORKLOAD.parquet", help="from `simcore filter` or `model`")
    resample.add_argument("--variants", type=int, default=100)
    resample.add_argument("--base-seed", type=int, default=0, help="variant i uses seed base + i")
    resample.add_argument("--method", choices=RESAMPLE_METHODS, default="user-weeks")
    resample.add_argument("--weeks", type=int, help="length of a variant (default: the log's interior)")
    resample.add_argument("--output", "-o", required=True, type=output_file, metavar="VARIANTS.parquet")

    example = commands.add_parser("example", help="write the generated example workload (SWF)")
    example.add_argument("--output", "-o", type=output_file, default="example.swf", metavar="FILE.swf")
    example.add_argument("--jobs", type=int, default=2000)
    example.add_argument("--seed", type=int, default=2024)

    sacct = commands.add_parser("import-sacct", help="convert a Slurm accounting dump (sacct) to an SWF log")
    sacct.description = (
        f"Convert a sacct dump made with\n  {SACCT_COMMAND}\nto an SWF log (simcore/workloads/sacct.py)."
    )
    sacct.formatter_class = argparse.RawDescriptionHelpFormatter
    sacct.add_argument(
        "dump",
        metavar="FILE",
        help="sacct --parsable2 output with its header line (plain or gzip); field names in any case, sacct's "
        "aliases too (NCPUS, NNodes, TimelimitRaw, UID, GID, ...; docs/slurm_accounting.md)",
    )
    sacct.add_argument("--output", "-o", required=True, type=output_file, metavar="TRACE.swf[.gz]")
    sacct.add_argument(
        "--timezone", type=timezone_argument, default="UTC", help="time zone of the dump's times (default: UTC)"
    )
    sacct.add_argument(
        "--partition", action="append", metavar="P", help="keep this partition's jobs (repeatable; default: all)"
    )
    sacct.add_argument(
        "--machine-size",
        action="append",
        type=per_partition(int),
        metavar="N|PART=N",
        help="processors, or a partition's processors (repeatable, summed); default: the peak allocated at once",
    )
    sacct.add_argument(
        "--count", choices=COUNT_MODES, default="cpus", help="processors counted in CPUs (default) or in nodes"
    )
    sacct.add_argument("--cores-per-node", type=int, metavar="N", help="with --count nodes: a node's processors")
    sacct.add_argument(
        "--partition-limit",
        action="append",
        type=per_partition(parse_time_limit_seconds),
        metavar="TIME|PART=TIME",
        help="time limit of UNLIMITED and Partition_Limit jobs, in Slurm's form (90 is minutes, 2-00:00:00), "
        "for all partitions or one (repeatable); default: -1, which the simulator's filter drops",
    )
    sacct.add_argument(
        "--skip-bad-lines", action="store_true", help="skip and count unreadable lines instead of stopping at the first"
    )


def timezone_argument(text: str) -> str:
    """argparse type: an IANA time zone name."""
    try:
        return check_timezone(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def per_partition(convert):
    """argparse type of `VALUE` or `PART=VALUE`: (None or PART, convert(VALUE))."""

    def parse(text: str):
        name, equals, value = text.rpartition("=")
        try:
            return (name if equals else None, convert(value))
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None

    return parse


def _one_or_per_partition(values, option: str):
    """None, one value for all partitions, or {partition: value}, from (PART or None, value) pairs."""
    if not values:
        return None
    names = [name for name, _ in values]
    if None in names:
        if len(values) > 1:
            raise ValueError(f"{option}: give one value, or PART=VALUE for each partition")
        return values[0][1]
    return dict(values)


def run_import_sacct(args) -> int:
    imported = import_sacct(
        args.dump,
        args.output,
        timezone=args.timezone,
        partitions=args.partition,
        machine_size=_one_or_per_partition(args.machine_size, "--machine-size"),
        count=args.count,
        cores_per_node=args.cores_per_node,
        skip_bad_lines=args.skip_bad_lines,
        partition_limit=_one_or_per_partition(args.partition_limit, "--partition-limit"),
    )
    for name, note in imported.notes.items():
        print(f"field {name}: {note}")
    for check, number in imported.checks.items():
        print(f"{CHECKS[check]}: {number:,}")
    width = max(len(rule) for rule in imported.counts)
    for rule, number in imported.counts.items():
        print(f"{rule:<{width}}  {number:>10,}")
    print(f"{args.output}: {imported.jobs:,} jobs, machine size {imported.header['MaxProcs']}")
    return 0


def run_example(args) -> int:
    write_example(args.output, jobs=args.jobs, seed=args.seed)
    print(args.output)
    return 0


def run_fetch(args) -> int:
    catalogue = load_catalogue(args.catalogue)
    if args.name not in catalogue:
        raise ValueError(f"{args.catalogue}: no trace named {args.name!r} (known: {', '.join(sorted(catalogue))})")
    source = fetch_trace(args.name, catalogue[args.name], args.output, mirror=args.mirror)
    print(f"{args.output}: {args.name} from {source}, checksum verified")
    return 0


def run_model(args) -> int:
    workload = MODEL_GENERATORS[args.model](args.jobs, machine_size=args.machine_size, seed=args.seed)
    write_workload(workload, args.output, {"command": "model", "model": args.model, "seed": args.seed})
    print(f"{args.output}: {len(workload):,} jobs on {args.machine_size} processors (seed {args.seed})")
    return 0


def run_resample(args) -> int:
    workload = read_workload(args.workload)
    write_variants(
        resample_variants(workload, args.variants, args.base_seed, args.method, args.weeks),
        args.output,
        {
            **workload_provenance(workload),
            "command": "resample",
            "method": args.method,
            "weeks": args.weeks,
            "base_seed": args.base_seed,
            "variants": args.variants,
        },
    )
    print(f"{args.output}: {args.variants} variants of {workload.source}")
    return 0


def read_trace(args):
    """The parsed log of `args.trace`, its workload under --machine-size and --filter, and the seconds
    both took."""
    began = time.perf_counter()
    log = parse_swf(args.trace)
    workload = log.workload(args.machine_size, args.filter)
    return log, workload, time.perf_counter() - began


def simulate_as_asked(workload, args):
    """simulate() of `workload` with the options of add_simulation_arguments."""
    return simulate(workload, estimate=args.estimate, correction=args.correction, policy=Policy.from_args(args))


def simulation_description(args) -> str:
    """The policy and the estimates asked for, as a phrase."""
    return f"{Policy.from_args(args).describe()}; estimate {args.estimate}, correction {args.correction}"


def run_simulate(args) -> int:
    if args.slurm_conf:
        return run_slurm_simulate(args)
    log, workload, read_seconds = read_trace(args)
    result = simulate_as_asked(workload, args)
    summary = result.summary()
    if result.fair_share is not None:
        summary["fair_share"] = result.fair_share_by_user()
    if args.output and args.output.endswith(".csv"):
        write_csv(result.to_frame(), args.output)
    elif args.output:
        # Timings stay out of the file so that reruns give identical bytes.
        metrics = {key: value for key, value in summary.items() if key != "kernel_seconds"}
        write_parquet(
            result.to_frame(),
            args.output,
            {**workload_provenance(workload), "options": result.options, "summary": metrics, "command": "simulate"},
        )
    if args.schedule_out:
        write_schedule_swf(log, result, args.schedule_out)
    summary["read_seconds"] = read_seconds
    if args.json:
        trace = {"trace": args.trace, "filter": workload.filter_mode, "machine_size": workload.machine_size}
        print(json.dumps({**trace, **result.options, **summary}, sort_keys=True))
        return 0
    print(f"trace        {args.trace}  ({workload.filter_mode} filter, m = {workload.machine_size})")
    print(f"policy       {simulation_description(args)}")
    rows = [
        ("jobs", f"{summary['jobs']:,}"),
        ("mean wait", f"{summary['avg_wait']:,.1f} s"),
        ("max wait", f"{summary['max_wait']:,.0f} s"),
        ("AVEbsld", f"{summary['avg_bsld']:.3f}  (tau = 10 s)"),
        ("mean pp-bsld", f"{summary['avg_ppbsld']:.3f}"),
        ("mean flow", f"{summary['avg_flow']:,.1f} s"),
        ("utilization", f"{summary['utilization']:.4f}"),
        ("backfilled", f"{summary['backfilled']:,}"),
        *(
            [("reservations", f"{summary['reservations_made']:,} made, {summary['jobs_reserved']:,} jobs held one")]
            if "reservations_made" in summary
            else []
        ),
        *(
            [
                (
                    "fair share",
                    f"{summary['priority_computations']:,} computations; the last's factors: least "
                    f"{min(summary['fair_share'].values()):.4f}, median "
                    f"{np.median(list(summary['fair_share'].values())):.4f} over {len(summary['fair_share'])} users",
                )
            ]
            if "fair_share" in summary
            else []
        ),
        ("time", f"read+filter {read_seconds:.3f} s, kernel {summary['kernel_seconds']:.3f} s"),
    ]
    for label, value in rows:
        print(f"{label:<13}{value}")
    if args.output:
        print(f"{'per-job rows':<13}{args.output}")
    if args.schedule_out:
        print(f"{'schedule':<13}{args.schedule_out}")
    return 0


def run_filter(args) -> int:
    _, workload, _ = read_trace(args)
    extra = {"command": "filter"}
    if args.source:
        extra["converted_from"] = {"path": workload.source, "sha256": workload.source_sha256}
        workload = dataclasses.replace(workload, source=args.source, source_sha256=file_sha256(args.source))
    write_workload(workload, args.output, extra)
    print(f"{args.output}: {len(workload):,} jobs kept of {workload.filter_counts['lines']:,} ({args.filter} filter)")
    return 0


def run_info(args) -> int:
    log = parse_swf(args.trace)  # parsed once, filtered both ways
    workload = log.workload(args.machine_size, args.filter)
    counts = {mode: log.filter_counts(workload.machine_size, mode) for mode in FILTER_MODES}
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
        "filter_counts": counts,
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
    print(f"submit span   {info['first_submit']:.0f} .. {info['last_submit']:.0f} s ({info['span_days']:.1f} days)")
    print(f"users         {info['users']:,}")
    print("dropped by rule:")
    rules = [key for key in counts["strict"] if key not in ("lines", "kept")]
    print(f"  {'rule':<20}" + "".join(f"{mode:>10}" for mode in FILTER_MODES))
    for rule in rules + ["kept"]:
        print(f"  {rule:<20}" + "".join(f"{counts[mode][rule]:>10,}" for mode in FILTER_MODES))
    return 0


def run_slurm_conf(args) -> int:
    conf = read_slurm_conf(args.conf)
    if args.json:
        print(json.dumps(dataclasses.asdict(conf), sort_keys=True))
        return 0
    shapes = Counter((node.cpus, node.memory_mb) for node in conf.nodes.values())
    print(f"slurm.conf    {conf.path}")
    print(
        f"nodes         {len(conf.nodes):,}: " + ", ".join(f"{n} x {c} CPUs {m:,} MB" for (c, m), n in shapes.items())
    )
    memory = " and memory" if conf.memory_consumable else ""
    print(f"counted       {conf.consumable}{memory} ({conf.select_type})")
    for partition in conf.partitions.values():
        cpus = sum(conf.nodes[name].cpus for name in partition.nodes)
        limit = "unlimited" if partition.max_time is None else f"{partition.max_time:,} s"
        marks = " default" * partition.default + " exclusive" * partition.exclusive
        print(f"partition     {partition.name}: {len(partition.nodes):,} nodes, {cpus:,} CPUs, MaxTime {limit}{marks}")
    print(f"scheduler     {conf.scheduler_type}: " + ", ".join(f"{k}={v}" for k, v in conf.scheduler.items()))
    print("priority      " + ", ".join(f"{k}={v}" for k, v in conf.priority.items()))
    print("keys read     " + ", ".join(conf.keys_used))
    return 0


COMMANDS = {
    "simulate": run_simulate,
    "filter": run_filter,
    "info": run_info,
    "slurm-conf": run_slurm_conf,
    "fetch": run_fetch,
    "model": run_model,
    "resample": run_resample,
    "example": run_example,
    "import-sacct": run_import_sacct,
}


def run_slurm_simulate(args) -> int:
    """`simcore simulate TRACE --slurm-conf FILE`: the Slurm mode (docs/slurm_mode.md §7)."""
    conf = read_slurm_conf(args.slurm_conf)
    run = simulate_site(
        args.trace,
        conf,
        associations=read_associations(args.slurm_assoc) if args.slurm_assoc else None,
        partitions=args.partition,
        slurmctld_start=args.slurmctld_start,
        start_delay=args.start_delay,
        bf_phase=args.bf_phase,
        decay_after_passes=None if args.decay_order is None else args.decay_order == "after",
    )
    if args.output:
        table = run.table()
        if args.output.endswith(".csv"):
            write_csv(table.to_pandas(), args.output)
        else:
            provenance = {"command": "simulate", "trace": args.trace, **run.provenance()}
            write_parquet(table.to_pandas(), args.output, provenance)
    if args.schedule_out:
        write_site_schedule_swf(run, args.schedule_out)
    summary = {"jobs": len(run.jobs.recorded_start), "backfilled": int(run.schedule.backfilled.sum())}
    summary["mean_wait"] = float(np.mean(run.schedule.start - run.jobs.columns["submit"])) if summary["jobs"] else 0.0
    if args.replay:
        summary["replay"] = replay_agreement(run)
    if args.json:
        print(json.dumps({"trace": args.trace, **summary, **run.provenance()}, sort_keys=True, default=str))
        return 0
    options = run.options
    print(f"trace        {args.trace}  ({summary['jobs']:,} jobs; left out: {run.jobs.dropped})")
    print(
        f"slurm.conf   {args.slurm_conf}: {len(run.site.cluster.cpus)} nodes, "
        f"{len(run.site.cluster.partitions)} partitions, {conf.select_type} {conf.consumable}"
        f"{'_Memory' if options.memory_consumable else ''}, {conf.scheduler_type}, {conf.priority['type']}"
    )
    estimated = f" (estimated from the log: {', '.join(run.estimated)})" if run.estimated else ""
    started = datetime.fromtimestamp(run.jobs.origin + options.priority_calc_origin, UTC).strftime("%Y-%m-%d %H:%M:%S")
    print(
        f"options      bf_interval {options.bf_interval} s, start delay {options.start_delay} s, "
        f"slurmctld started {started} UTC{estimated}"
    )
    print(f"mean wait    {summary['mean_wait']:,.1f} s; {summary['backfilled']:,} jobs started by backfill")
    if run.agreement:
        a = run.agreement
        print(
            f"vs recorded  {a['within_2s']:.1%} within 2 s, {a['within_5s']:.1%} within 5 s, "
            f"{a['within_30s']:.1%} within 30 s; Kendall tau {a['kendall_tau']:.3f}; "
            f"mean |delta| {a['mean_abs_delta']:.1f} s (largest {a['max_abs_delta']:.0f} s)"
        )
    if args.replay:
        r = summary["replay"]
        print(
            f"replay       {r['explained_within_2s']:.1%} of {r['decisions']:,} recorded starts decided by the model "
            f"within 2 s on the recorded history ({r['model_earlier']} earlier, {r['model_later']} later or never)"
        )
    return 0
