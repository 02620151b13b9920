"""The figures' shared look (one matplotlib style for every study), the
atomic PNG/PDF writer, and the cumulative-wait figure that the fixed-policy
and bandit studies share. Each study draws its own figures in its
`figures.py` with these helpers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)
import pandas as pd  # noqa: E402

from simcore.engine.simulation import ORDERS  # noqa: E402
from simcore.workloads.files import atomic_write  # noqa: E402

plt.rcParams.update(
    {
        "font.size": 9,
        "axes.titlesize": 10,
        "legend.fontsize": 7,
        "figure.dpi": 150,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,
    }
)


ORDER_COLOURS = ("black",) + plt.get_cmap("tab20").colors


def configurations(frame: pd.DataFrame):
    """(threshold, backfill) groups, no threshold first, orders in ORDERS order."""
    names = [name for name in ORDERS if name in set(frame["order"])]
    names += sorted(set(frame["order"]) - set(names))
    frame = frame.assign(order=pd.Categorical(frame["order"], categories=names, ordered=True))
    groups = frame.sort_values("order", kind="stable").groupby(["threshold", "backfill"], dropna=False, sort=True)
    return sorted(groups, key=lambda item: (not pd.isna(item[0][0]), item[0][0], item[0][1]))


def configuration_title(threshold, backfill) -> str:
    limit = "no threshold" if pd.isna(threshold) else f"threshold {threshold / 3600:.4g} h"
    return f"EASY, {limit}, backfill: {backfill}"


def shared_legend(figure, axes, title: str) -> None:
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
    groups = configurations(curves)
    figure, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.4), squeeze=False, sharey=True)
    for axis, ((threshold, backfill), block) in zip(axes[0], groups):
        for order, line in block.groupby("order", sort=False):
            if order == "FCFS":
                continue
            colour = colours[order]
            axis.plot(line["week"], 100 * line["mean"], color=colour, label=order, linewidth=1.4)
            for percentile in ("p10", "p90"):
                axis.plot(line["week"], 100 * line[percentile], color=colour, linestyle="--", linewidth=0.6)
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_title(configuration_title(threshold, backfill))
        axis.set_xlabel("week of the resampled trace")
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"cumulative wait vs {baseline} (%)")
    variants = int(curves["variants"].max())
    shared_legend(figure, axes.ravel(), "policy")
    figure.suptitle(
        f"{trace}: cumulative waiting time against {baseline} "
        f"(mean, dashed 10th/90th percentiles over {variants} variants)"
    )
    return figure
