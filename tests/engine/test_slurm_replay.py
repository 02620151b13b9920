"""The Slurm mode's one-step replay (docs/slurm_mode.md §8): the model runs on a recorded history
and notes when it would itself have started each job."""

import numpy as np
from simcore.engine._slurm import SlurmRun
from slurm_cases import random_case

from simcore.engine.slurm import SlurmCluster, SlurmOptions, job_arrays, slurm_replay

BUILTIN = SlurmOptions(backfill=False, sched_interval=0, kill_check_period=0, batch_sched_delay=0)
ONE_NODE = SlurmCluster(cpus=[2])
# A fills the node from 0 to 10; B (2 CPUs) can start when A ends, at 10
JOBS = {"submit": [0, 1], "run": [10, 5], "limit": [60, 60], "cpus": [2, 2]}


def test_replaying_the_models_own_schedule_gives_it_back():
    """On its own schedule the model decides every start exactly when it was recorded, and the
    replayed run keeps every node and CPU (1,000 random cases, every shape and option)."""
    differ = []
    for seed in range(1000):
        cluster, jobs, options = random_case(seed)
        start, _, offsets, nodes, cpus = SlurmRun(cluster, jobs, options).run()
        replay = {"recorded_start": start, "node_offsets": offsets, "nodes": nodes, "cpus": cpus, "tolerance": 2}
        run = SlurmRun(cluster, jobs, options, replay)
        again, _, _, nodes_again, cpus_again = run.run()
        same = np.array_equal(again, start) and np.array_equal(nodes_again, nodes) and np.array_equal(cpus_again, cpus)
        if not (same and np.array_equal(run.predicted, start)):
            differ.append(seed)
    assert not differ, f"seeds {differ[:10]}"


def test_a_start_the_real_scheduler_made_late_is_noted_when_the_model_would_make_it():
    """B recorded at 13: the model would start it when A ends, at 10 (3 s early: not explained)."""
    predicted = slurm_replay(ONE_NODE, JOBS, BUILTIN, np.array([0, 13]), [[0], [0]])
    assert predicted.tolist() == [0, 10]


def test_the_model_follows_the_recorded_history_not_its_own():
    """A recorded from 4 (the model would start it at 0) holds the node until 14: B is then noted
    at 14, where the recorded history frees the node, not at 10."""
    predicted = slurm_replay(ONE_NODE, JOBS, BUILTIN, np.array([4, 14]), [[0], [0]])
    assert predicted.tolist() == [0, 14]


def test_a_start_the_model_never_makes_is_minus_one():
    """B recorded at 5, while A still holds the node as recorded: the model never starts B before
    it is started as recorded (at 5 + the 2-s tolerance)."""
    predicted = slurm_replay(ONE_NODE, JOBS, BUILTIN, np.array([0, 5]), [[0], [0]])
    assert predicted.tolist() == [0, -1]


def test_a_job_without_recorded_nodes_is_placed_in_its_partition():
    predicted = slurm_replay(SlurmCluster(cpus=[2, 2]), JOBS, BUILTIN, np.array([0, 1]), [None, None])
    assert predicted.tolist() == [0, 1]


def test_a_job_is_split_over_its_recorded_nodes_as_the_placement_rule_splits_it():
    """6 CPUs recorded on nodes 0, 2 and 3 of 4 x 4 CPUs (a NodeList gives no CPUs per node): the
    rule takes the larger set {2, 3} first, 4 CPUs on node 2 and one on each other node, where
    filling the nodes in order would give node 0 four."""
    cluster, jobs = SlurmCluster(cpus=[4] * 4), {"submit": [0], "run": [10], "limit": [60], "cpus": [6]}
    replay = {"recorded_start": [0], "node_offsets": [0, 3], "nodes": [0, 2, 3], "tolerance": 2}
    _, _, _, nodes, cpus = SlurmRun(cluster.arrays(), job_arrays(jobs), BUILTIN.arrays(), replay).run()
    assert nodes.tolist() == [0, 2, 3] and cpus.tolist() == [1, 4, 1]
