"""The elastic study's figures: the running utilisation by hand, and the figures drawn from the
frames of `run_jobset` on the example job set (no recorded waits: no NAT), with and without
elastic runs, with a NAT added, and for an absent job set."""

import numpy as np
import pandas as pd
import pytest

from simcore.reporting.style import PALETTE, plt
from simcore.studies.elastic.env import example_job_set
from simcore.studies.elastic.figures import busy_cores, draw_figures, run_styles, running_utilisation
from simcore.studies.elastic.rules import FIGURES
from simcore.studies.elastic.study import RunSettings, run_jobset

JOBSET = "simcore example"


@pytest.fixture(scope="module")
def frames():
    return run_jobset(
        example_job_set(), {"RIG-EST-1": RunSettings(False, "EST", 1.0), "ELA-EST-1": RunSettings(True, "EST", 1.0)}, 1
    )


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def drawn(runs, series, pools, jobset=JOBSET):
    return draw_figures(series, pools, runs, jobset)


def test_running_utilisation_by_hand():
    # 2 cores on [0, 10), 4 from 10 on; jobs of 5 and 4 core-seconds complete at 5 and 12
    at = [0.0, 5.0, 8.0, 12.0]
    u = running_utilisation(end=[12.0, 5.0], work=[4.0, 5.0], times=[0.0, 10.0], sizes=[2, 4], at=at)
    np.testing.assert_allclose(u, [1.0, 5 / 10, 5 / 16, 9 / 28])


def test_busy_cores_count_the_running_jobs():
    instants, counts = busy_cores(start=[0.0, 1.0, 1.0], end=[2.0, 1.0, 3.0])  # the second job takes no time
    np.testing.assert_array_equal(instants, [0, 1, 2, 3])
    np.testing.assert_array_equal(counts, [1, 2, 1, 0])


def test_rig_and_ela_of_one_setting_share_a_colour_elastic_dashed():
    names = ["RIG-EST-1", "ELA-EST-1", "RIG-ORA-1", "FCFS", "FCFS P_max", "NAT", "EDF on the pool of ELA-EST-1"]
    styles = run_styles(names)
    assert list(styles) == names
    assert styles["RIG-EST-1"]["color"] == styles["ELA-EST-1"]["color"] != styles["RIG-ORA-1"]["color"]
    assert [styles[name]["linestyle"] for name in ("RIG-EST-1", "ELA-EST-1")] == ["-", "--"]
    assert styles["NAT"]["color"] == PALETTE[0]
    # an elastic run's fixed-pool baseline: its colour, dotted
    assert styles["EDF on the pool of ELA-EST-1"] == {"color": styles["ELA-EST-1"]["color"], "linestyle": ":"}
    assert styles["FCFS P_max"]["linestyle"] == "-."


def drawn_runs(axis) -> list[str]:
    """The runs of an axis's lines, those merged into one line ("A = B") included."""
    return [name for line in axis.get_lines() for name in line.get_label().split(" = ")]


def test_the_four_figures_with_labelled_axes_and_their_lines(frames):
    figures = drawn(*frames)
    assert tuple(figures) == tuple(FIGURES)
    for figure in figures.values():
        assert any(axis.get_xlabel() for axis in figure.axes)
        assert all(axis.get_ylabel() for axis in figure.axes if axis.get_subplotspec().is_first_col())
    # responsiveness, interactive and batch: the rigid runs (no NAT in the example), then the elastic ones
    rigid, elastic = ["RIG-EST-1", "FCFS", "EDF"], ["ELA-EST-1", "EDF on the pool of ELA-EST-1", "FCFS P_max"]
    assert [drawn_runs(axis) for axis in figures["responsiveness"].axes] == [rigid, elastic, rigid, elastic]
    assert all(axis.get_yscale() == "log" for axis in figures["responsiveness"].axes)
    # pool: one panel for the one elastic run, its pool and the rigid pool over its busy cores
    (pool,) = figures["pool"].axes
    assert len(pool.get_lines()) == 2 and len(pool.collections) == 1
    assert [drawn_runs(axis) for axis in figures["utilisation"].axes] == [rigid, elastic]
    (fairness,) = figures["fairness"].axes
    assert [line.get_label() for line in fairness.get_lines()] == ["RIG-EST-1", "FCFS", "EDF"]
    assert "no NAT" in fairness.get_title()


def test_utilisation_ends_at_the_runs_utilisation(frames):
    runs, series, pools = frames
    axes = drawn(runs, series, pools)["utilisation"].axes
    final = {
        name: line.get_ydata()[-1]
        for axis in axes
        for line in axis.get_lines()
        for name in line.get_label().split(" = ")
    }
    assert len(final) == 6
    expected = runs.set_index("run")["utilisation"]
    assert final == pytest.approx({name: expected[name] for name in final}, rel=1e-12)


def test_without_elastic_runs_the_rigid_pool_is_drawn(frames):
    runs, series, pools = frames
    rigid = (runs["kind"] != "ELA") & (runs["matches"] == "") & (runs["run"] != "FCFS P_max")
    kept = set(runs.loc[rigid, "run"])
    figures = drawn(runs[rigid], series[series["run"].isin(kept)], pools[pools["run"].isin(kept)])
    (pool,) = figures["pool"].axes
    assert "no elastic run" in pool.get_title()
    assert [line.get_ydata()[0] for line in pool.get_lines()] == [runs["rigid_pool"].iloc[0]]
    (utilisation,) = figures["utilisation"].axes
    # identical curves share one line (on the site's cores no job of this set waits)
    names = [name for line in utilisation.get_lines() for name in line.get_label().split(" = ")]
    assert names == ["RIG-EST-1", "FCFS", "EDF"]


def test_with_nat_the_fairness_differences_get_a_panel(frames):
    runs, series, pools = frames
    nat = series[series["run"] == "FCFS"].assign(run="NAT")  # NAT scheduled as FCFS: no difference
    fairness = drawn(runs, pd.concat([series, nat], ignore_index=True), pools)["fairness"]
    top, differences = fairness.axes
    assert [line.get_label() for line in top.get_lines()] == ["RIG-EST-1", "FCFS", "EDF", "NAT"]
    lines = {line.get_label(): line.get_ydata() for line in differences.get_lines()}
    assert set(lines) >= {"RIG-EST-1", "FCFS", "EDF"} and "NAT" not in lines
    assert np.nanmax(np.abs(lines["FCFS"])) == 0.0
    assert "no NAT" not in top.get_title()


def test_runs_with_identical_schedules_are_one_line_and_one_panel(frames):
    runs, series, pools = frames
    twin = series[series["run"] == "ELA-EST-1"].assign(run="ELA-EST-1-twin")
    twin_row = runs[runs["run"] == "ELA-EST-1"].assign(run="ELA-EST-1-twin")
    twin_pools = pools[pools["run"] == "ELA-EST-1"].assign(run="ELA-EST-1-twin")
    figures = drawn(
        pd.concat([runs, twin_row], ignore_index=True),
        pd.concat([series, twin], ignore_index=True),
        pd.concat([pools, twin_pools], ignore_index=True),
    )
    labels = [line.get_label() for line in figures["utilisation"].axes[1].get_lines()]
    assert "ELA-EST-1 = ELA-EST-1-twin" in labels and "ELA-EST-1-twin" not in labels
    (pool,) = figures["pool"].axes
    assert pool.get_title().startswith("ELA-EST-1 = ELA-EST-1-twin")


def test_an_absent_job_set_draws_empty_figures(frames):
    figures = drawn(*frames, jobset="no such set")
    assert tuple(figures) == tuple(FIGURES)
    assert all(not axis.get_lines() for name in ("responsiveness", "utilisation") for axis in figures[name].axes)
