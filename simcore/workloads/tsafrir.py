"""User runtime estimates: the Tsafrir, Etsion & Feitelson (2005) model.

Specification: docs/workload_models.md, Part 2 ("§2.x" below).
:func:`tsafrir_histogram` builds the model's estimate histogram for a
workload's size and maximal estimate; :func:`tsafrir_estimates` assigns the
estimates to jobs, never below their run time. Seeds are explicit: one
``numpy.random.Generator(PCG64(seed))``, or a Generator to continue.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np


def check_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        # ValueError like every other bad argument here: callers catch one type
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")  # noqa: TRY004
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def make_generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    seed = check_int("seed", seed, minimum=0)
    return np.random.Generator(np.random.PCG64(seed))


# ---------------------------------------------------------------------------
# Part 2 — Tsafrir, Etsion & Feitelson user runtime estimates
# ---------------------------------------------------------------------------

HEAD_LENGTH = 20
HEAD_PERCENT = 89.0
MIN_TMAX = 5701  # the head needs Tmax > 5700 to reach 20 values (§2.2)
MIN_JOBS = 227  # K > 20 needs N > 226 (§2.4 step 1)

_K_POINTS = ((0, 0), (20, 10), (200, 20), (1_000, 35), (10_000, 90), (70_000, 340), (250_000, 565))
_MINUTE, _HOUR = 60, 3600
# values among the 20 most popular in all four studied logs, in the model's order (§2.3)
JOINT_VALUES = tuple(
    int(v)
    for v in (
        5 * _MINUTE,
        15 * _MINUTE,
        10 * _MINUTE,
        20 * _MINUTE,
        30 * _MINUTE,
        1 * _HOUR,
        2 * _HOUR,
        3 * _HOUR,
        4 * _HOUR,
        5 * _HOUR,
        6 * _HOUR,
        8 * _HOUR,
        10 * _HOUR,
        12 * _HOUR,
        18 * _HOUR,
    )
)
ROUND_MULTIPLES = (
    200 * _HOUR,
    100 * _HOUR,
    50 * _HOUR,
    10 * _HOUR,
    5 * _HOUR,
    2 * _HOUR,
    1 * _HOUR,
    20 * _MINUTE,
    10 * _MINUTE,
    5 * _MINUTE,
)
# row ttr (0 = Tmax, then increasing head values): popularity rank in SDSC, CTC, KTH, SDSC-BLUE (§2.3)
TIME_RANK_TO_POPULARITY = (
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
)
# bound[R]: the largest ttr at which rank R appears in any log
RANK_BOUND = {
    rank: max(ttr for ttr, row in enumerate(TIME_RANK_TO_POPULARITY) if rank in row)
    for rank in range(1, HEAD_LENGTH + 1)
}
TAIL_COLLISION_OFFSETS = (0, 30, -30, 20, -20, 10, -10)


def _round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def tsafrir_k(n_jobs: int) -> int:
    """Number of distinct estimate values K for N jobs (§2.4 step 1, linear model)."""
    for (n0, k0), (n1, k1) in pairwise(_K_POINTS):
        if n_jobs <= n1:
            return k0 + _round_half_away((n_jobs - n0) * (k1 - k0) / (n1 - n0))
    return _K_POINTS[-1][1]


def tsafrir_shape(k: int) -> float:
    """Time-shape parameter a = 1 + 12.1039·K^−0.6026 (§2.4 step 2)."""
    return 1.0 + 12.1039 * k**-0.6026


def tsafrir_head_values(tmax: int) -> list[int]:
    """The 20 head values: [Tmax, then the others increasing] (§2.4 step 3)."""
    head = [tmax] + [v for v in JOINT_VALUES if v < tmax]
    need = HEAD_LENGTH - len(head)
    for multiple in ROUND_MULTIPLES:
        value = (tmax // multiple) * multiple
        while need > 0 and value > 0:
            if value not in head:
                head.append(value)
                need -= 1
            value -= multiple
        if need == 0:
            break
    return [head[0]] + sorted(head[1:])


def _head_sizes() -> list[float]:
    """Percent of jobs per popularity rank 1..20, decreasing (§2.4 step 4)."""
    others = [14.0491 * math.exp(-0.177531 * x) + 0.462513 for x in range(2, HEAD_LENGTH + 1)]
    return sorted([HEAD_PERCENT - sum(others)] + others, reverse=True)


def _pool_mapping(rng: np.random.Generator) -> list[int]:
    """Popularity rank (1-based) of each head value, by time rank ttr (§2.4 step 5)."""
    pool: list[int] = []
    ranks: list[int] = []
    for ttr, row in enumerate(TIME_RANK_TO_POPULARITY):
        pool.extend(rank for rank in row if rank not in ranks)
        settled = [rank for rank in range(1, HEAD_LENGTH + 1) if rank not in ranks and RANK_BOUND[rank] <= ttr]
        if ttr == 0:
            rank = 1  # Tmax is the most popular value
        elif settled:
            rank = min(settled)  # seen by now in all four logs
        else:
            first, second = rng.integers(len(pool), size=2)
            rank = min(pool[first], pool[second])
        ranks.append(rank)
        pool = [r for r in pool if r != rank]
    return ranks


def _tail_values(count: int, a: float, tmax: int, taken: set[int]) -> list[int]:
    """Up to `count` tail values on the curve y = (a−1)x/(a−x), in whole minutes (§2.4 step 6)."""
    values = []
    for i in range(1, count + 1):
        x = i / count
        y = (a - 1.0) * x / (a - x)
        rounded = _round_half_away(y * tmax / _MINUTE) * _MINUTE
        for offset in TAIL_COLLISION_OFFSETS:
            candidate = rounded + offset
            if 0 < candidate < tmax and candidate not in taken:
                values.append(candidate)
                taken.add(candidate)
                break
    return values


def _tail_sizes(count: int) -> np.ndarray:
    """Percent for popularity ranks 21, 22, … scaled to the 11% tail (§2.4 step 7)."""
    raw = 795.6 * np.arange(HEAD_LENGTH + 1, HEAD_LENGTH + 1 + count, dtype=float) ** -2.267
    return raw * (100.0 - HEAD_PERCENT) / raw.sum()


def _equalise(jobs: list[int], n_jobs: int) -> list[int]:
    """Adjust rounded job counts so that they sum to N (§2.4 step 10)."""
    jobs = list(jobs)
    missing = n_jobs - sum(jobs)
    sign, left = (1 if missing > 0 else -1), abs(missing)
    fraction = left / sum(jobs)
    for step in range(4):
        if left == 0:
            break
        for i in sorted(range(len(jobs)), key=lambda i: -jobs[i]):
            if left == 0:
                break
            count = jobs[i]
            if count == 0:
                continue
            change = (math.ceil(fraction * count), 1, count - 1, count)[step]
            if sign < 0:
                change = min(change, count if step == 3 else count - 1)
            change = min(change, left)
            jobs[i] += sign * change
            left -= change
    if left:
        raise ArithmeticError(f"could not equalise the estimate histogram to {n_jobs} jobs")
    return jobs


def check_tmax(tmax) -> int:
    if isinstance(tmax, bool) or not isinstance(tmax, (int, np.integer)) or tmax < MIN_TMAX:
        raise ValueError(
            f"tmax must be an integer number of seconds > 5700 (the model needs 20 head values), got {tmax!r}"
        )
    return int(tmax)


def _build_histogram(
    rng: np.random.Generator, n_jobs: int, tmax: int, k: int | None, a: float | None
) -> tuple[np.ndarray, np.ndarray]:
    k = tsafrir_k(n_jobs) if k is None else k
    a = tsafrir_shape(k) if a is None else a
    head = tsafrir_head_values(tmax)
    sizes = _head_sizes()
    head_percent = [sizes[rank - 1] for rank in _pool_mapping(rng)]
    tail = _tail_values(k - len(head), a, tmax, set(head))
    tail_percent = rng.permutation(_tail_sizes(len(tail)))  # random value ↔ size pairing (step 8)
    values = head + tail
    percent = head_percent + tail_percent.tolist()
    jobs = _equalise([max(1, _round_half_away(p * n_jobs / 100.0)) for p in percent], n_jobs)
    order = np.argsort(values)
    values_arr, jobs_arr = np.array(values, np.int64)[order], np.array(jobs, np.int64)[order]
    keep = jobs_arr > 0
    return values_arr[keep], jobs_arr[keep]


def tsafrir_histogram(
    n_jobs: int, tmax: int, seed, k: int | None = None, a: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The estimate histogram of §2.4: (values increasing, jobs per value), Σ jobs = N.

    ``k`` overrides the number of distinct values of the linear K-model and
    ``a`` the time-shape parameter. User bins (§2.5) are not implemented.
    ``seed`` is an int or a ``numpy.random.Generator``.
    """
    n_jobs = check_int("n_jobs", n_jobs, minimum=MIN_JOBS)
    tmax = check_tmax(tmax)
    if k is not None:
        k = check_int("k", k, minimum=HEAD_LENGTH + 1)
    if a is not None and not a > 1:
        raise ValueError(f"a must be > 1, got {a}")
    return _build_histogram(make_generator(seed), n_jobs, tmax, k, a)


def _assign(rng: np.random.Generator, estimates: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Hand estimates to jobs, longest job first, each uniformly among those ≥ its run time (§2.6)."""
    n = len(run)
    descending = np.sort(estimates)[::-1]
    run = np.minimum(run, descending[0])  # the model truncates runs longer than Tmax
    order = np.argsort(-run, kind="stable")
    eligible = n - np.searchsorted(descending[::-1], run[order], side="left")
    position = np.arange(n)
    if np.any(eligible <= position):
        k = int(np.flatnonzero(eligible <= position)[0])
        raise ValueError(
            f"the estimate histogram cannot cover the run times: the {k + 1}-th longest "
            f"run ({run[order][k]} s) exceeds the {k + 1}-th largest estimate; "
            f"raise tmax"
        )
    # slots [k, eligible_k) of the array hold exactly the unassigned estimates ≥ the k-th run
    picks = position + np.floor(rng.random(n) * (eligible - position)).astype(np.int64)
    pool = descending.tolist()
    for k, pick in enumerate(picks.tolist()):
        pool[k], pool[pick] = pool[pick], pool[k]
    assigned = np.empty(n, np.int64)
    assigned[order] = pool
    return assigned


def tsafrir_estimates(run, seed, tmax: int | None = None, k: int | None = None, a: float | None = None) -> np.ndarray:
    """Requested times (int64 s) for jobs with the given run times (Part 2).

    Builds the §2.4 histogram for N = len(run) jobs (N ≥ 227) and assigns it
    per §2.6: every job gets an estimate ≥ min(run, tmax) and ≤ tmax, and the
    histogram's counts are used exactly. Runs longer than tmax are taken as
    tmax (the model truncates them; the caller should too). ``tmax``
    defaults to the largest run time rounded up (the Python wrapper's
    choice) and must exceed 5700 s. ``seed``: int ≥ 0 or a Generator.
    """
    run = np.asarray(run, dtype=np.float64)
    if run.ndim != 1:
        raise ValueError(f"run must be a 1-D array, got shape {run.shape}")
    if len(run) < MIN_JOBS:
        raise ValueError(f"the estimate model needs at least {MIN_JOBS} jobs (K > 20), got {len(run)}")
    if not np.all(np.isfinite(run) & (run >= 0)):
        raise ValueError("run times must be finite and >= 0")
    tmax = check_tmax(math.ceil(run.max()) if tmax is None else tmax)
    rng = make_generator(seed)
    values, counts = tsafrir_histogram(len(run), tmax, rng, k, a)
    return _assign(rng, np.repeat(values, counts), run)
