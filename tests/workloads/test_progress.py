"""Progress lines of long commands (simcore.workloads.progress)."""

import io

import pytest

from simcore.workloads.progress import duration, progress


@pytest.mark.parametrize(
    "seconds, text", [(0.4, "0 s"), (59.4, "59 s"), (182, "3 min 2 s"), (3840, "1 h 4 min"), (7322, "2 h 2 min")]
)
def test_durations_read_like_a_person_writes_them(seconds, text):
    assert duration(seconds) == text


def test_a_line_at_most_every_period_and_after_the_last_item():
    ticks = iter([0.0, 10.0, 40.0, 50.0, 75.0, 100.0])  # the start, then after each item
    out = io.StringIO()
    items = list(progress("abcde", 5, "KTH-SP2 variants 0:5", every=30.0, stream=out, clock=lambda: next(ticks)))
    assert items == list("abcde")
    assert out.getvalue().splitlines() == [
        "KTH-SP2 variants 0:5: 2/5 (40 %), 40 s elapsed, about 1 min 0 s left",
        "KTH-SP2 variants 0:5: 4/5 (80 %), 1 min 15 s elapsed, about 19 s left",
        "KTH-SP2 variants 0:5: 5/5 (100 %), 1 min 40 s elapsed",
    ]


def test_nothing_is_written_for_no_item():
    out = io.StringIO()
    assert list(progress([], 0, "empty", stream=out)) == []
    assert out.getvalue() == ""
