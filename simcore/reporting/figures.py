"""What the fixed-policy and bandit studies' figures share: their runs'
(threshold, backfill) configurations and the cumulative-wait figure. The look
of every figure is `simcore.reporting.style`."""

from __future__ import annotations

import itertools

import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.engine.simulation import ORDERS
from simcore.reporting.style import DISTINCT_COLOURS, band, duration_label, plt, shared_legend

PANEL_COLUMNS = 4


def configurations(frame: pd.DataFrame):
    """(threshold, backfill) groups, no threshold first, orders in ORDERS order."""
    names = [name for name in ORDERS if name in set(frame["order"])]
    names += sorted(set(frame["order"]) - set(names))
    frame = frame.assign(order=pd.Categorical(frame["order"], categories=names, ordered=True))
    groups = frame.sort_values("order", kind="stable").groupby(["threshold", "backfill"], dropna=False, sort=True)
    return sorted(groups, key=lambda item: (not pd.isna(item[0][0]), item[0][0], item[0][1]))


def configuration_title(threshold, backfill) -> str:
    limit = "no threshold" if pd.isna(threshold) else f"threshold {duration_label(threshold)}"
    return f"EASY, {limit}, backfill: {backfill}"


def cumulative_wait_figure(curves: pd.DataFrame, trace: str, baseline: str = "EASY-FCFS", policies=None):
    """Change of cumulative waiting time against a baseline over the weeks of
    the variants, small multiples: one panel per order or strategy, one colour
    per (threshold, backfill) configuration, the mean as a line and the 10th to
    90th percentiles as a band. Panels in the order of `policies` (default:
    the registry's order of the queue orders)."""
    present = set(curves["order"])
    names = [name for name in (ORDERS if policies is None else policies) if name in present]
    names += sorted(present - set(names))
    names = [name for name in names if name != "FCFS"]  # the baseline: zero by definition
    columns = min(PANEL_COLUMNS, len(names))
    rows = -(-len(names) // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(1.9 * columns + 1.8, 1.5 * rows + 0.9), squeeze=False, sharex=True, sharey=True
    )
    panels = dict(zip(names, axes.flat))
    for colour, ((threshold, backfill), block) in zip(itertools.cycle(DISTINCT_COLOURS[1:]), configurations(curves)):
        for order, line in block.groupby("order", sort=False, observed=True):
            if order not in panels:
                continue
            band(
                panels[order],
                line["week"],
                100 * line["mean"],
                100 * line["p10"],
                100 * line["p90"],
                colour,
                configuration_title(threshold, backfill),
            )
    for name, axis in panels.items():
        axis.axhline(0, color="black", linewidth=0.6)
        axis.set_title(name, pad=2)
        axis.grid(alpha=0.3)
    for index, axis in enumerate(axes.flat):
        if index >= len(names):
            axis.set_visible(False)
        elif index + columns >= len(names):  # nothing below: this panel carries the week axis
            axis.tick_params(labelbottom=True)
            axis.set_xlabel("week")
    axes.flat[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    figure.supylabel(f"cumulative wait vs {baseline} (%)")
    shared_legend(figure, axes.flat, "configuration: mean over variants, 10th–90th percentile band", below=True)
    variants = int(curves["variants"].max())
    figure.suptitle(f"{trace}: cumulative waiting time against {baseline}, over {variants} variants")
    return figure
