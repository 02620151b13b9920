"""Figures of the elastic study (the paper's Figures 3-6: the inverse CDF of W per job type)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.reporting.figures import plt

RUN_COLOURS = {"NAT": "black", "FCFS": "grey", "EDF": "tab:brown"}


def responsiveness_figure(series: pd.DataFrame, jobset: str):
    """P(W > x) against x for interactive and batch jobs, one line per run (seed 0 of the learners)."""
    block = series[series["jobset"] == jobset]
    names = list(dict.fromkeys(block["run"]))
    palette = iter(plt.get_cmap("tab10").colors)
    colours = {name: RUN_COLOURS.get(name) or next(palette) for name in names if not name.startswith("FCFS ")}
    figure, axes = plt.subplots(1, 2, figsize=(9.5, 3.4), sharey=True)
    for axis, (kind, title) in zip(axes, ((True, "interactive jobs"), (False, "batch jobs"))):
        for name, colour in colours.items():
            values = np.sort(block.loc[(block["run"] == name) & (block["interactive"] == kind), "W"].to_numpy())
            if len(values):
                above = 1.0 - np.arange(1, len(values) + 1) / len(values)
                axis.step(
                    values,
                    above,
                    where="post",
                    color=colour,
                    label=name,
                    linestyle="--" if name.startswith("ELA") else "-",
                )
        axis.set_title(title)
        axis.set_xlabel("responsiveness W = p / (p + wait)")
        axis.set_xlim(0, 1)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("P(W > x)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), title="run")
    figure.suptitle(f"{jobset}: inverse CDF of the responsiveness (dashed: elastic)", y=1.02)
    return figure
