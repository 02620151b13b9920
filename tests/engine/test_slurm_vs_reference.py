"""The Slurm mode's kernel (simcore/engine/_slurm.pyx) against the independent reference
(tests/slurm_reference.py): the same starts, nodes, CPUs and backfill flags, job for job, on
thousands of random cases drawing every node shape and option (tests/slurm_cases.py)."""

import numpy as np
import pytest
from slurm_cases import random_case
from slurm_implementations import kernel_schedule
from slurm_reference import slurm_schedule as reference_schedule

CASES_PER_TEST = 250
BLOCKS = 12  # 3,000 cases


def first_difference(expected: dict, got: dict) -> str | None:
    for j in range(len(expected["start"])):
        for key in ("start", "nodes", "cpus", "backfilled"):
            if expected[key][j] != got[key][j]:
                return f"job {j}: {key} reference {expected[key][j]} kernel {got[key][j]}"
    return None


@pytest.mark.slow  # about 50 s on one core: the full run has it, the one-process fast subset does not
@pytest.mark.parametrize("block", range(BLOCKS))
def test_kernel_matches_reference(block):
    mismatches = []
    for seed in range(block * CASES_PER_TEST, (block + 1) * CASES_PER_TEST):
        cluster, jobs, options = random_case(seed)
        expected = reference_schedule(cluster, jobs, options)
        difference = first_difference(expected, kernel_schedule(cluster, jobs, options))
        if difference:
            mismatches.append(f"seed {seed}: {difference}")
    assert not mismatches, f"{len(mismatches)} of {CASES_PER_TEST} cases differ; first: {mismatches[:5]}"


def test_the_cases_exercise_every_rule():
    """The random cases reach backfilled starts, multi-node jobs and queues (a guard on the generator)."""
    backfilled = multi_node = waited = 0
    for seed in range(200):
        cluster, jobs, options = random_case(seed)
        got = kernel_schedule(cluster, jobs, options)
        backfilled += sum(got["backfilled"])
        multi_node += sum(len(nodes) > 1 for nodes in got["nodes"])
        waited += int(np.sum(np.array(got["start"]) > np.array(jobs["submit"])))
    assert backfilled > 100 and multi_node > 100 and waited > 1000


def test_the_decay_order_changes_schedules():
    """decay_after_passes (section 3) is drawn for the multifactor cases, and it decides something:
    flipping it changes the kernel's starts in 27 of the first 300 seeds' 136 multifactor cases."""
    multifactor = changed = 0
    for seed in range(300):
        cluster, jobs, options = random_case(seed)
        if options["multifactor"]:
            multifactor += 1
            flipped = {**options, "decay_after_passes": not options["decay_after_passes"]}
            changed += (
                kernel_schedule(cluster, jobs, options)["start"] != kernel_schedule(cluster, jobs, flipped)["start"]
            )
    assert multifactor > 100 and changed > 15
