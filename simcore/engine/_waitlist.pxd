# The waiting lists of the event loop (simcore/engine/_core.pyx): the queue
# sorted by an order's key, and the cursor that walks it in SEMANTICS §3
# order. Their memory and what needs no key are here, inline (like
# _fairshare.pxd); the keys themselves are the event loop's (Simulation._key:
# an order's key function, or MULTIFACTOR's fair share).

from libc.math cimport NAN
from libc.stdlib cimport free, malloc

from simcore.engine._orders cimport key_fn_t
from simcore.engine._sorted cimport Entry


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


cdef inline bint waitlist_init(WaitList* wl, Py_ssize_t n) noexcept nogil:
    """Room for n jobs (one entry at least); False: out of memory."""
    wl.items = <Entry*> malloc((n if n > 0 else 1) * sizeof(Entry))
    waitlist_reset(wl)
    return wl.items != NULL


cdef inline void waitlist_reset(WaitList* wl) noexcept nogil:
    """Empty, not sorted for any instant."""
    wl.size = wl.dead = 0
    wl.sorted_at = NAN


cdef inline void waitlist_free(WaitList* wl) noexcept nogil:
    free(wl.items)
    wl.items = NULL


cdef inline void waitlist_compact(WaitList* wl, const signed char* state) noexcept nogil:
    """Drop the started jobs, keeping the order."""
    cdef Py_ssize_t i, kept = 0
    for i in range(wl.size):
        if state[wl.items[i].idx] == WAITING:
            wl.items[kept] = wl.items[i]
            kept += 1
    wl.size = kept
    wl.dead = 0


cdef inline void waitlist_copy(WaitList* target, const WaitList* source,
                               const signed char* state) noexcept nogil:
    """source's order and its waiting jobs (not its started ones) into target."""
    cdef Entry* items = target.items
    cdef Py_ssize_t i
    target[0] = source[0]
    target.items, target.size, target.dead = items, 0, 0
    for i in range(source.size):
        if state[source.items[i].idx] == WAITING:
            items[target.size] = source.items[i]
            target.size += 1
