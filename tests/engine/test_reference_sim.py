"""Tests of the pure-Python reference simulator on hand-computed schedules.

Every test writes out the schedule worked out by hand.  Notation in the
comments: job i = (r, p, p~, q), e = estimate, T = shadow time, free = idle
processors, "pos" = position in the workload.
"""

import math

import pytest
from reference_sim import ORDERS, reference_metrics, reference_simulate
from strategies import with_function


def sim(jobs, m, **kwargs):
    """jobs: list of (r, p, p~, q) or (r, p, p~, q, user)."""
    submit = [j[0] for j in jobs]
    run = [j[1] for j in jobs]
    requested = [j[2] for j in jobs]
    procs = [j[3] for j in jobs]
    user = [j[4] if len(j) > 4 else 0 for j in jobs]
    return reference_simulate(submit, run, requested, procs, user, m, **with_function(kwargs))


def is_nan(x):
    return isinstance(x, float) and math.isnan(x)


# ---------------------------------------------------------------- basics ---

# m = 4; job0 = (0, 10, 10, 3), job1 = (1, 5, 5, 2), job2 = (2, 2, 2, 1)
BASIC = [(0, 10, 10, 3), (1, 5, 5, 2), (2, 2, 2, 1)]


def test_fcfs_no_backfill():
    # t=0: job0 starts (free 1).
    # t=1: job1 (q=2) does not fit -> head, stop.
    # t=2: queue [1, 2]; head job1 blocks; job2 would fit but "none" stops.
    # t=10: job0 ends, free 4: job1 starts (free 2), job2 starts (free 1).
    # ends: job1 15, job2 12.
    res = sim(BASIC, 4, backfill="none")
    assert res["start"] == [0.0, 10.0, 10.0]
    assert res["end"] == [10.0, 15.0, 12.0]
    assert res["backfilled"] == [False, False, False]
    assert res["corrections"] == [0, 0, 0]
    assert res["order_at_start"] == ["FCFS"] * 3
    # no reservation is computed with backfill="none"
    assert all(is_nan(x) for x in res["reservation"])


def test_easy_backfill_fits_before_shadow_time():
    # t=1: job1 blocked, free 1; job0 est. end 10: 1 + 3 = 4 >= 2 -> T=10,
    #      extra 2.  Nothing to backfill.
    # t=2: job1 still the head, T=10; job2: q=1 <= free 1 and 2+2=4 <= 10
    #      -> backfilled at 2, ends 4.
    # t=4: job2 ends, free 1; job1 still blocked.
    # t=10: job0 ends; job1 starts at 10, ends 15.
    res = sim(BASIC, 4)
    assert res["start"] == [0.0, 10.0, 2.0]
    assert res["end"] == [10.0, 15.0, 4.0]
    assert res["backfilled"] == [False, False, True]
    assert res["reservation"][1] == 10.0


def test_backfill_with_extra_processors_and_refusal_when_extra_used_up():
    # m=4; job0 = (0,10,10,2), job1 = (0,5,5,3), job2 = (0,100,100,1),
    # job3 = (0,100,100,1).
    # t=0: job0 starts (free 2). job1 (q=3) blocked: T=10 (2+2=4 >= 3),
    #      extra = 1.
    #      job2: 0+100 > 10 but q=1 <= extra 1 -> backfilled; free 1, extra 0.
    #      job3: 0+100 > 10 and q=1 > extra 0 -> refused.
    # t=10: job0 ends, free 3: job1 starts (free 0); job3 waits.
    # t=15: job1 ends, free 3: job3 starts at 15.
    res = sim([(0, 10, 10, 2), (0, 5, 5, 3), (0, 100, 100, 1), (0, 100, 100, 1)], 4)
    assert res["start"] == [0.0, 10.0, 0.0, 15.0]
    assert res["end"] == [10.0, 15.0, 100.0, 115.0]
    assert res["backfilled"] == [False, False, True, False]
    assert res["reservation"][1] == 10.0


def test_job_that_would_delay_reservation_is_refused():
    # m=4; job0 = (0,10,10,2), job1 = (0,5,5,4), job2 = (0,20,20,1),
    # job3 = (0,10,10,2).
    # t=0: job0 starts (free 2). job1 (q=4) blocked: T=10, extra 0.
    #      job2: 0+20 > 10 and q=1 > extra 0 -> refused (would delay job1).
    #      job3: 0+10 = 10 <= T -> backfilled (ending exactly at T is fine).
    # t=10: job0 and job3 end, free 4: job1 starts (free 0).
    # t=15: job1 ends: job2 starts at 15.
    res = sim([(0, 10, 10, 2), (0, 5, 5, 4), (0, 20, 20, 1), (0, 10, 10, 2)], 4)
    assert res["start"] == [0.0, 10.0, 15.0, 0.0]
    assert res["backfilled"] == [False, False, False, True]
    assert res["reservation"][1] == 10.0


def test_job_as_large_as_machine():
    # m=4; job0 = (0,10,10,1), job1 = (1,5,5,4), job2 = (2,3,3,1),
    # job3 = (3,20,20,1).
    # t=1: job1 needs all 4: blocked, T=10 (3 + 1), extra 0.
    # t=2: job2: 2+3=5 <= 10 -> backfilled (ends 5).
    # t=3: job3: 3+20 > 10, extra 0 -> refused.
    # t=10: job0 ends, free 4: job1 starts; job3 blocked (free 0).
    # t=15: job1 ends: job3 starts at 15.
    res = sim([(0, 10, 10, 1), (1, 5, 5, 4), (2, 3, 3, 1), (3, 20, 20, 1)], 4)
    assert res["start"] == [0.0, 10.0, 2.0, 15.0]
    assert res["end"] == [10.0, 15.0, 5.0, 35.0]
    assert res["backfilled"] == [False, False, True, False]


def test_run_longer_than_request_is_killed():
    # job0 = (0, 50, 20, 1): runs min(50, 20) = 20 -> end 20; job1 at 20.
    res = sim([(0, 50, 20, 1), (0, 5, 5, 1)], 1)
    assert res["end"] == [20.0, 25.0]
    assert res["start"][1] == 20.0


def test_equal_submit_times_break_ties_by_position():
    # m=2, three jobs (0,5,5,2): FCFS keys all 0 -> position order:
    # starts 0, 5, 10.  LCFS keys all -0 -> still position order.
    jobs = [(0, 5, 5, 2)] * 3
    for order in ("FCFS", "LCFS", "SPF", "SQF", "SEXP", "LAF"):
        res = sim(jobs, 2, order=order)
        assert res["start"] == [0.0, 5.0, 10.0], order


def test_empty_workload():
    res = reference_simulate([], [], [], [], [], 4)
    assert res["start"] == [] and res["reservation"] == []


# ---------------------------------------------------------------- orders ---

# m = 10; pos0 = (0, 100, 100, 10) occupies the whole machine until t=100.
# pos1..6 are all waiting at t=100, each needs > 5 processors, so exactly one
# of them starts at t=100: the first of the queue order.  Keys at t=100
# (run = request = e):
#
#  pos   r    e   q  |  w   (w+e)/e    e/q     e*q
#   1    2   50   8  |  98   2.96      6.25    400
#   2    3  100   6  |  97   1.97     16.67    600
#   3   10  100  10  |  90   1.90     10.00   1000
#   4   38   20   7  |  62   4.10      2.857   140
#   5   82   10   7  |  18   2.80      1.429    70
#   6   94  200   7  |   6   1.03     28.57   1400
#
# FCFS min r -> 1; LCFS max r -> 6; SPF min e -> 5; LPF max e -> 6;
# SQF min q -> 2; LQF max q -> 3; SEXP min -> 6; LEXP max -> 4;
# SRF min -> 5; LRF max -> 6; SAF min -> 5; LAF max -> 6.
ORDER_JOBS = [
    (0, 100, 100, 10),
    (2, 50, 50, 8),
    (3, 100, 100, 6),
    (10, 100, 100, 10),
    (38, 20, 20, 7),
    (82, 10, 10, 7),
    (94, 200, 200, 7),
]
# At t = 100 (w = 100 - r, e = p~): WFP3's (w/e)^3·q and UNICEF's
# w / (log2(q)·e) are largest for job 4 (208.5 and 1.10); TEST_FUNCTION's
# sqrt(e)·q + 3·log10(r) is smallest for job 5 (27.8).
FIRST = {
    "FCFS": 1,
    "LCFS": 6,
    "SPF": 5,
    "LPF": 6,
    "SQF": 2,
    "LQF": 3,
    "SEXP": 6,
    "LEXP": 4,
    "SRF": 5,
    "LRF": 6,
    "SAF": 5,
    "LAF": 6,
    "WFP3": 4,
    "UNICEF": 4,
    "FUNCTION": 5,
    # default weights, last computation at T = 0 (age 0), F = 1: P = 1000 + 1000 q / m
    "MULTIFACTOR": 3,
}


def test_orders_tuple():
    assert ORDERS == (
        "FCFS",
        "LCFS",
        "SPF",
        "LPF",
        "SQF",
        "LQF",
        "SEXP",
        "LEXP",
        "SRF",
        "LRF",
        "SAF",
        "LAF",
        "WFP3",
        "UNICEF",
        "FUNCTION",
        "MULTIFACTOR",
    )


@pytest.mark.parametrize("order", ORDERS)
def test_each_order_picks_its_first_job(order):
    res = sim(ORDER_JOBS, 10, order=order, backfill="none")
    started_at_100 = [i for i in range(7) if res["start"][i] == 100.0]
    assert started_at_100 == [FIRST[order]]
    assert res["order_at_start"][FIRST[order]] == order
    # everything else starts later, one job at a time
    assert sorted(res["start"])[2] > 100.0


def test_fcfs_full_schedule_of_order_jobs():
    # FCFS runs pos1..6 back to back from t=100:
    # 1: 100-150, 2: 150-250, 3: 250-350, 4: 350-370, 5: 370-380, 6: 380-580
    res = sim(ORDER_JOBS, 10, order="FCFS")
    assert res["start"] == [0.0, 100.0, 150.0, 250.0, 350.0, 370.0, 380.0]


def test_threshold_moves_old_job_to_front():
    # m=1; job0 = (0,100,100,1), job1 = (1,50,50,1), job2 = (50,10,10,1).
    # At t=100 SPF alone picks job2 (e=10 < 50): job2 100-110, job1 110-160.
    # threshold 60: w1 = 99 > 60 -> job1 to the front; w2 = 50 is not:
    #   job1 100-150, job2 150-160.
    # threshold 99: w1 = 99 is not > 99 (strict) -> SPF order again.
    jobs = [(0, 100, 100, 1), (1, 50, 50, 1), (50, 10, 10, 1)]
    res = sim(jobs, 1, order="SPF")
    assert res["start"] == [0.0, 110.0, 100.0]
    res = sim(jobs, 1, order="SPF", threshold=60.0)
    assert res["start"] == [0.0, 100.0, 150.0]
    res = sim(jobs, 1, order="SPF", threshold=99.0)
    assert res["start"] == [0.0, 110.0, 100.0]


def test_threshold_front_jobs_in_position_order():
    # LCFS would put the later of two old jobs first; jobs over the threshold
    # go to the front in position order instead.
    # m=1; job0 = (0,100,100,1), job1 = (0,5,5,1), job2 = (10,5,5,1),
    # job3 = (90,5,5,1).  At t=100, threshold 50: job1 (w=100), job2 (w=90)
    # are old -> front, in position order; job3 (w=10) after.
    # Schedule: job1 100-105, t=105: job2 (w=95 > 50, old) 105-110, job3 110.
    jobs = [(0, 100, 100, 1), (0, 5, 5, 1), (10, 5, 5, 1), (90, 5, 5, 1)]
    res = sim(jobs, 1, order="LCFS", threshold=50)
    assert res["start"] == [0.0, 100.0, 105.0, 110.0]
    # without the threshold LCFS gives job3, job2, job1
    res = sim(jobs, 1, order="LCFS")
    assert res["start"] == [0.0, 110.0, 105.0, 100.0]


# -------------------------------------------------------------- backfill ---

# m=4; job0 = (0,10,10,3), job1 = (0,10,10,2), job2 = (0,8,8,1),
# job3 = (0,5,5,1).  At t=0 job0 starts (free 1), job1 blocked: T=10,
# extra = 1 + 3 - 2 = 2.
SJBF_JOBS = [(0, 10, 10, 3), (0, 10, 10, 2), (0, 8, 8, 1), (0, 5, 5, 1)]


def test_easy_queue_order_backfill():
    # queue order: job2 (0+8 <= 10) backfilled, free 0; job3 does not fit.
    # t=8: job2 ends, free 1; job1 blocked, T=10, extra 2; job3: 8+5 > 10
    #      but q=1 <= extra 2 -> backfilled at 8.
    # t=10: job0 ends, free 3: job1 starts at 10.
    res = sim(SJBF_JOBS, 4)
    assert res["start"] == [0.0, 10.0, 0.0, 8.0]
    assert res["backfilled"] == [False, False, True, True]


def test_sjbf_picks_shortest_candidate():
    # SPF backfill order: job3 (e=5) before job2 (e=8): job3 backfilled at 0
    # (0+5 <= 10), free 0; job2 does not fit.
    # t=5: job3 ends, free 1; job1 blocked; job2: 5+8 > 10 but q=1 <= extra
    #      2 -> backfilled at 5.
    # t=10: job0 ends, free 3: job1 starts at 10.
    res = sim(SJBF_JOBS, 4, backfill="SPF")
    assert res["start"] == [0.0, 10.0, 5.0, 0.0]
    assert res["backfilled"] == [False, False, True, True]


# m=4; job0 = (0,10,10,4) fills the machine until 10; then
# job1 = (1,10,10,3), job2 = (2,10,10,2), job3 = (3,8,8,1), job4 = (9,5,5,1).
# t=10, FCFS: job1 starts (free 1); job2 blocked: T = 20 (1 + 3 = 4 >= 2),
# extra 2.  Candidates after job2: job3 (old: w = 7) and job4 (w = 1).
THR_JOBS = [(0, 10, 10, 4), (1, 10, 10, 3), (2, 10, 10, 2), (3, 8, 8, 1), (9, 5, 5, 1)]


def test_backfill_order_ignores_threshold():
    # threshold 3: queue order is job1, job2, job3 (old, same as FCFS), job4.
    # SPF backfill sorts job4 (e=5) before job3 (e=8) regardless of the
    # threshold: job4 10-15 (10+5 <= 20), free 0; job3 does not fit.
    # t=15: job4 ends, free 1; job2 blocked (T=20, extra 2); job3: 15+8 > 20
    #       but q=1 <= extra -> backfilled 15-23.
    # t=20: job1 ends, free 3: job2 starts at 20.
    res = sim(THR_JOBS, 4, backfill="SPF", threshold=3.0)
    assert res["start"] == [0.0, 10.0, 20.0, 15.0, 10.0]
    assert res["backfilled"] == [False, False, False, True, True]
    # queue-order backfill (threshold applied): job3 at 10 (10+8 <= 20),
    # free 0; t=18: job3 ends; job4: 18+5 > 20, q=1 <= extra 2 -> 18.
    res = sim(THR_JOBS, 4, backfill="queue", threshold=3.0)
    assert res["start"] == [0.0, 10.0, 20.0, 10.0, 18.0]


def test_backfill_order_ignores_switches():
    # switch to LPF at t=5: LPF queue at 10 is job1 (-10), job2 (-10, pos
    # tie), job3 (-8), job4 (-5) -> same head job2 and T = 20.  Backfill stays
    # SPF (job4 first), so the schedule is the one of the test above; with
    # backfill="queue" the switched LPF order backfills job3 first.
    res = sim(THR_JOBS, 4, backfill="SPF", switches=[(5, "LPF")])
    assert res["start"] == [0.0, 10.0, 20.0, 15.0, 10.0]
    assert res["order_at_start"] == ["FCFS"] + ["LPF"] * 4
    res = sim(THR_JOBS, 4, backfill="queue", switches=[(5, "LPF")])
    assert res["start"] == [0.0, 10.0, 20.0, 10.0, 18.0]
    # ... and SPF as the queue order starts job4 at 10 in step 1
    res = sim(THR_JOBS, 4, backfill="queue", switches=[(5, "SPF")])
    assert res["start"][4] == 10.0


# ------------------------------------------------------------ zero length ---


def test_zero_length_job_gives_second_pass_at_same_instant():
    # m=1; job0 = (0, 0, 3, 1), job1 = (0, 5, 5, 1).
    # t=0, pass 1: job0 starts (free 0); job1 blocked: running job0 has
    #      estimated end 0+3 -> T=3, extra 0 (recorded).  job0 ends at 0.
    # t=0 again: completion of job0 (free 1), pass 2: job1 starts at 0.
    res = sim([(0, 0, 3, 1), (0, 5, 5, 1)], 1)
    assert res["start"] == [0.0, 0.0]
    assert res["end"] == [0.0, 5.0]
    assert res["reservation"][1] == 3.0
    # clairvoyant: e0 = max(1, 0) = 1 -> T = 1.
    res = sim([(0, 0, 3, 1), (0, 5, 5, 1)], 1, estimate="clairvoyant")
    assert res["start"] == [0.0, 0.0]
    assert res["reservation"][1] == 1.0


def test_chain_of_zero_length_jobs():
    # m=1; three zero-length jobs at t=0 then a normal one: t=0 is processed
    # four times (passes start job0, job1, job2, job3 in turn).
    res = sim([(0, 0, 1, 1)] * 3 + [(0, 4, 4, 1)], 1)
    assert res["start"] == [0.0, 0.0, 0.0, 0.0]
    assert res["end"] == [0.0, 0.0, 0.0, 4.0]


def test_zero_length_job_does_not_see_later_submission_at_same_instant():
    # m=1; job0 = (0,10,10,1); job1 = (10,0,2,1), job2 = (10,3,3,1).
    # t=10: job0 completes, job1 and job2 submitted; pass: job1 starts,
    #       job2 blocked (T = 10 + 2 = 12).  Second visit of t=10: job1
    #       completes; pass: job2 starts at 10.
    res = sim([(0, 10, 10, 1), (10, 0, 2, 1), (10, 3, 3, 1)], 1)
    assert res["start"] == [0.0, 10.0, 10.0]
    assert res["reservation"][2] == 12.0


# ------------------------------------------------------------ predictions ---


def test_ave2_predictions():
    # m=1, users a and b.
    # job0 = (0,10,100,1,a), job1 = (0,20,100,1,a): no history -> e = 100.
    # t=0: job0 starts; job1 blocked, T = 0 + 100 -> reservation 100.
    # t=10: job0 completes (a: [10]); job1 starts, ends 30.
    # job2 = (30,40,100,1,a), job3 = (30,5,50,1,b).
    # t=30: job1 completes first (a: [10, 20]) -> job2 predicted (10+20)/2 =
    #      15; job3 (b, no history) e = 50.  job2 starts; job3 blocked,
    #      T = 30 + 15 = 45 -> reservation 45.
    # t=45: job2 expires (runs 40): request correction, e = 100.
    # t=70: job2 ends; job3 starts 70.
    jobs = [(0, 10, 100, 1, "a"), (0, 20, 100, 1, "a"), (30, 40, 100, 1, "a"), (30, 5, 50, 1, "b")]
    res = sim(jobs, 1, estimate="ave2")
    assert res["start"] == [0.0, 10.0, 30.0, 70.0]
    assert res["reservation"][1] == 100.0
    assert res["reservation"][3] == 45.0
    assert res["corrections"] == [0, 0, 1, 0]


def test_ave2_same_instant_completions_in_position_order():
    # m=3, user a: job0 = (0,10,100,1), job1 = (4,6,100,1), job2 = (6,4,100,1)
    # all start at submit and end at 10.  Applied in position order the
    # history is [10, 6, 4], so job3 = (10,5,100,3,a) is predicted
    # (6+4)/2 = 5 (not 8, as in reverse order).  job3 starts at 10 on the
    # whole machine; job4 = (10,1,1,1,b) blocked: T = 10 + 5 = 15.
    jobs = [(0, 10, 100, 1, "a"), (4, 6, 100, 1, "a"), (6, 4, 100, 1, "a"), (10, 5, 100, 3, "a"), (10, 1, 1, 1, "b")]
    res = sim(jobs, 3, estimate="ave2")
    assert res["start"][3] == 10.0
    assert res["reservation"][4] == 15.0
    assert res["start"][4] == 15.0


def test_ave2_clipped_to_one():
    # user a: two zero-length jobs -> mean 0 -> clipped to e = 1.
    # m=1; job0, job1 = (0,0,50,1,a) both run at 0.  job2 = (5,3,50,1,a):
    # e = 1; job3 = (5,1,1,1,b) blocked: T = 5 + 1 = 6.  job2 expires at 6
    # (runs 3): e = 50, one correction.  job3 starts at 8.
    jobs = [(0, 0, 50, 1, "a"), (0, 0, 50, 1, "a"), (5, 3, 50, 1, "a"), (5, 1, 1, 1, "b")]
    res = sim(jobs, 1, estimate="ave2")
    assert res["reservation"][3] == 6.0
    assert res["corrections"] == [0, 0, 1, 0]
    assert res["start"][3] == 8.0


def test_prediction_list_is_clipped():
    # m=1; job0 = (0,5,20,1) predicted 500 -> clipped to 20; job1 = (0,1,1,1)
    # blocked at t=0 (free was 1 at the start of the pass): T = 20.
    res = sim([(0, 5, 20, 1), (0, 1, 1, 1)], 1, estimate=[500, 3])
    assert res["reservation"][1] == 20.0
    # with prediction 0.25 for job0: e = 1 -> T = 1, and job0 (runs 5)
    # expires at 1 and is corrected to 20.
    res = sim([(0, 5, 20, 1), (0, 1, 1, 1)], 1, estimate=[0.25, 3])
    assert res["reservation"][1] == 1.0
    assert res["corrections"] == [1, 0]


# ------------------------------------------------------------ corrections ---


def test_correction_request():
    # m=1; job0 = (0,50,100,1) predicted 10; job1 = (0,5,5,1) predicted 5.
    # t=0: job0 starts (e=10); job1 blocked: T=10.
    # t=10: expiry of job0 -> e = p~ = 100 (1 correction); no new expiry.
    # t=50: job0 ends; job1 starts.
    res = sim([(0, 50, 100, 1), (0, 5, 5, 1)], 1, estimate=[10, 5], correction="request")
    assert res["corrections"] == [1, 0]
    assert res["start"] == [0.0, 50.0]
    assert res["reservation"][1] == 10.0


def test_correction_incremental():
    # m=1; job0 = (0,400,10000,1) predicted 10 (e_initial = 10).
    # Expiries: t=10 -> e = 10+60 = 70; t=70 -> e = 10+300 = 310;
    #           t=310 -> e = 10+900 = 910; job0 ends at 400 < 910.
    # job1..3 (p = p~ = 1) wait; after job0 ends at 400: job1 400, job2 401,
    # job3 402.
    jobs = [(0, 400, 10000, 1), (0, 1, 1, 1), (20, 1, 1, 1), (100, 1, 1, 1)]
    res = sim(jobs, 1, estimate=[10, 1, 1, 1], correction="incremental")
    assert res["corrections"] == [3, 0, 0, 0]
    assert res["start"] == [0.0, 400.0, 401.0, 402.0]


def test_correction_incremental_sequence_seen_by_reservations():
    # m=2; job0 = (0,400,10000,1) predicted 10; one observer (r,1,1,2) per
    # simulation, blocked on arrival (free 1 < 2); its T is job0's current
    # estimated end s0 + e0:
    #   r=5   -> e0 = 10  -> T = 10
    #   r=20  -> e0 = 70  -> T = 70
    #   r=100 -> e0 = 310 -> T = 310
    #   r=350 -> e0 = 910 -> T = 910
    # The observer starts at 400 in every case.
    for r, expected in ((5, 10.0), (20, 70.0), (100, 310.0), (350, 910.0)):
        res = sim([(0, 400, 10000, 1), (r, 1, 1, 2)], 2, estimate=[10, 1], correction="incremental")
        assert res["reservation"][1] == expected, r
        assert res["corrections"] == [3, 0]
        assert res["start"][1] == 400.0


def test_correction_incremental_capped_and_past_the_list():
    # capped: job0 = (0,90,100,1) predicted 10: t=10 -> min(100, 70) = 70;
    # t=70 -> min(100, 310) = 100; ends 90 -> 2 corrections.
    res = sim([(0, 90, 100, 1)], 1, estimate=[10], correction="incremental")
    assert res["corrections"] == [2]
    # past the list: m=2, job0 = (0, 500000, 1e7, 1) predicted 1:
    # corrections 1..11 give e = 1 + C_k, the last 1 + 360000 = 360001
    # (expires at 360001 < 500000), the 12th gives p~ = 1e7.
    # Observer (400000,1,1,2) is blocked: T = 1e7; starts at 500000.
    res = sim([(0, 500000, 1e7, 1), (400000, 1, 1, 2)], 2, estimate=[1, 1], correction="incremental")
    assert res["corrections"] == [12, 0]
    assert res["reservation"][1] == 1e7
    assert res["start"][1] == 500000.0


def test_correction_doubling():
    # job0 = (0,60,70,1) predicted 10.  Expiries: t=10 -> min(70, 2*10) =
    # 20; t=20 -> 40; t=40 -> min(70, 80) = 70; ends at 60: 3 corrections.
    # m=2; one observer (r,1,1,2) per simulation, blocked on arrival:
    #   r=5 -> T = 10; r=15 -> T = 20; r=30 -> T = 40; r=45 -> T = 70.
    for r, expected in ((5, 10.0), (15, 20.0), (30, 40.0), (45, 70.0)):
        res = sim([(0, 60, 70, 1), (r, 1, 1, 2)], 2, estimate=[10, 1], correction="doubling")
        assert res["corrections"] == [3, 0], r
        assert res["reservation"][1] == expected, r
        assert res["start"][1] == 60.0


def test_job_ending_exactly_at_estimate_is_not_corrected():
    # job0 = (0,10,100,1) predicted 10: ends at 0+10 = s+e -> no expiry.
    for mode in ("request", "incremental", "doubling"):
        res = sim([(0, 10, 100, 1)], 1, estimate=[10], correction=mode)
        assert res["corrections"] == [0]
        assert res["end"] == [10.0]


def test_expiry_applied_before_pass_changes_backfill():
    # m=2; job0 = (0,50,100,1) predicted 10; job1 = (0,5,5,2) blocked:
    # T = 10, extra 0.  job2 = (10,10,10,1): at t=10 job0 expires first
    # (e=100, so T becomes 100 at this pass): 10+10 = 20 <= 100 ->
    # backfilled at 10.  job1 starts at 50 (job0 ends, job2 ended at 20).
    res = sim([(0, 50, 100, 1), (0, 5, 5, 2), (10, 10, 10, 1)], 2, estimate=[10, 5, 10])
    assert res["start"] == [0.0, 50.0, 10.0]
    assert res["backfilled"] == [False, False, True]
    assert res["reservation"][1] == 10.0  # first pass in which it was head


# ------------------------------------------------------------- switches ---


def test_switch_of_order_mid_run():
    # m=1; job0 = (0,10,10,1), job1 = (1,50,50,1), job2 = (2,20,20,1),
    # job3 = (3,5,5,1).  FCFS until t=15, then SPF.
    # t=10 (FCFS): job1 starts, ends 60.
    # t=60 (SPF): job3 (e=5) before job2 (e=20): job3 60-65, job2 65-85.
    jobs = [(0, 10, 10, 1), (1, 50, 50, 1), (2, 20, 20, 1), (3, 5, 5, 1)]
    res = sim(jobs, 1, switches=[(15, "SPF")])
    assert res["start"] == [0.0, 10.0, 65.0, 60.0]
    assert res["order_at_start"] == ["FCFS", "FCFS", "SPF", "SPF"]
    # a switch at exactly t=10 applies to the pass at t=10 (t >= time):
    # SPF at 10 picks job3 (10-15), then job2 (15-35), job1 (35-85).
    res = sim(jobs, 1, switches=[(10, "SPF")])
    assert res["start"] == [0.0, 35.0, 15.0, 10.0]
    assert res["order_at_start"] == ["FCFS", "SPF", "SPF", "SPF"]
    # latest pair wins: SPF at 10, back to FCFS at 15:
    # t=10 SPF: job3 10-15; t=15 FCFS: job1 15-65; job2 65-85.
    res = sim(jobs, 1, switches=[(10, "SPF"), (15, "FCFS")])
    assert res["start"] == [0.0, 15.0, 65.0, 10.0]
    assert res["order_at_start"] == ["FCFS", "FCFS", "FCFS", "SPF"]


# ---------------------------------------------------------- reservations ---


def test_reservation_recorded_at_first_blocking_pass():
    # m=3; job0 = (0,5,20,2), job1 = (1,10,10,2), job2 = (1,100,100,2).
    # t=0: job0 starts (free 1), est. end 20.
    # t=1: job1 blocked: T = 20 (1 + 2 = 3 >= 2) -> reservation 20;
    #      job2 (q=2 > free 1) not started, and not the head.
    # t=5: job0 ends early (free 3): job1 starts (free 1, est. end 15);
    #      job2 is the head now: T = 15 -> reservation 15.
    # t=15: job1 ends: job2 starts at 15.  job0 was never blocked: NaN.
    res = sim([(0, 5, 20, 2), (1, 10, 10, 2), (1, 100, 100, 2)], 3)
    assert res["start"] == [0.0, 5.0, 15.0]
    assert is_nan(res["reservation"][0])
    assert res["reservation"][1] == 20.0
    assert res["reservation"][2] == 15.0


def test_no_reservation_in_pass_with_zero_free():
    # docs/semantics.md: a pass with free == 0 changes nothing (the core
    # skips it), so it records no reservation.
    # m=1; job0 = (0,10,10,1), job1 = (1,5,5,1): at t=1 free = 0; at t=10
    # job1 starts at once.  job1 is never the blocked head of a pass that
    # does any work -> NaN.
    res = sim([(0, 10, 10, 1), (1, 5, 5, 1)], 1)
    assert res["start"] == [0.0, 10.0]
    assert is_nan(res["reservation"][1])


# --------------------------------------------------------------- metrics ---


def test_metrics_three_jobs():
    # m=4; submit [0,0,5], run [10,5,0], request [10,10,5], q [2,4,1],
    # start [0,40,15].  p = [10,5,0], wait = [0,40,10].
    # bsld:   10/10 = 1;  45/10 = 4.5;  10/10 = 1      -> avg 6.5/3
    # ppbsld: 10/20 -> 1; 45/40 = 1.125; 10/10 = 1     -> avg 3.125/3
    # flow:   10, 45, 10 -> 65/3;  mean wait 50/3, max 40.
    # util: (2*10 + 4*5 + 1*0) / (4 * (45 - 0)) = 40/180.
    met = reference_metrics([0, 0, 5], [10, 5, 0], [10, 10, 5], [2, 4, 1], [0, 40, 15], 4)
    assert met["mean_wait"] == pytest.approx(50 / 3)
    assert met["max_wait"] == 40.0
    assert met["avg_bsld"] == pytest.approx(6.5 / 3)
    assert met["avg_ppbsld"] == pytest.approx(3.125 / 3)
    assert met["mean_flow"] == pytest.approx(65 / 3)
    assert met["utilization"] == pytest.approx(40 / 180)


def test_metrics_use_time_actually_run_and_zero_span():
    # run 30 > request 20 -> p = 20: flow 20, bsld 1, util 20/(1*20) = 1.
    met = reference_metrics([0], [30], [20], [1], [0], 1)
    assert met["mean_flow"] == 20.0 and met["utilization"] == 1.0
    # one zero-length job: span 0 -> utilization 0.0; bsld max(0/10, 1) = 1.
    met = reference_metrics([3], [0], [5], [1], [3], 2)
    assert met["utilization"] == 0.0 and met["avg_bsld"] == 1.0


def test_metrics_of_a_simulation():
    # BASIC with EASY: starts [0,10,2]; waits [0,9,0]; utilization
    # (3*10 + 2*5 + 1*2) / (4 * 15) = 42/60.
    res = sim(BASIC, 4)
    met = reference_metrics([0, 1, 2], [10, 5, 2], [10, 5, 2], [3, 2, 1], res["start"], 4)
    assert met["mean_wait"] == pytest.approx(3.0)
    assert met["utilization"] == pytest.approx(42 / 60)


# ------------------------------------------------------------ validation ---


@pytest.mark.parametrize(
    "kwargs",
    [
        {"order": "XYZ"},
        {"backfill": "easy"},
        {"estimate": "oracle"},
        {"estimate": [1.0]},  # wrong length
        {"correction": "tripling"},
        {"threshold": -1.0},
        {"switches": [(5, "NOPE")]},
    ],
)
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        sim(BASIC, 4, **kwargs)


def test_bad_procs_and_lengths():
    with pytest.raises(ValueError):
        sim([(0, 1, 1, 5)], 4)
    with pytest.raises(ValueError):
        sim([(0, 1, 1, 0)], 4)
    with pytest.raises(ValueError):
        reference_simulate([0, 1], [1], [1, 1], [1, 1], [0, 0], 4)


# ------------------------------------------------------- sanity (random) ---


def test_random_workloads_respect_basic_invariants():
    # Not hand-computed: checks on 300 small random workloads that every job
    # starts after its submission, runs min(p, p~), the machine is never
    # over-committed, and (EASY, FCFS, request estimates) no reserved head
    # starts after its recorded shadow time.
    import random

    rng = random.Random(12345)
    for _ in range(300):
        n = rng.randint(0, 15)
        m = rng.randint(1, 6)
        sub = sorted(rng.randint(0, 40) for _ in range(n))
        run = [rng.choice([0, rng.randint(0, 20), rng.random() * 20]) for _ in range(n)]
        req = [max(0.5, rng.choice([p, p + rng.randint(0, 20)])) for p in run]
        q = [rng.randint(1, m) for _ in range(n)]
        u = [rng.randint(0, 2) for _ in range(n)]
        order = rng.choice(ORDERS)
        kw = dict(
            order=order,
            backfill=rng.choice(("none", "queue") + ORDERS),
            estimate=rng.choice(["request", "clairvoyant", "ave2", [rng.random() * 30 for _ in range(n)]]),
            correction=rng.choice(["request", "incremental", "doubling"]),
            threshold=rng.choice([None, 0.0, 10.0]),
        )
        res = reference_simulate(sub, run, req, q, u, m, **with_function(kw))
        for i in range(n):
            assert res["start"][i] >= sub[i]
            assert res["end"][i] == res["start"][i] + min(run[i], req[i])
            assert res["order_at_start"][i] == order
        for t in set(res["start"]):
            used = sum(q[i] for i in range(n) if res["start"][i] <= t < res["end"][i])
            assert used <= m
        if kw["estimate"] == "request" and order == "FCFS" and kw["threshold"] is None and kw["backfill"] != "none":
            for i in range(n):
                if not is_nan(res["reservation"][i]):
                    assert res["start"][i] <= res["reservation"][i]
