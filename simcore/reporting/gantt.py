"""Gantt figures of a simulated schedule (`simcore gantt`, docs/schedules.md).

The simulator counts processors but does not name them (SEMANTICS: no topology, no contiguity),
so a figure needs an assignment of processor ids: `assign_processors` gives one, deterministic,
by first fit over the event sequence."""

from __future__ import annotations

import heapq
from bisect import bisect_left
from dataclasses import dataclass

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Patch

from simcore.reporting.style import PALETTE, plt

HOUR, DAY = 3600.0, 86400.0
QUEUE_SHADES = (0.35, 0.55, 0.75)  # of the palette's blue: neighbouring jobs told apart, none loud
BACKFILLED = PALETTE[2]  # orange


@dataclass(frozen=True)
class ProcessorRuns:
    """Each job's processors as runs of consecutive ids, one row per run, by job then id."""

    job: np.ndarray  # position of the job in the arrays assigned
    first: np.ndarray  # the run's lowest processor id
    count: np.ndarray  # its number of processors


def assign_processors(start, end, procs, machine_size: int) -> ProcessorRuns:
    """Processor ids 0..machine_size-1 for jobs running [start, end) on `procs` processors each, by
    first fit: jobs are taken in start order, the jobs that ended at or before a start release their
    ids first, and a job gets the lowest free ids. At one instant the jobs of no duration come first
    (then by position): they hold ids for no time, and the simulator may have started one after the
    jobs starting at that instant took the ids it had released. ValueError if, at a start, fewer
    ids are free than the job needs (not the schedule of a machine this size)."""
    start, end, procs = np.asarray(start, float), np.asarray(end, float), np.asarray(procs, np.int64)
    free = [[0, int(machine_size)]]  # the free ids as disjoint runs [low, high), by low
    running = []  # heap of (end, job) of the jobs holding ids
    held = {}
    jobs, firsts, counts = [], [], []
    for job in np.lexsort((np.arange(len(start)), end > start, start)).tolist():
        while running and running[0][0] <= start[job]:
            for low, high in held.pop(heapq.heappop(running)[1]):
                _release(free, low, high)
        needed, runs = int(procs[job]), []
        while needed:
            if not free:
                raise ValueError(
                    f"job {job} starts at {start[job]:g} on {procs[job]} processors, more than are free of "
                    f"{machine_size}"
                )
            low, high = free[0]
            taken = min(needed, high - low)
            runs.append((low, low + taken))
            if taken == high - low:
                del free[0]
            else:
                free[0][0] = low + taken
            needed -= taken
        held[job] = runs
        heapq.heappush(running, (end[job], job))
        for low, high in runs:
            jobs.append(job)
            firsts.append(low)
            counts.append(high - low)
    order = np.lexsort((firsts, jobs))
    return ProcessorRuns(
        np.asarray(jobs, np.int64)[order], np.asarray(firsts, np.int64)[order], np.asarray(counts, np.int64)[order]
    )


def _release(free: list, low: int, high: int) -> None:
    """Return the ids [low, high) to the free runs, merged with the runs they touch."""
    at = bisect_left(free, low, key=lambda run: run[0])
    joins_left = at > 0 and free[at - 1][1] == low
    joins_right = at < len(free) and free[at][0] == high
    if joins_left and joins_right:
        free[at - 1][1] = free.pop(at)[1]
    elif joins_left:
        free[at - 1][1] = high
    elif joins_right:
        free[at][0] = low
    else:
        free.insert(at, [low, high])


def time_unit(span: float) -> tuple[float, str]:
    """Hours for a window of up to four days, days beyond: (seconds per unit, its name)."""
    return (HOUR, "h") if span <= 4 * DAY else (DAY, "days")


def gantt_figure(result, window: tuple[float, float], title: str):
    """The jobs of `result` (a SimulationResult) running in `window` (seconds of the trace's time,
    submit 0 its origin): processors up, time across, one rectangle per run of consecutive ids
    (`assign_processors`), the backfilled jobs in their own colour; the window's edges dashed, with
    a margin beyond them shaded."""
    begin, stop = map(float, window)
    if not stop > begin:
        raise ValueError(f"window {begin:g} .. {stop:g}: the end must come after the start")
    start, end = result.jobs["start"], result.jobs["end"]
    shown = np.flatnonzero((start < stop) & (end > begin))
    if len(shown) == 0:
        raise ValueError(
            f"no job runs in the window {begin:g} .. {stop:g} s (the schedule runs from {np.min(start):g} "
            f"to {np.max(end):g} s)"
        )
    # jobs starting after the window cannot change the ids of those before it: assign the earlier ones only
    earlier = np.flatnonzero(start < stop)
    workload = result.workload
    runs = assign_processors(start[earlier], end[earlier], workload.procs[earlier], workload.machine_size)
    job = earlier[runs.job]
    in_window = (end[job] > begin) & (end[job] > start[job])
    job, first, count = job[in_window], runs.first[in_window], runs.count[in_window]
    unit, unit_name = time_unit(stop - begin)
    backfilled = result.jobs["backfilled"][job].astype(bool)
    shades = [to_rgba(PALETTE[1], alpha) for alpha in QUEUE_SHADES]
    colours = np.array([shades[position % len(shades)] for position in job.tolist()])
    colours[backfilled] = to_rgba(BACKFILLED)

    figure, axis = plt.subplots(figsize=(7.0, 3.8))
    axis.bar(
        start[job] / unit,
        count,
        width=(end[job] - start[job]) / unit,
        bottom=first,
        align="edge",
        color=colours,
        edgecolor="white",
        linewidth=0.25,
    )
    margin = 0.03 * (stop - begin)
    for edge, outside in ((begin, begin - margin), (stop, stop + margin)):
        axis.axvspan(min(edge, outside) / unit, max(edge, outside) / unit, color="0.92", zorder=0)
        axis.axvline(edge / unit, color=PALETTE[0], linestyle="--", linewidth=0.8)
    axis.set_xlim((begin - margin) / unit, (stop + margin) / unit)
    axis.set_ylim(0, workload.machine_size)
    axis.set_xlabel(f"time since the trace's start ({unit_name})")
    axis.set_ylabel("processors")
    jobs_shown = len(np.unique(job))
    axis.set_title(
        f"{title}\n{jobs_shown:,} jobs in the window (dashed), {len(np.unique(job[backfilled])):,} of them backfilled",
        loc="left",
    )
    figure.legend(
        handles=[
            Patch(facecolor=shades[1], label="started in queue order"),
            Patch(facecolor=BACKFILLED, label="backfilled"),
        ],
        loc="outside lower center",
        ncols=2,
    )
    return figure
