"""Figures of the simple-policies study (the thesis's chapter 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.engine.policies import ORDERS
from simcore.reporting.style import MIN_SUMMARISED, band, colours_for, distribution, plain_log_ticks, plt
from simcore.studies.simple_policies.report import prepared, row_label

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
        f"{row_label(trace)}: cumulative weekly means (EASY, threshold, aggressive backfilling), "
        f"over {variants} variants: {summary}"
    )
    return figure


def _trace_panels(traces, panel_width: float, ylabel: str):
    """A panel per trace: a row per preparation (the text's, then each conversion), a column per log,
    each row's first panel labelled `ylabel`. Returns (figure, {trace: its axis})."""
    logs = list(dict.fromkeys(prepared(trace)[0] for trace in traces))
    rows = list(dict.fromkeys(prepared(trace)[1] for trace in traces))
    # at least wide enough for the title when there is one trace
    figure, axes = plt.subplots(
        len(rows), len(logs), figsize=(max(panel_width * len(logs), 4.4), 2.8 * len(rows)), squeeze=False
    )
    placed = {trace: axes[rows.index(prepared(trace)[1]), logs.index(prepared(trace)[0])] for trace in traces}
    for axis in axes.flat:
        axis.set_visible(any(axis is used for used in placed.values()))
    for trace, axis in placed.items():
        axis.set_title(row_label(trace))
    for row in axes:
        next(axis for axis in row if axis.get_visible()).set_ylabel(ylabel)
    return figure, placed


def _per_trace_distributions(frame: pd.DataFrame, column: str, ylabel: str, title: str, log: bool = False):
    colours = order_colours(frame["order"])
    figure, panels = _trace_panels(list(dict.fromkeys(frame["trace"])), 2.4, ylabel)
    for trace, axis in panels.items():
        part = frame[frame["trace"] == trace]
        orders = [order for order in colours if order in set(part["order"])]
        distribution(axis, [part.loc[part["order"] == order, column] for order in orders], orders, colours)
        if log:
            axis.set_yscale("log")
            plain_log_ticks(axis.yaxis)
        else:
            axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3, axis="y")
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

    colours = order_colours(summary["order"])
    figure, panels = _trace_panels(list(dict.fromkeys(summary["trace"])), 2.6, "jobs (mean over variants)")
    for trace, axis in panels.items():
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
        axis.grid(alpha=0.3, axis="y")
    next(iter(panels.values())).legend()
    figure.suptitle("Jobs per slowdown category")
    return figure
