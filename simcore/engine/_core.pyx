# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""The event loop of the simulator: EASY-family scheduling (SEMANTICS §2-6).

Everything inside `Simulation.run_until` is C: sorted arrays and binary heaps
over job positions, no Python object touched per event. The Python-facing
wrapper with validation and metrics is simcore/engine/simulation.py. The queue
orders (_orders.pxd) and the predictors (_predictor.pxd) are other extension
modules, called through function pointers and the Predictor vtable. The
attributes of Jobs and Simulation are declared in _core.pxd, so that job
selection's kernel (_selection.pyx: its observation, rewards and vector step)
drives the selection mode below from its own module.
"""

import numpy as np

from simcore.engine._orders import ORDER_NAMES

from libc.math cimport INFINITY, NAN, isfinite, isnan
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memmove

from simcore.engine._checks cimport (
    check_lengths, check_machine_size, check_procs, check_submit, copy_doubles,
)
from simcore.engine._classes cimport (
    Classes, classes_add, classes_clear, classes_free, classes_init, classes_remove,
)
from simcore.engine._fairshare cimport (
    MULTIFACTOR_PARAMS, fairshare_completed, fairshare_compute, fairshare_copy, fairshare_factor,
    fairshare_free, fairshare_init, fairshare_priority, fairshare_reset, fairshare_started,
)
from simcore.engine._orders cimport (
    CLASS_RANK_OLDEST_FIRST, CLASS_RANK_UNKNOWN, FUNCTION_PARAMS, order_entry,
)
from simcore.engine._sorted cimport (
    Entry, compare_entries, entry_less, heap_pop, heap_push, sorted_insert, sorted_remove,
)
from simcore.engine._predictor cimport Predictor

CORRECTION_NAMES = ("request", "incremental", "doubling")
cdef enum Correction:
    CORRECT_REQUEST = 0
    CORRECT_INCREMENTAL = 1
    CORRECT_DOUBLING = 2

# Tsafrir et al.'s increments for the `incremental` correction (seconds).
cdef double INCREMENTS[11]
INCREMENTS[:] = [60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0,
                 36000.0, 72000.0, 180000.0, 360000.0]

cdef enum:
    BACKFILL_NONE_CODE = -2
    BACKFILL_QUEUE_CODE = -1
BACKFILL_NONE = BACKFILL_NONE_CODE
BACKFILL_QUEUE = BACKFILL_QUEUE_CODE

# The order whose keys come from the fair-share state (_fairshare.pxd), not a key function
cdef int MULTIFACTOR_CODE = ORDER_NAMES.index("MULTIFACTOR")


# Moves the insertion sort of a dynamic order's list (Simulation._resort)
# may spend per entry before it gives up for qsort: between two passes most
# waiting jobs keep their place or move a few places, while a burst of
# submissions (appended at the end, each moving across the queue) or a long
# time without a pass reorders it at random, which qsort sorts faster.
cdef enum:
    INSERTION_MOVES_PER_ENTRY = 8


# Waiting jobs per class (in the mean) from which a pass without backfilling
# walks a dynamic order's classes (_pass_by_class) rather than re-sorting its
# list: a class costs about twice what a job costs in the re-sort (a heap
# entry, jobs in no memory order; benchmarks/bench_dynamic_orders.py), and the
# classes are kept up to date either way.
cdef enum:
    CLASS_WALK_JOBS_PER_CLASS = 2


cdef object _read_only(double[::1] values):
    """A read-only NumPy view of a simulation's per-job array."""
    view = np.asarray(values)
    view.flags.writeable = False
    return view


cdef class Jobs:
    """A workload's job arrays as the event loop reads them: validated once
    here, in O(n), and copied into memory this object owns, so that the hot
    loop can trust every value (no bounds checks) and the caller cannot change
    them under a running simulation. Simulations share one Jobs (job
    selection's episodes), each keeping it alive.

    run is the time a job actually runs, min(p_j, p~_j); user a dense index in
    [0, n_users). Raises ValueError naming the array and the position.
    """

    def __cinit__(self, const double[::1] submit, const double[::1] run,
                  const double[::1] requested, const long long[::1] procs,
                  const int[::1] user, int n_users, long long machine_size):
        cdef Py_ssize_t n = submit.shape[0], j
        check_lengths(n, (("run", run), ("requested", requested), ("procs", procs), ("user", user)))
        check_machine_size(machine_size)
        if n_users < 1:
            raise ValueError(f"n_users must be >= 1, got {n_users}")
        for j in range(n):
            check_submit(submit, j)
            if not (isfinite(run[j]) and run[j] >= 0.0):
                raise ValueError(f"job {j}: run time {run[j]} must be finite and >= 0")
            # an estimate is at most the request: a run beyond it would be
            # corrected at the same instant forever
            if not (isfinite(requested[j]) and requested[j] >= run[j]):
                raise ValueError(f"job {j}: requested time {requested[j]} must be finite "
                                 f"and >= its run time {run[j]}")
            check_procs(procs, j, machine_size)
            if not 0 <= user[j] < n_users:
                raise ValueError(f"job {j}: user index {user[j]} must be in [0, {n_users})")
        self.machine_size = machine_size
        self.arrays.n = n
        self.arrays.n_users = n_users
        cdef size_t count = n if n > 0 else 1
        self.arrays.submit = copy_doubles(submit)
        self.arrays.run = copy_doubles(run)
        self.arrays.requested = copy_doubles(requested)
        cdef long long* own_procs = <long long*> malloc(count * sizeof(long long))
        cdef int* own_user = <int*> malloc(count * sizeof(int))
        self.arrays.procs = own_procs
        self.arrays.user = own_user
        if own_procs == NULL or own_user == NULL:
            raise MemoryError()
        for j in range(n):
            own_procs[j] = procs[j]
            own_user[j] = user[j]

    def __dealloc__(self):
        free(<void*> self.arrays.submit)
        free(<void*> self.arrays.run)
        free(<void*> self.arrays.requested)
        free(<void*> self.arrays.procs)
        free(<void*> self.arrays.user)

    def __len__(self):
        return self.arrays.n


cdef int _check_order(int code, str what) except -1:
    if not 0 <= code < len(ORDER_NAMES):
        raise ValueError(f"{what} code {code} is not a queue order: "
                         f"allowed are 0 to {len(ORDER_NAMES) - 1} ({', '.join(ORDER_NAMES)})")
    return 0


cdef int _check_function(list params, int order, int backfill) except -1:
    """A FUNCTION order needs the priority function's FUNCTION_PARAMS numbers:
    φ codes in [0, 3], op codes in [0, 2] (simcore/engine/_orders.pyx), θ finite."""
    if params is None:
        if ORDER_NAMES.index("FUNCTION") in (order, backfill):
            raise ValueError("the order FUNCTION needs a priority function's parameters")
        return 0
    if len(params) != FUNCTION_PARAMS:
        raise ValueError(f"a priority function has {FUNCTION_PARAMS} "
                         f"parameters, got {len(params)}")
    for k, top in enumerate((3, 3, 3, 2, 2)):
        if params[k] not in range(top + 1):
            raise ValueError(f"priority function parameter {k} is {params[k]}, "
                             f"a code in 0 to {top}")
    for k in range(5, FUNCTION_PARAMS):
        if not isfinite(params[k]):
            raise ValueError(f"priority function coefficient {k - 4} is {params[k]}, "
                             "not a finite number")
    return 0


cdef tuple _check_multifactor(multifactor, int order, int backfill):
    """The MULTIFACTOR parameters as MULTIFACTOR_PARAMS floats (weights of
    age, fair share and size >= 0, MaxAge > 0, half-life > 0, calc period
    >= 0, favor_small 0 or 1; simcore/engine/priority.py names them), or None."""
    if multifactor is None:
        if MULTIFACTOR_CODE in (order, backfill):
            raise ValueError("the order MULTIFACTOR needs its parameters (multifactor)")
        return None
    params = tuple(float(x) for x in multifactor)
    if len(params) != MULTIFACTOR_PARAMS:
        raise ValueError(f"multifactor has {MULTIFACTOR_PARAMS} parameters, got {len(params)}")
    for k, (value, least, strict) in enumerate(zip(params, (0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 1, 1, 0, 0))):
        if not (isfinite(value) and (value > least if strict else value >= least)):
            raise ValueError(f"multifactor parameter {k} is {value}: "
                             f"a finite number {'>' if strict else '>='} {least}")
    if params[6] not in (0.0, 1.0):
        raise ValueError(f"multifactor parameter 6 (favor_small) is {params[6]}: 0 or 1")
    return params


cdef class Simulation:
    """One EASY-family simulation over a workload, run in segments.

    Use simcore.engine.simulation.Simulation (which validates the workload
    with a friendlier message) rather than this class directly. Every
    argument is checked here too, and all memory is allocated here, once.
    """

    def __cinit__(self, Jobs jobs not None, int order, threshold, int backfill,
                  Predictor predictor not None, int correction, function=None,
                  Py_ssize_t episode_jobs=-1, Simulation fork_of=None,
                  Py_ssize_t reservations=1, bint profile_walk=False, multifactor=None):
        """episode_jobs >= 0: simulate episodes of that many consecutive jobs
        of the arrays, the first one from position 0 (see _restart).
        fork_of: set by fork() alone, which gives the copy of fork_of's
        predictor and then copies fork_of's state in. reservations: the
        reservation depth (docs/semantics.md, "Reservation depth"), -1 for all
        (conservative). profile_walk: depth 1 by the depth's walk over the
        profile instead of EASY's shadow time and extra processors, slower and
        equal to it (the tests check that it is). multifactor: the order
        MULTIFACTOR's MULTIFACTOR_PARAMS parameters (_check_multifactor);
        given, the fair-share state is kept from the first instant, whatever
        the order in force (a period switch may bring MULTIFACTOR in)."""
        cdef Py_ssize_t n = jobs.arrays.n
        if not -1 <= episode_jobs <= n:
            raise ValueError(f"episodes of {episode_jobs} jobs in a workload of {n}: "
                             f"allowed are 0 to {n}, or -1 for the whole workload")
        _check_order(order, "queue order")
        if backfill != BACKFILL_NONE_CODE and backfill != BACKFILL_QUEUE_CODE:
            _check_order(backfill, f"backfill (or {BACKFILL_NONE_CODE}: none, "
                                   f"{BACKFILL_QUEUE_CODE}: queue order)")
        if reservations < -1:
            raise ValueError(f"reservations {reservations}: a depth >= 0, or -1 for all")
        if reservations == 0 and backfill >= 0:
            raise ValueError("reservations 0 is no backfilling: the backfill must be the queue "
                             "order or none, not another order")
        if (reservations >= 2 or reservations == -1) and backfill != BACKFILL_QUEUE_CODE:
            raise ValueError(f"reservations {'all' if reservations == -1 else reservations}: a depth "
                             "of 2 or more backfills in the queue order (backfill 'queue')")
        if profile_walk and (reservations != 1 or backfill != BACKFILL_QUEUE_CODE):
            raise ValueError("profile_walk runs EASY (reservations 1, backfill 'queue') by the depth's walk")
        if reservations == 0:
            backfill = BACKFILL_NONE_CODE
        if not 0 <= correction < len(CORRECTION_NAMES):
            raise ValueError(f"correction code {correction} is not in 0 to "
                             f"{len(CORRECTION_NAMES) - 1} ({', '.join(CORRECTION_NAMES)})")
        if threshold is not None and not (isfinite(threshold) and threshold >= 0.0):
            raise ValueError(f"threshold must be None or a finite number >= 0, got {threshold}")
        params = None if function is None else [float(x) for x in function]
        _check_function(params, order, backfill)
        cdef double multifactor_params[MULTIFACTOR_PARAMS]
        checked = _check_multifactor(multifactor, order, backfill)
        if predictor.owner != 0:
            raise ValueError(
                f"{predictor!r} is driving another simulation that has not finished; "
                "give each simulation run at the same time its own predictor instance")
        self.owner = jobs
        self.given = jobs.arrays
        if episode_jobs >= 0:
            n = episode_jobs
        self.n = n
        self.jobs = self.given
        self.jobs.n = n
        self.machine_size = jobs.machine_size
        self.free_procs = jobs.machine_size
        self.order = order
        self.backfill = backfill
        self.correction = correction
        self.has_function = params is not None
        if params is not None:
            for k in range(FUNCTION_PARAMS):
                self.function[k] = params[k]
        self.has_threshold = threshold is not None
        self.threshold = threshold if threshold is not None else INFINITY
        self.now = -INFINITY
        self.head = -1
        self.depth = n + 1 if reservations == -1 else reservations
        self.profile_walk = profile_walk or self.depth >= 2
        if self.profile_walk:
            self.profile_times = <double*> malloc((2 * n + 2) * sizeof(double))
            self.profile_free = <long long*> malloc((2 * n + 2) * sizeof(long long))
            self.stair_times = <double*> malloc((2 * n + 2) * sizeof(double))
            self.stair_levels = <long long*> malloc((2 * n + 2) * sizeof(long long))
            if (self.profile_times == NULL or self.profile_free == NULL or self.stair_times == NULL
                    or self.stair_levels == NULL):
                raise MemoryError()
        if checked is not None:
            for k in range(MULTIFACTOR_PARAMS):
                multifactor_params[k] = checked[k]
            self.has_multifactor = True
            if not fairshare_init(&self.fair_share, multifactor_params, jobs.arrays.n_users,
                                  <double> jobs.machine_size):
                raise MemoryError()
        self.borrowed = []
        self._allocate_per_job()
        if fork_of is None:
            self._fill_unsubmitted(0)
        cdef size_t capacity = (n if n > 0 else 1) * sizeof(Entry)
        self.running = <Entry*> malloc(capacity)
        self.completions.items = <Entry*> malloc(capacity)
        self.expiries.items = <Entry*> malloc(capacity)
        for k in range(3):
            self.lists[k].items = <Entry*> malloc(capacity)
            if self.lists[k].items == NULL:
                raise MemoryError()
        if (self.running == NULL or self.completions.items == NULL
                or self.expiries.items == NULL):
            raise MemoryError()
        if fork_of is None:
            predictor.bind(self.jobs)
        self.predictor = predictor
        predictor.owner = <size_t> <void*> self
        self._set_order(&self.lists[0], 0)     # FCFS
        self._configure_lists()

    def __dealloc__(self):
        self._release_predictor()
        free(self.running)
        free(self.completions.items)
        free(self.expiries.items)
        for k in range(3):
            free(self.lists[k].items)
        classes_free(&self.classes)
        free(self.class_firsts.items)
        free(self.profile_times)
        free(self.profile_free)
        free(self.stair_times)
        free(self.stair_levels)
        fairshare_free(&self.fair_share)

    # -- waiting lists -------------------------------------------------------

    cdef int _set_order(self, WaitList* wl, int order) except -1:
        """Give wl the order's key (checked: MULTIFACTOR needs its parameters)."""
        if order == MULTIFACTOR_CODE and not self.has_multifactor:
            raise ValueError("the order MULTIFACTOR needs its parameters, given when the "
                             "simulation is made (multifactor)")
        order_entry(order, &wl.key, &wl.dynamic, &wl.class_rank)
        wl.order = order
        wl.multifactor = order == MULTIFACTOR_CODE
        return 0

    cdef int _list_for(self, int order) except -1:
        """The list holding `order`, creating it (filled, sorted) if needed."""
        cdef int k
        for k in range(self.n_lists):
            if self.lists[k].order == order:
                return k
        k = self.n_lists
        self._set_order(&self.lists[k], order)
        self.n_lists += 1
        self.lists[k].size = 0
        self.lists[k].dead = 0
        self.lists[k].sorted_at = NAN
        cdef WaitList* fcfs = &self.lists[0]
        cdef WaitList* wl = &self.lists[k]
        cdef Py_ssize_t i, j
        for i in range(fcfs.size):
            j = fcfs.items[i].idx
            if self.state[j] == WAITING:
                wl.items[wl.size].key = self._key(wl, j, self.now)
                wl.items[wl.size].idx = j
                wl.size += 1
        qsort(wl.items, wl.size, sizeof(Entry), compare_entries)
        return k

    cdef int _configure_lists(self) except -1:
        self._compact(&self.lists[0])
        self.n_lists = 1
        self.queue_list = self._list_for(self.order)
        self.backfill_list = (self._list_for(self.backfill) if self.backfill >= 0
                              else -1)
        return 0

    cdef int _check_restart(self, Py_ssize_t first) except -1:
        if not 0 <= first <= self.given.n - self.n:
            raise ValueError(f"an episode of {self.n} jobs cannot start at "
                             f"position {first} of {self.given.n}")
        return 0

    cdef int _restart(self, Py_ssize_t first) except -1:
        """Start over, with nothing submitted, on the episode of jobs
        [first, first + n) of the given arrays (first checked by
        _check_restart): the state a new Simulation of that slice has, without
        allocating one (the job selection vector env resets its episodes this
        way)."""
        cdef int k
        self.jobs.submit = self.given.submit + first
        self.jobs.run = self.given.run + first
        self.jobs.requested = self.given.requested + first
        self.jobs.procs = self.given.procs + first
        self.jobs.user = self.given.user + first
        self.predictor.bind(self.jobs)
        self.predictor.owner = <size_t> <void*> self
        self.free_procs = self.machine_size
        self.n_done = 0
        self.next_submission = 0
        self.now = -INFINITY
        self.head = -1
        self.pass_open = self.head_passed = False
        self.n_waiting = 0
        self.passes = self.passes_by_class = 0
        self.reservations_made = self.jobs_reserved = 0
        if self.has_multifactor:
            fairshare_reset(&self.fair_share)
        self.n_running = 0
        self.by_class = False
        self.completions.size = 0
        self.expiries.size = 0
        if self.lent:       # a fork reads these arrays: leave them to it
            self._allocate_per_job()
            self.lent = False
        self._fill_unsubmitted(0)
        self.own_from = 0
        self.borrowed = []
        self.future_unset = False
        for k in range(self.n_lists):
            self.lists[k].size = 0
            self.lists[k].dead = 0
            self.lists[k].sorted_at = NAN
        self._configure_lists()
        return 0

    cdef inline double _key(self, const WaitList* wl, Py_ssize_t j,
                            double t) noexcept nogil:
        cdef double key
        if wl.multifactor:      # highest priority first
            return -fairshare_priority(&self.fair_share, self.jobs.submit[j], self.jobs.procs[j],
                                       self.jobs.user[j])
        key = wl.key(t, self.jobs.submit[j], self.estimate[j], <double> self.jobs.procs[j],
                     self.function)
        return INFINITY if key != key else key

    cdef void _compact(self, WaitList* wl) noexcept nogil:
        cdef Py_ssize_t i, kept = 0
        for i in range(wl.size):
            if self.state[wl.items[i].idx] == WAITING:
                wl.items[kept] = wl.items[i]
                kept += 1
        wl.size = kept
        wl.dead = 0

    cdef void _prepare(self, WaitList* wl, double t) noexcept nogil:
        """Make a list ready to walk at instant t."""
        if wl.dynamic:
            if wl.sorted_at == t or (wl.multifactor and not isnan(wl.sorted_at)):
                return      # already sorted for this instant; dead entries are skipped
            self._resort(wl, t)
            wl.sorted_at = t
        elif 2 * wl.dead > wl.size:
            self._compact(wl)

    cdef void _resort(self, WaitList* wl, double t) noexcept nogil:
        """Sort a dynamic order's list by (key at t, position), the order
        qsort with compare_entries gives (a total order: positions are
        distinct), dropping its started jobs. One sweep computes each waiting
        job's key and inserts it into the sorted prefix before it: O(size)
        when the list is still nearly in its previous order."""
        cdef Entry* items = wl.items
        cdef Py_ssize_t i, j, place, kept = 0, moves = 0
        cdef Py_ssize_t budget = INSERTION_MOVES_PER_ENTRY * wl.size
        cdef bint inserting = True
        cdef double key
        for i in range(wl.size):
            j = items[i].idx
            if self.state[j] != WAITING:
                continue
            key = self._key(wl, j, t)
            place = kept
            if inserting:
                # items[kept..i] are read already: shifting into them is safe
                while place > 0 and entry_less(key, j, items[place - 1].key,
                                               items[place - 1].idx):
                    items[place] = items[place - 1]
                    place -= 1
                moves += kept - place
                inserting = moves <= budget
            items[place].key = key
            items[place].idx = j
            kept += 1
        wl.size = kept
        wl.dead = 0
        if not inserting:
            qsort(items, kept, sizeof(Entry), compare_entries)

    cdef void _enqueue(self, Py_ssize_t j, double t) noexcept nogil:
        cdef int k
        cdef WaitList* wl
        for k in range(self.n_lists):
            wl = &self.lists[k]
            if wl.dynamic:
                wl.items[wl.size].idx = j
                wl.size += 1
                wl.sorted_at = NAN
            else:
                sorted_insert(wl.items, &wl.size, self._key(wl, j, t), j)

    # -- the queue walk ------------------------------------------------------

    cdef inline bint _over_threshold(self, Py_ssize_t j, double t) noexcept nogil:
        # w_j = t - r_j compared with the threshold exactly as written: the
        # rearranged r_j < t - threshold rounds differently.
        return self.has_threshold and (t - self.jobs.submit[j]) > self.threshold

    cdef void _open_queue(self, QueueCursor* c, double t) noexcept nogil:
        """Ready the lists for a pass at t and point c at the queue's start."""
        self._prepare(&self.lists[0], t)
        self._prepare(&self.lists[self.queue_list], t)
        c.in_prefix = self.has_threshold
        c.pos = 0
        c.t = t
        c.queue = &self.lists[self.queue_list]

    cdef inline Py_ssize_t _next_in_queue(self, QueueCursor* c) noexcept nogil:
        cdef WaitList* fcfs = &self.lists[0]
        cdef WaitList* wl = c.queue
        cdef Py_ssize_t j
        while c.in_prefix:
            if c.pos >= fcfs.size:
                c.in_prefix = False
                c.pos = 0
                break
            j = fcfs.items[c.pos].idx
            if self.state[j] != WAITING:
                c.pos += 1
            elif self._over_threshold(j, c.t):
                c.pos += 1
                return j
            else:
                c.in_prefix = False
                c.pos = 0
        while c.pos < wl.size:
            j = wl.items[c.pos].idx
            c.pos += 1
            if self.state[j] == WAITING and not self._over_threshold(j, c.t):
                return j
        return -1

    # -- job life cycle ------------------------------------------------------

    cdef void _start(self, Py_ssize_t j, double t, bint backfilled) noexcept nogil:
        cdef int k
        self.state[j] = RUNNING
        self.start[j] = t
        self.end[j] = t + self.jobs.run[j]
        self.estimated_end[j] = t + self.estimate[j]
        self.backfilled[j] = backfilled
        self.order_at_start[j] = self.order
        self.free_procs -= self.jobs.procs[j]
        self.n_waiting -= 1
        sorted_insert(self.running, &self.n_running, self.estimated_end[j], j)
        heap_push(&self.completions, self.end[j], j)
        self.predictor.started(j, t)
        if self.end[j] > self.estimated_end[j]:
            heap_push(&self.expiries, self.estimated_end[j], j)
        for k in range(self.n_lists):
            self.lists[k].dead += 1
        if self.by_class:
            classes_remove(&self.classes, j, self.jobs.submit)
        if self.has_multifactor:
            fairshare_started(&self.fair_share, self.jobs.user[j], self.jobs.procs[j], t)

    cdef void _complete(self, Py_ssize_t j, double t) noexcept nogil:
        self.state[j] = DONE
        self.free_procs += self.jobs.procs[j]
        sorted_remove(self.running, &self.n_running, self.estimated_end[j], j)
        self.n_done += 1
        self.predictor.learn(j, t)
        if self.has_multifactor:
            fairshare_completed(&self.fair_share, self.jobs.user[j], self.jobs.procs[j],
                                self.start[j], t)

    cdef void _correct(self, Py_ssize_t j, double t) noexcept nogil:
        """The estimate of running job j expired at t (under-prediction)."""
        cdef double requested = self.jobs.requested[j]
        cdef double corrected
        cdef int k
        self.corrections[j] += 1
        k = self.corrections[j]
        if self.correction == CORRECT_INCREMENTAL and k <= 11:
            corrected = self.initial_estimate[j] + INCREMENTS[k - 1]
        elif self.correction == CORRECT_DOUBLING:
            corrected = 2.0 * (t - self.start[j])
        else:
            corrected = requested
        if corrected > requested:
            corrected = requested
        sorted_remove(self.running, &self.n_running, self.estimated_end[j], j)
        self.estimate[j] = corrected
        self.estimated_end[j] = self.start[j] + corrected
        sorted_insert(self.running, &self.n_running, self.estimated_end[j], j)
        if self.end[j] > self.estimated_end[j]:
            heap_push(&self.expiries, self.estimated_end[j], j)

    cdef void _submit(self, Py_ssize_t j, double t) noexcept nogil:
        cdef double e = self.predictor.predict(j, t)
        cdef double requested = self.jobs.requested[j]
        if not e <= requested:      # also maps NaN to the request
            e = requested
        if e < 1.0:
            e = 1.0
        self.estimate[j] = e
        self.initial_estimate[j] = e
        if self.future_unset:
            # the rest of j's values as _fill_unsubmitted sets them: a fork's
            # arrays hold nothing for the jobs it has not submitted yet
            self.estimated_end[j] = 0.0
            self.start[j] = self.end[j] = self.reservation[j] = NAN
            self.order_at_start[j] = -1
            self.backfilled[j] = 0
            self.corrections[j] = 0
        self.state[j] = WAITING
        self.n_waiting += 1
        self._enqueue(j, t)
        if self.by_class and not classes_add(&self.classes, j, e, self.jobs.procs[j],
                                             self.jobs.submit):
            self.by_class = False       # out of memory: back to re-sorting

    cdef void _compute_priorities(self, double t) noexcept nogil:
        """MULTIFACTOR's factors of instant t: its lists must be sorted again."""
        cdef int k
        fairshare_compute(&self.fair_share, t)
        for k in range(self.n_lists):
            if self.lists[k].multifactor:
                self.lists[k].sorted_at = NAN

    # -- one scheduling pass (SEMANTICS §4) ----------------------------------

    cdef void _pass(self, double t) noexcept nogil:
        cdef QueueCursor cursor
        cdef Py_ssize_t j, h = -1
        cdef long long extra
        cdef double shadow
        if self.free_procs == 0:
            return      # nothing can start: every job needs a processor
        self.passes += 1
        if self.profile_walk:
            self._pass_reserving(t)
            return
        if (self.backfill == BACKFILL_NONE_CODE
                and self.lists[self.queue_list].class_rank != CLASS_RANK_UNKNOWN
                and self._walk_classes()
                and CLASS_WALK_JOBS_PER_CLASS * self.classes.n_active <= self.n_waiting):
            self.passes_by_class += 1
            self._pass_by_class(t, &self.lists[self.queue_list])
            return
        self._open_queue(&cursor, t)
        # 1. start jobs in queue order while they fit
        while True:
            j = self._next_in_queue(&cursor)
            if j < 0:
                return
            if self.jobs.procs[j] <= self.free_procs:
                self._start(j, t, False)
            else:
                h = j
                break
        if self.backfill == BACKFILL_NONE_CODE:
            return
        # 2. the head's reservation: shadow time and extra processors
        shadow = self._reserve(h, &extra)
        # 3. backfill without delaying the reservation
        if self.backfill == BACKFILL_QUEUE_CODE:
            while self.free_procs > 0:
                j = self._next_in_queue(&cursor)
                if j < 0:
                    break
                self._try_backfill(j, t, shadow, &extra)
        else:
            self._backfill_list(&self.lists[self.backfill_list], h, t, shadow, &extra)

    cdef bint _walk_classes(self) noexcept nogil:
        """Keep the waiting jobs by class from now on (True), unless memory is
        short (False: the pass re-sorts its list)."""
        cdef WaitList* fcfs = &self.lists[0]
        cdef Py_ssize_t i, j
        if self.by_class:
            return True
        if self.classes.of == NULL:
            if not classes_init(&self.classes, self.n):
                return False
            self.class_firsts.items = <Entry*> malloc(self.n * sizeof(Entry))
        if self.class_firsts.items == NULL:
            return False
        classes_clear(&self.classes)
        for i in range(fcfs.size):      # by (submission, position): position order
            j = fcfs.items[i].idx
            if self.state[j] == WAITING and not classes_add(
                    &self.classes, j, self.estimate[j], self.jobs.procs[j], self.jobs.submit):
                return False
        self.by_class = True
        return True

    cdef void _push_class_first(self, WaitList* wl, Py_ssize_t k, double t) noexcept nogil:
        """Add class k's first job in wl's order at t to this pass's candidates."""
        cdef Classes* c = &self.classes
        cdef Py_ssize_t j, before
        cdef double key
        if wl.class_rank == CLASS_RANK_OLDEST_FIRST:
            j = c.first[k]
            key = self._key(wl, j, t)
        else:
            # newest first: the first job of the newest instant, or an older
            # one whose key rounds to the same value (ties go to the position)
            j = c.newest_first[k]
            key = self._key(wl, j, t)
            before = c.prev[j]
            while before >= 0 and self._key(wl, before, t) == key:
                j = before
                before = c.prev[j]
        heap_push(&self.class_firsts, key, j)

    cdef void _pass_by_class(self, double t, WaitList* wl) noexcept nogil:
        """Step 1 of a pass without backfilling, as _pass does it, for an order
        that ranks classes: the jobs over the threshold in position order, then
        the best of the classes' first jobs, while they fit."""
        cdef WaitList* fcfs = &self.lists[0]
        cdef Py_ssize_t i, j, k
        self._prepare(fcfs, t)
        if self.has_threshold:
            for i in range(fcfs.size):
                j = fcfs.items[i].idx
                if self.state[j] != WAITING:
                    continue
                if not self._over_threshold(j, t):
                    break       # the rest of the queue is under the threshold too
                if self.jobs.procs[j] > self.free_procs:
                    return
                self._start(j, t, False)
        self.class_firsts.size = 0
        for k in range(self.classes.n_active):
            self._push_class_first(wl, self.classes.active[k], t)
        while self.class_firsts.size > 0:
            j = self.class_firsts.items[0].idx
            if self.jobs.procs[j] > self.free_procs:
                return
            heap_pop(&self.class_firsts)
            k = self.classes.of[j]
            self._start(j, t, False)
            if self.classes.first[k] >= 0:
                self._push_class_first(wl, k, t)

    cdef double _reserve(self, Py_ssize_t h, long long* extra) noexcept nogil:
        """The blocked head h's shadow time (returned, and kept as its first
        reservation) and the extra processors at that time."""
        cdef long long q_h = self.jobs.procs[h]
        cdef long long available = self.free_procs
        cdef Py_ssize_t i = 0
        cdef double shadow
        while available < q_h:
            available += self.jobs.procs[self.running[i].idx]
            i += 1
        shadow = self.running[i - 1].key
        while i < self.n_running and self.running[i].key == shadow:
            available += self.jobs.procs[self.running[i].idx]
            i += 1
        extra[0] = available - q_h
        self.reservations_made += 1
        if isnan(self.reservation[h]):
            self.reservation[h] = shadow
            self.jobs_reserved += 1
        return shadow

    cdef void _backfill_list(self, WaitList* wl, Py_ssize_t h, double t, double shadow,
                             long long* extra) noexcept nogil:
        """Backfill the waiting jobs but h in the order of list wl."""
        cdef Py_ssize_t i = 0, j
        self._prepare(wl, t)
        while self.free_procs > 0 and i < wl.size:
            j = wl.items[i].idx
            i += 1
            if j != h and self.state[j] == WAITING:
                self._try_backfill(j, t, shadow, extra)

    cdef inline void _try_backfill(self, Py_ssize_t j, double t, double shadow,
                                   long long* extra) noexcept nogil:
        cdef long long q = self.jobs.procs[j]
        cdef bint ends_after_shadow
        if q > self.free_procs:
            return
        ends_after_shadow = t + self.estimate[j] > shadow
        if ends_after_shadow and q > extra[0]:
            return
        self._start(j, t, True)
        if ends_after_shadow:
            extra[0] -= q

    # -- reservation depth (docs/semantics.md, "Reservation depth") --------

    cdef void _pass_reserving(self, double t) noexcept nogil:
        """One pass with up to `depth` reservations: the queue walked once in
        queue order (the threshold's prefix first), each job started at t if
        the profile lets it run from t for its estimate, else given a
        reservation at its anchor while fewer than `depth` are made."""
        cdef QueueCursor cursor
        cdef Py_ssize_t j, k, made = 0
        cdef long long q
        cdef double e, anchor
        if self.n_waiting == 0:
            return
        # the profile holds [t, inf) only: running jobs' ends are merged as
        # the walk looks further (_merge_next_end)
        self.profile_times[0] = t
        self.profile_free[0] = self.free_procs
        self.profile_size = 1
        self.profile_merged = 0
        self.stair_size = self.stair_scanned = 0
        self._open_queue(&cursor, t)
        # no processor free now and a reservation held: nothing else can start
        # in this pass, and its reservations end with it
        while self.profile_free[0] > 0 or made == 0:
            j = self._next_in_queue(&cursor)
            if j < 0:
                return
            q = self.jobs.procs[j]
            e = self.estimate[j]
            if q <= self.profile_free[0] and self._fits_now(q, e):
                self._take_started(t + e, q)
                self._start(j, t, made > 0)
            elif made < self.depth:
                k = self._anchor(q, e)
                anchor = self.profile_times[k]
                self._take_profile(k, anchor + e, q)
                made += 1
                self.reservations_made += 1
                if isnan(self.reservation[j]):
                    self.reservation[j] = anchor
                    self.jobs_reserved += 1

    cdef inline void _merge_next_end(self) noexcept nogil:
        """Add the running jobs of the next unmerged estimated end to the
        profile, as its new last segment (every unmerged end is after the
        profile's last segment start)."""
        cdef Py_ssize_t last = self.profile_size
        cdef double at = self.running[self.profile_merged].key
        self.profile_times[last] = at
        self.profile_free[last] = self.profile_free[last - 1]
        self.profile_size += 1
        while self.profile_merged < self.n_running and self.running[self.profile_merged].key == at:
            self.profile_free[last] += self.jobs.procs[self.running[self.profile_merged].idx]
            self.profile_merged += 1

    cdef Py_ssize_t _anchor(self, long long q, double e) noexcept nogil:
        """The segment of the earliest start after the profile's start from which it has q
        processors free for e seconds (the caller knows the job does not fit
        at the start): a segment's start (the profile is constant between).
        Free processors only grow after the last segment's start, so the
        profile is merged until that segment has q; then the answer exists."""
        cdef Py_ssize_t k = 1, later
        cdef double begin
        while self.profile_free[self.profile_size - 1] < q:
            self._merge_next_end()
        while True:
            if self.profile_free[k] < q:
                k += 1
                continue
            begin = self.profile_times[k]
            later = k + 1
            while (later < self.profile_size and self.profile_times[later] < begin + e
                   and self.profile_free[later] >= q):
                later += 1
            if later == self.profile_size or self.profile_times[later] >= begin + e:
                return k
            k = later + 1       # segment `later` is short of processors

    cdef inline bint _fits_now(self, long long q, double e) noexcept nogil:
        """Whether q processors (at most those free now) are free on [t, t + e):
        the first level of the staircase below q must begin at t + e or
        later. Unmerged ends only add processors after the last segment."""
        cdef double stop = self.profile_times[0] + e
        cdef Py_ssize_t k = 0, segment
        while True:
            while k < self.stair_size:
                if self.stair_levels[k] < q:
                    return self.stair_times[k] >= stop
                k += 1
            # the staircase is known up to here: extend it by one segment
            segment = self.stair_scanned
            if segment == self.profile_size or self.profile_times[segment] >= stop:
                return True
            self.stair_scanned += 1
            if self.stair_size == 0 or self.profile_free[segment] < self.stair_levels[self.stair_size - 1]:
                self.stair_times[self.stair_size] = self.profile_times[segment]
                self.stair_levels[self.stair_size] = self.profile_free[segment]
                self.stair_size += 1

    cdef Py_ssize_t _split_profile(self, Py_ssize_t low, double at) noexcept nogil:
        """The segment that starts at `at` (>= segment low's start), split
        from the one containing it if needed."""
        cdef Py_ssize_t high = self.profile_size, middle, moved
        while high - low > 1:
            middle = (low + high) >> 1
            if self.profile_times[middle] <= at:
                low = middle
            else:
                high = middle
        if self.profile_times[low] == at:
            return low
        moved = self.profile_size - low - 1
        memmove(&self.profile_times[low + 2], &self.profile_times[low + 1], moved * sizeof(double))
        memmove(&self.profile_free[low + 2], &self.profile_free[low + 1], moved * sizeof(long long))
        self.profile_times[low + 1] = at
        self.profile_free[low + 1] = self.profile_free[low]
        self.profile_size += 1
        return low + 1

    cdef void _take_profile(self, Py_ssize_t first, double stop, long long q) noexcept nogil:
        """q processors fewer from segment first's start to stop, the ends up
        to stop merged first (they come after every segment: first stays)."""
        cdef Py_ssize_t last, k
        while (self.profile_merged < self.n_running
               and self.running[self.profile_merged].key <= stop):
            self._merge_next_end()
        last = self._split_profile(first, stop)
        for k in range(first, last):
            self.profile_free[k] -= q
        self._forget_stairs(self.profile_times[first], first)

    cdef inline void _take_started(self, double stop, long long q) noexcept nogil:
        """q processors fewer on [t, stop) for a job started now, whose end
        is inserted among the running jobs: an end after the last segment's
        start is left unmerged (q fewer everywhere, q back when merged)."""
        cdef Py_ssize_t k
        if stop <= self.profile_times[self.profile_size - 1]:
            self._take_profile(0, stop, q)
            self.profile_merged += 1    # it lands before every unmerged end
            return
        for k in range(self.profile_size):
            self.profile_free[k] -= q
        self.stair_size = self.stair_scanned = 0

    cdef void _forget_stairs(self, double begin, Py_ssize_t first) noexcept nogil:
        """Drop the staircase from begin on, segment `first` (now starting at
        begin) having changed: the levels before it still hold."""
        while self.stair_size > 0 and self.stair_times[self.stair_size - 1] >= begin:
            self.stair_size -= 1
        self.stair_scanned = min(self.stair_scanned, first)

    # -- the event loop (SEMANTICS §2) ---------------------------------------

    cdef double _next_instant(self, double stop) noexcept nogil:
        """Apply the events of the next instant before `stop` and return it
        (INFINITY: no event before stop)."""
        cdef double t = INFINITY
        if self.next_submission < self.n:
            t = self.jobs.submit[self.next_submission]
        if self.completions.size > 0 and self.completions.items[0].key < t:
            t = self.completions.items[0].key
        if self.expiries.size > 0 and self.expiries.items[0].key < t:
            t = self.expiries.items[0].key
        if t == INFINITY or t >= stop:
            return INFINITY
        while self.completions.size > 0 and self.completions.items[0].key == t:
            self._complete(heap_pop(&self.completions), t)
        while self.expiries.size > 0 and self.expiries.items[0].key == t:
            self._correct(heap_pop(&self.expiries), t)
        while (self.next_submission < self.n
               and self.jobs.submit[self.next_submission] == t):
            self._submit(self.next_submission, t)
            self.next_submission += 1
        # the first instant at or after each multiple of calc_period computes
        # (its pass may find no processor free: it computes all the same)
        if self.has_multifactor and t >= self.fair_share.due:
            self._compute_priorities(t)
        self.now = t
        return t

    cdef void _advance(self, double stop) noexcept nogil:
        cdef double t
        while True:
            t = self._next_instant(stop)
            if t == INFINITY:
                return
            self._pass(t)

    # -- job selection: the agent picks the head ----------------------------

    cdef bint _to_decision(self) noexcept nogil:
        """Run until a head must be chosen (True: a job waits and none is
        chosen) or every job is done (False). A chosen head starts as soon as
        it fits; until then, each instant backfills the other waiting jobs
        around its reservation (EASY, recomputed at each instant), unless the
        backfill is none."""
        cdef long long extra
        cdef double shadow
        while True:
            if self.head >= 0:
                if self.jobs.procs[self.head] <= self.free_procs:
                    self._start(self.head, self.now, False)
                    self.head = -1
                    continue
                if self.pass_open and not self.head_passed and self.backfill != BACKFILL_NONE_CODE:
                    self.head_passed = True
                    shadow = self._reserve(self.head, &extra)
                    self._backfill_list(
                        &self.lists[self.queue_list if self.backfill == BACKFILL_QUEUE_CODE
                                    else self.backfill_list],
                        self.head, self.now, shadow, &extra)
            elif self.n_waiting > 0:
                return True
            if self._next_instant(INFINITY) == INFINITY:
                return False
            self.pass_open = self.free_procs > 0
            self.passes += self.pass_open
            self.head_passed = False

    cdef bint _next_decision(self) except -1:
        cdef bint pending
        if self.profile_walk:
            raise ValueError("job selection runs EASY (reservations 1) or no backfilling; "
                             f"this simulation has reservation depth {self.depth}")
        with nogil:
            pending = self._to_decision()
        if not pending:
            self._release_predictor()
        return pending

    cdef void _choose(self, Py_ssize_t j) noexcept nogil:
        self.head = j
        self.head_passed = False

    # -- forks ---------------------------------------------------------------

    cdef int _allocate_per_job(self) except -1:
        """New per-job arrays, their values unset (np.empty: a large one costs
        no page until written)."""
        self.estimate = np.empty(self.n)
        self.initial_estimate = np.empty(self.n)
        self.estimated_end = np.empty(self.n)
        self.start = np.empty(self.n)
        self.end = np.empty(self.n)
        self.reservation = np.empty(self.n)
        self.state = np.empty(self.n, dtype=np.int8)
        self.order_at_start = np.empty(self.n, dtype=np.int8)
        self.backfilled = np.empty(self.n, dtype=np.uint8)
        self.corrections = np.empty(self.n, dtype=np.intc)
        return 0

    cdef tuple _per_job(self):
        return (self.estimate, self.initial_estimate, self.estimated_end, self.start, self.end,
                self.reservation, self.state, self.order_at_start, self.backfilled,
                self.corrections)

    cdef int _fill_unsubmitted(self, Py_ssize_t first) except -1:
        """The values of jobs not submitted yet, for positions [first, n)."""
        cdef Py_ssize_t j
        for j in range(first, self.n):
            self.estimate[j] = self.initial_estimate[j] = self.estimated_end[j] = 0.0
            self.start[j] = self.end[j] = self.reservation[j] = NAN
            self.state[j] = FUTURE
            self.order_at_start[j] = -1
            self.backfilled[j] = 0
            self.corrections[j] = 0
        return 0

    cdef int _materialize(self) except -1:
        """Give a fork every per-job value, O(jobs), once: before anything
        reads the arrays whole (results, the views, an episode's reward)."""
        cdef int k
        if self.own_from > 0:
            mine = [np.asarray(values) for values in self._per_job()]
            for arrays, first, stop in self.borrowed:
                for k in range(len(mine)):
                    mine[k][first:stop] = np.asarray(arrays[k])[first:stop]
            self.borrowed = []
            self.own_from = 0
        if self.future_unset:
            self._fill_unsubmitted(self.next_submission)
            self.future_unset = False
        return 0

    cdef inline bint _is_waiting(self, Py_ssize_t j) noexcept nogil:
        # a fork's values below own_from and from next_submission on are unset
        return self.own_from <= j < self.next_submission and self.state[j] == WAITING

    cdef Py_ssize_t _first_live(self) noexcept nogil:
        """The first position of a job waiting, running or not submitted."""
        cdef Py_ssize_t first = self.next_submission, i, j
        cdef WaitList* fcfs = &self.lists[0]
        for i in range(fcfs.size):
            j = fcfs.items[i].idx
            if j < first and self.state[j] == WAITING:
                first = j
        for i in range(self.n_running):
            first = min(first, self.running[i].idx)
        return first

    cdef Simulation _fork(self):
        """An independent copy of this simulation now. It copies the waiting
        lists (without their started jobs), the running jobs and their events,
        the predictor's state and the per-job values of positions [first live
        job, next submission); the values before are final, so it borrows them
        (read when it materializes), and it sets those of later jobs as it
        submits them. The classes of a dynamic order are rebuilt by the fork's
        first pass that walks them, as after a restart."""
        cdef Simulation child
        cdef Py_ssize_t first = self._first_live(), count = self.next_submission - first, i
        cdef WaitList* source
        cdef WaitList* target
        cdef Entry* items
        cdef int k
        params = ([self.function[k] for k in range(FUNCTION_PARAMS)] if self.has_function
                  else None)
        child = Simulation.__new__(
            Simulation, self.owner, self.order, self.threshold if self.has_threshold else None,
            self.backfill, self.predictor.fork(), self.correction, params, self.n, self,
            self.depth if self.depth <= self.n else -1, self.profile_walk and self.depth == 1,
            self._multifactor_params())
        child.jobs = self.jobs      # an episode's pointers into the shared arrays
        child.free_procs, child.n_done = self.free_procs, self.n_done
        child.next_submission, child.now = self.next_submission, self.now
        child.passes, child.passes_by_class = self.passes, self.passes_by_class
        child.reservations_made, child.jobs_reserved = self.reservations_made, self.jobs_reserved
        child.head, child.pass_open, child.head_passed = self.head, self.pass_open, self.head_passed
        child.n_waiting = self.n_waiting
        if self.has_multifactor:
            fairshare_free(&child.fair_share)
            if not fairshare_copy(&child.fair_share, &self.fair_share):
                raise MemoryError()
        child.n_lists, child.queue_list = self.n_lists, self.queue_list
        child.backfill_list = self.backfill_list
        for k in range(self.n_lists):
            source, target = &self.lists[k], &child.lists[k]
            items = target.items
            target[0] = source[0]
            target.items, target.size, target.dead = items, 0, 0
            for i in range(source.size):        # the started jobs' values are not the fork's
                if self.state[source.items[i].idx] == WAITING:
                    items[target.size] = source.items[i]
                    target.size += 1
        child.n_running = self.n_running
        memcpy(child.running, self.running, self.n_running * sizeof(Entry))
        child.completions.size = self.completions.size
        memcpy(child.completions.items, self.completions.items, self.completions.size * sizeof(Entry))
        child.expiries.size = self.expiries.size
        memcpy(child.expiries.items, self.expiries.items, self.expiries.size * sizeof(Entry))
        if count > 0:
            memcpy(&child.estimate[first], &self.estimate[first], count * sizeof(double))
            memcpy(&child.initial_estimate[first], &self.initial_estimate[first], count * sizeof(double))
            memcpy(&child.estimated_end[first], &self.estimated_end[first], count * sizeof(double))
            memcpy(&child.start[first], &self.start[first], count * sizeof(double))
            memcpy(&child.end[first], &self.end[first], count * sizeof(double))
            memcpy(&child.reservation[first], &self.reservation[first], count * sizeof(double))
            memcpy(&child.state[first], &self.state[first], count)
            memcpy(&child.order_at_start[first], &self.order_at_start[first], count)
            memcpy(&child.backfilled[first], &self.backfilled[first], count)
            memcpy(&child.corrections[first], &self.corrections[first], count * sizeof(int))
        child.own_from = first
        child.borrowed = list(self.borrowed)
        if first > self.own_from:
            child.borrowed.append((self._per_job(), self.own_from, first))
            self.lent = True
        child.future_unset = True
        return child

    cdef tuple _multifactor_params(self):
        cdef FairShare* fs = &self.fair_share
        if not self.has_multifactor:
            return None
        return (fs.weight_age, fs.weight_fairshare, fs.weight_job_size, fs.max_age,
                fs.half_life, fs.calc_period, float(fs.favor_small))

    def fork(self):
        """An independent copy of this simulation at the current instant: run
        either with the same decisions and both give the same results;
        nothing done to one reaches the other. Costs O(waiting + running jobs
        + the predictor's state), not O(jobs): docs/environments.md, "Forks"."""
        return self._fork()

    # -- Python interface ----------------------------------------------------

    def next_decision(self):
        """Job selection: run to the next instant where a head must be chosen;
        True if one must, False when every job is done."""
        return self._next_decision()

    def first_by_order(self, int order, const long long[::1] jobs):
        """The position in `jobs` (waiting jobs) of the one queue order `order`
        puts first now (its key at this instant; ties: the earlier position)."""
        cdef WaitList by_order
        cdef Py_ssize_t i, best = -1
        cdef double key, best_key = INFINITY
        _check_order(order, "queue order")
        for i in range(jobs.shape[0]):
            if not self._is_waiting(jobs[i]):
                raise ValueError(f"job {jobs[i]} is not waiting at t = {self.now}")
        self._set_order(&by_order, order)
        for i in range(jobs.shape[0]):
            key = self._key(&by_order, jobs[i], self.now)
            if best < 0 or key < best_key:
                best, best_key = i, key
        return best

    def running_jobs(self, long long[::1] out):
        """Fill `out` with the running jobs by estimated end (earliest first);
        return how many run in all."""
        cdef Py_ssize_t i, size = min(out.shape[0], self.n_running)
        for i in range(size):
            out[i] = self.running[i].idx
        return self.n_running

    @property
    def estimates(self):
        """Current estimate of every submitted job, a read-only view."""
        self._materialize()
        return _read_only(self.estimate)

    @property
    def estimated_ends(self):
        """Estimated end of every started job (start + its current estimate), a read-only view."""
        self._materialize()
        return _read_only(self.estimated_end)

    cdef int _check_head(self, Py_ssize_t j) except -1:
        """j may be chosen as the head: a decision is pending and j waits."""
        if self.head >= 0 or self.n_waiting == 0:
            raise RuntimeError("no decision is pending: call next_decision() first")
        if not self._is_waiting(j):
            raise ValueError(f"job {j} is not waiting at t = {self.now}")
        return 0

    def choose_head(self, Py_ssize_t j):
        """Job selection: waiting job j is the head, at the pending decision."""
        self._check_head(j)
        self._choose(j)

    def waiting_jobs(self, long long[::1] out):
        """Fill `out` with the first waiting jobs in queue order; return
        how many there are in all (a window: out may be shorter)."""
        cdef WaitList* fcfs = &self.lists[self.queue_list]
        cdef Py_ssize_t i = 0, j, count = 0, size = out.shape[0]
        self._prepare(fcfs, self.now)
        while count < size and i < fcfs.size:
            j = fcfs.items[i].idx
            i += 1
            if self.state[j] == WAITING:
                out[count] = j
                count += 1
        return self.n_waiting

    def run_until(self, double stop=INFINITY):
        """Process every instant t < stop; return True when all jobs are done."""
        with nogil:
            self._advance(stop)
        if self.n_done == self.n:
            self._release_predictor()
        return self.n_done == self.n

    cdef void _release_predictor(self):
        if self.predictor is not None and self.predictor.owner == <size_t> <void*> self:
            self.predictor.owner = 0

    @property
    def fair_share(self):
        """Every user's fair-share factor F_u of the last MULTIFACTOR computation (dense user
        index; 1 before the first), None without MULTIFACTOR parameters."""
        if not self.has_multifactor:
            return None
        return np.array([fairshare_factor(&self.fair_share, u) for u in range(self.fair_share.n_users)])

    @property
    def priority_computations(self):
        """How many times MULTIFACTOR's factors were computed (0 without its parameters)."""
        return self.fair_share.computations

    def set_order(self, int order):
        """Queue order for every pass from now on (a period switch)."""
        _check_order(order, "queue order")
        if order == ORDER_NAMES.index("FUNCTION") and not self.has_function:
            raise ValueError("the order FUNCTION needs a priority function's parameters, "
                             "given when the simulation is made")
        self.order = order
        self._configure_lists()

    @property
    def finished(self):
        return self.n_done == self.n

    @property
    def start_times(self):
        """Start of every job so far (NaN: not started), a read-only view."""
        self._materialize()
        return _read_only(self.start)

    @property
    def end_times(self):
        """End of every started job (NaN: not started), a read-only view."""
        self._materialize()
        return _read_only(self.end)

    def results(self):
        """Per-job arrays (copies)."""
        self._materialize()
        return {
            "start": np.asarray(self.start).copy(),
            "end": np.asarray(self.end).copy(),
            "backfilled": np.asarray(self.backfilled).astype(bool),
            "corrections": np.asarray(self.corrections).copy(),
            "order_at_start": np.asarray(self.order_at_start).copy(),
            "initial_estimate": np.asarray(self.initial_estimate).copy(),
            "reservation": np.asarray(self.reservation).copy(),
        }
