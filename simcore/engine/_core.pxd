# Declares the event loop's Simulation (simcore/engine/_core.pyx) and the job
# arrays it runs on, so that another module can drive a simulation at C level:
# the job-selection kernel (_selection.pyx) observes the waiting jobs and the
# running ones, chooses heads and restarts episodes through these declarations
# and the methods below, with the event loop itself compiled only in _core.
#
#     from simcore.engine._core cimport Simulation, WAITING
#
# Every attribute and cdef method of Simulation is declared here (Cython needs
# the whole class to lay out its object and its method table); the methods'
# bodies and documentation are in _core.pyx.

from simcore.engine._classes cimport Classes
from simcore.engine._fairshare cimport FairShare
from simcore.engine._jobs cimport JobArrays
from simcore.engine._orders cimport FUNCTION_PARAMS, key_fn_t
from simcore.engine._predictor cimport Predictor
from simcore.engine._sorted cimport Entry, Heap


cdef enum JobState:
    FUTURE = 0
    WAITING = 1
    RUNNING = 2
    DONE = 3


# Waiting jobs sorted by (key of `order`, position). Started jobs stay in the
# array ("dead") until the next compaction, so starting a job is O(1).
# A dynamic order's keys are recomputed and re-sorted before each use, from
# the order of its previous use (Simulation._resort). The order's key
# function is looked up once, when the list is configured, and called through
# `key` from then on.
cdef struct WaitList:
    Entry* items
    Py_ssize_t size
    Py_ssize_t dead
    int order
    key_fn_t key
    bint dynamic
    int class_rank
    double sorted_at
    # MULTIFACTOR: keys from the fair-share state, changed only by a
    # computation (or a submission, whose key is not in yet): sorted_at is
    # NaN until the list is sorted again
    bint multifactor


# Walks the queue in SEMANTICS §3 order: first the jobs over the threshold in
# position order (a prefix of the FCFS list, as t - r_j is non-increasing in
# r_j even when rounded), then the queue order's list without them.
cdef struct QueueCursor:
    bint in_prefix
    Py_ssize_t pos
    double t
    # The queue order's list, fixed for the pass: taking &lists[queue_list]
    # once rather than at every step keeps the walk as cheap as it was before
    # WaitList grew a key function pointer (its stride went from 40 to 56
    # bytes, one more instruction per step to index it).
    WaitList* queue


cdef class Jobs:
    cdef JobArrays arrays
    cdef readonly long long machine_size


cdef class Simulation:
    cdef JobArrays jobs
    # the arrays of `owner`: jobs is all of them, or the episode
    # [first, first + n) of them that _restart points it to (job selection)
    cdef JobArrays given
    cdef Jobs owner
    cdef readonly long long machine_size, free_procs
    cdef Py_ssize_t n, next_submission, n_done
    cdef readonly int order
    cdef int backfill, correction
    cdef double function[FUNCTION_PARAMS]     # the FUNCTION order's parameters
    cdef bint has_function, has_threshold
    cdef double threshold
    cdef readonly double now
    cdef Predictor predictor
    cdef double[::1] estimate, initial_estimate, estimated_end, start, end
    cdef double[::1] reservation
    cdef signed char[::1] state, order_at_start
    cdef unsigned char[::1] backfilled
    cdef int[::1] corrections
    # lists[0] is FCFS; the queue and backfill orders use lists[queue_list]
    # and lists[backfill_list] (-1: no backfill by another order).
    cdef WaitList lists[3]
    cdef int n_lists, queue_list, backfill_list
    cdef Entry* running             # sorted by (estimated end, position)
    cdef Py_ssize_t n_running
    cdef Heap completions, expiries
    cdef readonly long long passes, passes_by_class
    # job selection (the agent picks the head, simcore.envs): the chosen head
    # (-1: none), whether this instant has a pass (a processor was free after
    # its events, as _pass needs), whether the head's backfilling ran in it,
    # and the number of waiting jobs
    cdef readonly Py_ssize_t head
    cdef bint pass_open, head_passed
    cdef Py_ssize_t n_waiting
    # the waiting jobs by class (_classes.pxd), kept from the first pass that
    # walks them (a dynamic queue order that ranks classes, no backfilling)
    cdef Classes classes
    cdef bint by_class
    cdef Heap class_firsts      # one pass's candidates, one per class
    # a fork (Simulation.fork) holds the per-job values of positions >= own_from
    # (below, every job was done when it forked): those of [a, b) are in the
    # arrays of `borrowed` entries (arrays, a, b), final in the simulation
    # they came from; positions not yet submitted are set at submission, and
    # the rest by _materialize (future_unset). `lent`: a fork borrows these
    # arrays, so a restart must not write into them.
    cdef Py_ssize_t own_from
    cdef list borrowed
    cdef bint future_unset, lent
    # reservation depth (docs/semantics.md, "Reservation depth"): 1 is EASY;
    # >= 2 walks the queue over an availability profile, free[k] processors on
    # [times[k], times[k + 1]) (the last segment unbounded), rebuilt at each
    # pass; `all` is stored as n + 1
    cdef Py_ssize_t depth
    cdef bint profile_walk      # passes walk the profile (depth >= 2, or depth 1 to check EASY)
    cdef readonly long long reservations_made, jobs_reserved
    cdef double* profile_times
    cdef long long* profile_free
    cdef Py_ssize_t profile_size
    # the staircase of the profile's prefix minima, for fits-now: the least
    # free on [t, stair_times[k + 1]) is stair_levels[k], from the first
    # stair_scanned segments; levels fall only where a reservation begins
    cdef double* stair_times
    cdef long long* stair_levels
    cdef Py_ssize_t stair_size, stair_scanned
    # running[0..profile_merged) have their estimated ends in the profile
    cdef Py_ssize_t profile_merged
    # the order MULTIFACTOR's parameters and per-user usage (_fairshare.pxd),
    # kept from the first instant whenever the parameters are given
    cdef bint has_multifactor
    cdef FairShare fair_share

    # waiting lists
    cdef int _set_order(self, WaitList* wl, int order) except -1
    cdef int _list_for(self, int order) except -1
    cdef int _configure_lists(self) except -1
    cdef inline double _key(self, const WaitList* wl, Py_ssize_t j, double t) noexcept nogil
    cdef void _compact(self, WaitList* wl) noexcept nogil
    cdef void _prepare(self, WaitList* wl, double t) noexcept nogil
    cdef void _resort(self, WaitList* wl, double t) noexcept nogil
    cdef void _enqueue(self, Py_ssize_t j, double t) noexcept nogil
    # the queue walk
    cdef inline bint _over_threshold(self, Py_ssize_t j, double t) noexcept nogil
    cdef void _open_queue(self, QueueCursor* c, double t) noexcept nogil
    cdef inline Py_ssize_t _next_in_queue(self, QueueCursor* c) noexcept nogil
    # job life cycle
    cdef void _start(self, Py_ssize_t j, double t, bint backfilled) noexcept nogil
    cdef void _complete(self, Py_ssize_t j, double t) noexcept nogil
    cdef void _correct(self, Py_ssize_t j, double t) noexcept nogil
    cdef void _submit(self, Py_ssize_t j, double t) noexcept nogil
    cdef void _compute_priorities(self, double t) noexcept nogil
    # one scheduling pass
    cdef void _pass(self, double t) noexcept nogil
    cdef bint _walk_classes(self) noexcept nogil
    cdef void _push_class_first(self, WaitList* wl, Py_ssize_t k, double t) noexcept nogil
    cdef void _pass_by_class(self, double t, WaitList* wl) noexcept nogil
    cdef double _reserve(self, Py_ssize_t h, long long* extra) noexcept nogil
    cdef void _backfill_list(self, WaitList* wl, Py_ssize_t h, double t, double shadow,
                             long long* extra) noexcept nogil
    cdef inline void _try_backfill(self, Py_ssize_t j, double t, double shadow,
                                   long long* extra) noexcept nogil
    # reservation depth >= 2
    cdef void _pass_reserving(self, double t) noexcept nogil
    cdef Py_ssize_t _split_profile(self, Py_ssize_t low, double at) noexcept nogil
    cdef void _take_profile(self, Py_ssize_t first, double stop, long long q) noexcept nogil
    cdef inline void _take_started(self, double stop, long long q) noexcept nogil
    cdef void _forget_stairs(self, double begin, Py_ssize_t first) noexcept nogil
    cdef inline void _merge_next_end(self) noexcept nogil
    cdef Py_ssize_t _anchor(self, long long q, double e) noexcept nogil
    cdef inline bint _fits_now(self, long long q, double e) noexcept nogil
    # the event loop
    cdef double _next_instant(self, double stop) noexcept nogil
    cdef void _advance(self, double stop) noexcept nogil
    cdef void _release_predictor(self)
    # job selection: the agent picks the head
    cdef bint _to_decision(self) noexcept nogil
    cdef bint _next_decision(self) except -1     # _to_decision, then the predictor is free at the end
    cdef void _choose(self, Py_ssize_t j) noexcept nogil
    cdef int _check_head(self, Py_ssize_t j) except -1
    cdef int _check_restart(self, Py_ssize_t first) except -1
    cdef int _restart(self, Py_ssize_t first) except -1
    # forks
    cdef inline bint _is_waiting(self, Py_ssize_t j) noexcept nogil
    cdef Py_ssize_t _first_live(self) noexcept nogil
    cdef tuple _per_job(self)
    cdef int _allocate_per_job(self) except -1
    cdef int _fill_unsubmitted(self, Py_ssize_t first) except -1
    cdef int _materialize(self) except -1
    cdef tuple _multifactor_params(self)
    cdef Simulation _fork(self)
