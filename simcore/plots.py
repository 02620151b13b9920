"""Paper-ready figures of the fixed-policy study (matplotlib, PNG + PDF)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)
import pandas as pd  # noqa: E402

from simcore.output import atomic_write  # noqa: E402
from simcore.simulation import ORDERS  # noqa: E402

plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "legend.fontsize": 7, "figure.dpi": 150,
                     "savefig.bbox": "tight", "pdf.fonttype": 42})


# One distinct colour per non-FCFS order of simcore.ORDERS (tab10 plus black).
ORDER_COLOURS = ("black",) + plt.get_cmap("tab10").colors


def _configurations(frame: pd.DataFrame):
    """(threshold, backfill) groups, no threshold first, orders in ORDERS order."""
    frame = frame.assign(order=pd.Categorical(frame["order"], categories=ORDERS, ordered=True))
    groups = frame.sort_values("order", kind="stable").groupby(["threshold", "backfill"], dropna=False, sort=True)
    return sorted(groups, key=lambda item: (not pd.isna(item[0][0]), item[0][0], item[0][1]))


def _title(threshold, backfill) -> str:
    limit = "no threshold" if pd.isna(threshold) else f"threshold {threshold / 3600:g} h"
    return f"EASY, {limit}, backfill: {backfill}"


def save(figure, paths) -> None:
    for path in paths:
        with atomic_write(path) as tmp:
            figure.savefig(tmp, format=str(path).rsplit(".", 1)[-1])
    plt.close(figure)


def cumulative_wait_figure(curves: pd.DataFrame, trace: str):
    """Change of cumulative waiting time against EASY-FCFS over the weeks of
    the variants: mean line and dashed 10th/90th percentiles, one colour per order."""
    groups = _configurations(curves)
    figure, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.4), squeeze=False,
                                sharey=True)
    for axis, ((threshold, backfill), block) in zip(axes[0], groups):
        for order, line in block.groupby("order", sort=False):
            if order == "FCFS":
                continue
            colour = ORDER_COLOURS[ORDERS.index(order) % len(ORDER_COLOURS)]
            axis.plot(line["week"], 100 * line["mean"], color=colour, label=order, linewidth=1.4)
            for percentile in ("p10", "p90"):
                axis.plot(line["week"], 100 * line[percentile], color=colour, linestyle="--", linewidth=0.6)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_title(_title(threshold, backfill))
        axis.set_xlabel("week of the resampled trace")
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel("cumulative wait vs EASY-FCFS (%)")
    variants = int(curves["variants"].max())
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), title="order")
    figure.suptitle(f"{trace}: cumulative waiting time against FCFS "
                    f"(mean, dashed 10th/90th percentiles over {variants} variants)")
    return figure


def bsld_figure(runs: pd.DataFrame, trace: str):
    """Distribution over variants of AVEbsld per order (box plots)."""
    groups = _configurations(runs)
    figure, axes = plt.subplots(len(groups), 1, figsize=(7.0, 2.8 * len(groups)), squeeze=False)
    for axis, ((threshold, backfill), block) in zip(axes[:, 0], groups):
        orders = [order for order in ORDERS if order in set(block["order"])]
        axis.boxplot([block.loc[block["order"] == order, "avg_bsld"] for order in orders],
                     tick_labels=orders, showfliers=True, flierprops={"markersize": 2})
        axis.set_yscale("log")
        axis.set_ylabel("AVEbsld (τ = 10 s)")
        axis.set_title(_title(threshold, backfill))
        axis.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xlabel("queue order")
    figure.suptitle(f"{trace}: average bounded slowdown across {runs['variant'].nunique()} variants")
    figure.tight_layout()
    return figure
