"""Table 4.4 of the thesis (KTH-SP2) under each hypothesis tried for its residual: the ratio of the
average bounded slowdown of premature jobs (request >= 100 x run) to that of the other jobs, per
queue order, mean over user-week resampled variants, beside the thesis's values and how far each
row is off them. Writes hypotheses.md beside this script (the table docs/simple_policies.md shows).
Run from the repository's root, with ../shared/pwa beside it (about 3 CPU minutes):

    python docs/results/simple_policies/hypotheses.py [--variants 100]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.engine.metrics import TAU, job_metrics
from simcore.engine.simulation import simulate
from simcore.engine.swf import parse_swf
from simcore.reporting.published import THESIS_TABLE43, THESIS_TABLE44
from simcore.reporting.tables import markdown_table
from simcore.studies.simple_policies.report import factor_off
from simcore.studies.simple_policies.study import PREMATURE_FACTOR, threshold_for
from simcore.workloads.resample import resample_variants

LOG = Path("../shared/pwa/KTH-SP2-1996-2.1-cln.swf.gz")
ORDERS = ("FCFS", "SPF", "SQF", "SAF")
BASE = {"filter": "batsim", "tau": TAU, "premature": PREMATURE_FACTOR, "factor": 3.0, "backfill": "queue"}
BASE |= {"method": "user-weeks", "aggregate": "mean of ratios", "variants": None}
# name -> what it changes from the Batsim conversion (BASE)
HYPOTHESES = {
    "text (truncate filter, requested processors)": {"filter": "truncate"},
    "Batsim conversion": {},
    "+ τ = 60 s (bounded slowdown)": {"tau": 60.0},
    "+ premature: request ≥ 10 × run": {"premature": 10.0},
    "+ premature: request ≥ 50 × run": {"premature": 50.0},
    "+ Θ = 1 × largest request": {"factor": 1.0},
    "+ no threshold Θ": {"factor": None},
    "+ backfilling smallest estimate first (EASY-SJBF)": {"backfill": "SPF"},
    "+ whole-week resampling (not per user)": {"method": "weeks"},
    "+ ratio of the pooled means over variants": {"aggregate": "ratio of means"},
    "+ median over variants": {"aggregate": "median"},
    "+ the thesis's 10 variants (the first 10)": {"variants": 10},
}


def premature_share(log, options: dict) -> float:
    """Table 4.3's cell of KTH-SP2 under `options`: premature jobs, % of the trace's."""
    workload = log.workload(None, options["filter"])
    return 100.0 * float(np.mean(workload.requested >= options["premature"] * np.maximum(workload.run, 0.0)))


def ratios(log, options: dict, variants: int) -> dict[str, float]:
    """Table 4.4's cells of KTH-SP2 under `options`."""
    workload = log.workload(None, options["filter"])
    threshold = None if options["factor"] is None else threshold_for(workload, options["factor"])
    count = options["variants"] or variants
    cells = {order: [] for order in ORDERS}
    for _, variant in resample_variants(workload, count, 0, options["method"], None):
        premature = variant.requested >= options["premature"] * np.maximum(variant.run, 0.0)
        for order in ORDERS:
            result = simulate(variant, order=order, threshold=threshold, backfill=options["backfill"])
            bsld = job_metrics(variant, result.start, options["tau"])["bsld"]
            cells[order].append((bsld[premature].mean(), bsld[~premature].mean()))
    table = {}
    for order, pairs in cells.items():
        premature_mean, standard_mean = np.array(pairs).T
        if options["aggregate"] == "ratio of means":
            table[order] = premature_mean.mean() / standard_mean.mean()
        else:
            per_variant = premature_mean / standard_mean
            table[order] = np.median(per_variant) if options["aggregate"] == "median" else per_variant.mean()
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", type=int, default=100)
    args = parser.parse_args()
    log = parse_swf(LOG)
    thesis = pd.Series({order: THESIS_TABLE44[order]["KTH-SP2"] for order in ORDERS})
    rows = [
        ["thesis (Tables 4.3, 4.4)", f"{THESIS_TABLE43['KTH-SP2']:.1f}", *(f"{value:.2f}" for value in thesis), "", ""]
    ]
    for name, change in HYPOTHESES.items():
        ours = pd.Series(ratios(log, BASE | change, args.variants))
        off = factor_off(thesis, ours)
        rows.append(
            [
                name,
                f"{premature_share(log, BASE | change):.1f}",
                *(f"{value:.2f}" for value in ours),
                f"{np.exp(np.log(off).mean()):.2f}×",
                f"{off.max():.2f}×",
            ]
        )
        print(name, ours.round(2).to_dict())
    table = markdown_table(
        pd.DataFrame(rows, columns=["hypothesis", "premature %", *ORDERS, "off (geo. mean)", "off (largest)"]),
        "l" + "r" * (len(ORDERS) + 3),
    )
    here = Path(__file__).with_name("hypotheses.md")
    here.write_text(
        f"<!-- written by docs/results/simple_policies/hypotheses.py --variants {args.variants}; do not edit -->\n\n"
        f"Table 4.4, KTH-SP2: premature/standard average bounded slowdown, mean over {args.variants} "
        "user-week resampled variants (seeds 0..), EASY with Θ = 3 × the largest request and aggressive "
        "backfilling in queue order unless the row says otherwise; each `+` row changes one thing from the "
        "Batsim conversion. 'premature %': Table 4.3, the trace's premature jobs; 'off': the larger of "
        "ours/thesis and thesis/ours over the four Table 4.4 cells.\n\n" + table + "\n"
    )
    print(here)


if __name__ == "__main__":
    main()
