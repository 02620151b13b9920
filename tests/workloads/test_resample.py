"""Trace resampling (SEMANTICS §8; decisions in simcore/resample.py)."""

import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simcore
from simcore.workloads.resample import PERMUTED_WEEKS, WEEK, resample, variant_seed

W = WEEK


def make(jobs, machine_size=8):
    """Workload from (job id, submit, user) triples; run = id, requested = 100 + id."""
    ids, submit, user = (np.array(column) for column in zip(*jobs))
    return simcore.Workload.from_arrays(
        submit,
        run=ids,
        requested=100 + ids,
        procs=1 + ids % 4,
        machine_size=machine_size,
        user=user,
        job_id=ids,
        source="tiny",
    )


def permutations(seed, repetitions, users, interior):
    """The documented draws: one Generator call, argsort per (repetition, user) row."""
    keys = np.random.Generator(np.random.PCG64(seed)).random((repetitions, users, interior))
    return np.argsort(keys, axis=-1, kind="stable")


# Four weeks 0..3: weeks 0 and 3 are dropped, weeks 1 and 2 are interior weeks 0 and 1.
TWO_INTERIOR = make(
    [
        (1, 10, 1),  # week 0: dropped
        (2, W + 100, 1),
        (3, W + 200, 2),
        (4, 2 * W + 300, 1),
        (5, 2 * W + 400, 2),
        (6, 3 * W + 7, 2),  # week 3: dropped
    ]
)


def test_single_interior_week_is_forced():
    workload = make([(1, 10, 1), (7, W + 100, 1), (3, W + 50, 2), (4, 2 * W + 5, 2)])
    for method in PERMUTED_WEEKS:
        variant, source_ids = resample(workload, seed=123, method=method)
        assert variant.submit.tolist() == [50.0, 100.0]
        assert source_ids.tolist() == [3, 7]
        assert variant.job_id.tolist() == [1, 2]
        assert variant.user.tolist() == [2, 1]
        assert variant.run.tolist() == [3.0, 7.0] and variant.requested.tolist() == [103.0, 107.0]
        assert variant.source == f"tiny resampled {method} seed=123 weeks=1"

    # Three weeks from one interior week: the same week, three times.
    variant, source_ids = resample(workload, seed=5, weeks=3)
    assert variant.submit.tolist() == [50.0, 100.0, W + 50.0, W + 100.0, 2 * W + 50.0, 2 * W + 100.0]
    assert source_ids.tolist() == [3, 7, 3, 7, 3, 7]
    assert variant.job_id.tolist() == [1, 2, 3, 4, 5, 6]


def test_two_interior_weeks_hand_computed_user_weeks():
    # Seed 6 draws keys [[0.538, 0.343], [0.369, 0.374]]: user 1 swaps its weeks, user 2 keeps them.
    assert permutations(6, 1, 2, 2)[0].tolist() == [[1, 0], [0, 1]]
    variant, source_ids = resample(TWO_INTERIOR, seed=6)
    assert source_ids.tolist() == [3, 4, 2, 5]
    assert variant.submit.tolist() == [200.0, 300.0, W + 100.0, W + 400.0]
    assert variant.user.tolist() == [2, 1, 1, 2]
    assert variant.job_id.tolist() == [1, 2, 3, 4]
    assert variant.source == "tiny resampled user-weeks seed=6 weeks=2"


def test_two_interior_weeks_hand_computed_weeks():
    # One shared permutation: the first row of the same draws, [1, 0]; all users swap together.
    variant, source_ids = resample(TWO_INTERIOR, seed=6, method="weeks")
    assert source_ids.tolist() == [4, 5, 2, 3]
    assert variant.submit.tolist() == [300.0, 400.0, W + 100.0, W + 200.0]


def test_equal_new_submits_are_ordered_by_original_id():
    # Both interior jobs have offset 100. Seed 6: user 1 swaps (its week-2 job 2 goes to output
    # week 0), user 2 keeps its week-1 job 9 in output week 0: a tie at 100, broken by id.
    workload = make([(1, 0, 1), (9, W + 100, 2), (2, 2 * W + 100, 1), (3, 3 * W, 1)])
    variant, source_ids = resample(workload, seed=6)
    assert variant.submit.tolist() == [100.0, 100.0]
    assert source_ids.tolist() == [2, 9] and variant.job_id.tolist() == [1, 2]
    variant, source_ids = resample(workload, seed=6, method="weeks")  # both weeks swap
    assert variant.submit.tolist() == [100.0, W + 100.0]
    assert source_ids.tolist() == [2, 9]


def synthetic(seed=0, n=400, users=5, first_week=52, span=10, empty_week=4):
    """A log starting at week 52 (like CEA-Curie), with one empty interior week."""
    rng = np.random.default_rng(seed)
    week = rng.integers(first_week, first_week + span, n)
    week[:2] = first_week, first_week + span - 1
    week[week == first_week + empty_week] = first_week + empty_week + 1
    submit = week * W + rng.integers(0, W, n)
    ids = rng.permutation(n) + 1
    return simcore.Workload.from_arrays(
        submit,
        run=rng.integers(0, 500, n),
        requested=np.full(n, 600),
        procs=rng.integers(1, 9, n),
        machine_size=8,
        user=rng.integers(0, users, n) * 3 + 1,
        job_id=ids,
        source="synthetic",
    )


def source_rows(workload, source_ids):
    """Positions in `workload` of the given job ids."""
    order = np.argsort(workload.job_id)
    return order[np.searchsorted(workload.job_id, source_ids, sorter=order)]


def check_against_draws(workload, seed, method, weeks=None):
    """Every variant job sits where the re-derived permutations put it."""
    variant, source_ids = resample(workload, seed=seed, method=method, weeks=weeks)
    src = source_rows(workload, source_ids)
    source_week = (workload.submit[src] // W).astype(int)
    first, last = int(workload.submit.min() // W), int(workload.submit.max() // W)
    interior = last - first - 1
    length = interior if weeks is None else weeks
    inside = (workload.submit // W > first) & (workload.submit // W < last)
    users = np.unique(workload.user[inside])
    rank = np.searchsorted(users, variant.user) if method == "user-weeks" else np.zeros(len(variant), int)
    perms = permutations(seed, -(-length // interior), len(users) if method == "user-weeks" else 1, interior)
    output_week = (variant.submit // W).astype(int)
    assert np.all((output_week >= 0) & (output_week < length))
    expected = first + 1 + perms[output_week // interior, rank, output_week % interior]
    assert np.array_equal(source_week, expected)
    np.testing.assert_array_equal(variant.submit % W, workload.submit[src] % W)  # offsets kept
    for name in ("run", "requested", "procs", "user"):
        np.testing.assert_array_equal(getattr(variant, name), getattr(workload, name)[src])
    return variant, source_ids, src


@pytest.mark.parametrize("method", PERMUTED_WEEKS)
@pytest.mark.parametrize("seed", [0, 1, 17])
def test_placement_matches_documented_draws(method, seed):
    workload = synthetic(seed)
    variant, source_ids, src = check_against_draws(workload, seed, method)
    assert len(variant) == len(np.unique(source_ids))  # each interior job exactly once
    week = workload.submit // W
    interior_ids = workload.job_id[(week > week.min()) & (week < week.max())]
    assert sorted(source_ids.tolist()) == sorted(interior_ids.tolist())  # first and last weeks dropped
    assert variant.submit.max() < 8 * W  # 10-week span: 8 interior weeks

    def per_user(w, rows):
        return Counter(
            zip(
                w.user[rows].tolist(),
                w.run[rows].tolist(),
                w.requested[rows].tolist(),
                w.procs[rows].tolist(),
                (w.submit[rows] % W).tolist(),
            )
        )

    assert per_user(variant, np.arange(len(variant))) == per_user(workload, src)


@pytest.mark.parametrize("method", PERMUTED_WEEKS)
@pytest.mark.parametrize("weeks", [3, 8, 13, 20])
def test_requested_length_concatenates_fresh_permutations(method, weeks):
    workload = synthetic(3)
    variant, source_ids, _ = check_against_draws(workload, 11, method, weeks=weeks)
    copies = Counter(source_ids.tolist())
    assert set(copies.values()) <= {weeks // 8, weeks // 8 + 1} - {0}
    if weeks % 8 == 0:
        assert set(copies.values()) == {weeks // 8}
    assert variant.source == f"synthetic resampled {method} seed=11 weeks={weeks}"


def test_shorter_length_is_a_prefix_of_a_longer_one():
    workload = synthetic(4)
    long, long_ids = resample(workload, seed=2, weeks=20)
    short, short_ids = resample(workload, seed=2, weeks=13)
    keep = long.submit < 13 * W
    np.testing.assert_array_equal(short.submit, long.submit[keep])
    np.testing.assert_array_equal(short_ids, long_ids[keep])


def test_weeks_method_keeps_source_weeks_together():
    workload = synthetic(5)
    variant, source_ids = resample(workload, seed=9, method="weeks", weeks=20)
    src = source_rows(workload, source_ids)
    pairs = set(zip((variant.submit // W).tolist(), (workload.submit[src] // W).tolist()))
    output_weeks = [output for output, _ in pairs]
    assert len(output_weeks) == len(set(output_weeks))  # each output week draws on one source week
    # ... and user-weeks does split them (5 users, 8 weeks: a collision of all is vanishingly unlikely).
    variant, source_ids = resample(workload, seed=9, method="user-weeks", weeks=20)
    src = source_rows(workload, source_ids)
    pairs = set(zip((variant.submit // W).tolist(), (workload.submit[src] // W).tolist()))
    assert len(pairs) > len({output for output, _ in pairs})


def test_user_weeks_draws_per_user_independently():
    workload = synthetic(6)
    variant, source_ids = resample(workload, seed=21)
    src = source_rows(workload, source_ids)
    mapping = {}
    for user, output, source in zip(
        variant.user.tolist(), (variant.submit // W).tolist(), (workload.submit[src] // W).tolist()
    ):
        assert mapping.setdefault((user, output), source) == source  # one source week per user-week
    per_user = {u: tuple(s for (v, o), s in sorted(mapping.items()) if v == u) for u, _ in mapping}
    assert len(set(per_user.values())) > 1


@pytest.mark.parametrize("method", PERMUTED_WEEKS)
def test_deterministic_in_the_seed(method):
    workload = synthetic(7)
    a, a_ids = resample(workload, seed=4, method=method, weeks=12)
    b, b_ids = resample(workload, seed=4, method=method, weeks=12)
    for name in ("job_id", "submit", "run", "requested", "procs", "user"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert np.array_equal(a_ids, b_ids)
    c, c_ids = resample(workload, seed=5, method=method, weeks=12)
    assert not (np.array_equal(a.submit, c.submit) and np.array_equal(a_ids, c_ids))


@pytest.mark.parametrize("method", PERMUTED_WEEKS)
def test_output_is_a_valid_sorted_workload(method):
    workload = synthetic(8)
    variant, source_ids = resample(workload, seed=3, method=method, weeks=30)
    variant.validate()
    assert np.all(np.diff(variant.submit) >= 0)
    assert np.array_equal(variant.job_id, np.arange(1, len(variant) + 1))
    same = np.diff(variant.submit) == 0
    assert np.all(np.diff(source_ids)[same] > 0)  # ties by original id
    assert variant.machine_size == workload.machine_size
    assert variant.job_id.dtype == np.int64 and variant.submit.dtype == np.float64


def test_metadata_is_carried_over(write_swf):
    from conftest import HEADER, job_line

    text = HEADER + "".join(job_line(i, i * W // 2, 10, 2, 20, user=i % 3) for i in range(1, 9))
    workload = simcore.read_swf(write_swf(text), filter="strict")
    variant, _ = resample(workload, seed=1)
    assert variant.filter_mode == "strict" and variant.filter_counts == workload.filter_counts
    assert variant.header == workload.header and variant.source_sha256 == workload.source_sha256
    assert variant.source.endswith("trace.swf resampled user-weeks seed=1 weeks=3")  # weeks 0..4


@given(
    st.lists(st.tuples(st.integers(0, 6 * W - 1), st.integers(0, 3)), min_size=3, max_size=60),
    st.integers(0, 2**32),
    st.sampled_from(PERMUTED_WEEKS),
    st.none() | st.integers(1, 15),
)
@settings(max_examples=60, deadline=None)
def test_random_logs(jobs, seed, method, weeks):
    workload = make([(i + 1, submit, user) for i, (submit, user) in enumerate(jobs)])
    week = workload.submit // W
    if week.max() - week.min() < 2 or not np.any((week > week.min()) & (week < week.max())):
        with pytest.raises(ValueError):
            resample(workload, seed, method, weeks)
        return
    variant, source_ids, _ = check_against_draws(workload, seed, method, weeks)
    variant.validate()
    assert np.array_equal(variant.job_id, np.arange(1, len(variant) + 1))
    if weeks is None:
        interior = (week > week.min()) & (week < week.max())
        assert sorted(source_ids.tolist()) == sorted(workload.job_id[interior].tolist())


def test_short_variant_may_be_empty():
    # Weeks 0, 1 and 3: interior weeks 1 (one job) and 2 (empty); seed 6 puts the empty week first.
    workload = make([(1, 0, 1), (2, W + 5, 1), (3, 3 * W, 1)])
    assert permutations(6, 1, 1, 2)[0, 0].tolist() == [1, 0]
    variant, source_ids = resample(workload, seed=6, weeks=1)
    assert len(variant) == 0 and len(source_ids) == 0
    variant.validate()
    variant, source_ids = resample(workload, seed=6)
    assert variant.submit.tolist() == [W + 5.0] and source_ids.tolist() == [2]


def test_errors():
    with pytest.raises(ValueError, match="unknown resampling method 'days'"):
        resample(TWO_INTERIOR, 0, method="days")
    for weeks in (0, -3):
        with pytest.raises(ValueError, match="weeks must be a positive"):
            resample(TWO_INTERIOR, 0, weeks=weeks)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        resample(TWO_INTERIOR, -1)
    with pytest.raises(ValueError, match="needs at least 3 weeks"):
        resample(make([(1, 5, 1), (2, W + 5, 1)]), 0)
    with pytest.raises(ValueError, match="needs at least 3 weeks"):
        resample(make([(1, 5, 1), (2, 10, 2)]), 0)
    with pytest.raises(ValueError, match="no job is submitted strictly between"):
        resample(make([(1, 5, 1), (2, 2 * W + 5, 1)]), 0)
    empty = simcore.Workload.from_arrays([], [], [], [], machine_size=4)
    with pytest.raises(ValueError, match="empty workload"):
        resample(empty, 0)


def test_variant_seed():
    assert variant_seed(1000, 0) == 1000 and variant_seed(1000, 99) == 1099
    with pytest.raises(ValueError):
        variant_seed(-1, 0)
    with pytest.raises(ValueError):
        variant_seed(0, -1)


def test_kth_resampled_to_100_weeks(pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")
    week = workload.submit // W
    inside = (week > week.min()) & (week < week.max())
    interior_weeks = int(week.max() - week.min() - 1)
    assert interior_weeks == 47 and inside.sum() == 27646  # weeks 0..48 in the log
    for method in PERMUTED_WEEKS:
        start = time.perf_counter()
        variant, source_ids = resample(workload, seed=variant_seed(0, 3), method=method, weeks=100)
        elapsed = time.perf_counter() - start
        assert elapsed < 1.0, f"{method}: {elapsed:.3f} s"
        variant.validate()
        assert variant.submit.max() < 100 * W
        assert set(np.unique(variant.user)) == set(np.unique(workload.user[inside]))
        # 100 = 2 * 47 + 6: two full passes over the interior plus six more weeks per user,
        # so between 2 and 3 copies of the interior; about 100/47 copies (58,821 jobs) expected.
        assert 2 * 27646 <= len(variant) <= 3 * 27646
        assert 50_000 <= len(variant) <= 70_000
        copies = np.bincount(np.unique(source_ids, return_counts=True)[1])
        assert copies[0] == 0 and copies[1] == 0 and copies[2] + copies[3] == 27646
