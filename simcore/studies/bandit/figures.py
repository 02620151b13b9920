"""Figures of the online policy-selection study."""

from __future__ import annotations

import pandas as pd

from simcore.engine.simulation import ORDERS
from simcore.reporting.figures import plt, shared_legend

MOSAIC_COLOURS = plt.get_cmap("Paired").colors


def choices_figure(shares: pd.DataFrame, trace: str):
    """Share of the variants choosing each order over time, per strategy (the
    bandit paper's "mosaic")."""
    strategies = list(dict.fromkeys(shares["strategy"]))
    figure, axes = plt.subplots(
        len(strategies), 1, figsize=(7.0, 0.9 + 1.1 * len(strategies)), squeeze=False, sharex=True
    )
    colours = dict(zip(ORDERS, MOSAIC_COLOURS))
    for axis, strategy in zip(axes[:, 0], strategies):
        table = shares[shares["strategy"] == strategy].pivot_table(
            index="start", columns="order", values="share", fill_value=0.0
        )
        orders = [order for order in ORDERS if order in table.columns]
        axis.stackplot(
            table.index / 604800.0,
            *(table[order] for order in orders),
            labels=orders,
            colors=[colours[order] for order in orders],
            linewidth=0,
        )
        axis.set_ylim(0, 1)
        axis.set_yticks([0, 0.5, 1])
        axis.set_ylabel(strategy, rotation=0, ha="right", va="center")
    shared_legend(figure, axes[:1, 0], "order chosen")
    axes[-1, 0].set_xlabel("week of the resampled trace")
    figure.suptitle(f"{trace}: orders chosen per period (share of variants)")
    figure.tight_layout()
    return figure
