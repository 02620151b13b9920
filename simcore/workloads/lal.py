"""A seeded synthetic workload shaped like the LAL grid log of the elastic-computing paper.

J. Perez, C. Germain-Renaud, B. Kégl, C. Loomis, "Responsive Elastic Computing", GMAC'09 (Grids
Meets Autonomic Computing) at ICAC 2009, Barcelona, pp. 55-64, doi:10.1145/1555301.1555311.
§4.2 describes the PBS log of the LAL site of EGEE: 81 cores, more than 9,000 serial jobs over
more than seven weeks, utilisation 0.56, a bursty service request (Fig. 3), jobs below 900 s
tagged interactive and the others batch (Table 1), and the target VO share vector.

The model: a two-state Markov-modulated Poisson process of arrivals, rescaled so that the stream's
load is exactly `load`; each job independently interactive (a mixture of very short jobs and a
truncated normal) or batch (a lognormal above 900 s), and of a VO drawn with the paper's shares.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from simcore.engine.workload import Workload
from simcore.workloads.tsafrir import check_int

LAL_MACHINE_SIZE = 81  # §4.2: "the number of available cores is fairly constant (P = 81)"
LAL_LOAD = 0.56  # §4.2: "the overall utilization remains moderate, at 0.56"

INTERACTIVE_BELOW = 900  # §4.2: jobs with an execution time below 900 s are interactive
INTERACTIVE_SHARE = 4480 / 9500  # Table 1: 4,480 interactive jobs, 5,020 batch

# Interactive run times, Table 1: mean 160 s, median 190 s, std 108 s. The median above the mean
# rules out a unimodal right-skewed law, so a mixture (chosen): SHORT_SHARE of the jobs uniform on
# whole seconds SHORT_MIN..SHORT_MAX (jobs that fail or exit at once), the others a normal
# truncated to [1, INTERACTIVE_BELOW - 1]. The three numbers solve (scipy.optimize.fsolve) the
# mixture's exact mean, median and std = Table 1's; rounded, they give 160.0, 190.0, 108.0 s.
SHORT_MIN, SHORT_MAX = 1, 20
SHORT_SHARE = 0.2925
INTERACTIVE_MEAN = 221.8
INTERACTIVE_SD = 58.5

# Batch run times, Table 1: median 15,615 s, mean 34,927 s; a lognormal with that median, and σ
# from mean/median = exp(σ²/2). Draws below 900 s (1.2 %) are redrawn, the law conditioned on
# being batch: median 15,922 s, mean 35,353 s, std 70,208 s (Table 1: 78,755 s). No cap: the
# paper states none, and one would move the std further below Table 1's.
BATCH_MEDIAN = 15_615
BATCH_MEAN = 34_927
BATCH_SIGMA = math.sqrt(2.0 * math.log(BATCH_MEAN / BATCH_MEDIAN))  # 1.269

# §4.2: the target share vector of work of the six significant VOs, the last entry "the
# aggregation of the small VOs". Groups 1..6 are the six; the rest is split evenly over
# REST_GROUPS groups (chosen: several small VOs, as in the log, not one).
VO_SHARES = (0.53, 0.02, 0.17, 0.08, 0.01, 0.16, 0.03)
REST_GROUPS = 3
GROUP_PROBABILITIES = np.array(VO_SHARES[:-1] + (VO_SHARES[-1] / REST_GROUPS,) * REST_GROUPS)

# Arrivals (chosen; Fig. 3: "the service request is a bursty process"): calm and burst states with
# exponential durations, the burst rate 10x the calm one. The scale makes the mean rate, 2.4e-3
# jobs/s, about LAL's at 0.56 load, so the final rescaling stays near 1: a burst of 4 h (about 180
# jobs) every 1.5 days, 10 % of the time and half of the jobs.
CALM_RATE = 1.26e-3  # jobs per second, one every 13 min
BURST_RATE = 10 * CALM_RATE
CALM_MEAN_DURATION = 36 * 3600.0  # seconds
BURST_MEAN_DURATION = 4 * 3600.0


def _check_load(load) -> float:
    if isinstance(load, bool) or not isinstance(load, (int, float, np.integer, np.floating)) or not 0 < load <= 1:
        raise ValueError(f"load must be a number in (0, 1], got {load!r}")
    return float(load)


def _redrawn_outside(draw, low: float, high: float, size: int) -> np.ndarray:
    """`size` values of `draw(k)` conditioned on [low, high]: out-of-range ones are drawn again."""
    values = draw(size)
    bad = np.flatnonzero((values < low) | (values > high))
    while len(bad):
        values[bad] = draw(len(bad))
        bad = bad[(values[bad] < low) | (values[bad] > high)]
    return values


def _bursty_arrivals(rng: np.random.Generator, jobs: int) -> np.ndarray:
    """The first `jobs` arrival times (s, sorted) of the calm/burst Markov-modulated Poisson process,
    starting calm: per state period a Poisson count, its arrivals uniform in the period."""
    jobs_per_cycle = CALM_RATE * CALM_MEAN_DURATION + BURST_RATE * BURST_MEAN_DURATION
    chunks, found, clock = [], 0, 0.0
    while found < jobs:  # one pass but for a rare shortfall
        cycles = math.ceil(1.5 * (jobs - found) / jobs_per_cycle) + 4
        durations = np.empty(2 * cycles)
        durations[0::2] = rng.exponential(CALM_MEAN_DURATION, cycles)
        durations[1::2] = rng.exponential(BURST_MEAN_DURATION, cycles)
        rates = np.tile([CALM_RATE, BURST_RATE], cycles)
        counts = rng.poisson(rates * durations)
        ends = clock + np.cumsum(durations)
        starts = ends - durations
        total = int(counts.sum())
        chunks.append(np.sort(np.repeat(starts, counts) + rng.random(total) * np.repeat(durations, counts)))
        found += total
        clock = float(ends[-1])
    return np.concatenate(chunks)[:jobs]


def lal_workload(jobs: int, seed: int, machine_size: int = LAL_MACHINE_SIZE, load: float = LAL_LOAD) -> Workload:
    """`jobs` serial jobs shaped like the LAL log (Table 1, §4.2), their submit times scaled so that
    Σ run / (machine_size · (last submit − first submit)) = `load` (up to flooring to seconds).

    Job ids 1..jobs in submit order; `group` is the VO (1..6 the paper's six, 7..9 the small
    ones) and `user` the same; `requested` = `run`; no recorded waits. The same arguments give
    the same arrays, bit for bit.
    """
    jobs = check_int("jobs", jobs, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    machine_size = check_int("machine_size", machine_size, minimum=1)
    load = _check_load(load)
    rng = np.random.Generator(np.random.PCG64(seed))

    arrivals = _bursty_arrivals(rng, jobs)
    interactive = rng.random(jobs) < INTERACTIVE_SHARE
    n_interactive = int(interactive.sum())

    short = rng.random(n_interactive) < SHORT_SHARE
    short_runs = rng.integers(SHORT_MIN, SHORT_MAX + 1, n_interactive)
    normal_runs = _redrawn_outside(
        lambda k: rng.normal(INTERACTIVE_MEAN, INTERACTIVE_SD, k), 1, INTERACTIVE_BELOW - 1, n_interactive
    )
    batch_runs = _redrawn_outside(
        lambda k: rng.lognormal(math.log(BATCH_MEDIAN), BATCH_SIGMA, k), INTERACTIVE_BELOW, np.inf, jobs - n_interactive
    )
    run = np.empty(jobs)
    run[interactive] = np.where(short, short_runs, np.rint(normal_runs))
    run[~interactive] = np.rint(batch_runs)

    group = rng.choice(len(GROUP_PROBABILITIES), size=jobs, p=GROUP_PROBABILITIES).astype(np.int64) + 1

    # one factor for the whole stream keeps its burst structure; flooring keeps it sorted
    offsets = arrivals - arrivals[0]
    scale = run.sum() / (machine_size * load * offsets[-1])
    submit = np.floor(offsets * scale)

    workload = Workload.from_arrays(
        submit, run, run, np.ones(jobs, dtype=np.int64), machine_size, user=group, source=f"lal-model (seed {seed})"
    )
    return replace(workload, group=group[workload.job_id - 1])
