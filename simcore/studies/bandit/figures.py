"""Figures of the online policy-selection study."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcore.engine.policies import ORDERS
from simcore.reporting.style import SEQUENTIAL_MAP, plt
from simcore.workloads.resample import WEEK

# the figures of a trace, by file name (<trace>.<name>.png/pdf)

FAMILY_GAP = 0.3  # height of the space between two families of strategies, in panel heights
TOP_ORDERS = 5  # rows of a strategy's heatmap besides "other"
OTHER = "other"


def families(strategies, learners) -> dict[str, list[str]]:
    """The strategies grouped by learner, families and members in the order given."""
    if len(learners) != len(strategies):
        raise ValueError(f"{len(learners)} learners for {len(strategies)} strategies: one learner per strategy")
    grouped: dict[str, list[str]] = {}
    for strategy, learner in zip(strategies, learners):
        grouped.setdefault(learner, []).append(strategy)
    return grouped


def weekly_choices(shares: pd.DataFrame, top: int = TOP_ORDERS) -> tuple[pd.DataFrame, list[str]]:
    """Per strategy, week (1 = the variants' first) and order: the share of the
    (variant, period) choices of that week that ran the order, daily choices
    pooled into their week. The `top` orders of largest mean weekly share over
    the strategies keep their name; the others are pooled as "other". Returns the
    shares, which sum to 1 in each strategy's week, and the rows in drawing order."""

    keys = ["strategy", "week", "order"]
    counts = shares.assign(week=(shares["start"] // WEEK).astype(int) + 1).groupby(keys)["count"].sum()
    weekly = (counts / counts.groupby(keys[:2]).transform("sum")).rename("share").reset_index()
    # ranked on weekly shares, not on counts, so that a daily strategy weighs as much as a weekly one
    totals = weekly.groupby("order")["share"].sum()
    ranked = sorted(totals.index, key=lambda order: (-totals[order], _registry_rank(order)))
    kept = sorted(ranked[:top], key=_registry_rank)
    if len(ranked) <= top:
        return weekly, kept
    pooled = weekly.assign(order=weekly["order"].where(weekly["order"].isin(kept), OTHER))
    return pooled.groupby(keys)["share"].sum().reset_index(), kept + [OTHER]


def _heatmap(axis, weekly: pd.DataFrame, rows: list[str], weeks: np.ndarray):
    """One strategy's weekly shares: `rows` top to bottom, `weeks` left to right."""
    table = weekly.pivot(index="order", columns="week", values="share")
    # an order not chosen in a week: 0; a week the strategy's variants do not reach: blank
    table = table.reindex(index=rows).fillna(0.0).reindex(columns=weeks)
    mesh = axis.pcolormesh(
        np.append(weeks, weeks[-1] + 1) - 0.5,
        np.arange(len(rows) + 1) - 0.5,
        np.ma.masked_invalid(table.to_numpy()),
        cmap=SEQUENTIAL_MAP,
        vmin=0.0,
        vmax=1.0,
    )
    axis.set_yticks(range(len(rows)), rows, fontsize=6)
    axis.invert_yaxis()
    axis.tick_params(axis="y", length=0)
    axis.spines[["left", "bottom"]].set_visible(False)
    return mesh


def _registry_rank(order: str) -> int:
    return ORDERS.index(order) if order in ORDERS else len(ORDERS)


def choices_figure(shares: pd.DataFrame, trace: str, grouped: dict[str, list[str]]):
    """The bandit paper's mosaic of choices as one heatmap per strategy: rows the
    orders chosen most (and "other"), columns the weeks, the colour the share of
    the week's (variant, period) choices that ran the order. Strategies grouped by
    learner family; heatmaps rather than stacked colours, as twelve orders are
    more than a reader tells apart by colour."""
    weekly, rows = weekly_choices(shares)
    present = set(weekly["strategy"])
    grouped = {family: [s for s in members if s in present] for family, members in grouped.items()}
    grouped = {family: members for family, members in grouped.items() if members}
    weeks = np.arange(1, int(weekly["week"].max()) + 1)
    heights = []
    for members in grouped.values():
        heights += ([FAMILY_GAP] if heights else []) + [1.0] * len(members)
    figure = plt.figure(figsize=(7.0, 0.9 + 0.1 * len(rows) * len(heights)))
    grid = figure.add_gridspec(len(heights), 1, height_ratios=heights)
    axes, row = [], 0
    for family, members in grouped.items():
        row += 1 if axes else 0  # the gap row
        for position, strategy in enumerate(members):
            axis = figure.add_subplot(grid[row], sharex=axes[0] if axes else None)
            mesh = _heatmap(axis, weekly[weekly["strategy"] == strategy], rows, weeks)
            axis.set_title(strategy, loc="left", fontsize=8, pad=2)
            if position == 0:
                axis.set_title(f"learner: {family}", loc="right", fontsize=7, pad=2)
            axes.append(axis)
            row += 1
    for axis in axes[:-1]:
        axis.tick_params(labelbottom=False)
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel("week of the resampled trace")
    figure.colorbar(mesh, ax=axes, shrink=0.3, label="share of the week's choices")
    figure.suptitle(f"{trace}: orders chosen each week (over the variants and the periods of the week)")
    return figure
