"""Benchmark of the simcore kernel against the pure-Python reference simulator.

    python benchmarks/bench_core.py [--traces CEA-Curie ...] [--quick] [--output FILE]

See benchmarks/README.md for what is measured and how to read the table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import simcore

REPO = Path(__file__).resolve().parent.parent

TRACES = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "HPC2N": "HPC2N-2002-2.2-cln.swf.gz",
    "CEA-Curie": "CEA-Curie-2011-2.1-cln.swf.gz",
}

CONFIGS = {
    "EASY-FCFS": dict(order="FCFS", backfill="queue", estimate="request"),
    "SAF Θ=40h": dict(order="SAF", threshold=144000.0, backfill="queue", estimate="request"),
    "clairvoyant EASY-SJBF": dict(order="FCFS", backfill="SPF", estimate="clairvoyant"),
    # reservation depth (docs/semantics.md, "Reservation depth"), against EASY-FCFS
    "FCFS, 5 reservations": dict(order="FCFS", backfill="queue", estimate="request", reservations=5),
    "FCFS, conservative": dict(order="FCFS", backfill="queue", estimate="request", reservations="all"),
    # Slurm's multifactor priority, its defaults (calc_period 300 s; docs/semantics.md, "Multifactor priority")
    "MULTIFACTOR, calc 300 s": dict(order="MULTIFACTOR", backfill="queue", estimate="request"),
}
# issue #33's targets: kernel time against EASY-FCFS's on the same trace, same run
KERNEL_TARGETS = {"FCFS, 5 reservations": 3.0, "FCFS, conservative": 10.0, "MULTIFACTOR, calc 300 s": 3.0}

FIRST_PREFIX = 2000


def peak_mb() -> float:
    """Peak RSS of this process in MB (10^6 bytes); ru_maxrss is in KiB on Linux."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def core_worker(path: str, repeat: int) -> dict:
    """The core-only path: read + filter, then one simulation per configuration."""
    parse_times = []
    for _ in range(repeat):
        began = time.perf_counter()
        workload = simcore.read_swf(path, filter="strict")
        parse_times.append(time.perf_counter() - began)
    kernel = {
        name: min(simcore.simulate(workload, **config).kernel_seconds for _ in range(repeat))
        for name, config in CONFIGS.items()
    }
    return dict(jobs=len(workload), parse_s=min(parse_times), kernel_s=kernel, peak_mb=peak_mb())


def prefix(w: simcore.Workload, n: int) -> simcore.Workload:
    """The first n jobs (the workload is sorted by submit time)."""
    return simcore.Workload.from_arrays(
        w.submit[:n], w.run[:n], w.requested[:n], w.procs[:n], w.machine_size, user=w.user[:n], job_id=w.job_id[:n]
    )


def reference_worker(path: str, budget: float, repeat: int) -> dict:
    """Per configuration: the reference on doubling prefixes while the previous
    run took < share/4, then the core on the largest prefix, with its start
    times checked against the reference's."""
    sys.path.insert(0, str(REPO / "tests"))
    from reference_sim import reference_simulate

    workload = simcore.read_swf(path, filter="strict")
    share = budget / len(CONFIGS)
    results = {}
    for name, config in CONFIGS.items():
        n = min(FIRST_PREFIX, len(workload))
        while True:
            part = prefix(workload, n)
            lists = [a.tolist() for a in (part.submit, part.run, part.requested, part.procs, part.user)]
            began = time.perf_counter()
            reference = reference_simulate(*lists, part.machine_size, **config)
            reference_s = time.perf_counter() - began
            if n == len(workload) or reference_s >= share / 4:
                break
            n = min(2 * n, len(workload))
        runs = [simcore.simulate(part, **config) for _ in range(repeat)]
        core_start = runs[0].start
        reference_start = np.array(reference["start"], dtype=np.float64)
        differ = np.flatnonzero(core_start != reference_start)
        mismatch = None
        if len(differ):
            i = differ[0]
            mismatch = (
                f"{len(differ)} of {n} start times differ; first: job {part.job_id[i]}, "
                f"core {float(core_start[i])}, reference {float(reference_start[i])}"
            )
        results[name] = dict(
            n=n, reference_s=reference_s, core_s=min(r.kernel_seconds for r in runs), mismatch=mismatch
        )
    return results


def in_fresh_process(function, *args):
    """Run function(*args) in a new interpreter, so that its peak RSS is its own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def table(results: dict) -> list[str]:
    lines = [
        "| trace | jobs | parse+filter s | config | core kernel s | reference N | reference s "
        "| core s on N | ratio | peak MB |",
        "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|",
    ]
    for trace, (core, reference) in results.items():
        for name in CONFIGS:
            ref = reference[name]
            n = f"{ref['n']:,}" + (" (all)" if ref["n"] == core["jobs"] else "")
            lines.append(
                f"| {trace} | {core['jobs']:,} | {core['parse_s']:.3f} | {name} "
                f"| {core['kernel_s'][name]:.3f} | {n} | {ref['reference_s']:.2f} "
                f"| {ref['core_s']:.4f} | {ref['reference_s'] / ref['core_s']:,.0f}× "
                f"| {core['peak_mb']:.0f} |"
            )
    return lines


def target_lines(results: dict) -> list[str]:
    if "CEA-Curie" not in results:
        return ["Targets: not checked (CEA-Curie not among the traces)."]
    core, reference = results["CEA-Curie"]
    kernel = core["kernel_s"]["EASY-FCFS"]
    worst = min(CONFIGS, key=lambda name: reference[name]["reference_s"] / reference[name]["core_s"])
    ratio = reference[worst]["reference_s"] / reference[worst]["core_s"]
    checks = [
        (kernel <= 0.25, f"CEA-Curie EASY-FCFS kernel {kernel:.3f} s ≤ 0.25 s"),
        (ratio >= 50, f"CEA-Curie ratio {ratio:,.0f}× ≥ 50× (lowest: {worst}, N = {reference[worst]['n']:,})"),
        (core["parse_s"] <= 2, f"CEA-Curie parse+filter {core['parse_s']:.3f} s ≤ 2 s"),
        (core["peak_mb"] <= 500, f"CEA-Curie peak (read + the simulations) {core['peak_mb']:.0f} MB ≤ 500 MB"),
    ]
    for trace, (trace_core, _) in results.items():
        easy = trace_core["kernel_s"]["EASY-FCFS"]
        for name, most in KERNEL_TARGETS.items():
            ratio = trace_core["kernel_s"][name] / easy
            checks.append((ratio <= most, f"{trace} {name} kernel {ratio:.1f}× EASY-FCFS's ≤ {most:g}×"))
    return [f"- {'PASS' if ok else 'FAIL'}: {text}" for ok, text in checks]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pwa",
        type=Path,
        default=REPO.parent / "shared" / "pwa",
        help="directory holding the gzip SWF traces (default: %(default)s)",
    )
    parser.add_argument(
        "--traces", nargs="+", choices=list(TRACES), default=list(TRACES), help="traces to measure (default: all)"
    )
    parser.add_argument(
        "--reference-budget",
        type=float,
        metavar="SECONDS",
        help="reference time budget per trace, shared by the configurations (default: 120, or 10 with --quick)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: reference budget 10 s, 1 repetition instead of best of 3"
    )
    parser.add_argument("--output", type=Path, metavar="FILE", help="also write the report to FILE (Markdown)")
    args = parser.parse_args(argv)
    budget = args.reference_budget if args.reference_budget is not None else (10.0 if args.quick else 120.0)
    repeat = 1 if args.quick else 3
    paths = {trace: args.pwa / TRACES[trace] for trace in args.traces}
    missing = [str(path) for path in paths.values() if not path.is_file()]
    if missing:
        parser.error("trace not found: " + ", ".join(missing))

    results = {}
    for trace, path in paths.items():
        print(f"{trace}: core path ...", file=sys.stderr, flush=True)
        core = in_fresh_process(core_worker, str(path), repeat)
        print(f"{trace}: reference ...", file=sys.stderr, flush=True)
        results[trace] = core, in_fresh_process(reference_worker, str(path), budget, repeat)

    mismatches = [
        f"- MISMATCH {trace} {name}: {ref['mismatch']}"
        for trace, (_, reference) in results.items()
        for name, ref in reference.items()
        if ref["mismatch"]
    ]
    checked = sum(len(reference) for _, reference in results.values())
    report = [
        f"Best of {repeat}; reference budget {budget:g} s per trace ({budget / len(CONFIGS):.3g} s "
        f"per configuration); peak MB = max RSS of the core-only path (read + the simulations) "
        f"in a fresh process.",
        "",
        *table(results),
        "",
        f"Start times, core vs reference on the N-job prefix: {checked - len(mismatches)} of {checked} identical.",
        *mismatches,
        "",
        *target_lines(results),
    ]
    text = "\n".join(report) + "\n"
    print(text, end="")
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    if mismatches:
        print("FAILURE: the core's start times differ from the reference's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
