"""Figures of the co-scheduling study: ratios to SPACE against load with percentile bands,
utilisation of allocated capacity, the ECDF of the sharing slowdown, the learner's expert
weights over rounds and its action histograms. One trace a figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, MaxNLocator

from simcore.reporting.style import BAND_ALPHA, plt, shared_legend
from simcore.studies.coscheduling.sharing import EXPERTS
from simcore.studies.coscheduling.study import SLOWDOWN_QUANTILES

# one colour per configuration, SPACE black, the same in every figure
STRATEGY_COLOURS = {"SPACE": "black", "STATIC": "tab:orange", "ASAX": "tab:blue", "HEADROOM": "tab:green"}
EXTRA_COLOURS = ("tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:gray", "tab:red")
EXPERT_COLOURS = dict(zip(EXPERTS, ("tab:red", "tab:purple", "tab:green", "tab:blue")))
RATIO_PANELS = (("mean_wait", "mean wait"), ("mean_response", "mean response"), ("makespan", "makespan"))
EXPERIMENT_TITLES = {"E1": "E1, queue flush: cluster load", "E2": "E2, online replay: offered load"}


def configuration_colours(names) -> dict:
    extra = iter(EXTRA_COLOURS * 3)
    return {name: STRATEGY_COLOURS.get(name) or next(extra) for name in names}


def _lowest_kappa(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["kappa"] == frame["kappa"].min()]


def ratio_figure(summary: pd.DataFrame, trace: str, experiment: str, published: dict | None = None):
    """Wait, response and makespan over SPACE's against load: mean line and 10th-90th percentile
    band per configuration (κ = its lowest value); the paper's ratios as crosses (E1)."""
    block = _lowest_kappa(summary[(summary["trace"] == trace) & (summary["experiment"] == experiment)])
    block = block[block["configuration"] != "SPACE"].sort_values("load")
    colours = configuration_colours(block["configuration"].unique())
    figure, axes = plt.subplots(1, 3, figsize=(10.5, 3.3), sharey=True)
    for axis, (metric, title) in zip(axes, RATIO_PANELS):
        for name, line in block.groupby("configuration", sort=False):
            axis.plot(line["load"], line[f"{metric}_ratio"], marker="o", color=colours[name], label=name)
            axis.fill_between(
                line["load"],
                line[f"{metric}_ratio_p10"],
                line[f"{metric}_ratio_p90"],
                color=colours[name],
                alpha=BAND_ALPHA,
            )
        for (name, load), values in (published or {}).items():
            if metric in values:
                axis.plot(load, values[metric], "x", color=colours.get(name, "grey"), markersize=8, mew=2)
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_title(f"{title} / SPACE")
        axis.set_xlabel(EXPERIMENT_TITLES[experiment])
        axis.set_xticks(sorted(block["load"].unique()))
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("ratio to SPACE (band: 10th-90th percentile)")
    handles, labels = axes[0].get_legend_handles_labels()
    if published:
        handles.append(plt.Line2D([], [], marker="x", linestyle="", color="grey", mew=2))
        labels.append("paper (Table 3)")
    figure.legend(handles, labels, loc="outside right center", title="configuration")
    kappa = block["kappa"].min() if len(block) else 0.0
    figure.suptitle(f"{trace}, {experiment}: sharing against space sharing (κ = {kappa:g})")
    return figure


def utilisation_figure(summary: pd.DataFrame, trace: str):
    """Utilisation of allocated capacity (useful CPU over processor-time held) against load,
    one panel per experiment, one line per configuration (κ = its lowest value)."""
    block = _lowest_kappa(summary[summary["trace"] == trace]).sort_values("load")
    experiments = [e for e in EXPERIMENT_TITLES if (block["experiment"] == e).any()]
    colours = configuration_colours(block["configuration"].unique())
    figure, axes = plt.subplots(1, len(experiments), figsize=(4.2 * len(experiments), 3.3), squeeze=False)
    for axis, experiment in zip(axes[0], experiments):
        for name, line in block[block["experiment"] == experiment].groupby("configuration", sort=False):
            axis.plot(line["load"], 100 * line["alloc_utilisation"], marker="o", color=colours[name], label=name)
        axis.set_xlabel(EXPERIMENT_TITLES[experiment])
        axis.set_xticks(sorted(block.loc[block["experiment"] == experiment, "load"].unique()))
        axis.set_ylim(0, min(100, 1.25 * 100 * block["alloc_utilisation"].max()))
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel("utilisation of allocated capacity (%)")
    shared_legend(figure, axes[0][:1], "configuration")
    figure.suptitle(f"{trace}: CPU time used over processor time held")
    return figure


def slowdown_figure(runs: pd.DataFrame, trace: str):
    """ECDF of the sharing slowdown D = (end - start) / work of the jobs that shared (as donor or
    guest), E2 at its highest load, κ = its lowest value, seed 0, per configuration."""
    block = runs[(runs["trace"] == trace) & (runs["experiment"] == "E2") & (runs["seed"] == 0)]
    block = _lowest_kappa(block)
    block = block[block["load"] == block["load"].max()]
    colours = configuration_colours(block["configuration"].unique())
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
                color=colours[row["configuration"]],
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
