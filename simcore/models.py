"""Synthetic workloads: Lublin–Feitelson rigid jobs with Tsafrir user estimates.

The specification is ``../shared/docs/WORKLOAD_MODELS.md`` ("the doc" below);
section numbers in docstrings refer to it.

* :func:`lublin_jobs` — Part 1, the Lublin & Feitelson (2003) model: arrival
  times with a daily cycle, number of processors, run time, job type.
* :func:`tsafrir_histogram`, :func:`tsafrir_estimates` — Part 2, the Tsafrir,
  Etsion & Feitelson (2005) model of user runtime estimates.
* :func:`lublin_workload` — both combined into a :class:`simcore.Workload`.

Choices taken where the doc offers several (all are its recommendations):

* real-valued arrival clock, floored only when the submit time is written
  (§1.6), and sizes clamped to the machine size (§1.4);
* machine size by Convention A (§1.9): UMed and UHi move by log2(m/128), with
  a real-valued log2 for machines that are not a power of two;
* an explicit seed and one ``numpy.random.Generator(PCG64(seed))``; numpy's
  exact gamma sampler replaces Jain's method (§1.7), so results agree with
  the reference C program in distribution, not value by value.

Everything is vectorised by attribute (all arrival draws, then all sizes,
then all run times) rather than drawn job by job as the reference does; the
sequential steps of the models are reproduced exactly in distribution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from itertools import pairwise

import numpy as np

from simcore.workload import Workload

__all__ = [
    "BATCH", "INTERACTIVE", "LUBLIN_MAX_RUNTIME", "LublinParams", "daily_cycle_weights",
    "gamma_cdf", "lublin_jobs", "lublin_parameters", "lublin_workload", "regularized_lower_gamma",
    "tsafrir_estimates", "tsafrir_head_values", "tsafrir_histogram", "tsafrir_k", "tsafrir_shape",
]

# ---------------------------------------------------------------------------
# Regularized lower incomplete gamma (§1.2 "Gamma CDF")
# ---------------------------------------------------------------------------

_GAMMA_MAX_ITERATIONS = 1000
_GAMMA_EPSILON = 1e-15
_TINY = 1e-300


def regularized_lower_gamma(a: float, x: float) -> float:
    """P(a, x) = γ(a, x) / Γ(a) for a > 0 (§1.2).

    Series expansion for x < a + 1, otherwise the continued fraction of the
    upper function Q = 1 − P (modified Lentz), as the reference evaluates it.
    """
    if not a > 0:
        raise ValueError(f"the shape a must be > 0, got {a}")
    if x <= 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    # x^a e^-x / Γ(a), in logs so that large a and x do not overflow
    prefactor = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:
        return prefactor * _lower_gamma_series(a, x)
    return 1.0 - prefactor * _upper_gamma_fraction(a, x)


def _lower_gamma_series(a: float, x: float) -> float:
    """Σ_{n≥0} x^n / (a (a+1) … (a+n)); converges fast when x < a + 1."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_GAMMA_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _GAMMA_EPSILON:
            return total
    raise ArithmeticError(f"incomplete gamma series did not converge for a={a}, x={x}")


def _upper_gamma_fraction(a: float, x: float) -> float:
    """1 / (x+1−a − 1·(1−a) / (x+3−a − 2·(2−a) / (x+5−a − …))), by modified Lentz."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    result = d
    for i in range(1, _GAMMA_MAX_ITERATIONS + 1):
        numerator = -i * (i - a)
        b += 2.0
        d = numerator * d + b
        d = 1.0 / (d if abs(d) >= _TINY else _TINY)
        c = b + numerator / c
        c = c if abs(c) >= _TINY else _TINY
        step = c * d
        result *= step
        if abs(step - 1.0) < _GAMMA_EPSILON:
            return result
    raise ArithmeticError(f"incomplete gamma continued fraction did not converge for a={a}, x={x}")


def gamma_cdf(x: float, shape: float, scale: float) -> float:
    """G(x; α, β) = P(α, x/β) for Gamma(shape α, scale β) (§1.2)."""
    return regularized_lower_gamma(shape, x / scale)


# ---------------------------------------------------------------------------
# Part 1 — Lublin & Feitelson
# ---------------------------------------------------------------------------

INTERACTIVE, BATCH = 0, 1                  # job type codes (SWF field 15), §1.3
RUNTIME_LOG_CAP = 12.0                     # draws of ln r above this are redrawn
ARRIVAL_LOG_CAP = 13.0                     # draws of the log inter-arrival points above this are redrawn
LUBLIN_MAX_RUNTIME = math.floor(math.exp(RUNTIME_LOG_CAP))   # 162 754 s
SECONDS_PER_BUCKET = 1800
BUCKETS_PER_DAY = 48
CYCLIC_DAY_START = 11
DEFAULT_MACHINE_SIZE = 128                 # the machine the published parameters describe


@dataclass(frozen=True)
class LublinParams:
    """One parameter set of §1.3 (batch, interactive or typeless)."""

    serial: float        # S: probability of a serial job
    pow2: float          # P2: probability (among all jobs) of a forced power-of-two job
    u_low: float         # two-stage uniform of log2(size): ULow, UMed, UHi, Uprob
    u_med: float
    u_hi: float
    u_prob: float
    a1: float            # hyper-gamma of ln(run time): Gamma(a1, b1) w.p. p, else Gamma(a2, b2)
    b1: float
    a2: float
    b2: float
    pa: float            # p = pa * size + pb, clamped to [0, 1]
    pb: float
    aarr: float          # Gamma(aarr * arar, barr) of the log inter-arrival points
    barr: float
    arar: float
    anum: float          # Gamma(anum, bnum) shaping the daily cycle
    bnum: float


BATCH_128 = LublinParams(
    serial=0.2927, pow2=0.6686, u_low=1.2, u_med=5.0, u_hi=7.0, u_prob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, arar=1.0519, anum=6.1271, bnum=5.2740)
INTERACTIVE_128 = LublinParams(
    serial=0.1541, pow2=0.625, u_low=1.0, u_med=3.0, u_hi=5.5, u_prob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, arar=0.9797, anum=8.9186, bnum=3.6680)
TYPELESS_128 = LublinParams(
    serial=0.244, pow2=0.576, u_low=0.8, u_med=4.5, u_hi=7.0, u_prob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, arar=1.0225, anum=8.1737, bnum=3.9631)


def lublin_parameters(machine_size: int, typed: bool = True) -> tuple[LublinParams, LublinParams]:
    """Parameter sets indexed by job type code, adapted to the machine (§1.9).

    Convention A: UMed and UHi move by log2(m/128) (UHi = log2 m for batch
    and typeless, log2 m − 1.5 for interactive); log2 m need not be an
    integer. On machines smaller than 32 processors this pushes UMed (and
    for m < 6 UHi) below ULow, which the two-stage uniform does not allow;
    then ULow is capped at log2 m and UMed, UHi are clamped into
    [ULow, log2 m]. Typeless mode uses its set for both codes (only code 0
    is ever emitted).
    """
    shift = math.log2(machine_size / DEFAULT_MACHINE_SIZE)
    bound = math.log2(machine_size)

    def adapt(params: LublinParams) -> LublinParams:
        u_low = min(params.u_low, bound)
        u_hi = min(max(params.u_hi + shift, u_low), bound)
        u_med = min(max(params.u_med + shift, u_low), u_hi)
        return replace(params, u_low=u_low, u_med=u_med, u_hi=u_hi)

    if typed:
        return adapt(INTERACTIVE_128), adapt(BATCH_128)
    typeless = adapt(TYPELESS_128)
    return typeless, typeless


@cache
def _cached_weights(anum: float, bnum: float) -> tuple[float, ...]:
    raw = [0.0] * BUCKETS_PER_DAY
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS_PER_DAY):
        raw[(i - 1) % BUCKETS_PER_DAY] = gamma_cdf(i + 0.5, anum, bnum) - gamma_cdf(i - 0.5, anum, bnum)
    mean = sum(raw) / BUCKETS_PER_DAY
    return tuple(w / mean for w in raw)


def daily_cycle_weights(params: LublinParams) -> np.ndarray:
    """The 48 half-hour weights w[k] of §1.6 (they average to 1).

    w[k] is the number of arrival "points" it takes to pass clock bucket k,
    so the arrival intensity in bucket k is proportional to w[k].
    """
    return np.array(_cached_weights(params.anum, params.bnum))


def _capped_gamma(rng: np.random.Generator, shape: float, scale: float, cap: float,
                  size: int) -> np.ndarray:
    """Gamma(shape, scale) conditioned on ≤ cap, by redrawing (§1.6 step 1)."""
    values = rng.gamma(shape, scale, size)
    rejected = np.flatnonzero(values > cap)
    while rejected.size:
        values[rejected] = rng.gamma(shape, scale, rejected.size)
        rejected = rejected[values[rejected] > cap]
    return values


def _clock_times(points: np.ndarray, weights: np.ndarray, start_bucket: int) -> np.ndarray:
    """Seconds at which the daily-cycle clock has consumed `points` (§1.6).

    The reference spends points bucket by bucket (w[b] points per bucket, the
    remainder as a fraction of the current bucket); with a real-valued clock
    that is exactly the inverse of the piecewise-linear cumulative weight
    function, evaluated here for all points at once.
    """
    cycle = np.roll(weights, -start_bucket)      # cycle[j] = weight of the j-th bucket after the start
    ends = np.cumsum(cycle)
    per_day = ends[-1]
    days = np.floor(points / per_day)
    within = points - days * per_day
    bucket = np.minimum(np.searchsorted(ends, within, side="left"), BUCKETS_PER_DAY - 1)
    fraction = (within - (ends[bucket] - cycle[bucket])) / cycle[bucket]
    return SECONDS_PER_BUCKET * (days * BUCKETS_PER_DAY + bucket + fraction)


def _arrival_times(rng: np.random.Generator, params: LublinParams, count: int,
                   start_hour: int) -> np.ndarray:
    """The first `count` arrival times (real seconds) of one stream (§1.6)."""
    g = _capped_gamma(rng, params.aarr * params.arar, params.barr, ARRIVAL_LOG_CAP, count)
    points = np.cumsum(np.exp(g) / SECONDS_PER_BUCKET)
    return _clock_times(points, daily_cycle_weights(params), 2 * start_hour)


def _merge_streams(interactive: np.ndarray, batch: np.ndarray, n_jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """The first n_jobs arrivals of both streams, by time (§1.6 "Merging").

    Equal times go to the interactive stream first, as in the reference.
    """
    times = np.concatenate([interactive, batch])
    types = np.concatenate([np.full(len(interactive), INTERACTIVE, np.int8),
                            np.full(len(batch), BATCH, np.int8)])
    order = np.lexsort((types, times))[:n_jobs]
    return times[order], types[order]


def _column(param_sets: tuple[LublinParams, LublinParams], name: str, types: np.ndarray) -> np.ndarray:
    """Per-job values of one parameter, chosen by job type."""
    return np.array([getattr(param_sets[INTERACTIVE], name), getattr(param_sets[BATCH], name)])[types]


def _round_half_up(x):
    return np.floor(x + 0.5)


def _job_sizes(rng: np.random.Generator, param_sets, types: np.ndarray, machine_size: int) -> np.ndarray:
    """Number of processors per job (§1.4), clamped to the machine size."""
    n = len(types)
    serial, pow2 = _column(param_sets, "serial", types), _column(param_sets, "pow2", types)
    u = rng.random(n)
    first_segment = rng.random(n) <= _column(param_sets, "u_prob", types)
    position = rng.random(n)
    low = np.where(first_segment, _column(param_sets, "u_low", types), _column(param_sets, "u_med", types))
    high = np.where(first_segment, _column(param_sets, "u_med", types), _column(param_sets, "u_hi", types))
    log_size = low + position * (high - low)
    # the same u decides serial, forced power of two, or free size
    log_size = np.where(u <= serial + pow2, _round_half_up(log_size), log_size)
    size = np.where(u <= serial, 1.0, _round_half_up(2.0 ** log_size))
    return np.minimum(size, machine_size).astype(np.int64)


def _run_times(rng: np.random.Generator, param_sets, types: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Run time in whole seconds per job (§1.5): floor(e^h), h hyper-gamma ≤ 12.

    The mixing probability is linear in the raw number of processors (not its
    logarithm), as in every implementation the doc examined.
    """
    p = np.clip(_column(param_sets, "pa", types) * sizes + _column(param_sets, "pb", types), 0.0, 1.0)
    shapes = (_column(param_sets, "a1", types), _column(param_sets, "a2", types))
    scales = (_column(param_sets, "b1", types), _column(param_sets, "b2", types))
    h = np.empty(len(types))
    pending = np.arange(len(types))
    while pending.size:
        # a rejected draw redraws the branch too (§1.5 step 3)
        first = rng.random(pending.size) <= p[pending]
        draw = rng.gamma(np.where(first, shapes[0][pending], shapes[1][pending]),
                         np.where(first, scales[0][pending], scales[1][pending]))
        accepted = draw <= RUNTIME_LOG_CAP
        h[pending[accepted]] = draw[accepted]
        pending = pending[~accepted]
    return np.floor(np.exp(h)).astype(np.int64)


def _check_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        # ValueError like every other bad argument here: callers catch one type
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")  # noqa: TRY004
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def _generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    seed = _check_int("seed", seed, minimum=0)
    return np.random.Generator(np.random.PCG64(seed))


def _generate_lublin(rng: np.random.Generator, n_jobs: int, machine_size: int, typed: bool,
                     start_hour: int) -> dict[str, np.ndarray]:
    param_sets = lublin_parameters(machine_size, typed)
    if typed:
        # n arrivals per stream always cover the first n of the merged sequence
        batch = _arrival_times(rng, param_sets[BATCH], n_jobs, start_hour)
        interactive = _arrival_times(rng, param_sets[INTERACTIVE], n_jobs, start_hour)
        times, types = _merge_streams(interactive, batch, n_jobs)
    else:
        times = _arrival_times(rng, param_sets[INTERACTIVE], n_jobs, start_hour)
        types = np.full(n_jobs, INTERACTIVE, np.int8)
    sizes = _job_sizes(rng, param_sets, types, machine_size)
    runs = _run_times(rng, param_sets, types, sizes)
    return {"submit": np.floor(times).astype(np.int64), "procs": sizes, "run": runs, "type": types}


def lublin_jobs(n_jobs: int, machine_size: int, seed: int, typed: bool = True,
                start_hour: int = 0) -> dict[str, np.ndarray]:
    """Jobs of the Lublin & Feitelson model (Part 1), sorted by submit time.

    Returns a dict of equal-length arrays: ``submit`` (int64 s from the trace
    start, floored from the real-valued clock), ``procs`` (int64, 1..m),
    ``run`` (int64 s, 1..162 754) and ``type`` (int8, 0 interactive, 1 batch;
    always 0 when ``typed`` is False). ``start_hour`` (0..23) is the clock
    hour at which the trace starts. ``seed`` (int ≥ 0, or a
    ``numpy.random.Generator`` to continue) seeds one ``Generator(PCG64(seed))``;
    the same arguments give identical arrays.
    """
    n_jobs = _check_int("n_jobs", n_jobs)
    machine_size = _check_int("machine_size", machine_size)
    start_hour = _check_int("start_hour", start_hour, minimum=0)
    if start_hour > 23:
        raise ValueError(f"start_hour must be in 0..23, got {start_hour}")
    return _generate_lublin(_generator(seed), n_jobs, machine_size, bool(typed), start_hour)


# ---------------------------------------------------------------------------
# Part 2 — Tsafrir, Etsion & Feitelson user runtime estimates
# ---------------------------------------------------------------------------

HEAD_LENGTH = 20
HEAD_PERCENT = 89.0
MIN_TMAX = 5701          # the head needs Tmax > 5700 to reach 20 values (§2.2)
MIN_JOBS = 227           # K > 20 needs N > 226 (§2.4 step 1)

_K_POINTS = ((0, 0), (20, 10), (200, 20), (1_000, 35), (10_000, 90), (70_000, 340), (250_000, 565))
_MINUTE, _HOUR = 60, 3600
# values among the 20 most popular in all four studied logs, in the model's order (§2.3)
JOINT_VALUES = tuple(int(v) for v in (5 * _MINUTE, 15 * _MINUTE, 10 * _MINUTE, 20 * _MINUTE, 30 * _MINUTE,
                                      1 * _HOUR, 2 * _HOUR, 3 * _HOUR, 4 * _HOUR, 5 * _HOUR, 6 * _HOUR,
                                      8 * _HOUR, 10 * _HOUR, 12 * _HOUR, 18 * _HOUR))
ROUND_MULTIPLES = (200 * _HOUR, 100 * _HOUR, 50 * _HOUR, 10 * _HOUR, 5 * _HOUR, 2 * _HOUR, 1 * _HOUR,
                   20 * _MINUTE, 10 * _MINUTE, 5 * _MINUTE)
# row ttr (0 = Tmax, then increasing head values): popularity rank in SDSC, CTC, KTH, SDSC-BLUE (§2.3)
TIME_RANK_TO_POPULARITY = (
    (3, 1, 1, 1), (1, 3, 4, 6), (4, 4, 10, 5), (17, 2, 14, 3), (13, 12, 20, 7),
    (7, 9, 2, 2), (8, 8, 3, 18), (18, 18, 7, 19), (2, 6, 12, 4), (6, 7, 6, 11),
    (16, 11, 19, 20), (10, 20, 5, 9), (5, 16, 18, 10), (15, 5, 16, 14), (14, 14, 9, 13),
    (19, 13, 17, 16), (11, 10, 15, 15), (12, 15, 13, 17), (9, 17, 8, 8), (20, 19, 11, 12),
)
# bound[R]: the largest ttr at which rank R appears in any log
RANK_BOUND = {rank: max(ttr for ttr, row in enumerate(TIME_RANK_TO_POPULARITY) if rank in row)
              for rank in range(1, HEAD_LENGTH + 1)}
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
    return 1.0 + 12.1039 * k ** -0.6026


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
        settled = [rank for rank in range(1, HEAD_LENGTH + 1)
                   if rank not in ranks and RANK_BOUND[rank] <= ttr]
        if ttr == 0:
            rank = 1                       # Tmax is the most popular value
        elif settled:
            rank = min(settled)            # seen by now in all four logs
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


def _check_tmax(tmax) -> int:
    if isinstance(tmax, bool) or not isinstance(tmax, (int, np.integer)) or tmax < MIN_TMAX:
        raise ValueError(f"tmax must be an integer number of seconds > 5700 (the model needs 20 head "
                         f"values), got {tmax!r}")
    return int(tmax)


def _build_histogram(rng: np.random.Generator, n_jobs: int, tmax: int, k: int | None,
                     a: float | None) -> tuple[np.ndarray, np.ndarray]:
    k = tsafrir_k(n_jobs) if k is None else k
    a = tsafrir_shape(k) if a is None else a
    head = tsafrir_head_values(tmax)
    sizes = _head_sizes()
    head_percent = [sizes[rank - 1] for rank in _pool_mapping(rng)]
    tail = _tail_values(k - len(head), a, tmax, set(head))
    tail_percent = rng.permutation(_tail_sizes(len(tail)))    # random value ↔ size pairing (step 8)
    values = head + tail
    percent = head_percent + tail_percent.tolist()
    jobs = _equalise([max(1, _round_half_away(p * n_jobs / 100.0)) for p in percent], n_jobs)
    order = np.argsort(values)
    values_arr, jobs_arr = np.array(values, np.int64)[order], np.array(jobs, np.int64)[order]
    keep = jobs_arr > 0
    return values_arr[keep], jobs_arr[keep]


def tsafrir_histogram(n_jobs: int, tmax: int, seed, k: int | None = None,
                      a: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The estimate histogram of §2.4: (values increasing, jobs per value), Σ jobs = N.

    ``k`` overrides the number of distinct values of the linear K-model and
    ``a`` the time-shape parameter. User bins (§2.5) are not implemented.
    ``seed`` is an int or a ``numpy.random.Generator``.
    """
    n_jobs = _check_int("n_jobs", n_jobs, minimum=MIN_JOBS)
    tmax = _check_tmax(tmax)
    if k is not None:
        k = _check_int("k", k, minimum=HEAD_LENGTH + 1)
    if a is not None and not a > 1:
        raise ValueError(f"a must be > 1, got {a}")
    return _build_histogram(_generator(seed), n_jobs, tmax, k, a)


def _assign(rng: np.random.Generator, estimates: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Hand estimates to jobs, longest job first, each uniformly among those ≥ its run time (§2.6)."""
    n = len(run)
    descending = np.sort(estimates)[::-1]
    run = np.minimum(run, descending[0])            # the model truncates runs longer than Tmax
    order = np.argsort(-run, kind="stable")
    eligible = n - np.searchsorted(descending[::-1], run[order], side="left")
    position = np.arange(n)
    if np.any(eligible <= position):
        k = int(np.flatnonzero(eligible <= position)[0])
        raise ValueError(f"the estimate histogram cannot cover the run times: the {k + 1}-th longest "
                         f"run ({run[order][k]} s) exceeds the {k + 1}-th largest estimate; "
                         f"raise tmax")
    # slots [k, eligible_k) of the array hold exactly the unassigned estimates ≥ the k-th run
    picks = position + np.floor(rng.random(n) * (eligible - position)).astype(np.int64)
    pool = descending.tolist()
    for k, pick in enumerate(picks.tolist()):
        pool[k], pool[pick] = pool[pick], pool[k]
    assigned = np.empty(n, np.int64)
    assigned[order] = pool
    return assigned


def tsafrir_estimates(run, seed, tmax: int | None = None, k: int | None = None,
                      a: float | None = None) -> np.ndarray:
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
    tmax = _check_tmax(math.ceil(run.max()) if tmax is None else tmax)
    rng = _generator(seed)
    values, counts = tsafrir_histogram(len(run), tmax, rng, k, a)
    return _assign(rng, np.repeat(values, counts), run)


# ---------------------------------------------------------------------------
# Both together
# ---------------------------------------------------------------------------

def lublin_workload(n_jobs: int, machine_size: int, seed: int, typed: bool = True, *,
                    start_hour: int = 0, tmax: int = LUBLIN_MAX_RUNTIME,
                    estimates: str = "tsafrir") -> Workload:
    """A validated Workload: Lublin jobs with Tsafrir requested times.

    ``tmax`` is the maximal estimate; the default is the Lublin run-time cap
    (§2.7: "synthetic workload with a known run-time cap: that cap"), so no
    run time is cut. A smaller tmax (the model's documentation uses 36 000 s)
    truncates longer runs to tmax, as the model does. ``estimates="exact"``
    sets requested = run instead (no minimum job count). Neither model has
    users, so every job belongs to user 1 (per-user predictors then see one
    user). Job ids are 1..n in submit order; times are whole seconds.
    """
    n_jobs = _check_int("n_jobs", n_jobs)
    machine_size = _check_int("machine_size", machine_size)
    if estimates not in ("tsafrir", "exact"):
        raise ValueError(f"estimates must be 'tsafrir' or 'exact', got {estimates!r}")
    if estimates == "tsafrir" and n_jobs < MIN_JOBS:
        raise ValueError(f"the Tsafrir estimate model needs n_jobs >= {MIN_JOBS}, got {n_jobs}; "
                         f"use estimates='exact' for smaller workloads")
    if estimates == "tsafrir":
        tmax = _check_tmax(tmax)
    rng = _generator(seed)             # one generator for both models: no shared random stream
    jobs = lublin_jobs(n_jobs, machine_size, rng, typed, start_hour)
    if estimates == "tsafrir":
        run = np.minimum(jobs["run"], tmax)
        requested = tsafrir_estimates(run, rng, tmax=tmax)
        described, limit = f"tsafrir tmax={tmax}", tmax
    else:
        run = jobs["run"]
        requested = run
        described, limit = "exact estimates", LUBLIN_MAX_RUNTIME
    source = (f"lublin(m={machine_size}, jobs={n_jobs}, seed={seed}, "
              f"{'typed' if typed else 'typeless'}, start_hour={start_hour}, {described})")
    workload = Workload(
        job_id=np.arange(1, n_jobs + 1, dtype=np.int64),
        submit=jobs["submit"].astype(np.float64),
        run=run.astype(np.float64),
        requested=requested.astype(np.float64),
        procs=jobs["procs"],
        user=np.ones(n_jobs, dtype=np.int64),
        machine_size=machine_size,
        source=source,
        header={"MaxJobs": str(n_jobs), "MaxRecords": str(n_jobs), "MaxNodes": str(machine_size),
                "MaxProcs": str(machine_size), "MaxRuntime": str(limit),
                "Note": source},
    )
    workload.validate()
    return workload
