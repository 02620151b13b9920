"""Independent plain-Python reference of docs/slurm_mode.md (the Slurm mode), sections 1-6 (3.1 included).

It models Slurm 22.05's main scheduler (`_schedule`) and backfill cycle (`_attempt_backfill`) on a
node-aware, partitioned cluster, exactly as docs/slurm_mode.md ("the spec") describes them.  It was
written from the spec alone (details checked against Slurm's source where the spec names it) and shares
no code with the kernel (simcore/engine/_slurm.pyx): it imports nothing from simcore.  Clarity comes
before speed: plain sets, lists and dicts, and every function is named after the step of the spec it
implements (eval_nodes, main_pass, backfill_cycle, will_run, add_reservation, ...), with the section it
follows in a comment.

Entry point: ``slurm_schedule(cluster, jobs, options)``.

Readings of the spec (see the comments where they apply):
- updates before bf_phase do not count for the first cycle ("u is the first update at or after T",
  T = bf_phase initially);
- mem 0 means "not given" (the node's whole memory) whatever mem_per_cpu says;
- the main pass's default_queue_depth counts every job walked, also those of failed partitions;
- in the will-run test, "the next job" (which closes a group) is the next running job by end, whether or
  not it will be skipped;
- _add_reservation: when s is the plan's first instant, the first record is split at s into an empty
  record [s, s) and [s, ...) (as Slurm does; it counts towards bf_node_space_size); the merge looks at the
  neighbour pairs from b (the record before the one containing or ending at s; the first record when
  there is none) up to a (the record after the one ending at e; the plan's end when there is none):
  Slurm's one_before / one_after;
- bf_node_space_size counts the records ever created in the cycle (1 + every split; merges give none back);
- the periodic instants (decay recalculations, full-queue passes) are origin + k * period for k >= 0
  (slurmctld's start is priority_calc_origin; no instant before it);
- multifactor age: diff = max(t - submit, 0); age = diff / max_age if diff < max_age else 1 (so
  max_age 0 gives 1, as Slurm's `diff < max_age` test does);
- fair_tree False makes the decay thread's first instant (k = 0) no recalculation also when fair share is
  off (section 3 says so without a condition on priority_weight_fairshare);
- fair share (section 3.1) is on when multifactor is on and priority_weight_fairshare > 0; then every decay
  instant origin + k * period (k >= 0) is processed, also before the first submission and when nothing is
  pending or running, until every job has completed;
- before the first instant, every Fair Tree factor F is 0 and every effective usage E (accounts' and users')
  is 0 and counts as computed (Slurm's slurmdb_create_assoc_usage: fs_factor = 0, usage_efctv = 0): a
  classic job submitted before the first instant uses E = 0;
- Fair Tree's S = shares / level_shares is a double (Slurm's shares_norm), made long double for S / U;
  classic's N is the double product taken from the association up to the root's child (Slurm's
  _normalize_assoc_shares_traditional), and S in E is the long double shares / level_shares;
- "the CPUs the job holds" are the sum of its allocated CPUs (whole nodes' CPUs for an exclusive job);
- "the last instant" of usage_at_job_end is the last decay instant at or before the job's end (the one at k = 0
  included, also with fair_tree False): none before the first instant, then the slice begins at the start;
- "index order" is the order of the jobs as given; the kernel takes them by submission (ties in the given
  order): the same order whenever submissions are nondecreasing, as in every test and random case;
- time limits (section 1): with k >= 1 the first check is priority_calc_origin + kill_check_period, also for
  a job whose due is at or before the origin (c = origin + kill_check_period then); a kill is a completion
  like any other (section 6: after the instant's priority recalculation, before its submissions, main pass
  and backfill cycle); the will-run test still sorts and estimates by start + limit;
- will-run guess (section 5, step 5): applied only to the estimate from released jobs, never to a job
  that fits now (its estimate is t);
- the submissions' passes (section 4): `last` is taken when the submission's pass is made (it cannot change
  before that pass: a full-queue instant meanwhile drops it); a full-queue instant at t comes after the
  submissions at t (section 6), so it serves (drops) a pass made at t too and is not `last` for them (no
  difference: that pass is dropped); every full-queue instant counts, also one the simulation has no other
  reason to stop at (nothing pending: it is found by arithmetic, background_last_pass); a submission's pass
  that falls on a completion's pass instant is one pass and still counts as the background loop's last
  pass; a completion's pass neither counts as `last` nor serves a pending submission's pass; a submission's
  pass runs (and counts as `last`) whether or not a job is still pending then.

Structure (one loop over instants, spec section 6):

    t = min(next submission, next completion (a kill included, section 1), next main pass due, next
            periodic pass or priority recalculation (only while a job is pending, or for the full-queue
            instants while a submission's pass is pending; with fair share every decay instant while a job
            is to come, pending or running), next backfill cycle due)
    the priority recalculation at t, if a decay instant and a job is pending (section 3), or with fair share
        the whole decay instant (section 3.1: reset, decay, new usage, factors, priorities),
    completions at t (resources freed; a main pass becomes due at t + start_delay),
    submissions at t (queued; unless a submission's pass is pending, one becomes due at
        max(t + start_delay, last + batch_sched_delay)),
    the main pass due at t, if any: a full-queue pass at a sched_interval instant (section 4); a full-queue
        instant or the submission's pass clears the pending submission's pass,
    the backfill cycle due at t, if any (section 5).
"""

import bisect
import sys
from dataclasses import dataclass, field

import numpy as np

# section 5, step 5: the will-run test's first time window (seconds) and its group-size limit
WILL_RUN_WINDOW = 30
WILL_RUN_GROUP_LIMIT = 201
# section 5: "the model stops a job's tries after 1,000 and counts it done for the cycle"
MAX_TRIES = 1000

OPTION_KEYS = (
    "memory_consumable",
    "whole_nodes",
    "backfill",
    "bf_interval",
    "bf_resolution",
    "bf_window",
    "bf_max_job_test",
    "bf_job_part_count_reserve",
    "bf_node_space_size",
    "default_queue_depth",
    "start_delay",
    "bf_phase",
)
# options added with priority/multifactor and the periodic full-queue pass: optional, with the spec's
# defaults (sections 1, 3 and 4)
OPTIONAL_OPTIONS = {
    "multifactor": False,
    "priority_weight_age": 0,
    "priority_max_age": 604800,
    "priority_calc_period": 300,
    "priority_calc_origin": 0,
    "sched_interval": 60,
    # section 3.1: fair share (off when priority_weight_fairshare is 0)
    "priority_weight_fairshare": 0,
    "fair_tree": True,
    "priority_decay_half_life": 604800,
    "fairshare_dampening": 1,
    "usage_at_job_end": False,
    "usage_resets": [],
    # section 3: the decay instant after its second's completions, submissions, passes and cycle
    "decay_after_passes": False,
    # section 1, "Time limits": the check period (0: a job past its limit is killed exactly then),
    # OverTimeLimit and KillWait, in seconds
    "kill_check_period": 0,
    "over_time_limit": 0,
    "kill_wait": 30,
    # section 4: the submissions' passes are at least batch_sched_delay apart (0 when absent; Slurm's is 3)
    "batch_sched_delay": 0,
}
BOOL_OPTIONAL_OPTIONS = ("multifactor", "fair_tree", "usage_at_job_end", "decay_after_passes")
JOB_INT_KEYS = ("submit", "run", "limit", "cpus", "nodes", "mem", "partition", "priority")
JOB_BOOL_KEYS = ("mem_per_cpu", "exclusive")
# section 1: with priority/multifactor, the weighted factors (doubles, default 0 when absent)
JOB_FLOAT_KEYS = ("weighted_job_size", "weighted_partition")
# section 3.1: the index of the job's user association (required with fair share)
ASSOCIATION_KEY = "association"


# ------------------------------------------------------------------------------------------- inputs ---


@dataclass
class Machine:
    """Section 1: the nodes (in Slurm's node-table order), the partitions and the options."""

    cpus: list
    memory: list
    weight: list
    partitions: list  # one set of node indices per partition
    tiers: list
    memory_consumable: bool
    whole_nodes: bool
    associations: "Associations | None" = None  # section 1 (fair share); None when not given

    @property
    def node_count(self):
        return len(self.cpus)


@dataclass(eq=False)  # jobs compare by identity
class Job:
    """Section 1: one job and, once it started, where and when."""

    index: int
    submit: int
    run: int
    limit: int
    cpus: int
    nodes: int  # 0: no -N given, else minimum = maximum = nodes
    mem: int  # MB; 0 = not given
    mem_per_cpu: bool
    exclusive: bool
    partition: int
    priority: int  # section 3: the given priority, or with multifactor the one computed last
    weighted_job_size: float = 0.0
    weighted_partition: float = 0.0
    whole: bool = False  # exclusive, or whole_nodes (select/linear makes every job exclusive)
    association: int = -1  # section 3.1: the job's user association (-1: none given)
    start: int = -1
    end: int = -1  # when the job really completes (section 1, "Time limits": time_limit_end)
    limit_end: int = -1  # when the scheduler believes it ends: start + limit (section 5, step 5)
    alloc_nodes: list = field(default_factory=list)
    alloc_cpus: list = field(default_factory=list)
    backfilled: bool = False

    def set_start(self, t, options):
        self.start = t
        self.end = time_limit_end(t, self.run, self.limit, options)
        self.limit_end = t + self.limit


def time_limit_end(start, run, limit, options):
    """Section 1, "Time limits" (`job_time_limit`): when a job started at `start` really ends.

    It runs max(run, 1) seconds (section 6: run 0 is taken as 1 s) unless a check finds it past its limit
    first: with due = start + limit + over_time_limit, if start + max(run, 1) > due it ends at
    min(start + max(run, 1), c), c the first check instant at or after due; the check instants are
    priority_calc_origin + k * kill_check_period, k >= 1; kill_check_period 0: c = due."""
    runs_until = start + max(run, 1)
    due = start + limit + options["over_time_limit"]
    if runs_until <= due:
        return runs_until  # not past its limit (and over_time_limit) when it ends by itself
    period = options["kill_check_period"]
    if period == 0:
        return due  # killed exactly at the limit (plus over_time_limit)
    origin = options["priority_calc_origin"]
    k = max(1, -((origin - due) // period))  # the first k >= 1 with origin + k * period >= due
    return min(runs_until, origin + k * period)


def min_nodes_of(job):
    """Section 2, steps 1 and 3: max(nodes, 1)."""
    return max(job.nodes, 1)


def multifactor_priority(job, t, options, fairshare=0.0):
    """Section 3 (`_get_priority_internal(t)`): the job's priority at t with priority/multifactor;
    `fairshare` is the weighted fair-share term fs = priority_weight_fairshare * F (section 3.1)."""
    diff = t - job.submit if t > job.submit else 0  # "0 when t <= submit"
    max_age = options["priority_max_age"]
    age = diff / max_age if diff < max_age else 1.0
    # summed in exactly this order, as doubles: ((age * weight_age + fs) + js) + part
    p = age * options["priority_weight_age"]
    p = p + fairshare
    p = p + job.weighted_job_size
    p = p + job.weighted_partition
    if p < 1:
        p = 1.0  # priority 0 is reserved for held jobs
    return int(p)  # truncated (floor: p >= 1)


def periodic_instant(t, origin, period):
    """Whether t is origin + k * period for some k >= 0 (sections 3 and 4)."""
    return t >= origin and (t - origin) % period == 0


def next_periodic_instant(t, origin, period):
    """The first origin + k * period (k >= 0) after t."""
    if t < origin:
        return origin
    return origin + ((t - origin) // period + 1) * period


# ------------------------------------------------------------------- section 3.1: fair share ---

LONG_ZERO = np.longdouble(0)


@dataclass
class Associations:
    """Section 1: the association tree (index 0 the root; a parent before its children)."""

    parent: list
    shares: list
    user: list

    def __post_init__(self):
        count = len(self.parent)
        self.children = [[] for _ in range(count)]
        for a in range(1, count):
            self.children[self.parent[a]].append(a)  # index order
        # level_shares(a): the sum of shares over a's parent's children
        self.level_shares = [0] * count
        for a in range(1, count):
            self.level_shares[a] = sum(self.shares[b] for b in self.children[self.parent[a]])
        self.user_count = sum(1 for a in range(count) if self.user[a])

    def path_up(self, a):
        """a and its ancestors, the root included, from a upwards."""
        while a >= 0:
            yield a
            a = self.parent[a]


class FairShare:
    """Section 3.1: raw usage (long double), its decay, the Fair Tree factors and the classic formula."""

    def __init__(self, tree, options):
        self.tree = tree
        self.fair_tree = options["fair_tree"]
        self.damping = options["fairshare_dampening"]
        half_life = options["priority_decay_half_life"]
        self.df = 1 - 0.693 / half_life if half_life > 0 else 1.0  # double
        self.resets = list(options["usage_resets"])  # sorted; each is used up by one instant
        count = len(tree.parent)
        self.raw = [LONG_ZERO] * count  # long double, 0 at the start
        # Fair Tree: F (double) of each user association, computed only at the instants; 0 before the first
        self.factor = [0.0] * count
        # classic: E (long double) of each association; None = unset (a user's, between step 2 and its first
        # use); 0 before the first instant (Slurm creates the usage with usage_efctv = 0)
        self.efctv = [LONG_ZERO] * count
        self.norm_shares = [self.classic_norm_shares(a) for a in range(count)]
        self.last_instant = None  # the last decay instant processed

    # usage

    def slice_usage(self, delta, cpus):
        """Step 4 (`_apply_new_usage`): u = (double)(delta * df^delta) * cpus, a double."""
        return delta * self.df**delta * cpus

    def add_usage(self, association, u):
        """Step 4: u goes to the association and every ancestor, the root included (long double sums)."""
        for a in self.tree.path_up(association):
            self.raw[a] = self.raw[a] + u

    def reset_if_due(self, t):
        """Step 1: one reset per instant, when the next of usage_resets is <= t."""
        if self.resets and self.resets[0] <= t:
            self.resets.pop(0)
            self.raw = [LONG_ZERO] * len(self.raw)

    def decay(self, delta_t):
        """Step 3: d = df^(t_k - t_{k-1}) (double, at least DBL_MIN); every raw times d unless d is 1."""
        d = self.df**delta_t
        if d < sys.float_info.min:
            d = sys.float_info.min
        if d != 1:
            self.raw = [r * d for r in self.raw]

    # Fair Tree

    def level_fs(self, a):
        """LF(a) = S / U (long double): 0 when S is 0, +inf when U is 0."""
        tree = self.tree
        level = tree.level_shares[a]
        s = tree.shares[a] / level if level else 0.0  # a double: Slurm's shares_norm
        parent_raw = self.raw[tree.parent[a]]
        u = self.raw[a] / parent_raw if parent_raw != 0 else LONG_ZERO
        if s == 0:
            return LONG_ZERO
        if u == 0:
            return np.longdouble(np.inf)
        return np.longdouble(s) / u

    def apply_fair_tree(self):
        """Fair Tree (`_apply_priority_fs`): every user's F = rank / n from the root down."""
        tree = self.tree
        n = tree.user_count
        counter = {"rank": n, "rnt": n}

        def visit(parent, parent_tied):
            lf = {c: self.level_fs(c) for c in tree.children[parent]}
            # LF descending; users before accounts at equal LF; otherwise index order
            ordered = sorted(tree.children[parent], key=lambda c: (-lf[c], 0 if tree.user[c] else 1, c))
            previous = None
            for position, c in enumerate(ordered):
                tied = parent_tied if position == 0 else lf[c] == lf[previous]
                if tree.user[c]:
                    if not tied:
                        counter["rank"] = counter["rnt"]
                    self.factor[c] = counter["rank"] / n
                    counter["rnt"] -= 1
                else:
                    visit(c, tied)  # its own tie passed down
                previous = c

        visit(0, False)

    # classic

    def classic_norm_shares(self, a):
        """N(a): the product of shares(b) / level_shares(b) (doubles) over a and its ancestors below the
        root, taken from a upwards; 0 if a level_shares is 0."""
        tree = self.tree
        if a == 0:
            return 1.0
        n = 1.0
        b = a
        while tree.parent[b] >= 0:
            level = tree.level_shares[b]
            n = 0.0 if not level else n * (tree.shares[b] / level)
            b = tree.parent[b]
        return n

    def classic_norm(self, a):
        """norm(a) = raw(a) / raw(root), 0 when raw(root) is 0, at most 1 (long double)."""
        root = self.raw[0]
        if root == 0:
            return LONG_ZERO
        norm = self.raw[a] / root
        return min(norm, np.longdouble(1))

    def classic_efctv(self, a):
        """E(a) from the raws as they are now and E(parent) as it was last computed."""
        tree = self.tree
        norm = self.classic_norm(a)
        parent = tree.parent[a]
        if parent == 0:
            return norm
        level = tree.level_shares[a]
        if not level:
            return self.efctv[parent]
        return norm + (self.efctv[parent] - norm) * (np.longdouble(tree.shares[a]) / np.longdouble(level))

    def classic_accounts(self):
        """Step 2: accounts' E top-down (a parent comes before its children); users' E unset."""
        tree = self.tree
        for a in range(1, len(tree.parent)):
            self.efctv[a] = None if tree.user[a] else self.classic_efctv(a)

    def classic_factor(self, user):
        """F = 2^(-(E / N) / damping) (0 when N <= 0); the user's E computed first if unset."""
        if self.efctv[user] is None:
            self.efctv[user] = self.classic_efctv(user)
        n = self.norm_shares[user]
        if n <= 0:
            return 0.0
        x = (self.efctv[user] / np.longdouble(n)) / np.longdouble(self.damping)  # long double
        return 2.0 ** float(-x)  # C pow(2.0, ...) with the long double argument made a double

    def factor_for(self, user):
        """The F a priority computed now uses (section 3.1)."""
        if self.fair_tree:
            return self.factor[user]  # the last instant's (0 before the first)
        return self.classic_factor(user)


def priority_key(job, machine):
    """Section 3: partition tier (higher first), priority (higher first), submission time, index."""
    return (-machine.tiers[job.partition], -job.priority, job.submit, job.index)


# ---------------------------------------------------------------------------------- free resources ---


class Resources:
    """Section 2: per node, the free CPUs, the free memory and how many running jobs it holds."""

    def __init__(self, machine):
        self.machine = machine
        self.free_cpus = list(machine.cpus)
        self.free_mem = list(machine.memory)
        self.jobs_on = [0] * machine.node_count

    def copy(self):
        other = Resources(self.machine)
        other.free_cpus = list(self.free_cpus)
        other.free_mem = list(self.free_mem)
        other.jobs_on = list(self.jobs_on)
        return other

    def memory_held(self, job, node, cpus_there):
        """Section 2: what a running job holds of a node's memory (counted only when memory_consumable)."""
        if job.whole:
            return self.machine.memory[node]  # an exclusive job holds all memory of its nodes
        if job.mem == 0:
            return self.machine.memory[node]  # no memory request: the node's whole memory
        if job.mem_per_cpu:
            return job.mem * cpus_there
        return job.mem

    def allocate(self, job):
        for node, cpus_there in zip(job.alloc_nodes, job.alloc_cpus):
            self.free_cpus[node] -= cpus_there
            self.jobs_on[node] += 1
            if self.machine.memory_consumable:
                self.free_mem[node] -= self.memory_held(job, node, cpus_there)

    def release(self, job):
        for node, cpus_there in zip(job.alloc_nodes, job.alloc_cpus):
            self.free_cpus[node] += cpus_there
            self.jobs_on[node] -= 1
            if self.machine.memory_consumable:
                self.free_mem[node] += self.memory_held(job, node, cpus_there)


# ------------------------------------------------------------------- section 2: _eval_nodes ---


def usable_cpus(job, node, free):
    """Section 2, step 1: a[i], the CPUs node i can give the job now."""
    machine = free.machine
    if job.whole:
        return machine.cpus[node] if free.jobs_on[node] == 0 else 0
    a = free.free_cpus[node]
    if machine.memory_consumable:
        if job.mem == 0:
            # no memory given: the job needs the node's whole memory
            if free.free_mem[node] < machine.memory[node]:
                a = 0
        elif job.mem_per_cpu:
            a = min(a, free.free_mem[node] // job.mem)
        elif free.free_mem[node] < job.mem:
            a = 0
    return a


@dataclass
class NodeSet:
    """Section 2, step 2: a set of consecutive usable nodes of one weight."""

    nodes: list
    cpus: int
    weight: int


def consecutive_sets(usable, avail_cpus, machine):
    """Section 2, step 2: sets end at a dropped or absent node and where the weight changes."""
    sets = []
    previous = None
    for node in usable:  # ascending
        if sets and previous == node - 1 and machine.weight[node] == sets[-1].weight:
            sets[-1].nodes.append(node)
            sets[-1].cpus += avail_cpus[node]
        else:
            sets.append(NodeSet([node], avail_cpus[node], machine.weight[node]))
        previous = node
    return sets


def choose_best_set(sets, rem_cpus, rem_nodes):
    """Section 2, step 4: the best set, scanning sets in order; None when every set is empty."""
    best = None
    best_sufficient = False
    for candidate in sets:
        if not candidate.nodes:
            continue  # emptied
        sufficient = candidate.cpus >= rem_cpus and len(candidate.nodes) >= rem_nodes
        if best is None or candidate.weight < best.weight:
            replace = True
        elif candidate.weight == best.weight:
            replace = (
                (sufficient and not best_sufficient)
                or (sufficient and candidate.cpus < best.cpus)
                or (not sufficient and candidate.cpus > best.cpus)  # "not sufficient but bigger"
            )
        else:
            replace = False
        if replace:
            best, best_sufficient = candidate, sufficient
    return best


def cpus_to_use(job, avail, rem_max_cpus, rem_nodes):
    """Section 2, step 4 (`_cpus_to_use`): cap a non-exclusive job's CPUs on one node."""
    if job.whole:
        return avail
    return min(avail, max(rem_max_cpus - max(rem_nodes - 1, 0), 1))


def eval_nodes(job, candidates, free):
    """Section 2 (`_eval_nodes`): place `job` on the node set `candidates` with the resources `free`.

    Returns (nodes ascending, CPUs on each) or None when the job does not fit."""
    machine = free.machine
    # step 1: usable CPUs; nodes without any are dropped
    avail_cpus = {}
    usable = []
    for node in sorted(candidates):
        avail_cpus[node] = usable_cpus(job, node, free)
        if avail_cpus[node] > 0:
            usable.append(node)
    if len(usable) < min_nodes_of(job):
        return None
    if sum(avail_cpus.values()) < job.cpus:
        return None  # a shortcut, not a rule: the nodes cannot give more than the sum of a[i]
    # step 2: sets of consecutive nodes
    sets = consecutive_sets(usable, avail_cpus, machine)
    # step 3: requirements
    rem_cpus = job.cpus
    rem_max_cpus = job.cpus
    rem_nodes = min_nodes_of(job)
    max_nodes = job.nodes if job.nodes > 0 else float("inf")
    taken = {}  # node -> CPUs given
    # step 4: take from the best set until the job fits
    while max_nodes > 0:
        best = choose_best_set(sets, rem_cpus, rem_nodes)
        if best is None:
            break
        if rem_nodes <= 1:
            # the single best-fit node: fewest a[i] >= rem_cpus, first one; stop at exactly rem_cpus
            best_fit = None
            for node in best.nodes:
                if avail_cpus[node] < rem_cpus:
                    continue
                if best_fit is None or avail_cpus[node] < avail_cpus[best_fit]:
                    best_fit = node
                    if avail_cpus[node] == rem_cpus:
                        break
            if best_fit is not None:
                for node in best.nodes:
                    if node != best_fit:
                        avail_cpus[node] = 0
        for node in best.nodes:
            if max_nodes == 0 or (rem_nodes <= 0 and rem_cpus <= 0):
                break
            if avail_cpus[node] <= 0:
                continue
            if max_nodes == 1 and avail_cpus[node] < rem_cpus:
                continue
            given = cpus_to_use(job, avail_cpus[node], rem_max_cpus, rem_nodes)
            taken[node] = given
            rem_cpus -= given
            rem_max_cpus -= given
            rem_nodes -= 1
            max_nodes -= 1
        if rem_nodes <= 0 and rem_cpus <= 0:
            return placement(job, taken, machine)
        best.nodes = []  # the set is emptied; the next best set is chosen
        best.cpus = 0
    # step 5
    if rem_cpus <= 0 and rem_nodes <= 0:
        return placement(job, taken, machine)
    return None


def placement(job, taken, machine):
    """Section 2: the nodes (ascending) and the CPUs on each; an exclusive job gets all CPUs."""
    nodes = sorted(taken)
    if job.whole:
        return nodes, [machine.cpus[node] for node in nodes]
    return nodes, [taken[node] for node in nodes]


# ----------------------------------------------------------------------------- the simulation ---


@dataclass
class Record:
    """Section 5, step 1: one record of the backfill plan: [begin, end) and the nodes free then."""

    begin: int
    end: int
    nodes: set


class Simulation:
    def __init__(self, machine, jobs, options):
        self.machine = machine
        self.jobs = jobs
        self.options = options
        self.free = Resources(machine)
        self.pending = set()  # submitted, not started
        self.running = []  # running jobs, kept sorted by (start + limit, index): section 5, step 5
        # section 4: the main scheduler's passes due: completions' (instants) and the one pending submission's
        # pass (None when none is pending)
        self.completion_passes = set()
        self.submission_pass = None
        self.last_submission_pass = None  # the last submission's pass run (for the background loop's last pass)
        # section 5, "When": a cycle that sees nothing is taken to have run at bf_phase
        self.last_cycle = options["bf_phase"]
        self.next_cycle = None  # unknown until an update at or after last_cycle
        self.last_update = None  # the instant of the last update (what sets Slurm's last_job_update)
        # a memo of will-run tests (speed only): valid while no job starts or completes
        self.will_run_memo = {}
        # section 3.1: fair share, with multifactor and a fair-share weight
        self.fair_share = None
        if options["multifactor"] and options["priority_weight_fairshare"] > 0:
            self.fair_share = FairShare(machine.associations, options)

    # ----------------------------------------------------------------------- bookkeeping ---

    def note_update(self, t):
        """An update at t (section 5, "When"): a submission, a start, a completion, a main pass skipping
        a job of a failed partition, a priority recalculation with a pending job."""
        self.last_update = t
        if self.options["backfill"] and self.next_cycle is None and t >= self.last_cycle:
            # u = t is the first update at or after the last cycle
            self.next_cycle = max(self.last_cycle + self.options["bf_interval"], t)

    def start_job(self, job, t, where, backfilled):
        job.set_start(t, self.options)
        job.alloc_nodes, job.alloc_cpus = where
        job.backfilled = backfilled
        self.free.allocate(job)
        self.will_run_memo.clear()
        self.pending.discard(job.index)
        bisect.insort(self.running, job, key=lambda other: (other.limit_end, other.index))
        self.note_update(t)

    def priority(self, job, t):
        """Section 3: the job's multifactor priority at t, with the fair-share term of section 3.1."""
        fairshare = 0.0
        if self.fair_share is not None:
            factor = self.fair_share.factor_for(job.association)
            fairshare = self.options["priority_weight_fairshare"] * factor  # a double
        return multifactor_priority(job, t, self.options, fairshare)

    def decay_instant(self, t):
        """Section 3 (and 3.1 with fair share): the decay thread's instant t = origin + k * period, first in
        the instant (section 6)."""
        options = self.options
        period = options["priority_calc_period"]
        k = (t - options["priority_calc_origin"]) // period
        fair_tree = options["fair_tree"]
        fs = self.fair_share
        if fs is None:
            # section 3: every pending job's priority at t (fair_tree False: none at the first instant)
            if self.pending and (k > 0 or fair_tree):
                for index in self.pending:
                    job = self.jobs[index]
                    job.priority = self.priority(job, t)
                self.note_update(t)  # Slurm sets last_job_update; the queue is re-sorted (queue())
            return
        previous = t - period if k > 0 else None  # t_{k-1}: none at k = 0
        fs.reset_if_due(t)  # step 1
        if not fair_tree:
            fs.classic_accounts()  # step 2, from the raws before this instant's decay
        if k > 0:
            fs.decay(t - previous)  # step 3
        running = sorted(self.running, key=lambda job: job.index)
        if fair_tree:
            for job in running:  # step 4, index order
                self.add_slice(job, previous, t)
            fs.apply_fair_tree()  # step 5
            if self.pending:
                for index in self.pending:
                    job = self.jobs[index]
                    job.priority = self.priority(job, t)
                self.note_update(t)
        elif k > 0:
            # classic, steps 4 and 5: one walk over the jobs in index order
            walk = sorted(running + [self.jobs[index] for index in self.pending], key=lambda job: job.index)
            for job in walk:
                if job.start >= 0:
                    self.add_slice(job, previous, t)
                else:
                    job.priority = self.priority(job, t)  # its user's E computed now if unset
            if self.pending:
                self.note_update(t)
        fs.last_instant = t

    def add_slice(self, job, since, until):
        """Section 3.1, step 4: the job's usage from max(since, start) (start when since is None) to until."""
        begin = job.start if since is None else max(since, job.start)
        delta = max(until - begin, 0)
        cpus = sum(job.alloc_cpus)  # the CPUs the job holds
        self.fair_share.add_usage(job.association, self.fair_share.slice_usage(delta, cpus))

    def queue(self, t):
        """Pending jobs (submitted at or before t), in the order of section 3."""
        waiting = [self.jobs[j] for j in self.pending if self.jobs[j].submit <= t]
        return sorted(waiting, key=lambda job: priority_key(job, self.machine))

    # ----------------------------------------------------------------------- the loop (section 6) ---

    def next_instant(self, unsubmitted, now):
        """The next instant after `now` at which something may happen."""
        options = self.options
        candidates = []
        if unsubmitted:
            candidates.append(self.jobs[unsubmitted[0]].submit)
        candidates.extend(job.end for job in self.running)
        candidates.extend(self.completion_passes)
        if self.submission_pass is not None:
            candidates.append(self.submission_pass)
            if options["sched_interval"] > 0:
                # section 4: a full-queue instant drops a pending submission's pass (a job pending or not)
                origin = options["priority_calc_origin"]
                candidates.append(next_periodic_instant(now, origin, options["sched_interval"]))
        if self.next_cycle is not None:
            candidates.append(self.next_cycle)
        if self.pending and now is not None:
            # periodic instants matter only while a job is pending (otherwise they do nothing)
            origin = options["priority_calc_origin"]
            if options["sched_interval"] > 0:
                candidates.append(next_periodic_instant(now, origin, options["sched_interval"]))
            if options["multifactor"]:
                candidates.append(next_periodic_instant(now, origin, options["priority_calc_period"]))
        if self.fair_share is not None and (unsubmitted or self.pending or self.running):
            # section 3.1: every decay instant, also when no job is pending or running (the first one
            # possibly before the first submission)
            origin = options["priority_calc_origin"]
            if now is None:
                candidates.append(origin)
            else:
                candidates.append(next_periodic_instant(now, origin, options["priority_calc_period"]))
        return min(candidates) if candidates else None

    def run(self):
        options = self.options
        delay = options["start_delay"]
        origin = options["priority_calc_origin"]
        unsubmitted = sorted(range(len(self.jobs)), key=lambda j: (self.jobs[j].submit, j))
        now = None
        while True:
            t = self.next_instant(unsubmitted, now)
            if t is None:
                break
            now = t
            # 0. the priority recalculation due now (section 3), with fair share the whole decay instant;
            # with decay_after_passes it comes last instead (step 5)
            decay_now = options["multifactor"] and periodic_instant(t, origin, options["priority_calc_period"])
            if decay_now and not options["decay_after_passes"]:
                self.decay_instant(t)
            # 1. completions
            completed = sorted((job for job in self.running if job.end == t), key=lambda job: job.index)
            for job in completed:
                if self.fair_share is not None and options["usage_at_job_end"]:
                    # section 3.1: the slice from max(last instant, start) to the end (priority_p_job_end)
                    self.add_slice(job, self.fair_share.last_instant, t)
                self.running.remove(job)
                self.free.release(job)
                self.will_run_memo.clear()
                self.note_update(t)
            if completed:
                self.completion_passes.add(t + delay)  # section 4: one per instant
            # 2. submissions
            while unsubmitted and self.jobs[unsubmitted[0]].submit == t:
                job = self.jobs[unsubmitted.pop(0)]
                if options["multifactor"]:
                    job.priority = self.priority(job, t)  # age 0 at submission
                self.pending.add(job.index)
                self.note_update(t)
                if self.submission_pass is None:
                    # section 4: max(t + start_delay, last + batch_sched_delay); while it is pending, further
                    # submissions add nothing (job_sched_cnt)
                    self.submission_pass = t + delay
                    last = self.background_last_pass(t)
                    if last is not None:
                        self.submission_pass = max(self.submission_pass, last + options["batch_sched_delay"])
            # 3. the main scheduler's pass due now (section 4); at a sched_interval instant with a job
            # pending it is a full-queue pass (one pass, also when an event's pass is due too)
            full_queue_instant = options["sched_interval"] > 0 and periodic_instant(
                t, origin, options["sched_interval"]
            )
            periodic = full_queue_instant and bool(self.pending)
            submission_pass_now = self.submission_pass == t
            if t in self.completion_passes or submission_pass_now or periodic:
                self.completion_passes.discard(t)
                self.main_pass(t, full_queue=periodic)
            if submission_pass_now:
                self.last_submission_pass = t  # the background loop's last pass
            if submission_pass_now or full_queue_instant:
                # the submission's pass is done; or a full-queue instant (a job pending or not) serves it: the
                # loop clears job_sched_cnt (the instant is the loop's last pass: background_last_pass)
                self.submission_pass = None
            # 4. the backfill cycle due now (section 5)
            if self.next_cycle == t:
                self.backfill_cycle(t)
                self.last_cycle = t
                # updates at t (before or during the cycle) count for the next cycle
                if self.last_update == t:
                    self.next_cycle = t + options["bf_interval"]
                else:
                    self.next_cycle = None
            # 5. the decay instant after the second's passes and cycle: its update makes a cycle due no
            # earlier than the next second
            if decay_now and options["decay_after_passes"]:
                self.decay_instant(t)
                if self.next_cycle == t:
                    self.next_cycle = t + 1
        if self.pending or any(job.start < 0 for job in self.jobs):
            raise RuntimeError("some job never started")  # cannot happen on valid inputs

    # ------------------------------------------------------------------ section 4: _schedule ---

    def background_last_pass(self, t):
        """Section 4: the background loop's last pass before t, None when there was none: the last
        submission's pass run, or the last full-queue instant priority_calc_origin + k * sched_interval
        (k >= 0) before t, whichever is later (a full-queue instant counts whether a job was pending or not)."""
        last = self.last_submission_pass
        interval = self.options["sched_interval"]
        origin = self.options["priority_calc_origin"]
        if interval > 0 and t > origin:
            full_queue = origin + (t - 1 - origin) // interval * interval
            if last is None or full_queue > last:
                last = full_queue
        return last

    def main_pass(self, t, full_queue=False):
        """Section 4: the main scheduler's pass at t (a full-queue pass has no default_queue_depth limit)."""
        taken = 0
        failed_partitions = set()
        withdrawn = set()  # the nodes of every failed partition
        for job in self.queue(t):
            # default_queue_depth: stop before the job once default_queue_depth + 1 jobs were taken
            if not full_queue and taken >= self.options["default_queue_depth"] + 1:
                break
            taken += 1
            if job.partition in failed_partitions:
                self.note_update(t)  # section 5, "When": _schedule sets last_job_update for each such job
                continue
            candidates = self.machine.partitions[job.partition] - withdrawn
            where = eval_nodes(job, candidates, self.free)
            if where is not None:
                self.start_job(job, t, where, backfilled=False)
            else:
                failed_partitions.add(job.partition)
                withdrawn |= self.machine.partitions[job.partition]

    # ------------------------------------------------------------ section 5: _attempt_backfill ---

    def backfill_cycle(self, t):
        """Section 5: one backfill cycle at t."""
        options = self.options
        res = options["bf_resolution"]
        # step 1: the plan
        plan = Plan(
            [Record(t // res * res, (t + options["bf_window"]) // res * res, set(range(self.machine.node_count)))]
        )
        reservations = {}  # partition -> reservations held in this cycle
        tested = 0  # jobs that reached the will-run test
        for job in self.queue(t):
            # step 2
            if tested >= options["bf_max_job_test"]:
                break
            reserve_limit = options["bf_job_part_count_reserve"]
            test_now_only = reserve_limit > 0 and reservations.get(job.partition, 0) >= reserve_limit
            outcome, reached_test = self.backfill_job(job, t, plan, test_now_only, reservations)
            if reached_test:
                tested += 1
            if outcome == "end cycle":
                break

    def backfill_job(self, job, t, plan, test_now_only, reservations):
        """Section 5, steps 3-8 for one job.  Returns ("done" | "end cycle", reached the will-run test).

        `plan` is a Plan: its records and how many records were ever created in this cycle."""
        options = self.options
        res = options["bf_resolution"]
        partition_nodes = self.machine.partitions[job.partition]
        may_reserve = not test_now_only
        reached_test = False
        later = t
        tries = 0
        while True:
            # step 3: Try (TRY_LATER)
            if tries == MAX_TRIES:
                return "done", reached_test
            tries += 1
            start_res = later
            later = None  # "later = 0"
            end = max(start_res, t) + job.limit
            avail, later = walk_plan(plan.records, partition_nodes, start_res, end)
            # step 4
            if len(avail) < min_nodes_of(job):
                if later is not None and may_reserve:
                    continue
                return "done", reached_test
            # step 5: the will-run test
            reached_test = True
            found = self.will_run_memoized(job, avail, t, test_now_only)
            if found is None:
                if later is not None and may_reserve:
                    continue
                return "done", reached_test
            estimate, where = found
            # step 6
            start = max(estimate, start_res)
            if start <= t:
                # _start_job -> select_nodes: placed again on avail with the resources free now
                where = eval_nodes(job, avail, self.free)
                assert where is not None  # the same test as the will-run test's first one
                self.start_job(job, t, where, backfilled=True)
                if job.whole and plan.created < options["bf_node_space_size"]:
                    # _bf_reserve_running: a whole-node job leaves the plan from its first record's begin
                    # (Slurm passes 0, clamped to it) to floor((t + limit) / res) * res
                    add_reservation(plan, 0, (t + job.limit) // res * res, set(job.alloc_nodes), res)
                return "done", reached_test
            # step 7
            if test_now_only:
                return "done", reached_test
            if later is not None and start > later:
                continue
            if start > t + options["bf_window"]:
                return "done", reached_test
            s = start // res * res
            e = (start + job.limit) // res * res
            job_nodes = set(where[0])
            if any(r.end > s and r.begin < e and not job_nodes <= r.nodes for r in plan.records):
                later = start
                continue
            # step 8
            reserve_limit = options["bf_job_part_count_reserve"]
            if reserve_limit:
                if reservations.get(job.partition, 0) >= reserve_limit:
                    return "done", reached_test
                reservations[job.partition] = reservations.get(job.partition, 0) + 1
            if plan.created >= options["bf_node_space_size"]:
                # records ever created in this cycle: a merge gives none back (node_space_recs)
                return "end cycle", reached_test
            add_reservation(plan, s, e, job_nodes, res)
            return "done", reached_test

    def will_run_memoized(self, job, avail, t, test_now_only):
        """Section 5, step 5: (estimate, (nodes, CPUs)) or None.  will_run's result is remembered (for speed
        only) while the running jobs stay the same: it depends only on the job's shape, avail, test_now_only
        and the running jobs; the estimate is made from it at t."""
        key = (job.cpus, job.nodes, job.mem, job.mem_per_cpu, job.whole, frozenset(avail), test_now_only)
        if key not in self.will_run_memo:
            self.will_run_memo[key] = self.will_run(job, avail, test_now_only)
        found = self.will_run_memo[key]
        if found is None:
            return None
        end, where = found
        if end is None:
            return t, where  # fits on the resources free now
        return guess_job_end(end, t, self.options), where

    def will_run(self, job, avail, test_now_only):
        """Section 5, step 5 (`_will_run_test`): (None, (nodes, CPUs)) when the job fits now, (the end
        start + limit of the last job released, (nodes, CPUs)) when it fits after releasing a group, or
        None; will_run_memoized makes the estimate (guess_job_end)."""
        # fits on the resources free now?
        where = eval_nodes(job, avail, self.free)
        if where is not None:
            return None, where
        if test_now_only:
            return None
        # release the running jobs, by end (start + limit; ties by index), in groups
        ending = self.running  # sorted by (start + limit, index)
        future = self.free.copy()
        window = WILL_RUN_WINDOW
        barrier = None
        position = 0
        more_jobs = True
        while more_jobs:
            last_released = None
            next_job = None
            released = 0
            skip_test = False
            while True:  # one group
                if position == len(ending):
                    more_jobs = False
                    break
                other = ending[position]
                position += 1
                if not avail.intersection(other.alloc_nodes):
                    continue  # none of its nodes is usable: skip it
                if barrier is None:
                    barrier = other.limit_end + WILL_RUN_WINDOW - other.limit_end % WILL_RUN_WINDOW
                future.release(other)
                last_released = other
                released += 1
                if position == len(ending):
                    next_job = None
                    more_jobs = False  # the last group
                    break
                next_job = ending[position]
                if next_job.limit_end > barrier + window:
                    break  # the group is complete
                if released > WILL_RUN_GROUP_LIMIT:
                    skip_test = True  # the test of this group is skipped; window unchanged
                    break
            if skip_test:
                continue
            if last_released is None:
                break
            window *= 2
            while next_job is not None and next_job.limit_end > barrier + window:
                window *= 2
            where = eval_nodes(job, avail, future)
            if where is not None:
                return last_released.limit_end, where
        return None


def guess_job_end(end, t, options):
    """Section 5, step 5 (`_guess_job_end`): the will-run estimate at t from the end (start + limit) of the
    last job released.  If that end is not after t (the job is past its limit, awaiting a check), it is
    guessed as end + over_time_limit + kill_wait, or t + 1 if that is not after t."""
    if end > t:
        return end
    guess = end + options["over_time_limit"] + options["kill_wait"]
    return guess if guess > t else t + 1


def walk_plan(plan, partition_nodes, start_res, end):
    """Section 5, step 3: the nodes usable over [start_res, end] and `later` (None: unset)."""
    avail = set(partition_nodes)
    later = None
    last = len(plan) - 1
    for position, record in enumerate(plan):
        if record.end <= start_res:
            continue  # nothing (and no `later` check: it needs r.end > start_res)
        if later is None and position < last:
            # (partition nodes & s.nodes) not a subset of (avail & r.nodes): later = r.end
            offered = partition_nodes & plan[position + 1].nodes
            if not (offered <= avail and offered <= record.nodes):
                later = record.end
        if record.begin <= end:
            avail &= record.nodes
        else:
            break
    return avail, later


class Plan:
    """Section 5, step 1: the backfill plan, its records in order, and how many records were ever created
    in this cycle (Slurm's node_space_recs: 1 for the first record, 1 more per split; merges give none back)."""

    def __init__(self, records):
        self.records = records
        self.created = len(records)


def add_reservation(plan, s, e, job_nodes, res):
    """Section 5, step 8 (`_add_reservation`): the job's nodes leave the plan over [s, e)."""
    records = plan.records
    s = max(s, records[0].begin)
    e = max(e, s + res)
    # the record containing s is split at s, unless a record ends there; b (one_before) is the last
    # record passed before that one (the first record when none was passed)
    one_before = 0
    placed = False
    j = 0
    while True:
        record = records[j]
        if record.end > s:
            records.insert(j + 1, Record(s, record.end, set(record.nodes)))
            record.end = s
            plan.created += 1
            placed = True
            break
        if record.end == s:
            placed = True
            break
        one_before = j
        j += 1
        if j == len(records):
            break
    # the record containing e is split at e; every record from s to e loses the job's nodes;
    # a (one_after) is the record after the one ending at e (None: the end of the plan)
    one_after = None
    if placed:
        j += 1
        while j < len(records):
            record = records[j]
            if e < record.end:
                records.insert(j + 1, Record(e, record.end, set(record.nodes)))
                record.end = e
                plan.created += 1
            record.nodes -= job_nodes
            if record.end == e:
                if j + 1 < len(records):
                    one_after = j + 1
                break
            j += 1
    # from b up to a: merge the first two neighbours with equal node sets (one merge at most)
    i = one_before
    while i != one_after and i + 1 < len(records):
        if records[i].nodes == records[i + 1].nodes:
            records[i].end = records[i + 1].end
            del records[i + 1]
            break
        i += 1


# ------------------------------------------------------------------------------ entry point ---


def slurm_schedule(cluster: dict, jobs: dict, options: dict) -> dict:
    """cluster = {"cpus": [int per node], "memory": [int MB per node], "weight": [int per node],
                  "partitions": [[node indices] per partition], "tiers": [int per partition],
                  optional "associations": {"parent": [int], "shares": [int], "user": [bool]} (section 3.1:
                  index 0 the root with parent -1, a parent before its children)}
    jobs = {"submit", "run", "limit", "cpus", "nodes", "mem", "partition", "priority": lists of int,
            "mem_per_cpu", "exclusive": lists of bool,
            optional "weighted_job_size", "weighted_partition": lists of float
            (all 0.0 when absent; used with multifactor, which ignores "priority"),
            optional "association": list of int (each job's user association; required with fair share)}
            (job i = index i in every list)
    options = {"memory_consumable": bool, "whole_nodes": bool, "backfill": bool,
               "bf_interval", "bf_resolution", "bf_window", "bf_max_job_test",
               "bf_job_part_count_reserve", "bf_node_space_size", "default_queue_depth",
               "start_delay", "bf_phase": int,
               optional: "multifactor": bool (False), "priority_weight_age" (0), "priority_max_age"
               (604800), "priority_calc_period" (300), "priority_calc_origin" (0), "sched_interval"
               (60), "priority_weight_fairshare" (0: fair share off), "priority_decay_half_life" (604800),
               "fairshare_dampening" (1): int, "fair_tree" (True), "usage_at_job_end" (False),
               "decay_after_passes" (False): bool,
               "usage_resets" ([]): sorted list of int, "kill_check_period" (0), "over_time_limit" (0),
               "kill_wait" (30), "batch_sched_delay" (0): int >= 0}
    returns {"start": [int per job], "nodes": [[node indices, ascending] per job],
             "cpus": [[CPUs on each of those nodes] per job], "backfilled": [bool per job]}"""
    options = read_options(options)
    machine = read_cluster(cluster, options)
    job_list = read_jobs(jobs, machine, options)
    simulation = Simulation(machine, job_list, options)
    simulation.run()
    return {
        "start": [job.start for job in job_list],
        "nodes": [list(job.alloc_nodes) for job in job_list],
        "cpus": [list(job.alloc_cpus) for job in job_list],
        "backfilled": [job.backfilled for job in job_list],
    }


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            as_int = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be an integer, got {value!r}") from None
        if as_int != value:
            raise ValueError(f"{what} must be an integer, got {value!r}")
        return as_int
    return value


def read_options(options):
    """The options, checked; booleans as bool and the rest as int."""
    missing = [key for key in OPTION_KEYS if key not in options]
    if missing:
        raise ValueError(f"options lack {missing}")
    options = (
        {key: bool(options[key]) for key in OPTION_KEYS[:3]}
        | {key: _int(options[key], key) for key in OPTION_KEYS[3:]}
        | {key: bool(options.get(key, OPTIONAL_OPTIONS[key])) for key in BOOL_OPTIONAL_OPTIONS}
        | {
            key: _int(options.get(key, default), key)
            for key, default in OPTIONAL_OPTIONS.items()
            if key not in BOOL_OPTIONAL_OPTIONS and key != "usage_resets"
        }
        | {"usage_resets": [_int(x, "usage_resets") for x in options.get("usage_resets", [])]}
    )
    if options["bf_interval"] < 1 or options["bf_resolution"] < 1:
        raise ValueError("bf_interval and bf_resolution must be >= 1")
    if options["bf_window"] < 0 or options["start_delay"] < 0 or options["default_queue_depth"] < 0:
        raise ValueError("bf_window, start_delay and default_queue_depth must be >= 0")
    if options["bf_max_job_test"] < 0 or options["bf_job_part_count_reserve"] < 0:
        raise ValueError("bf_max_job_test and bf_job_part_count_reserve must be >= 0")
    if options["bf_node_space_size"] < 1:
        raise ValueError("bf_node_space_size must be >= 1")
    if options["sched_interval"] < 0 or options["priority_weight_age"] < 0 or options["priority_max_age"] < 0:
        raise ValueError("sched_interval, priority_weight_age and priority_max_age must be >= 0")
    if options["priority_calc_period"] < 1:
        raise ValueError("priority_calc_period must be >= 1")
    if options["priority_weight_fairshare"] < 0 or options["priority_decay_half_life"] < 0:
        raise ValueError("priority_weight_fairshare and priority_decay_half_life must be >= 0")
    if options["fairshare_dampening"] < 1:
        raise ValueError("fairshare_dampening must be >= 1")
    if options["usage_resets"] != sorted(options["usage_resets"]):
        raise ValueError("usage_resets must be sorted")
    for key in ("kill_check_period", "over_time_limit", "kill_wait", "batch_sched_delay"):
        if options[key] < 0:
            raise ValueError(f"{key} must be >= 0")
    return options


def read_cluster(cluster, options):
    for key in ("cpus", "memory", "weight", "partitions", "tiers"):
        if key not in cluster:
            raise ValueError(f"cluster lacks {key!r}")
    n = len(cluster["cpus"])
    if n == 0 or len(cluster["memory"]) != n or len(cluster["weight"]) != n:
        raise ValueError("cluster: cpus, memory and weight need one entry per node (at least one node)")
    cpus = [_int(x, "cpus") for x in cluster["cpus"]]
    memory = [_int(x, "memory") for x in cluster["memory"]]
    weight = [_int(x, "weight") for x in cluster["weight"]]
    if min(cpus) < 1 or min(memory) < 0:
        raise ValueError("cluster: every node needs >= 1 CPU and >= 0 MB")
    if len(cluster["partitions"]) == 0 or len(cluster["tiers"]) != len(cluster["partitions"]):
        raise ValueError("cluster: one tier per partition, at least one partition")
    partitions = []
    for nodes in cluster["partitions"]:
        nodes = {_int(x, "partition node") for x in nodes}
        if not nodes or min(nodes) < 0 or max(nodes) >= n:
            raise ValueError("cluster: a partition needs nodes, all of them valid indices")
        partitions.append(nodes)
    return Machine(
        cpus=cpus,
        memory=memory,
        weight=weight,
        partitions=partitions,
        tiers=[_int(x, "tier") for x in cluster["tiers"]],
        memory_consumable=bool(options["memory_consumable"]),
        whole_nodes=bool(options["whole_nodes"]),
        associations=read_associations(cluster["associations"]) if "associations" in cluster else None,
    )


def read_associations(given):
    """Section 1: the association tree, checked."""
    for key in ("parent", "shares", "user"):
        if key not in given:
            raise ValueError(f"associations lack {key!r}")
    parent = [_int(x, "parent") for x in given["parent"]]
    shares = [_int(x, "shares") for x in given["shares"]]
    user = [bool(x) for x in given["user"]]
    count = len(parent)
    if count == 0 or len(shares) != count or len(user) != count:
        raise ValueError("associations: parent, shares and user need one entry per association (a root)")
    if parent[0] != -1 or user[0]:
        raise ValueError("associations: index 0 is the root (parent -1), not a user")
    for a in range(1, count):
        if not 0 <= parent[a] < a:
            raise ValueError(f"association {a}: its parent must come before it")
        if user[parent[a]]:
            raise ValueError(f"association {a}: a user association has no children")
    if min(shares) < 0:
        raise ValueError("associations: shares must be >= 0")
    return Associations(parent=parent, shares=shares, user=user)


def read_jobs(jobs, machine, options):
    # with multifactor the priority column is not used (section 3): it may be absent
    required = [key for key in JOB_INT_KEYS + JOB_BOOL_KEYS if not (key == "priority" and options["multifactor"])]
    for key in required:
        if key not in jobs:
            raise ValueError(f"jobs lack {key!r}")
    n = len(jobs["submit"])
    present = [key for key in JOB_INT_KEYS + JOB_BOOL_KEYS + JOB_FLOAT_KEYS + (ASSOCIATION_KEY,) if key in jobs]
    if any(len(jobs[key]) != n for key in present):
        raise ValueError("jobs: every list needs one entry per job")
    job_list = []
    for i in range(n):
        values = {key: _int(jobs[key][i], key) if key in jobs else 0 for key in JOB_INT_KEYS}
        for key in JOB_FLOAT_KEYS:
            values[key] = float(jobs[key][i]) if key in jobs else 0.0
            if values[key] != values[key]:
                raise ValueError(f"job {i}: {key} is NaN")
        if ASSOCIATION_KEY in jobs:
            values[ASSOCIATION_KEY] = _int(jobs[ASSOCIATION_KEY][i], ASSOCIATION_KEY)
        exclusive = bool(jobs["exclusive"][i])
        job = Job(
            index=i,
            mem_per_cpu=bool(jobs["mem_per_cpu"][i]),
            exclusive=exclusive,
            whole=exclusive or machine.whole_nodes,
            **values,
        )
        if job.run < 0 or job.limit <= 0 or job.cpus < 1 or job.nodes < 0 or job.mem < 0:
            raise ValueError(f"job {i}: needs run >= 0, limit > 0, cpus >= 1, nodes >= 0, mem >= 0")
        if not 0 <= job.partition < len(machine.partitions):
            raise ValueError(f"job {i}: no partition {job.partition}")
        # section 1: inputs are valid when every job fits its empty partition
        if eval_nodes(job, machine.partitions[job.partition], Resources(machine)) is None:
            raise ValueError(f"job {i} does not fit its empty partition")
        if options["multifactor"] and options["priority_weight_fairshare"] > 0:
            # section 3.1: with fair share every job names a user association
            tree = machine.associations
            if tree is None:
                raise ValueError("fair share needs the cluster's associations")
            if not (0 <= job.association < len(tree.parent) and tree.user[job.association]):
                raise ValueError(f"job {i}: association {job.association} is not a user association")
        job_list.append(job)
    return job_list
