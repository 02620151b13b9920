"""Simple policies beyond EASY-FCFS (the thesis's chapter 4; seed 004).

FCFS, SPF, SQF and SAF as the queue order of EASY with aggressive backfilling
in the queue's order and a starvation threshold of Θ = factor × the trace's
largest requested time, on resampled variants. Per variant and order this
module measures the three objectives (waiting time, bounded slowdown,
per-processor bounded slowdown) as weekly cumulative means, the processor
counts of the most delayed jobs, the premature/standard slowdown ratio, the
jobs per slowdown category and the number of backfilled jobs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.metrics import job_metrics
from simcore.engine.simulation import simulate
from simcore.workloads.resample import WEEK

OBJECTIVES = ("wait", "bsld", "ppbsld")
# Slowdown categories of the thesis's Figure 4.3: exactly 1, (1, 10), [10, 100), >= 100.
CATEGORIES = ("1", "1-10", "10-100", "100+")
PREMATURE_FACTOR = 100.0  # a job is premature when its request is >= 100 x its run
TOP_DELAYED = 100


def premature(workload) -> np.ndarray:
    """Jobs whose request is at least 100 times the time they ran (the thesis's Table 4.3)."""
    return workload.requested >= PREMATURE_FACTOR * np.maximum(workload.run, 0.0)


def threshold_for(workload, factor: float) -> float:
    """Θ = factor x the largest requested time of the trace."""
    return float(factor * workload.requested.max())


def slowdown_categories(bsld: np.ndarray) -> dict:
    return {
        "1": int(np.sum(bsld == 1.0)),
        "1-10": int(np.sum((bsld > 1.0) & (bsld < 10.0))),
        "10-100": int(np.sum((bsld >= 10.0) & (bsld < 100.0))),
        "100+": int(np.sum(bsld >= 100.0)),
    }


def weekly_cumulative_means(end: np.ndarray, values: dict, weeks: int) -> dict:
    """Mean of each objective over the jobs finished by the end of week k, k = 1..weeks
    (NaN while no job has finished)."""
    week_of_end = np.minimum(np.floor(end / WEEK).astype(np.int64), weeks - 1)
    finished = np.cumsum(np.bincount(week_of_end, minlength=weeks)[:weeks])
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            name: np.cumsum(np.bincount(week_of_end, weights=column, minlength=weeks)[:weeks]) / finished
            for name, column in values.items()
        }


def study_variant(workload, orders, threshold: float, backfill: str, weeks: int):
    """Every order on one variant: (runs, weekly, delayed) frames."""
    is_premature = premature(workload)
    runs, weekly, delayed = [], [], []
    for order in orders:
        result = simulate(workload, order=order, threshold=threshold, backfill=backfill)
        metrics = job_metrics(workload, result.start)
        bsld = metrics["bsld"]
        standard = bsld[~is_premature].mean() if (~is_premature).any() else np.nan
        runs.append(
            {
                "order": order,
                "jobs": len(workload),
                **{f"avg_{name}": float(metrics[name].mean()) for name in OBJECTIVES},
                **{f"max_{name}": float(metrics[name].max()) for name in OBJECTIVES},
                "backfilled": int(result.jobs["backfilled"].sum()),
                "premature_jobs": int(is_premature.sum()),
                "premature_ratio": float(bsld[is_premature].mean() / standard) if is_premature.any() else np.nan,
                **{f"bsld_{name}": count for name, count in slowdown_categories(bsld).items()},
            }
        )
        curves = weekly_cumulative_means(result.jobs["end"], {name: metrics[name] for name in OBJECTIVES}, weeks)
        weekly.append(pd.DataFrame({"order": order, "week": np.arange(1, weeks + 1), **curves}))
        top = np.argsort(-bsld, kind="stable")[:TOP_DELAYED]
        delayed.append(
            pd.DataFrame(
                {"order": order, "rank": np.arange(1, len(top) + 1), "procs": workload.procs[top], "bsld": bsld[top]}
            )
        )
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True), pd.concat(delayed, ignore_index=True)


def _bands(frame: pd.DataFrame, keys, columns) -> pd.DataFrame:
    """Mean and 10th/90th percentiles over variants (the thesis kept the 10-90 % range)."""
    grouped = frame.groupby(keys, sort=False)[list(columns)]
    parts = {"mean": grouped.mean(), "p10": grouped.quantile(0.10), "p90": grouped.quantile(0.90)}
    table = pd.concat(parts, axis=1)
    table.columns = [f"{column}_{stat}" for stat, column in table.columns]
    return table.reset_index()


def gains_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace and order: the change of each average objective against FCFS on
    the same variant, in %, mean and 10th/90th percentiles over variants."""
    keyed = runs.set_index(["trace", "variant", "order"])
    columns = [f"avg_{name}" for name in OBJECTIVES]
    fcfs = keyed.xs("FCFS", level="order")[columns]
    change = 100.0 * (keyed[columns] / fcfs.reindex(keyed.index.droplevel("order")).to_numpy() - 1.0)
    change.columns = [f"change_{name}" for name in OBJECTIVES]
    return _bands(change.reset_index(), ["trace", "order"], change.columns)


def summary_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace and order over variants: averages, backfilled jobs, premature
    ratio (Table 4.4) and the jobs per slowdown category (Figure 4.3)."""
    columns = (
        [f"avg_{name}" for name in OBJECTIVES]
        + ["backfilled", "premature_ratio"]
        + [f"bsld_{name}" for name in CATEGORIES]
    )
    table = _bands(runs, ["trace", "order"], columns)
    table.insert(2, "variants", runs.groupby(["trace", "order"], sort=False)["variant"].nunique().to_numpy())
    return table


def weekly_curves(weekly: pd.DataFrame) -> pd.DataFrame:
    """Figure 4.1: cumulative weekly means, mean and 10th/90th percentiles over variants."""
    return _bands(weekly, ["trace", "order", "week"], OBJECTIVES)
