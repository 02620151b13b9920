"""Figures of the learned-functions study (the thesis's chapter 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.reporting.style import PALETTE, plt


def trial_scores_figure(scores: pd.DataFrame, spread: pd.DataFrame):
    """The thesis's Figure 3.1: the trial-score distributions of two tuples
    (jobs sorted by score, the mean 1/|Q| dashed) and the score spread
    against the number of trials."""
    figure, axes = plt.subplots(1, 3, figsize=(10.0, 3.0))
    for axis, (number, part) in zip(axes[:2], list(scores.groupby("tuple", sort=True))[:2]):
        ordered = np.sort(part["score"].to_numpy())
        axis.bar(np.arange(1, len(ordered) + 1), ordered, color=PALETTE[1])
        axis.axhline(1.0 / len(ordered), color=PALETTE[0], linestyle="--", linewidth=0.8)
        axis.set_ylim(bottom=0)  # bars from zero: their heights compare as the scores do
        axis.set_xlabel("jobs of Q, by score")
        axis.set_ylabel("trial score")
        axis.set_title(f"tuple {number}")
    axes[2].plot(spread["trials"], spread["normalized_std"], marker="o", color=PALETTE[2])
    axes[2].set_xscale("log")
    axes[2].set_xlabel("trials")
    axes[2].set_ylabel("std of the score × |Q|")
    axes[2].set_ylim(bottom=0)
    axes[2].set_title("estimation accuracy")
    for axis in axes:
        axis.grid(alpha=0.3)
    figure.suptitle("Trial score distributions (|S| = 16, |Q| = 32)")
    return figure
