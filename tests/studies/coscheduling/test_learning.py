"""The ASAX learner learns (docs/coscheduling.md §5.7): on synthetic problems with one clearly best
expert, the Hedge weights converge to it and the excess risk stays within the paper's Theorem 1.

Problem 1, "do not pair" is right: 20 CPU-bound donors (u = 0.9, one processor, estimates 5 % above
their work, so the happiness Hp stays in H1 and the phase early while the guests come) and a stream
of short one-processor guests. At H1 the experts suggest f* = 0 (CPU: high), 0.5 (MEM: low, memory
off), 0.5 (TYPE: sequential) and 0.25 (PHASE: early). With u_a = 0.9 a quota f slows the donor to
min(1, (1 - f)/0.9): the degradation loss is 0 at f <= 0.1, 0.25 at 0.2, 0.57 at 0.3 and 1 from
0.4 on. The paper's risk charges each expert its probability of the level chosen times the loss, so
the CPU expert, whose preferred levels (0.6 on "do not pair", 0.3 on f = 0.1) cost nothing, is the
one to follow.

Problem 2, a sharing level is right: K = 4 levels (0, .25, .5, .75), memory on with M = 100 KB per
processor, κ = 0. 20 donors of 4 processors, u_a = 0.7 (CPU mid; u_a·q_a = 2.8: TYPE parallel), 80
KB per processor (MEM high: 0.8 M), estimates twice their work, so that while the guests come (every
guest pairs on arrival, within the first 0.15 % of the donors' runs) Hp = 2 (H2) and the phase is
early. The guests take one processor and 10 KB (they fit beside a donor). At H2 the experts suggest
f* = .50 (CPU mid), .25 (MEM high), .50 (TYPE parallel) and .50 (PHASE early). The donor's rate
min(1, (1 - f)/0.7) is 1 at f = .25 (free), 0.71 at .50 (loss 0.8) and 0.36 at .75 (loss 1): only
MEM prefers the free sharing level, and it puts 0.15 and 0.1 on the costly ones where the others put
0.6 and 0.15. (u_a = 0.7 rather than 0.75 keeps the donor off the CPU bins' edge at 0.75 and f = .25
free by a margin, not by an equality.)

The same runs with the update switched off (``learn=False``: the weights stay at 1/4) must fail the
checks, or the checks would prove nothing; and with donors that no level slows (u_a = 0.2) no risk
is ever charged, no round closes and nothing is learnt.
"""

import math

import numpy as np
import pytest

from simcore.engine.workload import Workload
from simcore.studies.coscheduling.sharing import CASE_COLUMNS, EXPERTS, SharingSettings, simulate_sharing

DONORS = 20
GUESTS = 3000
EXPERT_COUNT = len(EXPERTS)
SEED = 3

# problem 2: the free sharing level
SHARING_LEVELS = 4
SHARING_DONOR_PROCS = 4
SHARING_DONOR_EFFICIENCY = 0.7
MEMORY_CAPACITY = 100.0  # KB per processor
FREE_LEVEL = 1  # f = 0.25


def best_expert_workload() -> Workload:
    donors_submit = np.zeros(DONORS)
    guests_submit = 1.0 + np.arange(GUESTS, dtype=float)
    work = np.concatenate([np.full(DONORS, 1e6), np.full(GUESTS, 10.0)])
    # distinct donor estimates: only the first donor ends at the reservation's shadow time
    estimate = np.concatenate([1.05e6 + np.arange(DONORS), np.full(GUESTS, 20.0)])
    efficiency = np.concatenate([np.full(DONORS, 0.9), np.full(GUESTS, 0.5)])
    return Workload.from_arrays(
        np.concatenate([donors_submit, guests_submit]),
        work,
        estimate,
        np.ones(DONORS + GUESTS, dtype=int),
        DONORS,
        efficiency=efficiency,
    )


def sharing_level_workload(donor_efficiency: float = SHARING_DONOR_EFFICIENCY) -> Workload:
    """Problem 2: the donors fill the machine, so every guest runs paired or not at all."""
    submit = np.concatenate([np.zeros(DONORS), 1.0 + np.arange(GUESTS, dtype=float)])
    work = np.concatenate([np.full(DONORS, 1e6), np.full(GUESTS, 10.0)])
    # estimates twice the work: Hp = 2 (H2) at the start; distinct, as in problem 1
    estimate = np.concatenate([2e6 + np.arange(DONORS), np.full(GUESTS, 20.0)])
    procs = np.concatenate([np.full(DONORS, SHARING_DONOR_PROCS), np.ones(GUESTS)]).astype(int)
    efficiency = np.concatenate([np.full(DONORS, donor_efficiency), np.full(GUESTS, 0.5)])
    memory = np.concatenate([np.full(DONORS, 0.8 * MEMORY_CAPACITY), np.full(GUESTS, 0.1 * MEMORY_CAPACITY)])
    return Workload.from_arrays(
        submit, work, estimate, procs, DONORS * SHARING_DONOR_PROCS, efficiency=efficiency, memory=memory
    )


def theorem_1_bound(rounds: int) -> float:
    """γ_t^-1 (ln n + ½ Σ_{s<=t} γ_s²) with the learner's γ_s = sqrt(2 ln n / s), n = 4 experts."""
    log_n = math.log(EXPERT_COUNT)
    gammas = np.sqrt(2 * log_n / np.arange(1, rounds + 1))
    return float((log_n + 0.5 * np.sum(gammas**2)) / gammas[-1])


def excess_risk(cases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per completed round t: E_t = Σ mixture(a) ℓ(a) - min_i Σ p_i(a) ℓ(a) over the cases of rounds 1..t
    (the paper's eq. 4), and the round numbers t."""
    column = {name: index for index, name in enumerate(CASE_COLUMNS)}
    rounds = cases[:, column["round"]].astype(int)
    loss = cases[:, column["loss"]]
    mixture = cases[:, column["mixture"]] * loss
    experts = cases[:, [column[f"p_{expert}"] for expert in EXPERTS]] * loss[:, None]
    completed = int(rounds.max()) - 1  # the last round is still open
    t = np.arange(1, completed + 1)
    mixture_by_round = np.bincount(rounds, weights=mixture, minlength=completed + 2)[1 : completed + 1]
    experts_by_round = np.stack(
        [np.bincount(rounds, weights=experts[:, i], minlength=completed + 2)[1 : completed + 1] for i in range(4)]
    )
    return np.cumsum(mixture_by_round) - np.cumsum(experts_by_round, axis=1).min(axis=0), t


def expert_risk(cases: np.ndarray) -> np.ndarray:
    """Each expert's risk over the whole run: Σ p_i(a) ℓ(a) over the cases (expert order)."""
    losses = cases[:, CASE_COLUMNS.index("loss")]
    return (cases[:, CASE_COLUMNS.index("p_CPU") :] * losses[:, None]).sum(axis=0)


def level_shares_at_the_end(cases: np.ndarray, levels: int) -> np.ndarray:
    """The chosen levels' histogram over the last quarter of the cases, as shares."""
    chosen = cases[:, CASE_COLUMNS.index("level")].astype(int)
    tail = chosen[len(chosen) - len(chosen) // 4 :]
    return np.bincount(tail, minlength=levels) / max(1, len(tail))


def learning_checks(result, best: str, *, rounds: int, weight: float, free_level: int | None = None) -> dict:
    """What a learner that learnt passes, check by check: more than `rounds` Hedge rounds, the best
    expert's final weight above `weight`, the excess risk within Theorem 1's bound at every completed
    round and (given `free_level`) that level the choice of more than half the last quarter's cases."""
    alphas = result.learner["alphas"]
    excess, completed = excess_risk(result.cases)
    bounds = np.array([theorem_1_bound(t) for t in completed])
    checks = {
        "rounds": len(alphas) > rounds,
        "weight": len(alphas) > 0 and bool(alphas[-1][EXPERTS.index(best)] > weight),
        "bound": bool((excess <= bounds).all()),
    }
    if free_level is not None:
        shares = level_shares_at_the_end(result.cases, len(result.learner["histogram"]))
        checks["free level"] = bool(shares[free_level] > 0.5)
    return checks


def learner_run(learn: bool, feedback: str = "decision"):
    settings = SharingSettings(strategy="ASAX", memory=False, learn=learn, feedback=feedback)
    return simulate_sharing(best_expert_workload(), settings, seed=SEED, log_cases=True)


def sharing_level_run(learn: bool, donor_efficiency: float = SHARING_DONOR_EFFICIENCY):
    settings = SharingSettings(
        strategy="ASAX", levels=SHARING_LEVELS, memory_capacity=MEMORY_CAPACITY, kappa=0.0, learn=learn
    )
    return simulate_sharing(sharing_level_workload(donor_efficiency), settings, seed=SEED, log_cases=True)


def cpu_checks(result) -> dict:
    return learning_checks(result, "CPU", rounds=50, weight=0.95)


def mem_checks(result) -> dict:
    return learning_checks(result, "MEM", rounds=200, weight=0.99, free_level=FREE_LEVEL)


def test_the_problem_has_one_clearly_best_expert():
    result = learner_run(learn=True)
    cases = result.cases
    risk = expert_risk(cases)
    assert len(cases) > 2000 and result.learner["cases"] == len(cases)
    assert np.argmin(risk) == EXPERTS.index("CPU")
    others = np.delete(risk, EXPERTS.index("CPU"))
    assert risk[EXPERTS.index("CPU")] < 0.5 * others.min()


@pytest.mark.parametrize("feedback", ["decision", "completion"])
def test_the_weights_converge_to_the_best_expert_within_theorem_1(feedback):
    """Also with the loss observed when each pair ends (a case is then charged to the round it is
    observed in)."""
    result = learner_run(learn=True, feedback=feedback)
    checks = cpu_checks(result)
    assert checks == dict.fromkeys(checks, True)
    assert result.learner["alphas"][0][EXPERTS.index("CPU")] < 0.6  # learnt over rounds, from 1/4


def test_a_frozen_learner_fails_both_checks():
    """The update switched off: the same checks must fail, or they would not test learning."""
    result = learner_run(learn=False)
    alphas = result.learner["alphas"]
    assert np.allclose(alphas, 0.25)
    assert cpu_checks(result) == {"rounds": True, "weight": False, "bound": False}
    excess, rounds = excess_risk(result.cases)
    assert excess[-1] > theorem_1_bound(int(rounds[-1]))


def leaf(k_star: int, levels: int) -> np.ndarray:
    """§5.4's leaf distribution: 0.6 on k*, 0.3 over its neighbours, 0.1 over the other levels."""
    distance = np.abs(np.arange(levels) - k_star)
    p = np.zeros(levels)
    for mass, where in ((0.6, distance == 0), (0.3, distance == 1), (0.1, distance > 1)):
        p[where] = mass / where.sum()
    return p


def test_the_sharing_problem_is_as_designed():
    """Every case sees the design's leaves (MEM on f = .25, the others on .50), f = .25 is free and
    the higher levels are not, and MEM is the clearly best expert."""
    result = sharing_level_run(learn=True)
    cases = result.cases
    assert len(cases) > 3000 and result.learner["cases"] == len(cases)
    chosen = cases[:, CASE_COLUMNS.index("level")].astype(int)
    k_star = {"CPU": 2, "MEM": 1, "TYPE": 2, "PHASE": 2}
    for expert, k in k_star.items():
        np.testing.assert_allclose(cases[:, CASE_COLUMNS.index(f"p_{expert}")], leaf(k, SHARING_LEVELS)[chosen])
    loss = cases[:, CASE_COLUMNS.index("loss")]
    for level, expected in enumerate((0.0, 0.0, 0.8, 1.0)):
        assert loss[chosen == level] == pytest.approx(expected)
    risk = expert_risk(cases)
    assert np.argmin(risk) == EXPERTS.index("MEM")
    assert risk[EXPERTS.index("MEM")] < 0.5 * np.delete(risk, EXPERTS.index("MEM")).min()


def test_the_weights_single_out_the_expert_of_the_free_sharing_level():
    result = sharing_level_run(learn=True)
    checks = mem_checks(result)
    assert checks == dict.fromkeys(checks, True)
    shares = level_shares_at_the_end(result.cases, SHARING_LEVELS)
    assert np.argmax(shares) == FREE_LEVEL


def test_a_frozen_learner_fails_the_sharing_level_checks():
    """The update switched off: rounds still close, but every other check fails."""
    result = sharing_level_run(learn=False)
    assert np.allclose(result.learner["alphas"], 0.25)
    assert mem_checks(result) == {"rounds": True, "weight": False, "bound": False, "free level": False}
    assert np.argmax(level_shares_at_the_end(result.cases, SHARING_LEVELS)) != FREE_LEVEL


def test_with_every_level_free_nothing_is_learnt():
    """Donors that no level slows ((1 - .75)/0.2 > 1): the loss charges nothing, no round closes
    and the weights stay at 1/4, so the sharing-level checks rest on the loss."""
    result = sharing_level_run(learn=True, donor_efficiency=0.2)
    assert len(result.cases) > 3000 and result.learner["loss_sum"] == 0.0
    assert len(result.learner["alphas"]) == 0
    checks = mem_checks(result)
    assert not checks["rounds"] and not checks["weight"]


@pytest.mark.parametrize("learn", [True, False])
def test_the_case_log_matches_the_learner_totals(learn):
    result = learner_run(learn)
    cases = result.cases
    assert cases.shape == (result.learner["cases"], len(CASE_COLUMNS))
    assert cases[:, CASE_COLUMNS.index("loss")].sum() == pytest.approx(result.learner["loss_sum"])
    levels = cases[:, CASE_COLUMNS.index("level")].astype(int)
    assert np.bincount(levels, minlength=len(result.learner["histogram"])).tolist() == list(result.learner["histogram"])
    # the mixture's probability is the α-weighted sum of the experts': 1/4 each when frozen
    if not learn:
        experts = cases[:, CASE_COLUMNS.index("p_CPU") :]
        np.testing.assert_allclose(cases[:, CASE_COLUMNS.index("mixture")], experts.mean(axis=1), rtol=1e-12)
