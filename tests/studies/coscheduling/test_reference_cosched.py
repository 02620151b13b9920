"""Tests of the pure-Python co-scheduling reference itself (docs/coscheduling.md).

Hand-computed schedules on workloads of 2-5 jobs (the arithmetic is in the comments), then
randomized invariants over a few hundred small random workloads.  A job is written as
(submit, work W, estimate e, procs q, efficiency u, memory per processor); NaN = unknown.
"""

import math

import numpy as np
import pytest
from reference_sim import reference_simulate
from studies.coscheduling.reference_cosched import leaf_distribution, simulate_reference

NAN = math.nan
GAMMA_ROUND_1 = math.sqrt(2 * math.log(4))  # γ = sqrt(2 ln 4 / τ) at τ = 1, ≈ 1.6651


def run(jobs, machine_size, **options):
    submit, work, estimate, procs, efficiency, memory = (list(column) for column in zip(*jobs))
    return simulate_reference(submit, work, estimate, procs, efficiency, memory, machine_size, **options)


def first_draws(seed, count):
    generator = np.random.Generator(np.random.PCG64(seed))
    return [generator.random() for _ in range(count)]


# ------------------------------------------------------------ SPACE = EASY ---


def test_space_is_plain_easy_by_hand():
    # m = 4.  t=0: job 0 starts (free 2); job 1 (q=4) is the head: job 0 releases 2 at 10 -> T=10, extra=0.
    # t=1: job 2 backfills (1 + 5 <= 10), ends 6.  t=2: free 0, nothing.  t=6: job 3 (q=1, 6+20 > 10,
    # extra 0) may not backfill.  t=10: job 1 starts, ends 15.  t=15: job 3 starts, ends 18.
    jobs = [(0, 10, 10, 2, NAN, NAN), (0, 5, 20, 4, NAN, NAN), (1, 5, 5, 2, NAN, NAN), (2, 3, 20, 1, NAN, NAN)]
    result = run(jobs, 4, strategy="SPACE")
    assert result["start"].tolist() == [0, 10, 1, 15]
    assert result["end"].tolist() == [10, 15, 6, 18]
    assert result["donor"].tolist() == [-1, -1, -1, -1]
    assert np.isnan(result["quota"]).all()
    easy = reference_simulate([0, 0, 1, 2], [10, 5, 5, 3], [10, 20, 5, 20], [2, 4, 2, 1], [0] * 4, 4)
    assert result["start"].tolist() == easy["start"]


def test_zero_length_job_frees_its_processor_at_the_same_instant():
    # m = 1: job 0 (W=0) starts and completes at 0; instant 0 is processed again and job 1 starts at 0.
    jobs = [(0, 0, 1, 1, NAN, NAN), (0, 5, 5, 1, NAN, NAN)]
    for strategy in ("SPACE", "STATIC", "ASAX", "HEADROOM"):
        result = run(jobs, 1, strategy=strategy)
        assert result["start"].tolist() == [0, 0]
        assert result["end"].tolist() == [0, 5]


# ------------------------------------------------------------ rate model ---

# m = 4: donor job 0 (q=4, W=e=100, u_a=0.3) starts at 0; job 1 (q=2) is the head with free = 0:
# T = 100 (job 0 releases 4), extra = 4 - 2 = 2.  f = 0.5: ρ'_a = min(1, 0.5/0.3) = 1 -> ê'_a = ê_a = 100.
STATIC_DONOR = (0, 100, 100, 4, 0.3, 600)


def test_static_pair_leaves_a_low_efficiency_donor_at_rate_one():
    # ê_a = 100 is not > T; ê'_a = 100 not > T; guest bound 0 + 10/0.5 = 20 <= 100 -> L = 0, admissible.
    # Guest rate min(1, 0.5/1) = 0.5 -> ends 20; the donor is untouched and ends at 100.
    result = run([STATIC_DONOR, (0, 10, 10, 2, NAN, NAN)], 4, strategy="STATIC")
    assert result["start"].tolist() == [0, 0]
    assert result["end"].tolist() == [100, 20]
    assert result["donor"].tolist() == [-1, 0]
    assert result["quota"][1] == 0.5 and np.isnan(result["quota"][0])


def test_donor_ends_first_guest_continues_at_rate_one():
    # Donor W=e=10: T = 10, extra 2.  Guest W=20, e=40: bound 0 + 40/0.5 = 80 > 10 -> L = q_b = 2 <= 2, paired.
    # Guest at 0.5 until 10: R = 20 - 0.5*10 = 15; then rate 1 -> c = 10 + 15 = 25.
    result = run([(0, 10, 10, 4, 0.3, NAN), (0, 20, 40, 2, NAN, NAN)], 4, strategy="STATIC")
    assert result["end"].tolist() == [10, 25]
    assert result["donor"].tolist() == [-1, 0]


def test_guest_ends_first_donor_back_to_rate_one():
    # m = 6: job 0 (q=4, W=100, e=200, u=0.8) and job 1 (q=2, W=e=50) start at 0; head job 2 (q=2):
    # releases (50, 2), (200, 4) -> T = 50, extra 0.  Donor job 0: ê_a = 200 > T -> L = 0.
    # ρ'_a = min(1, 0.5/0.8) = 0.625: c = 160.  Guest rate 0.5: ends 20.  At 20 the donor has
    # R = 100 - 0.625*20 = 87.5 and goes back to rate 1: ends 20 + 87.5 = 107.5.
    jobs = [(0, 100, 200, 4, 0.8, NAN), (0, 50, 50, 2, NAN, NAN), (0, 10, 10, 2, NAN, NAN)]
    result = run(jobs, 6, strategy="STATIC")
    assert result["start"].tolist() == [0, 0, 0]
    assert result["end"].tolist() == [107.5, 50, 20]
    assert result["donor"].tolist() == [-1, -1, 0]


def test_interference_rates():
    # As above with κ = 0.1, donor W=90, e=180, u=0.3, guest W=e=9: T = 50, ê_a = 180 > T -> L = 0.
    # ρ_a = 0.9*min(1, 0.5/0.3) = 0.9; ρ_b = 0.9*min(1, 0.5/1) = 0.45 -> guest ends 9/0.45 = 20.
    # At 20: R_a = 90 - 0.9*20 = 72 -> donor ends 92.
    jobs = [(0, 90, 180, 4, 0.3, NAN), (0, 50, 50, 2, NAN, NAN), (0, 9, 9, 2, NAN, NAN)]
    result = run(jobs, 6, strategy="STATIC", kappa=0.1)
    assert result["end"].tolist() == pytest.approx([92, 50, 20], rel=1e-12)
    assert result["donor"].tolist() == [-1, -1, 0]


def test_interference_can_make_a_donor_delay_the_reservation():
    # m = 4, κ = 0.1: ρ'_a = 0.9 -> ê'_a = 100/0.9 > T = 100 -> L = q_a = 4 > extra = 2: refused.
    result = run([STATIC_DONOR, (0, 10, 10, 2, NAN, NAN)], 4, strategy="STATIC", kappa=0.1)
    assert result["start"].tolist() == [0, 100]
    assert result["donor"].tolist() == [-1, -1]


@pytest.mark.parametrize(
    "capacity, guest_memory, pairs",
    [
        (1000, 500, False),  # 600 + 500 > 1000
        (1000, 400, True),  # 600 + 400 = 1000 fits
        (1000, NAN, False),  # unknown memory never shares when memory is on
        (None, 500, True),  # memory off: no test at all
        (None, NAN, True),
    ],
)
def test_memory_test(capacity, guest_memory, pairs):
    result = run([STATIC_DONOR, (0, 10, 10, 2, NAN, guest_memory)], 4, strategy="STATIC", memory_capacity=capacity)
    if pairs:
        assert result["end"].tolist() == [100, 20]
        assert result["donor"].tolist() == [-1, 0]
    else:
        assert result["start"].tolist() == [0, 100]
        assert result["end"].tolist() == [100, 110]
        assert result["donor"].tolist() == [-1, -1]


def test_pair_refused_when_it_would_delay_the_reservation():
    # Guest q=4 = m: T = 100, extra = 0.  e_b = 60: bound 60/0.5 = 120 > T -> L = q_b = 4 > 0: refused,
    # the job starts at 100.
    refused = run([STATIC_DONOR, (0, 60, 60, 4, NAN, NAN)], 4, strategy="STATIC")
    assert refused["start"].tolist() == [0, 100]
    assert refused["end"].tolist() == [100, 160]
    # e_b = 50: bound 100 is not > T -> L = 0, paired; the guest (rate 0.5) and the donor both end at 100:
    # the donor (smaller position) completes first and leaves its partner (c = 100) untouched.
    paired = run([STATIC_DONOR, (0, 50, 50, 4, NAN, NAN)], 4, strategy="STATIC")
    assert paired["start"].tolist() == [0, 0]
    assert paired["end"].tolist() == [100, 100]
    assert paired["donor"].tolist() == [-1, 0]


@pytest.mark.parametrize("kappa", [0.0, 0.2])
def test_guest_bound_end_uses_the_interference_factor(kappa):
    # m = 6: donor job 0 (q=2, W=e=50, u=.1) and job 1 (q=4, W=e=100) start at 0; head job 2 (q=6):
    # releases (50, 2), (100, 4) -> T = 100, extra 0.  Guest job 3 (q=2, W=e=45), donor job 0: ê_a = 50 <= T.
    # κ = 0: ρ'_a = 1, bound 45/.5 = 90 <= 100 -> L = 0, paired at rate .5; the donor ends at 50, the guest has
    #   R = 45 - 25 = 20 left and ends at 70.
    # κ = .2: ρ'_a = .8 -> ê'_a = 62.5 <= 100, but bound 45/(.8*.5) = 112.5 > 100 -> L = 2 > 0; job 1 as donor:
    #   ρ'_a = .4 -> ê'_a = 250 > 100 -> L = 4.  Job 3 backfills at 50 (50 + 45 <= 100) and ends at 95.
    jobs = [(0, 50, 50, 2, 0.1, NAN), (0, 100, 100, 4, 1.0, NAN), (0, 10, 10, 6, NAN, NAN), (0, 45, 45, 2, NAN, NAN)]
    result = run(jobs, 6, strategy="STATIC", kappa=kappa)
    assert result["end"][:3].tolist() == [50, 100, 110]
    if kappa == 0.0:
        assert result["donor"][3] == 0 and result["start"][3] == 0 and result["end"][3] == 70
    else:
        assert result["donor"][3] == -1 and result["start"][3] == 50 and result["end"][3] == 95


def test_a_pair_releases_its_guest_processors_at_the_later_estimated_end():
    # m = 6.  t=0: jobs 0 (q=4, W=e=100, u=.3) and 1 (q=2, W=e=110, u=.3) start; head job 2 (q=2, W=e=60):
    # T = 100, extra 2; donor job 0: ρ' = 1, bound 60/.5 = 120 > 100 -> L = 2 <= 2: paired, ê_b = 120.
    # t=1: head job 3 (q=4), free 0: releases (100, 4-2), (110, 2) job 1, (max(100, 120) = 120, 2)
    # -> T = 110, extra 0.  Job 4 (q=2, W=e=65) on donor job 1: ê_a = 110 <= T, ρ' = 1, bound 1 + 130 > 110
    # -> L = 2 > 0: refused.  (Releasing the pair's 2 at ê_a = 100 would give T = 100 and L = 0.)
    # t=100: donor 0 ends; guest job 2 has R = 60 - 50 = 10 -> ends 110; free 2; head job 3: T = 110,
    # extra 2 -> job 4 backfills by extra (100 + 65 > 110, q = 2 <= 2), ends 165.  t=110: job 3 starts.
    jobs = [
        (0, 100, 100, 4, 0.3, NAN),
        (0, 110, 110, 2, 0.3, NAN),
        (0, 60, 60, 2, NAN, NAN),
        (1, 10, 10, 4, NAN, NAN),
        (1, 65, 65, 2, NAN, NAN),
    ]
    result = run(jobs, 6, strategy="STATIC")
    assert result["start"].tolist() == [0, 0, 0, 110, 100]
    assert result["end"].tolist() == [100, 110, 110, 120, 165]
    assert result["donor"].tolist() == [-1, -1, 0, -1, -1]


def test_each_pair_spends_extra():
    # m = 4: donors jobs 0 and 1 (q=2, W=e=100, u=.1) start at 0; head job 2 (q=2, W=e=60): releases (100, 2) twice
    # -> T = 100, extra 2.  Job 2 on job 0: ρ' = 1, bound 120 > 100 -> L = 2 <= 2, paired, extra 0.  Job 3 (q=2,
    # W=e=60) on job 1: L = 2 > 0, refused.  t=100: both donors end; guest job 2 has R = 60 - 50 = 10 -> ends 110;
    # job 3 starts at 100 on the 2 idle processors, ends 160.
    donor = (0, 100, 100, 2, 0.1, NAN)
    jobs = [donor, donor, (0, 60, 60, 2, NAN, NAN), (0, 60, 60, 2, NAN, NAN)]
    result = run(jobs, 4, strategy="STATIC")
    assert result["start"].tolist() == [0, 0, 0, 100]
    assert result["end"].tolist() == [100, 100, 110, 160]
    assert result["donor"].tolist() == [-1, -1, 0, -1]


def test_candidate_donors_in_start_order_then_position():
    # m = 8.  t=0: job 0 (q=4, W=e=10) starts; head job 1 (q=6, W=e=100): T = 10, extra 2; job 2 (q=2, W=e=100)
    # backfills by extra.  t=10: job 1 starts.  t=20: guest job 3 (q=2, W=e=10), free 0, T = 100 (job 2).
    # Donors in (s_a, position) order: job 2 (s=0) before job 1 (s=10); job 2: ρ' = 1, ê' = 100 <= T,
    # bound 20 + 20 = 40 -> L = 0: job 2 hosts the guest, which ends at 40.
    jobs = [(0, 10, 10, 4, 1.0, NAN), (0, 100, 100, 6, 0.1, NAN), (0, 100, 100, 2, 0.1, NAN), (20, 10, 10, 2, NAN, NAN)]
    result = run(jobs, 8, strategy="STATIC")
    assert result["start"].tolist() == [0, 10, 0, 20]
    assert result["end"].tolist() == [10, 110, 100, 40]
    assert result["donor"].tolist() == [-1, -1, -1, 2]


# -------------------------------------------------------------- HEADROOM ---


@pytest.mark.parametrize(
    "donor_efficiency, levels, quota, guest_end",
    [
        (0.35, 10, 0.6, 10.0),  # largest k/10 <= 0.65 is 6/10; guest rate 0.6 -> 6/0.6 = 10
        (0.35, 4, 0.5, 12.0),  # largest k/4 <= 0.65 is 2/4; guest rate 0.5 -> 12
        (0.3, 10, 0.7, 6 / 0.7),  # 1 - 0.3 == 7/10 in float64: the level 0.7 counts
        (0.0, 10, 0.9, 6 / 0.9),  # all levels fit; the largest is 9/10
    ],
)
def test_headroom_takes_the_largest_level_within_one_minus_u(donor_efficiency, levels, quota, guest_end):
    # m = 4, donor q=4 W=e=100; guest q=2 W=e=6: T = 100, extra = 2, every level admissible (ρ'_a = 1, bound <= 100).
    jobs = [(0, 100, 100, 4, donor_efficiency, NAN), (0, 6, 6, 2, NAN, NAN)]
    result = run(jobs, 4, strategy="HEADROOM", levels=levels)
    assert result["donor"].tolist() == [-1, 0]
    assert result["quota"][1] == quota
    assert result["end"].tolist() == pytest.approx([100, guest_end], rel=1e-12)


def test_headroom_never_pairs_a_cpu_bound_donor():
    # u_a unknown reads as 1: 1 - u_a = 0 leaves no level; the guest waits for the donor.
    result = run([(0, 100, 100, 4, NAN, NAN), (0, 6, 6, 2, NAN, NAN)], 4, strategy="HEADROOM")
    assert result["start"].tolist() == [0, 100]
    assert result["donor"].tolist() == [-1, -1]


# --------------------------------------------------------------- learner ---


def test_leaf_distributions():
    assert leaf_distribution(0.0, 4) == [0.6, 0.3, 0.05, 0.05]  # the paper's (0.6, 0.3, 0.05, 0.05)
    assert leaf_distribution(0.75, 4) == [0.05, 0.05, 0.3, 0.6]  # k* = 3
    assert leaf_distribution(0.5, 4) == [0.1, 0.15, 0.6, 0.15]  # k* = 2: one "other" level
    assert leaf_distribution(0.0, 10) == [0.6, 0.3] + [0.1 / 8] * 8
    # K = 10, f* = 0.25: floor(2.5 + 1e-9) = 2
    assert leaf_distribution(0.25, 10) == [0.1 / 7, 0.15, 0.6, 0.15] + [0.1 / 7] * 6
    # K = 10, f* = 0.5: k* = 5; f* = 0.75: k* = 7
    assert leaf_distribution(0.5, 10) == [0.1 / 7] * 4 + [0.15, 0.6, 0.15] + [0.1 / 7] * 3
    assert leaf_distribution(0.75, 10) == [0.1 / 7] * 6 + [0.15, 0.6, 0.15, 0.1 / 7]
    for f_star in (0.0, 0.25, 0.5, 0.75):
        for levels in (4, 10):
            assert sum(leaf_distribution(f_star, levels)) == pytest.approx(1.0, abs=1e-15)


# The learner scenario, m = 6, K = 4.  Jobs 0 (q=2, W=e=100, u=1) and 1 (q=4, W=e=200, u=1) start at 0;
# head job 2 (q=6): releases (100, 2), (200, 4) -> T = 200, extra = 0.  Job 2 has no donor (q >= 6).
# Guest job 3 (q=2, W=e=10), donor job 0 first ((s, position) order):
#   f=.25: ρ' = .75, ê' = 133.3 <= 200, bound 40 -> L = 0;  f=.5: ρ' = .5, ê' = 200 <= 200 -> L = 0;
#   f=.75: ρ' = .25, ê' = 400 > 200 -> L = q_a = 2 > 0.  Kept levels {0, 1, 2}.
# State: cpu 1 (high), mem 0 (low), type 1*2 = 2 >= 1.5 (parallel), phase 0 (early), Hp = 100/100 = 1 (H1).
# f* = CPU 0, MEM .5, TYPE .25, PHASE .25 -> k* = 0, 2, 1, 1; leaves (K=4):
#   CPU (.6, .3, .05, .05), MEM (.1, .15, .6, .15), TYPE = PHASE (.15, .6, .15, .1).
# Fresh α = 1/4: p = (.25, .4125, .2375, .1); Z = .9, C = .25, .6625, .9:
#   u < .25/.9 = .2778 -> k=0;  u < .6625/.9 = .7361 -> k=1;  else k=2.
# k=0: donor job 1 has no admissible level (ê' >= 266.7 > 200, L = 4): no case; job 3 backfills at 100.
# k=1: guest rate .25 ends 40; donor at .75 until 40 (R = 70) ends 110.  ℓ = 2(1/.75 - 1) = 2/3.
# k=2: guest rate .5 ends 20; donor at .5 until 20 (R = 90) ends 110.  ℓ = min(1, 2(2 - 1)) = 1.
LEARNER_JOBS = [
    (0, 100, 100, 2, 1.0, NAN),
    (0, 200, 200, 4, 1.0, NAN),
    (0, 10, 10, 6, NAN, NAN),
    (0, 10, 10, 2, NAN, NAN),
]
# First draw of PCG64(seed) for seeds 0..11: .637 .512 .262 .086 .943 .805 .538 .625 .327 .870 .956 .129
FRESH_CHOICES = [1, 1, 0, 0, 2, 2, 1, 1, 1, 2, 2, 0]
LEAF_AT_LEVEL = {1: (0.3, 0.15, 0.6, 0.6), 2: (0.05, 0.6, 0.15, 0.15)}  # p_i[k] in expert order
LOSS_AT_LEVEL = {0: 0.0, 1: 2 / 3, 2: 1.0}
GUEST_END_AT_LEVEL = {0: 110.0, 1: 40.0, 2: 20.0}


@pytest.mark.parametrize("seed", range(12))
def test_asax_case_by_hand(seed):
    chosen = FRESH_CHOICES[seed]
    result = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed)
    learner = result["learner"]
    assert learner["cases"] == 1
    assert learner["histogram"] == [int(chosen == k) for k in range(4)]
    assert learner["loss_sum"] == pytest.approx(LOSS_AT_LEVEL[chosen], rel=1e-12)
    assert learner["alphas"] == []
    expected_risk = [p * LOSS_AT_LEVEL[chosen] for p in LEAF_AT_LEVEL[chosen]] if chosen else [0.0] * 4
    assert learner["state"]["risk"] == pytest.approx(expected_risk, rel=1e-12)
    assert learner["state"]["alpha"] == [0.25] * 4 and learner["state"]["round"] == 1
    assert result["end"][3] == pytest.approx(GUEST_END_AT_LEVEL[chosen], rel=1e-12)
    assert result["start"][2] == 200 and result["end"][1] == 200
    if chosen:
        assert result["donor"].tolist() == [-1, -1, -1, 0]
        assert result["quota"][3] == chosen / 4
        assert result["end"][0] == pytest.approx(110.0, rel=1e-12)
    else:
        assert result["donor"].tolist() == [-1, -1, -1, -1]
        assert result["start"][3] == 100 and result["end"][0] == 100


def test_asax_walltime_loss_by_hand():
    # Seed 0 picks k=1: (0 - 0) + 100/.75 - 100 = 33.3 -> ℓ = 1/3.  Seed 4 picks k=2: 100/.5 - 100 = 100 -> 1.
    assert run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=0, loss="walltime")["learner"][
        "loss_sum"
    ] == pytest.approx(1 / 3, rel=1e-12)
    assert run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=4, loss="walltime")["learner"]["loss_sum"] == 1.0


def normalised(weights):
    total = sum(weights)
    return [w / total for w in weights]


@pytest.mark.parametrize("seed", range(12))
def test_hedge_round_by_hand(seed):
    # Start from risks 0.9: k=1 gives r = .9 + (.3, .15, .6, .6)*2/3 = (1.1, 1.0, 1.3, 1.3);
    # k=2 gives r = .9 + (.05, .6, .15, .15) = (.95, 1.5, 1.05, 1.05); both exceed 1 -> one round at τ = 1:
    # α_i ∝ exp(-γ r_i), γ = sqrt(2 ln 4).  k=0 adds nothing: no round.  (The pick uses α = 1/4.)
    chosen = FRESH_CHOICES[seed]
    start_state = {"alpha": [0.25] * 4, "risk": [0.9] * 4, "round": 1}
    learner = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed, learner_state=start_state)["learner"]
    assert start_state["risk"] == [0.9] * 4  # the caller's dict is not modified
    if chosen == 0:
        assert learner["alphas"] == []
        assert learner["state"] == start_state
        return
    risks = {1: (1.1, 1.0, 1.3, 1.3), 2: (0.95, 1.5, 1.05, 1.05)}[chosen]
    expected = normalised([0.25 * math.exp(-GAMMA_ROUND_1 * r) for r in risks])
    assert len(learner["alphas"]) == 1
    assert learner["alphas"][0] == pytest.approx(expected, rel=1e-12)
    assert learner["state"] == {"alpha": learner["alphas"][0], "risk": [0.0] * 4, "round": 2}


def test_hedge_round_forced_by_a_carried_risk():
    # m = 4, donor u = 0.1 (ρ' = 1 at every level, so ℓ = 0); a carried risk of 1.5 triggers the round anyway.
    # τ = 1: γ = 1.66511; exp(-1.5γ) = 0.082277 -> α = (0.0266936, 0.3244355, 0.3244355, 0.3244355).
    jobs = [(0, 100, 100, 4, 0.1, NAN), (0, 10, 10, 2, NAN, NAN)]
    state = {"alpha": [0.25] * 4, "risk": [1.5, 0.0, 0.0, 0.0], "round": 1}
    learner = run(jobs, 4, strategy="ASAX", levels=4, learner_state=state)["learner"]
    assert learner["cases"] == 1 and learner["loss_sum"] == 0.0
    assert learner["alphas"][0] == pytest.approx([0.0266936, 0.3244355, 0.3244355, 0.3244355], abs=1e-7)
    assert learner["state"]["round"] == 2 and learner["state"]["risk"] == [0.0] * 4
    # At round 3: γ = sqrt(2 ln 4 / 3) = 0.961351.
    state["round"] = 3
    learner = run(jobs, 4, strategy="ASAX", levels=4, learner_state=state)["learner"]
    expected = normalised([0.25 * math.exp(-0.9613512577339219 * 1.5), 0.25, 0.25, 0.25])
    assert learner["alphas"][0] == pytest.approx(expected, rel=1e-12)
    assert learner["state"]["round"] == 4


# A late donor, m = 2, K = 4: job 0 (q=2, W=90, e=100, u=.1) starts at 0; job 1 (q=2, W=e=10) comes at 80:
# free 0, head job 1, T = 100, extra 0.  ρ' = 1 -> ê' = 100; bound 80 + 10/f: 120 for .25 (L = 2), 100 for .5,
# 93.3 for .75 -> kept {0, 2, 3}.  State at 80: cpu .1 low, mem low, type .2 sequential, phase .8 late,
# R(80) = 90 - 80 = 10, Hp = (100 - 80)/10 = 2 (H2) -> f* = .75 for all four experts, k* = 3,
# p = (.05, .05, .3, .6); kept p̃ = (.05, .3, .6), Z = .95: u < .05/.95 -> 0, u < .35/.95 -> 2, else 3.
# k=2: guest at .5 until the donor ends at 90 (R = 5 left) -> ends 95; k=3: at .75 until 90 (R = 2.5) -> 92.5;
# k=0: job 1 starts at 90, ends 100.
LATE_JOBS = [(0, 90, 100, 2, 0.1, NAN), (80, 10, 10, 2, NAN, NAN)]
LATE_GUEST_END = {0: 100.0, 2: 95.0, 3: 92.5}


def test_asax_state_of_a_late_donor():
    seen = set()
    for seed in range(40):
        draw = first_draws(seed, 1)[0]
        chosen = 0 if draw * 0.95 < 0.05 else 2 if draw * 0.95 < 0.35 else 3
        seen.add(chosen)
        result = run(LATE_JOBS, 2, strategy="ASAX", levels=4, seed=seed)
        assert result["learner"]["histogram"] == [int(chosen == k) for k in range(4)]
        assert result["end"].tolist() == pytest.approx([90, LATE_GUEST_END[chosen]], rel=1e-12)
        assert result["donor"][1] == (0 if chosen else -1)
    assert seen == {0, 2, 3}


# Hp exactly at the H1 bound, m = 2, K = 4: job 0 (q=2, W=98, e=100, u=.1), job 1 (q=2, W=e=10) comes at 78:
# T = 100, extra 0; bound 78 + 10/f: 118 for .25 (L = 2), 98 and 91.3 -> kept {0, 2, 3}.  R(78) = 20,
# Hp = (100 - 78)/20 = 1.1 (H1, bound included), phase .78 late -> f* = .5 for all experts, k* = 2,
# p = (.1, .15, .6, .15); p̃ = (.1, .6, .15), Z = .85: u < .1/.85 -> 0, u < .7/.85 -> 2, else 3.
# k=2: guest at .5 ends 78 + 20 = 98 with the donor; k=3: guest ends 78 + 10/.75; k=0: job 1 runs 98..108.
H1_BOUND_JOBS = [(0, 98, 100, 2, 0.1, NAN), (78, 10, 10, 2, NAN, NAN)]
H1_BOUND_GUEST_END = {0: 108.0, 2: 98.0, 3: 78 + 10 / 0.75}


def test_asax_happiness_at_the_h1_bound():
    seen = set()
    for seed in range(40):
        draw = first_draws(seed, 1)[0]
        chosen = 0 if draw * 0.85 < 0.1 else 2 if draw * 0.85 < 0.7 else 3
        seen.add(chosen)
        result = run(H1_BOUND_JOBS, 2, strategy="ASAX", levels=4, seed=seed)
        assert result["learner"]["histogram"] == [int(chosen == k) for k in range(4)]
        assert result["end"].tolist() == pytest.approx([98, H1_BOUND_GUEST_END[chosen]], rel=1e-12)
    assert seen == {0, 2, 3}


# Two donors A (job 0) and B (job 1), q=4, W=e=100, u=.1, m = 8; head job 2 (q=8): T = 100, extra 0.
# Guests jobs 3 and 4 (q=2, W=e=10).  Every level is admissible (ρ' = 1, ê' = 100, bound <= 40).
# State of A and B: cpu .1 low, mem low, type .4 sequential, phase early, Hp 1 (H1) -> f* = .5, .5, .5, .25,
# k* = 2, 2, 2, 1 -> p = (.1125, .2625, .4875, .1375), Z = 1:
#   u < .1125 -> 0, < .375 -> 1, < .8625 -> 2, else 3.
def two_donor_jobs():
    donor = (0, 100, 100, 4, 0.1, NAN)
    guest = (0, 10, 10, 2, NAN, NAN)
    return [donor, donor, (0, 10, 10, 8, NAN, NAN), guest, guest]


@pytest.mark.parametrize(
    "seed, donors, quotas, histogram",
    [
        # draws .637 (job 3 on A: k=2), .270 (job 4 on B: k=1)
        (0, [0, 1], [0.5, 0.25], [0, 1, 1, 0]),
        # draws .512 (k=2 on A), .950 (k=3 on B)
        (1, [0, 1], [0.5, 0.75], [0, 0, 1, 1]),
        # draws .086 (k=0 on A: next donor), .237 (job 3 on B: k=1), .801 (job 4 on A: k=2)
        (3, [1, 0], [0.25, 0.5], [1, 1, 1, 0]),
    ],
)
def test_one_draw_per_case_in_case_order(seed, donors, quotas, histogram):
    result = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=seed)
    assert result["donor"].tolist() == [-1, -1, -1] + donors
    assert result["quota"][3:].tolist() == quotas
    assert result["learner"]["histogram"] == histogram
    assert result["learner"]["cases"] == sum(histogram)
    # the donors keep rate 1: they end at 100; the guests run at rate f (u unknown = 1)
    assert result["end"][:3].tolist() == [100, 100, 110]
    assert result["end"][3:].tolist() == pytest.approx([10 / q for q in quotas], rel=1e-12)


def two_donor_level(draw):
    return 0 if draw < 0.1125 else 1 if draw < 0.375 else 2 if draw < 0.8625 else 3


@pytest.mark.parametrize("seed", range(30))
def test_two_donor_choices_follow_the_thresholds(seed):
    # At t = 0 job 3 tries A then B; job 4 tries the donors still free, A first; one draw per case.
    draws = iter(first_draws(seed, 4))
    free_donors = [0, 1]
    expected_donor, expected_quota = [-1, -1], [NAN, NAN]
    for slot in range(2):
        for a in list(free_donors):
            level = two_donor_level(next(draws))
            if level:
                expected_donor[slot], expected_quota[slot] = a, level / 4
                free_donors.remove(a)
                break
    result = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=seed)
    # only the decisions at t = 0 follow from these draws; a job left waiting is retried at later passes
    for slot, job in enumerate((3, 4)):
        if expected_donor[slot] >= 0:
            assert result["start"][job] == 0
            assert result["donor"][job] == expected_donor[slot] and result["quota"][job] == expected_quota[slot]
        else:
            assert result["start"][job] > 0


# With α = (1, 0, 0, 0) only the CPU expert counts: p = (.6, .3, .05, .05); kept {0, 1, 2}: Z = .95,
#   u < .6/.95 = .6316 -> 0, u < .9/.95 = .9474 -> 1, else 2.
CPU_ONLY_CHOICES = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 2, 0]


def test_per_donor_scope_starts_every_donor_fresh():
    carried = {"alpha": [1.0, 0.0, 0.0, 0.0], "risk": [0.0] * 4, "round": 1}
    differing = 0
    for seed in range(12):
        shared = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed, learner_state=carried)
        per_donor = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed, learner_state=carried, scope="per-donor")
        assert shared["learner"]["histogram"].index(1) == CPU_ONLY_CHOICES[seed]
        assert per_donor["learner"]["histogram"].index(1) == FRESH_CHOICES[seed]  # the carried α is not used
        assert per_donor["learner"]["alphas"] == []
        assert per_donor["learner"]["state"] == carried
        differing += CPU_ONLY_CHOICES[seed] != FRESH_CHOICES[seed]
    assert differing == 7


def test_per_donor_learners_are_separate():
    # Two donors in the same pass, per-donor scope: both cases use α = 1/4 and a forced round is impossible,
    # so the choices equal the shared scope's (one draw per case either way).
    for seed in (0, 1, 3):
        shared = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=seed)
        per_donor = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=seed, scope="per-donor")
        assert per_donor["donor"].tolist() == shared["donor"].tolist()
        assert per_donor["quota"][3:].tolist() == shared["quota"][3:].tolist()
    # A carried risk of 1.5 forces a round in shared scope only.
    state = {"alpha": [0.25] * 4, "risk": [1.5, 0.0, 0.0, 0.0], "round": 1}
    shared = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=0, learner_state=state)
    per_donor = run(two_donor_jobs(), 8, strategy="ASAX", levels=4, seed=0, learner_state=state, scope="per-donor")
    assert len(shared["learner"]["alphas"]) == 1 and shared["learner"]["state"]["round"] == 2
    assert per_donor["learner"]["alphas"] == [] and per_donor["learner"]["state"] == state


def test_a_donor_without_an_admissible_level_costs_no_draw():
    # The learner scenario with seed 2 (first draw .262 -> k=0 on job 0): job 1 then has no admissible
    # level, so only one case is counted and the generator is not advanced for it.
    assert run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=2)["learner"]["cases"] == 1


# ------------------------------------------------------- random invariants ---

EFFICIENCIES = (NAN, 0.0, 0.05, 0.3, 0.5, 0.8, 1.0, None)  # None: a uniform draw
MEMORIES = (NAN, 100.0, 300.0, 500.0, 700.0)
GAPS = (0, 0, 0, 1, 2, 5, 0.5, 0.1, 7.7, 30)
ESTIMATES = (1, 2, 5, 10, 20, 50, 100, 7.5)
WORK_FRACTIONS = (1.0, 1.0, 0.5, 0.9, 0.1, 0.33)


def random_case(rng):
    n = int(rng.integers(2, 9))
    m = int(rng.choice([1, 2, 3, 4, 6, 8]))
    jobs = []
    submit = 0.0
    for i in range(n):
        if i:
            submit += float(rng.choice(GAPS))
        estimate = float(rng.choice(ESTIMATES))
        work = float(rng.choice(WORK_FRACTIONS)) * estimate
        efficiency = EFFICIENCIES[int(rng.integers(len(EFFICIENCIES)))]
        efficiency = float(rng.random()) if efficiency is None else efficiency
        memory = MEMORIES[int(rng.integers(len(MEMORIES)))]
        jobs.append((submit, work, estimate, int(rng.integers(1, m + 1)), efficiency, memory))
    options = dict(
        levels=int(rng.choice([4, 10])),
        kappa=float(rng.choice([0.0, 0.0, 0.1, 0.2])),
        memory_capacity=[None, 1000.0][int(rng.integers(2))],
        loss=["degradation", "walltime"][int(rng.integers(2))],
        scope=["shared", "per-donor"][int(rng.integers(2))],
        seed=int(rng.integers(1000)),
    )
    return jobs, m, options


def paired_rate(share, efficiency, kappa):
    u = 1.0 if math.isnan(efficiency) else efficiency
    return (1.0 - kappa) * (1.0 if u == 0.0 else min(1.0, share / u))


def check_processors(jobs, m, start, end, donor):
    """Replay the schedule on processor ids: an exclusive start takes idle processors, a guest takes
    processors of its donor, which must hold the donor alone; ends before starts at an instant."""
    n = len(jobs)
    procs = [job[3] for job in jobs]
    holders = [set() for _ in range(m)]
    held = {}
    for x in sorted(set(start) | set(end)):
        for j in range(n):
            if end[j] == x:
                for p in held.pop(j):
                    holders[p].discard(j)
        starting = [j for j in range(n) if start[j] == x]
        for j in sorted(starting, key=lambda j: (donor[j] >= 0, j)):  # the pass starts guests last
            a = donor[j]
            if a < 0:
                idle = [p for p in range(m) if not holders[p]]
                assert len(idle) >= procs[j], "over-committed"
                taken = idle[: procs[j]]
            else:
                assert a in held, "a guest's donor must be running"
                assert procs[j] <= procs[a]
                assert all(holders[p] == {a} for p in held[a]), "a donor hosts one guest and is not a guest"
                taken = held[a][: procs[j]]
            for p in taken:
                holders[p].add(j)
            held[j] = taken
        assert max(len(h) for h in holders) <= 2
        # the count of processors holding >= 1 job, from the schedule alone
        in_use = 0
        for j in held:
            if donor[j] < 0 or donor[j] not in held:
                in_use += procs[j]
        assert in_use == sum(1 for h in holders if h) <= m
    assert not held


def check_work(jobs, start, end, donor, quota, kappa):
    n = len(jobs)
    for j in range(n):
        work, efficiency = jobs[j][1], jobs[j][4]
        done = end[j] - start[j]
        if donor[j] >= 0:
            overlap = min(end[donor[j]], end[j]) - start[j]
            done -= overlap * (1.0 - paired_rate(quota[j], efficiency, kappa))
        for b in range(n):
            if donor[b] == j:
                overlap = min(end[j], end[b]) - start[b]
                done -= overlap * (1.0 - paired_rate(1.0 - quota[b], efficiency, kappa))
        assert done == pytest.approx(work, rel=1e-9, abs=1e-9)


def check_run(jobs, m, options, strategy, result):
    n = len(jobs)
    start, end = result["start"].tolist(), result["end"].tolist()
    donor, quota = result["donor"].tolist(), result["quota"].tolist()
    kappa, levels, capacity = options["kappa"], options["levels"], options["memory_capacity"]
    for j in range(n):
        assert start[j] >= jobs[j][0] and end[j] >= start[j]
        a = donor[j]
        if a < 0:
            assert math.isnan(quota[j])
            continue
        assert 0.0 < quota[j] < 1.0 and start[a] <= start[j] < end[a]
        if capacity is not None:
            assert jobs[a][5] + jobs[j][5] <= capacity
        if strategy == "STATIC":
            assert quota[j] == 0.5
        else:
            k = round(quota[j] * levels)
            assert quota[j] == k / levels and 1 <= k < levels
        if strategy == "HEADROOM":
            u_a = 1.0 if math.isnan(jobs[a][4]) else jobs[a][4]
            assert quota[j] <= 1.0 - u_a
    check_processors(jobs, m, start, end, donor)
    check_work(jobs, start, end, donor, quota, kappa)
    learner = result["learner"]
    assert sum(learner["histogram"]) == learner["cases"]
    if strategy != "ASAX":
        assert learner["cases"] == 0 and learner["alphas"] == []
    if options["scope"] == "per-donor":
        assert learner["alphas"] == []
    for alpha in learner["alphas"]:
        assert sum(alpha) == pytest.approx(1.0, abs=1e-12)
    if strategy == "HEADROOM" and kappa == 0.0:
        # every donor keeps rate 1
        for a in set(donor) - {-1}:
            assert end[a] - start[a] == pytest.approx(jobs[a][1], rel=1e-12)


def test_random_workloads_keep_the_invariants():
    rng = np.random.default_rng(20240611)
    guests = {"STATIC": 0, "ASAX": 0, "HEADROOM": 0}
    for _ in range(300):
        jobs, m, options = random_case(rng)
        for strategy in ("SPACE", "STATIC", "ASAX", "HEADROOM"):
            result = run(jobs, m, strategy=strategy, **options)
            check_run(jobs, m, options, strategy, result)
            if strategy == "SPACE":
                assert (result["donor"] == -1).all()
                submit, work, estimate, procs = ([job[c] for job in jobs] for c in range(4))
                easy = reference_simulate(submit, work, estimate, procs, [0] * len(jobs), m)
                assert result["start"].tolist() == easy["start"]
                assert result["end"].tolist() == easy["end"]
            else:
                guests[strategy] += int((result["donor"] >= 0).sum())
            if strategy == "ASAX":
                again = run(jobs, m, strategy=strategy, **options)
                assert again["start"].tolist() == result["start"].tolist()
                assert again["learner"] == result["learner"]
    # the random workloads do exercise sharing
    assert min(guests.values()) > 20, guests


# ------------------------------------------------------------ dynamic quotas ---

# m = 3, K = 4, memory off. Donor job 0 (q=2, W=e=100, u=.2) and job 1 (q=1, W=e=200: too narrow to host) start
# at 0; guest job 2 (q=2, W=e=50) is the head: T = 100 (job 0 releases 2), extra 0. Donor rate 1 at every level:
# f=.25: guest bound 200 > T -> L = 2, refused; f=.5 (bound 100) and f=.75 kept: levels {0, 2, 3}.
# Donor state: cpu low, mem low, sequential (.4 < 1.5), phase early, Hp = 100/100 = 1 (H1): f* = .5, .5, .5,
# .25 -> leaves (.1, .15, .6, .15) x3 and (.15, .6, .15, .1): p = (.1125, .2625, .4875, .1375).
# Every loss is 0 (the donor keeps rate 1): α stays 1/4.
# Job 3 (q=3, W=e=1) comes at 30: a pass with T = 200 (job 1), extra 0. The donor's phase is now .3 (middle),
# Hp = 70/70 = 1 (H1): its state bins changed, so the pair is a case again over levels 1..3, every one of
# cost 0 (the pair's end stays <= 200); the leaves are the same (PHASE middle at H1 is .25 too). (A guest that
# did not pair at 0 is a new case at 30, not a re-decision.)
DYNAMIC_JOBS = [
    (0, 100, 100, 2, 0.2, NAN),
    (0, 200, 200, 1, 1.0, NAN),
    (0, 50, 50, 2, 1.0, NAN),
    (30, 1, 1, 3, 1.0, NAN),
]
MIXED = (0.1125, 0.2625, 0.4875, 0.1375)


def picked(draw, kept):
    total = sum(MIXED[k] for k in kept)
    cumulative = 0.0
    for k in kept:
        cumulative += MIXED[k]
        if draw * total < cumulative:
            return k
    return kept[-1]


def guest_end(first, second):
    """Job 2's end: at rate f/1 from 0, at the re-decided f' from 30, alone at rate 1 once the donor ends at 100."""
    left = 50 - (first / 4) * 30  # work left at 30
    end = 30 + left / (second / 4)
    if end <= 100:
        return end
    return 100 + (left - (second / 4) * 70)


@pytest.mark.parametrize("seed", range(12))
def test_a_dynamic_quota_is_re_decided_when_the_donors_state_bins_change(seed):
    first_draw, second_draw = first_draws(seed, 2)
    first = picked(first_draw, [0, 2, 3])
    second = picked(second_draw, [1, 2, 3]) if first else None
    result = run(DYNAMIC_JOBS, 3, strategy="ASAX", levels=4, seed=seed, quotas="dynamic")
    learner = result["learner"]
    fixed = run(DYNAMIC_JOBS, 3, strategy="ASAX", levels=4, seed=seed)
    assert fixed["learner"]["redecisions"] == 0
    if first == 0:  # no pair formed at 0: nothing to re-decide
        assert learner["redecisions"] == 0
        return
    assert learner["cases"] == 2 and fixed["learner"]["cases"] == 1
    assert learner["redecisions"] == 1
    assert learner["quota_changes"] == (1 if second != first else 0)
    assert learner["histogram"] == [int(k == first) + int(k == second) for k in range(4)]
    assert result["end"][2] == pytest.approx(guest_end(first, second), rel=1e-12)
    assert result["quota"][2] == first / 4  # the level the pair formed with
    assert result["start"][3] == 200 and result["end"][0] == 100
    assert fixed["end"][2] == pytest.approx(guest_end(first, first), rel=1e-12)


def test_the_seeds_cover_every_dynamic_outcome():
    outcomes = set()
    for seed in range(12):
        first_draw, second_draw = first_draws(seed, 2)
        first = picked(first_draw, [0, 2, 3])
        outcomes.add((first, picked(second_draw, [1, 2, 3]) if first else None))
    assert {first for first, _ in outcomes} == {0, 2, 3}
    assert {second for _, second in outcomes if second} == {1, 2, 3}
    assert any(first and second != first for first, second in outcomes)


# ----------------------------------------------------- feedback at completion ---


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("loss", ["degradation", "walltime"])
def test_feedback_at_completion_charges_the_observed_loss_when_the_pair_ends(seed, loss):
    # LEARNER_JOBS: the pair's rates never change, so the slowdown observed when the guest ends (40 or 20) is the
    # one predicted at the decision: the same loss and risks, charged at the pair's end instead of at 0.
    at_decision = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed, loss=loss)
    at_completion = run(LEARNER_JOBS, 6, strategy="ASAX", levels=4, seed=seed, loss=loss, feedback="completion")
    assert at_completion["end"].tolist() == at_decision["end"].tolist()
    for key in ("cases", "histogram"):
        assert at_completion["learner"][key] == at_decision["learner"][key]
    assert at_completion["learner"]["loss_sum"] == pytest.approx(at_decision["learner"]["loss_sum"], rel=1e-12)
    assert at_completion["learner"]["state"]["risk"] == pytest.approx(
        at_decision["learner"]["state"]["risk"], rel=1e-12, abs=1e-15
    )


def test_feedback_at_completion_sees_a_re_decided_quota():
    # DYNAMIC_JOBS, seed with first level 2 and second 1: the level-2 decision is charged at 30 with the
    # donor's slowdown over [0, 30] (rate 1: loss 0), the level-1 one when the donor ends at 100 (rate 1: 0).
    for seed in range(12):
        first_draw, second_draw = first_draws(seed, 2)
        if picked(first_draw, [0, 2, 3]) == 2 and picked(second_draw, [1, 2, 3]) == 1:
            break
    result = run(DYNAMIC_JOBS, 3, strategy="ASAX", levels=4, seed=seed, quotas="dynamic", feedback="completion")
    assert result["learner"]["cases"] == 2 and result["learner"]["loss_sum"] == 0.0
    assert result["learner"]["quota_changes"] == 1
    assert result["end"][2] == pytest.approx(guest_end(2, 1), rel=1e-12)


# ----------------------------------------------------------- pressure interference ---


def test_pressure_interference_by_hand():
    # m = 6, M = 1000, κ = 0.4, STATIC: donor job 0 (q=4, W=100, e=200, u=.8, mem 300) and job 1 (q=2, W=e=50)
    # start at 0; guest job 2 (q=2, W=9, e=50, u=.3, mem 200) is the head: T = 50, extra 0; ê_a = 200 > T: L = 0.
    # Pressure p = (300 + 200)/1000 = .5; the guest uses min(.5, .3) = .3: κ_ab = .4 x .5 x .3 = .06.
    # Donor ρ = .94 x min(1, .5/.8) = .5875; guest ρ = .94 x min(1, .5/.3) = .94 -> ends 9/.94.
    # The donor then runs alone: R = 100 - .5875 x 9/.94, ends 9/.94 + R.
    jobs = [(0, 100, 200, 4, 0.8, 300), (0, 50, 50, 2, 1.0, 300), (0, 9, 50, 2, 0.3, 200)]
    result = run(jobs, 6, strategy="STATIC", kappa=0.4, memory_capacity=1000, interference="pressure")
    guest_end = 9 / 0.94
    assert result["end"][2] == pytest.approx(guest_end, rel=1e-12)
    assert result["end"][0] == pytest.approx(guest_end + 100 - 0.5875 * guest_end, rel=1e-12)
    constant = run(jobs, 6, strategy="STATIC", kappa=0.4, memory_capacity=1000)
    assert constant["end"][2] == pytest.approx(9 / 0.6, rel=1e-12)  # κ = .4 for every pair: ρ = .6 x 1
    # the allocations: the donor 2 x 1 + 2 x .5 until the guest ends, then 4; the guest 2 x .5 while paired
    assert result["allocated"][2] == pytest.approx(guest_end, rel=1e-12)
    assert result["allocated"][0] == pytest.approx(3 * guest_end + 4 * (result["end"][0] - guest_end), rel=1e-12)


# ------------------------------------------------------------- several guests ---


@pytest.mark.parametrize("guests, ends", [(1, [100, 40, 80]), (2, [100, 40, 40])])
def test_a_donor_hosts_up_to_its_guests_on_disjoint_processors(guests, ends):
    # m = 4, STATIC: donor job 0 (q=4, W=e=100, u=.3: rate 1 at f=.5) runs; jobs 1 and 2 (q=2, W=e=20) wait, the
    # head's T = 100 with extra 2; each guest's bound 0 + 20/.5 = 40 <= T: L = 0. With one guest a donor, job 2
    # waits until job 1 ends at 40, then pairs (bound 80 <= 100) and ends at 80; with two, both pair at 0 on their
    # own 2 processors and end at 40. Allocations: the donor 2 x .5 per guest on the shared processors.
    jobs = [(0, 100, 100, 4, 0.3, NAN), (0, 20, 20, 2, 1.0, NAN), (0, 20, 20, 2, 1.0, NAN)]
    result = run(jobs, 4, strategy="STATIC", guests=guests)
    assert result["end"].tolist() == ends
    assert result["donor"].tolist() == [-1, 0, 0]
    assert result["busy_area"] == 400.0
    if guests == 2:
        assert result["allocated"].tolist() == [2 * 40 + 4 * 60, 40.0, 40.0]
    else:  # one guest at a time: 4 - 2 + 2 x .5 = 3 while paired ([0, 40] and [40, 80])
        assert result["allocated"].tolist() == [3 * 80 + 4 * 20, 40.0, 40.0]
    assert sum(result["allocated"]) == result["busy_area"]
