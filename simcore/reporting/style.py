"""The one matplotlib style of every figure: fonts, colours, percentile bands,
distributions, axis limits that outliers do not set, readable durations, and the
writer that makes a rerun's PNG and PDF byte-identical. Each study's `figures.py`
draws with these and nothing else sets rcParams. Figures use constrained layout
(set here): a title never collides with a panel and legends go outside the axes.

Colours come from one colour-blind-safe palette (Okabe and Ito's eight), and
heatmaps from one colour-blind-safe sequential map (cividis). Eight colours
cannot tell twelve queue orders apart, so no figure colours more than eight
categories: the twelve orders are panels or rows instead.

Percentiles are drawn as a shaded band around the mean line, never as dashed
lines: with a dozen policies in one panel, dashed pairs are unreadable, so
figures with many policies use small multiples (one panel per policy). A band
or a box needs enough values to mean something (`MIN_SUMMARISED`); below that,
a figure shows the values themselves, or only the mean when it has no values.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)
import numpy as np  # noqa: E402
from cycler import cycler  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from simcore.workloads.files import atomic_write  # noqa: E402

# Okabe & Ito's colour-blind-safe palette, black first for a baseline or reference;
# yellow last, as it is faint on white.
PALETTE = ("#000000", "#0072B2", "#E69F00", "#CC79A7", "#009E73", "#D55E00", "#56B4E9", "#F0E442")
SEQUENTIAL_MAP = "cividis"  # shares and other values in [0, 1], told apart without red/green

plt.rcParams.update(
    {
        "font.size": 9,
        "axes.titlesize": 9,
        "axes.labelsize": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "grid.alpha": 0.3,
        "legend.fontsize": 7.5,
        "legend.frameon": False,
        "figure.titlesize": 10,
        "figure.dpi": 150,
        "figure.constrained_layout.use": True,
        "pdf.fonttype": 42,  # TrueType: editable text in the PDF, as journals ask
        # what a figure draws without naming a colour comes from the palette too
        "axes.prop_cycle": cycler(color=PALETTE[1:]),
        "image.cmap": SEQUENTIAL_MAP,
    }
)

BAND_ALPHA = 0.2
BOX_ALPHA = 0.35
# fewer values than this: a 10th-90th percentile band or a box would be two or three points
# dressed as a distribution, so the values are shown instead
MIN_SUMMARISED = 10
FENCE = 3.0  # Tukey's outer fences, in interquartile ranges beyond the quartiles

# Every output is byte-identical across reruns: no creation date, no software version.
METADATA = {
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "Producer": None, "Creator": None},
}


def colours_for(names, reference: str | None = None) -> dict:
    """One palette colour per name, in the order given; `reference` (a baseline) is black."""
    names = list(names)
    others = [name for name in names if name != reference]
    if len(others) > len(PALETTE) - 1:
        raise ValueError(f"{len(others)} names for {len(PALETTE) - 1} distinct colours: use panels or rows instead")
    colours = dict(zip(others, PALETTE[1:]))
    if reference in names:
        colours[reference] = PALETTE[0]
    return {name: colours[name] for name in names}


def band(axis, x, mean, low, high, colour, label=None, linewidth=1.4):
    """The mean as a line, the percentiles between `low` and `high` as a shaded band."""
    axis.fill_between(x, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)
    axis.plot(x, mean, color=colour, label=label, linewidth=linewidth)


def distribution(axis, groups, labels, colours=None) -> None:
    """The values of each group at x = 1, 2, …, labelled: boxes (quartiles, median,
    whiskers at 1.5 interquartile ranges, values beyond as dots) when every group has
    `MIN_SUMMARISED` values or more, else every value as a dot and the median as a bar."""
    groups = [np.asarray(values, dtype=float) for values in groups]
    colours = colours or {}
    positions = np.arange(1, len(groups) + 1)
    if min(len(values) for values in groups) >= MIN_SUMMARISED:
        boxes = axis.boxplot(
            groups,
            positions=positions,
            widths=0.6,
            patch_artist=True,
            medianprops={"color": PALETTE[0]},
            flierprops={"markersize": 2},
        )
        for patch, label in zip(boxes["boxes"], labels):
            patch.set_facecolor(to_rgba(colours.get(label, "white"), BOX_ALPHA))
    else:
        for position, values, label in zip(positions, groups, labels):
            if len(values) == 0:
                continue
            # spread sideways so that equal values stay visible; no randomness, so reruns match
            offsets = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else np.zeros(1)
            axis.scatter(position + offsets, values, s=10, color=colours.get(label, PALETTE[1]), zorder=3)
            axis.hlines(np.median(values), position - 0.25, position + 0.25, color=PALETTE[0], linewidth=1.2)
    axis.set_xticks(positions, labels)


def outlier_free_limits(values, floor: float | None = None) -> tuple[float, float]:
    """Axis limits for `values` and 0: cut at Tukey's outer fences (quartiles ∓ 3
    interquartile ranges, beyond which values are "far out") when the values beyond
    them would take more than half the axis, never below `floor` (the least value the
    quantity can take)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    low, high = min(values.min(), 0.0), max(values.max(), 0.0)
    first, third = np.percentile(values, [25, 75])
    fenced_low = max(low, min(first - FENCE * (third - first), 0.0))
    fenced_high = min(high, max(third + FENCE * (third - first), 0.0))
    if high - low > 2 * (fenced_high - fenced_low):
        low, high = fenced_low, fenced_high
    margin = 0.05 * (high - low) or 1.0
    low, high = low - margin, high + margin
    return (low if floor is None else max(low, floor)), high


def note_clipped(axis, values, limits, unit: str = "") -> None:
    """Say above the panel how far its values go beyond the axis `limits`, if they do."""
    values = np.asarray(values, dtype=float)
    low, high = limits

    def shown(value):  # +2,400 rather than +2.4e+03
        return f"{value:+,.0f}{unit}" if abs(value) >= 100 else f"{value:+.3g}{unit}"

    notes = []
    if np.nanmax(values) > high:
        notes.append(f"max {shown(np.nanmax(values))}")
    if np.nanmin(values) < low:
        notes.append(f"min {shown(np.nanmin(values))}")
    if notes:
        axis.set_title("cut: " + ", ".join(notes), loc="right", fontsize=6.5, pad=2)


def plain_log_ticks(scaled) -> None:
    """Ticks of a logarithmic x or y axis at 1, 2 and 5 times the powers of ten,
    written as plain numbers (200, not 2 × 10²)."""
    scaled.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    scaled.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    scaled.set_minor_formatter(NullFormatter())


# Ticks of a logarithmic axis of durations in seconds, at the units a reader thinks in.
DURATION_TICKS = {
    1: "1 s",
    60: "1 min",
    600: "10 min",
    3600: "1 h",
    86400: "1 day",
    864000: "10 days",
    8640000: "100 days",
}


def log_duration_ticks(scaled) -> None:
    """Ticks of a logarithmic axis of seconds at 1 s, 1 min, 10 min, 1 h, 1 day, 10 days, 100 days."""
    scaled.set_major_locator(FixedLocator(list(DURATION_TICKS)))
    scaled.set_major_formatter(FuncFormatter(lambda value, _: DURATION_TICKS.get(round(value), "")))
    scaled.set_minor_formatter(NullFormatter())


def duration_label(seconds: float) -> str:
    """40 h, 55 h 33 min, 2 days: a threshold or period as a reader says it."""
    minutes = round(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    if hours == 0:
        return f"{minutes} min"
    if minutes:
        return f"{hours} h {minutes} min"
    return f"{hours // 24} days" if hours % 24 == 0 and hours >= 48 else f"{hours} h"


def shared_legend(figure, axes, title: str, names=None, below: bool = False) -> None:
    """One legend for every panel, right of the figure (or below it), each label
    once, in the order of `names` if given, else of first appearance."""
    labelled = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    if names is not None:
        labelled = {name: labelled[name] for name in names if name in labelled}
    place = {"loc": "outside right center"}
    if below:
        place = {"loc": "outside lower center", "ncols": min(len(labelled), 3)}
    figure.legend(labelled.values(), labelled.keys(), title=title, **place)


def save_figures(drawn: dict, outdir, prefix: str = "") -> None:
    """Write each figure of {name: figure} as `<prefix><name>.png` and `.pdf` in `outdir`."""
    for name, figure in drawn.items():
        save(figure, [Path(outdir) / f"{prefix}{name}.{ext}" for ext in ("png", "pdf")])


def save(figure, paths) -> None:
    """Write `figure` to every path (format from the suffix), atomically and reproducibly."""
    for path in paths:
        kind = str(path).rsplit(".", 1)[-1]
        with atomic_write(path) as tmp:
            figure.savefig(tmp, format=kind, metadata=METADATA.get(kind))
        # laid out once: the next formats reuse the first's layout instead of redoing it (a third of the time)
        figure.set_layout_engine("none")
    plt.close(figure)
