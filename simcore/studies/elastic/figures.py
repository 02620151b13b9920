"""Figures of the elastic study (docs/elastic.md), drawn from the frames of `run_jobset`: the
paper's Figures 3-6 (the distribution of W per job type), 7 (the pool over time) and 8 (the
running utilisation), and the fairness over time against NAT. Time is in days since the first
online submission. A learner run's colour follows its model and λ, so that RIG-EST-0.5 and
ELA-EST-0.5 share one; elastic runs are dashed, the fixed-pool baselines of an elastic run
dotted in its colour. Runs with identical schedules are drawn once, labelled "A = B"."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from simcore.reporting.style import PALETTE, plt, shared_legend
from simcore.studies.elastic.metrics import SAME_POOL_MARK, same_pool_name

# the shared colour-blind-safe palette: black NAT, grey FCFS, vermillion EDF, the others for learners
BASELINE_COLOURS = {"NAT": PALETTE[0], "FCFS": "grey", "EDF": PALETTE[5]}
LEARNER_COLOURS = tuple(colour for colour in PALETTE[1:] if colour != BASELINE_COLOURS["EDF"])
FAIRNESS_WINDOW = 200  # jobs: about 9 hours of submissions on LPC-EGEE set 1
DAY = 86400.0
TIME_LABEL = "time since the first online submission (days)"


SHARE_FLOOR = 1e-3  # the log axis of P(W <= w): shares below one job in a thousand are not drawn


def is_learner(name: str) -> bool:
    """A learner run, not NAT, FCFS, EDF or one of the elastic runs' fixed-pool references."""
    return name not in BASELINE_COLOURS and SAME_POOL_MARK not in name and name != "FCFS P_max"


def merged(block: pd.DataFrame, names, pool=None) -> dict[str, str]:
    """Each distinct schedule among `names` (their seed-0 starts, and `pool(name)`, its pool steps,
    where the figure draws the pool too), by its first run: its label, "A = B" when runs made the
    same schedule."""
    schedules: dict[tuple, list] = {}
    for name in names:
        key = (block.loc[block["run"] == name, "start"].to_numpy().tobytes(), *(pool(name) if pool else ()))
        schedules.setdefault(key, []).append(name)
    return {group[0]: " = ".join(group) for group in schedules.values()}


def settings(name: str) -> str:
    """A learner run's model and λ ("EST-0.5" for RIG-EST-0.5 and ELA-EST-0.5), which sets its colour."""
    return name[4:] if name[:4] in ("RIG-", "ELA-") else name


def run_styles(names) -> dict[str, dict]:
    """Colour and line style of every run among `names`, in order: a learner's colour by its model
    and λ (elastic dashed), NAT, FCFS and EDF their own, FCFS on P_max grey dash-dotted, a
    fixed-pool baseline of an elastic run that run's colour, dotted."""
    names = list(dict.fromkeys(names))
    keys = list(dict.fromkeys(settings(name) for name in names if is_learner(name)))

    def colour(name):
        if name in BASELINE_COLOURS:
            return BASELINE_COLOURS[name]
        if name == "FCFS P_max":
            return "grey"
        owner = name.split(SAME_POOL_MARK)[-1]
        if settings(owner) not in keys:
            keys.append(settings(owner))
        return LEARNER_COLOURS[keys.index(settings(owner)) % len(LEARNER_COLOURS)]

    def line(name):
        if SAME_POOL_MARK in name:
            return ":"
        return "-." if name == "FCFS P_max" else "--" if name.startswith("ELA") else "-"

    return {name: {"color": colour(name), "linestyle": line(name)} for name in names}


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


def panels_of(block: pd.DataFrame, rows: pd.DataFrame) -> dict[str, list]:
    """The runs of the rigid panel (the rigid learners, FCFS and EDF on the rigid pool, NAT) and of the
    elastic panel (the elastic learners, EDF on each one's own mean pool, FCFS on P_max)."""
    names = list(dict.fromkeys(block["run"]))
    kinds = dict(zip(rows["run"], rows["kind"]))
    rigid = [n for n in names if kinds.get(n) == "RIG"] + [n for n in ("FCFS", "EDF", "NAT") if n in names]
    elastic = [n for n in names if kinds.get(n) == "ELA"]
    elastic += [same_pool_name("EDF", n) for n in elastic if same_pool_name("EDF", n) in names]
    elastic += ["FCFS P_max"] if "FCFS P_max" in names else []
    return {"rigid pool": rigid, "elastic pool": elastic} if elastic else {"rigid pool": rigid}


def responsiveness_figure(series: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> Figure:
    """P(W <= w) against w, on a log axis, for the counted interactive (top) and batch (bottom)
    jobs (the paper's Figures 3-6 as the share of jobs *below* w, so that runs whose W is near 1
    for most jobs separate): the rigid runs with FCFS, EDF and NAT (left), the elastic runs with EDF
    on each one's own mean pool and FCFS on P_max (right); seed 0."""
    block = series[(series["jobset"] == jobset) & series["counted"]]
    panels = panels_of(block, runs[runs["jobset"] == jobset])
    styles = run_styles(block["run"])
    figure, axes = plt.subplots(
        2, len(panels), figsize=(5.5 * len(panels), 7.5), sharex=True, sharey=True, squeeze=False
    )
    for column, (title, names) in enumerate(panels.items()):
        for row, (kind, label) in enumerate(((True, "interactive"), (False, "batch"))):
            axis = axes[row, column]
            jobs = block[block["interactive"] == kind]
            for name, legend in merged(jobs, names).items():
                values = np.sort(jobs.loc[jobs["run"] == name, "W"].to_numpy())
                if len(values):
                    below = np.arange(1, len(values) + 1) / len(values)
                    axis.step(np.r_[values, 1.0], np.r_[below, 1.0], where="post", label=legend, **styles[name])
            axis.set_yscale("log")
            axis.set_ylim(SHARE_FLOOR, 1.05)
            axis.set_xlim(0, 1)
            axis.grid(alpha=0.3, which="both")
            axis.set_title(f"{label} (n = {jobs['job'].nunique():,}), {title}")
            if column == 0:
                axis.set_ylabel("P(W <= w) (log)")
            if row == 1:
                axis.set_xlabel("responsiveness w")
    figure.suptitle(f"{jobset}: distribution of the responsiveness W = p / (p + wait) (lower is better)")
    shared_legend(figure, axes.ravel(), "run", below=True)
    return figure


def pool_figure(series: pd.DataFrame, pools: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> Figure:
    """The pool over time of each elastic run (seed 0, the paper's Figure 7), one panel per distinct
    schedule (runs with identical schedules share one, titled "A = B"), up to its last completion,
    over a grey backdrop of its busy cores (each online job holds one core from its start to its
    start + p), with the rigid pool as a dotted line. Without an elastic run, one panel shows the
    busy cores of the first run and says so."""
    block, pools, rows, origin, rigid_pool = job_set_frames(series, pools, runs, jobset)
    elastic = merged(block, dict.fromkeys(rows.loc[rows["kind"] == "ELA", "run"]), steps_of(pools, origin, rigid_pool))
    first = next(iter(dict.fromkeys(block["run"])), None)
    panels = elastic or {first: f"no elastic run in this job set: busy cores of {first}"}
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(7.0, 1.0 + 1.8 * len(panels)), sharex=True, sharey=True, squeeze=False
    )
    axes = axes[:, 0]
    for axis, (name, title) in zip(axes, panels.items()):
        jobs = block[block["run"] == name]
        end = jobs["start"] + jobs["run_time"]
        instants, counts = busy_cores(jobs["start"], end)
        axis.fill_between((instants - origin) / DAY, counts, step="post", color="0.8", linewidth=0, label="busy cores")
        if name in elastic:
            times, sizes = pool_steps(pools, name, origin, rigid_pool)
            days = (np.r_[times, end.max()] - origin) / DAY
            axis.step(days, np.r_[sizes, sizes[-1]], where="post", color=PALETTE[1], linewidth=0.8, label="pool")
            mean = rows.loc[(rows["run"] == name) & (rows["seed"] == 0), "mean_pool"]
            title += f" (time-average pool {mean.iloc[0]:.1f} cores)" if len(mean) else ""
        axis.set_title(title)
        if rigid_pool is not None:
            axis.axhline(rigid_pool, color="black", linestyle=":", label=f"rigid pool ({rigid_pool} cores)")
        axis.set_ylabel("cores")
        axis.set_ylim(bottom=0)
    time_axes(axes)
    figure.suptitle(f"{jobset}: pool size over time")
    shared_legend(figure, axes, "")
    return figure


def utilisation_figure(series: pd.DataFrame, pools: pd.DataFrame, runs: pd.DataFrame, jobset: str) -> Figure:
    """The running utilisation U(T) (the paper's Figure 8) at each completion instant T: the work
    Σ p_j of the online jobs completed by T over the pool's area ∫ P(t) dt from the first online
    submission to T (`running_utilisation`); seed 0. Left: the rigid learners with FCFS and EDF on
    the rigid pool; right: the elastic learners with EDF on each one's own mean pool."""
    block, pools, rows, origin, rigid_pool = job_set_frames(series, pools, runs, jobset)
    styles = run_styles(block["run"])
    panels = {title: [n for n in names if n != "NAT"] for title, names in panels_of(block, rows).items()}
    figure, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.6), sharey=True, squeeze=False)
    axes = axes[0]
    for axis, (title, names) in zip(axes, panels.items()):
        for name, legend in merged(block, names, steps_of(pools, origin, rigid_pool, rows)).items():
            jobs = block[block["run"] == name]
            end = (jobs["start"] + jobs["run_time"]).to_numpy()
            at = np.unique(end)
            times, sizes = pool_steps(pools, name, origin, pool_of(rows, name, rigid_pool))
            utilisation = running_utilisation(end, jobs["run_time"], times, sizes, at)
            axis.plot((at - origin) / DAY, utilisation, label=legend, **styles[name])
        axis.set_title(title)
    axes[0].set_ylabel("U(T) = completed work / pool area")
    axes[0].set_ylim(0, 1.02)
    time_axes(axes)
    for axis in axes:  # side by side: each panel its own time axis label
        axis.set_xlabel(TIME_LABEL)
    figure.suptitle(f"{jobset}: running utilisation")
    shared_legend(figure, axes, "run", below=True)
    return figure


def steps_of(pools: pd.DataFrame, origin: float, rigid_pool, rows: pd.DataFrame | None = None):
    """A run's pool steps as a key of `merged` (a fixed-pool baseline's pool from its row, when given)."""

    def key(name: str) -> tuple:
        fixed = rigid_pool if rows is None else pool_of(rows, name, rigid_pool)
        return tuple(steps.tobytes() for steps in pool_steps(pools, name, origin, fixed))

    return key


def pool_of(rows: pd.DataFrame, name: str, rigid_pool) -> float:
    """The fixed pool of a run without pool records: a baseline's (seed 0), else the rigid pool."""
    own = rows.loc[(rows["run"] == name) & (rows["seed"] == 0) & (rows["kind"] == "baseline"), "mean_pool"]
    return float(own.iloc[0]) if len(own) and not np.isnan(own.iloc[0]) else rigid_pool


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
    styles = {
        name: style
        for name, style in run_styles(block["run"]).items()
        if name in BASELINE_COLOURS or (is_learner(name) and not name.startswith("ELA"))
    }
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
    """The job set's figures by name, in the order of rules.FIGURES."""
    return {
        "responsiveness": responsiveness_figure(series, runs, jobset),
        "pool": pool_figure(series, pools, runs, jobset),
        "utilisation": utilisation_figure(series, pools, runs, jobset),
        "fairness": fairness_figure(series, jobset),
    }
