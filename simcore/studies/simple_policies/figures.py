"""Figures of the simple-policies study (the thesis's chapter 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.engine.policies import ORDERS
from simcore.reporting.style import MIN_SUMMARISED, band, colours_for, distribution, plain_log_ticks, plt

# the figures of a trace (<trace>.<name>.png/pdf), and of every trace (<name>.png/pdf)

OBJECTIVE_LABELS = {
    "bsld": "average bounded slowdown",
    "wait": "average waiting time (h)",
    "ppbsld": "average pp-bounded slowdown",
}


def order_colours(orders) -> dict:
    """The same colour for an order in every figure of the study, FCFS (the baseline) black."""
    present = set(orders)
    return colours_for([order for order in ORDERS if order in present], reference="FCFS")


def simple_objectives_figure(curves: pd.DataFrame, trace: str, variants: int):
    """The thesis's Figure 4.1 for one trace: cumulative weekly mean of each
    objective: mean over the `variants` variants (line) and, from
    `MIN_SUMMARISED` variants on, their 10th to 90th percentiles (band)."""
    colours = order_colours(curves["order"])
    figure, axes = plt.subplots(1, 3, figsize=(10.0, 3.0))
    for axis, objective in zip(axes, ("bsld", "wait", "ppbsld")):
        scale = 1 / 3600 if objective == "wait" else 1.0
        for order, part in curves.groupby("order", sort=False):
            low, mean, high = (part[f"{objective}_{column}"] * scale for column in ("p10", "mean", "p90"))
            if variants >= MIN_SUMMARISED:
                band(axis, part["week"], mean, low, high, colours[order], order)
            else:
                axis.plot(part["week"], mean, color=colours[order], label=order, linewidth=1.4)
        axis.set_xlabel("week")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylabel(OBJECTIVE_LABELS[objective])
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
    summary = "mean, 10th–90th percentile band" if variants >= MIN_SUMMARISED else "mean (too few for a band)"
    axes[0].legend(title="queue order")
    figure.suptitle(
        f"{trace}: cumulative weekly means (EASY, threshold, aggressive backfilling), "
        f"over {variants} variants: {summary}"
    )
    return figure


def _per_trace_distributions(frame: pd.DataFrame, column: str, ylabel: str, title: str, log: bool = False):
    traces = list(dict.fromkeys(frame["trace"]))
    colours = order_colours(frame["order"])
    # at least wide enough for the title when there is one trace
    figure, axes = plt.subplots(1, len(traces), figsize=(max(2.4 * len(traces), 4.4), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = frame[frame["trace"] == trace]
        orders = [order for order in colours if order in set(part["order"])]
        distribution(axis, [part.loc[part["order"] == order, column] for order in orders], orders, colours)
        axis.set_title(trace)
        if log:
            axis.set_yscale("log")
            plain_log_ticks(axis.yaxis)
        else:
            axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel(ylabel)
    figure.suptitle(title)
    return figure


def simple_delayed_figure(delayed: pd.DataFrame):
    """The thesis's Figure 4.2: processors of the 100 jobs of highest slowdown."""
    return _per_trace_distributions(
        delayed, "procs", "processors", "Processors of the 100 most delayed jobs per variant", log=True
    )


def simple_backfilled_figure(runs: pd.DataFrame):
    """The thesis's Figure 4.4: backfilled jobs per variant."""
    return _per_trace_distributions(runs, "backfilled", "backfilled jobs", "Backfilled jobs per variant")


def simple_categories_figure(summary: pd.DataFrame):
    """The thesis's Figure 4.3: mean number of jobs per slowdown category, bars from zero."""
    from simcore.studies.simple_policies.study import CATEGORIES

    traces = list(dict.fromkeys(summary["trace"]))
    colours = order_colours(summary["order"])
    figure, axes = plt.subplots(1, len(traces), figsize=(max(2.6 * len(traces), 4.4), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = summary[summary["trace"] == trace].set_index("order")
        orders = [order for order in colours if order in part.index]
        width = 0.8 / max(len(orders), 1)
        for k, order in enumerate(orders):
            positions = np.arange(len(CATEGORIES)) + (k - (len(orders) - 1) / 2) * width
            axis.bar(
                positions,
                [part.loc[order, f"bsld_{c}_mean"] for c in CATEGORIES],
                width,
                label=order,
                color=colours[order],
            )
        axis.set_xticks(range(len(CATEGORIES)), CATEGORIES)
        axis.set_xlabel("bounded slowdown")
        axis.set_title(trace)
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel("jobs (mean over variants)")
    axes.flat[0].legend()
    figure.suptitle("Jobs per slowdown category")
    return figure
