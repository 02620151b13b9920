"""Hand-computed schedules, one or more per rule of docs/slurm_mode.md (the Slurm mode), sections 1-6.

Every test runs on every implementation in tests/slurm_implementations.SCHEDULERS (the `schedule`
fixture) and asserts exact starts, nodes and CPUs, so each can fail.  Each carries its hand computation.

Notation in the comments: "a = [..]" are the usable CPUs a[i] of the candidate nodes (section 2, step 1);
"set {..} c/n" a set of consecutive nodes with its CPU sum c and node count n; "rem" = rem_cpus,
"rem_max" = rem_max_cpus, "rn" = rem_nodes, "mx" = max_nodes; "cap" the _cpus_to_use cap
max(rem_max - max(rn - 1, 0), 1).  Times in seconds.  Unless said otherwise: one partition holding every
node, tier 0, FIFO priority (-index), bf_interval 30, bf_resolution 60, bf_phase 0, bf_window 86400, so a
backfill cycle's plan starts as one record [floor(t/60)*60, W) with every node; sched_interval 60 and
priority_calc_origin 0, so a full-queue main pass runs at 0, 60, 120, ... while a job is pending (the pass
at 0 is the submissions' pass made full-queue); multifactor off.  "limit_end" is start + limit (what the
will-run test sorts by), "barrier" the will-run test's first window boundary.  "Update" is what counts for
the backfill cycle's timing (section 5, "When"): a submission, start or completion, a main pass skipping a
job of a failed partition, a priority recalculation with a pending job.
"""

import pytest
from slurm_implementations import SCHEDULERS, default_options, make_jobs


@pytest.fixture(params=sorted(SCHEDULERS))
def schedule(request):
    return SCHEDULERS[request.param]


def cluster(cpus, memory=None, weight=None, partitions=None, tiers=None):
    n = len(cpus)
    partitions = partitions if partitions is not None else [list(range(n))]
    return {
        "cpus": list(cpus),
        "memory": list(memory) if memory is not None else [1000] * n,
        "weight": list(weight) if weight is not None else [1] * n,
        "partitions": partitions,
        "tiers": list(tiers) if tiers is not None else [0] * len(partitions),
    }


def simulate(schedule, machine, rows, **options):
    return schedule(machine, make_jobs(rows), default_options(**options))


def job(submit=0, run=100, limit=100, cpus=1, **extra):
    return {"submit": submit, "run": run, "limit": limit, "cpus": cpus, **extra}


def place_alone(schedule, machine, **spec):
    """One job alone on an empty machine: (nodes, cpus) of its placement (section 2)."""
    options = {key: spec.pop(key) for key in ("memory_consumable", "whole_nodes") if key in spec}
    out = simulate(schedule, machine, [job(**spec)], **options)
    assert out["start"] == [0]
    return out["nodes"][0], out["cpus"][0]


# ================================================================ section 2: _eval_nodes ===


@pytest.mark.parametrize(
    "cpus, nodes, cpus_there",
    [
        # cpus [4,4,4,8,4,4], node 2 not in the partition: set A {0,1} 8/2, set B {3,4,5} 16/3.
        # 8 CPUs: A and B sufficient, A has fewer CPUs -> A (although node 3 alone has exactly 8);
        #   rn 1: single best fit: no node of A has >= 8 -> take 0 (cap 8 -> 4), rem 4, then 1 (cap 4 -> 4).
        (8, [0, 1], [4, 4]),
        # 6 CPUs: A (8 >= 6) tighter than B -> A; no node >= 6; 0 gives 4, rem 2; 1: cap max(2 - 0, 1) = 2.
        (6, [0, 1], [4, 2]),
        # 10 CPUs: A is not sufficient (8 < 10), B is -> B; no node >= 10; 3 gives 8, rem 2; 4 gives 2.
        (10, [3, 4], [8, 2]),
        # 3 CPUs: A; single best fit in A: node 0 (4 >= 3, first of the fewest); node 1 set to 0; 0 gives 3.
        (3, [0], [3]),
    ],
)
def test_best_consecutive_set_is_the_tightest_sufficient_one(schedule, cpus, nodes, cpus_there):
    machine = cluster([4, 4, 4, 8, 4, 4], partitions=[[0, 1, 3, 4, 5]])
    assert place_alone(schedule, machine, cpus=cpus) == (nodes, cpus_there)


@pytest.mark.parametrize(
    "cpus, nodes, cpus_there",
    [
        # a = [8,4,6,4], one set.  4 CPUs: scan 0 (8, best), 1 (4 < 8, best, == 4: stop) -> node 1.
        (4, [1], [4]),
        # 5: 0 (8, best), 1 (4 < 5, skipped), 2 (6 < 8, best), 3 skipped -> node 2, gives 5 of 6.
        (5, [2], [5]),
        # 7: 0 (8, best), 1, 2, 3 all < 7 -> node 0, gives 7.
        (7, [0], [7]),
        # 9: no node has 9 -> nodes in order: 0 gives 8 (cap 9), rem 1, rn 0; 1: cap max(1 - 0, 1) = 1.
        (9, [0, 1], [8, 1]),
    ],
)
def test_tightest_single_node(schedule, cpus, nodes, cpus_there):
    assert place_alone(schedule, cluster([8, 4, 6, 4]), cpus=cpus) == (nodes, cpus_there)


@pytest.mark.parametrize(
    "cpus, nodes, cpus_there",
    [
        # cpus 4 x 5, node 3 not in the partition: set A {0,1,2} 12/3, set B {4} 4/1.
        # 4 CPUs: A sufficient (first); B sufficient with fewer CPUs (4 < 12) -> B -> [4].
        (4, [4], [4]),
        # 5 CPUs: B not sufficient (4 < 5) and not bigger -> A; no node has 5: 0 gives 4, 1 gives 1.
        (5, [0, 1], [4, 1]),
    ],
)
def test_a_later_tighter_set_replaces_the_best(schedule, cpus, nodes, cpus_there):
    machine = cluster([4] * 5, partitions=[[0, 1, 2, 4]])
    assert place_alone(schedule, machine, cpus=cpus) == (nodes, cpus_there)


def test_weight_breaks_sets_and_the_lower_weight_wins(schedule):
    # cpus [8,4,4], weights [2,1,1]: sets {0} 8/1 (weight 2) and {1,2} 8/2 (weight 1).
    # 8 CPUs: {0} is first, {1,2} has a lower weight -> best although {0} fits exactly;
    # no node of {1,2} has 8: 1 gives 4 (cap 8), rem 4, rn 0; 2 gives 4 (cap 4) -> [1,2].
    assert place_alone(schedule, cluster([8, 4, 4], weight=[2, 1, 1]), cpus=8) == ([1, 2], [4, 4])
    # Equal weights: one set {0,1,2}; single best fit: node 0 (8 == 8) -> [0].
    assert place_alone(schedule, cluster([8, 4, 4], weight=[1, 1, 1]), cpus=8) == ([0], [8])
    # cpus [4,4,4,4], weights [2,2,1,1]: sets {0,1} (w 2) and {2,3} (w 1), 12 CPUs:
    # {2,3} (lower weight, not sufficient): 2 gives 4, 3 gives 4, rem 4, rn -1 -> not done, set emptied;
    # {0,1}: rn <= 1, single best fit node 0 (4 == 4), node 1 set to 0; 0 gives 4 -> [0,2,3].
    assert place_alone(schedule, cluster([4] * 4, weight=[2, 2, 1, 1]), cpus=12) == ([0, 2, 3], [4, 4, 4])
    # The same with equal weights: one set; no node has 12: 0, 1, 2 give 4 each -> [0,1,2].
    assert place_alone(schedule, cluster([4] * 4), cpus=12) == ([0, 1, 2], [4, 4, 4])


def test_not_sufficient_but_bigger_set_replaces_a_sufficient_one(schedule):
    # cpus [2,2,2,8], node 2 not in the partition: set A {0,1} 4/2, set B {3} 8/1.
    # -N 2, 4 CPUs: rem 4, rem_max 4, rn 2, mx 2.  A: sufficient (4 >= 4, 2 >= 2) -> best.
    # B: not sufficient (1 node < 2) but 8 > 4 CPUs -> replaces A.  rn 2: no single best fit.
    # Node 3: cap max(4 - 1, 1) = 3 -> gives 3; rem 1, rem_max 1, rn 1, mx 1; B done, not fitting: emptied.
    # A: rn 1 -> single best fit node 0 (2 >= 1, first), node 1 set to 0; 0: cap max(1 - 0, 1) = 1.
    machine = cluster([2, 2, 2, 8], partitions=[[0, 1, 3]])
    assert place_alone(schedule, machine, cpus=4, nodes=2) == ([0, 3], [1, 3])


def test_cpus_to_use_spreads_a_node_count_request(schedule):
    machine = cluster([8, 8, 8])
    # -N 3, 6 CPUs: rn 3 (no single best fit).  0: cap max(6 - 2, 1) = 4 -> 4; rem 2, rem_max 2, rn 2.
    # 1: cap max(2 - 1, 1) = 1 -> 1; rem_max 1, rn 1.  2: cap max(1 - 0, 1) = 1 -> 1.
    assert place_alone(schedule, machine, cpus=6, nodes=3) == ([0, 1, 2], [4, 1, 1])
    # -N 2, 2 CPUs: 0: cap max(2 - 1, 1) = 1; 1: cap max(1 - 0, 1) = 1.
    assert place_alone(schedule, machine, cpus=2, nodes=2) == ([0, 1], [1, 1])
    # Without -N, 2 CPUs: rn 1, single best fit node 0 -> [0] with 2.
    assert place_alone(schedule, machine, cpus=2) == ([0], [2])


def test_last_allowed_node_must_cover_the_remaining_cpus(schedule):
    # a = [4,2,4], -N 2, 8 CPUs: 0: cap max(8 - 1, 1) = 7 -> gives 4; rem 4, rn 1, mx 1.
    # 1: mx == 1 and a 2 < rem 4 -> skipped.  2: gives 4 (cap 4) -> [0,2].
    assert place_alone(schedule, cluster([4, 2, 4]), cpus=8, nodes=2) == ([0, 2], [4, 4])


def test_memory_per_node(schedule):
    machine = cluster([4, 4], memory=[1000, 1000])
    rows = [job(cpus=1, mem=800), job(cpus=1, mem=800)]
    # Memory consumable: job 0 -> single best fit node 0 (a = [4,4]), holds 800 MB of it.
    # Job 1: node 0 has 200 MB free < 800 -> a = 0, dropped; node 1 -> [1].
    out = simulate(schedule, machine, rows, memory_consumable=True)
    assert out["start"] == [0, 0]
    assert out["nodes"] == [[0], [1]]
    # Memory not consumable: job 1 sees a = [3,4] -> best fit node 0 (3 >= 1, fewest) -> [0].
    out = simulate(schedule, machine, rows, memory_consumable=False)
    assert out["start"] == [0, 0]
    assert out["nodes"] == [[0], [0]]


def test_memory_per_cpu(schedule):
    machine = cluster([4, 4], memory=[1000, 1000])
    rows = [job(cpus=2, mem=300, mem_per_cpu=True), job(cpus=2, mem=300, mem_per_cpu=True)]
    # Consumable: job 0: a = [min(4, 1000 // 300), ..] = [3,3] -> node 0, gives 2, holds 600 MB.
    # Job 1: a = [min(2, 400 // 300), 3] = [1,3]; single best fit: node 0 (1 < 2) skipped -> node 1.
    out = simulate(schedule, machine, rows, memory_consumable=True)
    assert (out["start"], out["nodes"], out["cpus"]) == ([0, 0], [[0], [1]], [[2], [2]])
    # Not consumable: job 1 sees a = [2,4] -> node 0 (exactly 2).
    out = simulate(schedule, machine, rows, memory_consumable=False)
    assert (out["start"], out["nodes"], out["cpus"]) == ([0, 0], [[0], [0]], [[2], [2]])
    # A 4-CPU job at 300 MB per CPU alone: a = [3,3] (memory caps the CPUs); no node has 4:
    # 0 gives 3 (cap 4), rem 1; 1 gives 1 (cap 1) -> spread over two nodes.  Not consumable: [0] with 4.
    spec = {"cpus": 4, "mem": 300, "mem_per_cpu": True}
    assert place_alone(schedule, machine, memory_consumable=True, **spec) == ([0, 1], [3, 1])
    assert place_alone(schedule, machine, memory_consumable=False, **spec) == ([0], [4])


def test_memory_not_given_takes_the_whole_node(schedule):
    machine = cluster([4, 4], memory=[1000, 1000])
    rows = [
        job(cpus=1, run=100, limit=100),  # mem 0: not given
        job(cpus=1, run=200, limit=200),  # mem 0: not given
        job(cpus=1, run=50, limit=50, mem=100),  # 100 MB per node
    ]
    # Consumable: job 0 -> node 0 and holds all its 1000 MB; job 1: node 0 has 0 MB free < 1000 -> node 1.
    # Job 2: both nodes have 0 MB free < 100 -> a = [0,0]: does not fit; waits.  (Cycle at 30: will-run
    # releases job 0 (limit_end 100; barrier 120; next ends 200 > 150: group done) -> fits, estimate 100.)
    # Job 0 completes at 100 -> main pass at 100: job 2 -> node 0.
    out = simulate(schedule, machine, rows, memory_consumable=True)
    assert out["start"] == [0, 0, 100]
    assert out["nodes"] == [[0], [1], [0]]
    assert out["backfilled"] == [False, False, False]
    # Not consumable: memory is ignored; a = [3,4] then [2,4]: all on node 0 at once.
    out = simulate(schedule, machine, rows, memory_consumable=False)
    assert out["start"] == [0, 0, 0]
    assert out["nodes"] == [[0], [0], [0]]


def test_exclusive_job_takes_an_idle_node_whole(schedule):
    machine = cluster([4, 4])
    rows = [job(cpus=1), job(cpus=1, exclusive=True), job(cpus=1)]
    # Job 0 -> node 0 (1 CPU).  Job 1 exclusive: node 0 holds a job -> a = 0; node 1 idle -> a = 4 -> [1],
    # given all 4 CPUs.  Job 2: a = [3, 0] -> node 0.
    out = simulate(schedule, machine, rows)
    assert (out["start"], out["nodes"], out["cpus"]) == ([0, 0, 0], [[0], [1], [0]], [[1], [4], [1]])


def test_whole_nodes_makes_every_job_exclusive(schedule):
    machine = cluster([4, 4])
    rows = [job(cpus=1), job(cpus=1), job(cpus=1)]
    # whole_nodes: job 0 -> [0] with 4 CPUs, job 1 -> [1] with 4, job 2: a = [0,0] -> waits.
    # Cycle at 30: job 2: will-run releases job 0 (limit_end 100, barrier 120), next job 1 ends 100 <= 150:
    # same group; job 1 released, no next: last group -> fits on node 0, estimate 100; reserved, not started.
    # Both complete at 100 -> main pass at 100: job 2 -> node 0 (single best fit, first of equal a = 4).
    out = simulate(schedule, machine, rows, whole_nodes=True)
    assert (out["start"], out["nodes"], out["cpus"]) == ([0, 0, 100], [[0], [1], [0]], [[4], [4], [4]])


def test_job_that_never_fits_its_empty_partition_is_rejected(schedule):
    machine = cluster([4, 4], partitions=[[0, 1], [0]])
    with pytest.raises(ValueError):
        simulate(schedule, machine, [job(cpus=5, partition=1)])  # partition 1 is one 4-CPU node
    with pytest.raises(ValueError):
        simulate(schedule, machine, [job(cpus=3, nodes=3)])  # -N 3 on two nodes


# ================================================================ section 3: priority order ===


def test_priority_order_tier_then_priority_then_submit_then_index(schedule):
    # One 1-CPU node in two partitions: p0 (tier 0) and p1 (tier 1).  Every job needs the node for 100 s.
    machine = cluster([1], partitions=[[0], [0]], tiers=[0, 1])
    rows = [
        job(submit=0, priority=100),  # 0: runs first (alone at 0)
        job(submit=10, priority=5),  # 1
        job(submit=20, priority=1, partition=1),  # 2: tier 1 beats every tier-0 job
        job(submit=5, priority=5),  # 3: same priority as 1, submitted earlier
        job(submit=10, priority=5),  # 4: same priority and submit as 1, higher index
        job(submit=30, priority=6),  # 5: highest priority in tier 0
    ]
    # The node frees at 100, 200, ...; order: 2 (tier 1), 5 (prio 6), 3 (submit 5), 1 (idx 1), 4 (idx 4).
    out = simulate(schedule, machine, rows)
    assert out["start"] == [0, 400, 100, 300, 500, 200]
    assert out["backfilled"] == [False] * 6


# Multifactor (section 3): weight_age 1024 and max_age 1024 make the age term exactly the job's age in
# seconds (age = diff / 1024 and diff / 1024 * 1024 are exact in binary), below 1024 s.
AGE_OPTIONS = {"multifactor": True, "priority_weight_age": 1024, "priority_max_age": 1024}


@pytest.mark.parametrize(
    "period, origin, after, starts",
    [
        # Decay instants 100, 200, 300 (the recalculation at 0 finds no pending job: submissions come after
        # it).  100: B = 80.  150: D submitted: 100 (age 0).  200: B = 180, D = 50 + 100 = 150.
        # 230: C submitted: 170 (age 0 until the next instant).
        # 250: R completes: B 180 > C 170 > D 150 -> B (runs 30 s).
        # 280: C 170 > D 150 -> C, although C would be 50 + 170 = 220 < D 130 + 100 = 230 with ages counted
        #      at 280: between instants priorities do not change (runs 20 s).
        # 290: E submitted: 200.  300: the recalculation comes first: D = 250, E = 10 + 200 = 210; then C's
        #      completion -> pass: D (with the priorities of 200, E 200 > D 150 would win).  310: E.
        (100, 0, False, [0, 250, 300, 280, 310]),
        # The same with the decay instant after its second's pass (decay_after_passes): 300: C's completion
        # -> pass with the priorities of 200: E 200 > D 150 -> E; then the recalculation.  310: D.
        (100, 0, True, [0, 250, 310, 280, 300]),
        # No instant but 0 in reach: the priorities stay those at submission: B 1 (0, raised to 1), D 100,
        # C 170, E 200.  250: C; 270: D; 280: B (E is submitted at 290); 310: E.
        (1000, 0, False, [0, 280, 270, 250, 310]),
        # Origin 50: instants 150 and 250.  150: B = 130 (D is submitted after the recalculation: 100).
        # 250: recalculation first: B = 230, D = 200, C = 20 + 170 = 190; then R completes -> B.
        # 280: D 200 > C 190 -> D (runs 10 s).  290: E submitted (200) and D completes: E 200 > C 190 -> E.
        # 300: C.
        (100, 50, False, [0, 250, 280, 300, 290]),
    ],
)
def test_multifactor_age_at_the_decay_instants(schedule, period, origin, after, starts):
    # One 1-CPU node, sched/builtin: R holds it until 250; then one job per completion, by priority.
    rows = [
        job(submit=0, run=250, limit=1000),  # R
        job(submit=20, run=30, limit=1000),  # B: no factor but its age
        # D, C, E: a constant term besides their age (the partition factor; the sum is the same in any order:
        # every term is a whole number)
        job(submit=150, run=10, limit=1000, weighted_partition=100.0),  # D
        job(submit=230, run=20, limit=1000, weighted_partition=170.0),  # C
        job(submit=290, run=10, limit=1000, weighted_partition=200.0),  # E
    ]
    options = {**AGE_OPTIONS, "priority_calc_period": period, "priority_calc_origin": origin}
    out = simulate(schedule, cluster([1]), rows, backfill=False, decay_after_passes=after, **options)
    assert out["start"] == starts


def test_multifactor_sum_order_truncation_and_floor_of_one(schedule):
    # One 1-CPU node, sched/builtin: R runs [0, 100), then one job per 100 s by priority.  The age term gives
    # the first term of the sum: weight_age 1, max_age 50, one decay instant in reach, at 30 (origin 30,
    # period 10000); at 30 a job's age term is (30 - submit) / 50 * 1.
    rows = [
        job(submit=0),  # R
        # Z: at 30, 24 / 50 = 0.48, + 0.5 = 0.98 -> at least 1 -> 1 (truncated without the floor: 0)
        job(submit=6, weighted_partition=0.5),
        # X: at 30, 20 / 50 = 0.4 (the double nearest 0.4), then
        # ((0.4 + 0.0) + 1.4) + 0.2 = 1.7999999999999998 + 0.2 = 1.9999999999999998 -> truncated: 1.
        # (Any other order, 0.4 + (1.4 + 0.2), (0.2 + 1.4) + 0.4, (0.4 + 0.2) + 1.4, or rounding gives 2.)
        job(submit=10, weighted_job_size=1.4, weighted_partition=0.2),
        job(submit=20, weighted_job_size=2.0),  # Y: at 30, 10 / 50 = 0.2, + 2.0 = 2.2 -> 2
        job(submit=40, weighted_job_size=0.9),  # V: submitted after the instant: 0.9 -> 1
    ]
    # 100: Y (2) first; then Z, X, V (all 1) by submission time: 200, 300, 400.
    # (X = 2 would tie with Y and go first, being submitted earlier; without the floor of 1, Z = 0 and V = 0
    # would go after X.)
    options = {"priority_weight_age": 1, "priority_max_age": 50, "priority_calc_origin": 30}
    out = simulate(
        schedule, cluster([1]), rows, backfill=False, multifactor=True, priority_calc_period=10000, **options
    )
    assert out["start"] == [0, 200, 300, 100, 400]
    # Without multifactor the priority column rules (FIFO here): Z, X, Y, V.
    out = simulate(schedule, cluster([1]), rows, backfill=False)
    assert out["start"] == [0, 100, 200, 300, 400]


# ================================================================ section 3.1: fair share ===

# Fair-share tests: one node, sched/builtin, no periodic pass, multifactor with only the fair-share term
# (weight 1000, so a job's priority is floor(1000 * F) plus any weighted_partition it is given), decay
# instants every 100 s from 0.  Usage-making jobs start at once; "probes" (P.., Z..) ask for the whole node,
# wait, and start one after the other by priority when it frees (each runs 10 s, so the start order is the
# priority order).  In the comments, "a = 200" is user a's raw usage, "F" the fair-share factor, and jobs
# pending at an instant have their priority recomputed then (section 3.1, step 5).  Rows keep submission
# times nondecreasing: "index order" is then the same for every implementation.
FAIR = {
    "multifactor": True,
    "backfill": False,
    "sched_interval": 0,
    "priority_weight_fairshare": 1000,
    "priority_calc_period": 100,
}


def associations(*rows):
    """The association tree from (parent, shares, user) rows; the root (index 0) is added first."""
    return {
        "parent": [-1] + [row[0] for row in rows],
        "shares": [1] + [row[1] for row in rows],
        "user": [False] + [row[2] for row in rows],
    }


def users(count, shares=1):
    """`count` users right under the root (indices 1..count), each with `shares`."""
    return associations(*[(0, shares, True)] * count)


def simulate_fair(schedule, machine, tree, rows, **options):
    """simulate() with an association tree and each row's "association" (its user)."""
    machine = {**machine, "associations": tree}
    jobs = make_jobs([{key: value for key, value in row.items() if key != "association"} for row in rows])
    jobs["association"] = [row["association"] for row in rows]
    return schedule(machine, jobs, default_options(**{**FAIR, **options}))


def probe(submit, user, run=10, cpus=4, **extra):
    return job(submit=submit, run=run, limit=1000, cpus=cpus, association=user, **extra)


def test_fair_share_changes_which_job_starts_first(schedule):
    # Users a (1) and b (2).  One 2-CPU node.  H (a) holds it [0, 200).  Pa (a, submitted 10) and Pb (b, 20).
    rows = [
        job(submit=0, run=200, limit=1000, cpus=2, association=1),  # H
        probe(10, 1, cpus=2),  # Pa
        probe(20, 2, cpus=2),  # Pb
    ]
    # Instant 0: no usage, a and b tied: F = 1 for both.  Instant 100: a = 200 * df^100 > 0 = b: b's LF is
    # +inf, a's finite: F(b) = 2/2 = 1, F(a) = 1/2: Pb 1000, Pa 500.  200: the instant (same F), then H's
    # completion: Pb at 200, Pa at 210.
    out = simulate_fair(schedule, cluster([2]), users(2), rows)
    assert out["start"] == [0, 210, 200]
    # Without fair share every priority is 1 (floor of 1): by submission, Pa then Pb.
    out = simulate_fair(schedule, cluster([2]), users(2), rows, priority_weight_fairshare=0)
    assert out["start"] == [0, 200, 210]


def test_usage_slice_is_decayed_as_a_whole_at_the_instant(schedule):
    # Users a (1) and b (2); half-life 100 s: df = 1 - 0.693 / 100 = 0.99307.  One 4-CPU node.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=1, association=1),  # Ua: [0, 100), 1 CPU
        job(submit=50, run=50, limit=1000, cpus=2, association=2),  # Ub: [50, 100), 2 CPUs
        probe(60, 2),  # Pb
        probe(60, 1),  # Pa
    ]
    # Instant 100 comes before the completions at 100 (section 6): Ua and Ub are still running and add
    # u = (delta * df^delta) * cpus: a = 100 * df^100 * 1 = 100 * 0.4988686737 = 49.887,
    # b = 50 * df^50 * 2 = 100 * 0.7063063597 = 70.631.  a < b: LF(a) = 0.5 / (a / (a + b)) > LF(b):
    # F(a) = 2/2 = 1, F(b) = 1/2: Pa 1000, Pb 500.  The completions at 100 free the node: Pa at 100, Pb at 110.
    # (With u = delta * cpus, or decaying by df^period, a = b: tied, F = 1 for both, and Pb, first in
    # index order, would start first; likewise if the slices ending at 100 were not counted.)
    out = simulate_fair(schedule, cluster([4]), users(2), rows, priority_decay_half_life=100)
    assert out["start"] == [0, 50, 110, 100]


def test_usage_decays_between_instants(schedule):
    # Users a (1), b (2), k (3); half-life 100 s (df^100 = 0.4988686737).  One 4-CPU node.
    rows = [
        job(submit=0, run=200, limit=1000, cpus=2, association=3),  # K: [0, 200), keeps the probes waiting
        job(submit=0, run=100, limit=1000, cpus=1, association=1),  # Ua: [0, 100)
        job(submit=100, run=100, limit=1000, cpus=1, association=2),  # Ub: [100, 200)
        probe(110, 2),  # Pb
        probe(110, 1),  # Pa
    ]
    # Instant 100: a = 100 * df^100 = 49.887 (k = 99.774).  Instant 200: first every raw times
    # d = df^(200 - 100) = 0.49887 (a = 24.887), then the new slices: b = 100 * df^100 = 49.887, k += 99.774.
    # a < b < k: F(a) = 1, F(b) = 2/3, F(k) = 1/3: Pa 1000, Pb 666.  K completes at 200: Pa at 200, Pb at 210.
    # (Without the decay a = b exactly: tied, and Pb, first in index order, would start first.)
    out = simulate_fair(schedule, cluster([4]), users(3), rows, priority_decay_half_life=100)
    assert out["start"] == [0, 0, 100, 210, 200]


def test_usage_decays_also_when_the_machine_is_idle(schedule):
    # Users a (1) and b (2); half-life 100 s: df^100 = 0.4988686737, df^90 = 0.5347953.  One 4-CPU node,
    # idle from 100 to 310.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=4, association=1),  # A: [0, 100)
        job(submit=310, run=100, limit=1000, cpus=2, association=2),  # B: [310, 410)
        job(submit=310, run=100, limit=1000, cpus=1, association=1),  # A2: [310, 410), keeps the node busy
        probe(320, 2),  # Pb
        probe(320, 1),  # Pa
    ]
    # Instant 100: a = 400 * df^100 = 199.55.  Instants 200 and 300 come although no job is pending or
    # running: a = 199.55 * 0.49887^2 = 49.661.  Instant 400: a times d = 24.775, then the slices from 310:
    # a += 90 * df^90 = 48.132 (a = 72.906), b = 2 * 90 * df^90 = 96.263: a < b: F(a) = 1, F(b) = 1/2.
    # B and A2 complete at 410: Pa at 410, Pb at 420.  (Without the idle instants' decay:
    # a = 199.55 * 0.49887 + 48.132 = 147.68 > b: Pb first.)
    out = simulate_fair(schedule, cluster([4]), users(2), rows, priority_decay_half_life=100)
    assert out["start"] == [0, 310, 310, 420, 410]


def test_first_instant_does_not_decay(schedule):
    # Users a (1) and b (2); half-life 100 s; usage_at_job_end; origin 150 (instants 150, 250, ...).
    # One 4-CPU node.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=1, association=1),  # A: [0, 100)
        job(submit=50, run=100, limit=1000, cpus=1, association=2),  # B: [50, 150)
        probe(60, 2),  # Pb
        probe(60, 1),  # Pa
    ]
    # A ends at 100, before any instant: it adds the slice from its start, a = 100 * df^100 = 49.887.
    # Instant 150 (k = 0): no decay; B adds the slice from its start, b = 100 * df^100: a = b exactly:
    # tied, F = 1 for both: Pb (first in index order) at 150, Pa at 160.  (Decaying at k = 0 by
    # df^100, a = 24.887 < b: Pa first.)
    options = {"priority_decay_half_life": 100, "usage_at_job_end": True, "priority_calc_origin": 150}
    out = simulate_fair(schedule, cluster([4]), users(2), rows, **options)
    assert out["start"] == [0, 50, 150, 160]


@pytest.mark.parametrize(
    "at_end, order",
    [
        # Without usage_at_job_end A's last slice [100, 150) is never counted: a = 100 < c = 120 < b = 200:
        # F(a) = 1, F(c) = 2/3, F(b) = 1/3: Pa, Pc, Pb.
        (False, {"Pa": 200, "Pc": 210, "Pb": 220}),
        # With it, A adds at its end 150 the slice from max(last instant 100, start 0): 50 * 1 -> a = 150:
        # c = 120 < a = 150 < b = 200: Pc, Pa, Pb.  (The slice from the start instead, a = 250: Pc, Pb, Pa.)
        (True, {"Pc": 200, "Pa": 210, "Pb": 220}),
    ],
)
def test_usage_of_the_last_slice_at_job_end(schedule, at_end, order):
    # Users a (1), b (2), c (3); half-life 0 (no decay: a slice is delta * cpus).  One 4-CPU node.
    rows = [
        job(submit=0, run=150, limit=1000, cpus=1, association=1),  # A: [0, 150)
        job(submit=0, run=100, limit=1000, cpus=2, association=2),  # B: [0, 100)
        job(submit=80, run=120, limit=1000, cpus=1, association=3),  # C: [80, 200)
        probe(90, 2),  # Pb
        probe(90, 1),  # Pa
        probe(90, 3),  # Pc
    ]
    # Instant 100: a = 100, b = 200, c = 20.  B's end at 100 adds nothing (its slice from 100 to 100 is 0).
    # Instant 200: C adds 100 (c = 120) and its end at 200 nothing.  The node frees at 200.
    options = {"priority_decay_half_life": 0, "usage_at_job_end": at_end}
    out = simulate_fair(schedule, cluster([4]), users(3), rows, **options)
    assert out["start"][3:] == [order["Pb"], order["Pa"], order["Pc"]]


def test_usage_counts_the_cpus_the_job_holds(schedule):
    # Users a (1) and b (2); half-life 0.  Two 4-CPU nodes.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=1, exclusive=True, association=1),  # Xa: node 0, all 4 CPUs
        job(submit=0, run=100, limit=1000, cpus=3, association=2),  # Yb: node 1 (node 0 is held whole)
        probe(10, 1, cpus=8),  # Pa
        probe(10, 2, cpus=8),  # Pb
    ]
    # Instant 100: a = 100 * 4 (the CPUs Xa holds, not the 1 it asked for) = 400 > b = 100 * 3 = 300:
    # F(b) = 1, F(a) = 1/2: Pb at 100, Pa at 110.  (Counting the 1 CPU asked for, a = 100: Pa first.)
    out = simulate_fair(schedule, cluster([4, 4]), users(2), rows, priority_decay_half_life=0)
    assert out["nodes"][:2] == [[0], [1]]
    assert out["start"] == [0, 0, 110, 100]


@pytest.mark.parametrize(
    "half_life, starts",
    [
        # No decay: a = 2 * 100 = 200 > b = 100 (k = 600): F(b) = 1, F(a) = 2/3: Pb at 300, Pa at 310.
        (0, [310, 300]),
        # Half-life 60: df = 1 - 0.693 / 60 = 0.98845, df^100 = 0.3129468.  a = 200 * df^100 = 62.589 at 100,
        # then times d = df^100 at 200 and at 300: 6.1297; b = 100 * df^100 = 31.295 at 300: a < b: Pa first.
        (60, [300, 310]),
    ],
)
def test_half_life_zero_means_no_decay(schedule, half_life, starts):
    # Users a (1), b (2), k (3).  One 4-CPU node.
    rows = [
        job(submit=0, run=300, limit=1000, cpus=2, association=3),  # K: [0, 300)
        job(submit=0, run=100, limit=1000, cpus=2, association=1),  # A: [0, 100)
        job(submit=200, run=100, limit=1000, cpus=1, association=2),  # B: [200, 300)
        probe(210, 1),  # Pa
        probe(210, 2),  # Pb
    ]
    out = simulate_fair(schedule, cluster([4]), users(3), rows, priority_decay_half_life=half_life)
    assert out["start"] == [0, 0, 200, *starts]


def test_fair_tree_users_without_usage_tie(schedule):
    # Users a (1), b (2), c (3); half-life 0.  One 4-CPU node.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=4, association=1),  # A: [0, 100)
        probe(10, 1),  # Pa
        probe(10, 3),  # Pc
        probe(20, 2),  # Pb
    ]
    # Instant 100: a = 400; b = c = 0: U = 0, LF = +inf for both.  Sorted: b, c (LF +inf, index order), a.
    # b: rank = rnt = 3, F = 1, rnt 2; c: tied with b (+inf == +inf): rank stays 3, F = 1, rnt 1;
    # a: not tied: rank = rnt = 1, F = 1/3.  Pc and Pb both 1000: Pc (submitted at 10) at 100, Pb at 110,
    # Pa (333) at 120.  (Without the tie, F(c) = 2/3 and Pb would go before Pc.)
    out = simulate_fair(schedule, cluster([4]), users(3), rows, priority_decay_half_life=0)
    assert out["start"] == [0, 120, 100, 110]


def test_fair_tree_users_before_accounts_and_the_tie_passed_down(schedule):
    # Account A (1, shares 1) with users v (2) and w (3); user u (4) under the root; all shares 1.
    tree = associations((0, 1, False), (1, 1, True), (1, 1, True), (0, 1, True))
    rows = [
        job(submit=0, run=100, limit=1000, cpus=2, association=4),  # Ju: [0, 100), 2 CPUs
        job(submit=0, run=50, limit=1000, cpus=1, association=2),  # Jv: [0, 50)
        job(submit=0, run=150, limit=1000, cpus=1, association=3),  # Jw: [0, 150)
        probe(10, 3),  # Pw
        probe(10, 2),  # Pv
        probe(10, 4),  # Pu
    ]
    # Half-life 0, instants every 50 s.  At 150: u = 200, v = 50, w = 150, A = 200, root = 400 (exact).
    # Root level: S(A) = S(u) = 1/2, U(A) = U(u) = 1/2: LF 1 and 1, equal: u (a user) before A.
    #   u: rank = rnt = 3, F = 1, rnt 2.  A: tied with u (equal LF), passed down.
    # In A: S = 1/2, U(v) = 50/200, LF(v) = 2; U(w) = 150/200, LF(w) = 2/3: v, w.
    #   v: the first child of a tied account: tied, rank stays 3, F = 1, rnt 1.
    #   w: LF differs from v's: rank = rnt = 1, F = 1/3.
    # Pv 1000 and Pu 1000 (Pv earlier in index order), Pw 333: Pv at 150, Pu at 160, Pw at 170.
    # (A before u: v 3/3, w 2/3, then u tied with A: 2/3: Pv, Pw, Pu.  The tie not passed down: u 1,
    # v 2/3, w 1/3: Pu, Pv, Pw.)
    out = simulate_fair(schedule, cluster([4]), tree, rows, priority_decay_half_life=0, priority_calc_period=50)
    assert out["start"] == [0, 0, 0, 170, 150, 160]


@pytest.mark.parametrize(
    "shares_a, starts",
    [
        # Account A's shares 3: S(A) = 3/4, S(B) = 1/4, S(z) = 0.  U(A) = 200/300, U(B) = 100/300:
        # LF(A) = 0.75 / 0.667 = 1.125 > LF(B) = 0.25 / 0.333 = 0.75 > LF(z) = 0 (S is 0, U 0 too):
        # F(a) = 1, F(b) = 2/3, F(z) = 1/3 although a used twice as much as b: Pa, Pb, Pz.
        (3, [120, 110, 100]),
        # Shares 1: S(A) = S(B) = 1/2: LF(A) = 0.75 < LF(B) = 1.5: Pb, Pa, Pz.
        (1, [120, 100, 110]),
    ],
)
def test_fair_tree_account_shares_reorder_users(schedule, shares_a, starts):
    # Accounts A (1, shares `shares_a`) with user a (2) and B (3, shares 1) with user b (4); user z (5) under
    # the root with shares 0: its LF is 0 (lowest) although it used nothing.  Half-life 0.  One 4-CPU node.
    tree = associations((0, shares_a, False), (1, 1, True), (0, 1, False), (3, 1, True), (0, 0, True))
    rows = [
        job(submit=0, run=100, limit=1000, cpus=2, association=2),  # Ja: a = 200 at 100
        job(submit=0, run=100, limit=1000, cpus=1, association=4),  # Jb: b = 100 at 100
        probe(10, 5),  # Pz
        probe(10, 4),  # Pb
        probe(10, 2),  # Pa
    ]
    out = simulate_fair(schedule, cluster([4]), tree, rows, priority_decay_half_life=0)
    assert out["start"] == [0, 0, *starts]


def test_fair_tree_factors_are_computed_at_every_instant(schedule):
    # Users a (1), b (2), k (3); half-life 0.  One 4-CPU node.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=4, association=1),  # A: [0, 100)
        job(submit=100, run=80, limit=1000, cpus=4, association=3),  # K: [100, 180)
        probe(110, 1),  # Pa
        probe(120, 2),  # Pb
    ]
    # Instant 100, nothing pending (K is submitted after it): a = 400, b = k = 0: F(b) = F(k) = 1 (tied),
    # F(a) = 1/3.  Pa and Pb, submitted between instants, take these: Pa 333, Pb 1000.  K completes at 180:
    # Pb at 180, Pa at 190.  (With the factors of instant 0, all 1: Pa first.)
    out = simulate_fair(schedule, cluster([4]), users(3), rows, priority_decay_half_life=0)
    assert out["start"] == [0, 100, 190, 180]


def test_fair_tree_first_instant_counts_usage_from_the_start(schedule):
    # Users a (1) and b (2); half-life 0; origin 150, period 100: instants 150, 250, ...  One 4-CPU node.
    rows = [
        job(submit=0, run=150, limit=1000, cpus=2, association=1),  # A: [0, 150)
        job(submit=25, run=125, limit=1000, cpus=2, association=2),  # B: [25, 150)
        probe(30, 1),  # Pa
        probe(30, 2),  # Pb
    ]
    # Instant 150 (k = 0): no decay; each running job adds its slice from its start: a = 150 * 2 = 300,
    # b = 125 * 2 = 250: F(b) = 1, F(a) = 1/2: Pb at 150, Pa at 160.  (Slices from a previous instant
    # 150 - 100 = 50: a = b = 200, tied: Pa first; no slices at k = 0: tied too.)
    out = simulate_fair(schedule, cluster([4]), users(2), rows, priority_decay_half_life=0, priority_calc_origin=150)
    assert out["start"] == [0, 25, 160, 150]


@pytest.mark.parametrize(
    "resets, origin, a_first",
    [
        ([], 0, False),  # a = 200 > b = 100 (k = 400): F(b) = 1, F(a) = 2/3: Pb first
        ([150], 0, True),  # reset at instant 200 (the first >= 150), before the new usage: a = 0 < b = 100
        ([200], 0, True),  # a reset <= the instant counts
        ([201], 0, False),  # used up at 300 only
        # 50 is used up at 100 (before a's slice is added), 150 at 200: a = 0.
        ([50, 150], 0, True),
        # One reset per instant: origin 100 (instants 100, 200): 50 is used up at 100 (k = 0; then K and A add
        # their slices from their starts, a = 200), 60 at 200: a = 0.  (Both used up at 100: a = 200 at 200.)
        ([50, 60], 100, True),
    ],
)
def test_usage_resets(schedule, resets, origin, a_first):
    # Users a (1), b (2), k (3); half-life 0.  One 4-CPU node.
    rows = [
        job(submit=0, run=200, limit=1000, cpus=2, association=3),  # K: [0, 200)
        job(submit=0, run=100, limit=1000, cpus=2, association=1),  # A: [0, 100): a = 200 at 100
        job(submit=100, run=100, limit=1000, cpus=1, association=2),  # B: [100, 200): b = 100 at 200
        probe(110, 2),  # Pb
        probe(110, 1),  # Pa
    ]
    # Instant 200 with the reset: every raw 0, then the new slices: k = 200, b = 100, a = 0: F(a) = 1,
    # F(b) = 2/3: Pa at 200, Pb at 210.  (Resetting after the new usage: all 0, tied: Pb, first in index
    # order, would start first.)
    options = {"priority_decay_half_life": 0, "usage_resets": resets, "priority_calc_origin": origin}
    out = simulate_fair(schedule, cluster([4]), users(3), rows, **options)
    assert out["start"][3:] == ([210, 200] if a_first else [200, 210])


@pytest.mark.parametrize(
    "dampening, order",
    [
        # F(a1) = 2^-(0.375 / 0.125) = 2^-3 = 0.125, F(a2) = 2^-(0.45833 / 0.375) = 2^-1.2222 = 0.42862,
        # F(b) = 2^-(0.33333 / 0.5) = 2^-0.6667 = 0.62996: Pa1 125, Pa2 428, Pb 629; Z1 500, Z2 400:
        # Pb, Z1, Pa2, Z2, Pa1.
        (1, ["Pb", "Z1", "Pa2", "Z2", "Pa1"]),
        # Dampening 2 halves every exponent: F(a1) = 2^-1.5 = 0.35355, F(a2) = 2^-0.6111 = 0.65469,
        # F(b) = 2^-0.3333 = 0.79370: Pb 793, Pa2 654, Z1 500, Z2 400, Pa1 353.
        (2, ["Pb", "Pa2", "Z1", "Z2", "Pa1"]),
    ],
)
def test_classic_factor_and_dampening(schedule, dampening, order):
    # fair_tree False.  Account A (1, shares 1) with users a1 (2, shares 1) and a2 (3, shares 3); users b (4,
    # shares 1) and z (5, shares 0) under the root.  level_shares: 2 at the root, 4 in A.  N(a1) = 1/4 * 1/2
    # = 0.125, N(a2) = 3/4 * 1/2 = 0.375, N(b) = 1/2, N(z) = 0 (F(z) = 0: Z1 and Z2 have just their
    # weighted_partition, 500 and 400).  Half-life 0.  One 4-CPU node.
    tree = associations((0, 1, False), (1, 1, True), (1, 3, True), (0, 1, True), (0, 0, True))
    rows = [
        job(submit=0, run=200, limit=1000, cpus=1, association=2),  # J1: [0, 200)
        job(submit=0, run=200, limit=1000, cpus=1, association=3),  # J2: [0, 200)
        job(submit=0, run=100, limit=1000, cpus=2, association=4),  # Jb: [0, 100)
        probe(110, 2),  # Pa1
        probe(110, 3),  # Pa2
        probe(110, 4),  # Pb
        probe(110, 5, weighted_partition=500.0),  # Z1
        probe(110, 5, weighted_partition=400.0),  # Z2
    ]
    # Instant 100: a1 = a2 = 100, b = 200 (A = 200, root = 400).  Instant 200 (k = 2):
    # step 2: E(A) = norm(A) from the raws before this instant's usage: 200 / 400 = 0.5 (users' E unset);
    # steps 4-5, index order: J1 and J2 add 100 each (a1 = a2 = 200, A = 400, b = 200, root = 600), then the
    # probes, each user's E computed then: norm(a1) = norm(a2) = 1/3:
    # E(a1) = 1/3 + (0.5 - 1/3) * 1/4 = 0.375, E(a2) = 1/3 + (0.5 - 1/3) * 3/4 = 0.45833, E(b) = 1/3.
    # J1 and J2 complete at 200: the probes start at 200, 210, ... in priority order.
    # (E(A) taken after the new usage, 400 / 600: Pa2 340 < Z2 and Pa1 99 (dampening 1); E(a) = norm(a)
    # without the account's term: Pa2 540 > Z1.)
    out = simulate_fair(
        schedule, cluster([4]), tree, rows, fair_tree=False, priority_decay_half_life=0, fairshare_dampening=dampening
    )
    names = ["Pa1", "Pa2", "Pb", "Z1", "Z2"]
    assert out["start"][:3] == [0, 0, 0]
    assert sorted(names, key=lambda name: out["start"][3 + names.index(name)]) == order
    assert sorted(out["start"][3:]) == [200, 210, 220, 230, 240]


def test_classic_user_usage_is_computed_when_first_needed_and_kept(schedule):
    # fair_tree False, usage_at_job_end.  Users a (1) and b (2) with shares 1, z (3) with shares 0: N(a) = 1/2,
    # F(z) = 0.  Half-life 0.  One 4-CPU node.  Probes run 2 s.
    rows = [
        job(submit=0, run=150, limit=1000, cpus=1, association=1),  # A1: [0, 150)
        job(submit=0, run=180, limit=1000, cpus=2, association=2),  # B: [0, 180)
        job(submit=0, run=170, limit=1000, cpus=1, association=1),  # A2: [0, 170)
        probe(160, 1, run=2),  # Pa
        probe(160, 3, run=2, weighted_partition=480.0),  # Z1
        probe(160, 3, run=2, weighted_partition=450.0),  # Z2
        probe(175, 1, run=2),  # Pa2
    ]
    # Instant 100: step 2 unsets the users' E (the jobs submitted at 0 computed E(a) = 0 then); A1, B, A2 add
    # 100, 200, 100: a = 200, b = 200, root = 400.  No job is pending: no E is computed.
    # 150: A1 ends and adds 50 (from the last instant): a = 250, root = 450.
    # 160: Pa needs E(a), unset: computed now: 250 / 450 = 0.5556: F = 2^-(0.5556 / 0.5) = 0.46294: 463.
    # 170: A2 ends and adds 70: a = 320, root = 520.
    # 175: Pa2 uses the kept E(a) = 0.5556: 463.  (Recomputed, 320 / 520: F = 0.42609: 426 < Z2.)
    # 180: B completes: Z1 (480), Pa (463, submitted first), Pa2 (463), Z2 (450): 180, 182, 184, 186.
    # (E(a) computed at instant 100, 200 / 400: F = 2^-1 = 0.5: 500 > Z1: Pa and Pa2 first.)
    tree = associations((0, 1, True), (0, 1, True), (0, 0, True))
    out = simulate_fair(
        schedule, cluster([4]), tree, rows, fair_tree=False, priority_decay_half_life=0, usage_at_job_end=True
    )
    assert out["start"][3:] == [182, 180, 186, 184]


@pytest.mark.parametrize(
    "p_before_r, p_first",
    [
        # P (index 1) before R (index 2): the walk at 100 adds K's slice (b = 300), then P's E(a) = 0 / 300 = 0:
        # F = 1: P 1000 > Z 900; then R adds 80.
        (True, True),
        # R (index 1) before P: K and R add their slices (a = 80, root = 380), then P: E(a) = 80 / 380:
        # F = 2^-(0.21053 / 0.5) = 0.74688: P 746 < Z 900.
        (False, False),
    ],
)
def test_classic_walk_takes_jobs_in_index_order(schedule, p_before_r, p_first):
    # fair_tree False.  Users a (1), b (2) with shares 1, z (3) with shares 0.  Half-life 0.  One 4-CPU node.
    tree = associations((0, 1, True), (0, 1, True), (0, 0, True))
    p = probe(10 if p_before_r else 20, 1)  # P: waits
    # R: its partition factor puts it before P in the main pass, so that it starts at once
    start_r = 20 if p_before_r else 10
    r = job(submit=start_r, run=150 - start_r, limit=1000, cpus=1, association=1, weighted_partition=5000.0)
    rows = [
        job(submit=0, run=150, limit=1000, cpus=3, association=2),  # K: [0, 150)
        *([p, r] if p_before_r else [r, p]),  # R: [20 or 10, 150)
        probe(30, 3, weighted_partition=900.0),  # Z
    ]
    # (R started at 10 adds 90, a = 90, root = 390: E(a) = 0.23077, F = 0.72621: 726.)
    # K and R complete at 150: the higher of P and Z starts at 150, the other at 160.
    out = simulate_fair(schedule, cluster([4]), tree, rows, fair_tree=False, priority_decay_half_life=0)
    p_index = 1 if p_before_r else 2
    assert (out["start"][p_index], out["start"][3]) == ((150, 160) if p_first else (160, 150))


@pytest.mark.parametrize(
    "fair_tree, weight, starts",
    [
        (False, 1000, [0, 110, 100]),
        (True, 1000, [0, 100, 110]),
        # Section 3 says it of NO_FAIR_TREE whatever the fair-share weight: without fair share, X = 30 and
        # Y = 35 (not recomputed at 50; X = 45 + 30 = 75 if it were): Y first.  Fair Tree: X = 75 at 50: X first.
        (False, 0, [0, 110, 100]),
        (True, 0, [0, 100, 110]),
    ],
)
def test_classic_first_instant_recomputes_no_priority(schedule, fair_tree, weight, starts):
    # Users x (1) and k (2), shares 1.  Origin 50, period 100: instants 50 (k = 0), 150, ...  Age weight
    # 1024, max age 1024: the age term is the age in seconds.  One 1-CPU node.
    rows = [
        job(submit=0, run=100, limit=1000, cpus=1, association=2),  # K: [0, 100)
        job(submit=5, run=10, limit=1000, cpus=1, association=1, weighted_partition=30.0),  # X
        job(submit=60, run=10, limit=1000, cpus=1, association=1, weighted_partition=35.0),  # Y
    ]
    # Classic: X at 5: E(x) = 0 (no usage), F = 2^0 = 1: 0 + 1000 + 30 = 1030.  Instant 50 is the first:
    # no priority is recomputed (and no usage added).  Y at 60: E(x) = 0: 1035.  K completes at 100:
    # Y (1035) at 100, X at 110.  (Recomputed at 50, X = 45 + 1000 + 30 = 1075 would go first.)
    # Fair Tree: instant 50 adds K's 50 s (k = 50; x has none: F(x) = 1) and recomputes X: 45 + 1000 + 30
    # = 1075; Y at 60: 1035: X at 100, Y at 110.
    options = {**AGE_OPTIONS, "priority_calc_origin": 50, "fair_tree": fair_tree, "priority_weight_fairshare": weight}
    out = simulate_fair(schedule, cluster([1]), users(2), rows, priority_decay_half_life=0, **options)
    assert out["start"] == starts


# ================================================================ section 4: the main pass ===


def test_failed_partition_stops_and_withdraws_its_nodes(schedule):
    # Nodes 0..2 with 4 CPUs; p0 = {0,1}, p1 = {1}, p2 = {2}; sched/builtin (no backfill).
    machine = cluster([4, 4, 4], partitions=[[0, 1], [1], [2]])
    rows = [
        job(cpus=4, partition=0),  # 0
        job(cpus=8, partition=0),  # 1
        job(cpus=1, partition=1),  # 2
        job(cpus=1, partition=2, run=50, limit=50),  # 3
        job(cpus=1, partition=0),  # 4
    ]
    # Pass at 0: job 0 -> [0].  Job 1: a = [0,4], 4 < 8 -> p0 fails, nodes {0,1} withdrawn.
    # Job 2 (p1 = {1}): {1} minus {0,1} is empty -> fails (though node 1 has 4 free CPUs).
    # Job 3 (p2) -> [2].  Job 4 (p0 failed) skipped.
    # 50: job 3 completes; pass: job 1 fails again, job 2 fails, job 4 skipped.
    # 100: job 0 completes; pass: job 1 -> [0,1] (4 + 4); job 2: a = [0] fails; job 4 skipped.
    # 200: job 1 completes; pass: job 2 -> [1]; job 4: a = [4,3] -> best fit node 1 (3 < 4).
    out = simulate(schedule, machine, rows, backfill=False)
    assert out["start"] == [0, 100, 200, 0, 200]
    assert out["nodes"] == [[0], [0, 1], [1], [2], [1]]
    assert out["cpus"] == [[4], [4, 4], [1], [1], [1]]


def test_default_queue_depth_stops_the_pass(schedule):
    machine = cluster([4])
    rows = [job(cpus=1), job(cpus=1), job(cpus=1)]
    # sched_interval 0 (no periodic pass), default_queue_depth 1: a pass takes 2 jobs: 0 and 1 start at 0,
    # the walk stops before job 2, which waits for the next pass (completions at 100).  sched/builtin.
    out = simulate(schedule, machine, rows, backfill=False, default_queue_depth=1, sched_interval=0)
    assert out["start"] == [0, 0, 100]
    out = simulate(schedule, machine, rows, backfill=False, default_queue_depth=2, sched_interval=0)
    assert out["start"] == [0, 0, 0]
    # sched_interval 60: 0 is a periodic instant with jobs pending, so the submissions' pass at 0 is one
    # full-queue pass without the depth limit: all three start at 0.
    out = simulate(schedule, machine, rows, backfill=False, default_queue_depth=1)
    assert out["start"] == [0, 0, 0]


def test_default_queue_depth_counts_jobs_of_failed_partitions(schedule):
    # Nodes [4,4]; p0 = {0}, p1 = {1}; default_queue_depth 1 (2 jobs per pass); sched/builtin.
    machine = cluster([4, 4], partitions=[[0], [1]])
    rows = [
        job(submit=0, cpus=4, partition=0),  # 0
        job(submit=10, cpus=4, partition=0),  # 1
        job(submit=10, cpus=1, partition=0),  # 2
        job(submit=10, cpus=1, partition=1),  # 3
    ]
    # sched_interval 0.  0: job 0 -> node 0.  Pass at 10: job 1 taken (1), fails: p0 failed; job 2 taken
    # (2), skipped; stop before job 3 (2 = depth + 1 taken).  100: job 0 completes: job 1 taken, starts;
    # job 2 taken, fails; stop before job 3.  200: job 1 completes: job 2 starts, job 3 starts.
    out = simulate(schedule, machine, rows, backfill=False, default_queue_depth=1, sched_interval=0)
    assert out["start"] == [0, 100, 200, 200]
    # Default depth 100: job 3 starts in the pass at 10.
    out = simulate(schedule, machine, rows, backfill=False, sched_interval=0)
    assert out["start"] == [0, 100, 200, 10]
    # Depth 1 with sched_interval 60: the full-queue pass at 60 walks past the depth: job 1 fails, job 2 is
    # skipped, job 3 starts on node 1 at 60.  100: job 1 starts (job 2 fails); 200: job 2.
    out = simulate(schedule, machine, rows, backfill=False, default_queue_depth=1)
    assert out["start"] == [0, 100, 200, 60]


def test_start_delay(schedule):
    machine = cluster([4])
    rows = [job(submit=0, cpus=4, run=100, limit=100), job(submit=5, cpus=4, run=10, limit=10)]
    # sched_interval 0.  start_delay 2, sched/builtin: submission at 0 -> pass at 2: job 0 starts at 2,
    # ends at 102.  Submission at 5 -> pass at 7: job 1 fails.  Completion at 102 -> pass at 104: job 1
    # starts at 104.
    out = simulate(schedule, machine, rows, backfill=False, start_delay=2, sched_interval=0)
    assert out["start"] == [2, 104]
    # With backfill: updates at 0 -> cycle at max(0 + 30, 0) = 30: job 1 estimated at 102, not started;
    # nothing happens at 30 (the pass at 7 skips nothing: job 1 fails itself).  Completion at 102 -> cycle
    # at max(60, 102) = 102, before the pass due at 104: job 1 fits now -> backfilled at 102.
    out = simulate(schedule, machine, rows, start_delay=2, sched_interval=0)
    assert out["start"] == [2, 102]
    assert out["backfilled"] == [False, True]
    # sched_interval 60: the periodic pass is not delayed: at 0 (a periodic instant, job 0 pending after
    # the submission) it starts job 0 at 0, ending at 100; the pass due at 2 finds nothing.  Builtin: the
    # completion at 100 -> pass at 102: job 1 (the periodic pass at 60 found 0 CPUs free).
    out = simulate(schedule, machine, rows, backfill=False, start_delay=2)
    assert out["start"] == [0, 102]
    # Backfill: cycle at 30 (job 1 estimated at 100); the pass at 60 skips nothing; the completion at 100 ->
    # cycle at max(60, 100) = 100: job 1 backfilled at 100, before the pass due at 102.
    out = simulate(schedule, machine, rows, start_delay=2)
    assert out["start"] == [0, 100]
    assert out["backfilled"] == [False, True]


@pytest.mark.parametrize(
    "submit, sched_interval, origin, starts",
    [
        # default_queue_depth 0: an event's pass takes one job.  The pass at 10 starts J0 and stops before
        # J1; the periodic full-queue pass at 60 starts J1 and J2.
        (10, 60, 0, [10, 60, 60]),
        (10, 45, 0, [10, 45, 45]),
        # Origin 30: periodic passes at 30, 90, ...
        (10, 60, 30, [10, 30, 30]),
        # No periodic pass: J1 waits for J0's completion at 1010 (that pass takes J1 only), J2 for J1's.
        (10, 0, 0, [10, 1010, 2010]),
        # Submitted at a periodic instant: the submissions' pass and the periodic pass are one full-queue
        # pass; one second later they are two.
        (60, 60, 0, [60, 60, 60]),
        (61, 60, 0, [61, 120, 120]),
    ],
)
def test_periodic_full_queue_pass_goes_beyond_default_queue_depth(schedule, submit, sched_interval, origin, starts):
    # One 4-CPU node, three 1-CPU jobs of 1000 s, sched/builtin.
    rows = [job(submit=submit, cpus=1, run=1000, limit=1000) for _ in range(3)]
    options = {"sched_interval": sched_interval, "priority_calc_origin": origin}
    out = simulate(schedule, cluster([4]), rows, backfill=False, default_queue_depth=0, **options)
    assert out["start"] == starts


# ------------------------------------------------------------- section 4: the submissions' passes ---
# A completion at t: a pass at t + start_delay.  A submission at t, when no submission's pass is pending: a
# pass at max(t + start_delay, last + batch_sched_delay), "last" the background loop's last pass (a
# submission's pass or a full-queue instant; none at first); further submissions while it is pending add
# nothing.  A full-queue instant (a job pending or not) is the last pass and drops a pending submission's pass.


@pytest.mark.parametrize(
    "start_delay, starts",
    [
        # 0: no last pass yet: a pass at 0 (last 0).  1: max(1, 0 + 3) = 3; 2: that pass is pending: nothing
        # (jobs 1 and 2 start at 3; last 3).  4: max(4, 3 + 3) = 6 (last 6).  9: max(9, 6 + 3) = 9.  20: 20.
        # (Counted from the last submission instead of the last pass, job 3's pass would be max(4, 2 + 3) = 5;
        # without batch_sched_delay every job would start at its submission.)
        (0, [0, 3, 3, 6, 9, 20]),
        # start_delay 1: 0: a pass at 1 (last 1).  1: the pass at 1 is pending (submissions come before the
        # instant's pass): nothing, job 1 starts in it.  2: max(2 + 1, 1 + 3) = 4; 4: pending: nothing (last 4).
        # 9: max(10, 7) = 10.  20: max(21, 13) = 21.
        (1, [1, 1, 4, 4, 10, 21]),
    ],
)
def test_batch_sched_delay_spaces_the_submissions_passes(schedule, start_delay, starts):
    # One 8-CPU node, six 1-CPU jobs of 1000 s (all fit at once), sched/builtin, no periodic pass,
    # batch_sched_delay 3: each job starts in the first pass after its submission.
    rows = [job(submit=submit, run=1000, limit=1000) for submit in (0, 1, 2, 4, 9, 20)]
    options = {"sched_interval": 0, "batch_sched_delay": 3, "start_delay": start_delay}
    out = simulate(schedule, cluster([8]), rows, backfill=False, **options)
    assert out["start"] == starts


def test_a_submission_while_a_submissions_pass_is_pending_adds_nothing(schedule):
    # One 4-CPU node, sched/builtin, no periodic pass, start_delay 2, batch_sched_delay 0.
    rows = [
        job(submit=0, cpus=4, run=11, limit=100),  # R: its pass at 2: runs [2, 13)
        job(submit=10, cpus=1),  # X: its pass at 12 (R holds the node: X fails)
        job(submit=11, cpus=1),  # Y: X's pass is pending: nothing
    ]
    # 13: R completes: its pass at 15: X and Y start.  (A pass for Y's submission at 13, after R's completion
    # at 13 in that instant, would start both at 13.)
    out = simulate(schedule, cluster([4]), rows, backfill=False, sched_interval=0, start_delay=2)
    assert out["start"] == [2, 15, 15]


def test_a_full_queue_instant_is_the_last_pass_and_serves_a_pending_submissions_pass(schedule):
    # One 4-CPU node, four 1-CPU jobs of 1000 s (all fit at once), sched/builtin, sched_interval 60 (full-queue
    # instants 0, 60, 120, ...), batch_sched_delay 20.
    rows = [job(submit=submit, run=1000, limit=1000) for submit in (0, 50, 55, 65)]
    # 0: J0's pass (no last pass yet) and the full-queue instant 0 are one full-queue pass: J0 at 0 (last 0).
    # 50: max(50, 0 + 20) = 50: J1 at 50 (last 50).  55: max(55, 50 + 20) = 70, pending.  60: a full-queue
    # instant with J2 pending: J2 at 60; it serves the pass due at 70 (dropped) and is the last pass.
    # 65: no pass pending: max(65, 60 + 20) = 80: J3 at 80.  (The pass at 70 kept: J3, pending at it, at 70;
    # 60 not the last pass: max(65, 50 + 20) = 70.)
    out = simulate(schedule, cluster([4]), rows, backfill=False, batch_sched_delay=20)
    assert out["start"] == [0, 50, 60, 80]


def test_a_full_queue_instant_without_a_pending_job_is_the_last_pass(schedule):
    # One 4-CPU node, sched/builtin, sched_interval 60 (full-queue instants 0, 60, ...), batch_sched_delay 5.
    rows = [job(submit=0, run=1000, limit=1000), job(submit=61, run=1000, limit=1000)]  # A, B: 1 CPU each
    # 0: A's pass (the full-queue pass at 0): A at 0 (last 0).  60: a full-queue instant with no job pending:
    # still the background loop's last pass.  61: max(61, 60 + 5) = 65: B at 65.  (Counting only full-queue
    # instants with a pending job: max(61, 0 + 5) = 61.)
    out = simulate(schedule, cluster([4]), rows, backfill=False, batch_sched_delay=5)
    assert out["start"] == [0, 65]


def test_a_full_queue_instant_without_a_pending_job_drops_the_pending_submissions_pass(schedule):
    # One 4-CPU node, sched/builtin, sched_interval 60 from origin -45 (full-queue instants -45, 15, 75, ...),
    # batch_sched_delay 20.
    rows = [
        job(submit=0, cpus=4, run=10, limit=10),  # A
        job(submit=5, cpus=1, run=100, limit=100),  # X
        job(submit=17, cpus=1),  # Y
    ]
    # 0: last = -45 (a full-queue instant): max(0, -45 + 20) = 0: A at 0, ends 10 (last 0).  5: X: a pass at
    # max(5, 0 + 20) = 20, pending.  10: A completes: its pass at 10 (not held): X at 10.  15: a full-queue
    # instant, no job pending: the last pass; the pass due at 20 is dropped.  17: no pass pending:
    # max(17, 15 + 20) = 35: Y at 35.  (The pass at 20 kept: Y, pending at it, at 20.)
    out = simulate(schedule, cluster([4]), rows, backfill=False, batch_sched_delay=20, priority_calc_origin=-45)
    assert out["start"] == [0, 10, 35]


def test_a_completions_pass_is_not_held_by_batch_sched_delay(schedule):
    # One 4-CPU node, sched/builtin, no periodic pass, batch_sched_delay 20.
    rows = [
        job(submit=0, cpus=4, run=10, limit=10),  # A: its pass at 0 (no last pass yet): [0, 10) (last 0)
        job(submit=5, cpus=1, run=30, limit=30),  # X: its pass at max(5, 0 + 20) = 20, pending
        job(submit=41, cpus=1),  # Y
    ]
    # 10: A completes: its pass at 10, not held by batch_sched_delay: X at 10 (held: 20).  20: X's
    # submission's pass (nothing pending): last 20.  40: X completes: a pass at 40, not the background loop's.
    # 41: max(41, 20 + 20) = 41: Y at 41.  (The completion's pass at 40 as the last pass: max(41, 60) = 60.)
    out = simulate(schedule, cluster([4]), rows, backfill=False, sched_interval=0, batch_sched_delay=20)
    assert out["start"] == [0, 10, 41]


# ================================================================ section 5: the backfill cycle ===

# One 4-CPU node.  Job 0 (2 CPUs, 100 s) runs from 0; job 1 (4 CPUs) waits for it; job 2 (2 CPUs) is
# skipped by the main pass at 10 (job 1 failed its partition) and can only be backfilled.
BACKFILL_ROWS = [
    job(submit=0, cpus=2, run=100, limit=100),
    job(submit=10, cpus=4, run=100, limit=100),
    job(submit=10, cpus=2, run=50, limit=50),
]


def test_job_backfilled_at_a_cycle_instant(schedule):
    # bf_resolution 10.  Cycle at max(0 + 30, 0) = 30 (first event at 0).  Plan [30, W) {0}.
    # Job 1: fits now? 2 free < 4.  Will-run: job 0 (limit_end 100) released, last group -> fits,
    # estimate 100 > 30 -> reservation s = 100, e = 200: plan [30,100) {0}, [100,200) {}, [200,W) {0}.
    # Job 2: start_res 30, end 80: record [30,100): avail {0}; [100,200) begins after 80: stop.
    # Fits now (2 free) -> starts at 30, backfilled (not at its submission, 10).
    # 80: job 2 completes; pass: job 1 fails (2 free).  100: job 0 completes; pass: job 1 starts.
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, bf_resolution=10)
    assert out["start"] == [0, 100, 30]
    assert out["backfilled"] == [False, False, True]


def test_sched_builtin_does_not_backfill(schedule):
    # The same jobs without backfill: job 2 waits for job 1: 100 -> job 1, 200 -> job 2.
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, backfill=False, bf_resolution=10)
    assert out["start"] == [0, 100, 200]
    assert out["backfilled"] == [False, False, False]


@pytest.mark.parametrize(
    "limit, start",
    [
        # Cycle at 30, bf_resolution 60: job 1's estimate 100 floors to s = 60, e = floor(200/60)*60 = 180:
        # plan [0,60) {0}, [60,180) {}, [180,W) {0}.
        # Job 2, limit 29: end 30 + 29 = 59 < 60 -> avail {0}, fits now -> backfilled at 30.
        (29, 30),
        # Limit 30: end 60 >= begin 60 of [60,180) -> avail {}; later = 180; retry at 180: fits now ->
        # start 180 > 30, reserved [180,240).  100: job 1 starts; 200: job 1 completes -> job 2 at 200.
        # (Unfloored, the reservation would begin at 100 and job 2 would run at 30.)
        (30, 200),
    ],
)
def test_bf_resolution_floors_the_reservation(schedule, limit, start):
    rows = [*BACKFILL_ROWS[:2], job(submit=10, cpus=2, run=limit, limit=limit)]
    out = simulate(schedule, cluster([4]), rows)
    assert out["start"] == [0, 100, start]
    assert out["backfilled"] == [False, False, start == 30]


def test_bf_max_job_test(schedule):
    # bf_max_job_test 1, bf_resolution 10: in the cycle at 30 job 1 reaches the will-run test (1 tested),
    # so the cycle stops before job 2.  Nothing starts at 30; the periodic pass at 60 skips job 2 (an
    # update): cycles at 60 and 90 stop the same way.  100: job 1 starts in the main pass; cycle at 120:
    # job 2 (first in the queue) is estimated at 200; 200: job 1 completes -> job 2 starts.
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, bf_resolution=10, bf_max_job_test=1)
    assert out["start"] == [0, 100, 200]
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, bf_resolution=10, bf_max_job_test=2)
    assert out["start"] == [0, 100, 30]


def test_bf_node_space_size(schedule):
    # bf_node_space_size 1, bf_resolution 10: job 1 reaches step 8 with a plan of 1 record: the cycle
    # ends, job 2 is never tried -> as without backfill.  With 2 the reservation is made (plan: 3 records)
    # and job 2 is backfilled at 30.
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, bf_resolution=10, bf_node_space_size=1)
    assert out["start"] == [0, 100, 200]
    out = simulate(schedule, cluster([4]), BACKFILL_ROWS, bf_resolution=10, bf_node_space_size=2)
    assert out["start"] == [0, 100, 30]


@pytest.mark.parametrize("a_limit, b_limit", [(100, 125), (90, 145)])
def test_will_run_groups_make_the_estimate_later_than_exact(schedule, a_limit, b_limit):
    # One 6-CPU node, bf_resolution 5.  A (2 CPUs) and B (2 CPUs) start at 0; P (4 CPUs) fails the pass at
    # 0 (2 free), Q (2 CPUs, limit 80) is skipped.
    rows = [
        job(cpus=2, run=a_limit, limit=a_limit),  # A
        job(cpus=2, run=b_limit, limit=b_limit),  # B
        job(cpus=4, run=100, limit=100),  # P
        job(cpus=2, run=80, limit=80),  # Q
    ]
    # Cycle at 30.  P: not now.  Will-run: A released; barrier = end + 30 - end % 30:
    #   A ends 100: barrier 120;  A ends 90: barrier 90 + 30 - 0 = 120 (a multiple of 30 still adds 30).
    # Next, B ends 125 (resp. 145) <= 120 + 30: same group; B released; no next: last group -> 6 free,
    # fits; estimate = end of the last released = 125 (resp. 145), although P fits after A alone.
    # Reservation [125, 225) (resp. [145, 245)): Q, start_res 30, end 110, keeps node 0: fits now (2 free)
    # -> backfilled at 30.  (With the exact estimate, A's end, the reservation would overlap Q's [30,110].)
    # A completes (P: 2 free, fails); 110: Q completes -> main pass: P starts at 110 (4 free).
    out = simulate(schedule, cluster([6]), rows, bf_resolution=5)
    assert out["start"] == [0, 0, 110, 30]
    assert out["backfilled"] == [False, False, False, True]


def test_will_run_separate_groups_give_the_exact_estimate(schedule):
    # As above but B's limit is 160 > barrier 120 + window 30: A alone forms the first group; the test after
    # it fits (4 free) -> estimate 100, reservation [100, 200) on node 0.
    rows = [
        job(cpus=2, run=100, limit=100),  # A
        job(cpus=2, run=160, limit=160),  # B
        job(cpus=4, run=100, limit=100),  # P
        job(cpus=2, run=80, limit=80),  # Q
    ]
    # Q: start_res 30, end 110 >= 100 -> avail {}; later = 200: retry at 200: fits now -> start 200 > 30:
    # reserved [200,280), not started.  100: A completes -> P starts (4 free); Q fails.
    # 160: B completes -> Q starts at 160.
    out = simulate(schedule, cluster([6]), rows, bf_resolution=5)
    assert out["start"] == [0, 0, 100, 160]
    assert out["backfilled"] == [False] * 4


@pytest.mark.parametrize(
    "b_end, c_end, q_limit, p_start",
    [
        # Group 1: A (barrier 120); B ends 160 > 150: complete; window 30 -> 60 (160 <= 180: once);
        # 4 free < 6.  Group 2: B; C ends 170 <= 120 + 60: same group; C; last -> fits: estimate 170
        # (P would fit after B alone, at 160).  Reservation [170, 270): Q (end 165) fits now: backfilled.
        # 100: A completes (P: 2 free); 160: B (4 free); 165: Q completes -> P.
        (160, 170, 135, 165),
        # B ends 250: window 30 -> 60 (250 > 180) -> 120 (250 > 240) -> 240 (250 <= 360).  Group 2: B;
        # C ends 300 <= 360: same group -> estimate 300.  Reservation [300, 400): Q (end 280) backfilled.
        # 250: B completes (P: 4 free); 280: Q completes -> P.
        (250, 300, 250, 280),
    ],
)
def test_will_run_window_doubles_after_each_group(schedule, b_end, c_end, q_limit, p_start):
    # One 8-CPU node, bf_resolution 5.  A (limit 100), B, C, 2 CPUs each, start at 0; P (6 CPUs) fails the
    # pass (2 free); Q (2 CPUs) is skipped.
    rows = [
        job(cpus=2, run=100, limit=100),  # A
        job(cpus=2, run=b_end, limit=b_end),  # B
        job(cpus=2, run=c_end, limit=c_end),  # C
        job(cpus=6, run=100, limit=100),  # P
        job(cpus=2, run=q_limit, limit=q_limit),  # Q
    ]
    out = simulate(schedule, cluster([8]), rows, bf_resolution=5)
    assert out["start"] == [0, 0, 0, p_start, 30]
    assert out["backfilled"] == [False] * 4 + [True]


def test_will_run_skips_running_jobs_outside_avail(schedule):
    # Nodes 0 (4 CPUs) and 1 (6 CPUs); p0 = {0}, p1 = {1}; bf_resolution 5.
    machine = cluster([4, 6], partitions=[[0], [1]])
    rows = [
        job(cpus=4, partition=0, run=100, limit=100),  # X -> node 0
        job(cpus=2, partition=1, run=140, limit=140),  # Y -> node 1
        job(cpus=2, partition=1, run=175, limit=175),  # Z -> node 1
        job(cpus=4, partition=1, run=100, limit=100),  # P: fails the pass (2 free)
        job(cpus=2, partition=1, run=120, limit=120),  # Q: skipped
    ]
    # Cycle at 30.  P: avail {1}.  Will-run: X (ends 100) has no node in {1}: skipped, so it sets no barrier.
    # Y: barrier = 140 + 30 - 20 = 150; next Z ends 175 <= 180: same group; Z; last -> estimate 175.
    # (Had X set the barrier, 120, Y would close the first group and P would fit at 140.)
    # Reservation [175, 275) of node 1: Q, end 150, fits now -> backfilled at 30.
    # 140: Y completes (P: 2 free); 150: Q completes -> P starts.
    out = simulate(schedule, machine, rows, bf_resolution=5)
    assert out["start"] == [0, 0, 0, 150, 30]
    assert out["backfilled"] == [False] * 4 + [True]


def test_will_run_believes_limits_not_run_times(schedule):
    # One 4-CPU node, bf_resolution 10: job 0 (2 CPUs) really runs 60 s but has a 100-s limit.
    rows = [job(cpus=2, run=60, limit=100), job(submit=10, cpus=4), job(submit=10, cpus=2, run=50, limit=50)]
    # Cycle at 30: job 1's estimate is job 0's start + limit = 100 -> reservation [100, 200); job 2 (end 80)
    # keeps the node and fits now -> backfilled at 30.  60: job 0 completes (job 1: 2 free);
    # 80: job 2 completes -> job 1 starts.
    out = simulate(schedule, cluster([4]), rows, bf_resolution=10)
    assert out["start"] == [0, 80, 30]
    assert out["backfilled"] == [False, False, True]


def test_will_run_releases_jobs_in_order_of_start_plus_limit(schedule):
    # One 8-CPU node.  X (2 CPUs, run 100, limit 100) and Y (4 CPUs, really runs 40 s, limit 300) start at
    # 0; P (5 CPUs) fails the pass (2 free); Q (2 CPUs, limit 150) is skipped.
    rows = [
        job(cpus=2, run=100, limit=100),  # X
        job(cpus=4, run=40, limit=300),  # Y
        job(cpus=5),  # P
        job(cpus=2, run=150, limit=150),  # Q
    ]
    # Cycle at 30.  P: running jobs by start + limit: X (100), Y (300).  Group 1: X (barrier 120; Y ends
    # 300 > 150): 4 free < 5.  Group 2: Y: 8 free -> estimate 300 (by real ends Y would come first and both
    # would form one group ending with X: 100).  Reservation [300, 360): Q (end 180) fits now -> backfilled
    # at 30.  40: Y completes (P: 4 free); 100: X completes -> P starts (6 free).
    out = simulate(schedule, cluster([8]), rows)
    assert out["start"] == [0, 0, 100, 30]
    assert out["backfilled"] == [False, False, False, True]


def test_reservation_lasts_at_least_one_resolution(schedule):
    # One 4-CPU node.  Job 0 (2 CPUs, limit 50) runs; job 1 (4 CPUs, limit 5) waits; job 2 (2 CPUs,
    # limit 100) is skipped by the pass.
    rows = [job(cpus=2, run=50, limit=50), job(cpus=4, run=5, limit=5), job(cpus=2)]
    # Cycle at 30, plan [0, W).  Job 1's estimate 50: s = 0, e = floor(55/60)*60 = 0 -> e = max(0, 0 + 60)
    # = 60: node 0 reserved [0, 60) (s is the plan's first instant: the first record is split at 0).
    # Job 2: start_res 30 < 60 -> blocked; later 60: retry, start 60, reserved.  (An empty [0, 0) would
    # not block it: it would run at 30.)
    # 50: job 0 completes -> job 1 starts (4 free), completes at 55 -> job 2 starts at 55.
    out = simulate(schedule, cluster([4]), rows)
    assert out["start"] == [0, 50, 55]
    assert out["backfilled"] == [False, False, False]


def test_overlap_with_an_existing_reservation_moves_the_job(schedule):
    # Two 4-CPU nodes.  A (4 CPUs) on node 0 and B (2 CPUs) on node 1 both end at 1000.
    rows = [
        job(cpus=4, run=1000, limit=1000),  # A
        job(cpus=2, run=1000, limit=1000),  # B
        job(cpus=4, run=100, limit=100),  # P1: fails the pass (a = [0,2])
        job(cpus=4, run=100, limit=100),  # P2
        job(cpus=2, run=1000, limit=1000),  # Q
    ]
    # Cycle at 30.  P1: A (barrier 1020) and B (1000 <= 1050) form one group -> a = [4,4], node 0,
    # estimate 1000: reservation [960, 1080) of node 0.  Plan [0,960) {0,1}, [960,1080) {1}, [1080,W) {0,1}.
    # P2, try 1: start_res 30, end 130: avail {0,1} (only [0,960) is in the window), no later.  Will-run:
    # node 0, estimate 1000.  Step 7: s = 960, e = 1080: record [960,1080) lacks node 0 -> later = 1000,
    # try again.  Try 2: start_res 1000, end 1100: [960,1080) -> avail {1}, later 1080; will-run on {1}:
    # A skipped, B released -> node 1, estimate 1000 <= later: reservation [960, 1080) of node 1.
    # Q: end 1030 reaches [960,1080) where no node is left -> not started.  (Without the step-7 check P2
    # would keep node 0 and Q would run on node 1 at 30.)
    # 1000: A and B complete -> P1 on node 0, P2 on node 1; 1100: both complete -> Q on node 0.
    out = simulate(schedule, cluster([4, 4]), rows)
    assert out["start"] == [0, 0, 1000, 1000, 1100]
    assert out["nodes"] == [[0], [1], [0], [1], [0]]
    assert out["backfilled"] == [False] * 5


def test_reservation_holds_whole_nodes(schedule):
    # One 8-CPU node.  A (6 CPUs, limit 100) runs; P (4 CPUs) waits; Q (1 CPU, limit 100) is skipped.
    rows = [job(cpus=6), job(cpus=4), job(cpus=1)]
    # Cycle at 30: P's estimate 100 -> reservation [60, 180) of node 0 (whole, though P needs 4 of 8).
    # Q: start_res 30, end 130: [60,180) lacks node 0 -> avail {}; later 180 -> retry: start 180, reserved.
    # So Q does not run at 30 although 2 CPUs are free and P + Q would share the node from 100.
    # 100: A completes -> main pass: P -> node 0 (4 CPUs), Q -> node 0 (1 CPU).
    out = simulate(schedule, cluster([8]), rows)
    assert out["start"] == [0, 100, 100]
    assert out["cpus"] == [[6], [4], [1]]
    assert out["backfilled"] == [False, False, False]


def test_bf_window(schedule):
    # One 4-CPU node.  A (2 CPUs, limit 200) runs; P (4 CPUs) waits; Q (2 CPUs, limit 500) is skipped.
    rows = [job(cpus=2, run=200, limit=200), job(cpus=4, run=100, limit=100), job(cpus=2, run=500, limit=500)]
    # bf_window 86400, cycle at 30: P's estimate 200 -> reservation [180, 300).  Q: end 530 overlaps it ->
    # avail {}; retry at later = 300: start 300 > 30, reserved.  200: A completes -> P starts; 300: Q.
    out = simulate(schedule, cluster([4]), rows)
    assert out["start"] == [0, 200, 300]
    # bf_window 120: plan [0, floor(150/60)*60) = [0,120); P's estimate 200 > 30 + 120 -> no reservation.
    # Q: avail {0}, fits now -> backfilled at 30 (its own end, 530, is not limited by the window).
    # P then needs the whole node: 200 (A completes) 2 free; 530 (Q completes) -> P.
    out = simulate(schedule, cluster([4]), rows, bf_window=120)
    assert out["start"] == [0, 530, 30]
    assert out["backfilled"] == [False, False, True]
    # P is "done" at step 7 before reaching step 8, so even a plan limited to 1 record does not end the
    # cycle there: Q is still backfilled at 30.
    out = simulate(schedule, cluster([4]), rows, bf_window=120, bf_node_space_size=1)
    assert out["start"] == [0, 530, 30]


def test_bf_job_part_count_reserve(schedule):
    # Two 4-CPU nodes.
    rows = [
        job(cpus=4, run=100, limit=100),  # A -> node 0
        job(cpus=2, run=200, limit=200),  # B -> node 1
        job(cpus=4, run=1000, limit=1000),  # P1: fails the pass at 0 (a = [0,2])
        job(cpus=4, run=100, limit=100),  # P2
        job(cpus=2, run=200, limit=200),  # Q
    ]
    # Cycle at 30.  P1: will-run releases A (barrier 120; B ends 200 > 150: group done) -> node 0,
    # estimate 100: reservation [60, 1080) of node 0: plan [0,60) {0,1}, [60,1080) {1}, [1080,W) {0,1}.
    # Default (no limit).  P2: start_res 30, end 130: avail {1}, later 1080; will-run on {1}: A skipped (no
    # node in {1}), B released (barrier 210), last -> estimate 200 <= later: reservation [180, 300) of
    # node 1.  Q: end 230 overlaps [180,300) -> avail {}; later 300; retry: start 300, reserved.
    # 100: A completes -> P1 on node 0; 200: B completes -> P2 on node 1; 300: P2 completes -> Q.
    out = simulate(schedule, cluster([4, 4]), rows)
    assert out["start"] == [0, 0, 100, 200, 300]
    assert out["nodes"] == [[0], [1], [0], [1], [1]]
    # bf_job_part_count_reserve 1: after P1's reservation the partition holds 1: P2 and Q are test-now-only.
    # P2 does not fit now: done, no reservation.  Q: avail {1}, fits now (2 free) -> backfilled at 30.
    # Q's start -> cycle at 60; the pass at 60 skips P2 (an update) -> cycle at 90; nothing fits there.
    # 100: P1 starts; cycle at max(90 + 30, 100) = 120: P2's estimate = last of the group {B (200),
    # Q (230)} = 230.  200: B completes, P2 fails (2 free); 230: Q completes -> P2 on node 1.
    out = simulate(schedule, cluster([4, 4]), rows, bf_job_part_count_reserve=1)
    assert out["start"] == [0, 0, 100, 230, 30]
    assert out["nodes"] == [[0], [1], [0], [1], [1]]
    assert out["backfilled"] == [False, False, False, False, True]


@pytest.mark.parametrize(
    "bf_phase, q_start, u_start",
    [
        (0, 30, 595),  # cycle at max(0 + 30, 20) = 30
        (15, 45, 595),  # cycle at max(15 + 30, 20) = 45
        (-10, 20, 595),  # cycle at max(-10 + 30, 20) = 20: right after the pass at 20
        # The literal reading of "u is the first update at or after T" with T = bf_phase: the updates at
        # 20 < 25 are not counted; the first later update is R's submission at 505 -> Q is backfilled in
        # that cycle, with R.  Then A, Q, R, S fill the node until Q and R complete at 605 (a pass that
        # starts nothing); U waits for the cycle at max(595 + 30, 605) = 625.
        (25, 505, 625),
    ],
)
def test_cycle_timing(schedule, bf_phase, q_start, u_start):
    # One 8-CPU node.  A (2 CPUs, limit 1000) starts at 20; P (8 CPUs) waits for it until 1020 and holds a
    # reservation [1020, 1080); Q, R, S, U (2 CPUs, limit 100) can only be backfilled (P fails each pass).
    rows = [
        job(submit=20, cpus=2, run=1000, limit=1000),  # A
        job(submit=20, cpus=8, run=100, limit=100),  # P
        job(submit=20, cpus=2, run=100, limit=100),  # Q
        job(submit=505, cpus=2, run=100, limit=100),  # R
        job(submit=545, cpus=2, run=100, limit=100),  # S
        job(submit=575, cpus=2, run=100, limit=100),  # U
    ]
    # The first cycle is at max(bf_phase + 30, 20) (events at 20): Q is backfilled there.  Its start is an
    # event, so a cycle follows 30 s later (nothing to do), then the machine is quiet until Q completes
    # (a cycle then and 30 s later, nothing to start), then until 505.
    # R, submitted at 505: cycle at max(T + 30, 505) = 505 (no cycle ran on the quiet machine) -> R at 505.
    # R's start is an event at 505 -> cycle at 535 (nothing: S is not submitted yet); nothing happens at 535.
    # S, submitted at 545: cycle at max(535 + 30, 545) = 565 -> S at 565 (not at 545).
    # U, submitted at 575: S's start at 565 -> cycle at 595 -> U at 595.  A completes at 1020 -> P.
    # (Cycles every 30 s from bf_phase would start R, S, U at 510, 570, 600 for bf_phase 0.)
    # sched_interval 0: no periodic pass (its skips would be updates every 60 s while P waits).  The passes
    # at 20, 505 and 545 skip jobs, but at instants with submissions anyway.
    out = simulate(schedule, cluster([8]), rows, bf_phase=bf_phase, sched_interval=0)
    assert out["start"] == [20, 1020, q_start, 505, 565, u_start]
    assert out["backfilled"] == [False, False, True, True, True, True]


def test_try_later_moves_a_reservation_off_the_nodes_a_lower_job_can_use(schedule):
    # Two 4-CPU nodes.  A (4 CPUs, limit 100) -> node 0, B (2 CPUs, limit 400) -> node 1 at 0;
    # P1 fails the pass (a = [0,2]); P2 and Q are skipped.
    rows = [
        job(cpus=4, run=100, limit=100),  # A
        job(cpus=2, run=400, limit=400),  # B
        job(cpus=4, run=100, limit=100),  # P1
        job(cpus=4, run=100, limit=100),  # P2
        job(cpus=2, run=400, limit=400),  # Q
    ]
    # Cycle at 30.  P1: will-run releases A (barrier 120; B ends 400 > 150: group done) -> fits on node 0
    # (a = [4,2]: single best fit), estimate 100 -> reservation [60, 180) of node 0:
    # plan [0,60) {0,1}, [60,180) {1}, [180,W) {0,1}.
    # P2, try 1: start_res 30, end 130.  Record [0,60): its successor {1} is within avail {0,1}: no later.
    # Record [60,180): successor {0,1} is not within avail & {1} -> later = 180; avail {1}; [180,W) begins
    # after 130: stop.  Will-run on {1}: A skipped (no node in {1}), B released -> estimate 400 > later 180:
    # try 2 at 180: end 280, avail {0,1}; will-run releases A -> node 0 (a = [4,2]), estimate 100;
    # start = max(100, 180) = 180 -> reservation [180, 240) of node 0; [60,180) {1} and [180,240) {1} are
    # equal neighbours and merge: plan [0,60) {0,1}, [60,240) {1}, [240,W) {0,1}.
    # Q: start_res 30, end 430: avail {1} (node 0 reserved); fits now (2 free) -> backfilled at 30.
    # (Without the retry P2 would hold node 1 from floor(400/60)*60 = 360, and Q's [30,430] would not run.)
    # 100: A completes -> P1 on node 0; 200: P1 completes -> P2 on node 0.
    out = simulate(schedule, cluster([4, 4]), rows)
    assert out["start"] == [0, 0, 100, 200, 30]
    assert out["nodes"] == [[0], [1], [0], [0], [1]]
    assert out["backfilled"] == [False, False, False, False, True]


def test_a_job_that_cannot_fit_the_first_window_tries_later(schedule):
    # Two 4-CPU nodes.  A (4 CPUs) on node 0 and B (2 CPUs) on node 1 end at 100.
    rows = [
        job(cpus=4),  # A
        job(cpus=2),  # B
        job(cpus=4),  # P1: fails the pass (a = [0,2])
        job(cpus=8),  # P2
        job(cpus=2, run=500, limit=500),  # Q
    ]
    # Cycle at 30.  P1: A and B in one group -> node 0, estimate 100: node 0 reserved [60, 180).
    # P2 (8 CPUs), try 1: start_res 30, end 130: avail {1}, later 180.  Will-run on {1}: A skipped,
    # B released: 4 CPUs < 8, no fit -> later is set: try 2 at 180: avail {0,1}, estimate 100 -> start 180:
    # both nodes reserved [180, 240).  Q (end 530) finds no node free of reservations: not started.
    # (Had P2 given up after try 1, Q would run on node 1 at 30.)
    # 100: P1 on node 0; 200: P2 on both nodes; 300: Q on node 0.
    out = simulate(schedule, cluster([4, 4]), rows)
    assert out["start"] == [0, 0, 100, 200, 300]
    assert out["nodes"] == [[0], [1], [0], [0, 1], [0]]
    assert out["backfilled"] == [False] * 5


@pytest.mark.parametrize("space, q_start", [(4, 100), (5, 30)])
def test_bf_node_space_size_counts_records_ever_created(schedule, space, q_start):
    # The jobs of the test above, with X (4 CPUs, limit 100) between P2 and Q.  sched_interval 0.
    rows = [
        job(cpus=4, run=100, limit=100),  # A
        job(cpus=2, run=400, limit=400),  # B
        job(cpus=4, run=100, limit=100),  # P1
        job(cpus=4, run=100, limit=100),  # P2
        job(cpus=4, run=100, limit=100),  # X
        job(cpus=2, run=400, limit=400),  # Q
    ]
    # Cycle at 30 (1 record created).  P1 reserves node 0 [60, 180): splits at 60 and 180 -> 3 created.
    # P2 reserves node 0 [180, 240): a record ends at 180, split at 240 -> 4 created; then [60,180) {1} and
    # [180,240) {1} merge: the plan holds 3 records, but 4 were created (a merge gives none back).
    # X: try 1 avail {1}, estimate 400 > later 240; try 2 at 240: node 0, start 240, reaches step 8:
    #   bf_node_space_size 4: 4 records created -> the cycle ends; Q is not tried.  (Counting the plan's
    #   3 records, X would reserve and Q be backfilled at 30.)
    #   bf_node_space_size 5: X reserves [240, 300) (5 created); Q: avail {1}, fits now -> backfilled at 30.
    # Size 4 from there: nothing starts at 30 and no update follows until A completes at 100: the pass
    # starts P1 on node 0, P2 fails, X and Q are skipped; cycle at max(30 + 30, 100) = 100, plan [60, W):
    # P2: P1 (limit_end 200) released -> node 0, estimate 200: reserves node 0 [180, 300) (3 created).
    # X: try 1 (end 200) avail {1}, later 300; estimate 400 > 300 -> try at 300: node 0, estimate 200,
    # start 300: reserves [300, 360) (4 created; merged with [180,300) {1}).  Q: start_res 100, end 500:
    # avail {1}, fits now (2 free) -> backfilled at 100.
    # Both: 200: P1 completes -> P2 on node 0; 300: X on node 0.
    out = simulate(schedule, cluster([4, 4]), rows, bf_node_space_size=space, sched_interval=0)
    assert out["start"] == [0, 0, 100, 200, 300, q_start]
    assert out["nodes"] == [[0], [1], [0], [0], [0], [1]]
    assert out["backfilled"] == [False] * 5 + [True]


@pytest.mark.parametrize(
    "q_partition, options, q_start",
    [
        # Q in P's partition: the periodic pass at 60 skips it (P's partition failed): an update at 60 ->
        # cycle at max(30 + 30, 60) = 60 (nothing fits) and, the update being at 60, the next one at 90.
        # A's completion at 70 (its pass again skips Q) does not move it: Q is backfilled at 90.
        (0, {}, 90),
        # Q in p1 = {0}: the pass evaluates it (its nodes were withdrawn by P's failure) and it fails: no
        # skip, no update at 60; the next update is A's completion at 70 -> cycle at max(60, 70) = 70.
        (1, {}, 70),
        # No periodic pass: the same cycle at 70.
        (0, {"sched_interval": 0}, 70),
        # Section 3: a priority recalculation with a pending job is an update too.  Multifactor with every
        # factor 0 (every priority 1: the order stays by submission, then index), Q in p1, no periodic pass:
        # decay instant 60 -> update -> cycles at 60 and 90: Q at 90.  With period 100 the first instant
        # with a pending job, 100, comes after A's completion: cycle at 70.
        (1, {"sched_interval": 0, "multifactor": True, "priority_calc_period": 60}, 90),
        (1, {"sched_interval": 0, "multifactor": True, "priority_calc_period": 100}, 70),
    ],
)
def test_a_failed_partition_skip_is_an_update(schedule, q_partition, options, q_start):
    # Nodes [4, 4]; p0 = {0, 1}, p1 = {0}.
    machine = cluster([4, 4], partitions=[[0, 1], [0]])
    rows = [
        job(cpus=4, run=70, limit=1000),  # A -> node 0; really ends at 70
        job(cpus=4, run=1000, limit=1000),  # B -> node 1
        job(cpus=8),  # P: fails every pass until 1000 (p0 fails, nodes 0 and 1 withdrawn)
        job(cpus=4, partition=q_partition),  # Q
    ]
    # Cycle at 30 (updates at 0): P's estimate 1000 (A and B in one group) -> both nodes reserved
    # [960, 1080); Q does not fit now; nothing starts, no update at 30.
    # Q's cycle (60 -> 90, or 70): P reserves [960, 1080) again; Q (end <= 190) fits now on node 0 (A is
    # gone) -> backfilled.  1000: B completes -> P starts.
    out = simulate(schedule, machine, rows, **options)
    assert out["start"] == [0, 0, 1000, q_start]
    assert out["nodes"] == [[0], [1], [0, 1], [0]]
    assert out["backfilled"] == [False, False, False, True]


def test_a_backfilled_whole_node_job_leaves_the_plan(schedule):
    # Nodes 0 (8 CPUs), 1 (4 CPUs), 2 (16 CPUs); p0 = {0, 1, 2}, p1 = {0, 1}.
    machine = cluster([8, 4, 16], partitions=[[0, 1, 2], [0, 1]])
    rows = [
        job(cpus=6, run=210, limit=210, partition=1),  # R -> node 0 (a = [8, 4]: best fit node 0)
        job(cpus=16, nodes=1, run=10000, limit=10000),  # L -> node 2
        job(cpus=16, nodes=1),  # P: fails every pass (p0 fails: nodes 0, 1, 2 withdrawn) until 10000
        job(cpus=1, exclusive=True, run=230, limit=230, partition=1),  # X: fails (no node left)
        job(cpus=4, partition=1),  # Y: skipped
        job(cpus=2, run=500, limit=500, partition=1),  # W: skipped
    ]
    # Cycle at 30, plan [0, 86400) (1 record).
    # P: R (barrier 240; L ends 10000: group complete): a = [8, 4, 0], no node with 16; then L -> node 2,
    #   estimate 10000: node 2 reserved [9960, 10080) (3 records created).
    # X: end 260 < 9960: avail {0, 1}; fits now on node 1 (idle; node 0 holds R) -> starts at 30, given
    #   all 4 CPUs.  Exclusive: node 1 is reserved from the first record's begin 0 to floor(260/60)*60 =
    #   240: plan [0,0) {0,1,2}, [0,240) {0,2}, [240,9960) {0,1,2}, ... (5 created).
    # Y, try 1: start_res 30, end 130: [0,240) keeps only node 0 of p1 and its successor has node 1 ->
    #   later = 240, avail {0}.  Will-run on {0}: R released (barrier 240); X (ends 260 <= 270) is next but
    #   not in avail, nor L: node 0 has 8 free -> estimate 210 <= later: s = 180, e = 300: node 0
    #   reserved [180, 300).
    # W: start_res 30, end 530: node 0 is reserved from 180, node 1 until 240 -> avail {}; it is tried
    #   again from 240 (later): not started at 30.
    # (Without X leaving the plan, Y would see avail {0, 1}: R and X form one group, a = [8, 4] -> node 1
    # (the tighter), estimate 260: node 1 reserved [240, 360), and W would run now on node 0: at 30.)
    # X's start -> cycle at 60 (the pass at 60 skips W: also an update).  Plan [60, 86460): P reserves
    # node 2; Y: avail {0, 1} (X is running, not in this cycle's plan): R and X in one group -> node 1,
    # estimate 260, [240, 360); W (end 560): node 1 is reserved from 240, node 0 not at all -> avail {0}:
    # 2 CPUs free on node 0 -> W backfilled at 60.
    # Cycle at 90: Y estimated at 260 again.  No update until R completes at 210 (the passes at 120, 180
    # skip nothing: P fails, Y fails on withdrawn nodes) -> cycle at 210: Y fits now on node 0 (8 - 2 = 6
    # free) -> backfilled at 210.  10000: L completes -> P on node 2.
    out = simulate(schedule, machine, rows)
    assert out["start"] == [0, 0, 10000, 30, 210, 60]
    assert out["nodes"] == [[0], [2], [2], [1], [0], [0]]
    assert out["cpus"] == [[6], [16], [16], [4], [4], [2]]
    assert out["backfilled"] == [False, False, False, True, True, True]


def test_the_whole_node_reservation_needs_room_in_the_plan(schedule):
    # Nodes 0, 1, 2 (4 CPUs); pA = {0, 1, 2}, pX = {0}, pL = {1}, pW = {2}.  bf_node_space_size 3,
    # bf_job_part_count_reserve 1, bf_max_job_test 3.
    machine = cluster([4, 4, 4], partitions=[[0, 1, 2], [0], [1], [2]])
    rows = [
        job(cpus=4, run=10000, limit=10000, partition=2),  # L -> node 1
        job(cpus=12),  # P (pA): fails every pass until 10000; nodes 0, 1, 2 withdrawn
        job(cpus=1, exclusive=True, partition=1),  # X (pX): fails (node 0 withdrawn)
        job(cpus=3, nodes=3),  # Z (pA): skipped
        job(cpus=1, partition=3),  # W (pW): fails (node 2 withdrawn)
    ]
    # Cycle at 30.  P (tested: 1): estimate 10000 (L) -> all nodes reserved [9960, 10080): 3 records
    # created; pA holds 1 reservation.  X (tested: 2): fits now on node 0 -> starts at 30; exclusive, but
    # 3 records were created: its node is not reserved.  Z: test-now-only (pA holds 1); avail {0, 1, 2}
    # (3 nodes): it reaches the will-run test (tested: 3) and does not fit now (only node 2 is free): done.
    # W: 3 jobs were tested -> the cycle stops.  (Had X's node been reserved [0, 120), Z's avail would be
    # {1, 2}, fewer than 3 nodes: done before the test, and W would start now on node 2.)
    # X's start -> cycle at 60 (the pass at 60 skips Z too): P reserves (tested 1), Z (tested 2), W fits now
    # on node 2 -> backfilled at 60.  10000: L completes -> P on all three nodes; 10100: Z.
    options = {"bf_node_space_size": 3, "bf_job_part_count_reserve": 1, "bf_max_job_test": 3}
    out = simulate(schedule, machine, rows, **options)
    assert out["start"] == [0, 10000, 30, 10100, 60]
    assert out["backfilled"] == [False, False, True, False, True]


def test_reserve_merges_from_the_record_before_s(schedule):
    # Nodes 0 and 1 (4 CPUs); p0 = {0}, p1 = {1}.  All submitted at 0.
    machine = cluster([4, 4], partitions=[[0], [1]])
    rows = [
        job(cpus=1, run=120, limit=120),  # Ra -> node 0
        job(cpus=1, run=200, limit=200),  # Rd -> node 0
        job(cpus=2, run=240, limit=240),  # Rb -> node 0 (full)
        job(cpus=3, run=370, limit=370, partition=1),  # Rc -> node 1 (1 CPU free)
        job(cpus=1, run=60, limit=60),  # J1: fails (p0 fails)
        job(cpus=4, run=120, limit=120),  # J2: skipped
        job(cpus=2, run=30, limit=30),  # J3: skipped
        job(cpus=2, run=120, limit=120),  # J4: skipped
        job(cpus=4, run=60, limit=60, partition=1),  # J5: fails (p1 fails)
        job(cpus=4, run=60, limit=60, partition=1),  # J6: skipped
        job(cpus=1, run=100, limit=100, partition=1),  # J7: skipped
    ]
    # Cycle at 30, bf_node_space_size 8.  Estimates on node 0: after Ra (120) 1 CPU free, after Rd (200) 2,
    # after Rb (240) 4 (groups: Ra alone, barrier 150; Rd alone; Rb).  Records created in brackets.
    # J1 (1 CPU, est 120): node 0 reserved [120, 180): [0,120) {0,1}, [120,180) {1}, [180,W) {0,1}  (3)
    # J2 (4 CPUs, est 240): try 1 blocked by [120,180) -> at 180: start 240, [240, 360): split at 240 and
    #   360: [0,120) {0,1}, [120,180) {1}, [180,240) {0,1}, [240,360) {1}, [360,W) {0,1}  (5)
    # J3 (2 CPUs, est 200, limit 30): start 200 > later 180 -> try at 180 (end 210 < 240): start 200,
    #   s = 180, e = floor(230/60)*60 = 180 (no overlap); Reserve makes e = max(180, 180 + 60) = 240: it
    #   fills the gap: [180,240) {1}.  Merge from b = [0,120):
    #   [120,180) and [180,240) merge; [120,240) {1} and [240,360) {1} stay apart (one merge)  (5)
    # J4 (2 CPUs, limit 120): try 1 (end 150): avail {}, later 360 (the end of [240,360)) -> start 360:
    #   [360,480): split at 480  (6).  s = 360 ends [240,360); b is the record before it, [120,240) {1},
    #   and the first equal neighbours from b are [120,240) and [240,360): [0,120) {0,1}, [120,360) {1},
    #   [360,480) {1}, [480,W) {0,1}.
    #   (From [240,360) instead, the merge would join [240,360) and [360,480), leaving a boundary at 240
    #   and none at 360.)
    # J5 (p1, 4 CPUs, est 370 when Rc ends): s = 360, e = 420: a record ends at 360; split at 420  (7):
    #   [120,360) {1}, [360,420) {}, [420,480) {1}.  (With the boundary at 240: splits at 360 and 420 (8).)
    # J6 (p1, est 370): [360,420) has no node 1 -> later 420 -> start 420, [420, 480): 7 < 8 created: it
    #   reserves (no split).  (With 8 created, the cycle would end here.)
    # J7 (p1, 1 CPU, end 130): avail {1}, fits now (1 CPU free on node 1) -> backfilled at 30.
    # Then no job fits before its main pass: 120: Ra completes -> J1; 200: Rd completes, J2 fails; 240: Rb
    # completes -> J2 (4 CPUs); 360: J2 completes -> J3 and J4; 370: Rc completes -> J5; 430: J6.
    # (The cycle at 210 keeps J3 off node 0: its end 240 reaches J2's reservation from 240.)
    out = simulate(schedule, machine, rows, bf_node_space_size=8)
    assert out["start"] == [0, 0, 0, 0, 120, 240, 360, 360, 370, 430, 30]
    assert out["backfilled"] == [False] * 10 + [True]


@pytest.mark.parametrize(
    "kill_wait, over_time_limit, p_start, q_start",
    [
        # Guess 100 + 0 + 30 = 130 > 105: P's reservation [130, 230); Q (ends 125) fits before it: backfilled
        # at 105, ends 125.  120: A is killed (the check); its pass: P fails (Q holds 2 CPUs).  125: Q completes:
        # P at 125.  (Without kill_wait the guess would be 100, not after 105: t + 1 = 106, as below.)
        (30, 0, 125, 105),
        # Guess 100 + 0 + 2 = 102, not after 105: t + 1 = 106: P's reservation [106, 206); Q (ends 125) reaches
        # it: reserved at 206, not started.  120: A is killed: P at 120 (runs to 220); 220: Q.
        (2, 0, 120, 220),
        # over_time_limit 60: A's due is 160, its check 180.  Guess 100 + 60 + 2 = 162: P's reservation
        # [162, 262): Q backfilled at 105 (ends 125).  180: A is killed: P at 180.
        (2, 60, 180, 105),
    ],
)
def test_will_run_guesses_the_end_of_a_job_past_its_limit(schedule, kill_wait, over_time_limit, p_start, q_start):
    # One 4-CPU node, bf_resolution 1, no periodic pass; time limits checked every 30 s from 0.
    rows = [
        job(submit=0, cpus=2, run=500, limit=100),  # A: past its limit from 100, killed at the check 120
        job(submit=10, cpus=4, run=100, limit=100),  # P: waits for A
        job(submit=105, cpus=2, run=20, limit=20),  # Q
    ]
    # Cycle at 30 (the updates at 0): P's estimate is A's end 100 (after 30).  105: Q's submission: its pass
    # (P fails, Q skipped); the cycle at max(30 + 30, 105) = 105: A (end 100) is past its limit, awaiting the
    # check: P's estimate is guessed (_guess_job_end): 100 + over_time_limit + kill_wait, or 105 + 1.
    options = {"kill_wait": kill_wait, "over_time_limit": over_time_limit, "kill_check_period": 30}
    out = simulate(schedule, cluster([4]), rows, sched_interval=0, bf_resolution=1, **options)
    assert out["start"] == [0, p_start, q_start]
    assert out["backfilled"] == [False, False, q_start == 105]


# ================================================================ sections 1 and 6: run times ===


def test_run_zero_is_taken_as_one_second(schedule):
    # One 1-CPU node: job 0 (run 0) runs [0, 1); its completion at 1 starts job 1 in the pass at 1.
    out = simulate(schedule, cluster([1]), [job(run=0), job(run=10)])
    assert out["start"] == [0, 1]


def test_run_longer_than_limit_is_killed_at_the_limit(schedule):
    # Job 0 (run 500, limit 100) is killed at 100: job 1 starts then.
    out = simulate(schedule, cluster([1]), [job(run=500, limit=100), job(run=10)])
    assert out["start"] == [0, 100]


# ------------------------------------------------------------- section 1, "Time limits": the checks ---
# One 1-CPU node, sched/builtin, no periodic pass: A (limit 100, unless said) runs from 0; B (submitted at 10)
# waits for it and starts in A's completion pass: B's start is A's end.  due = start + limit +
# over_time_limit; past it, A ends at min(start + run, c), c the first check instant at or after due, the checks
# at priority_calc_origin + k * kill_check_period, k >= 1.


def time_limit_starts(schedule, a_run, a_limit=100, **options):
    rows = [job(submit=0, run=a_run, limit=a_limit), job(submit=10, run=10, limit=10)]
    out = simulate(schedule, cluster([1]), rows, backfill=False, sched_interval=0, **options)
    assert out["start"][0] == 0
    return out["start"][1]


@pytest.mark.parametrize(
    "a_run, a_limit, b_start",
    [
        # Checks every 30 s from 0: 30, 60, 90, 120, ...  due = 100: c = 120.
        (500, 100, 120),  # past its limit: killed at the check, min(500, 120) (not at the limit 100)
        (110, 100, 110),  # past its limit, but ends by itself before the check: min(110, 120)
        (120, 100, 120),  # ends at the check
        (100, 100, 100),  # ends at its limit, not past it: no kill
        (500, 90, 90),  # due 90 is a check instant: c = 90 (at or after due)
    ],
)
def test_a_job_past_its_limit_ends_at_the_first_check(schedule, a_run, a_limit, b_start):
    assert time_limit_starts(schedule, a_run, a_limit, kill_check_period=30) == b_start


@pytest.mark.parametrize(
    "origin, b_start",
    [
        (0, 120),  # checks 30, 60, 90, 120: c = 120
        (7, 127),  # checks 37, 67, 97, 127: c = 127 (counted from 0: 120)
        (-20, 100),  # checks 10, 40, 70, 100: c = 100, the limit itself
        # checks 180, 210, ... (k >= 1): c = 180, although due 100 is before the origin (with k >= 0: 150)
        (150, 180),
    ],
)
def test_check_instants_count_from_priority_calc_origin(schedule, origin, b_start):
    # A: run 500, limit 100 (due 100); checks every 30 s from priority_calc_origin.
    assert time_limit_starts(schedule, 500, kill_check_period=30, priority_calc_origin=origin) == b_start


@pytest.mark.parametrize(
    "period, a_run, b_start",
    [
        # over_time_limit 60: due = 0 + 100 + 60 = 160.
        (0, 500, 160),  # kill_check_period 0: c = due: killed at 160 (not at the limit 100)
        (0, 150, 150),  # 150 <= due 160: not killed, although past its limit
        (30, 500, 180),  # checks 30, 60, ..., 150, 180: the first at or after 160 is 180 (not 120 or 150)
        (30, 170, 170),  # past due, but ends by itself before the check at 180
    ],
)
def test_over_time_limit(schedule, period, a_run, b_start):
    assert time_limit_starts(schedule, a_run, kill_check_period=period, over_time_limit=60) == b_start


@pytest.mark.parametrize(
    "origin, a_run, b_start",
    [
        (0, 500, 100),  # kill_check_period 0: c = due = 100: killed exactly at the limit
        (7, 500, 100),  # whatever the origin (checks every 30 s from 7 would give 127)
        (-20, 101, 100),  # one second past the limit is enough
        (150, 99, 99),  # ends by itself before its limit
    ],
)
def test_kill_check_period_zero_kills_at_the_limit(schedule, origin, a_run, b_start):
    assert time_limit_starts(schedule, a_run, kill_check_period=0, priority_calc_origin=origin) == b_start
