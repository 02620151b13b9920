"""Figures of the elastic study (docs/elastic.md), drawn from the frames of `run_jobset`: the
paper's Figures 3-6 (the inverse CDF of W per job type), 7 (the pool over time) and 8 (the
running utilisation), and the fairness over time against NAT. Time is in days since the first
online submission. A learner run's colour follows its model and λ, so that RIG-EST-0.5 and
ELA-EST-0.5 share one; elastic runs are dashed."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from simcore.reporting.style import plt, shared_legend

FIGURES = ("responsiveness", "pool", "utilisation", "fairness")
BASELINE_COLOURS = {"NAT": "black", "FCFS": "grey", "EDF": "tab:brown"}
LEARNER_COLOURS = tuple(colour for index, colour in enumerate(plt.get_cmap("tab10").colors) if index not in (5, 7))
FAIRNESS_WINDOW = 200  # jobs: about 9 hours of submissions on LPC-EGEE set 1
DAY = 86400.0
TIME_LABEL = "time since the first online submission (days)"


def is_learner(name: str) -> bool:
    """A learner run, not NAT, FCFS, EDF or one of the elastic runs' FCFS references."""
    return name not in BASELINE_COLOURS and not name.startswith("FCFS ")


def settings(name: str) -> str:
    """A learner run's model and λ ("EST-0.5" for RIG-EST-0.5 and ELA-EST-0.5), which sets its colour."""
    return name[4:] if name[:4] in ("RIG-", "ELA-") else name


def run_styles(names) -> dict[str, dict]:
    """Colour and line style of the learners and of NAT, FCFS and EDF among `names`, in order."""
    names = [name for name in dict.fromkeys(names) if is_learner(name) or name in BASELINE_COLOURS]
    keys = list(dict.fromkeys(settings(name) for name in names if is_learner(name)))
    return {
        name: {
            "color": BASELINE_COLOURS.get(name) or LEARNER_COLOURS[keys.index(settings(name)) % len(LEARNER_COLOURS)],
            "linestyle": "--" if name.startswith("ELA") else "-",
        }
        for name in names
    }


def running_utilisation(end, work, times, sizes, at) -> np.ndarray:
    """U(T) at each T of `at` (T >= times[0]): the work Σ p_j of the jobs completed by T (end_j <= T)
    over the pool's area ∫ P(t) dt from times[0] to T, P being `sizes[i]` from `times[i]` on; 1
    where the area is 0 (docs/elastic.md §8.5)."""
    end, work, times, sizes, at = (np.asarray(values, dtype=float) for values in (end, work, times, sizes, at))
    order = np.argsort(end, kind="stable")
    done = np.r_[0.0, np.cumsum(work[order])][np.searchsorted(end[order], at, side="right")]
    step = np.searchsorted(times, at, side="right") - 1
    area = np.r_[0.0, np.cumsum(sizes[:-1] * np.diff(times))][step] + sizes[step] * (at - times[step])
    return np.divide(done, area, out=np.ones_like(area), where=area > 0)


def busy_cores(start, end) -> tuple[np.ndarray, np.ndarray]:
    """The number of running jobs from each instant on (a step function): (instants, counts)."""
    instants, position = np.unique(np.r_[start, end], return_inverse=True)
    counts = np.cumsum(np.bincount(position, weights=np.r_[np.ones(len(start)), -np.ones(len(end))]))
    return instants, counts


def pool_steps(pools: pd.DataFrame, name: str, origin: float, rigid_pool) -> tuple[np.ndarray, np.ndarray]:
    """A run's pool (times, sizes): its recorded changes, or the rigid pool from `origin` on."""
    own = pools[pools["run"] == name].sort_values("time", kind="stable")
    if own.empty:
        return np.array([origin]), np.array([rigid_pool], dtype=float)
    return own["time"].to_numpy(float), own["pool"].to_numpy(float)


def job_set_frames(series, pools, runs, jobset):
    """The job set's rows of the three frames, its first online submission and its rigid pool."""
    block = series[series["jobset"] == jobset]
    rows = runs[runs["jobset"] == jobset]
    rigid_pool = int(rows["rigid_pool"].iloc[0]) if len(rows) else None
    return block, pools[pools["jobset"] == jobset], rows, block["submit"].min(), rigid_pool


def time_axes(axes) -> None:
    """Days on a shared x axis, labelled under the last panel."""
    for axis in axes:
        axis.set_xlim(left=0)
        axis.grid(alpha=0.3)
    axes[-1].set_xlabel(TIME_LABEL)


def responsiveness_figure(series: pd.DataFrame, jobset: str) -> Figure:
    """P(W > w) against w for the counted interactive and batch jobs (the paper's Figures 3-6), one
    line per run: the learners (seed 0), FCFS, EDF and NAT."""
    block = series[(series["jobset"] == jobset) & series["counted"]]
    styles = run_styles(block["run"])
    figure, axes = plt.subplots(1, 2, figsize=(9.5, 3.4), sharey=True)
    for axis, (kind, title) in zip(axes, ((True, "interactive"), (False, "batch"))):
        jobs = block[block["interactive"] == kind]
        for name, style in styles.items():
            values = np.sort(jobs.loc[jobs["run"] == name, "W"].to_numpy())
            if len(values):
                above = 1.0 - np.arange(len(values) + 1) / len(values)
                axis.step(np.r_[0.0, values], above, where="post", label=name, **style)
        axis.set_title(f"{title} jobs (n = {jobs['job'].nunique():,})")
        axis.set_xlabel("responsiveness w")
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1.02)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("P(W > w)")
    figure.suptitle(f"{jobset}: inverse CDF of the responsiveness W = p / (p + wait) (dashed: elastic)")
    shared_legend(figure, axes, "run")
    return figure


def pool_figure(series: pd.DataFrame, pools: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> Figure:
    """The pool over time of each elastic run (seed 0, the paper's Figure 7), one panel each, up to
    its last completion, over a grey backdrop of its busy cores (each online job holds one core
    from its start to its start + p), with the rigid pool as a dotted line. Without an elastic
    run, one panel shows the busy cores of the first run and says so."""
    block, pools, rows, origin, rigid_pool = job_set_frames(series, pools, runs, jobset)
    elastic = list(dict.fromkeys(rows.loc[rows["kind"] == "ELA", "run"]))
    panels = elastic or [next(iter(run_styles(block["run"])), None)]
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(7.0, 1.0 + 1.8 * len(panels)), sharex=True, sharey=True, squeeze=False
    )
    axes = axes[:, 0]
    for axis, name in zip(axes, panels):
        jobs = block[block["run"] == name]
        end = jobs["start"] + jobs["run_time"]
        instants, counts = busy_cores(jobs["start"], end)
        axis.fill_between((instants - origin) / DAY, counts, step="post", color="0.8", linewidth=0, label="busy cores")
        if name in elastic:
            times, sizes = pool_steps(pools, name, origin, rigid_pool)
            days = (np.r_[times, end.max()] - origin) / DAY
            axis.step(days, np.r_[sizes, sizes[-1]], where="post", color="tab:blue", linewidth=0.8, label="pool")
            mean = rows.loc[(rows["run"] == name) & (rows["seed"] == 0), "mean_pool"]
            axis.set_title(name + (f" (time-average pool {mean.iloc[0]:.1f} cores)" if len(mean) else ""))
        else:
            axis.set_title(f"no elastic run in this job set: busy cores of {name}")
        if rigid_pool is not None:
            axis.axhline(rigid_pool, color="black", linestyle=":", label=f"rigid pool ({rigid_pool} cores)")
        axis.set_ylabel("cores")
        axis.set_ylim(bottom=0)
    time_axes(axes)
    figure.suptitle(f"{jobset}: pool size over time")
    shared_legend(figure, axes, "")
    return figure


def utilisation_figure(series: pd.DataFrame, pools: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> Figure:
    """The running utilisation U(T) (the paper's Figure 8) of each learner run (seed 0) and of FCFS
    and EDF, at each completion instant T: the work Σ p_j of the online jobs completed by T over
    the pool's area ∫ P(t) dt from the first online submission to T (`running_utilisation`).
    FCFS and EDF run on the constant rigid pool."""
    block, pools, rows, origin, rigid_pool = job_set_frames(series, pools, runs, jobset)
    styles = run_styles(block["run"])
    learners = list(dict.fromkeys(rows.loc[rows["kind"] != "baseline", "run"]))
    figure, axis = plt.subplots(figsize=(7.0, 3.4))
    for name in [name for name in learners + ["FCFS", "EDF"] if name in styles]:
        jobs = block[block["run"] == name]
        end = (jobs["start"] + jobs["run_time"]).to_numpy()
        at = np.unique(end)
        times, sizes = pool_steps(pools, name, origin, rigid_pool)
        utilisation = running_utilisation(end, jobs["run_time"], times, sizes, at)
        axis.plot((at - origin) / DAY, utilisation, label=name, **styles[name])
    axis.set_title(f"{jobset}: running utilisation (dashed: elastic)")
    axis.set_ylabel("U(T) = completed work / pool area")
    axis.set_ylim(0, 1.02)
    time_axes([axis])
    shared_legend(figure, [axis], "run")
    return figure


def smoothed(values: pd.Series) -> pd.Series:
    """The centred mean over FAIRNESS_WINDOW consecutive values (NaN within half a window of the ends)."""
    return values.rolling(FAIRNESS_WINDOW, center=True).mean()


def fairness_figure(series: pd.DataFrame, jobset: str) -> Figure:
    """The fairness F at election against the submit time, for the rigid learners (seed 0), FCFS,
    EDF and NAT, and in a second panel each one's difference F − F(NAT), job by job. Each point
    is a mean over FAIRNESS_WINDOW consecutive online jobs (in submit order, centred), so the
    curves start and end half a window inside the run. Without recorded waits there is no NAT:
    one panel, and the title says so."""
    block = series[series["jobset"] == jobset]
    origin = block["submit"].min()
    styles = {name: style for name, style in run_styles(block["run"]).items() if not name.startswith("ELA")}
    nat = block[block["run"] == "NAT"].set_index("job")["fairness"]
    panels = 1 if nat.empty else 2
    figure, axes = plt.subplots(panels, 1, figsize=(7.0, 1.4 + 2.0 * panels), sharex=True, squeeze=False)
    axes = axes[:, 0]
    for name, style in styles.items():
        jobs = block[block["run"] == name].sort_values(["submit", "job"], kind="stable")
        days = (jobs["submit"] - origin) / DAY
        axes[0].plot(days, smoothed(jobs["fairness"]), label=name, **style)
        if panels == 2 and name != "NAT":
            axes[1].plot(days, smoothed(jobs["fairness"] - nat.reindex(jobs["job"]).to_numpy()), label=name, **style)
    note = " (no NAT: the log records no waits)" if nat.empty else ""
    axes[0].set_title(f"{jobset}: fairness at election{note}")
    axes[0].set_ylabel(f"F (mean over {FAIRNESS_WINDOW} jobs)")
    if panels == 2:
        axes[1].axhline(0, color="black", linewidth=0.8)
        axes[1].set_ylabel("F − F(NAT)")
    time_axes(axes)
    shared_legend(figure, axes, "run")
    return figure


def draw_figures(series: pd.DataFrame, pools: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> dict[str, Figure]:
    """The job set's figures by name, in FIGURES order."""
    return {
        "responsiveness": responsiveness_figure(series, jobset),
        "pool": pool_figure(series, pools, runs, jobset),
        "utilisation": utilisation_figure(series, pools, runs, jobset),
        "fairness": fairness_figure(series, jobset),
    }
