"""CPU cost of the dynamic queue orders (SEXP, LEXP, WFP3, UNICEF) against FCFS on long queues.

    python benchmarks/bench_dynamic_orders.py [--pwa ../shared/pwa] [--repeat 1]

Two workloads, each simulated with and without EASY backfilling (`backfill="queue"` and
`"none"`), once per order:

- **Curie variant**: CEA-Curie (strict filter, the header's 93,312 processors) resampled
  as the campaign does (`config/config.yaml`: user-weeks, 100 weeks), variant seed 0;
  without backfilling its queue holds thousands of jobs;
- **long queue**: a synthetic workload (seed 0) that keeps about 10,000 jobs waiting on
  64 processors for most of its run (`long_queue`).

A dynamic order's key depends on the time, so its queue is re-sorted at every pass; FCFS
keeps its list sorted on insertion. Each cell is the CPU seconds of one simulation (best
of `--repeat`) and its ratio to FCFS on the same workload and backfilling, measured in the
same run. Run it once per checkout (PYTHONPATH) to compare two versions of the kernel.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import simcore
from simcore.workloads.resample import resample

REPO = Path(__file__).resolve().parent.parent
CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
ORDERS = ("FCFS", "SEXP", "LEXP", "WFP3", "UNICEF")
BACKFILLS = ("none", "queue")


def curie_variant(pwa: Path) -> simcore.Workload:
    workload = simcore.read_swf(pwa / CURIE, filter="strict")
    return resample(workload, seed=0, method="user-weeks", weeks=100)[0]


def long_queue(waiting: int = 10_000, machine_size: int = 64, seed: int = 0) -> simcore.Workload:
    """`waiting` jobs submitted within the first hour, then as many again at the rate the
    machine finishes them (its processors over their mean area), so that about `waiting`
    jobs wait from the first hour until the last submission; each runs 10 min to 3 h on
    1-32 processors and requests up to 3 times its run."""
    rng = np.random.Generator(np.random.PCG64(seed))
    jobs = 2 * waiting
    run = rng.integers(600, 10_800, jobs).astype(float)
    requested = np.ceil(run * rng.uniform(1.0, 3.0, jobs))
    procs = rng.integers(1, 33, jobs)
    steady = (run[waiting:] * procs[waiting:]).sum() / machine_size
    submit = np.sort(np.concatenate([rng.integers(0, 3600, waiting), 3600 + rng.integers(0, int(steady), waiting)]))
    return simcore.Workload.from_arrays(submit.astype(float), run, requested, procs, machine_size, source="long queue")


def cpu_seconds(workload: simcore.Workload, order: str, backfill: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        simcore.simulate(workload, order=order, backfill=backfill)
        best = min(best, time.process_time() - began)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pwa", default=str(REPO.parent / "shared" / "pwa"), help="directory of the PWA traces")
    parser.add_argument("--repeat", type=int, default=1, help="simulations per cell; the best is kept")
    args = parser.parse_args(argv)
    print(f"simcore from {Path(simcore.__file__).parent}")
    workloads = {"Curie variant": curie_variant(Path(args.pwa)), "long queue": long_queue()}
    print(f"{'workload':14s} {'jobs':>7s} {'backfill':8s} " + " ".join(f"{order:>15s}" for order in ORDERS))
    for name, workload in workloads.items():
        for backfill in BACKFILLS:
            seconds = {order: cpu_seconds(workload, order, backfill, args.repeat) for order in ORDERS}
            base = seconds["FCFS"]
            print(
                f"{name:14s} {len(workload):7d} {backfill:8s} "
                + " ".join(f"{seconds[o]:6.2f}s ({seconds[o] / base:5.1f}x)" for o in ORDERS),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
