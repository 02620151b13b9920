"""Figures of the running-time prediction study."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from simcore.reporting.style import PALETTE, colours_for, plain_log_ticks, plt

# the figures of a trace (<trace>.<name>.png/pdf), and of every trace (<name>.png/pdf)

ERROR_RANGE = (0.1, 99.9)  # percentiles of every predictor's errors the x axis holds


def _ecdf(axis, values, label, **style) -> None:
    ordered = np.sort(values)
    axis.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", label=label, **style)


def prediction_ecdf_figure(predictions: pd.DataFrame, trace: str, eloss: str | None, kind: str):
    """ECDF of prediction errors (prediction - actual run, kind "errors") or of
    predicted values ("values"), the prediction paper's Figures 4 and 5:
    requested times, AVE2 and the E-Loss and squared-loss regressions (at the
    E-Loss's learning rate), all as used by the scheduler (incremental, SJBF)."""
    from simcore.studies.prediction.study import SQUARED_LOSS, regression_label

    curves = [("requested time", "requested"), ("AVE2", "ave2")]
    if eloss is not None:
        rate = float(eloss.rpartition("@")[2])
        curves += [("E-Loss regression", eloss), ("squared-loss regression", regression_label(*SQUARED_LOSS, rate))]
    if kind == "values":
        curves.append(("actual run time", "run"))
    colours = colours_for([label for label, _ in curves], reference="actual run time")
    figure, axis = plt.subplots(figsize=(5.6, 3.4))
    plotted = []
    for label, column in curves:
        if column not in predictions:
            continue
        values = predictions[column].to_numpy(dtype=float)
        if kind == "errors":
            values = values - predictions["run"].to_numpy(dtype=float)
        _ecdf(axis, values, label, color=colours[label])
        plotted.append(values)
    if kind == "errors":
        # a symmetric log axis from the lowest 0.1 percentile to the highest 99.9
        # percentile of the predictors, so that every curve runs from 0.1 % to 99.9 %
        # of its jobs within the axis, and rare huge errors do not squeeze the rest
        low = min(np.percentile(values, ERROR_RANGE[0]) for values in plotted)
        high = max(np.percentile(values, ERROR_RANGE[1]) for values in plotted)
        low, high = min(low, -100.0), max(high, 100.0)
        axis.set_xscale("symlog", linthresh=100.0, linscale=1.0)
        axis.set_xlim(low, high)
        axis.set_xticks([tick for tick in (-1e6, -1e4, -1e2, 0, 1e2, 1e4, 1e6) if low <= tick <= high])
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.axvline(0.0, color="grey", linewidth=0.6)
        axis.set_xlabel("prediction error: predicted − actual run time (s)")
        axis.set_title(f"{trace}: prediction errors")
    else:
        axis.set_xscale("log")
        axis.set_xlabel("predicted run time (s)")
        axis.set_title(f"{trace}: predicted values")
    axis.set_ylim(bottom=0)
    axis.set_ylabel("fraction of jobs")
    axis.grid(alpha=0.3)
    figure.legend(loc="outside right center")
    return figure


def correlation_figure(grid: pd.DataFrame):
    """The triples' AVEbsld on every pair of traces, relative to EASY on each
    (the prediction paper's Figure 3), with Spearman's rank correlation over
    the heuristic triples (the clairvoyant ones, never selected, left out) and
    their number per pair: a rank correlation, as a few extreme triples would
    set Pearson's r."""
    from simcore.studies.prediction.study import EASY, TRIPLE

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
    figure, axes = plt.subplots(rows, columns, figsize=(3.3 * columns, 3.5 * rows), squeeze=False)
    for axis, (a, b) in zip(axes.flat, pairs):
        pair = wide[[a, b]].dropna()
        x, y = pair[a], pair[b]
        clairvoyant = pair.index.get_level_values("predictor") == "clairvoyant"
        axis.scatter(x[~clairvoyant], y[~clairvoyant], s=6, alpha=0.6, color=PALETTE[1], label="heuristic triples")
        axis.scatter(x[clairvoyant], y[clairvoyant], s=14, marker="*", color=PALETTE[5], label="clairvoyant")
        axis.set_xscale("log")
        axis.set_yscale("log")
        low, high = min(x.min(), y.min()) / 1.25, max(x.max(), y.max()) * 1.25
        axis.plot([low, high], [low, high], color="grey", linewidth=0.6, linestyle=":", label="same on both")
        axis.set_xlim(low, high)
        axis.set_ylim(low, high)
        axis.set_box_aspect(1)
        plain_log_ticks(axis.xaxis)
        plain_log_ticks(axis.yaxis)
        axis.set_xlabel(f"{a} AVEbsld / EASY")
        axis.set_ylabel(f"{b} AVEbsld / EASY")
        axis.set_title(_rank_correlation(x[~clairvoyant], y[~clairvoyant]))
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(pairs) :]:
        axis.set_visible(False)
    axes.flat[0].legend(loc="upper left")
    figure.suptitle("Heuristic triples: AVEbsld relative to EASY,\non every pair of traces")
    return figure


def _rank_correlation(x: pd.Series, y: pd.Series) -> str:
    """Spearman's rho and n, as a panel title (no rho below three triples)."""
    if len(x) < 3:
        return f"n = {len(x)} triples: too few for a correlation"
    return f"Spearman ρ = {x.corr(y, method='spearman'):.2f}, n = {len(x)} triples"
