"""Figures of the fixed-policy study (the bandit paper's Table 2 experiment)."""

from __future__ import annotations

import pandas as pd

from simcore.engine.policies import ORDERS
from simcore.reporting.figures import configuration_title, configurations
from simcore.reporting.style import distribution, plain_log_ticks, plt

# the figures of a trace, by file name (<trace>.<name>.png/pdf)


def bsld_figure(runs: pd.DataFrame, trace: str):
    """Distribution over variants of AVEbsld per order (boxes, or the variants'
    values when there are too few for a box)."""
    groups = configurations(runs)
    figure, axes = plt.subplots(len(groups), 1, figsize=(7.0, 2.8 * len(groups)), squeeze=False)
    for axis, ((threshold, backfill), block) in zip(axes[:, 0], groups):
        orders = [order for order in ORDERS if order in set(block["order"])]
        distribution(axis, [block.loc[block["order"] == order, "avg_bsld"] for order in orders], orders)
        axis.set_yscale("log")
        plain_log_ticks(axis.yaxis)
        axis.set_ylabel("AVEbsld (τ = 10 s)")
        axis.set_title(configuration_title(threshold, backfill))
        axis.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xlabel("queue order")
    figure.suptitle(f"{trace}: average bounded slowdown across {runs['variant'].nunique()} variants")
    return figure
