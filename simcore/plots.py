"""Paper-ready figures of the campaign's studies (matplotlib, PNG + PDF)."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

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


def _ecdf(axis, values, label, **style) -> None:
    ordered = np.sort(values)
    axis.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", label=label, **style)


def prediction_ecdf_figure(predictions: pd.DataFrame, trace: str, eloss: str | None, kind: str):
    """ECDF of prediction errors (prediction - actual run, kind "errors") or of
    predicted values ("values"), the prediction paper's Figures 4 and 5:
    requested times, AVE2 and the E-Loss and squared-loss regressions (at the
    E-Loss's learning rate), all as used by the scheduler (incremental, SJBF)."""
    from simcore.prediction import SQUARED_LOSS, regression_label
    curves = [("requested time", "requested"), ("AVE2", "ave2")]
    if eloss is not None:
        rate = float(eloss.rpartition("@")[2])
        curves += [("E-Loss regression", eloss), ("squared-loss regression", regression_label(*SQUARED_LOSS, rate))]
    if kind == "values":
        curves.append(("actual run time", "run"))
    figure, axis = plt.subplots(figsize=(5.0, 3.4))
    plotted = []
    for (label, column), colour in zip(curves, ("tab:blue", "tab:green", "tab:red", "tab:purple", "black")):
        if column not in predictions:
            continue
        values = predictions[column].to_numpy(dtype=float)
        if kind == "errors":
            values = values - predictions["run"].to_numpy(dtype=float)
        _ecdf(axis, values, label, color=colour)
        plotted.append(values)
    if kind == "errors":
        # a symmetric log axis, cut at the 0.1 and 99.9 percentiles so that rare huge
        # requests do not squeeze the body of the distributions
        low, high = np.percentile(np.concatenate(plotted), [0.1, 99.9])
        axis.set_xscale("symlog", linthresh=100.0, linscale=1.0)
        axis.set_xlim(min(low, -100.0), max(high, 100.0))
        axis.set_xticks([tick for tick in (-1e6, -1e4, -1e2, 0, 1e2, 1e4, 1e6)
                         if min(low, -100.0) <= tick <= max(high, 100.0)])
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.axvline(0.0, color="grey", linewidth=0.6)
        axis.set_xlabel("prediction error: predicted − actual run time (s)")
        axis.set_title(f"{trace}: prediction errors")
    else:
        axis.set_xscale("log")
        axis.set_xlabel("predicted run time (s)")
        axis.set_title(f"{trace}: predicted values")
    axis.set_ylabel("fraction of jobs")
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right")
    return figure


def correlation_figure(grid: pd.DataFrame):
    """The triples' AVEbsld on every pair of traces, relative to EASY on each
    (the prediction paper's Figure 3), with Pearson's r per pair."""
    from simcore.prediction import EASY, TRIPLE
    traces = list(dict.fromkeys(grid["trace"]))
    easy = grid[(grid[TRIPLE] == list(EASY)).all(axis=1)].set_index("trace")["avg_bsld"]
    relative = grid.assign(relative=grid["avg_bsld"] / grid["trace"].map(easy))
    wide = relative.pivot_table(index=TRIPLE, columns="trace", values="relative", sort=False)
    pairs = list(itertools.combinations(traces, 2))
    if not pairs:
        figure, axis = plt.subplots(figsize=(4.0, 1.5))
        axis.text(0.5, 0.5, f"{traces[0]} only: the correlation needs two traces", ha="center", va="center")
        axis.set_axis_off()
        return figure
    columns = min(len(pairs), 4)
    rows = -(-len(pairs) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(2.6 * columns, 2.5 * rows), squeeze=False)
    for axis, (a, b) in zip(axes.flat, pairs):
        pair = wide[[a, b]].dropna()
        x, y = pair[a], pair[b]
        clairvoyant = pair.index.get_level_values("predictor") == "clairvoyant"
        axis.scatter(x[~clairvoyant], y[~clairvoyant], s=6, alpha=0.6, color="tab:blue", label="triples")
        axis.scatter(x[clairvoyant], y[clairvoyant], s=14, marker="*", color="tab:red", label="clairvoyant")
        axis.set_xscale("log")
        axis.set_yscale("log")
        for scaled in (axis.xaxis, axis.yaxis):
            scaled.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            scaled.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            scaled.set_minor_formatter(NullFormatter())
        axis.set_xlabel(f"{a} AVEbsld / EASY")
        axis.set_ylabel(f"{b} AVEbsld / EASY")
        if len(pair) > 2:
            axis.set_title(f"Pearson r = {x.corr(y):.2f}")
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(pairs):]:
        axis.set_visible(False)
    axes.flat[0].legend(loc="upper left")
    figure.suptitle("Heuristic triples: AVEbsld relative to EASY, between traces")
    figure.tight_layout()
    return figure


SIMPLE_COLOURS = {"FCFS": "black", "SPF": "tab:blue", "SQF": "tab:green", "SAF": "tab:red"}
OBJECTIVE_LABELS = {"bsld": "average bounded slowdown", "wait": "average waiting time (h)",
                    "ppbsld": "average pp-bounded slowdown"}


def _simple_colour(order: str) -> str:
    return SIMPLE_COLOURS.get(order, "tab:purple")


def simple_objectives_figure(curves: pd.DataFrame, trace: str):
    """The thesis's Figure 4.1 for one trace: cumulative weekly mean of each
    objective, mean over variants (solid) and 10th/90th percentiles (dashed)."""
    figure, axes = plt.subplots(1, 3, figsize=(10.0, 3.0))
    for axis, objective in zip(axes, ("bsld", "wait", "ppbsld")):
        scale = 1 / 3600 if objective == "wait" else 1.0
        for order, part in curves.groupby("order", sort=False):
            colour = _simple_colour(order)
            axis.plot(part["week"], part[f"{objective}_mean"] * scale, color=colour, label=order)
            for band in ("p10", "p90"):
                axis.plot(part["week"], part[f"{objective}_{band}"] * scale, color=colour, linestyle="--",
                          linewidth=0.6)
        axis.set_xlabel("week")
        axis.set_ylabel(OBJECTIVE_LABELS[objective])
        axis.grid(alpha=0.3)
    axes[0].legend(title="queue order")
    figure.suptitle(f"{trace}: cumulative weekly means (EASY, threshold, aggressive backfilling)")
    figure.tight_layout()
    return figure


def _per_trace_boxes(frame: pd.DataFrame, column: str, ylabel: str, title: str, log: bool = False):
    traces = list(dict.fromkeys(frame["trace"]))
    figure, axes = plt.subplots(1, len(traces), figsize=(2.4 * len(traces), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = frame[frame["trace"] == trace]
        orders = list(dict.fromkeys(part["order"]))
        boxes = axis.boxplot([part.loc[part["order"] == order, column] for order in orders], showfliers=False,
                             patch_artist=True)
        for patch, order in zip(boxes["boxes"], orders):
            patch.set_facecolor(_simple_colour(order))
            patch.set_alpha(0.35)
        axis.set_xticks(range(1, len(orders) + 1), orders)
        axis.set_title(trace)
        if log:
            axis.set_yscale("log")
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel(ylabel)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def simple_delayed_figure(delayed: pd.DataFrame):
    """The thesis's Figure 4.2: processors of the 100 jobs of highest slowdown."""
    return _per_trace_boxes(delayed, "procs", "processors", "Processors of the 100 most delayed jobs per variant",
                            log=True)


def simple_backfilled_figure(runs: pd.DataFrame):
    """The thesis's Figure 4.4: backfilled jobs per variant."""
    return _per_trace_boxes(runs, "backfilled", "backfilled jobs", "Backfilled jobs per variant")


def simple_categories_figure(summary: pd.DataFrame):
    """The thesis's Figure 4.3: mean number of jobs per slowdown category."""
    from simcore.simple_policies import CATEGORIES
    traces = list(dict.fromkeys(summary["trace"]))
    figure, axes = plt.subplots(1, len(traces), figsize=(2.6 * len(traces), 2.8), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = summary[summary["trace"] == trace]
        width = 0.8 / max(len(part), 1)
        for k, (_, row) in enumerate(part.iterrows()):
            positions = np.arange(len(CATEGORIES)) + (k - (len(part) - 1) / 2) * width
            axis.bar(positions, [row[f"bsld_{c}_mean"] for c in CATEGORIES], width, label=row["order"],
                     color=_simple_colour(row["order"]))
        axis.set_xticks(range(len(CATEGORIES)), CATEGORIES)
        axis.set_yscale("log")
        axis.set_xlabel("bounded slowdown")
        axis.set_title(trace)
        axis.grid(alpha=0.3, axis="y")
    axes.flat[0].set_ylabel("jobs (mean over variants)")
    axes.flat[0].legend()
    figure.suptitle("Jobs per slowdown category")
    figure.tight_layout()
    return figure


def trial_scores_figure(scores: pd.DataFrame, spread: pd.DataFrame):
    """The thesis's Figure 3.1: the trial-score distributions of two tuples
    (jobs sorted by score, the mean 1/|Q| dashed) and the score spread
    against the number of trials."""
    figure, axes = plt.subplots(1, 3, figsize=(10.0, 3.0))
    for axis, (number, part) in zip(axes[:2], list(scores.groupby("tuple", sort=True))[:2]):
        ordered = np.sort(part["score"].to_numpy())
        axis.bar(np.arange(1, len(ordered) + 1), ordered, color="tab:blue")
        axis.axhline(1.0 / len(ordered), color="black", linestyle="--", linewidth=0.8)
        axis.set_ylim(ordered.min() * 0.98, ordered.max() * 1.02)
        axis.set_xlabel("jobs of Q, by score")
        axis.set_ylabel("trial score")
        axis.set_title(f"tuple {number}")
    axes[2].plot(spread["trials"], spread["normalized_std"], marker="o", color="tab:red")
    axes[2].set_xscale("log")
    axes[2].set_xlabel("trials")
    axes[2].set_ylabel("std of the score × |Q|")
    axes[2].set_title("estimation accuracy")
    for axis in axes:
        axis.grid(alpha=0.3)
    figure.suptitle("Trial score distributions (|S| = 16, |Q| = 32)")
    figure.tight_layout()
    return figure


def dynamic_boxplot_figure(runs: pd.DataFrame, setting: str):
    """The thesis's Figures 3.3-3.6: per trace, a box per policy of the AVEbsld
    of its sequences (median line, quartile box, whiskers at 1.5 IQR)."""
    from simcore.dynamic_scheduling import SETTING_TITLES
    traces = list(dict.fromkeys(runs["trace"]))
    policies = list(dict.fromkeys(runs["policy"]))
    columns = min(3, len(traces))
    rows = -(-len(traces) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 2.9 * rows), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = runs[runs["trace"] == trace]
        values = [part.loc[part["policy"] == policy, "avg_bsld"].to_numpy() for policy in policies]
        axis.boxplot(values, tick_labels=policies, widths=0.6, flierprops={"markersize": 2})
        axis.set_yscale("log")
        axis.set_title(f"{trace} ({part['sequence'].nunique()} sequences)")
        axis.set_ylabel("AVEbsld per sequence")
        axis.tick_params(axis="x", labelrotation=60)
        axis.grid(alpha=0.3, axis="y")
    for axis in list(axes.flat)[len(traces):]:
        axis.set_visible(False)
    figure.suptitle(f"Dynamic scheduling experiments, {SETTING_TITLES[setting]}")
    figure.tight_layout()
    return figure
