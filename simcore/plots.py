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


# Distinct colours for up to 21 curves (orders or strategies), and one per order for the mosaic.
ORDER_COLOURS = ("black",) + plt.get_cmap("tab20").colors
MOSAIC_COLOURS = plt.get_cmap("Paired").colors


def _configurations(frame: pd.DataFrame):
    """(threshold, backfill) groups, no threshold first, orders in ORDERS order."""
    names = [name for name in ORDERS if name in set(frame["order"])]
    names += sorted(set(frame["order"]) - set(names))
    frame = frame.assign(order=pd.Categorical(frame["order"], categories=names, ordered=True))
    groups = frame.sort_values("order", kind="stable").groupby(["threshold", "backfill"], dropna=False, sort=True)
    return sorted(groups, key=lambda item: (not pd.isna(item[0][0]), item[0][0], item[0][1]))


def _title(threshold, backfill) -> str:
    limit = "no threshold" if pd.isna(threshold) else f"threshold {threshold / 3600:.4g} h"
    return f"EASY, {limit}, backfill: {backfill}"


def _legend(figure, axes, title: str) -> None:
    """One legend for every panel, right of the figure, each label once."""
    labelled = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    figure.legend(labelled.values(), labelled.keys(), loc="center left", bbox_to_anchor=(1.0, 0.5), title=title)


def save(figure, paths) -> None:
    for path in paths:
        with atomic_write(path) as tmp:
            figure.savefig(tmp, format=str(path).rsplit(".", 1)[-1])
    plt.close(figure)


def cumulative_wait_figure(curves: pd.DataFrame, trace: str, baseline: str = "EASY-FCFS"):
    """Change of cumulative waiting time against a baseline over the weeks of
    the variants: mean line and dashed 10th/90th percentiles, one colour per
    order or strategy."""
    names = [name for name in ORDERS if name in set(curves["order"])]
    names += sorted(set(curves["order"]) - set(names))
    colours = {name: ORDER_COLOURS[index % len(ORDER_COLOURS)] for index, name in enumerate(names)}
    groups = _configurations(curves)
    figure, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.4), squeeze=False,
                                sharey=True)
    for axis, ((threshold, backfill), block) in zip(axes[0], groups):
        for order, line in block.groupby("order", sort=False):
            if order == "FCFS":
                continue
            colour = colours[order]
            axis.plot(line["week"], 100 * line["mean"], color=colour, label=order, linewidth=1.4)
            for percentile in ("p10", "p90"):
                axis.plot(line["week"], 100 * line[percentile], color=colour, linestyle="--", linewidth=0.6)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_title(_title(threshold, backfill))
        axis.set_xlabel("week of the resampled trace")
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"cumulative wait vs {baseline} (%)")
    variants = int(curves["variants"].max())
    _legend(figure, axes.ravel(), "policy")
    figure.suptitle(f"{trace}: cumulative waiting time against {baseline} "
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


def choices_figure(shares: pd.DataFrame, trace: str):
    """Share of the variants choosing each order over time, per strategy (the
    bandit paper's "mosaic")."""
    strategies = list(dict.fromkeys(shares["strategy"]))
    figure, axes = plt.subplots(len(strategies), 1, figsize=(7.0, 0.9 + 1.1 * len(strategies)), squeeze=False,
                                sharex=True)
    colours = dict(zip(ORDERS, MOSAIC_COLOURS))
    for axis, strategy in zip(axes[:, 0], strategies):
        table = (shares[shares["strategy"] == strategy].pivot_table(index="start", columns="order", values="share",
                                                                  fill_value=0.0))
        orders = [order for order in ORDERS if order in table.columns]
        axis.stackplot(table.index / 604800.0, *(table[order] for order in orders), labels=orders,
                       colors=[colours[order] for order in orders], linewidth=0)
        axis.set_ylim(0, 1)
        axis.set_yticks([0, 0.5, 1])
        axis.set_ylabel(strategy, rotation=0, ha="right", va="center")
    _legend(figure, axes[:1, 0], "order chosen")
    axes[-1, 0].set_xlabel("week of the resampled trace")
    figure.suptitle(f"{trace}: orders chosen per period (share of variants)")
    figure.tight_layout()
    return figure
