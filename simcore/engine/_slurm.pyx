# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""The Slurm mode's event loop: Slurm 22.05's main scheduler and backfill cycle on a
cluster of nodes (docs/slurm_mode.md, whose section numbers the comments cite).

Everything runs in C over arrays copied once by SlurmRun, which checks its inputs
there; node sets are byte maps of one entry per node. The Python wrapper is
simcore/engine/slurm.py; tests/slurm_reference.py is the independent reference.
"""

import numpy as np

from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, memmove, memset

from simcore.engine._placement cimport (Ask, Free, Nodes, Scratch, add_cpus, has_node, i64, lowest_bit, memory_taken,
                                        place, word)
from simcore.engine._slurm_fairshare cimport (Associations, FairShare, add_job_usage, begin_instant,
                                              classic_factor, end_instant)


cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long) nogil

ctypedef unsigned long long u64

cdef i64 NEVER = 1LL << 62   # later than any instant

cdef enum:
    OWNED_LIMIT = 96        # blocks a run allocates (its arrays)
    FITS_NOW = -2           # a will-run result: the job fits on the resources free now
    MEMO_SLOTS = 4096       # will-run results kept (a power of two)
    TRY_LIMIT = 1000        # a job's tries in one cycle (Slurm's bound is bf_max_time)
    GROUP_LIMIT = 200       # will-run: a group releasing more skips its test (rm_job_cnt)
    FIRST_WINDOW = 30       # will-run: the barrier's alignment and the first window


cdef int by_value(const void* a, const void* b) noexcept nogil:
    cdef Py_ssize_t x = (<const Py_ssize_t*> a)[0], y = (<const Py_ssize_t*> b)[0]
    return (x > y) - (x < y)


cdef struct Plan:
    # The backfill plan: records [begin, end) with the nodes free of reservations.
    Py_ssize_t size
    Py_ssize_t capacity
    i64* begin
    i64* end
    Py_ssize_t* next    # -1 ends the list
    word* nodes        # `words` words per record


cdef inline i64 slurm_priority(i64 waited, i64 max_age, double weight_age, double fairshare,
                               double job_size, double partition) noexcept nogil:
    """Slurm's _get_priority_internal: the weighted factors summed in its order (age, fair share,
    job size, partition), at least 1, truncated to an integer (§3)."""
    cdef double value = 0.0
    if weight_age > 0:
        value = (<double> waited / <double> max_age if waited < max_age else 1.0) * weight_age
    value = value + fairshare
    value = value + job_size
    value = value + partition
    if value < 1:
        value = 1
    return <i64> value


def multifactor_priority(waited, max_age, weight_age, fairshare=0.0, job_size=0.0, partition=0.0):
    """The priority the kernel gives a job that has waited `waited` s at a recalculation (for checks
    against sprio)."""
    return slurm_priority(waited, max_age, weight_age, fairshare, job_size, partition)


INT_COLUMNS = ("submit", "run", "limit", "cpus", "nodes", "mem", "partition", "priority", "mem_per_cpu", "exclusive")
FACTOR_COLUMNS = ("weighted_job_size", "weighted_partition")


cdef class SlurmRun:
    """One simulation: the inputs (checked and copied here), the state and the results."""

    cdef Nodes machine
    cdef Free free_now, free_copy
    cdef Scratch scratch
    cdef Py_ssize_t n_nodes, n_parts, n_jobs
    cdef Py_ssize_t words               # 64-node words of a node set
    cdef word* part_nodes               # n_parts node sets
    cdef i64* tier
    # jobs
    cdef i64* submit
    cdef i64* runtime
    cdef i64* limit
    cdef i64* priority
    cdef double* weighted_job_size      # multifactor: the job-size and partition factors, weighted

    cdef double* weighted_partition
    cdef Ask* ask
    cdef Py_ssize_t* part
    # options
    cdef bint backfill, memory_consumable, whole_nodes, multifactor
    cdef double weight_age
    cdef i64 max_age, calc_period, calc_origin, sched_interval
    cdef i64 kill_check_period, over_time_limit, kill_wait     # time limits (§1)
    # fair share (§3.1)
    cdef bint fair_share, usage_at_job_end
    cdef bint decay_after_passes       # the decay instant comes after its second's passes (§3)
    cdef double weight_fairshare
    cdef FairShare fair                 # the tree, its usage and factors
    cdef Associations* assoc            # fair.a
    cdef Py_ssize_t* job_assoc
    cdef Py_ssize_t* active         # scratch: running and pending jobs in index order
    cdef i64 bf_interval, bf_resolution, bf_window, start_delay, batch_sched_delay, bf_phase
    cdef Py_ssize_t bf_max_job_test, bf_part_reserve, bf_node_space_size, queue_depth
    # state
    cdef Py_ssize_t* pending        # by priority order (§3)
    cdef Py_ssize_t n_pending
    cdef Py_ssize_t* by_limit_end   # running jobs by start + limit, then index (the will-run order)
    cdef Py_ssize_t* by_end         # running jobs by their real end, then index
    cdef Py_ssize_t n_running
    cdef i64* will_end
    cdef i64* real_end
    cdef Py_ssize_t* snapshot
    cdef word* avail
    cdef word* withdrawn
    cdef word* all_nodes
    cdef unsigned char* failed
    cdef Py_ssize_t* part_reserved
    cdef i64* part_free_cpus        # free CPUs on each partition's nodes: a quick test before placing
    cdef Py_ssize_t* placed_nodes
    cdef int* placed_cpus
    cdef Py_ssize_t placed_size
    cdef Plan plan
    # results
    cdef i64* start
    cdef unsigned char* backfilled
    cdef Py_ssize_t* alloc_offset   # where a job's nodes and CPUs are in alloc_node/alloc_cpus
    cdef Py_ssize_t* alloc_count
    cdef Py_ssize_t* alloc_node
    cdef int* alloc_cpus
    cdef Py_ssize_t alloc_size, alloc_capacity
    cdef i64 last_update
    cdef i64 machine_changes        # starts and completions so far: the will-run memo's epoch
    cdef i64* memo_stamp
    cdef u64* memo_key
    cdef word* memo_avail
    cdef i64* memo_estimate
    cdef Py_ssize_t* memo_offset
    cdef Py_ssize_t* memo_count
    cdef Py_ssize_t* memo_nodes
    cdef int* memo_cpus
    cdef Py_ssize_t memo_pool_size, memo_pool_capacity
    cdef i64 memo_pool_epoch
    cdef i64 changes        # submissions, starts and completions so far
    cdef i64 none_fits_at   # `changes` when no pending job fitted on the free resources
    cdef Py_ssize_t n_started
    cdef bint done
    # the one-step replay (§8): the recorded starts forced, the model's own decisions only noted
    cdef bint replaying
    cdef i64 tolerance
    cdef i64* recorded              # each job's recorded start (< 0: none)
    cdef i64* recorded_end          # and end (< 0: its start plus its run time)
    cdef Py_ssize_t* recorded_offset    # its recorded nodes: recorded_node[offset[j]:offset[j + 1]]
    cdef Py_ssize_t* recorded_node
    cdef int* recorded_cpus         # the CPUs it held on each (0: not recorded)
    cdef Py_ssize_t* by_deadline    # jobs with a recorded start, by recorded start (then index)
    cdef Py_ssize_t n_deadlines, next_deadline
    cdef i64* predicted             # the first instant the model started each job (-1: never)
    cdef Py_ssize_t* tentative      # jobs the model started in this pass before their recorded start
    cdef Py_ssize_t n_tentative
    cdef word* forced_nodes         # a forced start's recorded nodes (not `avail`: a cycle may be using it)
    cdef void* owned[OWNED_LIMIT]   # every block _alloc gave, freed by __dealloc__
    cdef Py_ssize_t n_owned

    def __cinit__(self, cluster, jobs, options, replay=None):
        cdef Py_ssize_t i, p
        node_cpus = np.ascontiguousarray(cluster["cpus"], dtype=np.int64)
        self.n_nodes = node_cpus.shape[0]
        self.n_parts = len(cluster["partitions"])
        self.n_jobs = len(jobs["submit"])
        n = self.n_nodes
        self.machine.n = n
        self.machine.cpus = <int*> self._alloc(n * sizeof(int))
        self.machine.memory = <i64*> self._alloc(n * sizeof(i64))
        self.machine.weight = <i64*> self._alloc(n * sizeof(i64))
        self.free_now.cpus = <int*> self._alloc(n * sizeof(int))
        self.free_now.memory = <i64*> self._alloc(n * sizeof(i64))
        self.free_now.held = <int*> self._alloc(n * sizeof(int))
        self.free_copy.cpus = <int*> self._alloc(n * sizeof(int))
        self.free_copy.memory = <i64*> self._alloc(n * sizeof(i64))
        self.free_copy.held = <int*> self._alloc(n * sizeof(int))
        self.free_now.with_cpus = <word*> self._alloc(((n + 63) >> 6) * sizeof(word))
        self.free_copy.with_cpus = <word*> self._alloc(((n + 63) >> 6) * sizeof(word))
        memset(self.free_now.with_cpus, 0, ((n + 63) >> 6) * sizeof(word))
        self.scratch.usable = <int*> self._alloc(n * sizeof(int))
        self.scratch.set_start = <Py_ssize_t*> self._alloc(n * sizeof(Py_ssize_t))
        self.scratch.set_end = <Py_ssize_t*> self._alloc(n * sizeof(Py_ssize_t))
        self.scratch.set_cpus = <i64*> self._alloc(n * sizeof(i64))
        self.scratch.set_nodes = <Py_ssize_t*> self._alloc(n * sizeof(Py_ssize_t))
        self.scratch.set_weight = <i64*> self._alloc(n * sizeof(i64))
        self.scratch.held_by_node = <int*> self._alloc(n * sizeof(int))
        memset(self.scratch.held_by_node, 0, n * sizeof(int))
        self.placed_nodes = <Py_ssize_t*> self._alloc(n * sizeof(Py_ssize_t))
        self.placed_cpus = <int*> self._alloc(n * sizeof(int))
        self.words = (n + 63) >> 6
        self.avail = <word*> self._alloc(self.words * sizeof(word))
        self.withdrawn = <word*> self._alloc(self.words * sizeof(word))
        self.all_nodes = <word*> self._alloc(self.words * sizeof(word))
        memset(self.all_nodes, 0, self.words * sizeof(word))
        for i in range(n):
            self.all_nodes[i >> 6] |= (<word> 1) << (i & 63)
        memory = np.ascontiguousarray(cluster["memory"], dtype=np.int64)
        weight = np.ascontiguousarray(cluster["weight"], dtype=np.int64)
        if memory.shape[0] != n or weight.shape[0] != n:
            raise ValueError(f"{n} nodes have {memory.shape[0]} memory sizes and {weight.shape[0]} weights")
        if n < 1:
            raise ValueError("the cluster has no node")
        for i in range(n):
            if node_cpus[i] < 1 or memory[i] < 0:
                raise ValueError(f"node {i}: {node_cpus[i]} CPUs and {memory[i]} MB")
            self.machine.cpus[i] = node_cpus[i]
            self.machine.memory[i] = memory[i]
            self.machine.weight[i] = weight[i]
            self.free_now.cpus[i] = 0
            add_cpus(&self.free_now, i, node_cpus[i])
            self.free_now.memory[i] = memory[i]
            self.free_now.held[i] = 0
        if self.n_parts < 1 or len(cluster["tiers"]) != self.n_parts:
            raise ValueError(f"{self.n_parts} partitions and {len(cluster['tiers'])} priority tiers")
        self.part_nodes = <word*> self._alloc(self.n_parts * self.words * sizeof(word))
        memset(self.part_nodes, 0, self.n_parts * self.words * sizeof(word))
        self.tier = <i64*> self._alloc(self.n_parts * sizeof(i64))
        self.failed = <unsigned char*> self._alloc(self.n_parts)
        self.part_reserved = <Py_ssize_t*> self._alloc(self.n_parts * sizeof(Py_ssize_t))
        self.part_free_cpus = <i64*> self._alloc(self.n_parts * sizeof(i64))
        for p in range(self.n_parts):
            self.tier[p] = cluster["tiers"][p]
            members = cluster["partitions"][p]
            if len(members) == 0:
                raise ValueError(f"partition {p} has no node")
            for i in members:
                if not 0 <= i < n:
                    raise ValueError(f"partition {p}: node {i} is not one of the {n} nodes")
                self.part_nodes[p * self.words + (i >> 6)] |= (<word> 1) << (i & 63)
            self.part_free_cpus[p] = sum(int(node_cpus[i]) for i in set(members))
        self._read_options(options)
        if self.fair_share and "associations" not in cluster:
            raise ValueError("fair share (priority_weight_fairshare > 0) needs cluster['associations']")
        self.fair = FairShare(cluster["associations"] if self.fair_share else None, options)
        self.assoc = &self.fair.a
        self._read_jobs(jobs)
        self.plan.capacity = self.bf_node_space_size + 3
        self.plan.begin = <i64*> self._alloc(self.plan.capacity * sizeof(i64))
        self.plan.end = <i64*> self._alloc(self.plan.capacity * sizeof(i64))
        self.plan.next = <Py_ssize_t*> self._alloc(self.plan.capacity * sizeof(Py_ssize_t))
        self.plan.nodes = <word*> self._alloc(self.plan.capacity * self.words * sizeof(word))
        self.memo_stamp = <i64*> self._alloc(MEMO_SLOTS * sizeof(i64))
        self.memo_key = <u64*> self._alloc(MEMO_SLOTS * sizeof(u64))
        self.memo_avail = <word*> self._alloc(MEMO_SLOTS * self.words * sizeof(word))
        self.memo_estimate = <i64*> self._alloc(MEMO_SLOTS * sizeof(i64))
        self.memo_offset = <Py_ssize_t*> self._alloc(MEMO_SLOTS * sizeof(Py_ssize_t))
        self.memo_count = <Py_ssize_t*> self._alloc(MEMO_SLOTS * sizeof(Py_ssize_t))
        self.memo_pool_capacity = 1024
        self.memo_nodes = <Py_ssize_t*> self._grown(self.memo_pool_capacity * sizeof(Py_ssize_t))
        self.memo_cpus = <int*> self._grown(self.memo_pool_capacity * sizeof(int))
        self.done = False
        self.replaying = replay is not None
        if self.replaying:
            self._read_replay(replay)

    cdef int _read_replay(self, replay) except -1:
        """replay: recorded_start (per job, < 0 where none), node_offsets and nodes (each job's
        recorded nodes, none: anywhere in its partition), optionally cpus (held on each of those
        nodes; 0 or absent: not recorded) and recorded_end (per job, < 0 or absent: its start plus
        its run time), tolerance (seconds)."""
        cdef Py_ssize_t j, k, m = self.n_jobs
        recorded = np.ascontiguousarray(replay["recorded_start"], dtype=np.int64)
        ends = np.ascontiguousarray(replay.get("recorded_end", np.full(m, -1)), dtype=np.int64)
        offsets = np.ascontiguousarray(replay["node_offsets"], dtype=np.int64)
        nodes = np.ascontiguousarray(replay["nodes"], dtype=np.int64)
        cpus = np.ascontiguousarray(replay.get("cpus", np.zeros(nodes.shape[0])), dtype=np.int64)
        self.tolerance = replay["tolerance"]
        if (recorded.shape[0] != m or ends.shape[0] != m or offsets.shape[0] != m + 1 or offsets[m] != nodes.shape[0]
                or cpus.shape[0] != nodes.shape[0]):
            raise ValueError(f"replay: {recorded.shape[0]} recorded starts and {offsets.shape[0]} node "
                             f"offsets for {m} jobs ({nodes.shape[0]} nodes)")
        if self.tolerance < 0 or (nodes.shape[0] and (nodes.min() < 0 or nodes.max() >= self.n_nodes)):
            raise ValueError(f"replay: tolerance {self.tolerance} s, nodes outside 0-{self.n_nodes - 1}")
        self.recorded = <i64*> self._alloc(m * sizeof(i64))
        self.recorded_end = <i64*> self._alloc(m * sizeof(i64))
        self.recorded_offset = <Py_ssize_t*> self._alloc((m + 1) * sizeof(Py_ssize_t))
        self.recorded_node = <Py_ssize_t*> self._alloc((nodes.shape[0] + 1) * sizeof(Py_ssize_t))
        self.recorded_cpus = <int*> self._alloc((nodes.shape[0] + 1) * sizeof(int))
        self.predicted = <i64*> self._alloc(m * sizeof(i64))
        self.tentative = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.by_deadline = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.forced_nodes = <word*> self._alloc(self.words * sizeof(word))
        for k in range(nodes.shape[0]):
            self.recorded_node[k] = nodes[k]
            self.recorded_cpus[k] = cpus[k]
        self.n_deadlines = 0
        for j in range(m):
            self.recorded[j] = recorded[j] if recorded[j] >= self.submit[j] else -1
            self.recorded_end[j] = ends[j] if self.recorded[j] >= 0 and ends[j] > recorded[j] else -1
            self.recorded_offset[j] = offsets[j]
            self.predicted[j] = -1
        self.recorded_offset[m] = offsets[m]
        for j in np.argsort(np.where(recorded >= 0, recorded, np.iinfo(np.int64).max), kind="stable"):
            if self.recorded[j] >= 0:
                self.by_deadline[self.n_deadlines] = j
                self.n_deadlines += 1
        return 0

    cdef void* _alloc(self, size_t size) except NULL:
        """A block freed with the run (__dealloc__)."""
        cdef void* block = self._grown(size)
        if self.n_owned == OWNED_LIMIT:
            free(block)
            raise MemoryError("too many arrays")
        self.owned[self.n_owned] = block
        self.n_owned += 1
        return block

    cdef void* _grown(self, size_t size) except NULL:
        """A block of an array that grows, freed by name in __dealloc__."""
        cdef void* block = malloc(size if size > 0 else 1)
        if block == NULL:
            raise MemoryError()
        return block

    cdef int _read_options(self, options) except -1:
        self.backfill = bool(options["backfill"])
        self.memory_consumable = bool(options["memory_consumable"])
        self.whole_nodes = bool(options["whole_nodes"])
        self.bf_interval = options["bf_interval"]
        self.bf_resolution = options["bf_resolution"]
        self.bf_window = options["bf_window"]
        self.bf_max_job_test = options["bf_max_job_test"]
        self.bf_part_reserve = options["bf_job_part_count_reserve"]
        self.bf_node_space_size = options["bf_node_space_size"]
        self.queue_depth = options["default_queue_depth"]
        self.start_delay = options["start_delay"]
        self.batch_sched_delay = options.get("batch_sched_delay", 0)
        if self.batch_sched_delay < 0:
            raise ValueError(f"option batch_sched_delay must be >= 0, got {self.batch_sched_delay}")
        self.bf_phase = options["bf_phase"]
        # priority/multifactor (§3); without it `priority` is fixed per job
        self.multifactor = bool(options.get("multifactor", False))
        self.weight_age = options.get("priority_weight_age", 0)
        self.max_age = options.get("priority_max_age", 7 * 86400)
        self.calc_period = options.get("priority_calc_period", 300)
        self.calc_origin = options.get("priority_calc_origin", 0)
        self.sched_interval = options.get("sched_interval", 60)
        self.kill_check_period = options.get("kill_check_period", 0)
        self.over_time_limit = options.get("over_time_limit", 0)
        self.kill_wait = options.get("kill_wait", 30)
        if self.kill_check_period < 0 or self.over_time_limit < 0 or self.kill_wait < 0:
            raise ValueError(f"time limits: check period {self.kill_check_period} s, over-time limit "
                             f"{self.over_time_limit} s and KillWait {self.kill_wait} s (need >= 0)")
        self.weight_fairshare = options.get("priority_weight_fairshare", 0)
        self.fair_share = self.multifactor and self.weight_fairshare > 0
        self.usage_at_job_end = bool(options.get("usage_at_job_end", False))
        self.decay_after_passes = bool(options.get("decay_after_passes", False))
        if self.sched_interval < 0:
            raise ValueError(f"option sched_interval must be >= 0, got {self.sched_interval}")
        if self.multifactor and (self.max_age < 0 or self.calc_period < 1 or self.weight_age < 0):
            raise ValueError(f"multifactor: max age {self.max_age} s, calc period {self.calc_period} s and "
                             f"age weight {self.weight_age} (need >= 0, >= 1, >= 0)")
        for key in ("bf_interval", "bf_resolution", "bf_max_job_test", "bf_node_space_size"):
            if options[key] < 1:
                raise ValueError(f"option {key} must be >= 1, got {options[key]}")
        for key in ("bf_window", "bf_job_part_count_reserve", "default_queue_depth", "start_delay"):
            if options[key] < 0:
                raise ValueError(f"option {key} must be >= 0, got {options[key]}")
        return 0

    cdef int _read_jobs(self, jobs) except -1:
        cdef Py_ssize_t j, m = self.n_jobs, n = self.n_nodes
        cdef Ask* a
        columns = {}
        # the integer columns, then multifactor's weighted factors (doubles, 0 when absent)
        for key in INT_COLUMNS + FACTOR_COLUMNS:
            given = jobs[key] if key in INT_COLUMNS else jobs.get(key, np.zeros(m))
            columns[key] = np.ascontiguousarray(given, dtype=np.int64 if key in INT_COLUMNS else np.float64)
            if columns[key].shape[0] != m:
                raise ValueError(f"jobs: '{key}' has {columns[key].shape[0]} entries, 'submit' has {m}")
        self.submit = <i64*> self._alloc(m * sizeof(i64))
        self.runtime = <i64*> self._alloc(m * sizeof(i64))
        self.limit = <i64*> self._alloc(m * sizeof(i64))
        self.priority = <i64*> self._alloc(m * sizeof(i64))
        self.weighted_job_size = <double*> self._alloc(m * sizeof(double))
        self.weighted_partition = <double*> self._alloc(m * sizeof(double))
        self.ask = <Ask*> self._alloc(m * sizeof(Ask))
        self.part = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.pending = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.by_limit_end = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.by_end = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.snapshot = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.will_end = <i64*> self._alloc(m * sizeof(i64))
        self.real_end = <i64*> self._alloc(m * sizeof(i64))
        self.start = <i64*> self._alloc(m * sizeof(i64))
        self.backfilled = <unsigned char*> self._alloc(m)
        self.alloc_offset = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.alloc_count = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        self.alloc_capacity = m + 16
        self.alloc_node = <Py_ssize_t*> self._grown(self.alloc_capacity * sizeof(Py_ssize_t))
        self.alloc_cpus = <int*> self._grown(self.alloc_capacity * sizeof(int))
        self.alloc_size = 0
        self.active = <Py_ssize_t*> self._alloc(m * sizeof(Py_ssize_t))
        if self.fair_share:
            self._read_job_associations(jobs)
        # an empty machine, to check that every job fits its partition
        cdef Free empty
        empty.cpus = self.free_copy.cpus
        empty.memory = self.free_copy.memory
        empty.held = self.free_copy.held
        empty.with_cpus = self.free_copy.with_cpus
        memcpy(empty.cpus, self.machine.cpus, n * sizeof(int))
        memcpy(empty.with_cpus, self.all_nodes, self.words * sizeof(word))
        memcpy(empty.memory, self.machine.memory, n * sizeof(i64))
        memset(empty.held, 0, n * sizeof(int))
        for j in range(m):
            self.submit[j] = columns["submit"][j]
            self.runtime[j] = columns["run"][j]
            self.limit[j] = columns["limit"][j]
            self.priority[j] = columns["priority"][j]
            self.weighted_job_size[j] = columns["weighted_job_size"][j]
            self.weighted_partition[j] = columns["weighted_partition"][j]
            self.part[j] = columns["partition"][j]
            self.start[j] = -1
            self.backfilled[j] = 0
            a = &self.ask[j]
            a.cpus = columns["cpus"][j]
            a.nodes = columns["nodes"][j]
            a.mem = columns["mem"][j]
            a.mem_per_cpu = columns["mem_per_cpu"][j] != 0 and columns["mem"][j] > 0   # no --mem: whole node
            a.whole = columns["exclusive"][j] != 0 or self.whole_nodes
            a.memory_consumable = self.memory_consumable
            if j > 0 and self.submit[j] < self.submit[j - 1]:
                raise ValueError(f"job {j}: submitted at {self.submit[j]}, before job {j - 1} ({self.submit[j - 1]})")
            if self.runtime[j] < 0 or self.limit[j] < 1:
                raise ValueError(f"job {j}: running time {self.runtime[j]} and limit {self.limit[j]} "
                                 "(need a running time >= 0 and a limit >= 1)")
            if a.cpus < 1 or a.nodes < 0 or a.cpus < a.nodes or a.mem < 0:
                raise ValueError(f"job {j}: {a.cpus} CPUs on {a.nodes} nodes with {a.mem} MB "
                                 f"{'per CPU' if a.mem_per_cpu else 'per node'} is not a request")
            if not 0 <= self.part[j] < self.n_parts:
                raise ValueError(f"job {j}: partition {self.part[j]} is not one of the {self.n_parts}")
            if place(&self.machine, &empty, a, self.part_nodes + self.part[j] * self.words, &self.scratch,
                     self.placed_nodes, self.placed_cpus) < 0:
                raise ValueError(f"job {j}: {a.cpus} CPUs on {a.nodes} nodes with {a.mem} MB does not fit "
                                 f"partition {self.part[j]} even when it is empty")
        return 0

    cdef int _read_job_associations(self, jobs) except -1:
        cdef Py_ssize_t j
        if "association" not in jobs:
            raise ValueError("fair share (priority_weight_fairshare > 0) needs the jobs' 'association'")
        given = np.ascontiguousarray(jobs["association"], dtype=np.int64)
        if given.shape[0] != self.n_jobs:
            raise ValueError(f"jobs: 'association' has {given.shape[0]} entries, 'submit' has {self.n_jobs}")
        self.job_assoc = <Py_ssize_t*> self._alloc(self.n_jobs * sizeof(Py_ssize_t))
        for j in range(self.n_jobs):
            if not 0 < given[j] < self.assoc.n or not self.assoc.user[given[j]]:
                raise ValueError(f"job {j}: association {given[j]} is not a user association")
            self.job_assoc[j] = given[j]
        return 0

    def __dealloc__(self):
        cdef Py_ssize_t k
        for k in range(self.n_owned):
            free(self.owned[k])
        # the arrays that grow (realloc) are not in `owned`
        free(self.alloc_node)
        free(self.alloc_cpus)
        free(self.memo_nodes)
        free(self.memo_cpus)

    # ---- the queues -------------------------------------------------------------

    cdef inline bint runs_before(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        """§3: partition tier, priority (higher first), submission, index."""
        cdef i64 ta = self.tier[self.part[a]], tb = self.tier[self.part[b]]
        if ta != tb:
            return ta > tb
        if self.priority[a] != self.priority[b]:
            return self.priority[a] > self.priority[b]
        if self.submit[a] != self.submit[b]:
            return self.submit[a] < self.submit[b]
        return a < b

    cdef i64 multifactor_priority(self, Py_ssize_t j, i64 t) noexcept nogil:
        cdef i64 waited = t - self.submit[j] if t > self.submit[j] else 0
        cdef double fairshare = 0.0
        if self.fair_share:
            if self.assoc.fair_tree:
                fairshare = self.assoc.factor[self.job_assoc[j]] * self.weight_fairshare
            else:
                fairshare = classic_factor(self.assoc, self.job_assoc[j]) * self.weight_fairshare
        return slurm_priority(waited, self.max_age, self.weight_age, fairshare,
                              self.weighted_job_size[j], self.weighted_partition[j])

    cdef double held_cpus(self, Py_ssize_t j) noexcept nogil:
        cdef Py_ssize_t k
        cdef double total = 0
        for k in range(self.alloc_count[j]):
            total += self.alloc_cpus[self.alloc_offset[j] + k]
        return total

    cdef void complete(self, Py_ssize_t j) noexcept nogil:
        """Job j leaves the machine."""
        self.release(j, &self.free_now)
        SlurmRun.remove_from(self.by_end, self.n_running, j)
        SlurmRun.remove_from(self.by_limit_end, self.n_running, j)
        self.n_running -= 1
        self.machine_changes += 1

    cdef void add_usage_of(self, Py_ssize_t j, i64 t) noexcept nogil:
        """A running job's usage since the last decay instant (or its start) until t (§3.1)."""
        add_job_usage(self.assoc, self.job_assoc[j], self.start[j], t, self.held_cpus(j))

    cdef Py_ssize_t active_by_index(self) noexcept nogil:
        """Running and pending jobs in index order (Slurm's job list) into `active`."""
        cdef Py_ssize_t k, size = 0
        for k in range(self.n_running):
            self.active[size] = self.by_end[k]
            size += 1
        for k in range(self.n_pending):
            self.active[size] = self.pending[k]
            size += 1
        qsort(self.active, size, sizeof(Py_ssize_t), by_value)
        return size

    cdef void sort_pending(self) noexcept nogil:
        cdef Py_ssize_t k, i, j
        for k in range(1, self.n_pending):     # insertion sort: the order mostly holds
            j = self.pending[k]
            i = k - 1
            while i >= 0 and self.runs_before(j, self.pending[i]):
                self.pending[i + 1] = self.pending[i]
                i -= 1
            self.pending[i + 1] = j

    cdef bint decay_instant(self, i64 t) noexcept nogil:
        """The decay thread's instant t (§3, §3.1): usage reset, decayed and added, fair-share
        factors, pending jobs' priorities. True if it recomputed a priority (an update)."""
        cdef bint first = begin_instant(self.assoc, t), recomputed = False
        cdef Py_ssize_t k, j, size
        if self.assoc.fair_tree:
            if self.fair_share:
                size = self.active_by_index()
                for k in range(size):
                    j = self.active[k]
                    if self.start[j] >= 0:
                        self.add_usage_of(j, t)
            end_instant(self.assoc, t)
            for k in range(self.n_pending):
                j = self.pending[k]
                self.priority[j] = self.multifactor_priority(j, t)
            recomputed = self.n_pending > 0
        else:
            if not first:
                # classic: one walk in job order, usage and priorities interleaved (a user's effective
                # usage is computed by the first of its jobs that needs it)
                size = self.active_by_index()
                for k in range(size):
                    j = self.active[k]
                    if self.start[j] >= 0:
                        if self.fair_share:
                            self.add_usage_of(j, t)
                    else:
                        self.priority[j] = self.multifactor_priority(j, t)
                recomputed = self.n_pending > 0
            end_instant(self.assoc, t)
        if recomputed:
            self.sort_pending()
        return recomputed

    cdef void add_pending(self, Py_ssize_t j, i64 t) noexcept nogil:
        if self.multifactor:
            self.priority[j] = self.multifactor_priority(j, t)
        self.insert_pending(j)

    cdef void insert_pending(self, Py_ssize_t j) noexcept nogil:
        cdef Py_ssize_t lo = 0, hi = self.n_pending, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.runs_before(self.pending[mid], j):
                lo = mid + 1
            else:
                hi = mid
        memmove(self.pending + lo + 1, self.pending + lo, (self.n_pending - lo) * sizeof(Py_ssize_t))
        self.pending[lo] = j
        self.n_pending += 1

    cdef void remove_pending(self, Py_ssize_t j) noexcept nogil:
        cdef Py_ssize_t k = 0
        while self.pending[k] != j:
            k += 1
        memmove(self.pending + k, self.pending + k + 1, (self.n_pending - k - 1) * sizeof(Py_ssize_t))
        self.n_pending -= 1

    @staticmethod
    cdef void insert_by(Py_ssize_t* items, Py_ssize_t size, const i64* key, Py_ssize_t j) noexcept nogil:
        """Inserts j into items (size entries, ordered by key then index)."""
        cdef Py_ssize_t lo = 0, hi = size, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if key[items[mid]] < key[j] or (key[items[mid]] == key[j] and items[mid] < j):
                lo = mid + 1
            else:
                hi = mid
        memmove(items + lo + 1, items + lo, (size - lo) * sizeof(Py_ssize_t))
        items[lo] = j

    @staticmethod
    cdef void remove_from(Py_ssize_t* items, Py_ssize_t size, Py_ssize_t j) noexcept nogil:
        cdef Py_ssize_t k = 0
        while items[k] != j:
            k += 1
        memmove(items + k, items + k + 1, (size - k - 1) * sizeof(Py_ssize_t))

    # ---- starting and ending jobs -------------------------------------------------

    cdef int start_job(self, Py_ssize_t j, i64 t, Py_ssize_t size, bint by_backfill, i64 now=-1) except -1:
        """Starts job j at t on the `size` nodes in placed_nodes/placed_cpus (at instant `now`, t
        unless a replay forces a recorded start late)."""
        cdef Py_ssize_t k, i
        cdef i64 ran = self.runtime[j] if self.runtime[j] > 0 else 1
        if self.alloc_size + size > self.alloc_capacity:
            self.alloc_capacity = 2 * (self.alloc_size + size)
            self.alloc_node = <Py_ssize_t*> realloc(self.alloc_node, self.alloc_capacity * sizeof(Py_ssize_t))
            self.alloc_cpus = <int*> realloc(self.alloc_cpus, self.alloc_capacity * sizeof(int))
            if self.alloc_node == NULL or self.alloc_cpus == NULL:
                raise MemoryError()
        self.alloc_offset[j] = self.alloc_size
        for k in range(size):
            i = self.placed_nodes[k]
            self.alloc_node[self.alloc_size + k] = i
            self.alloc_cpus[self.alloc_size + k] = self.placed_cpus[k]
            add_cpus(&self.free_now, i, -self.placed_cpus[k])
            self.count_free(i, -self.placed_cpus[k])
            self.free_now.memory[i] -= memory_taken(&self.machine, &self.ask[j], i, self.placed_cpus[k])
            self.free_now.held[i] += 1
        self.alloc_size += size
        self.alloc_count[j] = size
        self.start[j] = t
        self.backfilled[j] = by_backfill
        self.will_end[j] = t + self.limit[j]
        self.real_end[j] = self.end_of(j, t, ran)
        if now >= 0:    # a replay's start as recorded: its recorded end, at least after now
            if self.recorded_end[j] >= 0:
                self.real_end[j] = self.recorded_end[j]
            if self.real_end[j] <= now:
                self.real_end[j] = now + 1
        self.remove_pending(j)
        SlurmRun.insert_by(self.by_limit_end, self.n_running, self.will_end, j)
        SlurmRun.insert_by(self.by_end, self.n_running, self.real_end, j)
        self.n_running += 1
        self.last_update = t if now < 0 else now
        self.changes += 1
        self.machine_changes += 1
        self.n_started += 1
        return 0

    cdef int decide(self, Py_ssize_t j, i64 t, Py_ssize_t size, bint by_backfill) except -1:
        """The model starts job j at t on the placed nodes. When replaying (§8) this is noted; a job
        due by its recorded start is started on its recorded nodes, any other only for the rest of
        this pass (undone by undo_tentative)."""
        if not self.replaying:
            return self.start_job(j, t, size, by_backfill)
        if self.predicted[j] < 0:
            self.predicted[j] = t
        if 0 <= self.recorded[j] <= t:
            return self.force_start(j, t, by_backfill)
        self.tentative[self.n_tentative] = j
        self.n_tentative += 1
        return self.start_job(j, t, size, by_backfill)

    cdef void undo_tentative(self) noexcept nogil:
        """Gives back what the pass started before its recorded start: pending again, its
        priority as it was."""
        cdef Py_ssize_t k, j
        for k in range(self.n_tentative):
            j = self.tentative[k]
            self.complete(j)
            self.n_started -= 1
            self.start[j] = -1
            self.insert_pending(j)
        self.n_tentative = 0

    cdef int force_start(self, Py_ssize_t j, i64 t, bint by_backfill) except -1:
        """Starts job j as recorded (§8), counted from its recorded start, on its recorded nodes:
        with its recorded CPUs on each; else (a NodeList gives none) as the placement rule (§2)
        splits the job over exactly those nodes; else, where the model's view has no such room, a
        whole-node job on all of each node, another with one CPU on each (every node of a NodeList
        holds some) and the rest where there is room, in node order. A job without recorded nodes
        is placed in its partition."""
        cdef Py_ssize_t k, i, first = self.recorded_offset[j], count = self.recorded_offset[j + 1] - first
        cdef Py_ssize_t size
        cdef int left = self.ask[j].cpus, more, asked_nodes = self.ask[j].nodes
        if count == 0:
            size = self.place_on(j, self.part_nodes + self.part[j] * self.words, &self.free_now)
            if size < 0:
                raise RuntimeError(f"replay: job {j} has no recorded nodes and no room in its partition")
            return self.start_job(j, self.recorded[j], size, by_backfill, t)
        if self.recorded_cpus[first] == 0 and count <= self.ask[j].cpus:
            memset(self.forced_nodes, 0, self.words * sizeof(word))
            for k in range(first, first + count):
                self.forced_nodes[self.recorded_node[k] >> 6] |= (<word> 1) << (self.recorded_node[k] & 63)
            self.ask[j].nodes = <int> count
            size = self.place_on(j, self.forced_nodes, &self.free_now)
            self.ask[j].nodes = asked_nodes
            if size == count:
                return self.start_job(j, self.recorded[j], size, by_backfill, t)
        for k in range(count):
            i = self.recorded_node[first + k]
            self.placed_nodes[k] = i
            if self.recorded_cpus[first + k] > 0:
                self.placed_cpus[k] = self.recorded_cpus[first + k]
            elif self.ask[j].whole:
                self.placed_cpus[k] = self.machine.cpus[i]
            else:
                self.placed_cpus[k] = 1
                left -= 1
        if self.recorded_cpus[first] == 0 and not self.ask[j].whole:
            for k in range(count):
                more = min(left, self.free_now.cpus[self.placed_nodes[k]] - 1)
                if more > 0:
                    self.placed_cpus[k] += more
                    left -= more
            if left > 0:    # no room left in the model's view: the recorded state had it
                self.placed_cpus[0] += left
        return self.start_job(j, self.recorded[j], count, by_backfill, t)

    cdef inline void count_free(self, Py_ssize_t i, i64 change) noexcept nogil:
        cdef Py_ssize_t p
        for p in range(self.n_parts):
            if has_node(self.part_nodes + p * self.words, i):
                self.part_free_cpus[p] += change

    cdef void release(self, Py_ssize_t j, Free* f) noexcept nogil:
        """Gives job j's CPUs and memory back to f (the machine's, or a will-run copy)."""
        cdef Py_ssize_t k, i, first = self.alloc_offset[j]
        for k in range(first, first + self.alloc_count[j]):
            i = self.alloc_node[k]
            add_cpus(f, i, self.alloc_cpus[k])
            if f == &self.free_now:
                self.count_free(i, self.alloc_cpus[k])
            f.memory[i] += memory_taken(&self.machine, &self.ask[j], i, self.alloc_cpus[k])
            f.held[i] -= 1

    cdef bint holds_any(self, Py_ssize_t j, const word* nodes) noexcept nogil:
        cdef Py_ssize_t k, first = self.alloc_offset[j]
        for k in range(first, first + self.alloc_count[j]):
            if has_node(nodes, self.alloc_node[k]):
                return True
        return False

    cdef inline Py_ssize_t place_on(self, Py_ssize_t j, const word* candidates, Free* f) noexcept nogil:
        self.placed_size = place(&self.machine, f, &self.ask[j], candidates, &self.scratch,
                                 self.placed_nodes, self.placed_cpus)
        return self.placed_size

    # ---- §4 the main scheduler ----------------------------------------------------

    cdef int main_pass(self, i64 t, bint full_queue) except -1:
        cdef Py_ssize_t k, j, p, w, size, waiting = self.n_pending, depth = 0
        memcpy(self.snapshot, self.pending, waiting * sizeof(Py_ssize_t))
        memset(self.withdrawn, 0, self.words * sizeof(word))
        memset(self.failed, 0, self.n_parts)
        for k in range(waiting):
            if not full_queue:
                if depth > self.queue_depth:   # Slurm's job_depth++ > def_job_limit
                    break
                depth += 1
            j = self.snapshot[k]
            p = self.part[j]
            if self.failed[p]:
                self.last_update = t   # _schedule sets last_job_update for each job it skips so
                continue
            size = -1
            if self.ask[j].cpus <= self.part_free_cpus[p]:   # else it cannot fit: no need to place
                for w in range(self.words):
                    self.avail[w] = self.part_nodes[p * self.words + w] & ~self.withdrawn[w]
                size = self.place_on(j, self.avail, &self.free_now)
            if size >= 0:
                self.decide(j, t, size, False)
                continue
            self.failed[p] = 1
            for w in range(self.words):
                self.withdrawn[w] |= self.part_nodes[p * self.words + w]
        return 0

    # ---- §5 the will-run test ------------------------------------------------------

    cdef i64 will_run(self, Py_ssize_t j, i64 t, bint now_only) noexcept nogil:
        """The job's estimated start on self.avail (its nodes in placed_*), or -1; remembered.

        The test depends on the job's request, avail and the running jobs and free resources only
        (its estimates are running jobs' ends, not times counted from t; "now" is kept as such), so
        its result is kept until a job starts or ends, and a job of the same request on the same
        avail (in this cycle or a later one) takes it without testing again."""
        cdef Ask* a = &self.ask[j]
        cdef u64 key = (<u64> a.cpus * 1000003 + <u64> a.nodes) * 1000003 + <u64> a.mem
        cdef Py_ssize_t w, slot, k
        cdef i64 estimate
        key = key * 4 + (<u64> a.mem_per_cpu) * 2 + <u64> a.whole
        key = key * 2 + <u64> now_only
        for w in range(self.words):
            key = (key ^ self.avail[w]) * 1099511628211ULL
        slot = <Py_ssize_t> (key & (MEMO_SLOTS - 1))
        if self.memo_pool_epoch != self.machine_changes:
            self.memo_pool_epoch = self.machine_changes
            self.memo_pool_size = 0
        if (self.memo_stamp[slot] == self.machine_changes and self.memo_key[slot] == key
                and memcmp(self.memo_avail + slot * self.words, self.avail, self.words * sizeof(word)) == 0):
            self.placed_size = self.memo_count[slot]
            for k in range(self.placed_size):
                self.placed_nodes[k] = self.memo_nodes[self.memo_offset[slot] + k]
                self.placed_cpus[k] = self.memo_cpus[self.memo_offset[slot] + k]
            return self.as_start(self.memo_estimate[slot], t)
        estimate = self.will_run_anew(j, t, now_only)
        if estimate != -1 and self.memo_pool_size + self.placed_size > self.memo_pool_capacity:
            if not self.grow_memo_pool(self.memo_pool_size + self.placed_size):
                return self.as_start(estimate, t)
        self.memo_stamp[slot] = self.machine_changes
        self.memo_key[slot] = key
        memcpy(self.memo_avail + slot * self.words, self.avail, self.words * sizeof(word))
        self.memo_estimate[slot] = estimate
        self.memo_offset[slot] = self.memo_pool_size
        self.memo_count[slot] = self.placed_size if estimate != -1 else 0
        for k in range(self.memo_count[slot]):
            self.memo_nodes[self.memo_pool_size + k] = self.placed_nodes[k]
            self.memo_cpus[self.memo_pool_size + k] = self.placed_cpus[k]
        self.memo_pool_size += self.memo_count[slot]
        return self.as_start(estimate, t)

    cdef inline i64 as_start(self, i64 found, i64 t) noexcept nogil:
        """will_run_anew's answer as a start: now (FITS_NOW), none (-1) or the guess from the end
        of the last job released (guessed_start: it can depend on now, so the raw end is kept)."""
        if found == FITS_NOW:
            return t
        if found < 0:
            return -1
        return self.guessed_start(found, t)

    cdef bint grow_memo_pool(self, Py_ssize_t needed) noexcept nogil:
        cdef Py_ssize_t capacity = 2 * needed
        cdef Py_ssize_t* nodes = <Py_ssize_t*> realloc(self.memo_nodes, capacity * sizeof(Py_ssize_t))
        if nodes == NULL:
            return False
        self.memo_nodes = nodes
        cdef int* cpus = <int*> realloc(self.memo_cpus, capacity * sizeof(int))
        if cpus == NULL:
            return False
        self.memo_cpus = cpus
        self.memo_pool_capacity = capacity
        return True

    cdef i64 will_run_anew(self, Py_ssize_t j, i64 t, bint now_only) noexcept nogil:
        """Slurm's _will_run_test (§5 step 5) on self.avail: FITS_NOW, the end (start + limit) of
        the last running job it released, or -1."""
        cdef Py_ssize_t n = self.n_nodes, k = 0, r, last, released, x, first
        cdef i64 window = FIRST_WINDOW, barrier = -1, free_cpus = self.free_on_avail()
        cdef bint more = True, skip_test
        # free_cpus: the CPUs free on avail; a placement needs at least the job's, so the
        # tries that cannot fit are skipped without placing (the result is the same)
        if free_cpus >= self.ask[j].cpus and self.place_on(j, self.avail, &self.free_now) >= 0:
            return FITS_NOW
        if now_only:
            return -1
        memcpy(self.free_copy.cpus, self.free_now.cpus, n * sizeof(int))
        memcpy(self.free_copy.memory, self.free_now.memory, n * sizeof(i64))
        memcpy(self.free_copy.held, self.free_now.held, n * sizeof(int))
        memcpy(self.free_copy.with_cpus, self.free_now.with_cpus, self.words * sizeof(word))
        while more:
            last = -1
            released = 0
            skip_test = False
            while True:
                if k >= self.n_running:
                    more = False
                    break
                r = self.by_limit_end[k]
                k += 1
                if not self.holds_any(r, self.avail):
                    continue
                if barrier < 0:
                    barrier = self.will_end[r] + (FIRST_WINDOW - self.will_end[r] % FIRST_WINDOW)
                last = r
                self.release(r, &self.free_copy)
                first = self.alloc_offset[r]
                for x in range(first, first + self.alloc_count[r]):
                    if has_node(self.avail, self.alloc_node[x]):
                        free_cpus += self.alloc_cpus[x]
                if k >= self.n_running:
                    more = False
                    break
                if self.will_end[self.by_limit_end[k]] > barrier + window:
                    break
                if released > GROUP_LIMIT:
                    skip_test = True
                    break
                released += 1
            if last < 0:
                break
            if skip_test:
                continue
            window *= 2
            while k < self.n_running and self.will_end[self.by_limit_end[k]] > barrier + window:
                window *= 2
            if free_cpus >= self.ask[j].cpus and self.place_on(j, self.avail, &self.free_copy) >= 0:
                return self.will_end[last]
        return -1

    cdef i64 end_of(self, Py_ssize_t j, i64 t, i64 ran) noexcept nogil:
        """§1: a job started at t ends after `ran` seconds, unless a time-limit check (every
        kill_check_period from the controller's start) finds it past its limit and the over-time
        limit first: it ends then."""
        cdef i64 due = t + self.limit[j] + self.over_time_limit, check
        if t + ran <= due:
            return t + ran
        if self.kill_check_period == 0:
            return due
        check = self.calc_origin + self.kill_check_period
        if due > check:
            check += (due - check + self.kill_check_period - 1) // self.kill_check_period * self.kill_check_period
        return check if check < t + ran else t + ran

    cdef inline i64 guessed_start(self, i64 freed, i64 t) noexcept nogil:
        """§5: a will-run estimate from the end of the last job released; a job already past its
        limit is guessed to end KillWait (and the over-time limit) later, at least 1 s from now
        (_guess_job_end)."""
        if freed > t:
            return freed
        freed += self.over_time_limit + self.kill_wait
        return freed if freed > t else t + 1

    cdef i64 free_on_avail(self) noexcept nogil:
        """The CPUs free now on the nodes of self.avail (those with a free CPU: with_cpus)."""
        cdef Py_ssize_t w
        cdef word bits
        cdef i64 total = 0
        for w in range(self.words):
            bits = self.avail[w] & self.free_now.with_cpus[w]
            while bits:
                total += self.free_now.cpus[(w << 6) + lowest_bit(bits)]
                bits &= bits - 1
        return total

    # ---- §5 the plan ---------------------------------------------------------------

    cdef bint plan_overlaps(self, i64 s, i64 e) noexcept nogil:
        """Some record meeting [s, e) lacks one of the placed nodes (_test_resv_overlap)."""
        cdef Py_ssize_t r = 0, k, size = self.placed_size
        while True:
            if self.plan.end[r] > s and self.plan.begin[r] < e:
                for k in range(size):
                    if not has_node(self.plan.nodes + r * self.words, self.placed_nodes[k]):
                        return True
            r = self.plan.next[r]
            if r < 0:
                return False

    cdef Py_ssize_t split_record(self, Py_ssize_t r, i64 at) noexcept nogil:
        """Splits record r at `at` into r and a new record after it; returns the new one."""
        cdef Py_ssize_t i = self.plan.size
        self.plan.begin[i] = at
        self.plan.end[i] = self.plan.end[r]
        self.plan.end[r] = at
        memcpy(self.plan.nodes + i * self.words, self.plan.nodes + r * self.words, self.words * sizeof(word))
        self.plan.next[i] = self.plan.next[r]
        self.plan.next[r] = i
        self.plan.size += 1
        return i

    cdef void reserve(self, i64 s, i64 e) noexcept nogil:
        """Slurm's _add_reservation: the placed nodes leave every record of [s, e)."""
        cdef Py_ssize_t words = self.words, r = 0, i, k, one_before = 0, one_after = -1
        cdef bint placed = False
        if s < self.plan.begin[0]:
            s = self.plan.begin[0]
        if e < s + self.bf_resolution:
            e = s + self.bf_resolution
        while True:
            if self.plan.end[r] > s:
                self.split_record(r, s)
                placed = True
                break
            if self.plan.end[r] == s:
                placed = True
                break
            one_before = r
            r = self.plan.next[r]
            if r < 0:
                break
        while placed:
            r = self.plan.next[r]
            if r < 0:
                break
            if e < self.plan.end[r]:
                self.split_record(r, e)
            for k in range(self.placed_size):
                i = self.placed_nodes[k]
                self.plan.nodes[r * self.words + (i >> 6)] &= ~((<word> 1) << (i & 63))
            if e == self.plan.end[r]:
                if self.plan.next[r] >= 0:
                    one_after = self.plan.next[r]
                break
        # one merge of neighbours with equal node sets, as Slurm does
        i = one_before
        while i != one_after:
            r = self.plan.next[i]
            if r < 0:
                break
            if memcmp(self.plan.nodes + i * words, self.plan.nodes + r * words, words * sizeof(word)) != 0:
                i = r
                continue
            self.plan.end[i] = self.plan.end[r]
            self.plan.next[i] = self.plan.next[r]
            break

    # ---- §5 the backfill cycle -----------------------------------------------------

    cdef bint fits_now(self, Py_ssize_t j) noexcept nogil:
        """Whether job j fits its partition on the resources free now (no plan)."""
        cdef Py_ssize_t p = self.part[j]
        if self.ask[j].cpus > self.part_free_cpus[p]:
            return False
        return self.place_on(j, self.part_nodes + p * self.words, &self.free_now) >= 0

    cdef int backfill_cycle(self, i64 t) except -1:
        cdef Py_ssize_t k, j, p, r, after, waiting = self.n_pending, tested = 0, last
        cdef Py_ssize_t min_nodes, count
        cdef i64 res = self.bf_resolution, later, start_res, end, estimate, start, s, e
        cdef bint now_only, counted, covered
        cdef word* part_nodes
        cdef Py_ssize_t w, words = self.words
        memcpy(self.snapshot, self.pending, waiting * sizeof(Py_ssize_t))
        # A cycle's plan is dropped at its end: all that stays is the jobs it starts, and a job
        # starts only if it fits on the resources free now. Jobs after the last one that does
        # cannot change what starts, so the cycle stops there (and is skipped without any).
        if self.none_fits_at == self.changes:
            return 0   # nothing fitted at the last look, and no job came, started or ended since
        last = waiting - 1
        while last >= 0 and not self.fits_now(self.snapshot[last]):
            last -= 1
        if last < 0:
            self.none_fits_at = self.changes
            return 0
        waiting = last + 1
        memset(self.part_reserved, 0, self.n_parts * sizeof(Py_ssize_t))
        self.plan.size = 1
        self.plan.begin[0] = (t // res) * res
        self.plan.end[0] = ((t + self.bf_window) // res) * res
        self.plan.next[0] = -1
        memcpy(self.plan.nodes, self.all_nodes, words * sizeof(word))
        for k in range(waiting):
            if tested >= self.bf_max_job_test:
                break
            j = self.snapshot[k]
            p = self.part[j]
            part_nodes = self.part_nodes + p * words
            min_nodes = self.ask[j].nodes if self.ask[j].nodes > 0 else 1
            now_only = self.bf_part_reserve > 0 and self.part_reserved[p] >= self.bf_part_reserve
            counted = False
            later = t
            for _ in range(TRY_LIMIT):
                start_res = later
                later = 0
                end = (start_res if start_res > t else t) + self.limit[j]
                memcpy(self.avail, part_nodes, words * sizeof(word))
                r = 0
                while True:
                    after = self.plan.next[r]
                    if self.plan.end[r] > start_res and after >= 0 and later == 0:
                        # later when the next record frees a partition node this one lacks
                        covered = True
                        for w in range(words):
                            if (part_nodes[w] & self.plan.nodes[after * words + w]
                                    & ~(self.avail[w] & self.plan.nodes[r * words + w])):
                                covered = False
                                break
                        if not covered:
                            later = self.plan.end[r]
                    if self.plan.end[r] <= start_res:
                        pass
                    elif self.plan.begin[r] <= end:
                        for w in range(words):
                            self.avail[w] &= self.plan.nodes[r * words + w]
                    else:
                        break
                    r = after
                    if r < 0:
                        break
                count = 0
                for w in range(words):
                    count += popcount(self.avail[w])
                if count < min_nodes:
                    if later and not now_only:
                        continue
                    break
                if not counted:
                    tested += 1
                    counted = True
                estimate = self.will_run(j, t, now_only)
                if estimate < 0:
                    if later and not now_only:
                        continue
                    break
                start = estimate if estimate > start_res else start_res
                if start <= t:
                    # placed again on the free resources: the will-run test's first try, kept
                    self.decide(j, t, self.placed_size, True)
                    if self.ask[j].whole and self.plan.size < self.bf_node_space_size:
                        # _bf_reserve_running: a whole-node job's nodes leave the plan while it runs
                        self.reserve(self.plan.begin[0], ((t + self.limit[j]) // res) * res)
                    break
                if now_only:
                    break
                if later and start > later:
                    continue
                if start > t + self.bf_window:
                    break
                s = (start // res) * res
                e = ((start + self.limit[j]) // res) * res
                if self.plan_overlaps(s, e):
                    later = start
                    continue
                if self.bf_part_reserve > 0:
                    if self.part_reserved[p] >= self.bf_part_reserve:
                        break
                    self.part_reserved[p] += 1
                if self.plan.size >= self.bf_node_space_size:
                    return 0
                self.reserve(s, e)
                break
        return 0

    # ---- the event loop (§6) ---------------------------------------------------------

    cdef void skip_started_deadlines(self) noexcept nogil:
        while (self.next_deadline < self.n_deadlines
               and self.start[self.by_deadline[self.next_deadline]] != -1):
            self.next_deadline += 1

    cdef int start_overdue(self, i64 t) except -1:
        """§8: a job the model has not started within the tolerance of its recorded start starts
        as recorded."""
        cdef Py_ssize_t j
        self.skip_started_deadlines()
        while (self.next_deadline < self.n_deadlines
               and self.recorded[self.by_deadline[self.next_deadline]] + self.tolerance <= t):
            j = self.by_deadline[self.next_deadline]
            self.next_deadline += 1
            if self.start[j] == -1:
                self.force_start(j, t, False)
        return 0

    @property
    def predicted(self):
        """After a replay: the first instant the model started each job (-1: never)."""
        if not (self.replaying and self.done):
            raise RuntimeError("predicted: run a replay first")
        return np.array([self.predicted[j] for j in range(self.n_jobs)], dtype=np.int64)

    def run(self):
        """Simulates every job; returns start, backfilled, node_offsets, nodes, cpus."""
        if not self.done:
            self._simulate()
            self.done = True
        return self._results()

    cdef int _simulate(self) except -1:
        cdef Py_ssize_t m = self.n_jobs, next_submit = 0, head = 0, tail = 0, j, k
        cdef i64 t, last_cycle = self.bf_phase, next_calc = self.calc_origin, next_full = self.calc_origin
        cdef i64 batch_due = NEVER, last_batch = -NEVER   # the background loop's passes (§4)
        cdef i64 cycle_floor = -NEVER   # a decay after its second's cycle: the next cycle is later (§3)
        cdef i64* pass_due = <i64*> self._grown((2 * m + 1) * sizeof(i64))
        cdef bint ended, submitted, full_queue, event_pass
        self.n_pending = 0
        self.n_running = 0
        self.n_started = 0
        self.last_update = -NEVER   # before anything: no update yet
        self.changes = 0
        self.none_fits_at = -1
        self.machine_changes = 0
        self.memo_pool_epoch = -1
        for k in range(MEMO_SLOTS):
            self.memo_stamp[k] = -1
        try:
            while self.n_started < (self.n_deadlines if self.replaying else m):
                # the next instant: the earliest of what is due
                t = NEVER
                if next_submit < m:
                    t = self.submit[next_submit]
                if self.n_running > 0 and self.real_end[self.by_end[0]] < t:
                    t = self.real_end[self.by_end[0]]
                if head < tail and pass_due[head] < t:
                    t = pass_due[head]
                if batch_due < t:
                    t = batch_due
                if (self.backfill and self.last_update >= last_cycle
                        and max(last_cycle + self.bf_interval, cycle_floor) < t):
                    t = max(last_cycle + self.bf_interval, cycle_floor)
                if (self.multifactor and next_calc < t
                        and (self.n_pending > 0 or (self.fair_share and self.n_running > 0))):
                    t = next_calc
                if self.sched_interval > 0 and self.n_pending > 0 and next_full < t:
                    t = next_full
                if self.replaying:
                    self.skip_started_deadlines()
                    if (self.next_deadline < self.n_deadlines
                            and self.recorded[self.by_deadline[self.next_deadline]] + self.tolerance < t):
                        t = self.recorded[self.by_deadline[self.next_deadline]] + self.tolerance
                if t == NEVER:
                    raise RuntimeError("the simulation stopped with jobs left")
                ended = submitted = False
                if self.multifactor:
                    # idle instants matter only to fair share's usage; one recomputing a pending job's
                    # priority is an update
                    while next_calc < t:
                        if self.fair_share:
                            self.decay_instant(next_calc)
                        else:
                            end_instant(self.assoc, next_calc)     # passes unseen, but it was an instant
                        next_calc += self.calc_period
                    if next_calc == t and not self.decay_after_passes:
                        next_calc += self.calc_period
                        if self.decay_instant(t):
                            self.last_update = t
                while self.n_running > 0 and self.real_end[self.by_end[0]] == t:
                    j = self.by_end[0]
                    if self.fair_share and self.usage_at_job_end:
                        self.add_usage_of(j, t)
                    self.complete(j)
                    ended = True
                if self.sched_interval > 0:
                    # slurmctld's periodic full-queue instants passed since the last instant (§4):
                    # each was the background loop's last pass and served its pending request
                    while next_full < t:
                        last_batch = next_full
                        batch_due = NEVER
                        next_full += self.sched_interval
                while next_submit < m and self.submit[next_submit] == t:
                    self.add_pending(next_submit, t)
                    next_submit += 1
                    submitted = True
                if ended or submitted:
                    self.last_update = t
                    self.changes += 1
                if ended:       # the epilog's completion calls the scheduler (§4)
                    if head == tail or pass_due[tail - 1] != t + self.start_delay:
                        pass_due[tail] = t + self.start_delay
                        tail += 1
                if submitted and batch_due == NEVER:    # the background loop's next pass, rate-limited
                    batch_due = max(t + self.start_delay, last_batch + self.batch_sched_delay)
                full_queue = False
                if self.sched_interval > 0 and next_full == t:
                    # the periodic full-queue pass now, after the submissions (§4, §6)
                    last_batch = t
                    batch_due = NEVER
                    full_queue = self.n_pending > 0
                    next_full += self.sched_interval
                event_pass = head < tail and pass_due[head] == t
                if event_pass:
                    head += 1
                if batch_due == t:
                    batch_due = NEVER
                    last_batch = t
                    event_pass = True
                if event_pass or full_queue:
                    self.main_pass(t, full_queue)
                    self.undo_tentative()
                if (self.backfill and t >= last_cycle + self.bf_interval and t >= cycle_floor
                        and self.last_update >= last_cycle):
                    self.backfill_cycle(t)
                    self.undo_tentative()
                    last_cycle = t
                if self.multifactor and next_calc == t:    # decay_after_passes
                    next_calc += self.calc_period
                    if self.decay_instant(t):
                        self.last_update = t
                        cycle_floor = t + 1
                if self.replaying:
                    self.start_overdue(t)
        finally:
            free(pass_due)
        return 0

    cdef _results(self):
        cdef Py_ssize_t m = self.n_jobs, j, k, total = 0
        start = np.empty(m, dtype=np.int64)
        backfilled = np.empty(m, dtype=bool)
        offsets = np.empty(m + 1, dtype=np.int64)
        for j in range(m):
            start[j] = self.start[j]
            backfilled[j] = self.backfilled[j] != 0
            offsets[j] = total
            total += self.alloc_count[j]
        offsets[m] = total
        nodes = np.empty(total, dtype=np.int64)
        cpus = np.empty(total, dtype=np.int64)
        for j in range(m):
            for k in range(self.alloc_count[j]):
                nodes[offsets[j] + k] = self.alloc_node[self.alloc_offset[j] + k]
                cpus[offsets[j] + k] = self.alloc_cpus[self.alloc_offset[j] + k]
        return start, backfilled, offsets, nodes, cpus
