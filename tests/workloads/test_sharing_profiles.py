"""Sharing profiles: CPU efficiency and memory drawn for model traces (simcore/workloads/sharing_profiles.py).

Tolerances of the real-trace comparisons (the profile applied to the trace's
own sizes and run times, statistics over the jobs whose efficiency the log
records). Each is the model's bias plus about 3 standard deviations of the
statistic from seed to seed, both measured on seeds 0..49:

| statistic | real | generated mean | seed s.d. | tolerance |
|---|---|---|---|---|
| Gaia median u | 0.0846 | 0.0852 | 0.0007 | 0.005 |
| Gaia share of core-seconds with u < 0.5 | 0.866 | 0.877 | 0.012 | 0.05 |
| Gaia median u of 9-32-processor jobs | 0.0378 | 0.0405 | 0.0002 | 0.005 |
| Gaia Spearman(u, memory), 9-32 processors | 0.696 | 0.693 | 0.003 | 0.02 |
| HPC2N work-weighted u | 0.944 | 0.935 | 0.002 | 0.015 |

The core-second statistics vary most: a few jobs of days on dozens of
processors carry much of the weight.
"""

import numpy as np
import pytest
from scipy import stats

import simcore
from simcore.workloads.lublin import lublin_workload
from simcore.workloads.sharing_profiles import (
    PROFILE_TRACES,
    SHARING_PROFILES,
    apply_profile,
    fit_profile,
    format_profile,
)

TRACE_NAMES = {"gaia": "UniLu-Gaia", "hpc2n": "HPC2N"}  # keys of conftest.TRACE_FILES
SEED = 1


@pytest.fixture(scope="module")
def real_workload(pwa_trace):
    """The real trace a profile was fitted on, read as the study reads it (once per module)."""
    cache = {}

    def get(profile):
        if profile not in cache:
            cache[profile] = simcore.read_swf(pwa_trace(TRACE_NAMES[profile]), filter="truncate")
        return cache[profile]

    return get


@pytest.fixture(scope="module")
def model_trace():
    return lublin_workload(2000, 128, 7, estimates="exact")


def every_cell_workload():
    """Sizes in every size class and run times on both sides of a day, including 0 s."""
    procs = np.repeat([1, 2, 8, 9, 32, 33, 64], 40)
    run = np.tile([0, 1, 600, 86_399, 86_400, 200_000, 300_000, 3600], 35)
    return simcore.Workload.from_arrays(
        submit=np.arange(len(procs)), run=run, requested=run + 1, procs=procs, machine_size=64, source="cells"
    )


def core_second_statistics(efficiency, workload, jobs):
    """Median u, share of core-seconds from jobs with u < 0.5, and work-weighted u over `jobs`."""
    core_seconds = (workload.procs * workload.run)[jobs]
    total = core_seconds.sum()
    u = efficiency[jobs]
    return float(np.median(u)), core_seconds[u < 0.5].sum() / total, (u * core_seconds).sum() / total


# --- (a) determinism and range ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", SHARING_PROFILES)
def test_same_seed_same_bits(model_trace, profile):
    first, again = apply_profile(model_trace, profile, 3), apply_profile(model_trace, profile, 3)
    assert first.efficiency.tobytes() == again.efficiency.tobytes()
    assert first.memory.tobytes() == again.memory.tobytes()
    other = apply_profile(model_trace, profile, 4)
    assert not np.array_equal(first.efficiency, other.efficiency)
    assert not np.array_equal(first.memory, other.memory)
    assert first.source == f"{model_trace.source} sharing profile={profile} seed=3"
    for name in ("job_id", "submit", "run", "requested", "procs", "user"):
        assert np.array_equal(getattr(first, name), getattr(model_trace, name)), name
    assert np.isnan(model_trace.efficiency).all() and np.isnan(model_trace.memory).all()  # input untouched


@pytest.mark.parametrize("profile", SHARING_PROFILES)
@pytest.mark.parametrize("workload", ["model", "cells"])
def test_values_in_range(model_trace, profile, workload):
    jobs = model_trace if workload == "model" else every_cell_workload()
    drawn = apply_profile(jobs, profile, SEED)
    capacity = SHARING_PROFILES[profile]["memory_capacity_kb"]
    assert np.all((drawn.efficiency >= 0) & (drawn.efficiency <= 1)), "efficiency outside [0, 1] or NaN"
    assert np.all((drawn.memory > 0) & (drawn.memory <= capacity)), "memory outside (0, capacity] or NaN"


def test_capacities_are_the_study_defaults():
    assert SHARING_PROFILES["gaia"]["memory_capacity_kb"] == 2 * 1_048_576  # docs/coscheduling.md §6: 2 GiB
    assert SHARING_PROFILES["hpc2n"]["memory_capacity_kb"] == 1_048_576  # 1 GiB


def test_unknown_profile_names_the_choices(model_trace):
    with pytest.raises(ValueError, match=r"unknown sharing profile 'Gaia'; choose one of gaia, hpc2n"):
        apply_profile(model_trace, "Gaia", SEED)


def test_bad_seed_is_refused(model_trace):
    with pytest.raises(ValueError, match="seed"):
        apply_profile(model_trace, "gaia", -1)


def test_fit_refuses_a_trace_without_efficiency(model_trace):
    with pytest.raises(ValueError, match="no known efficiency or memory"):
        fit_profile(model_trace)


# --- (b) the generated distribution against the real trace ----------------------------------------------------------


def test_gaia_statistics(real_workload):
    real = real_workload("gaia")
    drawn = apply_profile(real, "gaia", SEED)
    known = ~np.isnan(real.efficiency)
    real_median, real_below, _ = core_second_statistics(real.efficiency, real, known)
    median, below, _ = core_second_statistics(drawn.efficiency, real, known)
    assert abs(median - real_median) <= 0.005, f"median u {median:.4f} vs {real_median:.4f}"
    assert abs(below - real_below) <= 0.05, f"core-second share below 0.5: {below:.3f} vs {real_below:.3f}"

    mid_size = known & (real.procs >= 9) & (real.procs <= 32)
    real_mid, mid = np.median(real.efficiency[mid_size]), np.median(drawn.efficiency[mid_size])
    assert abs(mid - real_mid) <= 0.005, f"median u of 9-32 processors {mid:.4f} vs {real_mid:.4f}"

    both = mid_size & ~np.isnan(real.memory)
    real_rank = stats.spearmanr(real.efficiency[both], real.memory[both]).statistic
    rank = stats.spearmanr(drawn.efficiency[both], drawn.memory[both]).statistic
    assert abs(rank - real_rank) <= 0.02, f"Spearman(u, memory), 9-32 processors: {rank:.3f} vs {real_rank:.3f}"


def test_hpc2n_statistics(real_workload):
    real = real_workload("hpc2n")
    drawn = apply_profile(real, "hpc2n", SEED)
    known = ~np.isnan(real.efficiency)
    _, _, real_weighted = core_second_statistics(real.efficiency, real, known)
    _, _, weighted = core_second_statistics(drawn.efficiency, real, known)
    assert abs(weighted - real_weighted) <= 0.015, f"work-weighted u {weighted:.4f} vs {real_weighted:.4f}"
    # Memory stays uninformative: 409,600 KB for most jobs (95.5% of known values; the fixed quantiles keep 94.1%).
    known_memory = ~np.isnan(real.memory)
    default = np.mean(drawn.memory[known_memory] == 409_600)
    assert abs(default - np.mean(real.memory[known_memory] == 409_600)) <= 0.02, f"409,600 KB share {default:.3f}"


# --- (c) refitting reproduces the constants --------------------------------------------------------------------------


@pytest.mark.parametrize("profile", SHARING_PROFILES)
def test_refit_reproduces_the_constants(real_workload, profile):
    assert SHARING_PROFILES[profile]["trace"] == PROFILE_TRACES[profile]
    refit = fit_profile(real_workload(profile))
    assert format_profile(profile, refit) == format_profile(profile, SHARING_PROFILES[profile])
