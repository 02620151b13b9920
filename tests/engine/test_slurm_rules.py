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
    "period, origin, starts",
    [
        # Decay instants 100, 200, 300 (the recalculation at 0 finds no pending job: submissions come after
        # it).  100: B = 80.  150: D submitted: 100 (age 0).  200: B = 180, D = 50 + 100 = 150.
        # 230: C submitted: 170 (age 0 until the next instant).
        # 250: R completes: B 180 > C 170 > D 150 -> B (runs 30 s).
        # 280: C 170 > D 150 -> C, although C would be 50 + 170 = 220 < D 130 + 100 = 230 with ages counted
        #      at 280: between instants priorities do not change (runs 20 s).
        # 290: E submitted: 200.  300: the recalculation comes first: D = 250, E = 10 + 200 = 210; then C's
        #      completion -> pass: D (with the priorities of 200, E 200 > D 150 would win).  310: E.
        (100, 0, [0, 250, 300, 280, 310]),
        # No instant but 0 in reach: the priorities stay those at submission: B 1 (0, raised to 1), D 100,
        # C 170, E 200.  250: C; 270: D; 280: B (E is submitted at 290); 310: E.
        (1000, 0, [0, 280, 270, 250, 310]),
        # Origin 50: instants 150 and 250.  150: B = 130 (D is submitted after the recalculation: 100).
        # 250: recalculation first: B = 230, D = 200, C = 20 + 170 = 190; then R completes -> B.
        # 280: D 200 > C 190 -> D (runs 10 s).  290: E submitted (200) and D completes: E 200 > C 190 -> E.
        # 300: C.
        (100, 50, [0, 250, 280, 300, 290]),
    ],
)
def test_multifactor_age_at_the_decay_instants(schedule, period, origin, starts):
    # One 1-CPU node, sched/builtin: R holds it until 250; then one job per completion, by priority.
    rows = [
        job(submit=0, run=250, limit=1000),  # R
        job(submit=20, run=30, limit=1000),  # B: no factor but its age
        job(submit=150, run=10, limit=1000, weighted_fairshare=100.0),  # D
        job(submit=230, run=20, limit=1000, weighted_fairshare=170.0),  # C
        job(submit=290, run=10, limit=1000, weighted_fairshare=200.0),  # E
    ]
    options = {**AGE_OPTIONS, "priority_calc_period": period, "priority_calc_origin": origin}
    out = simulate(schedule, cluster([1]), rows, backfill=False, **options)
    assert out["start"] == starts


def test_multifactor_sum_order_truncation_and_floor_of_one(schedule):
    # One 1-CPU node, sched/builtin, no age weight: R runs [0, 100), then one job per 100 s by priority.
    rows = [
        job(submit=0),  # R
        job(submit=5, weighted_fairshare=0.5),  # Z: 0.5 -> at least 1 -> 1
        # X: ((0.0 + 0.4) + 1.4) + 0.2 = 1.7999999999999998 + 0.2 = 1.9999999999999998 -> truncated: 1.
        # (Any other order, 0.4 + (1.4 + 0.2), (0.2 + 1.4) + 0.4, (0.4 + 0.2) + 1.4, or rounding gives 2.)
        job(submit=10, weighted_fairshare=0.4, weighted_job_size=1.4, weighted_partition=0.2),
        job(submit=20, weighted_fairshare=2.0),  # Y: 2
        job(submit=30, weighted_job_size=0.9),  # V: 0.9 -> 1
    ]
    # 100: Y (2) first; then Z, X, V (all 1) by submission time: 200, 300, 400.
    # (X = 2 would tie with Y and go first, being submitted earlier; without the floor of 1, Z = 0 and V = 0
    # would go after X.)
    out = simulate(schedule, cluster([1]), rows, backfill=False, multifactor=True)
    assert out["start"] == [0, 200, 300, 100, 400]
    # Without multifactor the priority column rules (FIFO here): Z, X, Y, V.
    out = simulate(schedule, cluster([1]), rows, backfill=False)
    assert out["start"] == [0, 100, 200, 300, 400]


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


# ================================================================ sections 1 and 6: run times ===


def test_run_zero_is_taken_as_one_second(schedule):
    # One 1-CPU node: job 0 (run 0) runs [0, 1); its completion at 1 starts job 1 in the pass at 1.
    out = simulate(schedule, cluster([1]), [job(run=0), job(run=10)])
    assert out["start"] == [0, 1]


def test_run_longer_than_limit_is_killed_at_the_limit(schedule):
    # Job 0 (run 500, limit 100) is killed at 100: job 1 starts then.
    out = simulate(schedule, cluster([1]), [job(run=500, limit=100), job(run=10)])
    assert out["start"] == [0, 100]
