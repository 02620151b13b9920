"""The ASAX learner learns: on a synthetic problem with one clearly best expert, the Hedge weights
converge to it and the excess risk stays within the paper's Theorem 1 (docs/coscheduling.md §5.7).

The problem: 20 CPU-bound donors (u = 0.9, one processor, estimates 5 % above their work, so the
happiness Hp stays in H1 and the phase early while the guests come) and a stream of short
one-processor guests. At H1 the experts suggest f* = 0 (CPU: high), 0.5 (MEM: low, memory off),
0.5 (TYPE: sequential) and 0.25 (PHASE: early). With u_a = 0.9 a quota f slows the donor to
min(1, (1 - f)/0.9): the degradation loss is 0 at f <= 0.1, 0.25 at 0.2, 0.57 at 0.3 and 1 from
0.4 on. The paper's risk charges each expert its probability of the level chosen times the loss, so
the CPU expert, whose preferred levels (0.6 on "do not pair", 0.3 on f = 0.1) cost nothing, is the
one to follow. The same run with the update switched off (``learn=False``: the weights stay at 1/4)
must fail both checks, or the checks would prove nothing.
"""

import math

import numpy as np
import pytest

from simcore.engine.workload import Workload
from simcore.studies.coscheduling.sharing import CASE_COLUMNS, EXPERTS, SharingSettings, simulate_sharing

DONORS = 20
GUESTS = 3000
EXPERT_COUNT = len(EXPERTS)


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


def learner_run(learn: bool, feedback: str = "decision"):
    settings = SharingSettings(strategy="ASAX", memory=False, learn=learn, feedback=feedback)
    return simulate_sharing(best_expert_workload(), settings, seed=3, log_cases=True)


def test_the_problem_has_one_clearly_best_expert():
    result = learner_run(learn=True)
    cases = result.cases
    losses = cases[:, CASE_COLUMNS.index("loss")]
    expert_risk = (cases[:, CASE_COLUMNS.index("p_CPU") :] * losses[:, None]).sum(axis=0)
    assert len(cases) > 2000 and result.learner["cases"] == len(cases)
    assert np.argmin(expert_risk) == EXPERTS.index("CPU")
    others = np.delete(expert_risk, EXPERTS.index("CPU"))
    assert expert_risk[EXPERTS.index("CPU")] < 0.5 * others.min()


@pytest.mark.parametrize("feedback", ["decision", "completion"])
def test_the_weights_converge_to_the_best_expert_within_theorem_1(feedback):
    """Also with the loss observed when each pair ends (a case is then charged to the round it is
    observed in)."""
    result = learner_run(learn=True, feedback=feedback)
    alphas = result.learner["alphas"]
    assert len(alphas) > 50  # Hedge rounds
    assert alphas[-1][EXPERTS.index("CPU")] > 0.95
    assert alphas[0][EXPERTS.index("CPU")] < 0.6  # learnt over rounds, from 1/4
    excess, rounds = excess_risk(result.cases)
    bounds = np.array([theorem_1_bound(t) for t in rounds])
    assert (excess <= bounds).all(), f"first round over the bound: {rounds[np.argmax(excess > bounds)]}"


def test_a_frozen_learner_fails_both_checks():
    """The update switched off: the same checks must fail, or they would not test learning."""
    result = learner_run(learn=False)
    alphas = result.learner["alphas"]
    assert len(alphas) > 50
    assert np.allclose(alphas, 0.25)
    assert alphas[-1][EXPERTS.index("CPU")] < 0.95
    excess, rounds = excess_risk(result.cases)
    assert excess[-1] > theorem_1_bound(int(rounds[-1]))


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
