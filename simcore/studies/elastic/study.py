"""The runs of the elastic study on one job set (docs/elastic.md §9-11): the learner's settings
(RIG or ELA, ORA or EST, λ, and the elastic reward's variants) over seeds, and the baselines: NAT
(the recorded schedule), FCFS and EDF on the rigid pool, FCFS on P_max, and for each elastic run
and seed FCFS and EDF on a fixed pool of that run's own time-average size (the same cost)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcore.studies.elastic.agent import POOL_REQUESTS, PRE_TRAINING_POOLS, train_and_run
from simcore.studies.elastic.jobsets import JobSet
from simcore.studies.elastic.metrics import (
    SAME_POOL,
    fairness_at_starts,
    measured,
    nat_start,
    preferred_pool,
    responsiveness,
    run_metrics,
    same_pool_name,
    time_average_pool,
)
from simcore.studies.elastic.rewards import UTILISATIONS
from simcore.studies.elastic.site import EDF, FCFS, MODELS, pool_levels, run_site
from simcore.workloads.progress import progress


@dataclass(frozen=True)
class RunSettings:
    """A learner run: rigid or elastic pool, ORA or EST, λ, and the elastic learner's variants: its
    reward's U (`interval`, our per-interval modification of the paper's Eq. 3, or `cumulative`, Eq. 3
    as printed), its pre-training pool (`explore` the levels, or keep it `rigid`) and its pool
    request's input (`headroom` or the `level`); the non-default ones are the ablations of
    docs/elastic.md §4, §7 and §8."""

    elastic: bool
    model: str
    lam: float
    utilisation: str = "interval"
    pre_training_pool: str = "explore"
    pool_request: str = "headroom"

    def __post_init__(self):
        for key, value, allowed in (
            ("model", self.model, MODELS),
            ("utilisation", self.utilisation, UTILISATIONS),
            ("pre_training_pool", self.pre_training_pool, PRE_TRAINING_POOLS),
            ("pool_request", self.pool_request, POOL_REQUESTS),
        ):
            if value not in allowed:
                raise ValueError(f"{key} {value!r}: choose one of {', '.join(allowed)}")
        if not 0 <= self.lam <= 1:
            raise ValueError(f"lambda {self.lam}: must be in [0, 1]")


# the paper's runs
DEFAULT_RUNS = {
    "RIG-ORA-0.5": RunSettings(False, "ORA", 0.5),
    "RIG-ORA-1": RunSettings(False, "ORA", 1.0),
    "RIG-EST-0.5": RunSettings(False, "EST", 0.5),
    "RIG-EST-1": RunSettings(False, "EST", 1.0),
    "ELA-ORA-0.5": RunSettings(True, "ORA", 0.5),
    "ELA-ORA-1": RunSettings(True, "ORA", 1.0),
    "ELA-EST-0.5": RunSettings(True, "EST", 0.5),
    "ELA-EST-1": RunSettings(True, "EST", 1.0),
    "ELA-EST-0.1": RunSettings(True, "EST", 0.1),
}


def settings_columns(settings: RunSettings | None) -> dict:
    """A row's learner settings (baselines: none): elastic, model, lambda, its U, pre-training pool
    and pool request."""
    if settings is None:
        return {
            "elastic": None,
            "model": "",
            "lambda": np.nan,
            "reward_utilisation": "",
            "pre_training_pool": "",
            "pool_request": "",
        }
    return {
        "elastic": settings.elastic,
        "model": settings.model,
        "lambda": settings.lam,
        "reward_utilisation": settings.utilisation,
        "pre_training_pool": settings.pre_training_pool,
        "pool_request": settings.pool_request,
    }


def online_utilisation(jobs: JobSet, end: np.ndarray, times, sizes) -> float:
    """U at the end of the online run: the online work over the pool's area since the first submission."""
    online = slice(jobs.pre_training, len(jobs))
    last = float(np.nanmax(end[online]))
    area = time_average_pool(times, sizes, last) * (last - float(times[0]))
    return float(jobs.run[online].sum() / area) if area > 0 else math.nan


def job_series(jobs: JobSet, name: str, start: np.ndarray, fairness: np.ndarray | None) -> pd.DataFrame:
    """Per online job of one run: its type, VO, p, start, W, wait and F at election, and whether
    the metrics count it (the first and last 500 are left out). The figures' data."""
    online = np.arange(jobs.pre_training, len(jobs))
    wait = start[online] - jobs.submit[online]
    return pd.DataFrame(
        {
            "jobset": jobs.name,
            "run": name,
            "job": online,
            "counted": np.isin(online, measured(jobs)),
            "submit": jobs.submit[online],
            "start": start[online],
            "run_time": jobs.run[online],
            "interactive": jobs.interactive[online],
            "vo": jobs.vo[online],
            "W": responsiveness(jobs.run[online], wait),
            "wait": wait,
            "fairness": fairness[online] if fairness is not None else np.nan,
        }
    )


def run_jobset(
    jobs: JobSet, runs: dict, seeds: int, rigid: str = "site", progress_lines: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Every learner run over `seeds` seeds, and the baselines once: (one row per run, the per-job
    series of seed 0 and of the baselines, their pool over time). The rigid runs and FCFS and EDF
    run on the pool of the `rigid` rule (jobsets.RIGID_POOLS); the elastic runs' levels are those
    of the load-matched pool. With `progress_lines`, a line on stderr per learner run (a setting
    and a seed), then per baseline, named by the job set (simcore.workloads.progress)."""
    online = (jobs.pre_training, len(jobs))
    rigid_pool = jobs.rigid_pool(rigid)
    levels = pool_levels(jobs.load_pool)
    rows, series, pool_series = [], [], []
    pools = {"rigid_pool": rigid_pool, "load_pool": jobs.load_pool, "site_pool": jobs.site_pool}

    def keep_series(name, start, fairness, times=None, sizes=None):
        series.append(job_series(jobs, name, start, fairness))
        if times is not None:
            pool_series.append(pd.DataFrame({"jobset": jobs.name, "run": name, "time": times, "pool": sizes}))

    def row(name, kind, seed, result, settings=None, matches=""):
        last = float(np.nanmax(result.end[online[0] :]))
        mean_pool = time_average_pool(result.pool_times, result.pool_sizes, last)
        return {
            "jobset": jobs.name,
            "run": name,
            "kind": kind,
            "seed": seed,
            **settings_columns(settings),
            "matches": matches,
            **pools,
            "mean_pool": mean_pool,
            "preferred_pool": preferred_pool(result.pool_times, result.pool_sizes, last),
            "core_hours": mean_pool * (last - float(result.pool_times[0])) / 3600,
            "utilisation": online_utilisation(jobs, result.end, result.pool_times, result.pool_sizes),
            "batch_over_interactive": result.batch_over_interactive / max(result.interactive_waiting, 1),
            **run_metrics(jobs, result.start, result.fairness),
        }

    learners = [(name, settings, seed) for name, settings in runs.items() for seed in range(seeds)]
    if progress_lines:
        learners = progress(learners, len(learners), f"{jobs.name} learner runs")
    same_pool = []  # (elastic run, seed, its time-average pool rounded to a core count)
    for name, settings, seed in learners:
        result, _ = train_and_run(
            jobs,
            settings.lam,
            settings.elastic,
            settings.model,
            seed,
            levels,
            utilisation=settings.utilisation,
            pre_training_pool=settings.pre_training_pool,
            pool_request=settings.pool_request,
            rigid_pool=rigid_pool,
        )
        rows.append(row(name, "ELA" if settings.elastic else "RIG", seed, result, settings))
        if settings.elastic:
            same_pool.append((name, seed, max(1, round(rows[-1]["mean_pool"]))))
        if seed == 0:
            keep_series(name, result.start, result.fairness, result.pool_times, result.pool_sizes)
    baselines = [("FCFS", FCFS(), rigid_pool, 0, ""), ("EDF", EDF(), rigid_pool, 0, "")]
    if same_pool:
        baselines.append(("FCFS P_max", FCFS(), int(levels[-1]), 0, ""))
    baselines += [
        (same_pool_name(policy, name), {"FCFS": FCFS, "EDF": EDF}[policy](), pool, seed, name)
        for name, seed, pool in same_pool
        for policy in SAME_POOL
    ]
    if progress_lines:
        baselines = progress(baselines, len(baselines), f"{jobs.name} baselines")
    for name, policy, pool, seed, matches in baselines:
        result = run_site(jobs, policy, pool, *online, model="EST")
        rows.append(row(name, "baseline", seed, result, matches=matches))
        if seed == 0:
            keep_series(name, result.start, result.fairness)
    recorded = nat_start(jobs)
    if not np.isnan(recorded[online[0] :]).any():  # NAT: the site's own schedule, on its own machine
        fairness = fairness_at_starts(jobs, recorded, *online)
        rows.append(
            {
                "jobset": jobs.name,
                "run": "NAT",
                "kind": "baseline",
                "seed": 0,
                **settings_columns(None),
                "matches": "",
                **pools,
                **run_metrics(jobs, recorded, fairness),
            }
        )
        keep_series("NAT", recorded, fairness)
    return pd.DataFrame(rows), pd.concat(series, ignore_index=True), pd.concat(pool_series, ignore_index=True)


SUMMARISED = (
    "W_interactive_mean",
    "W_interactive_std",
    "W_batch_mean",
    "W_batch_std",
    "W_interactive_above_0.9",
    "W_batch_above_0.9",
    "delay_interactive_mean",
    "delay_interactive_std",
    "interactive_within_2_min",
    "fairness_mean",
    "utilisation",
    "mean_pool",
    "core_hours",
    "batch_over_interactive",
)


def summary_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run name: each metric's mean and standard deviation over seeds and job sets, with its
    10th and 90th percentiles, and the number of (set, seed) runs it rests on."""
    columns = [c for c in SUMMARISED if c in runs]
    grouped = runs.groupby("run", sort=False)[columns]
    table = pd.concat(
        {
            "mean": grouped.mean(),
            "std": grouped.std(ddof=0),
            "p10": grouped.quantile(0.1),
            "p90": grouped.quantile(0.9),
        },
        axis=1,
    )
    table.columns = [f"{metric}_{stat}" for stat, metric in table.columns]
    return table.assign(runs=runs.groupby("run", sort=False).size()).reset_index()


SPEEDUP_COLUMNS = ["jobset", "seed", "run", "delay", "delay_rigid", "speedup"]


def speedups(runs: pd.DataFrame) -> pd.DataFrame:
    """Per elastic run with a rigid counterpart (same model and λ), per job set and seed: both mean
    interactive delays and 1 − ELA / RIG (NaN where the rigid run delays no interactive job)."""
    rows = []
    for name in runs.loc[runs["kind"] == "ELA", "run"].unique():
        rigid = name.replace("ELA", "RIG", 1)
        if rigid not in set(runs["run"]):
            continue
        both = runs[runs["run"] == name].merge(
            runs[runs["run"] == rigid], on=["jobset", "seed"], suffixes=("", "_rigid")
        )
        delay, rigid_delay = both["delay_interactive_mean"], both["delay_interactive_mean_rigid"]
        both = both.assign(delay=delay, delay_rigid=rigid_delay, speedup=1 - delay / rigid_delay.where(rigid_delay > 0))
        rows.append(both[SPEEDUP_COLUMNS])
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=SPEEDUP_COLUMNS)


def speedup(pairs: pd.DataFrame) -> float:
    """The paper's Table 5 speedup of paired runs: 1 − mean delay (ELA) / mean delay (RIG)."""
    return 1 - pairs["delay"].mean() / pairs["delay_rigid"].mean()
