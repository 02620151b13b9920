"""The paired intervals the studies' claims are judged on (simcore.reporting.intervals): Student's
interval, and the outcome of a claim that its interval is above a threshold or within a band."""

import math

import pytest

from simcore.reporting.intervals import above, combined, interval, within


def test_interval_is_students_and_degenerate_without_spread():
    assert interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    assert interval([5.0]) == (5.0, 5.0, 5.0)
    assert all(math.isnan(value) for value in interval([]))
    assert interval([1.0, math.nan, 3.0])[0] == 2.0  # a pair without a value is left out
    mean, low, high = interval([1.0, 2.0, 3.0])
    # t(0.975, 2) = 4.3027; sd 1; n 3
    assert mean == 2.0 and high - mean == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert mean - low == pytest.approx(high - mean)


def test_above_holds_fails_or_is_undetermined():
    assert above(0.1, 0.3, 0.0) == "holds"
    assert above(-0.3, -0.1, 0.0) == "fails" and above(0.0, 0.0, 0.0) == "fails"  # no difference is no gain
    assert above(-0.1, 0.3, 0.0) == "undetermined"  # within the noise
    assert above(math.nan, math.nan, 0.0) == "undetermined"


def test_within_holds_fails_or_is_undetermined():
    assert within(-0.01, 0.015, -0.02, 0.02) == "holds"
    assert within(0.021, 0.03, -0.02, 0.02) == "fails" and within(-0.1, -0.03, -0.02, 0.02) == "fails"
    assert within(0.01, 0.03, -0.02, 0.02) == "undetermined"
    assert within(95.0, 97.0, 94.0, math.inf) == "holds"


def test_a_claim_of_several_parts():
    assert combined(["holds", "holds"]) == "holds"
    assert combined(["holds", "undetermined"]) == "undetermined"
    assert combined(["undetermined", "fails"]) == "fails"
    assert combined([]) == "undetermined"
