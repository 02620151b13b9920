"""Learned scheduling functions (the thesis's chapter 3; seed 004).

Trial scores (section 3.2.2): tuples (S, Q) of consecutive jobs drawn from a
Lublin-Feitelson workload, and for each tuple many random permutations of Q,
each simulated in C as list scheduling (trial_scores, in
simcore/studies/learned_policies/_trials.pyx).
Nonlinear regression (section 3.2.3): every function of the family
(θ1 φ1(p)) op1 (θ2 φ2(q)) op2 (θ3 φ3(r)), φ in {identity, sqrt, log10,
inverse}, op in {+, ×, ÷}, fitted by least squares weighted by p·q
(equation 3.4) and ranked by mean absolute error (equation 3.5).
Decisions: docs/semantics.md, "Learned scheduling functions".
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from simcore.engine.priority import BASE_NAMES, BASES, OPERATORS, bases, combine, describe
from simcore.studies.learned_policies._trials import trial_scores
from simcore.workloads.progress import progress

WARM, QUEUE = 16, 32  # |S| and |Q| of the thesis


def draw_tuples(workload, count: int, seed: int, warm: int = WARM, queue: int = QUEUE):
    """`count` tuples of warm + queue consecutive jobs from random positions of
    `workload`, release times relative to the tuple's first job."""
    rng = np.random.default_rng(seed)
    size = warm + queue
    if len(workload) < size:
        raise ValueError(f"the workload has {len(workload)} jobs, a tuple needs {size}")
    firsts = rng.integers(0, len(workload) - size + 1, count)
    return [
        (workload.submit[f : f + size] - workload.submit[f], workload.run[f : f + size], workload.procs[f : f + size])
        for f in firsts
    ]


def score_tuples(
    tuples, machine_size: int, trials: int, seed: int, numbers=None, warm: int = WARM, label: str | None = None
) -> pd.DataFrame:
    """One row per job of every Q: (tuple, p, q, r, score, first), `first`
    being the number of trials in which the job came first. Tuple k (its
    number in `numbers`, default 0, 1, ...) draws its permutations from seed + k.
    With a `label`, progress lines on stderr per tuple (simcore.workloads.progress)."""
    frames = []
    chosen = zip(numbers if numbers is not None else itertools.count(), tuples)
    if label is not None:
        chosen = progress(chosen, len(tuples), label)
    for number, (release, run, procs) in chosen:
        scores, first = trial_scores(release, run, procs, warm, machine_size, trials, seed + number)
        frames.append(
            pd.DataFrame(
                {
                    "tuple": number,
                    "p": run[warm:],
                    "q": procs[warm:],
                    "r": release[warm:],
                    "score": scores,
                    "first": first,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def score_spread(
    release, run, procs, machine_size: int, trial_counts, repeats: int, seed: int, warm: int = WARM
) -> pd.DataFrame:
    """Figure 3.1c: for each number of trials, the standard deviation of each
    job's score over `repeats` independent runs, normalized by the mean score
    1/|Q|, averaged over the jobs."""
    rows = []
    for trials in trial_counts:
        runs = np.array(
            [trial_scores(release, run, procs, warm, machine_size, trials, seed + 1000 * k)[0] for k in range(repeats)]
        )
        rows.append(
            {"trials": int(trials), "normalized_std": float(np.mean(runs.std(axis=0) / (1.0 / (len(release) - warm))))}
        )
    return pd.DataFrame(rows)


def family():
    """The 4^3 x 3^2 = 576 functional forms, as (φ1, φ2, φ3, op1, op2)."""
    return list(itertools.product(BASES, BASES, BASES, OPERATORS, OPERATORS))


def canonical(form):
    """The form with every "× 1/x" written "÷ x" and every "÷ 1/x" written "× x"."""
    phi1, phi2, phi3, op1, op2 = form
    swap = {"*": "/", "/": "*", "+": "+"}
    if phi2 == "inv" and op1 != "+":
        phi2, op1 = "id", swap[op1]
    if phi3 == "inv" and op2 != "+":
        phi3, op2 = "id", swap[op2]
    return phi1, phi2, phi3, op1, op2


def submit_weight(form, theta) -> float | None:
    """The thesis's simplification of a form α(p) op1 β(q) + γ(r) with op1 in
    {×, ÷}: divided by its positive factor k = θ1 θ2 (or θ1 / θ2), it reads
    φ1(p) op1 φ2(q) + (θ3 / k)·φ3(r), the same priority order; this is θ3 / k,
    the weight of the submit-time term. None for other forms or when k <= 0
    (dividing would reverse the order)."""
    _, _, _, op1, op2 = canonical(form)
    if op2 != "+" or op1 == "+":
        return None
    if form[1] == "inv":  # θ2 · (1/q) became q: its coefficient is 1/θ2
        theta = (theta[0], 1.0 / theta[1], theta[2])
    k = theta[0] * theta[1] if op1 == "*" else theta[0] / theta[1]
    return theta[2] / k if k > 0 else None


def simplified(form, theta) -> str | None:
    """The form as the thesis wrote its functions (submit_weight()), or None."""
    weight = submit_weight(form, theta)
    if weight is None:
        return None
    phi1, phi2, phi3, op1, _ = canonical(form)
    symbol = "·" if op1 == "*" else " ÷ "
    return (
        f"{BASE_NAMES[phi1].format('p')}{symbol}{BASE_NAMES[phi2].format('q')} + "
        f"{weight:.3g}·{BASE_NAMES[phi3].format('r')}"
    )


def fit_family(scores: pd.DataFrame, forms=None) -> pd.DataFrame:
    """Fit every form by weighted least squares (weight p·q, equation 3.4; SciPy)
    from several starting points, and rank by MAE (equation 3.5). Forms without
    a finite fit are left out, and of equivalent forms (canonical()) only the
    best fit is kept."""
    from scipy.optimize import least_squares

    p, q, r, y = (scores[c].to_numpy(dtype=float) for c in ("p", "q", "r", "score"))
    weight = np.maximum(p, 1.0) * np.maximum(q, 1.0)
    rows = []
    for form in forms or family():
        best = None
        based = bases(form, p, q, r)  # once per form: the fits evaluate it about 70 times each

        def residuals(theta, form=form, based=based):
            value = weight * (combine(form, theta, based) - y)
            return np.where(np.isfinite(value), value, 1e100)

        for start in (np.ones(3), np.full(3, 1e-3), np.array([1e-3, 1e-3, 1.0]), np.array([1.0, 1e-3, 1e-3])):
            with np.errstate(all="ignore"):  # overflows and 0/0 become the 1e100 residuals
                fit = least_squares(residuals, start, method="trf", x_scale="jac", max_nfev=200)
                mae = float(np.mean(np.abs(combine(form, fit.x, based) - y)))
            if np.isfinite(mae) and (best is None or mae < best[1]):
                best = (fit.x, mae)
        if best is not None:
            rows.append(
                {
                    "phi_p": form[0],
                    "phi_q": form[1],
                    "phi_r": form[2],
                    "op1": form[3],
                    "op2": form[4],
                    "theta1": best[0][0],
                    "theta2": best[0][1],
                    "theta3": best[0][2],
                    "mae": best[1],
                    "function": describe(form, best[0]),
                    "simplified": simplified(form, best[0]),
                }
            )
    ranked = pd.DataFrame(rows).sort_values("mae", kind="stable")
    # a × (1/b) and a ÷ b are one function: keep the best fit of each
    forms = ranked[["phi_p", "phi_q", "phi_r", "op1", "op2"]].itertuples(index=False, name=None)
    return ranked[~pd.Series([canonical(form) for form in forms], index=ranked.index).duplicated()].reset_index(
        drop=True
    )
