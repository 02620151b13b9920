"""CPU efficiency and memory per processor for model traces (co-scheduling, docs/coscheduling.md §1, §6).

Model traces (Lublin–Feitelson, :mod:`simcore.workloads.lublin`) record
neither the CPU efficiency ``u_j`` nor the memory per processor ``mem_j`` that
the co-scheduling study needs. :func:`apply_profile` draws both for every job
from a *sharing profile* fitted on a real trace that records them:

* ``"gaia"``: UniLu-Gaia-2014-2 (primary: mostly idle CPUs, median u 0.085);
* ``"hpc2n"``: HPC2N-2002-2.2-cln (control: CPU-bound, work-weighted u 0.94,
  memory a 409,600 KB default for 94% of jobs).

The model, conditioned only on what a model trace has (size ``q_j`` and run
time ``W_j``), with parameters in :data:`SHARING_PROFILES`:

* **Cells.** Efficiency depends on the size class (1 / 2–8 / 9–32 / >32
  processors: Gaia's medians 0.72 / 0.24 / 0.04 / 0.13) and on whether the
  job runs a day or more. Without the day split, jobs of a day or more, which
  carry two thirds of Gaia's core-seconds, get the efficiency of short jobs
  and the share of core-seconds below u = 0.5 comes out 0.93 instead of 0.87,
  even with the real values shuffled within each size class. A 1 h or 4 h
  split helps less. Memory depends on the size class only.
* **Efficiency in a cell**: a three-part mixture. ``p_near_zero``: the share of
  jobs with u <= 0.01, drawn uniform on [0, 0.01) (Gaia: 30% of the day-long
  9–32 jobs; below 1% the value no longer matters to sharing). ``p_near_one``:
  the share with u >= 0.99, drawn as exactly 1 (HPC2N: 60% of jobs; 62% of
  those are exactly 1 in the log, from f6 >= f4). The rest is a logit-logistic
  law on (0.01, 0.99): logit((u - 0.01) / 0.98) ~ Logistic(``logit_loc``,
  ``logit_scale``), fitted by maximum likelihood (``scipy.stats.logistic.fit``).
  Beta and logit-normal (Johnson SB) fits were tried too: a cell's long tail
  pulled them off its peak. For Gaia's short 9–32 jobs the generated median
  was 0.061 (Beta) and 0.046 (SB) against 0.038, with Kolmogorov–Smirnov
  distances of 0.29 and 0.16 against 0.11 for the logistic.
* **Memory in a size class**: empirical. ``quantiles_kb`` are observed values
  (KB per processor) at :data:`MEMORY_PROBABILITIES`; a draw interpolates
  geometrically between neighbouring quantiles (linearly in log memory), so a
  run of equal quantiles is a point mass (HPC2N's 409,600 KB). Draws are
  clipped to ``memory_capacity_kb``: the 99th percentile of known memory
  rounded up to a whole GiB (§1: Gaia 2 GiB, HPC2N 1 GiB). Lognormal and
  log-logistic fits were rejected: they put 5–8% of Gaia's serial jobs at
  capacity, where the log has 1.6%.
* **Efficiency and memory together**: a Gaussian copula. ``copula_rho`` is
  2 sin(π ρ_S / 6) for Spearman's ρ_S between u and memory within the size
  class (Gaia 9–32: ρ_S = 0.70; HPC2N: about 0).

Counts (``jobs``) are the jobs the fit used: those with a known value (SWF
f6 > 0 and f4 > 0 for efficiency; f7 or f10 > 0 for memory). Every drawn job
gets both values; the real traces' unknown shares (Gaia: 5.5% and 2.8%) are
not reproduced.

Not modelled: the user. One Gaia user submitted 82% of its 9–32-processor
jobs (19,307 runs of 10–60 min on 12 processors, median u 0.035), so the
Gaia 9–32 cell is largely that campaign, and user campaigns make the spikes
the smooth fits widen. Also not modelled: run time inside a cell; memory's
dependence on run time (Spearman's ρ up to 0.6 on Gaia's >32 class); phases
within a job (one u per job, as in §9.1).

A profile reproduces efficiency and memory *given* (q_j, W_j), not the
source trace's totals. A model trace has its own mix of sizes and run times:
Lublin at m = 128 has 59% of its jobs at 2–8 processors and hardly any job
of a day. So the Gaia profile gives it a median u of 0.18, not 0.085.

Refit: this prints SHARING_PROFILES as stored (floats to 4 significant
digits); paste it between the ``# fmt: off`` / ``# fmt: on`` lines::

    python -m simcore.workloads.sharing_profiles ../shared/pwa

Both traces are read with ``read_swf(path, filter="truncate")``, as in the
study. See ``docs/sharing_profiles.md`` for the fitted numbers and how well
they reproduce the traces.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from simcore.engine.swf import read_swf
from simcore.engine.workload import Workload
from simcore.workloads.tsafrir import make_generator

PROFILE_TRACES = {"gaia": "UniLu-Gaia-2014-2.swf.gz", "hpc2n": "HPC2N-2002-2.2-cln.swf.gz"}  # in a PWA mirror
NEAR_ZERO = 0.01  # u <= this: the near-zero part, drawn uniform on [0, NEAR_ZERO)
NEAR_ONE = 0.99  # u >= this: the near-one part, drawn as 1
SIZE_CLASSES = ("1", "2-8", "9-32", ">32")
SIZE_CLASS_STARTS = (2, 9, 33)  # first size of every class after the first
RUN_CLASSES = ("short", "long")
LONG_RUN = 86_400.0  # seconds: a job of a day or more is "long"
MEMORY_PROBABILITIES = (0.0, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 1.0)
GIB_KB = 1_048_576
MIN_FIT_JOBS = 20  # fewer known jobs in a cell: refuse to fit rather than print noise
SIGNIFICANT_DIGITS = 4  # of the stored floats; the refit test compares at this precision


class EfficiencyCell(NamedTuple):
    """Efficiency of the jobs of one (size class, run class) cell."""

    jobs: int  # jobs of known efficiency the fit used
    p_near_zero: float  # share with u <= NEAR_ZERO
    p_near_one: float  # share with u >= NEAR_ONE
    logit_loc: float  # the rest: logit((u - NEAR_ZERO) / (NEAR_ONE - NEAR_ZERO)) ~ Logistic(loc, scale)
    logit_scale: float


class MemoryClass(NamedTuple):
    """Memory per processor of the jobs of one size class."""

    jobs: int  # jobs of known memory the fit used
    copula_rho: float  # Gaussian-copula correlation with the job's efficiency
    quantiles_kb: tuple[int, ...]  # observed KB at MEMORY_PROBABILITIES


# Fitted by fit_profile; print with `python -m simcore.workloads.sharing_profiles ../shared/pwa`, do not edit.
# fmt: off
SHARING_PROFILES: dict[str, dict] = {
    "gaia": {
        "trace": "UniLu-Gaia-2014-2.swf.gz",
        "memory_capacity_kb": 2097152,
        "efficiency": {
            ("1", "short"): EfficiencyCell(17610, 0.02164, 0.1362, 0.4793, 1.237),
            ("1", "long"): EfficiencyCell(536, 0.001866, 0.2761, -0.9834, 2.086),
            ("2-8", "short"): EfficiencyCell(3290, 0.1061, 0.0006079, -1.082, 0.7859),
            ("2-8", "long"): EfficiencyCell(523, 0.1415, 0.0, -0.6575, 2.195),
            ("9-32", "short"): EfficiencyCell(24003, 0.01162, 0.001958, -3.427, 0.5216),
            ("9-32", "long"): EfficiencyCell(538, 0.3067, 0.005576, -2.776, 0.9034),
            (">32", "short"): EfficiencyCell(2459, 0.03294, 0.00122, -1.981, 0.5106),
            (">32", "long"): EfficiencyCell(120, 0.2833, 0.1417, -4.149, 0.8051),
        },
        "memory": {
            "1": MemoryClass(18305, 0.1494, (
                1024, 1024, 1024, 1024, 25600, 214016, 256000, 265216, 270336,
                274432, 280576, 496640, 832512, 890880, 1453056, 3344384, 38558720,
            )),
            "2-8": MemoryClass(4574, 0.3853, (
                128, 146, 171, 171, 171, 256, 2304, 10112, 15104,
                70656, 144384, 214400, 353792, 1138176, 2172416, 3303168, 10155008,
            )),
            "9-32": MemoryClass(24877, 0.713, (
                32, 85, 256, 1280, 18517, 25429, 30464, 35755, 42069,
                50859, 62293, 84480, 142848, 195840, 261717, 563712, 37733461,
            )),
            ">32": MemoryClass(2739, 0.2089, (
                5, 5, 9, 36, 341, 3371, 14734, 20514, 55211,
                81067, 160597, 238464, 309355, 366869, 510997, 725525, 5443031,
            )),
        },
    },
    "hpc2n": {
        "trace": "HPC2N-2002-2.2-cln.swf.gz",
        "memory_capacity_kb": 1048576,
        "efficiency": {
            ("1", "short"): EfficiencyCell(73372, 0.003503, 0.3329, 5.603, 1.673),
            ("1", "long"): EfficiencyCell(3904, 0.0007684, 0.2638, 6.414, 1.912),
            ("2-8", "short"): EfficiencyCell(58195, 0.01308, 0.8537, 1.659, 1.852),
            ("2-8", "long"): EfficiencyCell(3394, 0.003241, 0.5197, 0.7716, 1.705),
            ("9-32", "short"): EfficiencyCell(19316, 0.01781, 0.9038, 1.935, 2.021),
            ("9-32", "long"): EfficiencyCell(663, 0.006033, 0.9005, 1.591, 2.237),
            (">32", "short"): EfficiencyCell(3870, 0.005943, 0.947, 3.12, 1.612),
            (">32", "long"): EfficiencyCell(56, 0.01786, 0.875, 1.891, 1.679),
        },
        "memory": {
            "1": MemoryClass(86013, -0.05594, (
                1024, 409600, 409600, 409600, 409600, 409600, 409600, 409600, 409600,
                409600, 409600, 409600, 409600, 409600, 409600, 665600, 2048000,
            )),
            "2-8": MemoryClass(82743, -0.07866, (
                1024, 237568, 409600, 409600, 409600, 409600, 409600, 409600, 409600,
                409600, 409600, 409600, 409600, 409600, 524288, 524288, 1228800,
            )),
            "9-32": MemoryClass(27428, -0.006718, (
                1024, 46080, 76800, 409600, 409600, 409600, 409600, 409600, 409600,
                409600, 409600, 409600, 409600, 409600, 409600, 524288, 1024000,
            )),
            ">32": MemoryClass(4550, 0.0166, (
                7168, 11264, 14336, 25600, 409600, 409600, 409600, 409600, 409600,
                409600, 409600, 409600, 409600, 409600, 409600, 409600, 921600,
            )),
        },
    },
}
# fmt: on


def size_class(procs) -> np.ndarray:
    """Index into SIZE_CLASSES of each job size."""
    return np.digitize(np.asarray(procs), SIZE_CLASS_STARTS)


def run_class(run) -> np.ndarray:
    """Index into RUN_CLASSES of each run time W_j (seconds)."""
    return (np.asarray(run) >= LONG_RUN).astype(np.int64)


def memory_capacity_kb(memory: np.ndarray) -> int:
    """§1's default capacity: the 99th percentile of known memory, rounded up to a whole GiB."""
    known = memory[~np.isnan(memory)]
    return int(math.ceil(np.quantile(known, 0.99) / GIB_KB)) * GIB_KB


def copula_rho(spearman: float) -> float:
    """The Gaussian-copula correlation whose Spearman rank correlation is `spearman`."""
    return 2.0 * math.sin(math.pi * spearman / 6.0)


def fit_efficiency(values: np.ndarray) -> EfficiencyCell:
    """The three-part mixture of one cell, fitted on its known efficiencies."""
    from scipy import special, stats  # here: importing scipy.stats costs every command 0.7 s

    middle = values[(values > NEAR_ZERO) & (values < NEAR_ONE)]
    if len(middle) < 2:
        raise ValueError(f"only {len(middle)} efficiencies strictly between {NEAR_ZERO} and {NEAR_ONE}")
    loc, scale = stats.logistic.fit(special.logit((middle - NEAR_ZERO) / (NEAR_ONE - NEAR_ZERO)))
    return EfficiencyCell(
        jobs=len(values),
        p_near_zero=float(np.mean(values <= NEAR_ZERO)),
        p_near_one=float(np.mean(values >= NEAR_ONE)),
        logit_loc=float(loc),
        logit_scale=float(scale),
    )


def fit_profile(workload: Workload) -> dict:
    """Fit a sharing profile on a workload that records efficiency and memory.

    Returns the dict stored in SHARING_PROFILES (floats at full precision;
    :func:`format_profile` prints them as stored).
    """
    from scipy import stats  # here: importing scipy.stats costs every command 0.7 s

    efficiency, memory = workload.efficiency, workload.memory
    if np.isnan(efficiency).all() or np.isnan(memory).all():
        raise ValueError(f"{workload.source}: no known efficiency or memory to fit (a model trace?)")
    sizes, runs = size_class(workload.procs), run_class(workload.run)
    known_efficiency, known_memory = ~np.isnan(efficiency), ~np.isnan(memory)
    efficiency_cells, memory_classes = {}, {}
    for s, size_name in enumerate(SIZE_CLASSES):
        for r, run_name in enumerate(RUN_CLASSES):
            in_cell = known_efficiency & (sizes == s) & (runs == r)
            if in_cell.sum() < MIN_FIT_JOBS:
                raise ValueError(
                    f"{workload.source}: {in_cell.sum()} jobs of known efficiency in size class {size_name}, "
                    f"run class {run_name}; a fit needs {MIN_FIT_JOBS}"
                )
            efficiency_cells[(size_name, run_name)] = fit_efficiency(efficiency[in_cell])
        in_class = known_memory & (sizes == s)
        if in_class.sum() < MIN_FIT_JOBS:
            raise ValueError(
                f"{workload.source}: {in_class.sum()} jobs of known memory in size class {size_name}; "
                f"a fit needs {MIN_FIT_JOBS}"
            )
        both = in_class & known_efficiency
        quantiles = np.quantile(memory[in_class], MEMORY_PROBABILITIES, method="inverted_cdf")  # observed values
        memory_classes[size_name] = MemoryClass(
            jobs=int(in_class.sum()),
            copula_rho=copula_rho(float(stats.spearmanr(efficiency[both], memory[both]).statistic)),
            quantiles_kb=tuple(int(value) for value in quantiles),
        )
    return {
        "trace": Path(workload.source).name,
        "memory_capacity_kb": memory_capacity_kb(memory),
        "efficiency": efficiency_cells,
        "memory": memory_classes,
    }


def _number(value) -> str:
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = format(float(value), f".{SIGNIFICANT_DIGITS}g")
    return text if any(mark in text for mark in ".en") else text + ".0"  # keep floats floats: 0 -> 0.0


def format_profile(name: str, profile: dict) -> str:
    """Python source of one SHARING_PROFILES entry (floats to SIGNIFICANT_DIGITS), one cell a line."""
    lines = [
        f'    "{name}": {{',
        f'        "trace": "{profile["trace"]}",',
        f'        "memory_capacity_kb": {profile["memory_capacity_kb"]},',
        '        "efficiency": {',
    ]
    for (size, run), cell in profile["efficiency"].items():
        lines.append(f'            ("{size}", "{run}"): EfficiencyCell({", ".join(map(_number, cell))}),')
    lines += ["        },", '        "memory": {']
    for size, entry in profile["memory"].items():
        quantiles = [_number(value) for value in entry.quantiles_kb]
        lines.append(f'            "{size}": MemoryClass({_number(entry.jobs)}, {_number(entry.copula_rho)}, (')
        lines += [f"                {', '.join(quantiles[i : i + 9])}," for i in range(0, len(quantiles), 9)]
        lines.append("            )),")
    lines += ["        },", "    },"]
    return "\n".join(lines)


def efficiency_quantile(p: np.ndarray, cell: EfficiencyCell) -> np.ndarray:
    """The inverse CDF of one cell's efficiency mixture at probabilities p."""
    from scipy import special, stats  # here: importing scipy.stats costs every command 0.7 s

    p0, p1 = cell.p_near_zero, cell.p_near_one
    near_zero, near_one = p < p0, p >= 1.0 - p1
    middle = ~near_zero & ~near_one
    u = np.ones_like(p)
    u[near_zero] = NEAR_ZERO * p[near_zero] / p0
    logit = stats.logistic.ppf((p[middle] - p0) / (1.0 - p0 - p1), cell.logit_loc, cell.logit_scale)
    u[middle] = NEAR_ZERO + (NEAR_ONE - NEAR_ZERO) * special.expit(logit)
    return u


def memory_quantile(p: np.ndarray, entry: MemoryClass) -> np.ndarray:
    """The inverse CDF of one size class's memory (KB) at probabilities p."""
    probabilities = np.asarray(MEMORY_PROBABILITIES)
    knots = np.asarray(entry.quantiles_kb, dtype=np.float64)
    i = np.clip(np.searchsorted(probabilities, p, side="right") - 1, 0, len(probabilities) - 2)
    t = (p - probabilities[i]) / (probabilities[i + 1] - probabilities[i])
    # Geometric, not exp(interp(log)): equal neighbours give the knot exactly (a point mass).
    return knots[i] * (knots[i + 1] / knots[i]) ** t


def apply_profile(workload: Workload, profile: str, seed: int) -> Workload:
    """The workload with `efficiency` and `memory` drawn for every job from a sharing profile.

    Any recorded values are replaced. One Generator(PCG64(seed)) draws two
    standard normals per job (efficiency, then the memory noise), so the same
    seed gives the same bits.
    """
    from scipy import stats  # here: importing scipy.stats costs every command 0.7 s

    if profile not in SHARING_PROFILES:
        raise ValueError(f"unknown sharing profile {profile!r}; choose one of {', '.join(SHARING_PROFILES)}")
    parameters = SHARING_PROFILES[profile]
    rng = make_generator(seed)
    n = len(workload)
    efficiency_normal, memory_noise = rng.standard_normal((2, n))
    efficiency_p = stats.norm.cdf(efficiency_normal)
    efficiency = np.empty(n)
    memory = np.empty(n)
    sizes, runs = size_class(workload.procs), run_class(workload.run)
    for s, size_name in enumerate(SIZE_CLASSES):
        for r, run_name in enumerate(RUN_CLASSES):
            jobs = (sizes == s) & (runs == r)
            efficiency[jobs] = efficiency_quantile(efficiency_p[jobs], parameters["efficiency"][(size_name, run_name)])
        jobs = sizes == s
        entry = parameters["memory"][size_name]
        rho = entry.copula_rho
        memory_normal = rho * efficiency_normal[jobs] + math.sqrt(1.0 - rho * rho) * memory_noise[jobs]
        memory[jobs] = memory_quantile(stats.norm.cdf(memory_normal), entry)
    memory = np.minimum(memory, parameters["memory_capacity_kb"])
    drawn = replace(
        workload,
        efficiency=efficiency,
        memory=memory,
        source=f"{workload.source} sharing profile={profile} seed={seed}",
    )
    drawn.validate()
    return drawn


def main(argv=None) -> None:
    """Refit both profiles from a PWA mirror and print SHARING_PROFILES."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.exit("usage: python -m simcore.workloads.sharing_profiles PWA_DIRECTORY")
    print("SHARING_PROFILES: dict[str, dict] = {")
    for name, trace in PROFILE_TRACES.items():
        print(format_profile(name, fit_profile(read_swf(Path(argv[0]) / trace, filter="truncate"))))
    print("}")


if __name__ == "__main__":
    main()
