# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""The event loop of the simulator: EASY-family scheduling (SEMANTICS §2-6).

Everything inside `Simulation.run_until` is C: sorted arrays and binary heaps
over job positions, no Python object touched per event. The Python-facing
wrapper with validation and metrics is simcore/engine/simulation.py. The queue
orders (_orders.pxd) and the predictors (_predictor.pxd) are other extension
modules, called through function pointers and the Predictor vtable. The
simulation's components are in headers of their own (the per-job arrays
_perjob.pxd, the waiting lists _waitlist.pxd, the availability profile
_profile.pxd, the fair share _fairshare.pxd, the classes _classes.pxd), each
made in __cinit__, reset in _restart, copied in _fork and freed in
__dealloc__. Simulation's attributes are declared in _core.pxd, so that job
selection's kernel (_selection.pyx: the decision mode, its observation,
rewards and vector step) drives this loop from its own module.
"""

import numpy as np

from simcore.engine._orders import ORDER_NAMES

from libc.math cimport INFINITY, NAN, isfinite, isnan
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memset

from simcore.engine._classes cimport (
    Classes, classes_add, classes_clear, classes_free, classes_init, classes_remove,
)
from simcore.engine._fairshare cimport (
    Multifactor, check_multifactor, fairshare_completed, fairshare_compute, fairshare_copy,
    fairshare_factor, fairshare_free, fairshare_init, fairshare_priority, fairshare_reset,
    fairshare_started,
)
from simcore.engine._orders cimport (
    CLASS_RANK_OLDEST_FIRST, CLASS_RANK_UNKNOWN, FUNCTION_PARAMS, check_function, check_order,
    order_entry,
)
from simcore.engine._perjob cimport (
    perjob_allocate, perjob_copy, perjob_fill, perjob_take_borrowed, perjob_unset,
)
from simcore.engine._profile cimport (
    profile_anchor, profile_fits_now, profile_free, profile_init, profile_open, profile_take,
    profile_take_started,
)
from simcore.engine._waitlist cimport (
    DONE, FUTURE, RUNNING, WAITING, waitlist_compact, waitlist_copy, waitlist_free, waitlist_init,
    waitlist_reset,
)
from simcore.engine._sorted cimport (
    Entry, compare_entries, entry_less, heap_pop, heap_push, sorted_insert, sorted_remove,
)
from simcore.engine._jobs cimport Jobs
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

BACKFILL_NONE = BACKFILL_NONE_CODE
BACKFILL_QUEUE = BACKFILL_QUEUE_CODE

# The order whose keys come from the fair-share state (_fairshare.pxd), not a key function
cdef int MULTIFACTOR_CODE = ORDER_NAMES.index("MULTIFACTOR")

# Every per-job array of a simulation, the one list (_perjob.pxd): name, dtype, value
# before submission, whether results() gives it. The first ten are the event loop's, in
# the order of PerJob's typed views.
PER_JOB = (
    ("estimate", np.float64, 0.0, False),
    ("initial_estimate", np.float64, 0.0, True),
    ("estimated_end", np.float64, 0.0, False),
    ("start", np.float64, NAN, True),
    ("end", np.float64, NAN, True),
    ("reservation", np.float64, NAN, True),
    ("state", np.int8, FUTURE, False),
    ("order_at_start", np.int8, -1, True),
    ("backfilled", np.bool_, False, True),
    ("corrections", np.intc, 0, True),
)


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
        MULTIFACTOR's parameters, a mapping of _fairshare.pxd's Multifactor
        fields; given, the fair-share state is kept from the first instant,
        whatever the order in force (a period switch may bring MULTIFACTOR in)."""
        cdef Py_ssize_t n = jobs.arrays.n
        cdef Multifactor params
        memset(&params, 0, sizeof(Multifactor))
        if not -1 <= episode_jobs <= n:
            raise ValueError(f"episodes of {episode_jobs} jobs in a workload of {n}: "
                             f"allowed are 0 to {n}, or -1 for the whole workload")
        check_order(order, "queue order")
        if backfill != BACKFILL_NONE_CODE and backfill != BACKFILL_QUEUE_CODE:
            check_order(backfill, f"backfill (or {BACKFILL_NONE_CODE}: none, "
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
        function = None if function is None else [float(x) for x in function]
        check_function(function, ORDER_NAMES.index("FUNCTION") in (order, backfill))
        if multifactor is not None:
            params = multifactor        # Cython names a missing field
            check_multifactor(params)
        elif MULTIFACTOR_CODE in (order, backfill):
            raise ValueError("the order MULTIFACTOR needs its parameters (multifactor)")
        if predictor.owner != 0:
            raise ValueError(
                f"{predictor!r} is driving another simulation that has not finished; "
                "give each simulation run at the same time its own predictor instance")
        self.owner = jobs
        self.given = jobs.arrays
        self.n = n if episode_jobs < 0 else episode_jobs
        self.jobs = self.given
        self.jobs.n = self.n
        self.machine_size = self.free_procs = jobs.machine_size
        self.order, self.backfill, self.correction = order, backfill, correction
        self.has_function = function is not None
        for k in range(FUNCTION_PARAMS if self.has_function else 0):
            self.function[k] = function[k]
        self.has_threshold = threshold is not None
        self.threshold = threshold if threshold is not None else INFINITY
        self.now = -INFINITY
        self.head = -1
        self.depth = self.n + 1 if reservations == -1 else reservations
        self.profile_walk = profile_walk or self.depth >= 2
        self.has_multifactor = multifactor is not None
        self.borrowed = []
        # every component's memory, once (_restart resets it, _fork copies it, __dealloc__ frees it)
        self.owned = perjob_allocate(&self.perjob, PER_JOB, self.n)
        for k in range(3):
            if not waitlist_init(&self.lists[k], self.n):
                raise MemoryError()
        cdef size_t capacity = (self.n if self.n > 0 else 1) * sizeof(Entry)
        self.running = <Entry*> malloc(capacity)
        self.completions.items = <Entry*> malloc(capacity)
        self.expiries.items = <Entry*> malloc(capacity)
        if self.running == NULL or self.completions.items == NULL or self.expiries.items == NULL:
            raise MemoryError()
        if self.profile_walk and not profile_init(&self.profile, self.n):
            raise MemoryError()
        if self.has_multifactor and not fairshare_init(&self.fair_share, params, jobs.arrays.n_users,
                                                       <double> jobs.machine_size):
            raise MemoryError()
        if fork_of is None:
            perjob_fill(self.owned, PER_JOB, 0, self.n)
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
            waitlist_free(&self.lists[k])
        classes_free(&self.classes)
        free(self.class_firsts.items)
        profile_free(&self.profile)
        fairshare_free(&self.fair_share)
        # the per-job arrays are NumPy's (self.owned): freed when no fork borrows them

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
        waitlist_reset(&self.lists[k])
        cdef WaitList* fcfs = &self.lists[0]
        cdef WaitList* wl = &self.lists[k]
        cdef Py_ssize_t i, j
        for i in range(fcfs.size):
            j = fcfs.items[i].idx
            if self.perjob.state[j] == WAITING:
                wl.items[wl.size].key = self._key(wl, j, self.now)
                wl.items[wl.size].idx = j
                wl.size += 1
        qsort(wl.items, wl.size, sizeof(Entry), compare_entries)
        return k

    cdef int _configure_lists(self) except -1:
        waitlist_compact(&self.lists[0], self.perjob.state)
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
        self.free_procs = self.machine_size
        self.n_done = self.next_submission = self.n_waiting = 0
        self.now = -INFINITY
        self.head = -1
        self.pass_open = self.head_passed = False
        self.passes = self.passes_by_class = 0
        self.reservations_made = self.jobs_reserved = 0
        # every component as __cinit__ left it (the profile is rebuilt at each pass)
        self.predictor.bind(self.jobs)
        self.predictor.owner = <size_t> <void*> self
        if self.lent:       # a fork reads these arrays: leave them to it
            self.owned = perjob_allocate(&self.perjob, PER_JOB, self.n)
            self.lent = False
        perjob_fill(self.owned, PER_JOB, 0, self.n)
        self.own_from, self.borrowed, self.future_unset = 0, [], False
        self.n_running = self.completions.size = self.expiries.size = 0
        for k in range(self.n_lists):
            waitlist_reset(&self.lists[k])
        self._configure_lists()
        self.by_class = False
        if self.has_multifactor:
            fairshare_reset(&self.fair_share)
        return 0

    cdef inline double _key(self, const WaitList* wl, Py_ssize_t j,
                            double t) noexcept nogil:
        cdef double key
        if wl.multifactor:      # highest priority first
            return -fairshare_priority(&self.fair_share, self.jobs.submit[j], self.jobs.procs[j],
                                       self.jobs.user[j])
        key = wl.key(t, self.jobs.submit[j], self.perjob.estimate[j], <double> self.jobs.procs[j],
                     self.function)
        return INFINITY if key != key else key

    cdef void _prepare(self, WaitList* wl, double t) noexcept nogil:
        """Make a list ready to walk at instant t."""
        if wl.dynamic:
            if wl.sorted_at == t or (wl.multifactor and not isnan(wl.sorted_at)):
                return      # already sorted for this instant; dead entries are skipped
            self._resort(wl, t)
            wl.sorted_at = t
        elif 2 * wl.dead > wl.size:
            waitlist_compact(wl, self.perjob.state)

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
            if self.perjob.state[j] != WAITING:
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
            if self.perjob.state[j] != WAITING:
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
            if self.perjob.state[j] == WAITING and not self._over_threshold(j, c.t):
                return j
        return -1

    # -- job life cycle ------------------------------------------------------

    cdef void _start(self, Py_ssize_t j, double t, bint backfilled) noexcept nogil:
        cdef int k
        self.perjob.state[j] = RUNNING
        self.perjob.start[j] = t
        self.perjob.end[j] = t + self.jobs.run[j]
        self.perjob.estimated_end[j] = t + self.perjob.estimate[j]
        self.perjob.backfilled[j] = backfilled
        self.perjob.order_at_start[j] = self.order
        self.free_procs -= self.jobs.procs[j]
        self.n_waiting -= 1
        sorted_insert(self.running, &self.n_running, self.perjob.estimated_end[j], j)
        heap_push(&self.completions, self.perjob.end[j], j)
        self.predictor.started(j, t)
        if self.perjob.end[j] > self.perjob.estimated_end[j]:
            heap_push(&self.expiries, self.perjob.estimated_end[j], j)
        for k in range(self.n_lists):
            self.lists[k].dead += 1
        if self.by_class:
            classes_remove(&self.classes, j, self.jobs.submit)
        if self.has_multifactor:
            fairshare_started(&self.fair_share, self.jobs.user[j], self.jobs.procs[j], t)

    cdef void _complete(self, Py_ssize_t j, double t) noexcept nogil:
        self.perjob.state[j] = DONE
        self.free_procs += self.jobs.procs[j]
        sorted_remove(self.running, &self.n_running, self.perjob.estimated_end[j], j)
        self.n_done += 1
        self.predictor.learn(j, t)
        if self.has_multifactor:
            fairshare_completed(&self.fair_share, self.jobs.user[j], self.jobs.procs[j],
                                self.perjob.start[j], t)

    cdef void _correct(self, Py_ssize_t j, double t) noexcept nogil:
        """The estimate of running job j expired at t (under-prediction)."""
        cdef double requested = self.jobs.requested[j]
        cdef double corrected
        cdef int k
        self.perjob.corrections[j] += 1
        k = self.perjob.corrections[j]
        if self.correction == CORRECT_INCREMENTAL and k <= 11:
            corrected = self.perjob.initial_estimate[j] + INCREMENTS[k - 1]
        elif self.correction == CORRECT_DOUBLING:
            corrected = 2.0 * (t - self.perjob.start[j])
        else:
            corrected = requested
        if corrected > requested:
            corrected = requested
        sorted_remove(self.running, &self.n_running, self.perjob.estimated_end[j], j)
        self.perjob.estimate[j] = corrected
        self.perjob.estimated_end[j] = self.perjob.start[j] + corrected
        sorted_insert(self.running, &self.n_running, self.perjob.estimated_end[j], j)
        if self.perjob.end[j] > self.perjob.estimated_end[j]:
            heap_push(&self.expiries, self.perjob.estimated_end[j], j)

    cdef void _submit(self, Py_ssize_t j, double t) noexcept nogil:
        cdef double e = self.predictor.predict(j, t)
        cdef double requested = self.jobs.requested[j]
        if not e <= requested:      # also maps NaN to the request
            e = requested
        if e < 1.0:
            e = 1.0
        if self.future_unset:
            # a fork's arrays hold nothing for the jobs it has not submitted yet
            perjob_unset(&self.perjob, j)
        self.perjob.estimate[j] = e
        self.perjob.initial_estimate[j] = e
        self.perjob.state[j] = WAITING
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
            if self.perjob.state[j] == WAITING and not classes_add(
                    &self.classes, j, self.perjob.estimate[j], self.jobs.procs[j], self.jobs.submit):
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
                if self.perjob.state[j] != WAITING:
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
        if isnan(self.perjob.reservation[h]):
            self.perjob.reservation[h] = shadow
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
            if j != h and self.perjob.state[j] == WAITING:
                self._try_backfill(j, t, shadow, extra)

    cdef inline void _try_backfill(self, Py_ssize_t j, double t, double shadow,
                                   long long* extra) noexcept nogil:
        cdef long long q = self.jobs.procs[j]
        cdef bint ends_after_shadow
        if q > self.free_procs:
            return
        ends_after_shadow = t + self.perjob.estimate[j] > shadow
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
        cdef Py_ssize_t j, made = 0
        cdef long long q
        cdef double e, anchor
        if self.n_waiting == 0:
            return
        # the profile holds [t, inf) only: running jobs' ends are merged as
        # the walk looks further
        profile_open(&self.profile, t, self.free_procs, self.running, &self.n_running,
                     self.jobs.procs)
        self._open_queue(&cursor, t)
        # no processor free now and a reservation held: nothing else can start
        # in this pass, and its reservations end with it
        while self.profile.free[0] > 0 or made == 0:
            j = self._next_in_queue(&cursor)
            if j < 0:
                return
            q = self.jobs.procs[j]
            e = self.perjob.estimate[j]
            if q <= self.profile.free[0] and profile_fits_now(&self.profile, q, e):
                profile_take_started(&self.profile, t + e, q)
                self._start(j, t, made > 0)
            elif made < self.depth:
                anchor = self._reserve_in_profile(q, e)
                made += 1
                self.reservations_made += 1
                if isnan(self.perjob.reservation[j]):
                    self.perjob.reservation[j] = anchor
                    self.jobs_reserved += 1

    cdef double _reserve_in_profile(self, long long q, double e) noexcept nogil:
        """Reserve q processors for e seconds at the profile's earliest instant
        that has them (the job does not fit now); return that instant. A call,
        not inlined into the walk: the walk's loop stays small (measured: 12 %
        on HPC2N's conservative pass when inlined)."""
        cdef Py_ssize_t k = profile_anchor(&self.profile, q, e)
        cdef double anchor = self.profile.times[k]
        profile_take(&self.profile, k, anchor + e, q)
        return anchor

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

    # -- forks ---------------------------------------------------------------

    cdef int _materialize(self) except -1:
        """Give a fork every per-job value, O(jobs), once: before anything
        reads the arrays whole (results, the views, an episode's reward)."""
        if self.own_from > 0:
            perjob_take_borrowed(self.owned, self.borrowed)
            self.borrowed = []
            self.own_from = 0
        if self.future_unset:
            perjob_fill(self.owned, PER_JOB, self.next_submission, self.n)
            self.future_unset = False
        return 0

    cdef inline bint _is_waiting(self, Py_ssize_t j) noexcept nogil:
        # a fork's values below own_from and from next_submission on are unset
        return self.own_from <= j < self.next_submission and self.perjob.state[j] == WAITING

    cdef Py_ssize_t _first_live(self) noexcept nogil:
        """The first position of a job waiting, running or not submitted."""
        cdef Py_ssize_t first = self.next_submission, i, j
        cdef WaitList* fcfs = &self.lists[0]
        for i in range(fcfs.size):
            j = fcfs.items[i].idx
            if j < first and self.perjob.state[j] == WAITING:
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
        cdef Py_ssize_t first = self._first_live()
        cdef int k
        child = Simulation.__new__(
            Simulation, self.owner, self.order, self.threshold if self.has_threshold else None,
            self.backfill, self.predictor.fork(), self.correction,
            [self.function[k] for k in range(FUNCTION_PARAMS)] if self.has_function else None,
            self.n, self, self.depth if self.depth <= self.n else -1,
            self.profile_walk and self.depth == 1,
            self.fair_share.params if self.has_multifactor else None)
        child.jobs = self.jobs      # an episode's pointers into the shared arrays
        child.free_procs, child.n_done = self.free_procs, self.n_done
        child.next_submission, child.now = self.next_submission, self.now
        child.passes, child.passes_by_class = self.passes, self.passes_by_class
        child.reservations_made, child.jobs_reserved = self.reservations_made, self.jobs_reserved
        child.head, child.pass_open, child.head_passed = self.head, self.pass_open, self.head_passed
        child.n_waiting = self.n_waiting
        # every component's state (the profile is rebuilt at each pass)
        perjob_copy(&child.perjob, &self.perjob, first, self.next_submission - first)
        child.own_from, child.borrowed, child.future_unset = first, list(self.borrowed), True
        if first > self.own_from:
            child.borrowed.append((self.owned, self.own_from, first))
            self.lent = True
        child.n_lists, child.queue_list = self.n_lists, self.queue_list
        child.backfill_list = self.backfill_list
        for k in range(self.n_lists):   # the started jobs' values are not the fork's
            waitlist_copy(&child.lists[k], &self.lists[k], self.perjob.state)
        child.n_running = self.n_running
        memcpy(child.running, self.running, self.n_running * sizeof(Entry))
        child.completions.size = self.completions.size
        memcpy(child.completions.items, self.completions.items, self.completions.size * sizeof(Entry))
        child.expiries.size = self.expiries.size
        memcpy(child.expiries.items, self.expiries.items, self.expiries.size * sizeof(Entry))
        if self.has_multifactor:
            fairshare_free(&child.fair_share)
            if not fairshare_copy(&child.fair_share, &self.fair_share):
                raise MemoryError()
        return child

    def fork(self):
        """An independent copy of this simulation at the current instant: run
        either with the same decisions and both give the same results;
        nothing done to one reaches the other. Costs O(waiting + running jobs
        + the predictor's state), not O(jobs): docs/environments.md, "Forks"."""
        return self._fork()

    # -- Python interface ----------------------------------------------------

    @property
    def estimates(self):
        """Current estimate of every submitted job, a read-only view."""
        return self._per_job_view("estimate")

    @property
    def estimated_ends(self):
        """Estimated end of every started job (start + its current estimate), a read-only view."""
        return self._per_job_view("estimated_end")

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
        check_order(order, "queue order")
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
        return self._per_job_view("start")

    @property
    def end_times(self):
        """End of every started job (NaN: not started), a read-only view."""
        return self._per_job_view("end")

    def _per_job_view(self, str name):
        """A read-only view of the per-job array `name` (PER_JOB)."""
        self._materialize()
        view = self.owned[[row[0] for row in PER_JOB].index(name)][:self.n].view()
        view.flags.writeable = False
        return view

    def results(self):
        """The per-job arrays PER_JOB marks as results (copies)."""
        self._materialize()
        return {row[0]: values[:self.n].copy() for row, values in zip(PER_JOB, self.owned) if row[3]}
