"""The simulator's results on every real trace of the mirror, pinned exactly (tests/golden.py)."""

import json

import pytest
from conftest import mirror_with
from golden import GOLDEN, TRACES, trace_values

PINNED = json.loads(GOLDEN.read_text())


def test_every_trace_and_configuration_is_pinned():
    assert sorted(PINNED) == sorted(TRACES)
    assert all(len(values) == 31 for values in PINNED.values())  # 14 orders x 2 thresholds + 3


@pytest.mark.slow
@pytest.mark.parametrize("trace", sorted(TRACES))
def test_golden_values(trace):
    computed = trace_values(trace, mirror_with(TRACES[trace][0]))
    for label, pinned in PINNED[trace].items():
        assert computed[label]["avg_bsld"] == pytest.approx(pinned["avg_bsld"], rel=1e-9, abs=0), (trace, label)
        assert computed[label]["start_sha256"] == pinned["start_sha256"], (trace, label)
