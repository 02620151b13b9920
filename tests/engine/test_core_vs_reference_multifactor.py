"""The order MULTIFACTOR (docs/semantics.md, "Multifactor priority"): the core against the
reference simulator on 5,000 seeded random workloads, each factor alone and all together, with
every reservation depth, as queue and as backfill order, thresholds, estimates and corrections.

The two compute the fair-share usage differently (the core in growing units, O(1) per
computation; the reference as a plain sum per computation), so they can disagree only where a
priority lands within rounding of an integer (contract §2). The reference counts those
floor-boundary cases, and among them the values that are not an integer exactly (an exact integer,
such as an age of 0 with a fair-share factor of 1, comes out the same in both); each chunk prints
both counts and lists the seeds of the second kind, and any disagreement fails, boundary or not.
"""

import random

import numpy as np
import pytest
from reference_sim import reference_simulate
from strategies import make_workload
from test_core_vs_reference import assert_same

import simcore

WEIGHTS = (  # (age, fair share, size): each factor alone, then together
    (1000, 0, 0),
    (0, 1000, 0),
    (0, 0, 1000),
    (1000, 1000, 1000),
    (100, 10000, 0),
    (1000, 1000, 5000),
)
DEPTHS = (0, 1, 2, 5, "all")
OTHER_ORDERS = ("FCFS", "SPF", "SAF", "LQF", "WFP3")
CHUNKS = 5
CHUNK = 1000


def random_case(rng: random.Random):
    """A workload (submit, run, requested, procs, user, m) and the options of one run."""
    n, m = rng.randint(1, 30), rng.choice((1, 4, 16, 64, rng.randint(1, 64)))
    t, workload = rng.choice((0.0, 7.0, 1000.0)), ([], [], [], [], [])
    users = rng.randint(1, 5)
    for _ in range(n):
        t += rng.choice((0.0, 0.0, 1.0, rng.uniform(0, 400), rng.randint(0, 3000)))
        run = rng.choice((0.0, 1.0, rng.randint(1, 2000), rng.uniform(0, 5000)))
        requested = max(1.0, rng.choice((run, run + rng.randint(1, 1000), 2 * run + 1)))
        for column, value in zip(workload, (t, run, requested, rng.randint(1, m), rng.randint(1, users))):
            column.append(value)
    age, fairshare, size = rng.choice(WEIGHTS)
    multifactor = dict(
        weight_age=age,
        weight_fairshare=fairshare,
        weight_job_size=size,
        max_age=rng.choice((100.0, 3600.0, 604800.0)),
        decay_half_life=rng.choice((60.0, 777.7, 3600.0, 604800.0)),
        calc_period=rng.choice((0.0, 100.0, 300.0)),
        favor_small=rng.random() < 0.5,
    )
    depth = rng.choice(DEPTHS)
    as_backfill = depth == 1 and rng.random() < 0.3
    opts = dict(
        order=rng.choice(OTHER_ORDERS) if as_backfill else "MULTIFACTOR",
        backfill="MULTIFACTOR" if as_backfill else ("none" if depth == 0 else rng.choice(("queue", "queue", "SPF"))),
        threshold=rng.choice((None, None, 0.0, 500.0)),
        estimate=rng.choice(("request", "clairvoyant", "ave2")),
        correction=rng.choice(("request", "incremental", "doubling")),
        reservations=depth,
        multifactor=multifactor,
    )
    if depth not in (1, 0):
        opts["backfill"] = "queue"
    return (*workload, m), opts


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_multifactor_core_matches_reference(chunk, capsys):
    boundary_cases = boundary_workloads = 0
    inexact = {}  # seed: values within rounding of an integer but not one exactly
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        wl, opts = random_case(random.Random(seed))
        result = simcore.simulate(make_workload(*wl), **opts)
        ref = reference_simulate(*wl, **opts)
        context = f"seed {seed}: opts={opts}, reference boundary cases {ref['priority_boundary_cases']}"
        assert_same(result.jobs, ref, context)
        assert (result.reservations_made, result.jobs_reserved) == (ref["reservations_made"], ref["jobs_reserved"])
        assert result.priority_computations == ref["priority_computations"], context
        # the factors themselves go through other arithmetic: equal to rounding
        np.testing.assert_allclose(result.fair_share, ref["fair_share"], rtol=1e-9, err_msg=context)
        boundary_cases += ref["priority_boundary_cases"]
        boundary_workloads += ref["priority_boundary_cases"] > 0
        if ref["priority_inexact_cases"]:
            inexact[seed] = ref["priority_inexact_cases"]
    with capsys.disabled():
        print(
            f"\nMULTIFACTOR, seeds {chunk * CHUNK}-{(chunk + 1) * CHUNK - 1}: {CHUNK} workloads, 0 mismatches, "
            f"{boundary_cases} floor-boundary cases in {boundary_workloads} workloads, of which "
            f"{sum(inexact.values())} not an exact integer (seed: cases {inexact or 'none'})"
        )
