"""CPU cost of the running-time prediction study per trace, and its projection.

    python benchmarks/bench_prediction.py [--traces KTH-SP2 ...] [--full-grid]

For each trace (the `prediction` section of config/config.yaml: filter,
machine size): CPU seconds of one simulation with requested times (EASY, the
baseline measured in the same run), with AVE2 (EASY++), and with the E-Loss
regression and the squared-loss regression (incremental correction,
EASY-SJBF), their ratio to the baseline, and the projected CPU time of the
whole-trace grid (every triple of the configured grid, each triple costed as
its predictor's measured simulation). With --full-grid, the grid is also run
for real (`evaluate_triples`) and its CPU time printed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

import simcore
from simcore.studies.prediction.study import (
    BACKFILL_VARIANTS,
    E_LOSS,
    SQUARED_LOSS,
    evaluate_triples,
    make_estimate,
    regression_label,
    triple_grid,
)
from simcore.workloads.catalogue import load_catalogue

REPO = Path(__file__).resolve().parent.parent


def cpu_seconds(workload, predictor, correction, backfill, l2) -> float:
    began = time.process_time()
    simcore.simulate(
        workload, backfill=BACKFILL_VARIANTS[backfill], estimate=make_estimate(predictor, l2), correction=correction
    )
    return time.process_time() - began


def main(argv=None) -> int:
    study = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["prediction"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pwa", type=Path, default=REPO.parent / "shared" / "pwa")
    parser.add_argument("--traces", nargs="+", default=study["traces"])
    parser.add_argument("--full-grid", action="store_true", help="also run every triple (minutes per trace)")
    args = parser.parse_args(argv)
    catalogue = load_catalogue(REPO / "config" / "pwa_catalogue.yaml")
    rate = study["default_learning_rate"]
    grid = triple_grid(
        study["learning_rates"], study["bases"], study["weightings"], study["corrections"], study["backfills"]
    )
    kinds = grid["predictor"].map(lambda p: "regression" if p.startswith("reg:") else p).value_counts()
    print(f"grid: {len(grid)} triples per trace ({', '.join(f'{n} {k}' for k, n in kinds.items())})\n")
    print(
        "| trace | jobs | EASY s | EASY++ s | E-Loss regression s | squared regression s | regression / EASY "
        "| projected grid CPU s |" + (" measured grid CPU s |" if args.full_grid else "")
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|" + ("--:|" if args.full_grid else ""))
    for trace in args.traces:
        workload = simcore.read_swf(
            args.pwa / catalogue[trace]["file"], filter=study["filter"], machine_size=study["machine_size"].get(trace)
        )
        easy = cpu_seconds(workload, "request", "request", "EASY", study["l2"])
        plus = cpu_seconds(workload, "ave2", "incremental", "SJBF", study["l2"])
        eloss = cpu_seconds(workload, regression_label(*E_LOSS, rate), "incremental", "SJBF", study["l2"])
        squared = cpu_seconds(workload, regression_label(*SQUARED_LOSS, rate), "incremental", "SJBF", study["l2"])
        cost = {"request": easy, "clairvoyant": easy, "ave2": plus, "regression": (eloss + squared) / 2}
        projected = sum(cost[kind] * n for kind, n in kinds.items())
        line = (
            f"| {trace} | {len(workload):,} | {easy:.2f} | {plus:.2f} | {eloss:.2f} | {squared:.2f} | "
            f"{(eloss + squared) / 2 / easy:.1f}× | {projected:,.0f} |"
        )
        if args.full_grid:
            began = time.process_time()
            evaluate_triples(workload, grid, study["l2"])
            line += f" {time.process_time() - began:,.0f} |"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
