"""Fixed policies on resampled variants: every (queue order, threshold, backfill
variant) of the bandit paper's Table 2, scored by the change of cumulative
waiting time against EASY-FCFS (simcore.reporting.cumulative_wait)."""

from __future__ import annotations

from itertools import product

import pandas as pd

from simcore.engine.simulation import simulate
from simcore.reporting.cumulative_wait import configuration, run_record


def sweep_variant(workload, orders, thresholds, backfills, weeks: int, estimate="request"):
    """Every (order, threshold, backfill) on one workload: (runs, weekly) frames."""
    runs, weekly = [], []
    for order, threshold, backfill in product(orders, thresholds, backfills):
        result = simulate(workload, order=order, threshold=threshold, backfill=backfill, estimate=estimate)
        run, weeks_frame = run_record(workload, result, configuration(order, threshold, backfill), weeks)
        runs.append(run)
        weekly.append(weeks_frame)
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True)
