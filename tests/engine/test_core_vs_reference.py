"""Randomized agreement tests: the Cython core against the reference simulator.

The reference (`tests/reference_sim.py`) is an independent, deliberately plain
implementation of docs/semantics.md: its sections 2-6 and the decisions that
follow them.  Both apply the same floating-point operations in the same
order, so they must agree bit for bit: every comparison here is exact
(`np.array_equal`), never approximate.

Compared per job: start, end, backfilled, corrections, order_at_start (core
codes mapped to names through simcore.ORDERS) and reservation (NaN at the same
positions, equal values elsewhere).

Tests:
- test_core_matches_reference: whole simulations, every option combination
  (order, threshold, backfill, estimate incl. explicit prediction lists,
  correction), 2,200 generated workloads per run;
- test_segments_match_reference_switches: Simulation.run_until/set_order
  against the reference's `switches` (400 examples);
- test_subset_matches_reference: Workload.take(subset) on an empty machine
  against the reference on the same subset (400 examples);
- targeted, explicitly constructed cases (ties at submit 0, zero-length jobs,
  jobs as large as the machine, SEXP/LEXP whose order flips over time,
  switches at exact event instants, corrections).

Hypothesis runs derandomized and without a database, so a run is reproducible
and every run exercises the same examples.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sim import ORDERS, reference_metrics, reference_simulate
from strategies import (
    BACKFILLS,
    COMMON,
    CORRECTIONS,
    cases,
    make_workload,
    order_switches,
    run_with_switches,
    with_function,
)

import simcore

# --------------------------------------------------------------- helpers ---


def core_result(wl, opts, switches=()):
    submit, run, requested, procs, user, m = wl
    w = make_workload(submit, run, requested, procs, user, m)
    # positions are preserved: submit is sorted and job ids default to 1..n
    assert np.array_equal(w.job_id, np.arange(1, len(submit) + 1))
    opts = with_function(opts)
    if not switches:
        return simcore.simulate(w, **opts).jobs
    return run_with_switches(w, opts, switches)


def reference_result(wl, opts, switches=()):
    submit, run, requested, procs, user, m = wl
    return reference_simulate(submit, run, requested, procs, user, m, switches=switches, **with_function(opts))


def assert_same(core, ref, context=""):
    n = len(ref["start"])
    assert all(s is not None for s in ref["start"]), "reference left a job unstarted"
    for name in ("start", "end", "backfilled", "corrections", "order_at_start", "reservation"):
        assert len(core[name]) == n, (name, context)

    ref_start = np.array(ref["start"], dtype=np.float64)
    ref_end = np.array(ref["end"], dtype=np.float64)
    assert np.array_equal(core["start"], ref_start), (
        f"start differs {context}\ncore {core['start'].tolist()}\nref  {ref_start.tolist()}"
    )
    assert np.array_equal(core["end"], ref_end), (
        f"end differs {context}\ncore {core['end'].tolist()}\nref  {ref_end.tolist()}"
    )
    assert np.array_equal(core["backfilled"].astype(bool), np.array(ref["backfilled"], dtype=bool)), (
        f"backfilled differs {context}\ncore {core['backfilled'].tolist()}\nref  {ref['backfilled']}"
    )
    assert np.array_equal(core["corrections"].astype(np.int64), np.array(ref["corrections"], dtype=np.int64)), (
        f"corrections differ {context}\ncore {core['corrections'].tolist()}\nref  {ref['corrections']}"
    )
    core_orders = [simcore.ORDERS[int(c)] for c in core["order_at_start"]]
    assert core_orders == list(ref["order_at_start"]), (
        f"order_at_start differs {context}\ncore {core_orders}\nref  {ref['order_at_start']}"
    )
    core_res = np.asarray(core["reservation"], dtype=np.float64)
    ref_res = np.array(ref["reservation"], dtype=np.float64)
    assert np.array_equal(np.isnan(core_res), np.isnan(ref_res)), (
        f"reservation NaN positions differ {context}\ncore {core_res.tolist()}\nref  {ref_res.tolist()}"
    )
    both = ~np.isnan(ref_res)
    assert np.array_equal(core_res[both], ref_res[both]), (
        f"reservation differs {context}\ncore {core_res.tolist()}\nref  {ref_res.tolist()}"
    )


def check(wl, opts, switches=()):
    assert_same(
        core_result(wl, opts, switches),
        reference_result(wl, opts, switches),
        context=f"opts={opts} switches={list(switches)}",
    )


def test_order_names_agree():
    assert tuple(simcore.ORDERS) == tuple(ORDERS)


# ------------------------------------------------- randomized agreement ---


@settings(max_examples=2200, **COMMON)
@given(cases())
def test_core_matches_reference(case):
    wl, opts = case
    check(wl, opts)


DEPTHS = (0, 1, 2, 5, "all")


@settings(max_examples=6000, **COMMON)
@given(cases(), st.sampled_from(DEPTHS))
def test_core_matches_reference_at_every_reservation_depth(case, depth):
    """docs/semantics.md, "Reservation depth": depths 0, 1, 2, 5 and all, every order, threshold,
    estimate and correction; a depth of 2 or more backfills in the queue order, depth 0 by none."""
    wl, opts = case
    opts = with_function(opts)
    if depth != 1:
        opts["backfill"] = "none" if depth == 0 else "queue"
    result = simcore.simulate(make_workload(*wl), **opts, reservations=depth)
    submit, run, requested, procs, user, m = wl
    ref = reference_simulate(submit, run, requested, procs, user, m, reservations=depth, **opts)
    context = f"reservations={depth} opts={opts}"
    assert_same(result.jobs, ref, context)
    assert (result.reservations_made, result.jobs_reserved) == (ref["reservations_made"], ref["jobs_reserved"]), context


@settings(max_examples=300, **COMMON)
@given(cases())
def test_summary_metrics_match_reference(case):
    wl, opts = case
    submit, run, requested, procs, user, m = wl
    result = simcore.simulate(make_workload(submit, run, requested, procs, user, m), **opts)
    summary = result.summary()
    expected = reference_metrics(submit, run, requested, procs, result.start.tolist(), m)
    for ours, theirs in (
        ("avg_wait", "mean_wait"),
        ("max_wait", "max_wait"),
        ("avg_bsld", "avg_bsld"),
        ("avg_ppbsld", "avg_ppbsld"),
        ("avg_flow", "mean_flow"),
        ("utilization", "utilization"),
    ):
        # numpy sums pairwise, the reference left to right: equal up to rounding
        assert summary[ours] == pytest.approx(expected[theirs], rel=1e-12, abs=1e-9), ours
    assert summary["backfilled"] == int(result.jobs["backfilled"].sum())
    assert summary["jobs"] == len(submit)


@st.composite
def switch_cases(draw):
    wl, opts = draw(cases(max_jobs=30))
    submit, run, requested = wl[0], wl[1], wl[2]
    horizon = max(submit) + sum(min(a, b) for a, b in zip(run, requested)) + 1
    return wl, opts, draw(order_switches(horizon, instants=submit))


@settings(max_examples=400, **COMMON)
@given(switch_cases())
def test_segments_match_reference_switches(case):
    wl, opts, switches = case
    check(wl, opts, switches)


@st.composite
def subset_cases(draw):
    wl, opts = draw(cases())
    n = len(wl[0])
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if not any(keep):
        keep[draw(st.integers(0, n - 1))] = True
    return wl, opts, [i for i in range(n) if keep[i]]


@settings(max_examples=400, **COMMON)
@given(subset_cases())
def test_subset_matches_reference(case):
    wl, opts, idx = case
    submit, run, requested, procs, user, m = wl
    w = make_workload(submit, run, requested, procs, user, m).take(idx)
    opts = dict(opts)
    if not isinstance(opts["estimate"], str):
        opts["estimate"] = [opts["estimate"][i] for i in idx]
    core = simcore.simulate(w, **opts).jobs
    sub = tuple([seq[i] for i in idx] for seq in (submit, run, requested, procs, user))
    ref = reference_simulate(*sub, m, **opts)
    assert_same(core, ref, context=f"subset={idx} opts={opts}")


# ------------------------------------------------------- targeted cases ---

ALL_OPTIONS = [
    dict(order=o, threshold=th, backfill=bf, estimate=est, correction=c)
    for o in ORDERS
    for th in (None, 0, 5)
    for bf in ("none", "queue", "SPF", "LAF")
    for est in ("request", "clairvoyant", "ave2")
    for c in ("request", "doubling")
]


def jobs_to_wl(jobs, m):
    """jobs: (r, p, p~, q[, user])."""
    return (
        [float(j[0]) for j in jobs],
        [float(j[1]) for j in jobs],
        [float(j[2]) for j in jobs],
        [int(j[3]) for j in jobs],
        [j[4] if len(j) > 4 else 0 for j in jobs],
        m,
    )


TARGETED = {
    # every job at submit 0 with identical keys under every order: ties are
    # broken by position only.
    "ties_at_zero": jobs_to_wl([(0, 5, 5, 2)] * 8, 4),
    "ties_at_zero_m1": jobs_to_wl([(0, 3, 3, 1)] * 6, 1),
    # identical jobs, but a mixture of sizes, still all at 0
    "ties_mixed": jobs_to_wl([(0, 5, 5, 2), (0, 5, 5, 2), (0, 1, 1, 1), (0, 1, 1, 1), (0, 5, 5, 2), (0, 1, 1, 1)], 3),
    # zero-length jobs: chains of second passes at the same instant
    "zero_length": jobs_to_wl(
        [(0, 0, 1, 4), (0, 0, 1, 4), (0, 0, 5, 2), (0, 3, 3, 4), (3, 0, 1, 4), (3, 0, 2, 1), (3, 2, 2, 3)], 4
    ),
    "zero_length_all": jobs_to_wl([(0, 0, 1, 1)] * 5 + [(1, 0, 10, 1)] * 3, 1),
    # jobs as large as the machine interleaved with small ones
    "machine_sized": jobs_to_wl(
        [
            (0, 10, 10, 8),
            (0, 2, 4, 1),
            (1, 20, 20, 8),
            (1, 3, 3, 7),
            (2, 5, 100, 8),
            (2, 1, 1, 1),
            (50, 0, 1, 8),
            (50, 7, 7, 1),
        ],
        8,
    ),
    "machine_sized_m1": jobs_to_wl([(0, 4, 4, 1), (0, 0, 1, 1), (2, 9, 3, 1), (2, 1, 1, 1)], 1),
    # runs longer than the request are killed at the request; corrections
    "overrun_and_corrections": jobs_to_wl(
        [(0, 5000, 4000, 1), (0, 3000, 4000, 2), (1, 100, 100, 3), (1, 61, 61, 1), (5, 2, 400, 3), (5, 390, 400, 1)], 3
    ),
    # a long-running job with many under-predictions (several users, ave2)
    "ave2_users": jobs_to_wl(
        [
            (0, 1, 1000, 1, 1),
            (0, 1, 1000, 1, 1),
            (2, 900, 1000, 2, 1),
            (2, 900, 1000, 2, 2),
            (3, 10, 1000, 1, 2),
            (3, 10, 1000, 1, 2),
            (4, 500, 1000, 2, 1),
        ],
        2,
    ),
}


@pytest.mark.parametrize("name", sorted(TARGETED))
def test_targeted_cases_all_options(name):
    wl = TARGETED[name]
    for opts in ALL_OPTIONS:
        check(wl, opts)


def test_targeted_explicit_predictions():
    wl = TARGETED["overrun_and_corrections"]
    for preds in (
        [0.0, 0.5, 1e9, 60.5, 1.0, 389.75],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [3999.5, 2999.5, 99.5, 61.0, 1.5, 0.999],
    ):
        for c in CORRECTIONS:
            for bf in ("none", "queue", "SPF"):
                for order in ORDERS:
                    check(wl, dict(order=order, threshold=None, backfill=bf, estimate=preds, correction=c))


def test_ties_schedule_is_position_order():
    # 8 identical jobs of q=2 at t=0 on m=4: two at a time, in position order
    wl = TARGETED["ties_at_zero"]
    for order in ORDERS:
        core = core_result(wl, dict(order=order))
        assert core["start"].tolist() == [0, 0, 5, 5, 10, 10, 15, 15]


# SEXP/LEXP: the order between two waiting jobs flips as time passes.
# m=2; job0 (0, L, L, 2) occupies the machine until L; job1 (0, 100, 100, 2);
# job2 (10, 10, 10, 2).  At t: SEXP key of job1 = 1 + t/100, of job2 =
# 1 + (t-10)/10.  At t=11: 1.11 > 1.1 -> job2 first; at t=50: 1.5 < 5 ->
# job1 first.  LEXP is the opposite.
@pytest.mark.parametrize(
    "blocker, order, expected",
    [
        (11, "SEXP", [0, 21, 11]),
        (50, "SEXP", [0, 50, 150]),
        (11, "LEXP", [0, 11, 111]),
        (50, "LEXP", [0, 60, 50]),
    ],
)
def test_expansion_factor_order_changes_over_time(blocker, order, expected):
    wl = jobs_to_wl([(0, blocker, blocker, 2), (0, 100, 100, 2), (10, 10, 10, 2)], 2)
    for bf in ("none", "queue", "SEXP", "LEXP"):
        opts = dict(order=order, backfill=bf)
        core = core_result(wl, opts)
        assert core["start"].tolist() == expected
        check(wl, opts)


def test_sexp_order_flips_between_passes_with_backfill():
    # several jobs waiting behind a machine-sized blocker; estimates make the
    # SEXP/LEXP keys cross at different instants
    jobs = [
        (0, 30, 30, 4),
        (0, 100, 100, 2),
        (2, 10, 10, 2),
        (4, 1, 1, 1),
        (6, 50, 50, 3),
        (8, 5, 5, 1),
        (31, 2, 2, 2),
        (40, 20, 20, 4),
    ]
    wl = jobs_to_wl(jobs, 4)
    for order in ("SEXP", "LEXP"):
        for th in (None, 0, 25):
            for bf in BACKFILLS:
                check(wl, dict(order=order, threshold=th, backfill=bf))


def test_switches_at_exact_event_instants():
    wl = jobs_to_wl(
        [(0, 10, 10, 2), (0, 3, 5, 1), (5, 1, 20, 2), (5, 7, 7, 1), (10, 0, 1, 2), (10, 4, 4, 1), (15, 2, 2, 2)], 2
    )
    ends = [0.0, 3.0, 5.0, 10.0, 15.0]
    for first in ORDERS:
        for t in ends:
            for second in ("LCFS", "SEXP", "LAF"):
                for bf in ("none", "queue", "SPF"):
                    check(wl, dict(order=first, backfill=bf), switches=[(t, second), (t + 5, first)])


def test_switch_order_recorded_at_start():
    # m=1; job0 (0, 3) runs until 3, job1 (1, 1) and job2 (2, 1) wait.
    # FCFS would start job1 at 3; with LCFS from t=3 on job2 goes first.
    wl = jobs_to_wl([(0, 3, 3, 1), (1, 1, 1, 1), (2, 1, 1, 1)], 1)
    for bf in ("none", "queue"):
        opts = dict(order="FCFS", backfill=bf)
        assert core_result(wl, opts)["start"].tolist() == [0, 3, 4]
        core = core_result(wl, opts, switches=[(3.0, "LCFS")])
        assert core["start"].tolist() == [0, 4, 3]
        assert [simcore.ORDERS[c] for c in core["order_at_start"]] == ["FCFS", "LCFS", "LCFS"]
        check(wl, opts, switches=[(3.0, "LCFS")])
        # a switch after the instant 3 changes nothing any more
        core = core_result(wl, opts, switches=[(3.5, "LCFS")])
        assert core["start"].tolist() == [0, 3, 4]
        check(wl, opts, switches=[(3.5, "LCFS")])


# Cases found by searching for inputs on which deliberately broken copies of
# the reference differ from the real one (floating-point order of operations,
# tie rules); each pins down one detail of the contract.


def test_doubling_uses_elapsed_time_bit_for_bit():
    # doubling: e' = min(p~, 2 * elapsed) with elapsed = t - s computed at the
    # expiry instant; with fractional instants (t - s) != e in the last bit,
    # which shows in the reservation of job 2 (34.10000000000001).
    wl = (
        [7.7, 15.4, 23.1, 30.8],
        [27.363318955870596, 6.061603719535075, 1715.0, 6.0],
        [100.0, 10.0, 4000.0, 100.0],
        [1, 1, 2, 1],
        [0, 0, 0, 0],
        2,
    )
    opts = dict(estimate=[3.3, 2.2, 0.1, 0.1], correction="doubling")
    check(wl, opts)
    assert core_result(wl, opts)["reservation"][2] == 34.10000000000001


def test_sexp_key_operation_order():
    # SEXP = ((t - r) + e) / e exactly; (t - r) / e + 1 rounds differently
    # here and would start job 1 before job 2.
    wl = ([0.3, 0.4, 0.7], [1.0, 227.0, 956.4010367546769], [1.0, 1000.0, 1000.0], [1, 1, 1], [0, 0, 0], 1)
    for bf in ("none", "queue"):
        opts = dict(order="SEXP", backfill=bf, estimate=[0.3, 3.3, 2.2])
        check(wl, opts)
        assert core_result(wl, opts)["start"].tolist() == [0.3, 957.7010367546768, 1.3]
        check(wl, dict(opts, order="LEXP"))


def test_backfill_ending_exactly_at_shadow_time_keeps_extra():
    # m=4; t=0: job0 (q=2, ends 10) starts, free 2; job1 (q=3) blocked:
    # T=10, extra=1.  job2 (e=10, q=1): 0+10 <= T -> backfilled, extra stays
    # 1 (t + e is not > T).  job3 (e=100, q=1) uses the extra processor.
    wl = jobs_to_wl([(0, 10, 10, 2), (0, 5, 5, 3), (0, 10, 10, 1), (0, 100, 100, 1)], 4)
    opts = dict(order="FCFS", backfill="queue")
    core = core_result(wl, opts)
    assert core["start"].tolist() == [0, 10, 0, 0]
    assert core["backfilled"].tolist() == [False, False, True, True]
    assert core["reservation"][1] == 10
    check(wl, opts)


def test_threshold_does_not_apply_to_backfill_order():
    # m=4, threshold 3, backfill SPF.  t=0: job0 (q=3, 100 s) and job1 (q=1,
    # 5 s) start, free 0; job2 (q=4) blocked, T=100, extra 0.  job3 (r=1,
    # 50 s) and job4 (r=3, 20 s) arrive while free == 0.  t=5: free 1; job3
    # waited 4 > 3, job4 waited 2, but the backfill order is SPF alone: job4
    # (20 s) first, then job3 at 25.
    wl = jobs_to_wl([(0, 100, 100, 3), (0, 5, 5, 1), (0, 10, 10, 4), (1, 50, 50, 1), (3, 20, 20, 1)], 4)
    opts = dict(order="FCFS", threshold=3, backfill="SPF")
    core = core_result(wl, opts)
    assert core["start"].tolist() == [0, 0, 100, 25, 5]
    assert core["backfilled"].tolist() == [False, False, False, True, True]
    check(wl, opts)
    for order in ORDERS:
        for bf in BACKFILLS:
            check(wl, dict(order=order, threshold=3, backfill=bf))


def test_ave2_same_instant_completions_learned_in_position_order():
    # user 1: jobs of 10, 6 and 2 s all end at t=10 (m=3); learned in
    # position order the history is [10, 6, 2], so job 3 (submitted at 10)
    # is predicted (6 + 2) / 2 = 4 and, running 100 s under doubling, is
    # corrected 4 -> 8 -> 16 -> 32 -> 64 -> 100: five corrections.
    wl = jobs_to_wl([(0, 10, 10, 1, 1), (4, 6, 6, 1, 1), (8, 2, 2, 1, 1), (10, 100, 100, 1, 1)], 3)
    opts = dict(estimate="ave2", correction="doubling")
    core = core_result(wl, opts)
    assert core["initial_estimate"][3] == 4.0
    assert core["corrections"].tolist() == [0, 0, 0, 5]
    check(wl, opts)
    for c in CORRECTIONS:
        for order in ORDERS:
            check(wl, dict(order=order, estimate="ave2", correction=c))


def test_threshold_compares_the_wait_as_written():
    # t - r rounds to exactly 1.0 at t = 0.1 + 1, so job 1 is not over the
    # threshold there, although the rearranged r < t - threshold would say it is.
    wl = ([0.0, 0.1, 0.1 + 1.0], [10.0, 0.0, 0.0], [10.0, 1.0, 1.0], [1, 2, 2], [0, 0, 0], 2)
    check(wl, {"order": "LCFS", "threshold": 1, "backfill": "queue", "estimate": "request", "correction": "request"})
