# Declares the event loop's Simulation (simcore/engine/_core.pyx), so that
# another module can drive a simulation at C level: the job-selection kernel
# (_selection.pyx) runs it to each decision, observes the waiting jobs and the
# running ones, chooses heads and restarts episodes through these declarations
# and the methods below, with the event loop itself compiled only in _core.
#
#     from simcore.engine._core cimport Simulation
#     from simcore.engine._waitlist cimport WAITING
#
# Every attribute and cdef method of Simulation is declared here (Cython needs
# the whole class to lay out its object and its method table); the methods'
# bodies and documentation are in _core.pyx.

from simcore.engine._classes cimport Classes
from simcore.engine._fairshare cimport FairShare
from simcore.engine._jobs cimport JobArrays, Jobs
from simcore.engine._orders cimport FUNCTION_PARAMS, key_fn_t
from simcore.engine._perjob cimport PerJob
from simcore.engine._predictor cimport Predictor
from simcore.engine._profile cimport Profile
from simcore.engine._sorted cimport Entry, Heap
from simcore.engine._waitlist cimport WAITING, QueueCursor, WaitList


# The backfill argument's codes beside the queue orders': none, and the queue order's
cdef enum:
    BACKFILL_NONE_CODE = -2
    BACKFILL_QUEUE_CODE = -1


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
    # >= 2 walks the queue over an availability profile (_profile.pxd),
    # rebuilt at each pass; `all` is stored as n + 1
    cdef Py_ssize_t depth
    cdef bint profile_walk      # passes walk the profile (depth >= 2, or depth 1 to check EASY)
    cdef readonly long long reservations_made, jobs_reserved
    cdef Profile profile
    # the order MULTIFACTOR's parameters and per-user usage (_fairshare.pxd),
    # kept from the first instant whenever the parameters are given
    cdef bint has_multifactor
    cdef FairShare fair_share
    # the per-job arrays (_perjob.pxd; _core.pyx's PER_JOB lists them) and
    # the NumPy arrays they point into
    cdef PerJob perjob
    cdef list owned

    # waiting lists
    cdef int _set_order(self, WaitList* wl, int order) except -1
    cdef int _list_for(self, int order) except -1
    cdef int _configure_lists(self) except -1
    cdef inline double _key(self, const WaitList* wl, Py_ssize_t j, double t) noexcept nogil
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
    cdef double _reserve_in_profile(self, long long q, double e) noexcept nogil
    # the event loop
    cdef double _next_instant(self, double stop) noexcept nogil
    cdef void _advance(self, double stop) noexcept nogil
    cdef void _release_predictor(self)
    cdef int _check_restart(self, Py_ssize_t first) except -1
    cdef int _restart(self, Py_ssize_t first) except -1
    # forks
    cdef inline bint _is_waiting(self, Py_ssize_t j) noexcept nogil
    cdef Py_ssize_t _first_live(self) noexcept nogil
    cdef int _materialize(self) except -1
    cdef Simulation _fork(self)
