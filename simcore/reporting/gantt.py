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
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Patch
from matplotlib.textpath import TextToPath
from matplotlib.ticker import MaxNLocator

from simcore.reporting.style import PALETTE, plt

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0
# (longest window, seconds per unit, name) of the time axis's units, and the tick steps of each unit
# (MaxNLocator's, times a power of ten): 15 or 30 minutes, 6 or 12 hours, a week of days
TIME_UNITS = ((10 * MINUTE, 1.0, "s"), (3 * HOUR, MINUTE, "min"), (4 * DAY, HOUR, "h"), (np.inf, DAY, "days"))
TICK_STEPS = {
    "s": [1, 2, 2.5, 3, 5, 6, 10],
    "min": [1, 1.5, 2, 3, 5, 6, 10],
    "h": [1, 1.2, 2, 3, 6, 10],
    "days": [1, 2, 5, 7, 10],
}
FAR = 10_000  # a window starting this many of its units into the trace: its axis counts from its start
TITLE_MARGIN = 72.0  # points of the figure's width left of the title (the axis's label and ticks)
QUEUE_SHADES = (0.35, 0.55, 0.75)  # of the palette's blue: neighbouring jobs told apart, none loud
BACKFILLED = PALETTE[2]  # orange
_TEXT_PATHS = TextToPath()  # text widths in points, from the font's outlines
HINTING = 1.05  # Agg draws 9-point text at 150 dpi up to 3 % wider than its outlines


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
    """The time axis's unit for a window `span` seconds long: seconds up to 10 minutes, minutes up to
    3 hours, hours up to 4 days, days beyond. (seconds per unit, its name)"""
    return next((seconds, name) for longest, seconds, name in TIME_UNITS if span <= longest)


def time_origin(begin: float, unit: float) -> float:
    """Where the time axis counts from: the trace's start (0), unless the window starts so far into the
    trace that its ticks would be numbers of more than four digits in the window's unit (a 100 s
    window 30 days in); then the window's start."""
    return 0.0 if begin / unit < FAR else begin


def duration_text(seconds: float) -> str:
    """A time since the trace's start in days, hours, minutes and seconds: 30 days 2 h 5 s."""
    rest = round(float(seconds), 3)
    parts = []
    for length, name in ((DAY, "day"), (HOUR, "h"), (MINUTE, "min")):
        whole, rest = divmod(rest, length)
        if whole:
            parts.append(f"{whole:.0f} {name}{'s' * (name == 'day' and whole != 1)}")
    if rest or not parts:
        parts.append(f"{rest:g} s")
    return " ".join(parts)


def fit_text(text: str, width: float, size: float) -> str:
    """`text` with each of its lines broken, at spaces where it can and within a word where a word alone
    is too long (a long file name: after a - _ . or / in its second half if there is one), into lines
    at most `width` points wide in the style's font of `size` points (measured on the font's outlines,
    with a margin of HINTING for a renderer's hinting, which draws a line up to 3 % wider)."""
    prop = FontProperties(size=size)

    def wide(line: str) -> float:
        return _TEXT_PATHS.get_text_width_height_descent(line, prop, ismath=False)[0] * HINTING

    out = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            joined = f"{line} {word}" if line else word
            if wide(joined) <= width:
                line = joined
                continue
            if line:
                out.append(line)
            while wide(word) > width and len(word) > 1:  # cut the longest head that fits
                cut = next((k for k in range(len(word) - 1, 0, -1) if wide(word[:k]) <= width), 1)
                cut = next((k for k in range(cut, cut // 2, -1) if word[k - 1] in "-_./"), cut)
                out.append(word[:cut])
                word = word[cut:]
            line = word
        out.append(line)
    return "\n".join(out)


def gantt_figure(result, window: tuple[float, float], title: str):
    """The jobs of `result` (a SimulationResult) running in `window` (seconds of the trace's time,
    submit 0 its origin): processors up (whole ones), time across in the window's unit (`time_unit`,
    counted from `time_origin`), one rectangle per run of consecutive ids (`assign_processors`), the
    backfilled jobs in their own colour; the window's edges dashed, with a margin beyond them shaded.
    The title (`title`, then the jobs shown) is broken into lines that fit the figure's width."""
    begin, stop = map(float, window)
    if not stop > begin:
        raise ValueError(f"window {begin:g} .. {stop:g}: the end must come after the start")
    start, end = result.jobs["start"], result.jobs["end"]
    shown = np.flatnonzero((start < stop) & (end > begin))
    if len(shown) == 0:
        raise ValueError(
            f"no job runs in the window {begin:,.9g} .. {stop:,.9g} s ({duration_text(begin)} .. "
            f"{duration_text(stop)}); the schedule runs from {duration_text(np.min(start))} to "
            f"{duration_text(np.max(end))}"
        )
    # jobs starting after the window cannot change the ids of those before it: assign the earlier ones only
    earlier = np.flatnonzero(start < stop)
    workload = result.workload
    runs = assign_processors(start[earlier], end[earlier], workload.procs[earlier], workload.machine_size)
    job = earlier[runs.job]
    in_window = (end[job] > begin) & (end[job] > start[job])
    job, first, count = job[in_window], runs.first[in_window], runs.count[in_window]
    unit, unit_name = time_unit(stop - begin)
    origin = time_origin(begin, unit)
    backfilled = result.jobs["backfilled"][job].astype(bool)
    shades = [to_rgba(PALETTE[1], alpha) for alpha in QUEUE_SHADES]
    colours = np.array([shades[position % len(shades)] for position in job.tolist()])
    colours[backfilled] = to_rgba(BACKFILLED)

    figure, axis = plt.subplots(figsize=(7.0, 3.8))
    axis.bar(
        (start[job] - origin) / unit,
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
        axis.axvspan((min(edge, outside) - origin) / unit, (max(edge, outside) - origin) / unit, color="0.92", zorder=0)
        axis.axvline((edge - origin) / unit, color=PALETTE[0], linestyle="--", linewidth=0.8)
    axis.set_xlim((begin - margin - origin) / unit, (stop + margin - origin) / unit)
    axis.xaxis.set_major_locator(MaxNLocator(steps=TICK_STEPS[unit_name]))
    axis.set_ylim(0, workload.machine_size)
    axis.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole processors
    since = "the trace's start" if origin == 0 else f"the window's start, {duration_text(origin)} into the trace"
    axis.set_xlabel(f"time since {since} ({unit_name})")
    axis.set_ylabel("processors")
    jobs_shown = len(np.unique(job))
    heading = (
        f"{title}\n{jobs_shown:,} jobs in the window (dashed), {len(np.unique(job[backfilled])):,} of them backfilled"
    )
    size = axis.title.get_fontsize()
    axis.set_title(fit_text(heading, figure.get_figwidth() * 72 - TITLE_MARGIN, size), loc="left", fontsize=size)
    figure.legend(
        handles=[
            Patch(facecolor=shades[1], label="started in queue order"),
            Patch(facecolor=BACKFILLED, label="backfilled"),
        ],
        loc="outside lower center",
        ncols=2,
    )
    return figure
