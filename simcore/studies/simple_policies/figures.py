"""Figures of the simple-policies study (the thesis's chapter 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.reporting.style import band, plt

SIMPLE_COLOURS = {"FCFS": "black", "SPF": "tab:blue", "SQF": "tab:green", "SAF": "tab:red"}


OBJECTIVE_LABELS = {
    "bsld": "average bounded slowdown",
    "wait": "average waiting time (h)",
    "ppbsld": "average pp-bounded slowdown",
}


def _simple_colour(order: str) -> str:
    return SIMPLE_COLOURS.get(order, "tab:purple")


def simple_objectives_figure(curves: pd.DataFrame, trace: str):
    """The thesis's Figure 4.1 for one trace: cumulative weekly mean of each
    objective: mean over variants (line) and 10th to 90th percentiles (band)."""
    figure, axes = plt.subplots(1, 3, figsize=(10.0, 3.0))
    for axis, objective in zip(axes, ("bsld", "wait", "ppbsld")):
        scale = 1 / 3600 if objective == "wait" else 1.0
        for order, part in curves.groupby("order", sort=False):
            low, mean, high = (part[f"{objective}_{column}"] * scale for column in ("p10", "mean", "p90"))
            band(axis, part["week"], mean, low, high, _simple_colour(order), order)
        axis.set_xlabel("week")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylabel(OBJECTIVE_LABELS[objective])
        axis.grid(alpha=0.3)
    axes[0].legend(title="queue order")
    figure.suptitle(f"{trace}: cumulative weekly means (EASY, threshold, aggressive backfilling)")
    return figure


def _per_trace_boxes(frame: pd.DataFrame, column: str, ylabel: str, title: str, log: bool = False):
    traces = list(dict.fromkeys(frame["trace"]))
    figure, axes = plt.subplots(1, len(traces), figsize=(2.4 * len(traces), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = frame[frame["trace"] == trace]
        orders = list(dict.fromkeys(part["order"]))
        boxes = axis.boxplot(
            [part.loc[part["order"] == order, column] for order in orders], showfliers=False, patch_artist=True
        )
        for patch, order in zip(boxes["boxes"], orders):
            patch.set_facecolor(_simple_colour(order))
            patch.set_alpha(0.35)
        axis.set_xticks(range(1, len(orders) + 1), orders)
        axis.set_title(trace)
        if log:
            axis.set_yscale("log")
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel(ylabel)
    figure.suptitle(title)
    return figure


def simple_delayed_figure(delayed: pd.DataFrame):
    """The thesis's Figure 4.2: processors of the 100 jobs of highest slowdown."""
    return _per_trace_boxes(
        delayed, "procs", "processors", "Processors of the 100 most delayed jobs per variant", log=True
    )


def simple_backfilled_figure(runs: pd.DataFrame):
    """The thesis's Figure 4.4: backfilled jobs per variant."""
    return _per_trace_boxes(runs, "backfilled", "backfilled jobs", "Backfilled jobs per variant")


def simple_categories_figure(summary: pd.DataFrame):
    """The thesis's Figure 4.3: mean number of jobs per slowdown category."""
    from simcore.studies.simple_policies.study import CATEGORIES

    traces = list(dict.fromkeys(summary["trace"]))
    figure, axes = plt.subplots(1, len(traces), figsize=(2.6 * len(traces), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = summary[summary["trace"] == trace]
        width = 0.8 / max(len(part), 1)
        for k, (_, row) in enumerate(part.iterrows()):
            positions = np.arange(len(CATEGORIES)) + (k - (len(part) - 1) / 2) * width
            axis.bar(
                positions,
                [row[f"bsld_{c}_mean"] for c in CATEGORIES],
                width,
                label=row["order"],
                color=_simple_colour(row["order"]),
            )
        axis.set_xticks(range(len(CATEGORIES)), CATEGORIES)
        axis.set_yscale("log")
        axis.set_xlabel("bounded slowdown")
        axis.set_title(trace)
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel("jobs (mean over variants)")
    axes.flat[0].legend()
    figure.suptitle("Jobs per slowdown category")
    return figure
