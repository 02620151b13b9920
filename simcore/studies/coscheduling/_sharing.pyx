# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""The co-scheduling event loop: EASY plus CPU-quota sharing (docs/coscheduling.md).

Everything between decisions is C over typed arrays: the space phase is the
EASY pass of simcore/engine/_core.pyx with FCFS order and backfilling in queue
order; the co-allocation phase walks the waiting jobs and the running jobs
that may host them; the ASAX learner (section 5) decides in C. With an external policy the
walk pauses at each case and resumes after `decide` (the Gymnasium
environment). The Python wrapper is sharing.py; SharingSimulation checks
and copies its inputs itself, once, so that the loop can trust them.
"""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport INFINITY, NAN, floor, isfinite, isnan
from libc.stdlib cimport free, malloc, realloc
from numpy.random cimport bitgen_t

from simcore.engine._checks cimport check_lengths, check_machine_size, check_procs, check_submit, copy_doubles
from simcore.engine._jobs cimport JobArrays
from simcore.engine._predictor cimport Predictor
from simcore.engine._sorted cimport Entry, Heap, heap_pop, heap_push, sorted_insert, sorted_remove
from simcore.studies.coscheduling._asax cimport (
    LEVELS_LIMIT, N_EXPERTS, Asax, Learner, asax_charge, asax_draw, asax_free, asax_init, asax_learner,
    asax_leaves, asax_probabilities,
)

STRATEGY_NAMES = ("SPACE", "STATIC", "ASAX", "HEADROOM", "EXTERNAL")
LOSS_NAMES = ("degradation", "walltime", "host+guest")
SCOPE_NAMES = ("shared", "per-donor")
INTERFERENCE_NAMES = ("constant", "pressure")
QUOTA_NAMES = ("fixed", "dynamic")
FEEDBACK_NAMES = ("decision", "completion")
EXPERT_NAMES = ("CPU", "MEM", "TYPE", "PHASE")
SCHEDULER_NAMES = ("easy", "first-fit")
STATIC_NAMES = ("paired", "every-job")
CPU_LIMIT_NAMES = ("quota", "shares")

cdef enum:
    CASE_FIELDS = 8     # round, level, loss, mixture's probability, each expert's probability
    PENDING_FIELDS = 9  # level, mixture, since, donor's and guest's work left, each expert's probability
    DOUBLE_ROWS = 18    # the per-job doubles (__cinit__): the state, then the jobs' own numbers
    FAILED_KEPT = 8
MAX_LEVELS = LEVELS_LIMIT

cdef enum Strategy:
    SPACE = 0
    STATIC = 1
    ASAX = 2
    HEADROOM = 3
    EXTERNAL = 4

cdef enum Interference:
    CONSTANT = 0    # kappa for every pair
    PRESSURE = 1    # kappa x the pair's memory pressure x the guest's CPU use (section 2.3)

cdef enum Quotas:
    FIXED = 0       # a pair keeps the quota it formed with
    DYNAMIC = 1     # re-decided at a pass that finds the donor's expert leaves changed (section 3)

cdef enum Loss:
    DEGRADATION = 0     # the donor's slowdown
    WALLTIME = 1        # the donor's overrun of its estimate
    HOST_GUEST = 2      # the donor's and the guest's slowdowns, averaged

cdef enum Scheduler:
    EASY = 0        # EASY backfilling; pairs may not delay the head's reservation
    FIRST_FIT = 1   # every waiting job that fits starts, nothing is reserved (the paper's Mesos framework)

cdef enum CpuLimit:
    QUOTA = 0       # STATIC on every job: a hard cap at half a processor per processor
    SHARES = 1      # work-conserving: what the others leave idle is usable (section 2b)

cdef enum Feedback:
    AT_DECISION = 0     # the loss the model predicts, at the case
    AT_COMPLETION = 1   # the donor's slowdown observed when the pair ends or is re-decided

cdef enum JobState:
    FUTURE = 0
    WAITING = 1
    RUNNING = 2
    DONE = 3

# Per-job buffers of released runs, by name, lent to the next run on as many jobs: the runs of a
# sweep replay one workload again and again, and a large buffer freed by one run would be handed back
# to the system by glibc and faulted in, page by page, by the next. One set is kept (the last released).
_SPARE = {}
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)
INTC = np.dtype(np.intc)
I8 = np.dtype(np.int8)
U8 = np.dtype(np.uint8)


cdef object _lend(dict owned, str name, tuple shape, object dtype):
    """A block of `shape` and `dtype` (not filled), a spare one if one fits; recorded in `owned`,
    to be lent on when the run is released."""
    block = _SPARE.pop(name, None)
    if block is None or block.shape != shape or block.dtype != dtype:
        block = np.empty(shape, dtype=dtype)
    owned[name] = block
    return block


cdef inline double capped(double share, double efficiency) noexcept nogil:
    """min(1, share/efficiency), with min(1, x/0) = 1."""
    if efficiency == 0.0:
        return 1.0
    cdef double ratio = share / efficiency
    return ratio if ratio < 1.0 else 1.0


cdef inline double degradation(double paired_rate) noexcept nogil:
    """The degradation loss of running at paired_rate: min(1, 2 (1/rate - 1)) (section 5.5)."""
    cdef double loss = 2.0 * (1.0 / paired_rate - 1.0)
    return loss if loss < 1.0 else 1.0


cdef inline double observed_degradation(double elapsed, double progress) noexcept nogil:
    """The degradation observed over `elapsed` seconds in which a job did `progress` of its work:
    0 when no time passed, 1 when it did no work (section 5.5, feedback at completion)."""
    cdef double loss
    if elapsed <= 0.0:
        return 0.0
    if progress <= 0.0:
        return 1.0
    loss = 2.0 * (elapsed / progress - 1.0)
    return 0.0 if loss < 0.0 else (1.0 if loss > 1.0 else loss)


# Rows of `width` doubles appended during a run (the learner's weights, its cases).
cdef struct RowLog:
    double* rows
    Py_ssize_t size, capacity
    int width
    bint lost       # it could not grow: the run goes on, reading the log raises


cdef inline double* next_row(RowLog* appended) noexcept nogil:
    """A new row at the end of the log, or NULL once it could not grow."""
    cdef double* grown
    cdef Py_ssize_t capacity
    if appended.lost:
        return NULL
    if appended.size == appended.capacity:
        capacity = 2 * appended.capacity + 64
        grown = <double*> realloc(appended.rows, capacity * appended.width * sizeof(double))
        if grown == NULL:
            appended.lost = True
            return NULL
        appended.rows = grown
        appended.capacity = capacity
    appended.size += 1
    return &appended.rows[(appended.size - 1) * appended.width]


cdef object log_array(RowLog* appended, str what):
    if appended.lost:
        raise MemoryError(f"the {what} log could not grow")
    values = np.array([appended.rows[r] for r in range(appended.size * appended.width)])
    return values.reshape(appended.size, appended.width)


cdef int _check_jobs(const double[::1] submit, const double[::1] work,
                     const double[::1] estimate, const long long[::1] procs,
                     const double[::1] efficiency, const double[::1] memory,
                     long long machine_size) except -1:
    """What the event loop trusts of the jobs, checked once in O(n)."""
    cdef Py_ssize_t n = submit.shape[0], j
    check_lengths(n, (("work", work), ("estimate", estimate), ("procs", procs),
                      ("efficiency", efficiency), ("memory", memory)))
    check_machine_size(machine_size)
    for j in range(n):
        check_submit(submit, j)
        if not (isfinite(work[j]) and work[j] >= 0.0):
            raise ValueError(f"job {j}: work {work[j]} must be finite and >= 0")
        if not (isfinite(estimate[j]) and estimate[j] > 0.0):
            raise ValueError(f"job {j}: estimate {estimate[j]} must be finite and > 0")
        check_procs(procs, j, machine_size)
        if not 0.0 <= efficiency[j] <= 1.0:
            raise ValueError(f"job {j}: efficiency {efficiency[j]} must be in [0, 1]")
        if not (isnan(memory[j]) or (isfinite(memory[j]) and memory[j] > 0.0)):
            raise ValueError(f"job {j}: memory {memory[j]} must be positive and finite, or NaN")
    return 0


cdef int _check_settings(int strategy, int levels, double kappa, double memory_capacity,
                         int loss, int scope, int interference, int quotas, int feedback,
                         int scheduler, int static_mode, int cpu_limit) except -1:
    for name, code, names in (("strategy", strategy, STRATEGY_NAMES), ("loss", loss, LOSS_NAMES),
                              ("scope", scope, SCOPE_NAMES), ("interference", interference, INTERFERENCE_NAMES),
                              ("quotas", quotas, QUOTA_NAMES), ("feedback", feedback, FEEDBACK_NAMES),
                              ("scheduler", scheduler, SCHEDULER_NAMES), ("static", static_mode, STATIC_NAMES),
                              ("cpu_limit", cpu_limit, CPU_LIMIT_NAMES)):
        if not 0 <= code < len(names):
            raise ValueError(f"{name} code {code} is not in 0 to {len(names) - 1} "
                             f"({', '.join(names)})")
    if not 2 <= levels <= LEVELS_LIMIT:    # level 0 (do not pair) and one quota at least
        raise ValueError(f"levels must be in [2, {LEVELS_LIMIT}], got {levels}")
    if not 0.0 <= kappa < 1.0:
        raise ValueError(f"kappa must be in [0, 1), got {kappa}")
    if (quotas == DYNAMIC or feedback == AT_COMPLETION) and strategy != ASAX:
        raise ValueError("dynamic quotas and feedback at completion are the ASAX learner's (strategy ASAX)")
    if static_mode == 1 and (strategy != STATIC or interference != CONSTANT):
        raise ValueError("static every-job is the STATIC strategy's, with constant interference")
    if cpu_limit == SHARES and static_mode != 1:
        raise ValueError("cpu_limit shares applies to static every-job only (pairs have hard-cap quotas)")
    if not (isnan(memory_capacity) or (isfinite(memory_capacity) and memory_capacity > 0.0)):
        raise ValueError(f"memory capacity must be positive and finite, or NaN (memory off), "
                         f"got {memory_capacity}")
    return 0


cdef class SharingSimulation:
    """One co-scheduling run. Its arguments are checked and the job arrays
    copied here, once: the event loop trusts them, and the caller's arrays
    may change afterwards without changing the run."""

    cdef object _bit_generator
    cdef dict _buffers                # the per-job buffers lent to this run, by name
    cdef readonly bint released       # its buffers lent on: the run can no longer be read
    cdef bitgen_t* rng
    cdef Py_ssize_t n, next_submission, n_done
    # the jobs: copies this object owns
    cdef double* submit
    cdef double* work
    cdef double* estimate
    cdef double* efficiency
    cdef double* memory          # NaN: unknown
    cdef long long* procs
    cdef long long machine_size, free_procs
    cdef int strategy, levels, loss, scope, interference, quotas, feedback, scheduler, cpu_limit
    cdef bint protect_reservation, fall_through, log_cases
    # STATIC on every job (section 2b): the machine counts half-processors, each job holds half of
    # each of its processors; running jobs by (efficiency, position), for the water level of shares
    cdef bint every_job
    cdef long long capacity           # what free_procs counts: m processors, or 2m half-processors
    cdef double allocation_unit       # quota a job holds per processor it asks for: 1, or 0.5
    cdef Entry* by_efficiency
    cdef Py_ssize_t n_by_efficiency
    cdef double kappa, memory_capacity   # capacity NaN: memory off
    cdef readonly double now
    cdef readonly double busy_area       # integral of processors holding >= 1 job
    # per job
    cdef double[::1] start, end, remaining, rate, updated, completion, estimated_end, quota
    # CPU capacity allocated to each job (processor-seconds of quota): exclusive processors count 1,
    # a guest's f, a donor's shared processors 1 - f (section 7)
    cdef double[::1] allocated, allocation_rate, allocation_since
    cdef double[::1] reservation     # the first shadow time a job got as the head
    # the estimate the experts read (phase, Hp): the predictor's at submission, clipped to [1, estimate]
    cdef double* seen_estimate       # the request itself without a predictor
    cdef Predictor predictor         # None: the request
    cdef JobArrays jobs              # what the predictor reads
    cdef int* user
    # pairs: their guests in position order, the level of each, and the donor's leaves it was decided on
    cdef Entry* paired
    cdef Py_ssize_t n_paired
    cdef int[::1] level, decided_leaves
    cdef readonly long long redecisions, quota_changes
    # feedback at completion: per guest, the decision waiting for its loss
    cdef double[:, ::1] pending      # level, mixture, the experts' probabilities, since, donor's work left
    cdef unsigned char[::1] has_pending
    cdef Py_ssize_t completion_capacity
    cdef long long[::1] partner, donor       # partner: a paired guest's donor, else -1
    # a donor's guests (at most `guests`, on disjoint processors): a list in position order
    cdef long long[::1] first_guest, next_guest, guest_procs
    cdef int[::1] n_guests
    cdef double[::1] quota_now                # a paired guest's present quota
    cdef int guests
    cdef signed char[::1] state
    cdef unsigned char[::1] is_guest, may_share     # is_guest: in a pair, as its guest
    # waiting jobs in FCFS (position) order; started ones are skipped
    cdef Py_ssize_t* waiting
    cdef Py_ssize_t n_waiting, waiting_dead
    cdef Entry* releases             # (time, j) own part, (time, n + guest) a pair's part
    cdef Py_ssize_t n_releases
    cdef Entry* unpaired             # running jobs that may host (not guests, room for a guest), by (start, position)
    cdef Py_ssize_t n_unpaired
    cdef Heap completions            # lazy: stale entries are skipped
    # the co-allocation walk, kept in the object so that it can pause
    cdef bint walking
    cdef Py_ssize_t walk_pos, donor_pos
    cdef double shadow
    cdef long long extra
    cdef long long widest_donor
    cdef double least_donor_memory
    cdef bint guest_had_case
    cdef Py_ssize_t failed[FAILED_KEPT]     # waiting jobs of this walk that found no level
    cdef int n_failed, failed_slot
    cdef readonly Py_ssize_t case_donor, case_guest
    cdef unsigned char admissible[LEVELS_LIMIT]   # the pending case's levels
    # the learner (_asax.pxd)
    cdef Asax asax
    cdef readonly long long cases
    cdef readonly double loss_sum
    cdef long long[::1] histogram
    cdef RowLog alpha_log            # the shared learner's weights after each round
    # the case log (log_cases): per case its round, level, loss, the mixture's and each expert's
    # unrenormalised probability of the level (Theorem 1's excess risk is computed from it)
    cdef RowLog case_rows            # the cases (log_cases)

    def __cinit__(self, const double[::1] submit, const double[::1] work,
                  const double[::1] estimate, const long long[::1] procs,
                  const double[::1] efficiency, const double[::1] memory,
                  long long machine_size, int strategy, int levels, double kappa,
                  double memory_capacity, int loss, int scope, bit_generator,
                  learner_state=None, int interference=CONSTANT, bint protect_reservation=True,
                  bint fall_through=True, bint learn=True, bint log_cases=False, int quotas=FIXED,
                  int feedback=AT_DECISION, Predictor predictor=None, const int[::1] user=None, int n_users=1,
                  int guests=1, int scheduler=EASY, int static_mode=0, int cpu_limit=QUOTA):
        cdef Py_ssize_t n = submit.shape[0], j
        _check_jobs(submit, work, estimate, procs, efficiency, memory, machine_size)
        _check_settings(strategy, levels, kappa, memory_capacity, loss, scope, interference, quotas, feedback,
                        scheduler, static_mode, cpu_limit)
        if guests < 1:
            raise ValueError(f"guests (per donor) must be >= 1, got {guests}")
        if predictor is not None and (user is None or user.shape[0] != n):
            raise ValueError("a predictor of the experts' estimates needs one user index per job")
        self.rng = <bitgen_t*> PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")
        self._bit_generator = bit_generator
        self.n = n
        # The per-job state in a few blocks, one row an array, lent from run to run (_lend); at
        # least one column, so that an empty workload has no NULL pointer.
        cdef dict owned = {}
        cdef Py_ssize_t width = n if n > 0 else 1
        self._buffers = owned
        doubles = _lend(owned, "doubles", (DOUBLE_ROWS, width), F64)
        integers = _lend(owned, "integers", (6, width), I64)
        cdef double[:, ::1] own_doubles = doubles
        cdef long long[:, ::1] own_integers = integers
        doubles[13, :n] = submit
        doubles[14, :n] = work
        doubles[15, :n] = estimate
        doubles[16, :n] = efficiency
        doubles[17, :n] = memory
        integers[5, :n] = procs
        self.submit = &own_doubles[13, 0]
        self.work = &own_doubles[14, 0]
        self.estimate = &own_doubles[15, 0]
        self.efficiency = &own_doubles[16, 0]
        self.memory = &own_doubles[17, 0]
        self.procs = &own_integers[5, 0]
        self.machine_size = machine_size
        self.every_job = static_mode == 1
        self.capacity = 2 * machine_size if self.every_job else machine_size
        self.allocation_unit = 0.5 if self.every_job else 1.0
        self.free_procs = self.capacity
        self.scheduler = scheduler
        self.cpu_limit = cpu_limit
        self.strategy = strategy
        self.levels = levels
        self.kappa = kappa
        self.memory_capacity = memory_capacity
        self.loss = loss
        self.scope = scope
        self.interference = interference
        # first fit reserves nothing: there is no reservation to protect
        self.protect_reservation = protect_reservation and scheduler == EASY
        self.fall_through = fall_through
        self.log_cases = log_cases
        self.quotas = quotas
        self.feedback = feedback
        self.guests = guests
        self.now = -INFINITY
        doubles[0:4].fill(NAN)
        self.start, self.end = doubles[0, :n], doubles[1, :n]
        self.quota, self.reservation = doubles[2, :n], doubles[3, :n]
        doubles[4:11].fill(0.0)
        self.remaining, self.updated, self.completion = doubles[4, :n], doubles[5, :n], doubles[6, :n]
        self.estimated_end, self.allocated = doubles[7, :n], doubles[8, :n]
        self.allocation_rate, self.allocation_since = doubles[9, :n], doubles[10, :n]
        doubles[11].fill(1.0)
        self.rate = doubles[11, :n]
        self.quota_now = doubles[12, :n]     # set at a pairing
        # set before they are read (at a pairing, at a submission): no need to fill what a run of
        # hundreds of thousands of jobs may never touch
        self.seen_estimate = self.estimate if predictor is None else copy_doubles(estimate)
        integers[0:4].fill(-1)
        self.partner, self.first_guest = integers[0, :n], integers[1, :n]
        self.next_guest, self.donor = integers[2, :n], integers[3, :n]
        integers[4].fill(0)
        self.guest_procs = integers[4, :n]
        ints = _lend(owned, "ints", (3, width), INTC)
        ints[0].fill(0)
        self.n_guests, self.level, self.decided_leaves = ints[0, :n], ints[1, :n], ints[2, :n]
        flags = _lend(owned, "flags", (3, width), U8)
        flags[0:2].fill(0)
        self.state, self.is_guest = flags[0, :n].view(I8), flags[1, :n]
        # With memory on, a job of unknown memory never shares.
        flags[2].fill(1)
        if not isnan(memory_capacity):
            np.logical_not(np.isnan(np.asarray(memory)), out=flags[2, :n].view(np.bool_))
        self.may_share = flags[2, :n]
        held = n if feedback == AT_COMPLETION else 0
        self.pending = _lend(owned, "pending", (held, PENDING_FIELDS), F64)
        self.pending[:, :] = 0.0
        self.has_pending = _lend(owned, "has_pending", (held,), U8)
        self.has_pending[:] = 0
        self.histogram = np.zeros(levels, dtype=np.int64)
        cdef size_t count = width
        # the sorted lists and the heap: releases 2n, unpaired n, paired n, by_efficiency n, the
        # completions 3n entries (at most one live entry per running job: a full heap is compacted,
        # dynamic quotas change rates any number of times), then the waiting list
        cdef unsigned char[::1] lists = _lend(
            owned, "lists", (8 * width * sizeof(Entry) + width * sizeof(Py_ssize_t),), U8)
        cdef Entry* entries = <Entry*> &lists[0]
        self.releases = entries
        self.unpaired = entries + 2 * width
        self.paired = entries + 3 * width
        self.by_efficiency = entries + 4 * width
        self.completions.items = entries + 5 * width
        self.completion_capacity = 3 * width
        self.waiting = <Py_ssize_t*> (entries + 8 * width)
        if predictor is not None:
            if predictor.owner != 0:
                raise ValueError("the predictor already serves a running simulation")
            self.user = <int*> malloc(count * sizeof(int))
            if self.user == NULL:
                raise MemoryError()
            for j in range(n):
                if not 0 <= user[j] < n_users:
                    raise ValueError(f"job {j}: user index {user[j]} must be in [0, {n_users})")
                self.user[j] = user[j]
            self.jobs.n = n
            self.jobs.n_users = n_users
            self.jobs.submit = self.submit
            self.jobs.run = self.work
            self.jobs.requested = self.estimate
            self.jobs.procs = self.procs
            self.jobs.user = self.user
            predictor.bind(self.jobs)
            predictor.owner = <size_t> <void*> self
            self.predictor = predictor
        if not asax_init(&self.asax, levels, n if scope == 1 else 0, learn):
            raise MemoryError()
        if learner_state is not None:
            self.asax.shared = learner_state     # a mapping of Learner's fields
        self.alpha_log.width = N_EXPERTS
        self.case_rows.width = CASE_FIELDS
        self.case_donor = -1
        self.case_guest = -1

    def __dealloc__(self):
        # the per-job buffers are the lent ones (self._buffers, or the spare set once released)
        asax_free(&self.asax)
        free(self.alpha_log.rows)
        free(self.case_rows.rows)
        free(self.user)
        if self.seen_estimate != self.estimate:
            free(self.seen_estimate)
        if self.predictor is not None and self.predictor.owner == <size_t> <void*> self:
            self.predictor.owner = 0

    # -- rates and the release list ------------------------------------------

    cdef inline double _remaining_at(self, Py_ssize_t j, double t) noexcept nogil:
        cdef double r = self.remaining[j] - self.rate[j] * (t - self.updated[j])
        return r if r > 0.0 else 0.0

    cdef void _set_rate(self, Py_ssize_t j, double t, double new_rate) noexcept nogil:
        """Section 2.5: only a job whose rate changes is touched."""
        if new_rate == self.rate[j]:
            return
        self.remaining[j] = self._remaining_at(j, t)
        self.updated[j] = t
        self.rate[j] = new_rate
        self.completion[j] = t + self.remaining[j] / new_rate
        self.estimated_end[j] = t + (self.estimate[j] - (self.work[j] - self.remaining[j])) / new_rate
        self._push_completion(j)

    cdef void _push_completion(self, Py_ssize_t j) noexcept nogil:
        cdef Py_ssize_t i, kept = 0
        cdef Entry entry
        if self.completions.size == self.completion_capacity:
            # keep the live entries (at most one a running job) and heap them again
            for i in range(self.completions.size):
                entry = self.completions.items[i]
                if not self._stale(&entry):
                    self.completions.items[kept] = entry
                    kept += 1
            self.completions.size = 0
            for i in range(kept):
                entry = self.completions.items[i]
                heap_push(&self.completions, entry.key, entry.idx)
        heap_push(&self.completions, self.completion[j], j)

    cdef inline double _pair_end(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        """When a pair's shared processors are free: max(ê_a, ê_b)."""
        return self.estimated_end[b] if self.estimated_end[b] > self.estimated_end[a] else self.estimated_end[a]

    cdef void _add_releases(self, Py_ssize_t a) noexcept nogil:
        """The releases of running job `a` (not a guest): its own processors at ê_a, each guest's at
        the later of the two estimated ends."""
        cdef Py_ssize_t g = self.first_guest[a]
        sorted_insert(self.releases, &self.n_releases, self.estimated_end[a], a)
        while g >= 0:
            sorted_insert(self.releases, &self.n_releases, self._pair_end(a, g), self.n + g)
            g = self.next_guest[g]

    cdef void _drop_releases(self, Py_ssize_t a) noexcept nogil:
        cdef Py_ssize_t g = self.first_guest[a]
        sorted_remove(self.releases, &self.n_releases, self.estimated_end[a], a)
        while g >= 0:
            sorted_remove(self.releases, &self.n_releases, self._pair_end(a, g), self.n + g)
            g = self.next_guest[g]

    cdef inline long long _released(self, Py_ssize_t entry) noexcept nogil:
        """Processors a release entry frees."""
        if entry >= self.n:
            return self.procs[entry - self.n]
        return self.procs[entry] - self.guest_procs[entry]

    # -- a donor's guests -----------------------------------------------------

    cdef void _link_guest(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        cdef Py_ssize_t g = self.first_guest[a], previous = -1
        while g >= 0 and g < b:
            previous = g
            g = self.next_guest[g]
        self.next_guest[b] = g
        if previous < 0:
            self.first_guest[a] = b
        else:
            self.next_guest[previous] = b
        self.n_guests[a] += 1
        self.guest_procs[a] += self.procs[b]

    cdef void _unlink_guest(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        cdef Py_ssize_t g = self.first_guest[a], previous = -1
        while g != b:
            previous = g
            g = self.next_guest[g]
        if previous < 0:
            self.first_guest[a] = self.next_guest[b]
        else:
            self.next_guest[previous] = self.next_guest[b]
        self.next_guest[b] = -1
        self.n_guests[a] -= 1
        self.guest_procs[a] -= self.procs[b]

    cdef double _donor_rate_now(self, Py_ssize_t a, Py_ssize_t changed, double f) noexcept nogil:
        """Donor a's rate: its slowest shared processor's over its guests (1 with none), guest
        `changed` at quota f (-1: none changed)."""
        cdef double slowest = 1.0, rate
        cdef Py_ssize_t g = self.first_guest[a]
        while g >= 0:
            rate = self._donor_rate(a, g, f if g == changed else self.quota_now[g])
            if rate < slowest:
                slowest = rate
            g = self.next_guest[g]
        return slowest

    cdef double _donor_allocation(self, Py_ssize_t a) noexcept nogil:
        """Donor a's CPU allocation: its own processors whole, 1 - f of each guest's."""
        cdef double processors = <double> (self.procs[a] - self.guest_procs[a])
        cdef Py_ssize_t g = self.first_guest[a]
        while g >= 0:
            processors += <double> self.procs[g] * (1.0 - self.quota_now[g])
            g = self.next_guest[g]
        return processors

    # -- job life cycle -------------------------------------------------------

    cdef inline void _allocate(self, Py_ssize_t j, double t, double processors) noexcept nogil:
        """From t on, job j is allocated `processors` processors' worth of CPU quota."""
        self.allocated[j] += self.allocation_rate[j] * (t - self.allocation_since[j])
        self.allocation_since[j] = t
        self.allocation_rate[j] = processors

    cdef void _start(self, Py_ssize_t j, double t) noexcept nogil:
        """Start j exclusively (space phase)."""
        self.state[j] = RUNNING
        self.waiting_dead += 1
        self.start[j] = t
        self.remaining[j] = self.work[j]
        self.updated[j] = t
        self.completion[j] = t + self.work[j] / 1.0
        self.estimated_end[j] = t + self.estimate[j] / 1.0
        self.free_procs -= self.procs[j]
        if self.predictor is not None:
            self.predictor.started(j, t)
        self._allocate(j, t, self.allocation_unit * <double> self.procs[j])
        self._add_releases(j)
        sorted_insert(self.unpaired, &self.n_unpaired, t, j)
        self._push_completion(j)
        if self.every_job:
            self.quota[j] = 0.5
            sorted_insert(self.by_efficiency, &self.n_by_efficiency, self.efficiency[j], j)

    cdef void _pair(self, Py_ssize_t a, Py_ssize_t b, double f, double donor_rate,
                    double t) noexcept nogil:
        """Start waiting job b as a guest of running job a with quota f."""
        self._drop_releases(a)
        if self.n_guests[a] + 1 == self.guests:     # no room for another
            sorted_remove(self.unpaired, &self.n_unpaired, self.start[a], a)
        self._set_rate(a, t, donor_rate if donor_rate < self.rate[a] else self.rate[a])
        self.state[b] = RUNNING
        self.waiting_dead += 1
        self.is_guest[b] = True
        self.start[b] = t
        self.remaining[b] = self.work[b]
        self.updated[b] = t
        self.rate[b] = self._guest_rate(a, b, f)
        self.completion[b] = t + self.work[b] / self.rate[b]
        self.estimated_end[b] = t + self.estimate[b] / self.rate[b]
        self.quota[b] = f
        self.quota_now[b] = f
        self.level[b] = <int> floor(f * self.levels + 0.5)
        self.donor[b] = a
        self.partner[b] = a
        self._link_guest(a, b)
        sorted_insert(self.paired, &self.n_paired, <double> b, b)
        if self.quotas == DYNAMIC:
            self.decided_leaves[b] = self._state_bins(a, t)
        if self.predictor is not None:
            self.predictor.started(b, t)
        self._allocate(a, t, self._donor_allocation(a))
        self._allocate(b, t, <double> self.procs[b] * f)
        self._add_releases(a)
        self._push_completion(b)

    cdef void _complete(self, Py_ssize_t j, double t) noexcept nogil:
        cdef Py_ssize_t a = self.partner[j], g, following
        self.state[j] = DONE
        self.end[j] = t
        self.n_done += 1
        self._allocate(j, t, 0.0)
        if self.predictor is not None:
            self.predictor.learn(j, t)
        if a >= 0:      # a guest ends: its processors return to its donor
            self._leave(a, j, t)
            return
        self._drop_releases(j)
        if self.n_guests[j] < self.guests:
            sorted_remove(self.unpaired, &self.n_unpaired, self.start[j], j)
        if self.n_guests[j] == 0:       # alone: its processors become idle
            self.free_procs += self.procs[j]
            if self.every_job:
                sorted_remove(self.by_efficiency, &self.n_by_efficiency, self.efficiency[j], j)
            return
        # a donor ends: its unshared processors become idle, each guest keeps its own, alone
        self.free_procs += self.procs[j] - self.guest_procs[j]
        g = self.first_guest[j]
        while g >= 0:
            following = self.next_guest[g]
            self._settle(j, g, t)
            sorted_remove(self.paired, &self.n_paired, <double> g, g)
            self.partner[g] = -1
            self.next_guest[g] = -1
            self.is_guest[g] = False
            if self.completion[g] != t:      # a guest ending now is left as it is
                self._set_rate(g, t, 1.0)
            self._allocate(g, t, <double> self.procs[g])
            self._add_releases(g)
            sorted_insert(self.unpaired, &self.n_unpaired, self.start[g], g)
            g = following
        self.first_guest[j] = -1
        self.n_guests[j] = 0
        self.guest_procs[j] = 0

    cdef void _leave(self, Py_ssize_t a, Py_ssize_t b, double t) noexcept nogil:
        """Guest b ends: donor a takes its processors back and runs at its remaining guests' rate."""
        self._settle(a, b, t)
        sorted_remove(self.paired, &self.n_paired, <double> b, b)
        self._drop_releases(a)
        self._unlink_guest(a, b)
        self.partner[b] = -1
        if self.completion[a] != t:      # a donor ending now is left as it is
            self._set_rate(a, t, self._donor_rate_now(a, -1, 0.0))
        self._allocate(a, t, self._donor_allocation(a))
        self._add_releases(a)
        if self.n_guests[a] == self.guests - 1:     # it had no room left: it may host again
            sorted_insert(self.unpaired, &self.n_unpaired, self.start[a], a)

    cdef inline bint _stale(self, Entry* top) noexcept nogil:
        return self.state[top.idx] != RUNNING or self.completion[top.idx] != top.key

    cdef double _next_instant(self) noexcept nogil:
        cdef double t = INFINITY
        while self.completions.size > 0 and self._stale(&self.completions.items[0]):
            heap_pop(&self.completions)
        if self.next_submission < self.n:
            t = self.submit[self.next_submission]
        if self.completions.size > 0 and self.completions.items[0].key < t:
            t = self.completions.items[0].key
        return t

    # -- the space phase (EASY, semantics.md §4) ------------------------------

    cdef Py_ssize_t _first_waiting(self) noexcept nogil:
        cdef Py_ssize_t i, kept = 0
        if 2 * self.waiting_dead > self.n_waiting:
            for i in range(self.n_waiting):
                if self.state[self.waiting[i]] == WAITING:
                    self.waiting[kept] = self.waiting[i]
                    kept += 1
            self.n_waiting = kept
            self.waiting_dead = 0
        for i in range(self.n_waiting):
            if self.state[self.waiting[i]] == WAITING:
                return i
        return self.n_waiting

    cdef void _reserve(self, Py_ssize_t h) noexcept nogil:
        """Shadow time and extra processors for head h."""
        cdef long long q_h = self.procs[h], available = self.free_procs
        cdef Py_ssize_t i = 0
        while available < q_h:
            available += self._released(self.releases[i].idx)
            i += 1
        self.shadow = self.releases[i - 1].key
        while i < self.n_releases and self.releases[i].key == self.shadow:
            available += self._released(self.releases[i].idx)
            i += 1
        self.extra = available - q_h
        if isnan(self.reservation[h]):
            self.reservation[h] = self.shadow

    cdef void _pass(self, double t) noexcept nogil:
        cdef Py_ssize_t i = self._first_waiting(), j, h = -1
        cdef long long q
        cdef bint ends_after_shadow
        if i == self.n_waiting:
            self._redecide_without_reservation(t)
            return
        if self.scheduler == FIRST_FIT:
            # every waiting job that fits starts, in FCFS order; nothing is reserved
            while self.free_procs > 0 and i < self.n_waiting:
                j = self.waiting[i]
                i += 1
                if self.state[j] == WAITING and self.procs[j] <= self.free_procs:
                    self._start(j, t)
            self.shadow = INFINITY
            self.extra = 0
        elif self.free_procs > 0:
            while i < self.n_waiting:
                j = self.waiting[i]
                i += 1
                if self.state[j] != WAITING:
                    continue
                if self.procs[j] <= self.free_procs:
                    self._start(j, t)
                else:
                    h = j
                    break
            if h < 0:
                self._redecide_without_reservation(t)
                return
            self._reserve(h)
            while self.free_procs > 0 and i < self.n_waiting:
                j = self.waiting[i]
                i += 1
                q = self.procs[j]
                if self.state[j] != WAITING or q > self.free_procs:
                    continue
                ends_after_shadow = t + self.estimate[j] > self.shadow
                if ends_after_shadow and q > self.extra:
                    continue
                self._start(j, t)
                if ends_after_shadow:
                    self.extra -= q
        else:
            self._reserve(self.waiting[i])
        if self.quotas == DYNAMIC:
            self._redecide(t)
        if self.strategy != SPACE and not self.every_job and self.n_unpaired > 0:
            self.walking = True
            self.walk_pos = 0
            self.donor_pos = 0
            self.guest_had_case = False
            self.n_failed = 0
            self.failed_slot = 0
            self._donor_bounds()

    # -- STATIC on every job (section 2b) --------------------------------------

    cdef void _rebalance(self, double t) noexcept nogil:
        """Every running job's rate from the machine's state at the end of instant t: half a
        processor a processor (quota), or the water level of the shares; kappa while the running
        jobs' processors exceed the machine's."""
        cdef long long threads = self.capacity - self.free_procs
        cdef double interference = self.kappa if threads > self.machine_size else 0.0
        cdef double room = <double> self.machine_size, weight = <double> threads, level = INFINITY, u, new_rate
        cdef Py_ssize_t i, j, capped_from = self.n_by_efficiency
        if self.cpu_limit == SHARES:
            for i in range(self.n_by_efficiency):
                u = self.by_efficiency[i].key
                j = self.by_efficiency[i].idx
                if u * weight <= room:
                    room -= <double> self.procs[j] * u
                    weight -= <double> self.procs[j]
                else:
                    level = room / weight
                    capped_from = i
                    break
        for i in range(self.n_by_efficiency):
            u = self.by_efficiency[i].key
            j = self.by_efficiency[i].idx
            if self.cpu_limit == QUOTA:
                new_rate = (1.0 - interference) * capped(0.5, u)
            elif i < capped_from:
                new_rate = (1.0 - interference) * 1.0
            else:
                new_rate = (1.0 - interference) * (level / u)
            if new_rate != self.rate[j]:
                self._drop_releases(j)
                self._set_rate(j, t, new_rate)
                self._add_releases(j)

    # -- dynamic quotas (section 3) -------------------------------------------

    cdef void _redecide_without_reservation(self, double t) noexcept nogil:
        """Dynamic quotas when no job waits (or every waiting job started): no reservation to keep."""
        if self.quotas == DYNAMIC:
            self.shadow = INFINITY
            self.extra = 0
            self._redecide(t)

    cdef void _redecide(self, double t) noexcept nogil:
        """Each pair whose donor's expert leaves changed since its quota was decided is a case
        again, over the levels 1..K-1 (a pair cannot be undone) that keep the reservation; the
        pair's present level always can. Pairs in their guests' position order."""
        cdef Py_ssize_t i, a, b
        cdef int bins, k, chosen, present
        for i in range(self.n_paired):
            b = self.paired[i].idx
            a = self.partner[b]
            bins = self._state_bins(a, t)
            if bins == self.decided_leaves[b]:
                continue
            self.decided_leaves[b] = bins
            present = self.level[b]
            self.admissible[0] = False
            for k in range(1, self.levels):
                self.admissible[k] = k == present or self._requota_cost(a, b, k, t) <= self.extra
            self._settle(a, b, t)
            chosen = self._learner_choice(a, b, t)
            self.redecisions += 1
            if chosen != present:
                self.extra -= self._requota_cost(a, b, chosen, t)
                self._requota(a, b, chosen, t)
                self.quota_changes += 1

    cdef inline double _end_at_rate(self, Py_ssize_t j, double t, double new_rate) noexcept nogil:
        """Job j's estimated end if its rate became new_rate at t (unchanged if the rate is)."""
        if new_rate == self.rate[j]:
            return self.estimated_end[j]
        return t + (self.estimate[j] - (self.work[j] - self._remaining_at(j, t))) / new_rate

    cdef long long _requota_cost(self, Py_ssize_t a, Py_ssize_t b, int k, double t) noexcept nogil:
        """Processors the reservation loses if pair (a, b) moves to level k: the donor's own part
        and each guest's part, each counted when it was released by the shadow time and no longer is."""
        cdef double f = <double> k / self.levels, donor_end, guest_end, end
        cdef long long lost = 0
        cdef Py_ssize_t g
        if not self.protect_reservation:
            return 0
        donor_end = self._end_at_rate(a, t, self._donor_rate_now(a, b, f))
        if self.estimated_end[a] <= self.shadow < donor_end:
            lost += self.procs[a] - self.guest_procs[a]
        g = self.first_guest[a]
        while g >= 0:
            guest_end = self._end_at_rate(b, t, self._guest_rate(a, b, f)) if g == b else self.estimated_end[g]
            end = guest_end if guest_end > donor_end else donor_end
            if self._pair_end(a, g) <= self.shadow < end:
                lost += self.procs[g]
            g = self.next_guest[g]
        return lost

    cdef void _requota(self, Py_ssize_t a, Py_ssize_t b, int k, double t) noexcept nogil:
        cdef double f = <double> k / self.levels
        self._drop_releases(a)
        self._set_rate(a, t, self._donor_rate_now(a, b, f))
        self._set_rate(b, t, self._guest_rate(a, b, f))
        self.quota_now[b] = f
        self.level[b] = k
        self._allocate(a, t, self._donor_allocation(a))
        self._allocate(b, t, <double> self.procs[b] * f)
        self._add_releases(a)

    # -- the co-allocation phase ---------------------------------------------

    cdef inline double _interference(self, Py_ssize_t a, Py_ssize_t b, double guest_use) noexcept nogil:
        """kappa of the pair (a, b) when the guest uses `guest_use` of each shared processor (section 2.3)."""
        cdef double pressure = 1.0
        if self.interference == CONSTANT:
            return self.kappa
        if not isnan(self.memory_capacity):
            pressure = (self.memory[a] + self.memory[b]) / self.memory_capacity
            if pressure > 1.0:
                pressure = 1.0
        return self.kappa * pressure * guest_use

    cdef inline double _guest_use(self, Py_ssize_t b, double f) noexcept nogil:
        return f if f < self.efficiency[b] else self.efficiency[b]

    cdef inline double _donor_rate(self, Py_ssize_t a, Py_ssize_t b, double f) noexcept nogil:
        return (1.0 - self._interference(a, b, self._guest_use(b, f))) * capped(1.0 - f, self.efficiency[a])

    cdef inline double _guest_rate(self, Py_ssize_t a, Py_ssize_t b, double f) noexcept nogil:
        return (1.0 - self._interference(a, b, self._guest_use(b, f))) * capped(f, self.efficiency[b])

    cdef long long _lost(self, Py_ssize_t a, Py_ssize_t b, double f, double t) noexcept nogil:
        """L of the pair (a, b, f): processors the reservation loses (section 3); 0 for every pair
        when the reservation is not protected (the ablation of section 6)."""
        cdef double paired_rate, new_end
        cdef long long lost
        cdef Py_ssize_t g
        if not self.protect_reservation or self.estimated_end[a] > self.shadow:
            return 0
        # the guest's efficiency is unknown while it waits: read as 1, the most interference
        paired_rate = (1.0 - self._interference(a, b, f)) * capped(1.0 - f, self.efficiency[a])
        if paired_rate > self.rate[a]:      # the donor runs at its slowest processor's rate
            paired_rate = self.rate[a]
        new_end = self._end_at_rate(a, t, paired_rate)
        if new_end > self.shadow:
            # its own processors (the new guest's among them), and its guests' whose release moves past T
            lost = self.procs[a] - self.guest_procs[a]
            g = self.first_guest[a]
            while g >= 0:
                if self._pair_end(a, g) <= self.shadow < (self.estimated_end[g] if self.estimated_end[g] > new_end
                                                          else new_end):
                    lost += self.procs[g]
                g = self.next_guest[g]
            return lost
        if t + self.estimate[b] / ((1.0 - self._interference(a, b, f)) * f) > self.shadow:
            return self.procs[b]
        return 0

    cdef inline bint _memory_fits(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        return isnan(self.memory_capacity) or (
            self.may_share[a] and self.memory[a] + self.memory[b] <= self.memory_capacity)

    cdef void _donor_bounds(self) noexcept nogil:
        """The most room a candidate donor has for a guest and the least memory among them: a
        waiting job beyond either bound cannot pair, so the walk skips it unscanned."""
        cdef Py_ssize_t i, a
        self.widest_donor = 0
        self.least_donor_memory = INFINITY
        for i in range(self.n_unpaired):
            a = self.unpaired[i].idx
            if self.procs[a] - self.guest_procs[a] > self.widest_donor:
                self.widest_donor = self.procs[a] - self.guest_procs[a]
            if self.may_share[a] and self.memory[a] < self.least_donor_memory:
                self.least_donor_memory = self.memory[a]

    cdef inline bint _may_pair(self, Py_ssize_t b) noexcept nogil:
        cdef int i
        if self.state[b] != WAITING or not self.may_share[b] or self.procs[b] > self.widest_donor:
            return False
        if not isnan(self.memory_capacity) and self.memory[b] + self.least_donor_memory > self.memory_capacity:
            return False
        # A job at least as wide, long and large as one that found no admissible
        # level with any donor finds none either: pairs only shrink `extra` and
        # the donors, and a longer or wider guest only raises L.
        for i in range(self.n_failed):
            if (self.procs[b] >= self.procs[self.failed[i]]
                    and self.estimate[b] >= self.estimate[self.failed[i]]
                    and (isnan(self.memory_capacity) or self.memory[b] >= self.memory[self.failed[i]])):
                return False
        return True

    cdef inline void _next_guest(self) noexcept nogil:
        """The walk moves to the next waiting job, remembering this one if it found no level."""
        if not self.guest_had_case and self.n_unpaired > 0:
            self.failed[self.failed_slot] = self.waiting[self.walk_pos]
            self.failed_slot = (self.failed_slot + 1) % FAILED_KEPT
            if self.n_failed < FAILED_KEPT:
                self.n_failed += 1
        self.walk_pos += 1
        self.donor_pos = 0
        self.guest_had_case = False

    cdef bint _walk(self, double t) noexcept nogil:
        """Continue the co-allocation walk; True if it paused at a case."""
        cdef Py_ssize_t b, a
        cdef int k
        cdef bint any_level, unreserved
        while self.walking:
            if self.walk_pos >= self.n_waiting or self.n_unpaired == 0:
                self.walking = False
                return False
            b = self.waiting[self.walk_pos]
            if self.donor_pos == 0 and not self._may_pair(b):
                self.walk_pos += 1
                continue
            if self.donor_pos >= self.n_unpaired:
                self._next_guest()
                continue
            a = self.unpaired[self.donor_pos].idx
            self.donor_pos += 1
            if self.procs[a] - self.guest_procs[a] < self.procs[b] or not self._memory_fits(a, b):
                continue
            if self.strategy == STATIC:
                if self._lost(a, b, 0.5, t) <= self.extra:
                    self._form(a, b, 0.5, t)
                continue
            if self.strategy == HEADROOM:
                # the largest level k/K <= 1 - u_a that is admissible
                k = <int> floor((1.0 - self.efficiency[a]) * self.levels)
                while k >= self.levels or (k > 0 and <double> k / self.levels > 1.0 - self.efficiency[a]):
                    k -= 1
                while k > 0 and self._lost(a, b, <double> k / self.levels, t) > self.extra:
                    k -= 1
                if k > 0:
                    self._form(a, b, <double> k / self.levels, t)
                continue
            # a donor ending after the shadow time loses the reservation nothing
            unreserved = self.estimated_end[a] > self.shadow
            any_level = False
            self.admissible[0] = True
            for k in range(1, self.levels):
                self.admissible[k] = unreserved or self._lost(a, b, <double> k / self.levels, t) <= self.extra
                any_level = any_level or self.admissible[k]
            if not any_level:
                continue
            self.guest_had_case = True
            self.case_donor = a
            self.case_guest = b
            if self.strategy == EXTERNAL:
                return True
            self._apply(self._learner_choice(a, b, t))
        return False

    cdef void _form(self, Py_ssize_t a, Py_ssize_t b, double f, double t) noexcept nogil:
        self.extra -= self._lost(a, b, f, t)
        self._pair(a, b, f, self._donor_rate(a, b, f), t)
        self.walk_pos += 1
        self.donor_pos = 0
        self.guest_had_case = False
        self._donor_bounds()

    cdef void _apply(self, int k) noexcept nogil:
        """The decision of the pending case: level k (0: do not pair)."""
        cdef Py_ssize_t a = self.case_donor, b = self.case_guest
        if self.strategy == EXTERNAL:   # the agent's decisions are logged as the learner's are
            self.cases += 1
            self.loss_sum += self._case_loss(a, b, k, self.now)
            self.histogram[k] += 1
        self.case_donor = -1
        self.case_guest = -1
        if k > 0:
            self._form(a, b, <double> k / self.levels, self.now)
        elif not self.fall_through:      # the ablation: a0 ends this guest's walk over the donors
            self.donor_pos = self.n_unpaired

    # -- the ASAX learner (section 5) ----------------------------------------

    cdef int _state_bins(self, Py_ssize_t a, double t) noexcept nogil:
        """What of donor a's state changes while it runs: 3 x its Hp bin + its phase bin (section
        5.2), both from the estimate the experts read. Hp divides the time left before that
        estimate by the time the donor still needs at its present rate (1 for a candidate donor)."""
        cdef double remaining = self._remaining_at(a, t)
        cdef double e = self.seen_estimate[a], s = self.start[a], left, happiness
        cdef int hp
        if remaining == 0.0:
            hp = 2
        else:
            left = s + e - t
            happiness = (left if left > 0.0 else 0.0) / (remaining / self.rate[a])
            hp = 0 if happiness < 1.0 else (1 if happiness <= 1.1 else 2)
        return 3 * hp + (0 if (t - s) / e < 0.25 else (1 if (t - s) / e < 0.75 else 2))

    cdef void _leaves(self, Py_ssize_t a, double t, int* leaf) noexcept nogil:
        """Each expert's leaf for donor a at t (asax_leaves)."""
        cdef double u = self.efficiency[a], mem = 0.0
        cdef int bins = self._state_bins(a, t)
        if not isnan(self.memory_capacity) and not isnan(self.memory[a]):
            mem = self.memory[a] / self.memory_capacity
        asax_leaves(&self.asax, bins // 3, bins % 3, u, mem, u * self.procs[a] >= 1.5, leaf)

    cdef double _case_loss(self, Py_ssize_t a, Py_ssize_t b, int k, double t) noexcept nogil:
        cdef double f = <double> k / self.levels, paired_rate, late, loss
        if k == 0:
            return 0.0
        paired_rate = self._donor_rate(a, b, f)
        if self.loss == DEGRADATION:
            return degradation(paired_rate)
        if self.loss == HOST_GUEST:
            return 0.5 * (degradation(paired_rate) + degradation(self._guest_rate(a, b, f)))
        late = (t - self.start[a]) + self._remaining_at(a, t) / paired_rate - self.estimate[a]
        loss = (late if late > 0.0 else 0.0) / self.estimate[a]
        return loss if loss < 1.0 else 1.0

    cdef int _learner_choice(self, Py_ssize_t a, Py_ssize_t b, double t) noexcept nogil:
        """The learner's level for the pending case (donor a, guest b): drawn from the mixture
        over the admissible levels, then charged now or, with feedback at completion, held."""
        cdef Learner* learner = asax_learner(&self.asax, a)
        cdef int leaf[N_EXPERTS]
        cdef int chosen
        cdef double mixture
        cdef double probabilities[N_EXPERTS]
        self._leaves(a, t, leaf)
        chosen = asax_draw(&self.asax, learner, leaf, self.admissible, self.rng.next_double(self.rng.state))
        mixture = asax_probabilities(&self.asax, learner, leaf, chosen, probabilities)
        self.cases += 1
        self.histogram[chosen] += 1
        if self.feedback == AT_DECISION:
            self._charge(learner, chosen, mixture, probabilities, self._case_loss(a, b, chosen, t))
        elif chosen > 0:        # a0 costs nothing: there is nothing to observe
            # a guest still waiting has all its work left
            self._hold(b, chosen, mixture, probabilities, t, self._remaining_at(a, t),
                       self.work[b] if self.state[b] == WAITING else self._remaining_at(b, t))
        return chosen

    cdef void _charge(self, Learner* learner, int chosen, double mixture, double* probabilities,
                      double loss) noexcept nogil:
        """A case's loss charged to the experts (asax_charge), logged."""
        self.loss_sum += loss
        if self.log_cases:
            self._log_case(learner.round, chosen, loss, mixture, probabilities)
        if asax_charge(&self.asax, learner, probabilities, loss) and self.scope == 0:
            self._log_alpha()

    cdef void _hold(self, Py_ssize_t b, int chosen, double mixture, double* probabilities, double t,
                    double donor_left, double guest_left) noexcept nogil:
        """Feedback at completion: keep guest b's decision until its pair ends or is re-decided."""
        cdef int i
        self.has_pending[b] = True
        self.pending[b, 0] = chosen
        self.pending[b, 1] = mixture
        self.pending[b, 2] = t
        self.pending[b, 3] = donor_left
        self.pending[b, 4] = guest_left
        for i in range(N_EXPERTS):
            self.pending[b, 5 + i] = probabilities[i]

    cdef void _settle(self, Py_ssize_t a, Py_ssize_t b, double t) noexcept nogil:
        """Charge guest b's held decision with the loss observed on its donor a since it was taken:
        the donor's slowdown over that time (degradation), or its overrun at its present rate
        (walltime; its actual overrun when it has just ended)."""
        cdef Learner* learner = asax_learner(&self.asax, a)
        cdef double elapsed, loss, late
        cdef double probabilities[N_EXPERTS]
        cdef int i
        if self.feedback == AT_DECISION or not self.has_pending[b]:
            return
        self.has_pending[b] = False
        elapsed = t - self.pending[b, 2]
        if self.loss == WALLTIME:
            late = (t - self.start[a]) + self._remaining_at(a, t) / self.rate[a] - self.estimate[a]
            loss = (late if late > 0.0 else 0.0) / self.estimate[a]
            loss = loss if loss < 1.0 else 1.0
        else:
            loss = observed_degradation(elapsed, self.pending[b, 3] - self._remaining_at(a, t))
            if self.loss == HOST_GUEST:
                loss = 0.5 * (loss + observed_degradation(elapsed, self.pending[b, 4] - self._remaining_at(b, t)))
        for i in range(N_EXPERTS):
            probabilities[i] = self.pending[b, 5 + i]
        self._charge(learner, <int> self.pending[b, 0], self.pending[b, 1], probabilities, loss)

    cdef void _log_case(self, double round, int chosen, double loss, double mixture,
                        double* probabilities) noexcept nogil:
        cdef double* row = next_row(&self.case_rows)
        cdef int i
        if row == NULL:
            return
        row[0] = round
        row[1] = chosen
        row[2] = loss
        row[3] = mixture
        for i in range(N_EXPERTS):
            row[4 + i] = probabilities[i]

    cdef void _log_alpha(self) noexcept nogil:
        cdef double* row = next_row(&self.alpha_log)
        cdef int i
        if row == NULL:
            return
        for i in range(N_EXPERTS):
            row[i] = self.asax.shared.alpha[i]

    cdef void _predict(self, Py_ssize_t j, double t) noexcept nogil:
        """The estimate the experts will read of job j, submitted at t: clipped to [1, request]."""
        cdef double e = self.predictor.predict(j, t)
        if not e <= self.estimate[j]:       # also maps NaN to the request
            e = self.estimate[j]
        self.seen_estimate[j] = e if e >= 1.0 else 1.0

    # -- the event loop -------------------------------------------------------

    cdef bint _run(self) noexcept nogil:
        """Run until the end, or until a case needs an external decision."""
        cdef double t
        cdef Py_ssize_t j
        while True:
            if self.walking and self._walk(self.now):
                return True
            t = self._next_instant()
            if t == INFINITY:
                return False
            if self.now > -INFINITY:
                self.busy_area += (self.allocation_unit * (self.capacity - self.free_procs)) * (t - self.now)
            while self.completions.size > 0 and self.completions.items[0].key == t:
                j = heap_pop(&self.completions)
                if self.state[j] == RUNNING and self.completion[j] == t:
                    self._complete(j, t)
            while self.next_submission < self.n and self.submit[self.next_submission] == t:
                j = self.next_submission
                if self.predictor is not None:
                    self._predict(j, t)
                self.state[j] = WAITING
                self.waiting[self.n_waiting] = j
                self.n_waiting += 1
                self.next_submission += 1
            self.now = t
            self._pass(t)
            if self.every_job:
                self._rebalance(t)

    # -- Python interface -----------------------------------------------------

    def release(self):
        """Lend this run's per-job buffers to the next run on as many jobs (read its results first):
        afterwards only `now`, `learner()` and `case_log()` can be read."""
        if not self.released:
            _SPARE.update(self._buffers)
            self._buffers = None
            self.released = True

    cdef int _readable(self) except -1:
        if self.released:
            raise RuntimeError("the run's buffers were released to the next run (release())")
        return 0

    def run(self):
        """Advance; True if paused at a case (external policy), False when done."""
        self._readable()
        with nogil:
            paused = self._run()
        return paused

    def _pending(self):
        self._readable()
        if self.case_donor < 0:
            raise RuntimeError("no case is pending: run() returns True when one is")

    def decide(self, int level):
        """Apply the external decision of the pending case; run() then goes on."""
        self._pending()
        if not 0 <= level < self.levels or not self.admissible[level]:
            valid = [k for k in range(self.levels) if self.admissible[k]]
            raise ValueError(f"level {level} is not admissible here; valid levels: {valid}")
        self._apply(level)

    def case_mask(self):
        """The pending case's admissible levels (level 0, do not pair, always)."""
        self._pending()
        return np.array([bool(self.admissible[k]) for k in range(self.levels)])

    def case_state(self):
        """The pending case as the learner and an agent see it (section 5.2)."""
        self._pending()
        cdef Py_ssize_t a = self.case_donor, b = self.case_guest
        cdef double t = self.now, remaining = self._remaining_at(a, t)
        cdef double left = self.start[a] + self.seen_estimate[a] - t
        known_memory = not isnan(self.memory_capacity) and not isnan(self.memory[a])
        return {
            "time": t,
            "donor": a,
            "guest": b,
            "donor_cpu": self.efficiency[a],
            "donor_memory": self.memory[a] / self.memory_capacity if known_memory else 0.0,
            "donor_sequential": self.efficiency[a] * self.procs[a] < 1.5,
            "donor_phase": (t - self.start[a]) / self.seen_estimate[a],
            "donor_happiness": (max(left, 0.0) / remaining) if remaining > 0 else INFINITY,
            "donor_procs": self.procs[a],
            "donor_estimate": self.estimate[a],
            "guest_procs": self.procs[b],
            "guest_estimate": self.estimate[b],
            "guest_wait": t - self.submit[b],
            "free_procs": self.free_procs,
            "machine_size": self.machine_size,
            "unpaired_running": self.n_unpaired,
            "waiting": self.n_waiting - self.waiting_dead,
            "shadow_in": self.shadow - t,
            "extra": self.extra,
        }

    def case_losses(self):
        """The loss of each level for the pending case (section 5.5)."""
        self._pending()
        return np.array([self._case_loss(self.case_donor, self.case_guest, k, self.now) for k in range(self.levels)])

    def results(self):
        self._readable()
        return {
            "start": np.asarray(self.start).copy(),
            "end": np.asarray(self.end).copy(),
            "donor": np.asarray(self.donor).copy(),
            "quota": np.asarray(self.quota).copy(),
            "reservation": np.asarray(self.reservation).copy(),
            "allocated": np.asarray(self.allocated).copy(),
            "busy_area": self.busy_area,
        }

    def case_log(self):
        """One row per charged learner case (log_cases on): round, level, loss, the mixture's and
        each expert's probability of the level, unrenormalised (section 5.5). With feedback at
        completion a case is logged when it is charged, in the round it is charged to."""
        return log_array(&self.case_rows, "learner's case")

    def learner(self):
        return {
            "alphas": log_array(&self.alpha_log, "learner's weight"),
            "cases": self.cases,
            "redecisions": self.redecisions,
            "quota_changes": self.quota_changes,
            "loss_sum": self.loss_sum,
            "histogram": np.asarray(self.histogram).copy(),
            "state": self.asax.shared,     # Learner's fields as a mapping
        }
