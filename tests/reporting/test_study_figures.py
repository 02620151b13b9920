"""The studies' figures as a reviewer reads them: one colour-blind-safe palette
in every figure, non-negative quantities on axes from zero, bars from zero,
boxes only over enough values, ECDFs that reach the percentiles their caption
gives, and a rank correlation with its n."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection, PolyCollection, QuadMesh
from matplotlib.colors import to_rgb

from simcore.reporting.figures import cumulative_wait_figure
from simcore.reporting.style import MIN_SUMMARISED, PALETTE, colours_for, plt
from simcore.studies.dynamic_scheduling.figures import dynamic_boxplot_figure
from simcore.studies.fixed_policy.figures import bsld_figure
from simcore.studies.learned_policies.figures import trial_scores_figure
from simcore.studies.prediction.figures import ERROR_RANGE, correlation_figure, prediction_ecdf_figure
from simcore.studies.prediction.study import EASY, TRIPLE
from simcore.studies.simple_policies.figures import (
    simple_backfilled_figure,
    simple_categories_figure,
    simple_delayed_figure,
    simple_objectives_figure,
)
from simcore.studies.simple_policies.study import CATEGORIES

# Machado, Oliveira & Fernandes (2009), severity 1: dichromat vision on linear RGB
DICHROMAT = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
# CIELAB distance two line colours keep under every vision: the old simple-policies
# pair SQF green / SAF red falls to 7 under deuteranopia, Okabe & Ito's closest pair is 16
TOLD_APART = 15.0
ORDERS4 = ["FCFS", "SPF", "SQF", "SAF"]


@pytest.fixture
def rng() -> np.random.Generator:
    """Each test's own generator: its data never depend on which tests ran before on its worker."""
    return np.random.default_rng(0)


def lab(colour, vision=None) -> np.ndarray:
    srgb = np.asarray(to_rgb(colour))
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    if vision is not None:
        linear = np.clip(np.asarray(DICHROMAT[vision]) @ linear, 0.0, 1.0)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair(colours, vision) -> float:
    return min(np.linalg.norm(lab(a, vision) - lab(b, vision)) for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize("vision", [None, *DICHROMAT])
def test_the_palette_is_told_apart_with_every_kind_of_colour_blindness(vision):
    assert closest_pair(PALETTE, vision) >= TOLD_APART


def test_the_check_catches_a_red_green_pair():
    assert closest_pair(["tab:green", "tab:red"], "deuteranopia") < TOLD_APART


def test_a_reference_is_black_and_more_names_than_colours_are_refused():
    assert colours_for(["SPF", "FCFS", "SQF"], reference="FCFS") == {
        "SPF": PALETTE[1],
        "FCFS": PALETTE[0],
        "SQF": PALETTE[2],
    }
    with pytest.raises(ValueError, match="panels or rows"):
        colours_for([f"order {k}" for k in range(len(PALETTE))])


# ---- small inputs of every figure ----


def fixed_runs(variants: int) -> pd.DataFrame:
    rows = [
        {"order": order, "threshold": np.nan, "backfill": "queue", "variant": v, "avg_bsld": 50.0 + 10 * k + v}
        for k, order in enumerate(ORDERS4)
        for v in range(variants)
    ]
    return pd.DataFrame(rows)


def simple_curves() -> pd.DataFrame:
    rows = []
    for k, order in enumerate(ORDERS4):
        for week in (1, 2, 3):
            row = {"trace": "T", "order": order, "week": week}
            for objective in ("bsld", "wait", "ppbsld"):
                row |= {f"{objective}_p10": 1.0, f"{objective}_mean": 2.0 + k, f"{objective}_p90": 9.0 + k}
            rows.append(row)
    return pd.DataFrame(rows)


def simple_runs(variants: int) -> pd.DataFrame:
    rows = [
        {"trace": trace, "order": order, "variant": v, "backfilled": 10 * k + v, "procs": 2**k}
        for trace in ("T", "U")
        for k, order in enumerate(ORDERS4)
        for v in range(variants)
    ]
    return pd.DataFrame(rows)


def simple_summary() -> pd.DataFrame:
    rows = [
        {"trace": "T", "order": order} | {f"bsld_{c}_mean": 100.0 * (j + 1) + k for j, c in enumerate(CATEGORIES)}
        for k, order in enumerate(ORDERS4)
    ]
    return pd.DataFrame(rows)


def predictions(rng: np.random.Generator, jobs: int = 2000) -> pd.DataFrame:
    run = rng.uniform(10, 1000, jobs)
    # a quarter of the requests at a cap far above the runs: the tail the old axis cut at 80 %
    requested = np.where(rng.random(jobs) < 0.25, 1.6e5, run * rng.uniform(1, 5, jobs))
    return pd.DataFrame({"run": run, "requested": requested, "ave2": run + rng.normal(0, 200, jobs)})


def prediction_grid(rng: np.random.Generator, bulk: int = 30) -> pd.DataFrame:
    """Triples on traces A and B: the bulk's ranks unrelated, two far triples agreeing. From a fresh
    default_rng(0), Spearman's rho is 0.20 and Pearson's r 0.99 (over seeds 0-4999, rho has mean 0.17 and
    standard deviation 0.15, |rho| >= 0.5 for 1.7 % of them, r >= 0.989 for all)."""
    a, b = rng.uniform(0.9, 1.1, bulk), rng.uniform(0.9, 1.1, bulk)
    a, b = np.r_[a, 0.05, 5.0], np.r_[b, 0.05, 5.0]
    rows = [EASY] + [(f"p{k}", "incremental", "SJBF") for k in range(len(a))] + [("clairvoyant", "request", "EASY")]
    values = {"A": np.r_[1.0, a, 0.5], "B": np.r_[1.0, b, 0.1]}
    return pd.DataFrame(
        [
            dict(zip(TRIPLE, triple)) | {"trace": trace, "avg_bsld": values[trace][k]}
            for trace in "AB"
            for k, triple in enumerate(rows)
        ]
    )


def every_figure(rng: np.random.Generator):
    curves = pd.DataFrame(
        [
            {"order": order, "threshold": np.nan, "backfill": "queue", "week": w}
            | {"mean": -0.1, "p10": -0.2, "p90": 0.1, "variants": MIN_SUMMARISED}
            for order in ORDERS4
            for w in (1, 2)
        ]
    )
    dynamic = pd.DataFrame(
        [{"trace": "T", "policy": p, "sequence": s, "avg_bsld": 10.0 + s} for p in ("FCFS", "F1") for s in range(4)]
    )
    scores = pd.DataFrame({"tuple": np.repeat([0, 1], 32), "score": np.tile(np.linspace(0.02, 0.04, 32), 2)})
    spread = pd.DataFrame({"trials": [1000, 4000], "normalized_std": [0.1, 0.05]})
    return {
        "cumulative_wait": cumulative_wait_figure(curves, "T"),
        "bsld": bsld_figure(fixed_runs(MIN_SUMMARISED), "T"),
        "dynamic": dynamic_boxplot_figure(dynamic, "actual"),
        "scores": trial_scores_figure(scores, spread),
        "objectives": simple_objectives_figure(simple_curves(), "T", MIN_SUMMARISED),
        "delayed": simple_delayed_figure(simple_runs(MIN_SUMMARISED)),
        "backfilled": simple_backfilled_figure(simple_runs(3)),
        "categories": simple_categories_figure(simple_summary()),
        "ecdf_errors": prediction_ecdf_figure(predictions(rng), "T", None, "errors"),
        "ecdf_values": prediction_ecdf_figure(predictions(rng), "T", None, "values"),
        "correlations": correlation_figure(prediction_grid(rng)),
    }


def drawn_colours(figure):
    """The RGB of every line, marker, band, bar and box the figure's panels draw."""
    for axis in figure.axes:
        for line in axis.lines:
            yield line.get_color()
            if line.get_marker() not in (None, "None", ""):
                yield line.get_markeredgecolor()
        for collection in axis.collections:
            if isinstance(collection, QuadMesh):
                continue  # a colour map, checked by the choices figure's test
            if isinstance(collection, (PathCollection, PolyCollection)):
                yield from collection.get_facecolors()
            yield from collection.get_edgecolors()
        for patch in axis.patches:
            if patch.get_facecolor()[3] > 0:
                yield patch.get_facecolor()
            if patch.get_edgecolor()[3] > 0:
                yield patch.get_edgecolor()


def test_every_study_figure_draws_with_the_one_palette(rng):
    allowed = {to_rgb(colour) for colour in PALETTE}
    figures = every_figure(rng)
    for name, figure in figures.items():
        for colour in drawn_colours(figure):
            rgb = to_rgb(colour[:3] if not isinstance(colour, str) else colour)
            grey = np.ptp(rgb) < 1e-9  # black, greys and white: axes, references, empty boxes
            assert grey or rgb in allowed, f"{name}: {colour} is not in the palette"
        plt.close(figure)


@pytest.mark.parametrize(("variants", "boxes"), [(MIN_SUMMARISED, 4), (4, 0)])
def test_bsld_boxes_need_enough_variants(variants, boxes):
    figure = bsld_figure(fixed_runs(variants), "T")
    assert len(figure.axes[0].patches) == boxes
    plt.close(figure)


def test_non_negative_quantities_have_axes_from_zero_and_bars_from_zero():
    figures = {
        "backfilled": simple_backfilled_figure(simple_runs(3)),
        "categories": simple_categories_figure(simple_summary()),
        "objectives": simple_objectives_figure(simple_curves(), "T", 3),
        "scores": trial_scores_figure(
            pd.DataFrame({"tuple": 0, "score": np.linspace(0.02, 0.04, 32)}),
            pd.DataFrame({"trials": [1000, 4000], "normalized_std": [0.1, 0.05]}),
        ),
    }
    for name, figure in figures.items():
        for axis in figure.axes:
            if axis.get_visible() and axis.has_data():
                assert axis.get_yscale() == "linear"
                assert axis.get_ylim()[0] == 0.0, name
        plt.close(figure)


def test_objectives_draw_bands_only_over_enough_variants():
    for variants, bands in ((MIN_SUMMARISED, 4), (3, 0)):
        figure = simple_objectives_figure(simple_curves(), "T", variants)
        assert all(len(axis.collections) == bands for axis in figure.axes)
        assert f"over {variants} variants" in figure.get_suptitle()
        plt.close(figure)


def test_the_error_axis_holds_every_predictor_up_to_the_percentiles_the_caption_gives(rng):
    frame = predictions(rng)
    figure = prediction_ecdf_figure(frame, "T", None, "errors")
    low, high = figure.axes[0].get_xlim()
    for column in ("requested", "ave2"):
        errors = frame[column] - frame["run"]
        assert low <= np.percentile(errors, ERROR_RANGE[0])
        assert high >= np.percentile(errors, ERROR_RANGE[1])
    plt.close(figure)


def test_correlations_give_spearman_over_the_heuristic_triples_and_their_number(rng):
    grid = prediction_grid(rng)
    figure = correlation_figure(grid)
    wide = grid[grid["predictor"] != "clairvoyant"].pivot_table(index=TRIPLE, columns="trace", values="avg_bsld")
    rho = wide["A"].corr(wide["B"], method="spearman")
    assert figure.axes[0].get_title() == f"Spearman ρ = {rho:.2f}, n = {len(wide)} triples"
    assert abs(rho) < 0.5 < wide["A"].corr(wide["B"])  # the two far triples make Pearson's r, not the ranks
    plt.close(figure)
