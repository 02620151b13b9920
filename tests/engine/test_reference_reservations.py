"""The reference simulator's reservation depth D (RESERVATIONS.md section 1).

Hand-computed schedules for D = 0, 1, 2 and "all", then randomized tests
(Hypothesis, derandomized):
- the walk of section 1 run with D = 1 (`reference_simulate(..., walk=True)`) gives
  exactly the EASY schedule of SEMANTICS section 4 (the contract asks every
  implementation to show this on random workloads);
- D = 0 is backfill="none";
- conservative backfilling (D = "all"), FCFS, exact estimates, no threshold:
  no job starts after its first reservation, and the jobs submitted after a
  job never change its start;
- sanity of D = 2, 3 and "all" (machine never over-committed, counts).

Notation in the comments: job i = (r, p, p~, q); estimates are the requests
unless said otherwise; "res [a, b)" is a reservation, "profile" lists
[from, to): free; n = reservations made so far in the pass.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sim import reference_simulate
from strategies import COMMON, cases, order_switches, with_function, workloads

PER_JOB = ("start", "end", "backfilled", "corrections", "order_at_start")


def sim(jobs, m, walk=False, **kwargs):
    """jobs: list of (r, p, p~, q); `walk`: every pass by the walk."""
    columns = [[job[k] for job in jobs] for k in range(4)]
    return reference_simulate(*columns, [0] * len(jobs), m, walk=walk, **kwargs)


def nan_as_none(values):
    return [None if math.isnan(x) else x for x in values]


def schedule(res):
    """What the hand-computed tests check."""
    return (
        res["start"],
        res["backfilled"],
        nan_as_none(res["reservation"]),
        res["reservations_made"],
        res["jobs_reserved"],
    )


def assert_same(a, b):
    for name in PER_JOB + ("reservations_made", "jobs_reserved"):
        assert a[name] == b[name], name
    assert nan_as_none(a["reservation"]) == nan_as_none(b["reservation"])


# ----------------------------------------------------------- hand-computed ---

# m = 4
CASE_A = [
    (0, 10, 10, 2),  # job0
    (0, 10, 10, 3),  # job1
    (0, 5, 5, 4),  # job2
    (0, 21, 21, 1),  # job3
    (0, 10, 10, 1),  # job4
    (0, 20, 20, 1),  # job5
    (0, 2, 2, 1),  # job6
]


def test_depth_two_hole_before_reservations_and_a_job_that_would_delay_the_second():
    # D = 2, m = 4.
    # t=0: job0 starts (not backfilled). profile [0,10):2 [10,inf):4.
    #   job1 (q3): anchor 10 -> res [10,20), n=1.  profile [0,10):2 [10,20):1 [20,inf):4
    #   job2 (q4, 5 s): anchor 20 -> res [20,25), n=2.  ... [20,25):0 [25,inf):4
    #   job3 (q1, 21 s): from 0 the window [0,21) meets [20,25):0; the next
    #     rise of free is 25 -> anchor 25, n = D: it waits (it would delay
    #     the second reservation).
    #   job4 (q1, 10 s): [0,10) has 2 -> starts now, backfilled; it ends at
    #     10, exactly when job1's reservation begins (half-open).
    #   job5 (q1, 20 s): [0,10):1, [10,20):1 -> starts now, backfilled; ends
    #     at 20, exactly when job2's reservation begins.
    #   job6 (q1): not walked: free 0 now with a reservation held.  made 2
    # t=10: job0, job4 end; free 3 (job5 runs to 20).  job1 starts (not
    #   backfilled: no reservation yet in this pass); free 0, but none held.
    #   job2 anchor 20 (job1 and job5 end then) -> res [20,25), n=1; stop.
    #                                                            made 3
    # t=20: job1, job5 end; free 4: job2 starts; free 0.  job3 res 25 (n=1),
    #   stop: job6 is not reserved.                              made 4
    # t=25: job2 ends: job3 and job6 start (no reservation in this pass).
    # Reserved ever: job1 (first at 10), job2 (20), job3 (25).
    res = sim(CASE_A, 4, reservations=2)
    assert schedule(res) == (
        [0.0, 10.0, 20.0, 25.0, 0.0, 0.0, 25.0],
        [False, False, False, False, True, True, False],
        [None, 10.0, 20.0, 25.0, None, None, None],
        4,
        3,
    )


def test_depth_one_on_the_same_case_is_easy_and_so_is_the_walk():
    # D = 1 (EASY), m = 4.
    # t=0: job0 starts, free 2.  Head job1 (q3): T = 10, extra = 2 + 2 - 3 = 1.
    #   job2 q4 > 2.  job3: 0 + 21 > 10 but q1 <= extra -> backfilled (free 1,
    #   extra 0).  job4: 0 + 10 <= 10 -> backfilled (free 0).  job5, job6:
    #   no processor.                                          made 1
    # t=10: job0, job4 end, free 3 (job3 runs to 21): job1 starts, free 0.
    #   Head job2 (q4): end 20 (job1) gives 3, end 21 (job3) 4 -> T = 21.  made 2
    # t=20: job1 ends, free 3.  Head job2: T = 21, extra 0; job5 (20+20 > 21)
    #   and job6 (20+2 > 21) refused.                          made 3
    # t=21: job3 ends: job2 starts, free 0.  Head job5: T = 26.   made 4
    # t=26: job2 ends: job5 and job6 start.
    # Unlike D = 2, job3 backfills at once and job2 is delayed from 20 to 21.
    expected = (
        [0.0, 10.0, 21.0, 0.0, 0.0, 26.0, 26.0],
        [False, False, False, True, True, False, False],
        [None, 10.0, 21.0, None, None, 26.0, None],
        4,
        3,
    )
    assert schedule(sim(CASE_A, 4)) == expected
    assert schedule(sim(CASE_A, 4, reservations=1)) == expected
    assert schedule(sim(CASE_A, 4, walk=True, reservations=1)) == expected


def test_depth_all_on_the_same_case():
    # D = "all", m = 4.
    # t=0: job0 starts; job1 res [10,20), job2 res [20,25), job3 res [25,46);
    #   job4 and job5 start now (backfilled, as with D = 2); free 0 now: the
    #   walk stops before job6.                                made 3
    # t=10: job1 starts, free 0; job2 res 20; stop.               made 4
    # t=20: job2 starts, free 0; job3 res 25; stop.               made 5
    # t=25: job3 and job6 start; job6 never held a reservation.
    res = sim(CASE_A, 4, reservations="all")
    assert schedule(res) == (
        [0.0, 10.0, 20.0, 25.0, 0.0, 0.0, 25.0],
        [False, False, False, False, True, True, False],
        [None, 10.0, 20.0, 25.0, None, None, None],
        5,
        3,
    )


# m = 3
CASE_B = [
    (0, 10, 10, 2),  # job0
    (0, 10, 10, 2),  # job1
    (0, 10, 10, 2),  # job2
    (0, 10, 10, 3),  # job3
    (0, 35, 35, 1),  # job4
]


def test_depth_two_lets_a_job_delay_the_third_waiting_job():
    # D = 2, m = 3.
    # t=0: job0 starts.  profile [0,10):1 [10,inf):3.
    #   job1 (q2): anchor 10 -> res [10,20), n=1.  profile [0,20):1 [20,inf):3
    #     (at 10 job0's end and the reservation cancel).
    #   job2 (q2): anchor 20 -> res [20,30), n=2.  profile [0,30):1 [30,inf):3
    #   job3 (q3): anchor 30, n = D: waits.
    #   job4 (q1, 35 s): free 1 on [0,30) and 3 on [30,35) -> starts now,
    #     backfilled; free 0 now.                              made 2
    # t=10: job0 ends, free 2: job1 starts, free 0.  job2 res [20,30) (n=1);
    #   free 0 with a reservation held: the walk stops.        made 3
    # t=20: job1 ends: job2 starts, free 0.  job3 anchor 35 (job4 holds one
    #   processor until 35) -> res; stop.                      made 4
    # t=30: job2 ends, free 2.  job3 res 35.                      made 5
    # t=35: job4 ends: job3 starts.
    res = sim(CASE_B, 3, reservations=2)
    assert schedule(res) == (
        [0.0, 10.0, 20.0, 35.0, 0.0],
        [False, False, False, False, True],
        [None, 10.0, 20.0, 35.0, None],
        5,
        3,
    )
    # D = 1 happens to give the same starts: at t=0 T = 10 and extra 1 let
    # job4 backfill; job2 then gets T = 20 at t=10, job3 T = 35 at t=20 and
    # t=30.
    res = sim(CASE_B, 3, reservations=1)
    assert schedule(res) == (
        [0.0, 10.0, 20.0, 35.0, 0.0],
        [False, False, False, False, True],
        [None, 10.0, 20.0, 35.0, None],
        4,
        3,
    )


def test_depth_all_protects_the_third_job():
    # D = "all", m = 3.
    # t=0: job0 starts; job1 res [10,20), job2 res [20,30), job3 res [30,40)
    #   (profile [0,30):1 [30,40):0 [40,inf):3).  job4 (q1, 35 s): from 0 the
    #   window meets [30,40):0; next rise at 40 -> res [40,75).   made 4
    # t=10: job0 ends: job1 starts, free 1; job2 res 20, job3 res 30, job4:
    #   [10,30):1 then [30,40):0 -> res 40.                   made 7
    # t=20: job1 ends: job2 starts; job3 res 30, job4 res 40.    made 9
    # t=30: job2 ends: job3 starts, free 0; job4 res 40.          made 10
    # t=40: job3 ends: job4 starts.  Nothing is ever backfilled.
    res = sim(CASE_B, 3, reservations="all")
    assert schedule(res) == (
        [0.0, 10.0, 20.0, 30.0, 40.0],
        [False] * 5,
        [None, 10.0, 20.0, 30.0, 40.0],
        10,
        4,
    )


def test_depth_all_reserves_in_a_hole_before_an_earlier_jobs_reservation():
    # m = 4; job0 = (0,10,10,3), job1 = (0,10,10,2), job2 = (0,10,10,4),
    # job3 = (0,5,5,2).
    # D = "all".  t=0: job0 starts, free 1.  job1 res [10,20): profile
    #   [10,20):2.  job2 res [20,30).  job3: free 1 now, 2 from 10,
    #   [10,15):2 -> res [10,15), before job2's.               made 3
    # t=10: job0 ends: job1 starts, free 2.  job2 res 20 (n=1); job3 fits
    #   [10,15) now -> starts, backfilled; free 0: stop.       made 4
    # t=15: job3 ends, free 2: job2 res 20.                      made 5
    # t=20: job1 ends: job2 starts.
    # D = 2: the same, except at t=0 job3 waits (n = D): made 2 + 1 + 1 = 4
    #   and job3 is never reserved.
    # D = 1: t=0 head job1 T = 10 (made 1); t=10 head job2 T = 20, job3 ends
    #   15 <= 20 -> backfilled (made 2); t=15 head job2 (made 3).
    jobs = [(0, 10, 10, 3), (0, 10, 10, 2), (0, 10, 10, 4), (0, 5, 5, 2)]
    starts = [0.0, 10.0, 20.0, 10.0]
    flags = [False, False, False, True]
    assert schedule(sim(jobs, 4, reservations="all")) == (starts, flags, [None, 10.0, 20.0, 10.0], 5, 3)
    assert schedule(sim(jobs, 4, reservations=2)) == (starts, flags, [None, 10.0, 20.0, None], 4, 2)
    assert schedule(sim(jobs, 4, reservations=1)) == (starts, flags, [None, 10.0, 20.0, None], 3, 2)


def test_job_started_before_the_first_reservation_is_not_backfilled():
    # m = 4, D = 2; job0 = (0,10,10,3), job1 = (0,10,10,1), job2 = (0,5,5,4),
    # job3 = (0,5,5,2).
    # t=0: job0 starts, job1 starts (anchor 0, no reservation yet: not
    #   backfilled), free 0; job2 res [10,15); stop before job3.
    # t=10: job0, job1 end: job2 starts; job3 res 15.  t=15: job3 starts.
    res = sim([(0, 10, 10, 3), (0, 10, 10, 1), (0, 5, 5, 4), (0, 5, 5, 2)], 4, reservations=2)
    assert schedule(res) == ([0.0, 0.0, 10.0, 15.0], [False] * 4, [None, None, 10.0, 15.0], 2, 2)


def test_pass_without_a_free_processor_is_skipped_for_every_depth():
    # m = 1; job0 = (0,10,10,1), job1 = (1,5,5,1), job2 = (1,1,1,1).
    # t=0: job0 starts (queue empty afterwards).  t=1: free 0 -> no pass, no
    # reservation for job1 or job2.  t=10: job1 starts, job2 gets its first
    # reservation at 15 (D >= 1).  t=15: job2 starts.
    jobs = [(0, 10, 10, 1), (1, 5, 5, 1), (1, 1, 1, 1)]
    for depth in (1, 2, "all"):
        res = sim(jobs, 1, reservations=depth)
        assert schedule(res) == ([0.0, 10.0, 15.0], [False] * 3, [None, None, 15.0], 1, 1), depth
    res = sim(jobs, 1, reservations=0)
    assert schedule(res) == ([0.0, 10.0, 15.0], [False] * 3, [None] * 3, 0, 0)


def test_depth_zero_is_backfill_none():
    # m = 4; job0 = (0,10,10,3), job1 = (1,5,5,2), job2 = (2,2,2,1):
    # no backfilling, job2 waits behind job1 (starts 0, 10, 10).
    jobs = [(0, 10, 10, 3), (1, 5, 5, 2), (2, 2, 2, 1)]
    expected = ([0.0, 10.0, 10.0], [False] * 3, [None] * 3, 0, 0)
    assert schedule(sim(jobs, 4, reservations=0)) == expected
    assert schedule(sim(jobs, 4, reservations=0, backfill="none")) == expected
    assert schedule(sim(jobs, 4, backfill="none")) == expected
    # EASY for comparison: job2 backfills at 2 (ends 4 <= T = 10); head job1
    # gets a shadow time at the passes t=1, 2 and 4 (job2's end): made 3.
    assert schedule(sim(jobs, 4)) == ([0.0, 10.0, 2.0], [False, False, True], [None, 10.0, None], 3, 1)


def test_depth_one_counts_every_shadow_time_whatever_the_backfill_order():
    # m = 3; job0 = (0,5,20,2), job1 = (1,10,10,2), job2 = (1,100,100,2).
    # t=1: head job1, T = 20.  t=5: job1 starts; head job2, T = 15.
    # t=15: job2 starts.  Two shadow times, two distinct jobs; the same with
    # SJBF (backfill order SPF).
    jobs = [(0, 5, 20, 2), (1, 10, 10, 2), (1, 100, 100, 2)]
    for backfill in ("queue", "SPF"):
        res = sim(jobs, 3, backfill=backfill)
        assert schedule(res) == ([0.0, 5.0, 15.0], [False] * 3, [None, 20.0, 15.0], 2, 2)


def test_sub_second_jobs_make_clairvoyant_estimates_inexact():
    # Why the property tests below lift run times to 1 s: e = max(1, p), so a
    # job shorter than 1 s ends before its estimate, and then a later job can
    # delay an earlier one even under D = "all".
    # m = 4, FCFS, clairvoyant; job0 = (0,0,1,1), job1 = (0,0,1,4),
    # job2 = (0,0.25,1,2); every e = 1.
    # t=0: job0 starts (ends at 0); job1 res [1,2); job2 fits [0,1) -> starts,
    #   backfilled.  job0's completion at 0 gives a second pass: free 2, job1
    #   res 1 again.  t=0.25: job2 ends: job1 starts at 0.25.
    # Without job2: the second pass at 0 has 4 free and job1 starts at 0.
    jobs = [(0, 0, 1, 1), (0, 0, 1, 4), (0, 0.25, 1, 2)]
    res = sim(jobs, 4, estimate="clairvoyant", reservations="all")
    assert res["start"] == [0.0, 0.25, 0.0]
    assert sim(jobs[:2], 4, estimate="clairvoyant", reservations="all")["start"] == [0.0, 0.0]


# -------------------------------------------------------------- arguments ---


@pytest.mark.parametrize("depth", [-1, 1.0, 2.5, "ALL", "2", None, True, False])
def test_bad_depth(depth):
    with pytest.raises(ValueError, match="reservations"):
        sim(CASE_A, 4, reservations=depth)


@pytest.mark.parametrize("backfill", ["SPF", "FCFS", "LAF"])
def test_depth_zero_needs_queue_or_none(backfill):
    with pytest.raises(ValueError, match="reservations"):
        sim(CASE_A, 4, reservations=0, backfill=backfill)


@pytest.mark.parametrize("depth", [2, 3, "all"])
@pytest.mark.parametrize("backfill", ["none", "SPF", "FCFS"])
def test_deeper_reservations_need_queue_backfill(depth, backfill):
    with pytest.raises(ValueError, match="reservations") as error:
        sim(CASE_A, 4, reservations=depth, backfill=backfill)
    assert "backfill" in str(error.value)


def test_accepted_depths():
    for depth, backfill in ((0, "queue"), (0, "none"), (1, "SPF"), (1, "none"), (2, "queue"), ("all", "queue")):
        sim(CASE_A, 4, reservations=depth, backfill=backfill)
    with pytest.raises(ValueError, match="reservations"):
        sim(CASE_A, 4, walk=True, reservations=0)
    with pytest.raises(ValueError, match="backfill"):
        sim(CASE_A, 4, walk=True, reservations=1, backfill="SPF")


# ------------------------------------------------------------- randomized ---


@st.composite
def queue_cases(draw):
    """A random case (every order, threshold, estimate, correction) with the
    backfill order forced to the queue's, and order switches half the time."""
    wl, opts = draw(cases())
    opts = with_function({**opts, "backfill": "queue"})
    if draw(st.booleans()):
        submit, run, requested = wl[0], wl[1], wl[2]
        horizon = max(submit) + sum(min(a, b) for a, b in zip(run, requested)) + 1
        opts["switches"] = draw(order_switches(horizon, instants=submit))
    return wl, opts


@settings(max_examples=1200, **COMMON)
@given(queue_cases())
def test_walk_with_depth_one_is_easy(case):
    wl, opts = case
    easy = reference_simulate(*wl, reservations=1, **opts)
    walk = reference_simulate(*wl, reservations=1, walk=True, **opts)
    assert_same(walk, easy)
    assert_same(reference_simulate(*wl, **opts), easy)  # the default depth is 1


@settings(max_examples=500, **COMMON)
@given(cases())
def test_depth_zero_is_backfill_none_on_random_workloads(case):
    wl, opts = case
    opts = with_function({**opts, "backfill": "none"})
    none = reference_simulate(*wl, **opts)
    assert none["reservations_made"] == none["jobs_reserved"] == 0
    assert_same(reference_simulate(*wl, reservations=0, **opts), none)
    assert_same(reference_simulate(*wl, **{**opts, "reservations": 0, "backfill": "queue"}), none)


def exact(wl):
    """`wl` with every run time lifted to >= 1 s, so that the clairvoyant
    estimate max(1, p) is exact (requested times are >= 1 s already)."""
    submit, run, requested, procs, user, m = wl
    return submit, [max(p, 1.0) for p in run], requested, procs, user, m


CONSERVATIVE = dict(order="FCFS", estimate="clairvoyant", threshold=None, reservations="all")


@settings(max_examples=600, **COMMON)
@given(workloads())
def test_conservative_exact_no_job_starts_after_its_first_reservation(wl):
    wl = exact(wl)
    res = reference_simulate(*wl, **CONSERVATIVE)
    for s, a in zip(res["start"], res["reservation"]):
        if not math.isnan(a):
            assert s <= a


@settings(max_examples=600, **COMMON)
@given(workloads())
def test_conservative_exact_later_jobs_never_change_a_start(wl):
    submit, run, requested, procs, user, m = exact(wl)
    res = reference_simulate(submit, run, requested, procs, user, m, **CONSERVATIVE)
    for j in range(len(submit)):
        k = j + 1  # keep jobs 0..j
        alone = reference_simulate(submit[:k], run[:k], requested[:k], procs[:k], user[:k], m, **CONSERVATIVE)
        assert alone["start"][j] == res["start"][j], j


@settings(max_examples=400, **COMMON)
@given(cases(), st.sampled_from([2, 3, "all"]))
def test_deeper_reservations_sanity(case, depth):
    wl, opts = case
    opts = with_function({**opts, "backfill": "queue"})
    submit, run, requested, procs, user, m = wl
    res = reference_simulate(*wl, reservations=depth, **opts)
    n = len(submit)
    for i in range(n):
        assert res["start"][i] >= submit[i]
        assert res["end"][i] == res["start"][i] + min(run[i], requested[i])
        if not math.isnan(res["reservation"][i]):
            assert res["reservation"][i] > submit[i]  # an anchor is after the pass's instant
    for t in set(res["start"]):
        assert sum(procs[i] for i in range(n) if res["start"][i] <= t < res["end"][i]) <= m
    reserved = sum(not math.isnan(a) for a in res["reservation"])
    assert res["jobs_reserved"] == reserved <= res["reservations_made"]
    if depth == "all":
        # no pass can make more reservations than there are jobs
        assert_same(reference_simulate(*wl, reservations=n, **opts), res)
