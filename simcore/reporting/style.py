"""The one matplotlib style of every figure: fonts, colours, percentile bands,
readable durations, and the writer that makes a rerun's PNG and PDF
byte-identical. Each study's `figures.py` draws with these and nothing else
sets rcParams. Figures use constrained layout (set here): a title
never collides with a panel and legends go outside the axes.

Percentiles are drawn as a shaded band around the mean line, never as dashed
lines: with a dozen policies in one panel, dashed pairs are unreadable, so
figures with many policies use small multiples (one panel per policy).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the non-interactive backend)

from simcore.workloads.files import atomic_write  # noqa: E402

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
    }
)

# Twelve hues told apart in print (tab10 plus black and gold); the baseline FCFS is black.
DISTINCT_COLOURS = ("black",) + plt.get_cmap("tab10").colors + ("#e6ab02",)
BAND_ALPHA = 0.2

# Every output is byte-identical across reruns: no creation date, no software version.
METADATA = {
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "Producer": None, "Creator": None},
}


def colours_for(names) -> dict:
    """One distinct colour per name, in the order given (FCFS first gets black)."""
    return {name: DISTINCT_COLOURS[index % len(DISTINCT_COLOURS)] for index, name in enumerate(names)}


def band(axis, x, mean, low, high, colour, label=None, linewidth=1.4):
    """The mean as a line, the percentiles between `low` and `high` as a shaded band."""
    axis.fill_between(x, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0)
    axis.plot(x, mean, color=colour, label=label, linewidth=linewidth)


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


def save(figure, paths) -> None:
    """Write `figure` to every path (format from the suffix), atomically and reproducibly."""
    for path in paths:
        kind = str(path).rsplit(".", 1)[-1]
        with atomic_write(path) as tmp:
            figure.savefig(tmp, format=kind, metadata=METADATA.get(kind))
        # laid out once: the next formats reuse the first's layout instead of redoing it (a third of the time)
        figure.set_layout_engine("none")
    plt.close(figure)
