"""Paired intervals for the studies' claims: the mean of paired differences (or ratios) with its
95 % Student interval, and the outcome it gives a claim. A claim *holds* when the whole interval
is on its side, *fails* when none of it is, and is *undetermined* otherwise, so a difference
within the seeds' noise is never scored as a result."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
HOLDS, FAILS, UNDETERMINED = "holds", "fails", "undetermined"
OUTCOMES = (HOLDS, FAILS, UNDETERMINED)


def interval(values) -> tuple[float, float, float]:
    """Mean and 95 % Student interval of paired values (the mean alone, as both ends, for one value
    or values that do not vary)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    spread = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    if spread == 0.0:
        return mean, mean, mean
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, len(values) - 1)) * spread / math.sqrt(len(values))
    return mean, mean - half, mean + half


def above(low: float, high: float, threshold: float) -> str:
    """The claim "above `threshold`": holds when the interval is, fails when it is not above at all."""
    if math.isnan(low):
        return UNDETERMINED
    return HOLDS if low > threshold else FAILS if high <= threshold else UNDETERMINED


def within(low: float, high: float, lowest: float, highest: float) -> str:
    """The claim "in [lowest, highest]": holds when the whole interval is, fails when none of it is."""
    if math.isnan(low):
        return UNDETERMINED
    if lowest <= low and high <= highest:
        return HOLDS
    return FAILS if high < lowest or low > highest else UNDETERMINED


def combined(outcomes) -> str:
    """Several parts of one claim: fails if any part fails, holds if every part holds."""
    outcomes = list(outcomes)
    if FAILS in outcomes:
        return FAILS
    return HOLDS if outcomes and all(outcome == HOLDS for outcome in outcomes) else UNDETERMINED
