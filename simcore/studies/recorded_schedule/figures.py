"""The recorded-schedule study's figure: per trace, the mean wait of each week as recorded and as
each site policy simulates it."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

FIGURES = ("recorded_schedule",)
FLOOR = 1.0  # seconds: a week whose mean wait is 0 is drawn at 1 s on the logarithmic axis


def recorded_schedule_figure(weekly: pd.DataFrame):
    """One panel per trace: weekly mean wait, recorded (black) and simulated per policy."""
    from simcore.reporting.style import colours_for, log_duration_ticks, plt, shared_legend

    traces = list(dict.fromkeys(weekly["trace"]))
    policies = list(dict.fromkeys(weekly["policy"]))
    colours = colours_for(["recorded", *policies], reference="recorded")
    columns = 2 if len(traces) > 1 else 1
    rows = int(np.ceil(len(traces) / columns))
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.4 * rows), squeeze=False)
    for axis, trace in zip(axes.flat, traces):
        block = weekly[weekly["trace"] == trace]
        recorded = block.drop_duplicates("week").sort_values("week")
        marker = "o" if len(recorded) < 4 else None  # a line of one or two weeks is hard to see
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
        axis.set_yscale("log")
        # from the floor to at least a minute, so that two labelled ticks show even for short waits
        top = max(np.maximum(block[["recorded_mean", "simulated_mean"]].to_numpy().max(), FLOOR), 60.0)
        axis.set_ylim(FLOOR / 1.5, top * 1.5)
        log_duration_ticks(axis.yaxis)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        if len(recorded) == 1:
            axis.set_xlim(recorded["week"].iloc[0] - 1, recorded["week"].iloc[0] + 1)
        axis.set_title(trace)
        axis.set_xlabel("week of submission")
        axis.set_ylabel("mean wait")
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(traces) :]:
        axis.set_visible(False)
    shared_legend(figure, axes.flat[: len(traces)], "wait", ["recorded", *policies])
    figure.suptitle("Recorded against simulated waits: mean wait per week")
    return figure
