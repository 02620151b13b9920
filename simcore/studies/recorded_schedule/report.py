"""The recorded-schedule study's table and section of the reproduction report: per trace, how
close each site policy's simulated schedule comes to the recorded one, and the verdict: the
closest policy, or why there is none (too few jobs, a tie)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.policies import describe_policies
from simcore.reporting.tables import markdown_table
from simcore.studies.recorded_schedule.study import MIN_VERDICT_JOBS, MIN_WEEK_JOBS, score

# why a simulated schedule differs from the recorded one whatever the policy: the report's and
# docs/recorded_schedule.md's list
CAUSES = (
    "A log is one schedule among many, and what separates it from any simulation is not a policy: "
    "jobs the filter drops; processors down for maintenance; reservations, per-user limits and "
    "priorities the log does not record; the resource manager's own scheduling cycle (a job starts "
    "at its next pass, seconds after processors free); and the granularity of what a site "
    "allocates: the simulator allocates processors, not nodes or memory, so a site that gives each "
    "job whole nodes, or whose jobs wait for memory rather than for cores, schedules differently "
    "from every policy simulated here. Read the distances as how far each policy is from the "
    "site, not as an error of the simulator."
)


def _sentence(text: str) -> str:
    """`no verdict: …` as the start of a sentence, `No verdict: …` (a policy's name keeps its case)."""
    return text[0].upper() + text[1:]


def _percent(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{100 * value:+.0f} %"


def recorded_schedule_markdown(runs: pd.DataFrame, best: pd.DataFrame, policies: dict, slurm=None) -> str:
    """The section: the verdict per trace (best_policies), then per trace every policy's comparison,
    and the Slurm-mode rows of the site logs that give their slurm.conf (`slurm`, site_slurm_runs's)."""
    verdicts = best.set_index("trace")[["verdict", "verdict_text"]].itertuples(name=None)
    verdicts = {trace: text if verdict != "closest" else f"verdict: {text}" for trace, verdict, text in verdicts}
    lines = [
        "## Recorded schedules: how believable the simulation of each site is",
        "",
        "Each site policy simulated on the trace as recorded (no resampling, the study's filter), "
        "its per-job waits compared with the waits the log records: Spearman's ρ of the per-job "
        "waits, the error of the mean and of the 90th-percentile wait (simulated − recorded), and "
        "the Kolmogorov–Smirnov distance between the two wait distributions (0: the same, 1: "
        f"disjoint); the whole trace's, and the median over the weeks of submission with {MIN_WEEK_JOBS} "
        "jobs or more. The policies are ranked by their median weekly KS distance (the whole "
        "trace's where no week has enough jobs; equal distances by the larger ρ), and the first is "
        "named the closest policy only when the ranking can tell: a trace of fewer than "
        f"{MIN_VERDICT_JOBS} compared jobs, or whose first two policies are at the same distance (a "
        "tie, which ρ orders but does not decide), gets no verdict. A distribution can match while "
        "every job starts elsewhere, so each policy is also judged job by job: the share of jobs that "
        "start within 5 s and within 30 s of their recorded start, and Kendall's τ of the start order.",
        "",
        CAUSES,
        "",
        "Policies: " + describe_policies(policies) + ".",
        "",
        "### The verdict per trace",
        "",
    ]
    closest = [
        [
            row.trace,
            f"{row.jobs:,}",
            f"{row.best} is closest" if row.verdict == "closest" else row.verdict_text,
            f"{row.score:.3f}",
            f"{row.spearman:.3f}",
            _percent(row.mean_relative_error),
            "–" if row.runner_up is None else f"{row.runner_up} ({row.runner_up_score:.3f}, +{row.margin:.3f})",
        ]
        for row in best.itertuples(index=False)
    ]
    columns = [
        "trace",
        "jobs",
        "verdict",
        "KS (weekly median)",
        "Spearman ρ",
        "mean wait error",
        "runner-up (KS, margin)",
    ]
    lines += [
        markdown_table(pd.DataFrame(closest, columns=columns), "lrlrrrl"),
        "",
        "KS, ρ and the mean wait error are those of the policy ranked first: the closest where there is "
        "a verdict, else the first named in it (of a tie, the one with the larger ρ), not a closer one.",
        "",
    ]
    for trace, block in runs.groupby("trace", sort=False):
        first = block.iloc[0]
        lines += [
            f"### {trace}",
            "",
            f"{int(first['jobs']):,} jobs compared ({int(first['unrecorded_jobs']):,} without a recorded wait), "
            f"{int(first['weeks'])} week{'s' * (int(first['weeks']) != 1)} of {MIN_WEEK_JOBS} jobs or more; "
            "recorded mean wait "
            f"{first['recorded_mean']:,.0f} s, 90th percentile {first['recorded_p90']:,.0f} s. "
            f"{_sentence(verdicts[trace])}.",
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
                f"{100 * row['start_within_5s']:.0f} %",
                f"{100 * row['start_within_30s']:.0f} %",
                f"{row['start_kendall_tau']:.3f}",
            ]
            for _, row in block.assign(score=score(block)).iterrows()
        ]
        columns = ["policy", "mean wait", "p90 wait", "ρ", "KS", "ρ weekly", "KS weekly", "±5 s", "±30 s", "start τ"]
        lines += [markdown_table(pd.DataFrame(rows, columns=columns), "lrrrrrrrrr"), ""]
    if slurm is not None and len(slurm):
        lines += slurm_markdown(slurm)
    return "\n".join(lines)


def slurm_markdown(slurm: pd.DataFrame) -> list[str]:
    """Per site log with its slurm.conf: the Slurm mode under the site's configuration and each
    variant (simcore.studies.recorded_schedule.slurm)."""
    lines = [
        "### Site logs in the Slurm mode",
        "",
        "A site log given with its `slurm.conf` is also simulated as its slurmctld schedules it (the "
        "Slurm mode, docs/slurm_mode.md): nodes, partitions, the main scheduler, the backfill cycle and "
        "multifactor priority with fair share, what no log records estimated from it. The site's row is "
        "its own configuration, with the one-step replay (the share of recorded starts the model decides "
        "within 2 s on the recorded history); each variant changes the named options of that run and "
        "nothing else, so its mean wait is what the setting would have done to the same jobs.",
        "",
    ]
    for trace, block in slurm.groupby("trace", sort=False):
        rows = [
            [
                row.variant,
                row.changes or "–",
                f"{row.simulated_mean_wait:,.0f} s",
                f"{100 * row.within_5s:.0f} %",
                f"{100 * row.within_30s:.0f} %",
                f"{row.kendall_tau:.3f}",
                f"{row.mean_abs_delta:,.1f} s",
                "–" if np.isnan(row.replay_within_2s) else f"{100 * row.replay_within_2s:.0f} %",
            ]
            for row in block.itertuples(index=False)
        ]
        first = block.iloc[0]
        columns = ["configuration", "changes", "mean wait", "±5 s", "±30 s", "start τ", "mean abs Δ", "replay ±2 s"]
        lines += [
            f"#### {trace}",
            "",
            f"{int(first['jobs']):,} jobs with a recorded start; "
            f"recorded mean wait {first['recorded_mean_wait']:,.0f} s.",
            "",
            markdown_table(pd.DataFrame(rows, columns=columns), "llrrrrrr"),
            "",
        ]
    return lines
