"""The shared figure style and the figures drawn with it: reproducible files,
readable durations, small multiples with percentile bands, the choices mosaic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import FillBetweenPolyCollection

from simcore.reporting.figures import cumulative_wait_figure
from simcore.reporting.style import duration_label, plt, save
from simcore.studies.bandit.figures import choices_figure, families
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


def curves_frame() -> pd.DataFrame:
    rows = []
    for order in ("FCFS", "SPF", "LQF"):
        for threshold in (np.nan, 200000.0):
            for week in (1, 2, 3):
                rows.append(
                    {
                        "order": order,
                        "threshold": threshold,
                        "backfill": "queue",
                        "week": week,
                        "mean": 0.1 * week,
                        "p10": 0.0,
                        "p90": 0.2 * week,
                        "variants": 4,
                    }
                )
    return pd.DataFrame(rows)


def test_cumulative_wait_has_one_panel_per_policy_and_a_band_per_configuration():
    figure = cumulative_wait_figure(curves_frame(), "trace")
    panels = [axis for axis in figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in panels] == ["SPF", "LQF"]  # FCFS is the baseline, not a panel
    for axis in panels:
        assert len(axis.lines) == 3  # two configurations' means and the zero line
        assert sum(isinstance(c, FillBetweenPolyCollection) for c in axis.collections) == 2
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert labels == ["EASY, no threshold, backfill: queue", "EASY, threshold 55 h 33 min, backfill: queue"]
    plt.close(figure)


def test_panels_follow_the_order_of_the_policies_given():
    figure = cumulative_wait_figure(curves_frame(), "trace", policies=["LQF", "SPF"])
    assert [axis.get_title() for axis in figure.axes if axis.get_visible()] == ["LQF", "SPF"]
    plt.close(figure)


def test_strategies_are_grouped_by_learner_in_the_order_given():
    grouped = families(["Random-W", "Full-W", "Random-D", "Full-W-artifact"], ["random", "full", "random", "full"])
    assert grouped == {"random": ["Random-W", "Random-D"], "full": ["Full-W", "Full-W-artifact"]}
    with pytest.raises(ValueError):
        families(["Random-W"], ["random", "full"])


def test_the_mosaic_draws_each_period_as_a_step_and_groups_families():
    shares = pd.DataFrame(
        {
            "strategy": ["A", "A", "A", "B", "C"],
            "start": [0.0, 0.0, WEEK, 0.0, 0.0],
            "order": ["FCFS", "SPF", "SPF", "SPF", "LQF"],
            "share": [0.5, 0.5, 1.0, 1.0, 1.0],
        }
    )
    figure = choices_figure(shares, "trace", {"full": ["A", "C"], "random": ["B"]})
    assert [axis.get_ylabel() for axis in figure.axes] == ["A", "C", "B"]
    assert [axis.get_title(loc="left") for axis in figure.axes] == ["learner: full", "", "learner: random"]
    first = figure.axes[0]
    # FCFS's block: half the variants in week 0, none in week 1, flat within each week (a step, not a slope)
    fcfs = first.collections[0].get_paths()[0].vertices
    top = {tuple(point) for point in fcfs[fcfs[:, 1] > 0]}
    assert (0.0, 0.5) in top and (1.0, 0.5) in top
    assert first.get_xlim() == (0.0, 2.0)
    plt.close(figure)
