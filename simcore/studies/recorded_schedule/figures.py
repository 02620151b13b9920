"""The recorded-schedule study's figure: per trace, the mean wait of each week as recorded and as
each site policy simulates it."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

FLOOR = 1.0  # seconds: a week whose mean wait is 0 is drawn at 1 s on the logarithmic axis


def recorded_schedule_figure(weekly: pd.DataFrame, traces=None, policies=None):
    """One panel per trace: weekly mean wait, recorded (black) and simulated per policy. A trace
    of one week (one value per series) gets a dot per series side by side instead of lines
    (`_one_week`); a trace of `traces` without a week of MIN_WEEK_JOBS jobs, a panel saying so.
    `traces` and `policies` default to those of `weekly`, in their order."""
    from simcore.reporting.style import colours_for, log_duration_ticks, plt, shared_legend
    from simcore.studies.recorded_schedule.study import MIN_WEEK_JOBS  # here: rules.py imports this module

    traces = list(dict.fromkeys(weekly["trace"] if traces is None else traces))
    policies = list(dict.fromkeys(weekly["policy"] if policies is None else policies))
    colours = colours_for(["recorded", *policies], reference="recorded")
    columns = 2 if len(traces) > 1 else 1
    rows = int(np.ceil(len(traces) / columns))
    # a one-week panel's policy names and note take half an inch more below it
    extra = 0.5 if (weekly.groupby("trace")["week"].nunique() == 1).any() else 0.0
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.4 * rows + extra), squeeze=False)
    without_lines = []  # the panels of one week or none
    for axis, trace in zip(axes.flat, traces):
        block = weekly[weekly["trace"] == trace]
        recorded = block.drop_duplicates("week").sort_values("week")
        axis.set_title(trace)
        if len(recorded) == 0:
            axis.text(
                0.5,
                0.5,
                f"no week of {MIN_WEEK_JOBS} jobs or more:\nthe whole trace's comparison is in the report",
                ha="center",
                va="center",
                transform=axis.transAxes,
            )
            axis.set_axis_off()
            without_lines.append(axis)
            continue
        if len(recorded) == 1:
            _one_week(axis, block, policies, colours)
            without_lines.append(axis)
        else:
            marker = "o" if len(recorded) < 4 else None  # a line of two or three weeks is hard to see
            axis.plot(
                recorded["week"],
                np.maximum(recorded["recorded_mean"], FLOOR),
                color=colours["recorded"],
                linewidth=1.8,
                marker=marker,
                label="recorded",
            )
            for policy in policies:
                rows_of = block[block["policy"] == policy].sort_values("week")
                axis.plot(
                    rows_of["week"],
                    np.maximum(rows_of["simulated_mean"], FLOOR),
                    color=colours[policy],
                    linewidth=0.9,
                    marker=marker,
                    markersize=3,
                    label=policy,
                )
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
            axis.set_xlabel("week of submission")
        axis.set_yscale("log")
        # from the floor to at least a minute, so that two labelled ticks show even for short waits
        top = max(np.maximum(block[["recorded_mean", "simulated_mean"]].to_numpy().max(), FLOOR), 60.0)
        axis.set_ylim(FLOOR / 1.5, top * 1.5)
        log_duration_ticks(axis.yaxis)
        axis.set_ylabel("mean wait")
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(traces) :]:
        axis.set_visible(False)
    # the legend draws the series as lines where a panel draws them so, as dots where none does
    drawn = sorted(axes.flat[: len(traces)], key=lambda axis: axis in without_lines)
    if any(axis.get_legend_handles_labels()[0] for axis in drawn):  # no legend of nothing drawn
        shared_legend(figure, drawn, "wait", ["recorded", *policies])
    figure.suptitle("Recorded against simulated waits: mean wait per week")
    return figure


def _one_week(axis, block: pd.DataFrame, policies: list, colours: dict) -> None:
    """The panel of a trace with one week of MIN_WEEK_JOBS jobs or more: its mean wait, recorded and
    per policy, as dots side by side (policies whose waits are equal stay visible), the recorded
    one also as a dotted line across to compare with; the x axis names the week and its jobs."""
    from simcore.studies.recorded_schedule.study import MIN_WEEK_JOBS

    week = block.drop_duplicates("week").iloc[0]
    series = [("recorded", week["recorded_mean"])] + [
        (policy, block.loc[block["policy"] == policy, "simulated_mean"].iloc[0])
        for policy in policies
        if (block["policy"] == policy).any()
    ]
    axis.axhline(max(week["recorded_mean"], FLOOR), color=colours["recorded"], linestyle=":", linewidth=0.8)
    for position, (name, mean) in enumerate(series):
        axis.plot(
            position,
            max(mean, FLOOR),
            linestyle="none",
            marker="o",
            markersize=7 if name == "recorded" else 6,
            color=colours[name],
            label=name,
            zorder=3,
        )
    axis.set_xlim(-0.7, len(series) - 0.3)
    axis.set_xticks(range(len(series)), [name for name, _ in series], rotation=35, ha="right", fontsize=7)
    jobs = int(week["jobs"])
    axis.set_xlabel(f"week {int(week['week'])}, {jobs:,} jobs:\nthe log's only week of {MIN_WEEK_JOBS} jobs or more")
