"""Gantt figures: the first-fit processor assignment (against a brute-force first fit and the
invariants any assignment keeps), the axes and title of short and long windows, and `simcore gantt`
on CI's Slurm dump, the bundled example workload and a real trace."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.text import Text

from simcore.cli import main
from simcore.engine.simulation import simulate
from simcore.engine.swf import parse_swf, read_swf
from simcore.engine.workload import Workload
from simcore.reporting.commands import trace_time
from simcore.reporting.gantt import (
    BACKFILLED,
    DAY,
    HOUR,
    assign_processors,
    duration_text,
    fit_text,
    gantt_figure,
    time_unit,
)
from simcore.reporting.style import plt
from simcore.workloads.example import example_workload

SACCT_DUMP = Path(__file__).resolve().parents[1] / "fixtures" / "sacct" / "slurm-accounting.sacct"


def ids_of(runs, jobs: int) -> list[list[int]]:
    """Each job's processor ids, from its runs."""
    ids = [[] for _ in range(jobs)]
    for job, first, count in zip(runs.job.tolist(), runs.first.tolist(), runs.count.tolist()):
        ids[job] += range(first, first + count)
    return ids


def brute_force_first_fit(start, end, procs, machine_size) -> list[list[int]]:
    """The same rule on a table of who holds each id: at each start in start order (at one instant,
    jobs of no duration first), the jobs that ended by then free theirs, and the job takes the
    lowest free ids."""
    holder = np.full(machine_size, -1)
    ids = [[] for _ in start]
    for job in sorted(range(len(start)), key=lambda job: (start[job], end[job] > start[job], job)):
        ended = [other for other in set(holder.tolist()) - {-1} if end[other] <= start[job]]
        holder[np.isin(holder, ended)] = -1
        taken = np.flatnonzero(holder == -1)[: procs[job]]
        assert len(taken) == procs[job]
        holder[taken] = job
        ids[job] = taken.tolist()
    return ids


def test_a_job_gets_the_lowest_free_ids_as_runs_and_ends_free_theirs_before_starts():
    # 0: [0, 10) id 0; 1: [0, 5) id 1; 2: [0, 10) id 2; 3 starts at 5, when 1 ends: ids 1 and 3
    runs = assign_processors([0, 0, 0, 5], [10, 5, 10, 8], [1, 1, 1, 2], 4)
    assert (runs.job.tolist(), runs.first.tolist(), runs.count.tolist()) == ([0, 1, 2, 3, 3], [0, 1, 2, 1, 3], [1] * 5)


def test_a_job_of_no_duration_comes_first_at_its_instant_and_holds_nothing_after_it():
    # the simulator started 2 (no duration) on the ids 1 had, before 1 ended or after 1 took them
    runs = assign_processors([0, 3, 3], [10, 9, 3], [2, 2, 2], 4)
    assert ids_of(runs, 3) == [[0, 1], [2, 3], [2, 3]]


def test_more_processors_than_free_is_an_error():
    with pytest.raises(ValueError, match="job 1 starts at 5 on 3 processors, more than are free of 4"):
        assign_processors([0, 5], [10, 6], [2, 3], 4)


@pytest.mark.parametrize("seed", range(30))
def test_random_schedules_every_job_its_q_ids_none_shared_as_the_brute_force(seed):
    """Schedules simulated on random workloads (many equal instants, jobs of no duration, some as
    wide as the machine), under EASY or conservative backfilling."""
    rng = np.random.default_rng(seed)
    jobs, machine_size = int(rng.integers(1, 120)), int(rng.integers(1, 40))
    run = rng.integers(0, 50, jobs).astype(float)
    workload = Workload.from_arrays(
        submit=np.sort(rng.integers(0, 200, jobs)).astype(float),
        run=run,
        requested=run + rng.integers(1, 30, jobs),
        procs=rng.integers(1, machine_size + 1, jobs),
        machine_size=machine_size,
    )
    result = simulate(workload, order="SPF", reservations=["all", 1][seed % 2])
    start, end, procs = result.start, result.jobs["end"], workload.procs
    runs = assign_processors(start, end, procs, machine_size)
    ids = ids_of(runs, jobs)
    assert [len(set(held)) for held in ids] == procs.tolist()
    assert all(0 <= low and low + count <= machine_size for low, count in zip(runs.first, runs.count))
    assert all(  # runs are maximal: a job's next run starts past a gap
        first > earlier_first + earlier_count
        for job, first, earlier_job, earlier_first, earlier_count in zip(
            runs.job[1:], runs.first[1:], runs.job[:-1], runs.first[:-1], runs.count[:-1]
        )
        if job == earlier_job
    )
    for processor in range(machine_size):
        using = sorted((start[job], end[job]) for job in range(jobs) if processor in ids[job] and end[job] > start[job])
        assert all(previous_end <= next_start for (_, previous_end), (next_start, _) in zip(using, using[1:]))
    assert ids == brute_force_first_fit(start, end, procs, machine_size)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("0", 0),
        ("0s", 0),
        ("100", 100),
        ("100s", 100),
        ("90m", 5400),
        ("1.5h", 5400),
        ("36h", 129600),
        ("2d", 172800),
        ("1w", 604800),
    ],
)
def test_window_times_are_seconds_or_take_a_unit(text, seconds):
    assert trace_time(text) == seconds


@pytest.mark.parametrize("text", ["-5", "1d2h", "2 days", "h"])
def test_window_times_of_another_form_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="seconds, or a number with a unit"):
        trace_time(text)


@pytest.mark.parametrize(
    ("span", "unit"),
    [
        (100, "s"),
        (600, "s"),
        (601, "min"),
        (2 * HOUR, "min"),
        (3 * HOUR, "min"),
        (3 * HOUR + 1, "h"),
        (2 * DAY, "h"),
        (3 * DAY, "h"),
        (4 * DAY, "h"),
        (10 * DAY, "days"),
    ],
)
def test_the_time_axis_unit_fits_the_window_span(span, unit):
    seconds = {"s": 1, "min": 60, "h": HOUR, "days": DAY}[unit]
    assert time_unit(span) == (seconds, unit)


def test_times_into_the_trace_are_written_in_days_hours_minutes_seconds():
    assert [duration_text(t) for t in (0, 100, 3600, DAY, 20 * DAY + 2 * HOUR + 5)] == [
        "0 s",
        "1 min 40 s",
        "1 h",
        "1 day",
        "20 days 2 h 5 s",
    ]


def drawn_ticks(axis, which: str) -> np.ndarray:
    """The major ticks of the x or y axis that the drawn figure shows (within the axis's limits)."""
    scaled = axis.xaxis if which == "x" else axis.yaxis
    low, high = sorted(axis.get_xlim() if which == "x" else axis.get_ylim())
    ticks = np.asarray(scaled.get_majorticklocs())
    return ticks[(ticks >= low - 1e-9) & (ticks <= high + 1e-9)]


def assert_title_fits(figure) -> None:
    """The drawn title, every line of it, lies within the figure's width."""
    renderer = figure.canvas.get_renderer()
    heading = figure.axes[0].get_title(loc="left")
    (title,) = [text for text in figure.findobj(Text) if text.get_text() == heading]
    box, page = title.get_window_extent(renderer), figure.bbox
    assert box.width > 0 and box.height > 0, box  # laid out: a title too wide can collapse the layout
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and box.y1 <= page.y1, (box, page)


def test_a_100_second_gantt_of_ci_slurm_counts_seconds_and_whole_processors(tmp_path):
    """CI's Slurm dump (11 jobs on 4 processors within 60 s) converted by `simcore import-sacct`:
    `simcore gantt --window 0 100` draws it in seconds, with a tick per processor."""
    swf = tmp_path / "slurm-ci.swf"
    assert main(["import-sacct", str(SACCT_DUMP), "-o", str(swf)]) == 0
    figure_file = tmp_path / "gantt.png"
    assert main(["gantt", str(swf), "--filter", "truncate", "--window", "0", "100s", "-o", str(figure_file)]) == 0
    assert figure_file.stat().st_size > 0

    result = simulate(read_swf(swf, filter="truncate"))
    figure = gantt_figure(result, (0, 100), "slurm-ci")
    figure.canvas.draw()
    axis = figure.axes[0]
    assert axis.get_xlabel() == "time since the trace's start (s)"
    x_ticks = drawn_ticks(axis, "x")
    assert x_ticks.min() == 0 and x_ticks.max() == 100 and 4 <= len(x_ticks) <= 11
    assert drawn_ticks(axis, "y").tolist() == [0, 1, 2, 3, 4]  # whole processors of the 4
    assert_title_fits(figure)
    plt.close(figure)


@pytest.mark.parametrize(("window", "unit"), [((1000, 1100), "s"), ((HOUR, 3 * HOUR), "min"), ((DAY, 4 * DAY), "h")])
def test_gantt_of_the_example_workload_in_the_window_s_unit_with_integer_processor_ticks(window, unit):
    figure = gantt_figure(simulate(example_workload()), window, "example")
    figure.canvas.draw()
    axis = figure.axes[0]
    assert axis.get_xlabel() == f"time since the trace's start ({unit})"
    seconds = {"s": 1, "min": 60, "h": HOUR}[unit]
    low, high = axis.get_xlim()
    assert low < window[0] / seconds < window[1] / seconds < high  # both edges shown, in the unit
    y_ticks = drawn_ticks(axis, "y")
    assert len(y_ticks) >= 3 and np.array_equal(y_ticks, np.round(y_ticks)) and y_ticks.max() <= 64
    plt.close(figure)


def test_a_short_window_far_into_the_trace_counts_from_its_start():
    """100 s twenty days in: ticks 0-100 s from the window's start, not 1,728,000-1,728,100."""
    begin = 20 * DAY
    figure = gantt_figure(simulate(example_workload()), (begin, begin + 100), "example")
    figure.canvas.draw()
    axis = figure.axes[0]
    assert axis.get_xlabel() == "time since the window's start, 20 days into the trace (s)"
    x_ticks = drawn_ticks(axis, "x")
    assert x_ticks.min() == 0 and x_ticks.max() == 100
    assert axis.xaxis.get_offset_text().get_text() == ""  # no "+1.728e6" beside the axis
    plt.close(figure)


def test_a_long_title_is_broken_into_lines_that_fit_the_figure():
    name = "mysite-partition-batch-and-gpu-accounting-dump-from-2026-01-01-to-2026-03-31-all-users-allocations"
    policy = "EASY(F4, threshold=None), backfill=queue, estimate=request, correction=request, reservations=all"
    figure = gantt_figure(simulate(example_workload()), (0, 2 * DAY), f"{name}\n{policy}")
    figure.canvas.draw()
    assert_title_fits(figure)
    lines = figure.axes[0].get_title(loc="left").split("\n")
    assert len(lines) >= 5 and "".join(lines[:2]) == name  # the name cut after one of its hyphens
    assert lines[0].endswith("-")
    plt.close(figure)


def test_fitting_text_keeps_lines_that_fit_and_breaks_only_those_that_do_not():
    assert fit_text("short\nlines", 100, 9) == "short\nlines"
    broken = fit_text("a b c d e f g h i j k l m n o p", 30, 9).split("\n")
    assert len(broken) > 1 and " ".join(broken) == "a b c d e f g h i j k l m n o p"
    assert "".join(fit_text("x" * 200, 50, 9).split("\n")) == "x" * 200


def test_the_example_workload_s_gantt_as_the_readme_gives_it(tmp_path, monkeypatch):
    """`simcore example -o example.swf && simcore gantt example.swf --window 10d 12d -o gantt.png`:
    the example's 2,000 jobs are submitted over 25.7 days, so 30d 32d (a PWA log's example) is
    past its end."""
    monkeypatch.chdir(tmp_path)
    assert main(["example", "-o", "example.swf"]) == 0
    assert main(["gantt", "example.swf", "--window", "10d", "12d", "-o", "gantt.png"]) == 0
    assert (tmp_path / "gantt.png").stat().st_size > 0
    assert main(["gantt", "example.swf", "--window", "30d", "32d", "-o", "late.png"]) == 2
    assert not (tmp_path / "late.png").exists()


def test_gantt_of_a_real_trace_window_marks_the_backfilled_jobs(pwa_trace, tmp_path, capsys):
    trace = pwa_trace("KTH-SP2")
    figures = [tmp_path / "gantt.png", tmp_path / "gantt.pdf"]
    arguments = ["gantt", str(trace), "--window", "30d", "32d", "-o", str(figures[0]), "-o", str(figures[1])]
    assert main(arguments) == 0
    assert all(figure.stat().st_size > 0 for figure in figures)
    first = figures[0].read_bytes()
    assert main(arguments[:-2]) == 0 and figures[0].read_bytes() == first  # a rerun: the same bytes

    result = simulate(parse_swf(trace).workload())
    figure = gantt_figure(result, (30 * 86400, 32 * 86400), "KTH-SP2")
    axis = figure.axes[0]
    colours = [patch.get_facecolor() for patch in axis.patches]
    assert colours.count(to_rgba(BACKFILLED)) > 0
    assert [text.get_text() for text in figure.legends[0].get_texts()] == ["started in queue order", "backfilled"]
    assert axis.get_ylabel() == "processors" and axis.get_xlabel() == "time since the trace's start (h)"
    plt.close(figure)

    assert main(["gantt", str(trace), "--window", "2d", "1d", "-o", str(tmp_path / "x.png")]) == 2
    assert "the end must come after the start" in capsys.readouterr().err
    assert main(["gantt", str(trace), "--window", "900d", "901d", "-o", str(tmp_path / "x.png")]) == 2
    error = capsys.readouterr().err
    assert "no job runs in the window 77,760,000 .. 77,846,400 s (900 days .. 901 days); the schedule runs" in error
    assert not (tmp_path / "x.png").exists()
