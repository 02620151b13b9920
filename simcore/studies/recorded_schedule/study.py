"""Each site policy simulated on a trace as recorded, its per-job waits compared with the waits
the log records (SWF field 3; sacct's Start - Submit).

The comparison covers the jobs whose wait the log records, each job with itself: the Spearman
correlation of the per-job waits, the error of the mean and of the 90th-percentile wait
(simulated - recorded, also relative to the recorded), and the Kolmogorov-Smirnov distance
between the two wait distributions (the largest gap between their empirical CDFs; 0: the same
distribution, 1: disjoint). Each is computed over the whole trace and per week of submission;
the whole trace's also judges the schedule job by job (a distribution can match while every job
starts elsewhere): the share of jobs starting within 5 s and within 30 s of their recorded start,
Kendall's τ of the start order and the mean absolute difference (schedule_agreement);
a week with fewer than MIN_WEEK_JOBS compared jobs is left out of the weekly rows. The policies
are ranked by their median weekly KS distance (ties: the larger whole-trace Spearman
correlation), and the first is named the closest only when the ranking can tell: a trace of
fewer than MIN_VERDICT_JOBS compared jobs, or whose first two policies tie, gets no verdict
(`best_policies`, its `verdict` column).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from simcore.engine.policies import Policy
from simcore.engine.simulation import simulate
from simcore.workloads.resample import WEEK
from simcore.workloads.slurm_site import schedule_agreement

MIN_WEEK_JOBS = 10
# fewer compared jobs than this in a trace: its distances rest on too few waits to name a closest policy
MIN_VERDICT_JOBS = 100
TIE_DECIMALS = 12  # scores that agree to this many decimals are a tie
# a trace's verdict (best_policies): the first policy is the closest, or no verdict, for one of two reasons
VERDICTS = ("closest", "few jobs", "tie")
# (column, label, format) of the comparison, the whole trace's and each week's
AGREEMENT = (
    ("spearman", "Spearman ρ", ".3f"),
    ("mean_error", "mean wait error", ",.0f"),
    ("p90_error", "p90 wait error", ",.0f"),
    ("ks", "KS distance", ".3f"),
)


# the per-job agreement of the starts (schedule_agreement's keys), the whole trace's `start_*` columns
START_AGREEMENT = ("within_5s", "within_30s", "kendall_tau", "mean_abs_delta")

# what wait_agreement returns, in its order: the weekly rows' columns after `week`
AGREEMENT_COLUMNS = (
    "jobs",
    "recorded_mean",
    "simulated_mean",
    "mean_error",
    "mean_relative_error",
    "recorded_p90",
    "simulated_p90",
    "p90_error",
    "p90_relative_error",
    "spearman",
    "ks",
)


def wait_agreement(recorded: np.ndarray, simulated: np.ndarray) -> dict:
    """The comparison of two waits of the same jobs (seconds): both means and 90th percentiles,
    their errors (simulated - recorded; relative: over the recorded, NaN when it is 0), the
    Spearman correlation (NaN when either is constant: no ranking to correlate) and the KS
    distance."""
    constant = np.ptp(recorded) == 0 or np.ptp(simulated) == 0
    means = recorded.mean(), simulated.mean()
    p90s = np.percentile(recorded, 90), np.percentile(simulated, 90)
    return {
        "jobs": len(recorded),
        "recorded_mean": means[0],
        "simulated_mean": means[1],
        "mean_error": means[1] - means[0],
        "mean_relative_error": (means[1] - means[0]) / means[0] if means[0] > 0 else np.nan,
        "recorded_p90": p90s[0],
        "simulated_p90": p90s[1],
        "p90_error": p90s[1] - p90s[0],
        "p90_relative_error": (p90s[1] - p90s[0]) / p90s[0] if p90s[0] > 0 else np.nan,
        "spearman": np.nan if constant else float(stats.spearmanr(recorded, simulated).statistic),
        "ks": float(stats.ks_2samp(recorded, simulated, method="asymp").statistic),  # the p-value is unused
    }


def compare_schedules(workload, simulated_wait: np.ndarray) -> tuple[dict, pd.DataFrame]:
    """(whole trace, weekly rows) of the comparison of `simulated_wait` with the workload's
    recorded waits, on the jobs that have one."""
    known = ~np.isnan(workload.recorded_wait)
    if not known.any():
        raise ValueError(f"{workload.source}: the log records no job's wait (SWF field 3): nothing to compare with")
    recorded, simulated = workload.recorded_wait[known], simulated_wait[known]
    weeks = np.floor(workload.submit[known] / WEEK).astype(np.int64)
    whole = wait_agreement(recorded, simulated)
    submit = workload.submit[known]
    per_job = schedule_agreement(submit + recorded, submit + simulated)
    whole.update({f"start_{key}": per_job[key] for key in START_AGREEMENT})
    whole["unrecorded_jobs"] = int((~known).sum())
    rows = []
    for week in np.unique(weeks):
        in_week = weeks == week
        if in_week.sum() >= MIN_WEEK_JOBS:
            rows.append({"week": int(week), **wait_agreement(recorded[in_week], simulated[in_week])})
    whole["weeks"] = len(rows)
    whole["short_weeks"] = len(np.unique(weeks)) - len(rows)
    return whole, pd.DataFrame(rows, columns=["week", *AGREEMENT_COLUMNS])


def run_recorded_schedule(workload, policies: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every policy on the trace as recorded: (one row per policy, one row per policy and week)
    of the comparison with the recorded schedule, each policy's weekly medians in its row."""
    runs, weekly = [], []
    for name, options in policies.items():
        result = simulate(workload, policy=Policy.of(options, name))
        whole, weeks = compare_schedules(workload, result.start - workload.submit)
        medians = {f"weekly_{column}": weeks[column].median() for column in ("spearman", "ks")}
        medians["weekly_abs_mean_relative_error"] = weeks["mean_relative_error"].abs().median()
        runs.append({"policy": name, **whole, **medians, "utilization": result.summary()["utilization"]})
        weekly.append(weeks.assign(policy=name))
    return pd.DataFrame(runs), pd.concat(weekly, ignore_index=True)


def best_policies(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace, the policies ranked by how well they reproduce the recorded schedule (smallest
    median weekly KS distance, the whole trace's where no week has MIN_WEEK_JOBS jobs; ties by the
    larger Spearman correlation): the first (`best`), the runner-up and the margin between their
    scores, and the verdict on them (VERDICTS): `closest` when the first can be named the closest
    policy; `few jobs` when the trace compares fewer than MIN_VERDICT_JOBS jobs (whatever the
    ranking); `tie` when the runner-up's score equals the first's (to TIE_DECIMALS decimals: a tie
    broken by the correlation names no closer policy). `tied` lists the policies whose score
    equals the first's (the first among them), `verdict_text` says it in words."""
    rows = []
    for trace, block in runs.groupby("trace", sort=False):
        scores = score(block)
        # scores equal but for rounding (a KS distance is a multiple of 1/jobs) tie
        ranked = block.assign(
            score=scores, tied=scores.round(TIE_DECIMALS), order=-block["spearman"].fillna(-np.inf)
        ).sort_values(["tied", "order"], kind="stable")
        best = ranked.iloc[0]
        second = ranked.iloc[1] if len(ranked) > 1 else None
        tied = ranked.loc[ranked["tied"] == best["tied"], "policy"].tolist()
        jobs = int(best["jobs"])
        verdict = "few jobs" if jobs < MIN_VERDICT_JOBS else "tie" if len(tied) > 1 else "closest"
        rows.append(
            {
                "trace": trace,
                "verdict": verdict,
                "jobs": jobs,
                "best": best["policy"],
                "score": best["score"],
                "spearman": best["spearman"],
                "mean_relative_error": best["mean_relative_error"],
                "runner_up": None if second is None else second["policy"],
                "runner_up_score": np.nan if second is None else second["score"],
                "margin": np.nan if second is None else second["score"] - best["score"],
                "tied": ", ".join(tied),
                "verdict_text": verdict_text(
                    verdict, jobs, tied, best["score"], None if second is None else (second["policy"], second["score"])
                ),
            }
        )
    return pd.DataFrame(rows)


def _listed(names: list) -> str:
    """a; a and b; a, b and c."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def verdict_text(verdict: str, jobs: int, tied: list, best_score: float, runner_up) -> str:
    """The verdict in words, `runner_up` (policy, score) or None: `conservative is closest (KS 0.271;
    runner-up EASY-FCFS 0.301, margin 0.030)`, or `no verdict: 11 jobs (fewer than 100); EASY-FCFS
    and EASY-SJBF tie at KS 0.273`."""
    if verdict == "closest":
        if runner_up is None:
            return f"{tied[0]} is closest (KS {best_score:.3f}; the only policy)"
        name, second = runner_up
        return (
            f"{tied[0]} is closest (KS {best_score:.3f}; runner-up {name} {second:.3f}, "
            f"margin {second - best_score:.3f})"
        )
    if len(tied) > 1:
        ranking = f"{_listed(tied)} tie at KS {best_score:.3f}"
    else:
        ranking = f"{tied[0]} is first at KS {best_score:.3f}"
        if runner_up is not None:
            ranking += f", {runner_up[0]} next at {runner_up[1]:.3f}"
    few = f"{jobs:,} job{'s' * (jobs != 1)} (fewer than {MIN_VERDICT_JOBS}); " if verdict == "few jobs" else ""
    return f"no verdict: {few}{ranking}"


def score(runs: pd.DataFrame) -> pd.Series:
    """A policy's score on a trace: its median weekly KS distance, or its whole trace's where no
    week has enough jobs (lower is closer to the recorded schedule)."""
    return runs["weekly_ks"].fillna(runs["ks"])
