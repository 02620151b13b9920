"""Random Slurm-mode cases (docs/slurm_mode.md): a cluster, jobs and options drawn from one
seed, covering every node shape and option (fair share, section 3.1, in about half of the
multifactor cases; the time-limit checks and batch_sched_delay drawn in every case), for the
kernel-vs-reference tests and their benchmark. Every job fits its partition when the partition
is empty."""

import numpy as np
from simcore.engine._slurm import SlurmRun


def _fits_alone(cluster: dict, job: dict, options: dict) -> bool:
    one = {key: [value] for key, value in job.items()}
    try:
        SlurmRun(cluster, one, options)
    except ValueError:
        return False
    return True


def random_cluster(rng: np.random.Generator) -> dict:
    n = int(rng.integers(1, 9))
    shape = rng.integers(3)
    if shape == 0:  # one node size
        cpus = [int(rng.choice([1, 2, 4, 8, 16, 32]))] * n
    elif shape == 1:  # many one-CPU nodes
        n = int(rng.integers(4, 17))
        cpus = [1] * n
    else:  # mixed
        cpus = [int(c) for c in rng.choice([1, 2, 4, 8], size=n)]
    n = len(cpus)
    memory = [int(m) for m in rng.choice([1000, 2000, 4000], size=n)]
    weight = [int(w) for w in rng.choice([1, 1, 1, 5], size=n)] if rng.random() < 0.3 else [1] * n
    n_parts = int(rng.choice([1, 1, 2, 3]))
    partitions = [list(range(n))]
    for _ in range(n_parts - 1):
        members = sorted(int(i) for i in rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        partitions.append(members)
    tiers = [int(t) for t in rng.choice([1, 1, 2], size=n_parts)]
    return {"cpus": cpus, "memory": memory, "weight": weight, "partitions": partitions, "tiers": tiers}


def random_options(rng: np.random.Generator) -> dict:
    max_job_test = int(rng.choice([1, 2, 5, 500]))
    return {
        "memory_consumable": bool(rng.random() < 0.4),
        "whole_nodes": bool(rng.random() < 0.1),
        "backfill": bool(rng.random() < 0.85),
        "bf_interval": int(rng.choice([1, 5, 30, 60])),
        "bf_resolution": int(rng.choice([1, 10, 60])),
        "bf_window": int(rng.choice([300, 3600, 86400])),
        "bf_max_job_test": max_job_test,
        "bf_job_part_count_reserve": int(rng.choice([0, 0, 1, 2])),
        "bf_node_space_size": int(rng.choice([2, 4, max_job_test, 500])),
        "default_queue_depth": int(rng.choice([0, 1, 3, 100])),
        "start_delay": int(rng.choice([0, 0, 1, 2])),
        "bf_phase": int(rng.integers(0, 31)),
        "sched_interval": int(rng.choice([0, 60, 60, 17])),
        "multifactor": bool(rng.random() < 0.4),
        "priority_weight_age": int(rng.choice([0, 1000, 100000])),
        "priority_max_age": int(rng.choice([0, 600, 604800])),
        "priority_calc_period": int(rng.choice([1, 60, 300])),
        "priority_calc_origin": int(rng.integers(-50, 101)),
    }


def random_jobs(rng: np.random.Generator, cluster: dict, options: dict) -> dict:
    count = int(rng.integers(3, 41))
    fifo = rng.random() < 0.5
    rows = []
    submit = 0
    while len(rows) < count:
        part = int(rng.integers(len(cluster["partitions"])))
        members = cluster["partitions"][part]
        capacity = sum(cluster["cpus"][i] for i in members)
        cpus = int(rng.integers(1, capacity + 1)) if rng.random() < 0.3 else int(rng.integers(1, min(capacity, 4) + 1))
        nodes = 0
        if rng.random() < 0.25:
            nodes = int(rng.integers(1, min(len(members), cpus) + 1))
        mem, per_cpu = 0, False
        if rng.random() < 0.6:
            per_cpu = bool(rng.random() < 0.4)
            mem = int(rng.choice([100, 250, 500])) if per_cpu else int(rng.choice([200, 500, 1000, 3000]))
        limit = int(rng.choice([60, 120, 180, 300, 600, 3600]))
        run = int(rng.integers(0, limit + 1)) if rng.random() < 0.9 else limit + int(rng.integers(1, 100))
        job = {
            "submit": submit,
            "run": run,
            "limit": limit,
            "cpus": cpus,
            "nodes": nodes,
            "mem": mem,
            "mem_per_cpu": per_cpu,
            "exclusive": bool(rng.random() < 0.1),
            "partition": part,
            "priority": -len(rows) if fifo else int(rng.integers(0, 4)),
        }
        if not _fits_alone(cluster, job, options):
            continue
        rows.append(job)
        submit += int(rng.choice([0, 0, 1, 5, 17, 40, 90]))
    jobs = {key: [row[key] for row in rows] for key in rows[0]}
    if options["multifactor"]:  # weighted factors as a site's would be: fractions of weights, some equal
        factors = [0.0, 0.5, 123.25, 1000.0 / 3, 2500.0]
        # drawn and dropped: the former weighted_fairshare column (the fair-share term now comes from
        # section 3.1), so that the columns after it keep the values they had
        rng.choice(factors, size=len(rows))
        for key in ("weighted_job_size", "weighted_partition"):
            jobs[key] = [float(x) for x in rng.choice(factors, size=len(rows))]
    return jobs


def random_associations(rng: np.random.Generator) -> dict:
    """Section 1: a root, 1-3 accounts (one of them possibly holding a sub-account), 1-3 users in each
    account, sometimes users right under the root; siblings in a random index order (a parent first)."""

    def account(depth):
        children = [None] * int(rng.integers(1, 4))  # None: a user
        if depth == 1 and rng.random() < 0.3:
            children.append(account(2))
        rng.shuffle(children)
        return children

    top = [account(1) for _ in range(int(rng.integers(1, 4)))]
    if rng.random() < 0.25:
        top.extend([None] * int(rng.integers(1, 3)))
    rng.shuffle(top)
    parent, user = [-1], [False]

    def number(children, at):
        for child in children:
            parent.append(at)
            user.append(child is None)
            if child is not None:
                number(child, len(parent) - 1)

    number(top, 0)
    shares = [1] + [int(x) for x in rng.choice([0, 1, 1, 2, 3, 70], size=len(parent) - 1)]
    return {"parent": parent, "shares": shares, "user": user}


def add_fair_share(rng: np.random.Generator, cluster: dict, jobs: dict, options: dict) -> None:
    """Section 3.1: an association tree, the jobs' user associations and the fair-share options, with a calc
    period small enough for fair share to change decisions."""
    cluster["associations"] = random_associations(rng)
    users = [a for a, is_user in enumerate(cluster["associations"]["user"]) if is_user]
    weights = rng.dirichlet(np.ones(len(users)))  # some users submit more than others
    jobs["association"] = [int(a) for a in rng.choice(users, size=len(jobs["submit"]), p=weights)]
    horizon = max(jobs["submit"]) + 600
    resets = []
    if rng.random() < 0.3:
        resets = [int(x) for x in rng.integers(-50, horizon, size=int(rng.integers(1, 3)))]
        if rng.random() < 0.5:  # two resets due at one instant: one is used up per instant
            resets.append(resets[0] + int(rng.integers(0, 10)))
        resets.sort()
    options.update(
        {
            "priority_weight_fairshare": int(rng.choice([500, 5000, 100000])),
            "fair_tree": bool(rng.random() < 0.6),
            "priority_decay_half_life": int(rng.choice([0, 60, 300, 3600])),
            "fairshare_dampening": int(rng.choice([1, 1, 2])),
            "usage_at_job_end": bool(rng.random() < 0.5),
            "usage_resets": resets,
            "priority_calc_period": int(rng.integers(10, 121)),
        }
    )


def add_time_limits_and_batch_delay(rng: np.random.Generator, options: dict) -> None:
    """Section 1 (the time-limit checks, over_time_limit, kill_wait) and section 4 (batch_sched_delay)."""
    options.update(
        {
            "kill_check_period": int(rng.choice([0, 0, 7, 30])),
            "over_time_limit": int(rng.choice([0, 0, 60])),
            "kill_wait": int(rng.choice([0, 2, 30])),
            "batch_sched_delay": int(rng.choice([0, 0, 3, 5])),
        }
    )


def random_case(seed: int) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng)
    options = random_options(rng)
    jobs = random_jobs(rng, cluster, options)
    # fair share from a generator of its own: the draws above stay what they were before it existed
    fair_rng = np.random.default_rng([seed, 31])
    if options["multifactor"] and fair_rng.random() < 0.5:
        add_fair_share(fair_rng, cluster, jobs, options)
    # the time limits' checks (section 1, about 10 % of the jobs run past their limit) and the submissions'
    # batch_sched_delay (section 4), from a generator of their own too
    add_time_limits_and_batch_delay(np.random.default_rng([seed, 47]), options)
    # the decay instant before or after its second's passes (section 3), from a generator of its own
    options["decay_after_passes"] = options["multifactor"] and bool(np.random.default_rng([seed, 53]).random() < 0.5)
    return cluster, jobs, options
