"""The reference simulator's queue order MULTIFACTOR (RESERVATIONS.md section 2).

Hand-computed schedules: each factor alone (age, fair share, size with and
without favor_small), all three together with P values probed at the floor,
fair-share factors of known usage, when the factors are computed
(calc_period), ties by (r, id), MULTIFACTOR as a backfill order, with a
threshold, as a switch target, the parameters' errors, determinism.  Then
randomized checks: runs without multifactor are exactly those of the
reference before MULTIFACTOR existed (the previous commit's file), and
MULTIFACTOR reduces to FCFS / LQF / SQF when its weights make it so.

Notation: job i = (r, p, p~, q); estimates are the requests; m processors;
c = H / ln 2 (usage of one processor over [s, s + run) at T is
c (2^-(T-s-run)/H - 2^-(T-s)/H)); x_j is the unfloored priority.
"""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sim import ORDERS, reference_simulate
from strategies import COMMON, with_function, workloads

TESTS = Path(__file__).resolve().parent.parent


def sim(jobs, m, users=None, **kwargs):
    """jobs: list of (r, p, p~, q); every job of user 0 unless `users`."""
    columns = [[job[k] for job in jobs] for k in range(4)]
    users = [0] * len(jobs) if users is None else users
    return reference_simulate(*columns, users, m, **kwargs)


def mf(age=0, fairshare=0, size=0, **rest):
    """Multifactor parameters with the three weights (0 unless given)."""
    return dict(weight_age=age, weight_fairshare=fairshare, weight_job_size=size, **rest)


# ------------------------------------------------------------- one factor ---


def test_age_alone_orders_by_waiting_time():
    # m = 4; job 0 = (0, 64, 64, 4) fills the machine until 64.  Job 1 =
    # (32, 16, 16, 4), job 2 = (48, 16, 16, 1).  At T = 64 (calc_period 0):
    # A_1 = 32/1024, A_2 = 16/1024, so P_1 = 32 > P_2 = 16: job 1 starts at 64
    # (whole machine), job 2 at 80.  (SQF would start job 2 first.)
    jobs = [(0, 64, 64, 4), (32, 16, 16, 4), (48, 16, 16, 1)]
    params = mf(age=1024, max_age=1024, calc_period=0)
    res = sim(jobs, 4, order="MULTIFACTOR", backfill="none", multifactor=params)
    assert res["start"] == [0.0, 64.0, 80.0]
    assert res["order_at_start"] == ["MULTIFACTOR"] * 3
    assert sim(jobs, 4, order="SQF", backfill="none")["start"] == [0.0, 80.0, 64.0]
    # the age factor saturates at 1: with max_age 8 both A = 1, and W_size =
    # 64 with favor_small decides: x_1 = 1024 + 64 (1 - 3/4) = 1040 < x_2 =
    # 1024 + 64 = 1088 (unclamped: 4096 + 16 > 2048 + 64).
    saturated = {**params, "max_age": 8, "weight_job_size": 64, "favor_small": True}
    res = sim(jobs, 4, order="MULTIFACTOR", backfill="none", multifactor=saturated)
    assert res["start"] == [0.0, 80.0, 64.0]


def test_fair_share_alone_prefers_the_user_with_less_usage():
    # m = 1, H = 64, calc_period 0, only W_fs = 1024; c = 64 / ln 2.
    # Job 0 (user 0) = (0, 64, 64, 1), job 1 (user 0) = (0, 64, 64, 1), job 2
    # (user 1) = (0, 64, 64, 1).
    # T = 0: no usage, F = 1 for both, all P = 1024: job 0 starts (id).
    # T = 64: U_0 = c (1 - 1/2) = c/2, U_1 = 0; U^_0 = 1, S = 1/2, F_0 = 2^-2,
    # F_1 = 1: P_1 = 256, P_2 = 1024: job 2 starts at 64 (FCFS: job 1).
    # T = 128: job 1 starts.  T = 192 (last instant): U_0 = c (2^-2 - 2^-3)
    # + c (1 - 2^-1) = 5c/8, U_1 = c (2^-1 - 2^-2) = c/4; U^ = 5/7, 2/7;
    # F_0 = 2^-(10/7), F_1 = 2^-(4/7).
    jobs = [(0, 64, 64, 1)] * 3
    params = mf(fairshare=1024, decay_half_life=64, calc_period=0)
    res = sim(jobs, 1, users=[0, 0, 1], order="MULTIFACTOR", multifactor=params)
    assert res["start"] == [0.0, 128.0, 64.0]
    assert sim(jobs, 1, users=[0, 0, 1], order="FCFS")["start"] == [0.0, 64.0, 128.0]
    assert res["fair_share"] == pytest.approx([2 ** (-10 / 7), 2 ** (-4 / 7)], rel=1e-12)
    assert res["priority_computations"] == 4  # instants 0, 64, 128, 192


# m = 4; job 0 fills the machine until 64; jobs 1, 2, 3 have q = 1, 3, 2.
SIZE_JOBS = [(0, 64, 64, 4), (1, 10, 10, 1), (2, 10, 10, 3), (3, 10, 10, 2)]


def test_job_size_alone_prefers_large_jobs():
    # Z = q/4: P = 256, 768, 512 for jobs 1, 2, 3: at 64 job 2 (q 3) starts,
    # job 3 (q 2) does not fit and the pass stops (backfill none); at 74 job
    # 3 then job 1 start.
    res = sim(SIZE_JOBS, 4, order="MULTIFACTOR", backfill="none", multifactor=mf(size=1024))
    assert res["start"] == [0.0, 74.0, 64.0, 74.0]


def test_job_size_alone_with_favor_small_prefers_small_jobs():
    # Z = 1 - (q - 1)/4: P = 1024, 512, 768 for jobs 1, 2, 3: at 64 job 1
    # (q 1) and job 3 (q 2) start; job 2 (q 3) does not fit; at 74 it starts.
    params = mf(size=1024, favor_small=True)
    res = sim(SIZE_JOBS, 4, order="MULTIFACTOR", backfill="none", multifactor=params)
    assert res["start"] == [0.0, 64.0, 74.0, 64.0]


# -------------------------------------------------------- all three factors ---

# m = 4, H = 64, max_age = 1024, calc_period 0.  Job 0 (user 0) = (0, 64, 64,
# 4); job 1 (user 0) = (0, 16, 16, 1); job 2 (user 1) = (32, 16, 16, 4).
# At T = 64: U_0 = 4c (1 - 1/2) > 0, U_1 = 0, so F_0 = 2^-2, F_1 = 1;
# A_1 = 64/1024, A_2 = 32/1024; Z_1 = 1/4, Z_2 = 1:
# x_1 = W_age/16 + W_fs/4 + W_size/4,  x_2 = W_age/32 + W_fs + W_size.
# Job 1 first: starts [0, 64, 80]; job 2 first: [0, 80, 64].
TOGETHER_JOBS = [(0, 64, 64, 4), (0, 16, 16, 1), (32, 16, 16, 4)]
TOGETHER_USERS = [0, 0, 1]
JOB_1_FIRST = [0.0, 64.0, 80.0]
JOB_2_FIRST = [0.0, 80.0, 64.0]


@pytest.mark.parametrize(
    "weights, expected",
    [
        ((1024, 1024, 1024), JOB_2_FIRST),  # x_1 = 576, x_2 = 2080
        ((32768, 1024, 1024), JOB_2_FIRST),  # x_1 = 2560, x_2 = 3072
        ((65536, 1024, 1024), JOB_1_FIRST),  # x_1 = 4608, x_2 = 4096
        ((49152, 1024, 1024), JOB_1_FIRST),  # x_1 = x_2 = 3584: tie, r_1 < r_2
        ((49152, 1024, 1025), JOB_2_FIRST),  # P_1 = floor(3584.25) = 3584 < P_2 = 3585
        ((49152, 1024, 1024.5), JOB_1_FIRST),  # x_1 = 3584.125 < x_2 = 3584.5, both floor to 3584: tie
    ],
)
def test_all_three_factors_and_the_floor(weights, expected):
    age, fairshare, size = weights
    params = mf(age, fairshare, size, max_age=1024, decay_half_life=64, calc_period=0)
    res = sim(TOGETHER_JOBS, 4, users=TOGETHER_USERS, order="MULTIFACTOR", backfill="none", multifactor=params)
    assert res["start"] == expected


def test_boundary_cases_are_counted_per_computation_and_waiting_job():
    # Weights (49152, 1024, 1024) of TOGETHER_JOBS: every value is an integer.
    # T = 0: jobs 0, 1 waiting (x = 2048, 1280); T = 32: jobs 1, 2 (x_1 =
    # 1536 + 256 + 256, x_2 = 0 + 1024 + 1024); T = 64: jobs 1, 2 (3584
    # both); T = 80: job 2 (2304 + 1024 + 1024); T = 96: none.  7 pairs, 5
    # computations.
    params = mf(49152, 1024, 1024, max_age=1024, decay_half_life=64, calc_period=0)
    res = sim(TOGETHER_JOBS, 4, users=TOGETHER_USERS, order="MULTIFACTOR", backfill="none", multifactor=params)
    assert res["priority_computations"] == 5
    assert res["priority_boundary_cases"] == 7
    # W_size = 1024.5: no value is an integer any more.  T = 0: x_0 = 1024 +
    # 1024.5, x_1 = 1024 + 256.125; T = 32: x_1 = 1536 + 256 + 256.125, x_2 =
    # 1024 + 1024.5; T = 64: 3584.125, 3584.5; T = 80: x_2 = 2304 + 1024 +
    # 1024.5.
    half = sim(
        TOGETHER_JOBS,
        4,
        users=TOGETHER_USERS,
        order="MULTIFACTOR",
        backfill="none",
        multifactor={**params, "weight_job_size": 1024.5},
    )
    assert half["priority_boundary_cases"] == 0


def test_a_job_submitted_between_computations_is_counted_when_first_evaluated():
    # calc_period 100, W_size = 1024, m = 4: computation at 0 (job 0, Z = 1,
    # x = 1024: a boundary case); job 1 (q 2) submitted at 10, between
    # computations: x = 512, counted at its submission; job 2 (q 3) at 20:
    # x = 768, counted.  Job 0 = (0, 50, 50, 4) ends at 50; jobs 1, 2 run
    # 10: 1 computation in all (no instant >= 100).
    jobs = [(0, 50, 50, 4), (10, 10, 10, 2), (20, 10, 10, 3)]
    res = sim(jobs, 4, order="MULTIFACTOR", backfill="none", multifactor=mf(size=1024, calc_period=100))
    assert res["priority_computations"] == 1
    assert res["priority_boundary_cases"] == 3
    assert res["start"] == [0.0, 60.0, 50.0]  # P_2 = 768 > P_1 = 512


# ------------------------------------------------------------- fair share ---


def test_fair_share_of_two_users_one_half_life_apart():
    # m = 2, H = 64, calc_period 0.  Job 0 (user 7) = (0, 64, 64, 2) runs
    # [0, 64); job 1 (user -1) = (0, 64, 64, 1) runs [64, 128).  Last
    # computation at T = 128: U_7 = 2c (2^-1 - 2^-2) = c/2, U_-1 = c (1 - 2^-1)
    # = c/2; U^ = 1/2 each, S = 1/2: F = 2^-1 for both (users ascending: -1, 7).
    jobs = [(0, 64, 64, 2), (0, 64, 64, 1)]
    params = mf(fairshare=1024, decay_half_life=64, calc_period=0)
    res = sim(jobs, 2, users=[7, -1], order="FCFS", multifactor=params)
    assert res["start"] == [0.0, 64.0]
    assert res["fair_share"] == [0.5, 0.5]
    assert res["priority_computations"] == 3  # 0, 64, 128


def test_fair_share_counts_every_user_of_the_workload():
    # As above, plus job 2 (user 3) = (128, 0, 1, 1): N_users = 3, S = 1/3.
    # T = 128: U = c/2, c/2, 0; U^ = 1/2, 1/2, 0; F = 2^-1.5, 2^-1.5, 1.
    jobs = [(0, 64, 64, 2), (0, 64, 64, 1), (128, 0, 1, 1)]
    params = mf(fairshare=1024, decay_half_life=64, calc_period=0)
    res = sim(jobs, 2, users=[7, -1, 3], order="FCFS", multifactor=params)
    assert res["fair_share"] == pytest.approx([2**-1.5, 1.0, 2**-1.5], rel=1e-12)


def test_fair_share_counts_a_running_job_up_to_T():
    # m = 2, H = 64, calc_period 128: computations at 0 and 128 only (the last
    # instant, 192, is before the next due 256).  Job 0 (user 0) = (0, 192,
    # 192, 1) runs [0, 192), job 1 (user 1) = (0, 64, 64, 1) runs [0, 64),
    # job 2 (user 1) = (128, 0, 1, 1) makes the instant 128.  T = 128: U_0 =
    # c (2^0 - 2^-2) = 3c/4 (the running job's first 128 s), U_1 = c (2^-1 -
    # 2^-2) = c/4 (job 2 starts at T: not counted, and its usage is 0); U^ =
    # 3/4, 1/4; F = 2^-1.5, 2^-0.5.
    jobs = [(0, 192, 192, 1), (0, 64, 64, 1), (128, 0, 1, 1)]
    params = mf(fairshare=1, decay_half_life=64, calc_period=128)
    res = sim(jobs, 2, users=[0, 1, 1], order="FCFS", multifactor=params)
    assert res["start"] == [0.0, 0.0, 128.0]
    assert res["priority_computations"] == 2
    assert res["fair_share"] == pytest.approx([2**-1.5, 2**-0.5], rel=1e-12)


def test_fair_share_decays_with_the_half_life():
    # m = 1, H = 64, calc_period 0.  Job 0 (user 0) = (0, 64, 64, 1) runs
    # [0, 64); job 1 (user 1) = (64 k, 64, 64, 1) runs [64 k, 64 k + 64), k
    # half-lives later.  Last computation at T = 64 k + 64: U_0 = c (2^-k -
    # 2^-(k+1)) = c 2^-(k+1), U_1 = c (1 - 2^-1) = c/2, so U^_0 = 2^-k / (1 +
    # 2^-k), U^_1 = 1 - U^_0, and F_u = 2^-(2 U^_u).
    for k in (1, 2, 3):
        jobs = [(0, 64, 64, 1), (64 * k, 64, 64, 1)]
        params = mf(fairshare=1, decay_half_life=64, calc_period=0)
        res = sim(jobs, 1, users=[0, 1], order="FCFS", multifactor=params)
        share_0 = 2.0**-k / (1 + 2.0**-k)
        expected = [2 ** (-2 * share_0), 2 ** (-2 * (1 - share_0))]
        assert res["fair_share"] == pytest.approx(expected, rel=1e-12), k


def test_fair_share_is_empty_without_multifactor_and_one_without_usage():
    jobs = [(0, 10, 10, 1), (0, 10, 10, 1)]
    plain = sim(jobs, 2, users=[0, 1])
    assert (plain["fair_share"], plain["priority_computations"], plain["priority_boundary_cases"]) == ([], 0, 0)
    # the defaults (calc_period 300): one computation at 0, before any start
    res = sim(jobs, 2, users=[0, 1], order="MULTIFACTOR")
    assert res["fair_share"] == [1.0, 1.0]
    assert res["priority_computations"] == 1


def test_multifactor_defaults_when_a_backfill_order_or_a_switch_names_it():
    jobs = [(0, 10, 10, 1), (400, 10, 10, 1)]
    for kwargs in ({"backfill": "MULTIFACTOR"}, {"switches": [(1000.0, "MULTIFACTOR")]}):
        res = sim(jobs, 2, users=[0, 1], **kwargs)
        # defaults: computations at 0 and 400 (>= 300); at 400 user 0 has
        # used [0, 10) and user 1 nothing: F_0 = 2^-2, F_1 = 1.
        assert res["priority_computations"] == 2, kwargs
        assert res["fair_share"] == [0.25, 1.0], kwargs


def test_fair_share_is_tracked_before_a_switch_to_multifactor():
    # The fair-share example above with FCFS until 64, then MULTIFACTOR: the
    # usage of job 0 (started under FCFS) still makes job 2 (user 1) first.
    jobs = [(0, 64, 64, 1)] * 3
    params = mf(fairshare=1024, decay_half_life=64, calc_period=0)
    res = sim(jobs, 1, users=[0, 0, 1], order="FCFS", switches=[(64.0, "MULTIFACTOR")], multifactor=params)
    assert res["start"] == [0.0, 128.0, 64.0]
    assert res["order_at_start"] == ["FCFS", "MULTIFACTOR", "MULTIFACTOR"]
    assert res["priority_computations"] == 4


# ------------------------------------------------------------ calc_period ---

# m = 4, W_age = 1024, max_age = 1024, W_size = 64.  Job 0 = (0, 60, 60, 4)
# ends at 60; job 1 = (10, 10, 10, 3) (64 Z = 48); job 2 = (50, 10, 10, 4)
# (64 Z = 64).
STALE_JOBS = [(0, 60, 60, 4), (10, 10, 10, 3), (50, 10, 10, 4)]


def stale(calc_period):
    params = mf(age=1024, size=64, max_age=1024, calc_period=calc_period)
    return sim(STALE_JOBS, 4, order="MULTIFACTOR", backfill="none", multifactor=params)


def test_a_job_submitted_between_computations_has_age_zero():
    # calc_period 100: the last computation before the pass at 60 is T = 0,
    # so both jobs (submitted after it) have A = 0: x_1 = 48 < x_2 = 64; job
    # 2 starts at 60, job 1 at 70.  Instants 0, 10, 50, 60, 70, 80: 1
    # computation.
    res = stale(100)
    assert res["start"] == [0.0, 70.0, 60.0]
    assert res["priority_computations"] == 1


def test_calc_period_zero_recomputes_at_every_instant():
    # T = 60: x_1 = 50 + 48 = 98 > x_2 = 10 + 64 = 74: job 1 first.  6
    # computations (0, 10, 50, 60, 70, 80).
    res = stale(0)
    assert res["start"] == [0.0, 60.0, 70.0]
    assert res["priority_computations"] == 6


def test_one_computation_covers_several_multiples():
    # calc_period 16: computations at 0 (due 16), 50 (covers 16, 32, 48; due
    # 64, not 32), 70 (due 80), 80: 4.  At 60 the factors are those of T =
    # 50: x_1 = 40 + 48 = 88 > x_2 = 0 + 64: job 1 first.
    res = stale(16)
    assert res["start"] == [0.0, 60.0, 70.0]
    assert res["priority_computations"] == 4


def test_computation_happens_at_an_instant_with_no_free_processor():
    # m = 4, calc_period 100, W_age = 1024, max_age = 1024, W_size = 64.
    # Job 0 = (0, 150, 150, 4) fills the machine until 150; job 1 = (10, 10,
    # 10, 3); job 2 = (100, 10, 10, 4) is submitted at 100, with no processor
    # free: the factors are computed there (T = 100): x_1 = 90 + 48 = 138,
    # x_2 = 0 + 64.  At 150 (due 200) they still hold: job 1 first.  Had the
    # computation at 100 been skipped, both ages would be 0 at 150 and job 2
    # would go first.  Computations: 0, 100.
    jobs = [(0, 150, 150, 4), (10, 10, 10, 3), (100, 10, 10, 4)]
    params = mf(age=1024, size=64, max_age=1024, calc_period=100)
    res = sim(jobs, 4, order="MULTIFACTOR", backfill="none", multifactor=params)
    assert res["start"] == [0.0, 150.0, 160.0]
    assert res["priority_computations"] == 2


# ------------------------------------------------------------------ ties ---


def test_equal_priorities_tie_by_submit_time_then_id():
    # All weights 0: every P = 0, the queue is (r, id) order, i.e. FCFS,
    # whatever LCFS or the sizes say.  m = 2; job 0 = (0, 10, 10, 2); jobs
    # 1..3 = (1, 10, 10, 1), (1, 10, 10, 2), (2, 10, 10, 1).  At 10: job 1
    # starts, job 2 (q 2) does not fit: stop; 20: job 2; 30: job 3.  (LCFS:
    # jobs 3 and 1 at 10, job 2 at 20.)
    jobs = [(0, 10, 10, 2), (1, 10, 10, 1), (1, 10, 10, 2), (2, 10, 10, 1)]
    res = sim(jobs, 2, order="MULTIFACTOR", backfill="none", multifactor=mf())
    assert res["start"] == [0.0, 10.0, 20.0, 30.0]
    assert sim(jobs, 2, order="LCFS", backfill="none")["start"] == [0.0, 10.0, 20.0, 10.0]


# ------------------------------------------- backfill order and threshold ---


def test_multifactor_as_backfill_order():
    # m = 4, order FCFS.  Job 0 = (0, 100, 100, 2) runs; job 1 = (1, 10, 10,
    # 4) is the head, shadow 100, extra 0; jobs 2 = (3, 10, 10, 1) and 3 =
    # (3, 10, 10, 2) both end before 100, with 2 processors free at 3.
    # Backfill by size (W_size only): job 3 (P 512) before job 2 (P 256):
    # job 3 at 3 (free 0 then), job 2 at 13.  With favor_small (P 1024 and
    # 768): job 2 at 3, job 3 (q 2 > 1 free) at 13, as queue backfilling.
    jobs = [(0, 100, 100, 2), (1, 10, 10, 4), (3, 10, 10, 1), (3, 10, 10, 2)]
    res = sim(jobs, 4, order="FCFS", backfill="MULTIFACTOR", multifactor=mf(size=1024))
    assert res["start"] == [0.0, 100.0, 13.0, 3.0]
    assert res["backfilled"] == [False, False, True, True]
    small = sim(jobs, 4, order="FCFS", backfill="MULTIFACTOR", multifactor=mf(size=1024, favor_small=True))
    assert small["start"] == [0.0, 100.0, 3.0, 13.0]
    assert sim(jobs, 4, order="FCFS", backfill="queue")["start"] == [0.0, 100.0, 3.0, 13.0]


def test_multifactor_with_a_threshold():
    # m = 4, W_size only.  Job 0 = (0, 100, 100, 4); job 1 = (10, 10, 10, 1)
    # (P 256); job 2 = (50, 10, 10, 4) (P 1024).  At 100 without threshold:
    # job 2 then job 1.  Threshold 60: job 1 has waited 90 > 60, job 2 50:
    # job 1 first.
    jobs = [(0, 100, 100, 4), (10, 10, 10, 1), (50, 10, 10, 4)]
    kwargs = dict(order="MULTIFACTOR", backfill="none", multifactor=mf(size=1024))
    assert sim(jobs, 4, **kwargs)["start"] == [0.0, 110.0, 100.0]
    assert sim(jobs, 4, threshold=60, **kwargs)["start"] == [0.0, 100.0, 110.0]


def test_multifactor_with_reservation_depth():
    # m = 4, W_size only, D = "all" (conservative).  Job 0 = (0, 10, 10, 2)
    # runs [0, 10); at 1 jobs 1 = (1, 5, 5, 1) (P 256), 2 = (1, 20, 20, 4)
    # (P 1024), 3 = (1, 5, 5, 2) (P 512) are submitted.  Queue: 2, 3, 1.
    # Walk at 1: job 2 anchor 10, reserved [10, 30); job 3 fits [1, 6) (2
    # free until 10): starts; job 1: 0 free now, [6, 11) meets the
    # reservation at [10, 11): anchor 30, reserved.  At 6 (job 3 ends): job 2
    # reserved [10, 30) again, job 1 again anchored at 30.  At 10 job 2
    # starts; at 30 job 1.  (FCFS would start job 1 at 1.)
    jobs = [(0, 10, 10, 2), (1, 5, 5, 1), (1, 20, 20, 4), (1, 5, 5, 2)]
    res = sim(jobs, 4, order="MULTIFACTOR", reservations="all", multifactor=mf(size=1024))
    assert res["start"] == [0.0, 30.0, 10.0, 1.0]
    assert res["backfilled"] == [False, False, False, True]
    assert res["jobs_reserved"] == 2


# ---------------------------------------------------------------- errors ---


@pytest.mark.parametrize(
    "multifactor, message",
    [
        ({"weight_agee": 1}, "unknown multifactor key 'weight_agee'"),
        ({"weight_age": -1}, "multifactor.weight_age must be >= 0, got -1"),
        ({"weight_fairshare": "1"}, "multifactor.weight_fairshare must be a finite number"),
        ({"weight_job_size": math.nan}, "multifactor.weight_job_size must be a finite number"),
        ({"weight_job_size": True}, "multifactor.weight_job_size must be a finite number"),
        ({"max_age": 0}, "multifactor.max_age must be > 0, got 0"),
        ({"max_age": math.inf}, "multifactor.max_age must be a finite number"),
        ({"decay_half_life": 0}, "multifactor.decay_half_life must be > 0, got 0"),
        ({"decay_half_life": -5.0}, "multifactor.decay_half_life must be > 0, got -5.0"),
        ({"calc_period": -1}, "multifactor.calc_period must be >= 0, got -1"),
        ({"favor_small": 1}, "multifactor.favor_small must be a bool, got 1"),
        ([("weight_age", 1)], "multifactor must be a dict"),
    ],
)
def test_bad_parameters_name_their_key(multifactor, message):
    with pytest.raises(ValueError) as raised:
        sim([(0, 1, 1, 1)], 1, order="MULTIFACTOR", multifactor=multifactor)
    assert message in str(raised.value)


def test_bad_parameters_are_refused_whatever_the_order():
    with pytest.raises(ValueError, match="multifactor.calc_period"):
        sim([(0, 1, 1, 1)], 1, order="FCFS", multifactor={"calc_period": -1})


# ----------------------------------------------------------- determinism ---

DETERMINISM_SCRIPT = textwrap.dedent(
    """
    import json, random, sys
    sys.path.insert(0, sys.argv[1])
    from reference_sim import reference_simulate
    rng = random.Random(7)
    out = []
    for _ in range(30):
        n = rng.randint(1, 25)
        m = rng.randint(1, 8)
        sub = sorted(rng.choice([0, 0.1, 3, 7.7, 250, 300, 301]) + rng.randint(0, 900) for _ in range(n))
        run = [rng.random() * 400 for _ in range(n)]
        req = [p + rng.randint(0, 50) for p in run]
        q = [rng.randint(1, m) for _ in range(n)]
        users = [rng.choice(["alice", "bob", "carol", "dave", "eve"]) for _ in range(n)]
        params = dict(decay_half_life=rng.choice([60.0, 777.7]), calc_period=rng.choice([0, 100, 300]))
        res = reference_simulate(sub, run, req, q, users, m, order="MULTIFACTOR", multifactor=params)
        out.append([res["start"], res["fair_share"], res["priority_boundary_cases"]])
    print(json.dumps(out))
    """
)


def test_determinism_across_hash_seeds():
    # Users as strings: set and dict iteration order changes with the hash
    # seed; the schedule and fair-share factors must not.
    outputs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", DETERMINISM_SCRIPT, str(TESTS)], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == outputs[2]
    assert any(len(fs) == 5 and fs != [1.0] * 5 for _, fs, _ in outputs[0])


# ------------------------------------------------------------- randomized ---


@settings(max_examples=100, **COMMON)
@given(wl=workloads(max_jobs=25, max_machine=16), order=st.sampled_from(ORDERS[:-1]))
def test_runs_without_multifactor_report_no_priorities(wl, order):
    after = reference_simulate(*wl, **with_function(dict(order=order)))
    assert (after["fair_share"], after["priority_computations"], after["priority_boundary_cases"]) == ([], 0, 0)


@settings(max_examples=200, **COMMON)
@given(
    wl=workloads(max_jobs=25, max_machine=16),
    backfill=st.sampled_from(("none", "queue", "FCFS")),
    threshold=st.sampled_from((None, 0.0, 10.0)),
    reservations=st.sampled_from((1, 2, "all")),
    calc_period=st.sampled_from((0, 1, 300)),
)
def test_multifactor_reduces_to_fcfs_lqf_sqf(wl, backfill, threshold, reservations, calc_period):
    # Weights 0, or age alone (P non-increasing in r, so ties by (r, id) give
    # FCFS): FCFS.  W_size = m alone with m a power of two: P = q exactly
    # (LQF), with favor_small P = m - q + 1 (SQF); ties by id in both.
    submit, run, requested, procs, user, m = wl
    m2 = 1 << (m - 1).bit_length()  # a power of two >= m
    wl = submit, run, requested, procs, user, m2
    if reservations != 1:
        backfill = "queue"
    if backfill == "FCFS":
        backfill = "MULTIFACTOR"  # the backfill order follows the queue order
    cases = [
        (mf(calc_period=calc_period), "FCFS"),
        (mf(age=1000, max_age=50, calc_period=calc_period), "FCFS"),
        (mf(age=1000, calc_period=calc_period), "FCFS"),
        (mf(size=m2, calc_period=calc_period), "LQF"),
        (mf(size=m2, favor_small=True, calc_period=calc_period), "SQF"),
    ]
    for params, equivalent in cases:
        common = dict(threshold=threshold, reservations=reservations)
        mine = reference_simulate(*wl, order="MULTIFACTOR", backfill=backfill, multifactor=params, **common)
        other_backfill = equivalent if backfill == "MULTIFACTOR" else backfill
        theirs = reference_simulate(*wl, order=equivalent, backfill=other_backfill, **common)
        for name in ("start", "end", "backfilled", "reservations_made", "jobs_reserved"):
            assert mine[name] == theirs[name], (name, params, equivalent)
