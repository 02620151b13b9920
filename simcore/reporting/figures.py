"""What the fixed-policy and bandit studies' figures share: their runs'
(threshold, backfill) configurations and the cumulative-wait figure. The look
of every figure is `simcore.reporting.style`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.engine.policies import ORDERS
from simcore.reporting.style import (
    MIN_SUMMARISED,
    band,
    colours_for,
    duration_label,
    note_clipped,
    outlier_free_limits,
    plt,
    shared_legend,
)

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
    per (threshold, backfill) configuration, the mean as a line and, from
    `MIN_SUMMARISED` variants on, the 10th to 90th percentiles as a band. The
    shared y axis starts at −100 % (nothing waits) and is cut where outliers
    would squeeze the other curves, each cut panel saying how far its values
    go. Panels in the order of `policies` (default: the registry's order of the
    queue orders)."""
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
    variants = int(curves["variants"].min())
    with_band = variants >= MIN_SUMMARISED
    values = _draw_configurations(panels, curves, with_band)
    limits = outlier_free_limits(np.concatenate(list(values.values())), floor=-100.0)
    for name, axis in panels.items():
        axis.axhline(0, color="black", linewidth=0.6)
        axis.set_title(name, loc="left", pad=2)  # the right of the title line: how far a cut panel goes
        axis.grid(alpha=0.3)
        if name in values:
            note_clipped(axis, values[name], limits, " %")
    axes.flat[0].set_ylim(*limits)
    for index, axis in enumerate(axes.flat):
        if index >= len(names):
            axis.set_visible(False)
        elif index + columns >= len(names):  # nothing below: this panel carries the week axis
            axis.tick_params(labelbottom=True)
            axis.set_xlabel("week")
    axes.flat[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    figure.supylabel(f"change of cumulative wait vs {baseline} (%)")
    summary = (
        "mean over variants, 10th–90th percentile band"
        if with_band
        else f"mean over the {variants} variants (fewer than {MIN_SUMMARISED}: no percentile band)"
    )
    shared_legend(figure, axes.flat, f"configuration: {summary}", below=True)
    figure.suptitle(f"{trace}: cumulative waiting time against {baseline}, over {variants} variants")
    return figure


def _draw_configurations(panels: dict, curves: pd.DataFrame, with_band: bool) -> dict:
    """Each configuration's curve (in %) in the panel of its order, one colour per
    configuration; returns, per panel, the values drawn."""
    groups = configurations(curves)
    colours = colours_for(configuration_title(*key) for key, _ in groups)
    drawn = {name: [] for name in panels}
    for (threshold, backfill), block in groups:
        title = configuration_title(threshold, backfill)
        for order, line in block.groupby("order", sort=False, observed=True):
            if order not in panels:
                continue
            mean, low, high = (100 * line[column].to_numpy() for column in ("mean", "p10", "p90"))
            if with_band:
                band(panels[order], line["week"], mean, low, high, colours[title], title)
                drawn[order] += [mean, low, high]
            else:
                panels[order].plot(line["week"], mean, color=colours[title], label=title, linewidth=1.4)
                drawn[order].append(mean)
    return {name: np.concatenate(parts) for name, parts in drawn.items() if parts}
