"""Figures of the online policy-selection study."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.simulation import ORDERS
from simcore.reporting.style import colours_for, plt, shared_legend
from simcore.workloads.resample import WEEK

FAMILY_GAP = 0.45  # height of the space between two families of strategies, in panel heights


def families(strategies, learners) -> dict[str, list[str]]:
    """The strategies grouped by learner, families and members in the order given."""
    if len(learners) != len(strategies):
        raise ValueError(f"{len(learners)} learners for {len(strategies)} strategies: one learner per strategy")
    grouped: dict[str, list[str]] = {}
    for strategy, learner in zip(strategies, learners):
        grouped.setdefault(learner, []).append(strategy)
    return grouped


def choices_figure(shares: pd.DataFrame, trace: str, grouped: dict[str, list[str]]):
    """The bandit paper's mosaic: per strategy, the share of the variants that
    chose each order in each period, drawn as steps (a choice holds for the
    whole period), strategies grouped by learner family."""
    colours = colours_for(ORDERS)
    present = set(shares["strategy"])
    grouped = {family: [s for s in members if s in present] for family, members in grouped.items()}
    grouped = {family: members for family, members in grouped.items() if members}
    heights = []
    for members in grouped.values():
        heights += ([FAMILY_GAP] if heights else []) + [1.0] * len(members)
    figure = plt.figure(figsize=(7.0, 0.8 + 0.55 * len(heights)))
    grid = figure.add_gridspec(len(heights), 1, height_ratios=heights, hspace=0.08)
    axes, row, end = [], 0, 0.0
    for family, members in grouped.items():
        row += 1 if axes else 0  # the gap row
        for position, strategy in enumerate(members):
            axis = figure.add_subplot(grid[row], sharex=axes[0] if axes else None)
            end = max(end, _mosaic(axis, shares[shares["strategy"] == strategy], colours))
            axis.set_ylabel(strategy, rotation=0, ha="right", va="center")
            if position == 0:
                axis.set_title(f"learner: {family}", loc="left", fontsize=8, pad=2)
            axes.append(axis)
            row += 1
    for axis in axes[:-1]:
        axis.tick_params(labelbottom=False)
    axes[-1].set_xlim(0, end)
    axes[-1].set_xlabel("week of the resampled trace")
    shared_legend(figure, axes, "order chosen", ORDERS)
    figure.suptitle(f"{trace}: order chosen in each period (share of the variants)")
    return figure


def _mosaic(axis, shares: pd.DataFrame, colours: dict) -> float:
    """One strategy's strip; returns the week its last period ends."""
    table = shares.pivot_table(index="start", columns="order", values="share", fill_value=0.0).sort_index()
    starts = table.index.to_numpy(dtype=float)
    period = np.diff(starts).min() if len(starts) > 1 else WEEK
    edges = np.append(starts, starts[-1] + period) / WEEK
    orders = [order for order in ORDERS if order in table.columns]
    axis.stackplot(
        edges,
        *(np.append(table[order].to_numpy(), table[order].iloc[-1]) for order in orders),
        labels=orders,
        colors=[colours[order] for order in orders],
        step="post",
        linewidth=0,
    )
    axis.set_ylim(0, 1)
    axis.set_yticks([0, 1])
    axis.tick_params(axis="y", labelsize=7)
    return float(edges[-1])
