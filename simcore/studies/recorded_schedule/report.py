"""The recorded-schedule study's table and section of the reproduction report: per trace, how
close each site policy's simulated schedule comes to the recorded one, and the closest."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.policies import describe
from simcore.reporting.tables import markdown_table
from simcore.studies.recorded_schedule.study import MIN_WEEK_JOBS, score


def _percent(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{100 * value:+.0f} %"


def recorded_schedule_markdown(runs: pd.DataFrame, best: pd.DataFrame, policies: dict) -> str:
    """The section: the best policy per trace, then per trace every policy's comparison."""
    lines = [
        "## Recorded schedules: how believable the simulation of each site is",
        "",
        "Each site policy simulated on the trace as recorded (no resampling, the study's filter), "
        "its per-job waits compared with the waits the log records: Spearman's ρ of the per-job "
        "waits, the error of the mean and of the 90th-percentile wait (simulated − recorded), and "
        "the Kolmogorov–Smirnov distance between the two wait distributions (0: the same, 1: "
        f"disjoint); the whole trace's, and the median over the weeks of submission with {MIN_WEEK_JOBS} "
        "jobs or more. The closest policy has the smallest median weekly KS distance (the whole "
        "trace's where no week has enough jobs). A log is one schedule among many: jobs the filter "
        "drops, processors down for maintenance, reservations and priorities the log does not record "
        "all separate it from any simulation, so read the distances as how far each policy is from "
        "the site, not as an error of the simulator.",
        "",
        "Policies: " + "; ".join(f"**{name}** {describe(options)}" for name, options in policies.items()) + ".",
        "",
        "### The closest policy per trace",
        "",
    ]
    closest = [
        [
            row.trace,
            row.best,
            f"{row.score:.3f}",
            f"{row.spearman:.3f}",
            _percent(row.mean_relative_error),
            "–" if row.runner_up is None else f"{row.runner_up} ({row.runner_up_score:.3f}, +{row.margin:.3f})",
        ]
        for row in best.itertuples(index=False)
    ]
    columns = [
        "trace",
        "closest policy",
        "KS (weekly median)",
        "Spearman ρ",
        "mean wait error",
        "runner-up (KS, margin)",
    ]
    lines += [markdown_table(pd.DataFrame(closest, columns=columns), "llrrrl"), ""]
    for trace, block in runs.groupby("trace", sort=False):
        first = block.iloc[0]
        lines += [
            f"### {trace}",
            "",
            f"{int(first['jobs']):,} jobs compared ({int(first['unrecorded_jobs']):,} without a recorded wait), "
            f"{int(first['weeks'])} week{'s' * (int(first['weeks']) != 1)} of {MIN_WEEK_JOBS} jobs or more; "
            "recorded mean wait "
            f"{first['recorded_mean']:,.0f} s, 90th percentile {first['recorded_p90']:,.0f} s.",
            "",
        ]
        rows = [
            [
                row["policy"],
                f"{row['simulated_mean']:,.0f} s ({_percent(row['mean_relative_error'])})",
                f"{row['simulated_p90']:,.0f} s ({_percent(row['p90_relative_error'])})",
                f"{row['spearman']:.3f}",
                f"{row['ks']:.3f}",
                "n/a" if np.isnan(row["weekly_spearman"]) else f"{row['weekly_spearman']:.3f}",
                f"{row['score']:.3f}",
            ]
            for _, row in block.assign(score=score(block)).iterrows()
        ]
        columns = ["policy", "mean wait", "p90 wait", "ρ", "KS", "ρ weekly", "KS weekly"]
        lines += [markdown_table(pd.DataFrame(rows, columns=columns), "lrrrrrr"), ""]
    return "\n".join(lines)
