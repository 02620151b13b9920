"""The shared figure style and the figures drawn with it: reproducible files,
readable durations, small multiples with percentile bands where there are
enough variants, axes that outliers do not set, the choices heatmaps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import FillBetweenPolyCollection

from simcore.reporting.figures import cumulative_wait_figure
from simcore.reporting.style import (
    MIN_SUMMARISED,
    SEQUENTIAL_MAP,
    distribution,
    duration_label,
    outlier_free_limits,
    plt,
    save,
)
from simcore.studies.bandit.figures import OTHER, choices_figure, families, weekly_choices
from simcore.workloads.resample import WEEK


@pytest.mark.parametrize(
    ("seconds", "label"),
    [(144000, "40 h"), (200000, "55 h 33 min"), (172800, "2 days"), (1800, "30 min"), (86400, "24 h")],
)
def test_durations_read_as_a_person_says_them(seconds, label):
    assert duration_label(seconds) == label


@pytest.mark.parametrize("kind", ["pdf", "png"])
def test_a_figure_saved_at_two_different_dates_is_the_same_file(tmp_path, monkeypatch, kind):
    written = []
    for epoch in ("0", "1000000000"):
        # matplotlib dates a PDF from SOURCE_DATE_EPOCH when set: two dates, one file
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        figure, axis = plt.subplots()
        axis.plot([0, 1], [1, 0], label="a line")
        path = tmp_path / f"{epoch}.{kind}"
        save(figure, [path])
        written.append(path.read_bytes())
    assert written[0] == written[1]
    assert b"matplotlib" not in written[0].lower()  # no software version either


def curves_frame(variants: int = MIN_SUMMARISED, outlier: float = 1.0, orders=("FCFS", "SPF", "LQF")) -> pd.DataFrame:
    """`orders` under two thresholds; LQF's values `outlier` times the others'."""
    rows = []
    for order in orders:
        scale = outlier if order == "LQF" else 1.0
        for threshold in (np.nan, 200000.0):
            for week in (1, 2, 3):
                rows.append(
                    {
                        "order": order,
                        "threshold": threshold,
                        "backfill": "queue",
                        "week": week,
                        "mean": 0.1 * week * scale,
                        "p10": -0.3,
                        "p90": 0.2 * week * scale,
                        "variants": variants,
                    }
                )
    return pd.DataFrame(rows)


def panels_of(figure):
    return [axis for axis in figure.axes if axis.get_visible()]


def bands_in(axis) -> int:
    return sum(isinstance(c, FillBetweenPolyCollection) for c in axis.collections)


def test_cumulative_wait_has_one_panel_per_policy_and_a_band_per_configuration():
    figure = cumulative_wait_figure(curves_frame(), "trace")
    panels = panels_of(figure)
    assert [axis.get_title(loc="left") for axis in panels] == ["SPF", "LQF"]  # FCFS is the baseline, not a panel
    for axis in panels:
        assert len(axis.lines) == 3  # two configurations' means and the zero line
        assert bands_in(axis) == 2
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert labels == ["EASY, no threshold, backfill: queue", "EASY, threshold 55 h 33 min, backfill: queue"]
    plt.close(figure)


def test_too_few_variants_draw_the_mean_without_a_band_and_say_so():
    figure = cumulative_wait_figure(curves_frame(variants=MIN_SUMMARISED - 1), "trace")
    for axis in panels_of(figure):
        assert len(axis.lines) == 3
        assert bands_in(axis) == 0
    assert "no percentile band" in figure.legends[0].get_title().get_text()
    plt.close(figure)


def test_an_outlying_panel_does_not_set_the_shared_scale_and_says_how_far_it_goes():
    orders = ("FCFS", "SPF", "LPF", "SQF", "SAF", "LQF")
    figure = cumulative_wait_figure(curves_frame(outlier=40.0, orders=orders), "trace")
    panels = {axis.get_title(loc="left"): axis for axis in panels_of(figure)}
    low, high = panels["LQF"].get_ylim()
    assert low >= -100.0  # a cumulative wait cannot fall by more than 100 %
    assert 60.0 < high < 100 * 0.1 * 40  # the other orders' curves fit, LQF's do not
    assert panels["LQF"].get_title(loc="right") == "cut: max +2,400 %"
    assert all(not panels[order].get_title(loc="right") for order in orders[1:-1])
    plt.close(figure)


def test_limits_hold_every_value_and_zero_when_nothing_is_an_outlier():
    low, high = outlier_free_limits([-20.0, 5.0, 10.0, 30.0])
    assert low < -20.0 and high > 30.0
    low, high = outlier_free_limits([3.0, 4.0, 5.0])
    assert low < 0.0 < high  # zero, the baseline, stays in view
    assert outlier_free_limits([-100.0, -90.0, -95.0], floor=-100.0)[0] == -100.0


def test_limits_cut_values_beyond_the_fences_when_they_would_take_most_of_the_axis():
    values = np.r_[np.linspace(0.0, 10.0, 50), 1000.0]
    low, high = outlier_free_limits(values)
    assert 10.0 < high < 30.0
    assert low < 0.0
    assert outlier_free_limits(-values)[0] > -30.0  # far-out values below are cut alike


def test_panels_follow_the_order_of_the_policies_given():
    figure = cumulative_wait_figure(curves_frame(), "trace", policies=["LQF", "SPF"])
    assert [axis.get_title(loc="left") for axis in figure.axes if axis.get_visible()] == ["LQF", "SPF"]
    plt.close(figure)


def test_strategies_are_grouped_by_learner_in_the_order_given():
    grouped = families(["Random-W", "Full-W", "Random-D", "Full-W-artifact"], ["random", "full", "random", "full"])
    assert grouped == {"random": ["Random-W", "Random-D"], "full": ["Full-W", "Full-W-artifact"]}
    with pytest.raises(ValueError):
        families(["Random-W"], ["random", "full"])


def shares_frame() -> pd.DataFrame:
    """Strategy A daily, weeks 1 and 2 (two variants); strategy B weekly, week 1;
    the twelve orders so that five are named and the rest pooled."""
    day = WEEK / 7
    rows = [("A", 0.0, "SPF", 2), ("A", day, "SPF", 1), ("A", day, "LQF", 1)]
    rows += [("A", WEEK + k * day, "SAF", 2) for k in range(7)]
    rows += [("B", 0.0, order, 1) for order in ("FCFS", "LCFS", "LPF", "SEXP", "LEXP", "SRF", "LRF", "LAF", "SQF")]
    frame = pd.DataFrame(rows, columns=["strategy", "start", "order", "count"])
    return frame.assign(share=frame["count"] / frame.groupby(["strategy", "start"])["count"].transform("sum"))


def test_weekly_choices_pool_the_days_of_a_week_and_sum_to_one():
    weekly, rows = weekly_choices(shares_frame())
    assert weekly.groupby(["strategy", "week"])["share"].sum().to_numpy() == pytest.approx(1.0)
    # the five of largest summed weekly share (ties in the registry's order), then the rest
    assert rows == ["FCFS", "LCFS", "SPF", "LQF", "SAF", OTHER]
    share = weekly.set_index(["strategy", "week", "order"])["share"]
    # week 1 of A: 3 SPF and 1 LQF choices over its two days
    assert share["A", 1, "SPF"] == pytest.approx(0.75) and share["A", 1, "LQF"] == pytest.approx(0.25)
    assert share["A", 2, "SAF"] == pytest.approx(1.0)
    assert share["B", 1, OTHER] == pytest.approx(7 / 9)  # seven of B's nine orders pooled


def test_weekly_choices_name_every_order_when_there_are_few():
    weekly, rows = weekly_choices(shares_frame()[lambda frame: frame["strategy"] == "A"])
    assert rows == ["SPF", "LQF", "SAF"]  # in the registry's order, no "other"
    assert set(weekly["order"]) == set(rows)


def test_the_choices_figure_is_a_heatmap_per_strategy_grouped_by_family():
    figure = choices_figure(shares_frame(), "trace", {"full": ["B"], "random": ["A"]})
    heatmaps = [axis for axis in figure.axes if axis.get_title(loc="left")]  # not the colour bar
    assert [axis.get_title(loc="left") for axis in heatmaps] == ["B", "A"]
    assert [axis.get_title(loc="right") for axis in heatmaps] == ["learner: full", "learner: random"]
    mesh = heatmaps[1].collections[0]
    assert mesh.get_cmap().name == SEQUENTIAL_MAP and mesh.get_clim() == (0.0, 1.0)
    assert mesh.get_array().shape == (6, 2)  # six rows, two weeks
    assert mesh.get_array().sum(axis=0).tolist() == pytest.approx([1.0, 1.0])
    # B has no week 2: blank, not "never chosen"
    assert heatmaps[0].collections[0].get_array().mask[:, 1].all()
    labels = [label.get_text() for label in heatmaps[1].get_yticklabels()]
    assert labels[-1] == OTHER
    plt.close(figure)


@pytest.mark.parametrize(("count", "boxes"), [(MIN_SUMMARISED, 2), (MIN_SUMMARISED - 1, 0)])
def test_a_distribution_is_boxes_with_enough_values_else_the_values(count, boxes):
    figure, axis = plt.subplots()
    values = np.arange(count, dtype=float)
    distribution(axis, [values, values + 1], ["a", "b"])
    assert len(axis.patches) == boxes
    dots = sum(len(collection.get_offsets()) for collection in axis.collections if hasattr(collection, "get_sizes"))
    assert dots == (0 if boxes else 2 * count)
    assert [label.get_text() for label in axis.get_xticklabels()] == ["a", "b"]
    plt.close(figure)
