"""The co-scheduling experiments of seed 002 on traces (docs/coscheduling.md §6-7).

E1 (the paper's design, a queue flush): the filtered jobs cut in workload
order into windows of 45, each submitted at t = 0 to a machine sized for a
cluster load L (8x, 4x, 2x). E2 (online replay): the whole trace at its logged
submit times on a machine sized for an offered load (0.5, 0.7, 0.9). Every
configuration (a strategy with its learner options) runs on the same
workloads; run_metrics gives the section-7 metrics of one run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from simcore.engine.workload import Workload
from simcore.reporting.reproduction import mean_and_range
from simcore.studies.coscheduling.sharing import (
    EXPERTS,
    SharingInputError,
    SharingResult,
    SharingSettings,
    check_efficiencies,
    default_memory_capacity,
    simulate_sharing,
)
from simcore.workloads.progress import progress

HOUR = 3600.0
BSLD_TAU = 10.0
SLOWDOWN_QUANTILES = np.linspace(0.0, 1.0, 101)
# Named configurations: a strategy and its options (SharingSettings fields);
# `warm` (E1 only) carries the learner's state from one window to the next.
DEFAULT_CONFIGURATIONS = {
    "SPACE": {"strategy": "SPACE"},
    "STATIC": {"strategy": "STATIC"},
    "ASAX": {"strategy": "ASAX"},
    "HEADROOM": {"strategy": "HEADROOM"},
}
# The keys of a configuration: SharingSettings fields a configuration may set, and `warm`.
CONFIGURATION_KEYS = (
    "strategy",
    "levels",
    "loss",
    "scope",
    "interference",
    "protect_reservation",
    "fall_through",
    "learn",
    "memory_capacity",
    "quotas",
    "feedback",
    "features",
    "guests",
    "scheduler",
    "static",
    "cpu_limit",
    "warm",
)
DETERMINISTIC = ("SPACE", "STATIC", "HEADROOM")


def check_configurations(configurations: dict) -> dict:
    """Named configurations, validated: {name: options}; SPACE must be one (the ratios' base)."""
    for name, options in configurations.items():
        unknown = set(options) - set(CONFIGURATION_KEYS)
        if unknown:
            raise SharingInputError(
                f"configuration {name!r}: unknown keys {sorted(unknown)}; known: {', '.join(CONFIGURATION_KEYS)}"
            )
        if "strategy" not in options:
            raise SharingInputError(f"configuration {name!r}: no strategy")
        if options.get("warm") and options["strategy"] != "ASAX":
            raise SharingInputError(f"configuration {name!r}: only an ASAX learner can be warm")
        SharingSettings(**{k: v for k, v in options.items() if k != "warm"})
    spaces = [name for name, options in configurations.items() if options["strategy"] == "SPACE"]
    if len(spaces) != 1:
        raise SharingInputError(
            f"the configurations need exactly one with strategy SPACE (the base of every ratio), got {spaces}"
        )
    return configurations


def allocation_utilisations(result: SharingResult) -> np.ndarray:
    """Per job, the CPU it used over the CPU it was allocated, u q W / allocated (the paper's "CPU
    utilisation proportionally to allocated capacity", docs/coscheduling.md §7); NaN for a job
    allocated nothing (zero work)."""
    workload = result.workload
    used = result.efficiency * workload.procs * workload.run
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(result.allocated > 0, used / result.allocated, np.nan)


def memory_allocation_utilisations(result: SharingResult) -> np.ndarray:
    """Per job, its memory per processor over the memory of a processor, mem / M (NaN when the
    memory is unknown or memory is off): what a job uses of the memory of the processors it holds."""
    return result.workload.memory / result.memory_capacity


def _mean(values: np.ndarray) -> float:
    known = values[~np.isnan(values)]
    return float(known.mean()) if len(known) else math.nan


def run_metrics(result: SharingResult) -> dict:
    """Section 7's metrics of one run."""
    workload = result.workload
    submit, work, procs = workload.submit, workload.run, workload.procs
    start, end = result.start, result.end
    response = end - submit
    makespan = float(end.max() - submit.min())
    guests = result.donor >= 0
    paired = guests.copy()
    paired[result.donor[guests]] = True
    positive = work > 0
    slowdown = (end - start)[positive] / work[positive]
    paired_slowdown = (end - start)[positive & paired] / work[positive & paired]
    useful = float(np.sum(result.efficiency * procs * work))
    memory_area = float(np.nansum(workload.memory * procs * (end - start)))  # jobs of known memory
    allocation = allocation_utilisations(result)
    learner = result.learner
    cases = int(learner.get("cases", 0))
    return {
        "jobs": len(workload),
        "machine_size": workload.machine_size,
        "makespan": makespan,
        "mean_wait": float(np.mean(start - submit)),
        "mean_response": float(np.mean(response)),
        "mean_bsld": float(np.mean(np.maximum(response / np.maximum(work, BSLD_TAU), 1.0))),
        "mean_slowdown": float(np.mean(slowdown)) if len(slowdown) else math.nan,
        "p95_slowdown": float(np.percentile(slowdown, 95)) if len(slowdown) else math.nan,
        "mean_paired_slowdown": float(np.mean(paired_slowdown)) if len(paired_slowdown) else math.nan,
        "p95_paired_slowdown": float(np.percentile(paired_slowdown, 95)) if len(paired_slowdown) else math.nan,
        "overruns": int(np.sum(end - start > workload.requested)),
        "guests": int(guests.sum()),
        "guest_share": float(guests.mean()),
        "paired_jobs": int(paired.sum()),
        "cpu_utilisation": useful / (workload.machine_size * makespan) if makespan > 0 else math.nan,
        "held_utilisation": useful / result.busy_area if result.busy_area > 0 else math.nan,
        "allocation_utilisation": _mean(allocation),
        "paired_allocation_utilisation": _mean(allocation[paired]),
        "memory_allocation_utilisation": _mean(memory_allocation_utilisations(result)),
        "memory_held_utilisation": (
            memory_area / (result.memory_capacity * result.busy_area) if result.busy_area > 0 else math.nan
        ),
        "cases": cases,
        "mean_loss": learner["loss_sum"] / cases if cases else math.nan,
        "rounds": len(learner.get("alphas", ())),
        "histogram": [int(count) for count in learner.get("histogram", ())],
    }


def slowdown_quantiles(result: SharingResult) -> dict:
    """Percentiles 0..100 of the sharing slowdown D_j, over all jobs and over paired ones (for ECDFs)."""
    work = result.workload.run
    guests = result.donor >= 0
    paired = guests.copy()
    paired[result.donor[guests]] = True
    positive = work > 0
    slowdown = (result.end - result.start) / np.where(positive, work, 1.0)

    def quantiles(mask):
        return np.quantile(slowdown[mask], SLOWDOWN_QUANTILES).tolist() if mask.any() else []

    return {"slowdown_quantiles": quantiles(positive), "paired_slowdown_quantiles": quantiles(positive & paired)}


@dataclass(frozen=True)
class Sweep:
    """What E1 and E2 run on a trace: the configurations at every load, κ and (learners) seed."""

    configurations: dict
    loads: tuple
    kappas: tuple = (0.0,)
    seeds: int = 1
    memory: bool = True
    memory_capacity: float | None = None  # KB per processor; None: the whole trace's default
    efficiency: str = "require"

    def grid(self, workload: Workload, efficiency: str | None = None):
        """(name, options, κ, seed, settings) of every run at one load. SPACE forms no pair: it runs
        once (κ = 0); deterministic strategies run one seed. The memory capacity is the whole trace's."""
        capacity = self.memory_capacity
        if self.memory and capacity is None:
            capacity = default_memory_capacity(workload)
        for name, options in self.configurations.items():
            # a configuration's own memory capacity (the node-memory ablation) replaces the trace's
            strategy_options = {"memory_capacity": capacity} | {k: v for k, v in options.items() if k != "warm"}
            for kappa in [0.0] if options["strategy"] == "SPACE" else self.kappas:
                settings = SharingSettings(
                    **strategy_options,
                    kappa=kappa,
                    memory=self.memory,
                    efficiency=efficiency or self.efficiency,
                )
                for seed in range(1 if options["strategy"] in DETERMINISTIC else self.seeds):
                    yield name, options, kappa, seed, settings


# -- E1: queue flush -------------------------------------------------------------


def flush_windows(workload: Workload, size: int, max_windows: int | None = None) -> list[np.ndarray]:
    """Consecutive windows of `size` jobs in workload order; a last partial one is left out."""
    count = len(workload) // size
    if max_windows is not None:
        count = min(count, max_windows)
    return [np.arange(k * size, (k + 1) * size) for k in range(count)]


def flush_workload(workload: Workload, indices: np.ndarray, load: float) -> tuple[Workload, bool]:
    """The window's jobs submitted together at t = 0 on m_L = max(max q, ceil(Σq / L)) processors;
    the flag says whether the largest job set the size."""
    window = workload.take(indices)
    by_load = math.ceil(window.procs.sum() / load)
    largest = int(window.procs.max())
    return (
        replace(window, submit=np.zeros(len(window)), machine_size=max(largest, by_load), filter_counts={}),
        largest > by_load,
    )


def run_flush(
    workload: Workload, sweep: Sweep, window: int = 45, max_windows: int | None = None, label: str | None = None
) -> pd.DataFrame:
    """E1: every run of the sweep on every window; one row per window run. With a `label`, a
    progress line on stderr per setting (a load and a run of the grid, over all its windows;
    simcore.workloads.progress)."""
    for *_, settings in sweep.grid(workload):
        check_efficiencies(workload, settings)
    frames = []  # one per setting: a whole trace's windows as dicts would take gigabytes
    windows = flush_windows(workload, window, max_windows)
    # efficiencies checked on the trace above: a window may record none
    grid = list(sweep.grid(workload, efficiency="assume-cpu-bound"))

    def settings_by_load():  # each load's windows flushed once, before its first setting
        for load in sweep.loads:
            flushed = [flush_workload(workload, indices, load) for indices in windows]
            for run in grid:
                yield load, flushed, run

    chosen = settings_by_load()
    if label is not None:
        chosen = progress(chosen, len(sweep.loads) * len(grid), label)
    for load, flushed, (name, options, kappa, seed, settings) in chosen:
        state, rows = None, []
        for number, (jobs, size_binds) in enumerate(flushed):
            result = simulate_sharing(jobs, settings, seed=[seed, number], learner_state=state)
            if options.get("warm"):
                state = result.learner["state"]
            rows.append(
                {
                    "experiment": "E1",
                    "load": float(load),
                    "kappa": kappa,
                    "configuration": name,
                    "strategy": options["strategy"],
                    "seed": seed,
                    "window": number,
                    "size_binds": size_binds,
                    **run_metrics(result),
                }
            )
        frames.append(pd.DataFrame(rows))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# -- E2: online replay -------------------------------------------------------------


def replay_workload(workload: Workload, load: float) -> tuple[Workload, int]:
    """The trace on m' = ceil(Σ q W / (L (r_max - r_min))) processors, jobs wider than m' dropped
    (their count returned)."""
    span = float(workload.submit.max() - workload.submit.min())
    if span <= 0:
        raise SharingInputError(f"{workload.source}: all jobs are submitted at one instant; E2 needs a span")
    size = math.ceil(float(np.sum(workload.procs * workload.run)) / (load * span))
    if size < 1:
        raise SharingInputError(f"{workload.source}: no work to replay (every job ran 0 s)")
    keep = np.flatnonzero(workload.procs <= size)
    return replace(workload.take(keep), machine_size=size), len(workload) - len(keep)


def run_replay(workload: Workload, sweep: Sweep, label: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """E2: (runs, learner weights per round) for every run of the sweep but the warm ones
    (a replay is one run: there is nothing to carry a learner's state to). With a `label`, a
    progress line on stderr per run (simcore.workloads.progress)."""
    rows, weights = [], []
    grid = [run for run in sweep.grid(workload) if not run[1].get("warm")]  # run[1]: its options

    def runs_by_load():  # each load's replayed trace built once, before its first run
        for load in sweep.loads:
            replayed, dropped = replay_workload(workload, load)
            for run in grid:
                yield load, replayed, dropped, run

    chosen = runs_by_load()
    if label is not None:
        chosen = progress(chosen, len(sweep.loads) * len(grid), label)
    for load, replayed, dropped, (name, options, kappa, seed, settings) in chosen:
        result = simulate_sharing(replayed, settings, seed=seed)
        key = {"load": float(load), "kappa": kappa, "configuration": name, "seed": seed}
        rows.append(
            {
                "experiment": "E2",
                **key,
                "strategy": options["strategy"],
                "window": 0,
                "size_binds": False,
                "dropped": dropped,
                **run_metrics(result),
                **slowdown_quantiles(result),
            }
        )
        alphas = result.learner["alphas"]
        if len(alphas):
            frame = pd.DataFrame(alphas, columns=list(EXPERTS))
            weights.append(frame.assign(**key, round=np.arange(1, len(alphas) + 1)))
    weights = (
        pd.concat(weights, ignore_index=True)
        if weights
        else pd.DataFrame(columns=[*EXPERTS, "load", "kappa", "configuration", "seed", "round"])
    )
    return pd.DataFrame(rows), weights


# -- aggregation: every configuration against SPACE ------------------------------------

RATIO_METRICS = ("mean_wait", "mean_response", "makespan")
UTILISATIONS = ("cpu_utilisation", "held_utilisation", "allocation_utilisation", "memory_held_utilisation")
# The utilisations whose gain over SPACE is set against a ceiling (docs/coscheduling.md §7): the
# analytic bound of the sharing model, and what HEADROOM reaches on the same window.
CEILINGS = {
    # at most two jobs a processor, rates <= 1: U <= min(1, 2 U_SPACE), so a gain <= min(U, 1 - U)
    "held_utilisation": lambda space: 100.0 * np.minimum(space, 1.0 - space),
    # no job uses more than it is allocated: U <= 1
    "allocation_utilisation": lambda space: 100.0 * (1.0 - space),
}
# SPACE forms no pair, so one SPACE run (κ = 0, seed 0) is the base of every κ and seed;
# HEADROOM is deterministic: its run of the same κ is the base of every seed.
BASE_KEYS = ["trace", "experiment", "load", "window"]
HEADROOM_KEYS = [*BASE_KEYS, "kappa"]
GROUP_KEYS = ["trace", "experiment", "load", "kappa", "configuration", "strategy"]


def against_space(runs: pd.DataFrame) -> pd.DataFrame:
    """Every run beside its SPACE base (columns <metric>_space): ratios, utilisation gains in points,
    and each gain as a fraction of its analytic ceiling and of HEADROOM's gain on the same window."""
    space = runs.loc[runs["strategy"] == "SPACE", BASE_KEYS + [*RATIO_METRICS, *UTILISATIONS]]
    merged = runs.merge(space, on=BASE_KEYS, suffixes=("", "_space"), validate="many_to_one")
    for metric in RATIO_METRICS:
        base = merged[f"{metric}_space"]
        merged[f"{metric}_ratio"] = (merged[metric] / base).where(base > 0)
    for metric in UTILISATIONS:
        merged[f"{metric}_gain"] = 100.0 * (merged[metric] - merged[f"{metric}_space"])
    headroom = merged.loc[merged["strategy"] == "HEADROOM", HEADROOM_KEYS + [f"{m}_gain" for m in CEILINGS]]
    headroom = headroom.drop_duplicates(HEADROOM_KEYS).rename(columns={f"{m}_gain": f"{m}_headroom" for m in CEILINGS})
    merged = merged.merge(headroom, on=HEADROOM_KEYS, how="left", validate="many_to_one")
    for metric, ceiling in CEILINGS.items():
        gain = merged[f"{metric}_gain"]
        merged[f"{metric}_ceiling"] = ceiling(merged[f"{metric}_space"])
        merged[f"{metric}_of_ceiling"] = (gain / merged[f"{metric}_ceiling"]).where(merged[f"{metric}_ceiling"] > 0)
        merged[f"{metric}_of_headroom"] = (gain / merged[f"{metric}_headroom"]).where(merged[f"{metric}_headroom"] > 0)
    merged["runtime_change"] = 100.0 * (merged["mean_slowdown"] - 1.0)
    return merged


# Columns of the paper queue's runs (and `rounds`, which hand-made frames may lack) summarised when present.
QUEUE_COLUMNS = ("rounds", "scheduler", "learner_round", *(f"alpha_{expert}" for expert in EXPERTS))
# Columns summarised by their mean and their 10th and 90th percentiles over windows (E1) or seeds (E2).
SPREAD_COLUMNS = (
    *(f"{metric}_ratio" for metric in RATIO_METRICS),
    *UTILISATIONS,
    *(f"{metric}_gain" for metric in UTILISATIONS),
    *(f"{metric}_{part}" for metric in CEILINGS for part in ("ceiling", "headroom", "of_ceiling", "of_headroom")),
    "mean_slowdown",
    "runtime_change",
)


def summary_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace, experiment, load, κ and configuration: means of the metrics, ratios, gains and
    ceilings with their 10th and 90th percentiles (<column>_p10, _p90) over windows (E1) or seeds
    (E2); a gain's share of its ceiling is the mean gain over the mean ceiling."""
    merged = against_space(runs)
    grouped = merged.groupby(GROUP_KEYS, sort=False)
    summary = grouped.agg(
        runs=("seed", "size"),
        size_binds=("size_binds", "mean"),
        mean_wait_h=("mean_wait", lambda v: v.mean() / HOUR),
        mean_response_h=("mean_response", lambda v: v.mean() / HOUR),
        makespan_h=("makespan", lambda v: v.mean() / HOUR),
        memory_allocation_utilisation=("memory_allocation_utilisation", "mean"),
        paired_allocation_utilisation=("paired_allocation_utilisation", "mean"),
        guest_share=("guest_share", "mean"),
        cases=("cases", "sum"),
        mean_loss=("mean_loss", "mean"),
        # the paper queue's runs: the base scheduler they ran on, where their learner ended
        **{
            column: (column, "first" if column == "scheduler" else "mean")
            for column in QUEUE_COLUMNS
            if column in merged
        },
    ).reset_index()
    for column in SPREAD_COLUMNS:
        stats = (
            merged[column]
            .groupby([merged[k] for k in GROUP_KEYS], sort=False)
            .agg(["mean", lambda v: v.quantile(0.1), lambda v: v.quantile(0.9)])
        )
        stats.columns = [column, f"{column}_p10", f"{column}_p90"]
        summary = summary.merge(stats.reset_index(), on=GROUP_KEYS)
    # a share's mean is the mean gain over the mean ceiling (a mean of per-window shares would be
    # swayed by windows whose ceiling is near 0); its percentiles stay the per-window ones
    for metric in CEILINGS:
        gain, ceiling, headroom = (summary[f"{metric}_{part}"] for part in ("gain", "ceiling", "headroom"))
        summary[f"{metric}_of_ceiling"] = (gain / ceiling).where(ceiling > 0)
        summary[f"{metric}_of_headroom"] = (gain / headroom).where(headroom > 0)
    return summary


def spread_text(row, column: str, scale: float = 1.0, fmt: str = ".2f") -> str:
    """'mean [p10, p90]' of a summary column."""
    return mean_and_range(row[column], row[f"{column}_p10"], row[f"{column}_p90"], fmt, scale)
