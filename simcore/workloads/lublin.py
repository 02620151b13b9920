"""Synthetic workloads: Lublin–Feitelson rigid jobs (with Tsafrir user estimates).

The specification is summarised in ``docs/workload_models.md`` ("the doc" below;
the papers are cited in ``docs/references.md``); section numbers in docstrings
refer to it.

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

import numpy as np

from simcore.engine.workload import Workload
from simcore.workloads.tsafrir import MIN_JOBS, check_int, check_tmax, make_generator, tsafrir_estimates


def gamma_cdf(x: float, shape: float, scale: float) -> float:
    """G(x; α, β) = P(α, x/β) for Gamma(shape α, scale β) (§1.2): SciPy's
    regularized lower incomplete gamma."""
    from scipy.special import gammainc  # here: importing scipy costs every command 0.2 s

    return float(gammainc(shape, x / scale))


# ---------------------------------------------------------------------------
# Part 1 — Lublin & Feitelson
# ---------------------------------------------------------------------------

INTERACTIVE, BATCH = 0, 1  # job type codes (SWF field 15), §1.3
RUNTIME_LOG_CAP = 12.0  # draws of ln r above this are redrawn
ARRIVAL_LOG_CAP = 13.0  # draws of the log inter-arrival points above this are redrawn
LUBLIN_MAX_RUNTIME = math.floor(math.exp(RUNTIME_LOG_CAP))  # 162 754 s
SECONDS_PER_BUCKET = 1800
BUCKETS_PER_DAY = 48
CYCLIC_DAY_START = 11
DEFAULT_MACHINE_SIZE = 128  # the machine the published parameters describe


@dataclass(frozen=True)
class LublinParams:
    """One parameter set of §1.3 (batch, interactive or typeless)."""

    serial: float  # S: probability of a serial job
    pow2: float  # P2: probability (among all jobs) of a forced power-of-two job
    u_low: float  # two-stage uniform of log2(size): ULow, UMed, UHi, Uprob
    u_med: float
    u_hi: float
    u_prob: float
    a1: float  # hyper-gamma of ln(run time): Gamma(a1, b1) w.p. p, else Gamma(a2, b2)
    b1: float
    a2: float
    b2: float
    pa: float  # p = pa * size + pb, clamped to [0, 1]
    pb: float
    aarr: float  # Gamma(aarr * arar, barr) of the log inter-arrival points
    barr: float
    arar: float
    anum: float  # Gamma(anum, bnum) shaping the daily cycle
    bnum: float


BATCH_128 = LublinParams(
    serial=0.2927,
    pow2=0.6686,
    u_low=1.2,
    u_med=5.0,
    u_hi=7.0,
    u_prob=0.875,
    a1=6.57,
    b1=0.823,
    a2=639.1,
    b2=0.0156,
    pa=-0.003,
    pb=0.6986,
    aarr=6.0415,
    barr=0.8531,
    arar=1.0519,
    anum=6.1271,
    bnum=5.2740,
)
INTERACTIVE_128 = LublinParams(
    serial=0.1541,
    pow2=0.625,
    u_low=1.0,
    u_med=3.0,
    u_hi=5.5,
    u_prob=0.705,
    a1=3.8351,
    b1=0.6605,
    a2=7.073,
    b2=0.6856,
    pa=-0.0118,
    pb=0.9156,
    aarr=6.5510,
    barr=0.6621,
    arar=0.9797,
    anum=8.9186,
    bnum=3.6680,
)
TYPELESS_128 = LublinParams(
    serial=0.244,
    pow2=0.576,
    u_low=0.8,
    u_med=4.5,
    u_hi=7.0,
    u_prob=0.86,
    a1=4.2,
    b1=0.94,
    a2=312.0,
    b2=0.03,
    pa=-0.0054,
    pb=0.78,
    aarr=10.2303,
    barr=0.4871,
    arar=1.0225,
    anum=8.1737,
    bnum=3.9631,
)


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


def _capped_gamma(rng: np.random.Generator, shape: float, scale: float, cap: float, size: int) -> np.ndarray:
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
    cycle = np.roll(weights, -start_bucket)  # cycle[j] = weight of the j-th bucket after the start
    ends = np.cumsum(cycle)
    per_day = ends[-1]
    days = np.floor(points / per_day)
    within = points - days * per_day
    bucket = np.minimum(np.searchsorted(ends, within, side="left"), BUCKETS_PER_DAY - 1)
    fraction = (within - (ends[bucket] - cycle[bucket])) / cycle[bucket]
    return SECONDS_PER_BUCKET * (days * BUCKETS_PER_DAY + bucket + fraction)


def _arrival_times(rng: np.random.Generator, params: LublinParams, count: int, start_hour: int) -> np.ndarray:
    """The first `count` arrival times (real seconds) of one stream (§1.6)."""
    g = _capped_gamma(rng, params.aarr * params.arar, params.barr, ARRIVAL_LOG_CAP, count)
    points = np.cumsum(np.exp(g) / SECONDS_PER_BUCKET)
    return _clock_times(points, daily_cycle_weights(params), 2 * start_hour)


def _merge_streams(interactive: np.ndarray, batch: np.ndarray, n_jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """The first n_jobs arrivals of both streams, by time (§1.6 "Merging").

    Equal times go to the interactive stream first, as in the reference.
    """
    times = np.concatenate([interactive, batch])
    types = np.concatenate([np.full(len(interactive), INTERACTIVE, np.int8), np.full(len(batch), BATCH, np.int8)])
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
    size = np.where(u <= serial, 1.0, _round_half_up(2.0**log_size))
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
        draw = rng.gamma(
            np.where(first, shapes[0][pending], shapes[1][pending]),
            np.where(first, scales[0][pending], scales[1][pending]),
        )
        accepted = draw <= RUNTIME_LOG_CAP
        h[pending[accepted]] = draw[accepted]
        pending = pending[~accepted]
    return np.floor(np.exp(h)).astype(np.int64)


def _generate_lublin(
    rng: np.random.Generator, n_jobs: int, machine_size: int, typed: bool, start_hour: int
) -> dict[str, np.ndarray]:
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


def lublin_jobs(
    n_jobs: int, machine_size: int, seed: int, typed: bool = True, start_hour: int = 0
) -> dict[str, np.ndarray]:
    """Jobs of the Lublin & Feitelson model (Part 1), sorted by submit time.

    Returns a dict of equal-length arrays: ``submit`` (int64 s from the trace
    start, floored from the real-valued clock), ``procs`` (int64, 1..m),
    ``run`` (int64 s, 1..162 754) and ``type`` (int8, 0 interactive, 1 batch;
    always 0 when ``typed`` is False). ``start_hour`` (0..23) is the clock
    hour at which the trace starts. ``seed`` (int ≥ 0, or a
    ``numpy.random.Generator`` to continue) seeds one ``Generator(PCG64(seed))``;
    the same arguments give identical arrays.
    """
    n_jobs = check_int("n_jobs", n_jobs)
    machine_size = check_int("machine_size", machine_size)
    start_hour = check_int("start_hour", start_hour, minimum=0)
    if start_hour > 23:
        raise ValueError(f"start_hour must be in 0..23, got {start_hour}")
    return _generate_lublin(make_generator(seed), n_jobs, machine_size, bool(typed), start_hour)


# ---------------------------------------------------------------------------
# Both together
# ---------------------------------------------------------------------------


def lublin_workload(
    n_jobs: int,
    machine_size: int,
    seed: int,
    typed: bool = True,
    *,
    start_hour: int = 0,
    tmax: int = LUBLIN_MAX_RUNTIME,
    estimates: str = "tsafrir",
) -> Workload:
    """A validated Workload: Lublin jobs with Tsafrir requested times.

    ``tmax`` is the maximal estimate; the default is the Lublin run-time cap
    (§2.7: "synthetic workload with a known run-time cap: that cap"), so no
    run time is cut. A smaller tmax (the model's documentation uses 36 000 s)
    truncates longer runs to tmax, as the model does. ``estimates="exact"``
    sets requested = run instead (no minimum job count). Neither model has
    users, so every job belongs to user 1 (per-user predictors then see one
    user). Job ids are 1..n in submit order; times are whole seconds.
    """
    n_jobs = check_int("n_jobs", n_jobs)
    machine_size = check_int("machine_size", machine_size)
    if estimates not in ("tsafrir", "exact"):
        raise ValueError(f"estimates must be 'tsafrir' or 'exact', got {estimates!r}")
    if estimates == "tsafrir" and n_jobs < MIN_JOBS:
        raise ValueError(
            f"the Tsafrir estimate model needs n_jobs >= {MIN_JOBS}, got {n_jobs}; "
            f"use estimates='exact' for smaller workloads"
        )
    if estimates == "tsafrir":
        tmax = check_tmax(tmax)
    rng = make_generator(seed)  # one generator for both models: no shared random stream
    jobs = lublin_jobs(n_jobs, machine_size, rng, typed, start_hour)
    if estimates == "tsafrir":
        run = np.minimum(jobs["run"], tmax)
        requested = tsafrir_estimates(run, rng, tmax=tmax)
        described, limit = f"tsafrir tmax={tmax}", tmax
    else:
        run = jobs["run"]
        requested = run
        described, limit = "exact estimates", LUBLIN_MAX_RUNTIME
    source = (
        f"lublin(m={machine_size}, jobs={n_jobs}, seed={seed}, "
        f"{'typed' if typed else 'typeless'}, start_hour={start_hour}, {described})"
    )
    workload = Workload(
        job_id=np.arange(1, n_jobs + 1, dtype=np.int64),
        submit=jobs["submit"].astype(np.float64),
        run=run.astype(np.float64),
        requested=requested.astype(np.float64),
        procs=jobs["procs"],
        user=np.ones(n_jobs, dtype=np.int64),
        machine_size=machine_size,
        source=source,
        header={
            "MaxJobs": str(n_jobs),
            "MaxRecords": str(n_jobs),
            "MaxNodes": str(machine_size),
            "MaxProcs": str(machine_size),
            "MaxRuntime": str(limit),
            "Note": source,
        },
    )
    workload.validate()
    return workload
