"""CPU cost of the bandit study per variant and trace, and its projection.

    python benchmarks/bench_bandit.py [--traces KTH-SP2 ...] [--weeks 100]

For each trace: one resampled variant (the configured length), every strategy
of config/config.yaml's `bandit` section plus the fixed candidate orders, as
one `simcore learn` job runs them. Prints CPU seconds per variant, per
strategy, and the projected wall time of the whole study (variants x traces)
on a given number of cores.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

import simcore
from simcore.studies.bandit.learners import run_learner
from simcore.studies.bandit.study import PERIODS
from simcore.workloads.catalogue import load_catalogue
from simcore.workloads.resample import resample

REPO = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pwa", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--traces", nargs="+", default=config["traces"])
    parser.add_argument("--weeks", type=int, default=config["resample"]["weeks"])
    parser.add_argument("--variants", type=int, default=config["variants"])
    parser.add_argument("--cores", type=int, default=56)
    args = parser.parse_args(argv)
    catalogue = load_catalogue(REPO / "config" / "pwa_catalogue.yaml")
    base, strategies = config["bandit"]["base"], config["bandit"]["strategies"]
    total = 0.0
    print("| trace | jobs in variant | fixed orders s | " + " | ".join(strategies) + " | total CPU s |")
    print("|---|--:|--:|" + "--:|" * len(strategies) + "--:|")
    for trace in args.traces:
        workload = simcore.read_swf(args.pwa / catalogue[trace]["file"], filter=config["filter"])
        variant, _ = resample(workload, config["base_seed"], config["resample"]["method"], args.weeks)
        began = time.process_time()
        for threshold, backfill in {
            (s.get("threshold", base["threshold"]), s.get("backfill", base["backfill"])) for s in strategies.values()
        }:
            for order in dict.fromkeys(["FCFS", *(base.get("candidates") or simcore.BANDIT_ORDERS)]):  # as learn
                simcore.simulate(variant, order=order, threshold=threshold, backfill=backfill)
        fixed = time.process_time() - began
        costs = []
        for options in strategies.values():
            options = {**base, **options}
            period = PERIODS[options.pop("period")]
            began = time.process_time()
            run_learner(variant, options.pop("learner"), period=period, seed=0, **options)
            costs.append(time.process_time() - began)
        per_variant = fixed + sum(costs)
        total += per_variant * args.variants
        print(
            f"| {trace} | {len(variant):,} | {fixed:.1f} | "
            + " | ".join(f"{c:.1f}" for c in costs)
            + f" | {per_variant:.1f} |",
            flush=True,
        )
    print(
        f"\nWhole study: {args.variants} variants x {len(args.traces)} traces = {total / 3600:.2f} CPU hours; "
        f"on {args.cores} cores about {total / args.cores / 60:.1f} minutes (perfect balance, chunks of "
        f"{config['bandit']['variants_per_job']} variants)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
