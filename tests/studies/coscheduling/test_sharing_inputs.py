"""The co-scheduling kernel trusts nothing it is given: malformed workloads and out-of-range settings
are clear errors, its job arrays are its own copies, and no malformed input crashes the interpreter
(a fuzz test in a subprocess)."""

import textwrap
from dataclasses import replace

import numpy as np
import pytest
from conftest import assert_fuzz_run_is_clean

from simcore.engine.workload import Workload, WorkloadError
from simcore.studies.coscheduling.sharing import (
    MAX_LEVELS,
    SharingInputError,
    SharingRun,
    SharingSettings,
    SharingSimulation,
    simulate_sharing,
)

SETTINGS = SharingSettings(strategy="ASAX", memory=False, efficiency="assume-cpu-bound")


def workload(n=60, seed=0):
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 100, n).astype(float)
    return Workload.from_arrays(
        np.sort(rng.integers(0, 200, n)).astype(float),
        run,
        run * rng.choice([1.0, 1.5, 2.0], n),
        rng.integers(1, 9, n),
        8,
        efficiency=rng.choice([0.1, 0.5, 0.9], n),
    )


@pytest.mark.parametrize(
    "change, error, message",
    [
        (lambda w: {"procs": w.procs + 8}, WorkloadError, r"processor request must be in \[1, 8\]"),
        (lambda w: {"submit": w.submit[::-1].copy()}, WorkloadError, "sorted by submit time"),
        (lambda w: {"run": np.full(len(w), np.nan)}, WorkloadError, "run time must be finite"),
        (lambda w: {"memory": w.memory[:3]}, WorkloadError, r"'memory' has shape \(3,\)"),
    ],
    ids=["q > m", "unsorted", "NaN run", "lengths"],
)
def test_a_replaced_workload_is_checked_before_the_run(change, error, message):
    base = workload()
    with pytest.raises(error, match=message):
        simulate_sharing(replace(base, **change(base)), SETTINGS)


def kernel(**changes):
    n = 3
    arguments = {
        "submit": np.zeros(n),
        "work": np.ones(n),
        "estimate": np.full(n, 2.0),
        "procs": np.ones(n, np.int64),
        "efficiency": np.full(n, 0.5),
        "memory": np.full(n, np.nan),
        "machine_size": 2,
        "strategy": 2,
        "levels": 4,
        "kappa": 0.0,
        "memory_capacity": np.nan,
        "loss": 0,
        "scope": 0,
        "bit_generator": np.random.PCG64(0),
    }
    arguments.update(changes)
    return SharingSimulation(*arguments.values())


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"procs": np.array([1, 3, 1])}, r"job 1: processor request 3 must be in \[1, 2\]"),
        ({"submit": np.array([0.0, 2.0, 1.0])}, "job 2: submit time 1.0 is before the previous job's 2.0"),
        ({"submit": np.array([0.0, np.nan, 1.0])}, "job 1: submit time nan is not finite"),
        ({"work": np.array([1.0, -1.0, 1.0])}, "job 1: work -1.0 must be finite and >= 0"),
        ({"estimate": np.array([1.0, 0.0, 1.0])}, "job 1: estimate 0.0 must be finite and > 0"),
        ({"efficiency": np.array([0.5, 1.5, 0.5])}, r"job 1: efficiency 1.5 must be in \[0, 1\]"),
        ({"memory": np.array([np.nan, -5.0, 1.0])}, "job 1: memory -5.0 must be positive"),
        ({"estimate": np.ones(2)}, "'estimate' has 2 jobs, 'submit' has 3"),
        ({"machine_size": 0}, "machine size must be >= 1"),
        ({"strategy": 5}, r"strategy code 5 is not in 0 to 4 \(SPACE, STATIC, ASAX, HEADROOM, EXTERNAL\)"),
        ({"loss": 3}, "loss code 3 is not in 0 to 2"),
        ({"scope": -1}, "scope code -1 is not in 0 to 1"),
        ({"levels": MAX_LEVELS + 1}, rf"levels must be in \[2, {MAX_LEVELS}\], got {MAX_LEVELS + 1}"),
        ({"levels": 1}, "levels must be in"),
        ({"kappa": 1.0}, r"kappa must be in \[0, 1\), got 1.0"),
        ({"memory_capacity": -1.0}, "memory capacity must be positive and finite, or NaN"),
    ],
)
def test_the_kernel_checks_its_arguments(changes, message):
    with pytest.raises(ValueError, match=message):
        kernel(**changes)


def external_run(base, mutate_after_first_case=False):
    """Starts and ends of an EXTERNAL run that takes the largest admissible level at every case."""
    mine = replace(base, **{name: getattr(base, name).copy() for name in ("submit", "run", "requested", "procs")})
    run = SharingRun(mine, replace(SETTINGS, strategy="EXTERNAL"))
    cases = 0
    while run.advance():
        if cases == 0 and mutate_after_first_case:
            mine.submit[:] = 0.0
            mine.run[:] = 1e6
            mine.requested[:] = 0.5
            mine.procs[:] = 1000
        run.decide(int(np.flatnonzero(run.core.case_mask())[-1]))
        cases += 1
    result = run.result()
    return cases, result.start, result.end


def test_the_kernel_keeps_its_own_copy_of_the_jobs():
    """Changing the caller's arrays between cases does not change the schedule."""
    base = workload(80, seed=4)
    cases, start, end = external_run(base)
    assert cases > 2
    _, mutated_start, mutated_end = external_run(base, mutate_after_first_case=True)
    np.testing.assert_array_equal(mutated_start, start)
    np.testing.assert_array_equal(mutated_end, end)


FUZZ = textwrap.dedent(
    """
    import sys
    from dataclasses import replace

    import numpy as np

    from simcore.engine.workload import Workload
    from simcore.studies.coscheduling.sharing import STRATEGIES, SharingSettings, simulate_sharing

    rng = np.random.default_rng(int(sys.argv[1]))
    SPECIALS = [np.nan, np.inf, -np.inf, -1.0, 0.0, 2.0, 1e300]
    clean = 0
    for case in range(150):
        n = int(rng.integers(1, 25))
        run = rng.integers(0, 50, n).astype(float)
        w = Workload.from_arrays(
            np.sort(rng.integers(0, 60, n)).astype(float), run, run + rng.integers(1, 30, n),
            rng.integers(1, 5, n), 4, efficiency=rng.choice([0.2, 0.7, np.nan], n),
            memory=rng.choice([100.0, 700.0, np.nan], n),
        )
        fields = {}
        for _ in range(rng.integers(0, 4)):
            kind = rng.integers(0, 7)
            j = rng.integers(0, n)
            if kind == 0:
                fields["procs"] = w.procs.copy()
                fields["procs"][j] = rng.choice([0, -5, 5, 10**12])
            elif kind in (1, 2, 3, 4, 5):
                name = ("submit", "run", "requested", "efficiency", "memory")[kind - 1]
                fields[name] = getattr(w, name).copy()
                fields[name][j] = rng.choice(SPECIALS)
            else:
                name = str(rng.choice(["submit", "run", "requested", "procs", "efficiency", "memory"]))
                fields[name] = getattr(w, name)[: rng.integers(0, n)]
        w = replace(w, **fields)
        settings = SharingSettings(
            strategy=str(rng.choice(STRATEGIES)), levels=int(rng.choice([4, 10, 64])),
            kappa=float(rng.choice([0.0, 0.3])), memory=bool(rng.random() < 0.5), memory_capacity=1000.0,
            scope=str(rng.choice(["shared", "per-donor"])), efficiency="assume-cpu-bound",
        )
        try:
            simulate_sharing(w, settings, seed=case)
        except (ValueError, TypeError):
            clean += 1
    print("clean errors", clean)
    """
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_malformed_workloads_never_crash_the_interpreter(seed, tmp_path):
    """Random malformed workloads through simulate_sharing, in a subprocess: a crash or a hang there
    is a failure here, and only clean Python errors may come out."""
    assert_fuzz_run_is_clean(FUZZ, seed, tmp_path)


def test_what_only_the_kernel_checks_is_a_sharing_input_error():
    with pytest.raises(SharingInputError, match="memory capacity must be positive and finite, or NaN"):
        simulate_sharing(workload(), replace(SETTINGS, memory=True, memory_capacity=np.inf))
