"""Figures of the co-scheduling study: ratios to SPACE against load with percentile bars, both
utilisations with their ceilings, the ECDF of the sharing slowdown, the learner's expert weights
over rounds and its action histograms. One trace a figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, MaxNLocator

from simcore.reporting.style import PALETTE, plt, shared_legend
from simcore.studies.coscheduling.sharing import EXPERTS
from simcore.studies.coscheduling.study import CEILINGS, SLOWDOWN_QUANTILES

# one colour, marker and line style per configuration, SPACE black, the same in every figure: lines
# that coincide stay told apart by their markers and dashes
# (the shared colour-blind-safe palette: black, blue, orange, reddish purple, green, vermillion, sky
# blue, yellow)
STRATEGY_COLOURS = {"SPACE": PALETTE[0], "STATIC": PALETTE[2], "ASAX": PALETTE[1], "HEADROOM": PALETTE[4]}
EXTRA_COLOURS = (PALETTE[3], PALETTE[5], PALETTE[6], PALETTE[7])
MARKERS = {"SPACE": "s", "STATIC": "^", "ASAX": "o", "HEADROOM": "D"}
EXTRA_MARKERS = ("v", "P", "X", "<", ">", "h", "*")
LINESTYLES = {"SPACE": "-", "STATIC": "--", "ASAX": "-", "HEADROOM": ":"}
EXTRA_LINESTYLES = ("-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)))
EXPERT_COLOURS = dict(zip(EXPERTS, (PALETTE[5], PALETTE[3], PALETTE[4], PALETTE[1])))
RATIO_PANELS = {
    "E1": (("mean_wait", "mean wait"), ("mean_response", "mean response"), ("makespan", "makespan")),
    # a replay's makespan is the trace's span: its ratio is 1 whatever the strategy, so no panel
    "E2": (("mean_wait", "mean wait"), ("mean_response", "mean response")),
}
EXPERIMENT_TITLES = {"E1": "E1, queue flush: cluster load", "E2": "E2, online replay: offered load"}
UTILISATION_PANELS = (
    ("allocation_utilisation", "U_alloc (the paper's):\nCPU used / CPU allocated, mean over jobs"),
    ("held_utilisation", "U_held:\nCPU used / processor time held"),
)
DODGE = 0.025  # the x offset between configurations' percentile bars, as a share of the x range

# the figures of a trace, by file name (<trace>.<name>.png/pdf)


def configuration_styles(names) -> dict:
    """{name: dict(color, marker, linestyle)}: fixed for the four strategies, distinct for the rest."""
    extra = iter(range(len(EXTRA_COLOURS) * len(EXTRA_MARKERS)))  # distinct (colour, marker) pairs
    styles = {}
    for name in names:
        if name in STRATEGY_COLOURS:
            styles[name] = {"color": STRATEGY_COLOURS[name], "marker": MARKERS[name], "linestyle": LINESTYLES[name]}
        else:
            index = next(extra)
            styles[name] = {
                "color": EXTRA_COLOURS[index % len(EXTRA_COLOURS)],
                "marker": EXTRA_MARKERS[index % len(EXTRA_MARKERS)],
                "linestyle": EXTRA_LINESTYLES[index % len(EXTRA_LINESTYLES)],
            }
    return styles


def merged_names(block: pd.DataFrame, columns) -> dict:
    """{kept name: legend label}: configurations whose plotted values are all identical are drawn
    once, labelled "A = B"."""
    kept = {}
    for name, part in block.groupby("configuration", sort=False):
        values = part.sort_values("load", kind="stable")[list(columns)].to_numpy()
        for other in kept:
            if np.array_equal(values, kept[other][1], equal_nan=True):
                kept[other][0].append(name)
                break
        else:
            kept[name] = ([name], values)
    return {name: " = ".join(names) for name, (names, _) in kept.items()}


def _lowest_kappa(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows at the lowest κ, without the ablations (the report's ablation table shows them)."""
    if "ablation" in frame:
        frame = frame[~frame["ablation"].astype(bool)]
    return frame[frame["kappa"] == frame["kappa"].min()]


def _dodged(axis, loads, index: int, count: int) -> np.ndarray:
    span = (max(loads) - min(loads)) or 1.0
    return np.asarray(loads, dtype=float) + (index - (count - 1) / 2) * DODGE * span


# a published value: a hollow marker of the shape of the configuration it compares with
PAPER_HANDLE = plt.Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color="grey", mew=1.5)


def _paper_marker(axis, load, value, style):
    axis.plot(
        load,
        value,
        linestyle="",
        marker=style["marker"],
        markersize=9,
        markerfacecolor="none",
        markeredgecolor=style["color"],
        markeredgewidth=1.5,
    )


def _line_with_percentiles(axis, line, column, label, style, index, count, scale=1.0):
    """The mean as a line with markers; the 10th-90th percentiles as a bar at each load, dodged so
    that configurations never hide each other's bars."""
    x = _dodged(axis, line["load"], index, count)
    mean = scale * line[column].to_numpy()
    axis.plot(x, mean, label=label, markersize=5, **style)
    low, high = scale * line[f"{column}_p10"].to_numpy(), scale * line[f"{column}_p90"].to_numpy()
    # drawn from the percentiles themselves: a mean of ratios can lie outside its 10th-90th range
    axis.vlines(x, low, high, color=style["color"], linewidth=0.8)
    axis.plot(np.concatenate([x, x]), np.concatenate([low, high]), linestyle="", marker="_", color=style["color"])


def ratio_figure(summary: pd.DataFrame, trace: str, experiment: str, published: dict | None = None):
    """Wait and response (and makespan, E1) over SPACE's against load: mean line per configuration
    (κ = its lowest value) with its 10th-90th percentile bars; the paper's ratios (E1, beside our
    κ = 0 runs) as hollow markers of the configuration's shape."""
    block = _lowest_kappa(summary[(summary["trace"] == trace) & (summary["experiment"] == experiment)])
    block = block[block["configuration"] != "SPACE"].sort_values("load", kind="stable")
    panels = RATIO_PANELS[experiment]
    labels = merged_names(block, [f"{metric}_ratio{part}" for metric, _ in panels for part in ("", "_p10", "_p90")])
    styles = configuration_styles(block["configuration"].unique())
    figure, axes = plt.subplots(1, len(panels), figsize=(3.5 * len(panels), 3.3), sharey=True)
    for axis, (metric, title) in zip(axes, panels):
        for index, name in enumerate(labels):
            line = block[block["configuration"] == name]
            _line_with_percentiles(axis, line, f"{metric}_ratio", labels[name], styles[name], index, len(labels))
        for (name, load), values in (published or {}).items():
            if metric in values and name in styles:
                _paper_marker(axis, load, values[metric], styles[name])
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_title(f"{title} / SPACE")
        axis.set_xlabel(EXPERIMENT_TITLES[experiment])
        axis.set_xticks(sorted(block["load"].unique()))
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("ratio to SPACE (bars: 10th-90th percentile)")
    handles, names = axes[0].get_legend_handles_labels()
    kappa = block["kappa"].min() if len(block) else 0.0
    if published:
        handles.append(PAPER_HANDLE)
        names.append(f"paper, Table 3 (hollow; beside our κ = {kappa:g})")
    figure.legend(handles, names, loc="outside right center", title="configuration")
    figure.suptitle(f"{trace}, {experiment}: sharing against space sharing (κ = {kappa:g})")
    return figure


def utilisation_figure(summary: pd.DataFrame, trace: str, published: dict | None = None):
    """Both utilisations against load, one row per experiment, one column per utilisation: a line
    per configuration (κ = its lowest value) with 10th-90th percentile bars, and each metric's
    analytic ceiling over SPACE (grey, dashed); the paper's Table 2 utilisations (job-weighted, E1) hollow."""
    block = _lowest_kappa(summary[summary["trace"] == trace]).sort_values("load", kind="stable")
    experiments = [e for e in EXPERIMENT_TITLES if (block["experiment"] == e).any()]
    styles = configuration_styles(block["configuration"].unique())
    figure, axes = plt.subplots(
        len(experiments), len(UTILISATION_PANELS), figsize=(8.4, 3.0 * len(experiments)), squeeze=False
    )
    for row, experiment in zip(axes, experiments):
        part = block[block["experiment"] == experiment]
        for axis, (metric, title) in zip(row, UTILISATION_PANELS):
            labels = merged_names(part, [metric, f"{metric}_p10", f"{metric}_p90"])
            for index, name in enumerate(labels):
                line = part[part["configuration"] == name]
                _line_with_percentiles(axis, line, metric, labels[name], styles[name], index, len(labels), 100)
            space = part[part["configuration"] == "SPACE"].sort_values("load", kind="stable")
            ceiling = CEILINGS[metric](space[metric].to_numpy())
            axis.plot(
                space["load"],
                100 * space[metric] + ceiling,
                color="grey",
                linestyle="--",
                linewidth=1,
                label="ceiling over SPACE (analytic)",
            )
            if experiment == "E1" and metric == "allocation_utilisation":
                for (name, load), value in (published or {}).items():
                    if name in styles:
                        _paper_marker(axis, load, value, styles[name])
            axis.set_title(title)
            axis.set_xlabel(EXPERIMENT_TITLES[experiment])
            axis.set_xticks(sorted(part["load"].unique()))
            axis.set_ylim(0, 100)
            axis.grid(alpha=0.3)
        row[0].set_ylabel("utilisation (%)")
    handles, names = [], []
    for axis in axes.flat:
        for handle, name in zip(*axis.get_legend_handles_labels()):
            if name not in names:
                handles.append(handle)
                names.append(name)
    if published:
        handles.append(PAPER_HANDLE)
        names.append("paper, Table 2 (hollow; beside our lowest κ)")
    figure.legend(handles, names, loc="outside right center", title="configuration")
    kappa = block["kappa"].min() if len(block) else 0.0
    figure.suptitle(f"{trace}: both utilisations and their ceilings (κ = {kappa:g})")
    return figure


def slowdown_figure(runs: pd.DataFrame, trace: str):
    """ECDF of the sharing slowdown D = (end - start) / work of the jobs that shared (as donor or
    guest), E2 at its highest load, κ = its lowest value, seed 0, per configuration."""
    block = runs[(runs["trace"] == trace) & (runs["experiment"] == "E2") & (runs["seed"] == 0)]
    block = _lowest_kappa(block)
    block = block[block["load"] == block["load"].max()]
    styles = configuration_styles(block["configuration"].unique())
    figure, axis = plt.subplots(figsize=(5.2, 3.4))
    lowest = 1.0  # the smallest share of jobs at their curve's first step (D = 1 for most)
    for _, row in block.iterrows():
        quantiles = np.asarray(row["paired_slowdown_quantiles"], dtype=float)
        if len(quantiles):
            lowest = min(lowest, SLOWDOWN_QUANTILES[quantiles == quantiles[0]].max())
            axis.step(
                quantiles,
                SLOWDOWN_QUANTILES,
                where="post",
                color=styles[row["configuration"]]["color"],
                linestyle=styles[row["configuration"]]["linestyle"],
                label=f"{row['configuration']} ({row['paired_jobs']} jobs)",
            )
    axis.set_xscale("log")
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.xaxis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if value in (2, 3, 5) else ""))
    axis.set_xlabel("sharing slowdown D = (end - start) / work (log)")
    axis.set_ylabel("fraction of the jobs that shared")
    # the curves differ above their first step: the axis starts just below it
    axis.set_ylim(max(0.0, np.floor(20 * lowest) / 20 - 0.05), 1.005)
    axis.grid(alpha=0.3, which="both")
    if axis.get_legend_handles_labels()[0]:  # no curve when no job shared
        axis.legend(loc="lower right")
    load = block["load"].max() if len(block) else float("nan")
    kappa = block["kappa"].min() if len(block) else float("nan")
    axis.set_title(f"{trace}, E2 at offered load {load:g}, κ = {kappa:g}")
    return figure


def weights_figure(weights: pd.DataFrame, trace: str):
    """The ASAX learner's expert weights α after each Hedge round, E2, seed 0, κ = its lowest
    value, one panel per offered load."""
    block = _lowest_kappa(weights[(weights["trace"] == trace) & (weights["seed"] == 0)])
    block = block[block["configuration"] == "ASAX"]
    loads = sorted(block["load"].unique())
    figure, axes = plt.subplots(
        1, max(1, len(loads)), figsize=(3.6 * max(1, len(loads)), 3.0), squeeze=False, sharey=True
    )
    for axis, load in zip(axes[0], loads):
        part = block[block["load"] == load]
        for expert in EXPERTS:
            axis.plot(part["round"], part[expert], color=EXPERT_COLOURS[expert], label=expert)
        axis.set_title(f"offered load {load:g}")
        axis.set_xlabel("Hedge round")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel("expert weight α")
    axes[0][0].set_ylim(0, 1)
    shared_legend(figure, axes[0][:1], "expert")
    figure.suptitle(f"{trace}, E2: ASAX expert weights over rounds")
    return figure


def actions_figure(runs: pd.DataFrame, trace: str):
    """Share of each quota level among the ASAX learners' decisions, per experiment and load
    (κ = its lowest value, all seeds and windows)."""
    block = _lowest_kappa(runs[(runs["trace"] == trace) & (runs["strategy"] == "ASAX")])
    groups = list(block.groupby(["configuration", "experiment"], sort=True))
    figure, axes = plt.subplots(
        1, max(1, len(groups)), figsize=(3.8 * max(1, len(groups)), 3.2), squeeze=False, sharey=True
    )
    for axis, ((name, experiment), part) in zip(axes[0], groups):
        loads = sorted(part["load"].unique())
        width = 0.8 / len(loads)
        for index, load in enumerate(loads):
            counts = np.sum(np.stack(part.loc[part["load"] == load, "histogram"].map(np.asarray).to_list()), axis=0)
            levels = len(counts)
            share = counts / max(1, counts.sum())
            axis.bar(
                np.arange(levels) + (index - (len(loads) - 1) / 2) * width,
                100 * share,
                width,
                label=f"load {load:g}",
                color=plt.get_cmap("viridis")(index / max(1, len(loads) - 1)),
            )
            axis.set_xticks(np.arange(levels), [f"{100 * k / levels:.0f}" for k in range(levels)])
        axis.set_title(f"{name}, {experiment}")
        axis.set_xlabel("quota level f (%; 0 = do not pair)")
        axis.legend()
        axis.grid(alpha=0.3, axis="y")
    axes[0][0].set_ylabel("share of the learner's decisions (%)")
    figure.suptitle(f"{trace}: quota levels chosen by the learner")
    return figure
