"""Figures of the dynamic scheduling experiments (the thesis's section 3.3)."""

from __future__ import annotations

import pandas as pd

from simcore.reporting.style import distribution, plain_log_ticks, plt


def dynamic_boxplot_figure(runs: pd.DataFrame, setting: str):
    """The thesis's Figures 3.3-3.6: per trace, the AVEbsld of its sequences per
    policy (a box, or the sequences' values when there are too few for a box)."""
    from simcore.studies.dynamic_scheduling.study import SETTING_TITLES

    traces = list(dict.fromkeys(runs["trace"]))
    policies = list(dict.fromkeys(runs["policy"]))
    columns = min(3, len(traces))
    rows = -(-len(traces) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 2.9 * rows), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        part = runs[runs["trace"] == trace]
        values = [part.loc[part["policy"] == policy, "avg_bsld"].to_numpy() for policy in policies]
        distribution(axis, values, policies)
        axis.set_yscale("log")
        plain_log_ticks(axis.yaxis)
        axis.set_title(f"{trace} ({part['sequence'].nunique()} sequences)")
        axis.set_ylabel("AVEbsld per sequence")
        axis.tick_params(axis="x", labelrotation=60)
        axis.grid(alpha=0.3, axis="y")
    for axis in list(axes.flat)[len(traces) :]:
        axis.set_visible(False)
    figure.suptitle(f"Dynamic scheduling experiments, {SETTING_TITLES[setting]}")
    return figure
