"""Gantt figures: the first-fit processor assignment (against a brute-force first fit and the
invariants any assignment keeps) and `simcore gantt` on a real trace."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from simcore.cli import main
from simcore.engine.simulation import simulate
from simcore.engine.swf import parse_swf
from simcore.engine.workload import Workload
from simcore.reporting.commands import trace_time
from simcore.reporting.gantt import BACKFILLED, assign_processors, gantt_figure
from simcore.reporting.style import plt


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


@pytest.mark.parametrize(("text", "seconds"), [("100", 100), ("90m", 5400), ("36h", 129600), ("2d", 172800)])
def test_window_times_take_a_unit(text, seconds):
    assert trace_time(text) == seconds


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
    assert "no job runs in the window" in capsys.readouterr().err and not (tmp_path / "x.png").exists()
