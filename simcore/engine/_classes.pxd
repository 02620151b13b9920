# Waiting jobs grouped into classes of equal (estimate, processors), each class
# a list in position order, for the event loop (simcore/engine/_core.pyx).
#
# Why: a dynamic order's key depends on the time, so a queue sorted by it must
# be re-sorted at every pass, computing the key of every waiting job. For the
# orders whose key, within one class, is monotone in the submission time
# (SEXP, LEXP, WFP3, UNICEF: the wait t - r is their only term that differs),
# the jobs of a class stand in position order (oldest first) or in reverse
# (newest first), so a pass that only starts jobs from the head of the queue
# (no backfilling) needs one key per class, a few dozen, instead of one per
# waiting job, hundreds to thousands on a long queue.
#
# All inline, like _sorted.pxd. Memory grows by doubling; a function that
# allocates returns False when malloc fails, leaving the classes usable as
# they were.

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset


cdef struct Classes:
    # per job (capacity: the workload): its class, its neighbours in the
    # class list (-1: none)
    Py_ssize_t* of
    Py_ssize_t* prev
    Py_ssize_t* next
    # per class (capacity `room`): (estimate, processors), first and last
    # job, the first job of its newest submission instant (-1: empty)
    double* estimate
    long long* procs
    Py_ssize_t* first
    Py_ssize_t* last
    Py_ssize_t* newest_first
    Py_ssize_t* active_at           # place in `active`, -1: no waiting job
    Py_ssize_t* active              # the classes that have waiting jobs
    Py_ssize_t n_classes, n_active, room
    # open addressing (linear probing): class + 1, 0 = empty slot
    Py_ssize_t* slots
    Py_ssize_t n_slots              # a power of two, at least 2 * room


cdef inline void classes_free(Classes* c) noexcept nogil:
    free(c.of)
    free(c.prev)
    free(c.next)
    free(c.estimate)
    free(c.procs)
    free(c.first)
    free(c.last)
    free(c.newest_first)
    free(c.active_at)
    free(c.active)
    free(c.slots)
    memset(c, 0, sizeof(Classes))


cdef inline bint _grow(void** array, size_t size) noexcept nogil:
    cdef void* grown = realloc(array[0], size)
    if grown == NULL:
        return False
    array[0] = grown
    return True


cdef inline size_t _slot_of(double estimate, long long procs, Py_ssize_t n_slots) noexcept nogil:
    cdef uint64_t h
    memcpy(&h, &estimate, sizeof(double))
    h ^= (<uint64_t> procs) * 0x9E3779B97F4A7C15ULL
    h ^= h >> 33        # MurmurHash3's finaliser: every input bit moves the slot
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    return <size_t> (h & <uint64_t> (n_slots - 1))


cdef inline bint _rehash(Classes* c, Py_ssize_t n_slots) noexcept nogil:
    cdef Py_ssize_t* slots = <Py_ssize_t*> malloc(n_slots * sizeof(Py_ssize_t))
    cdef Py_ssize_t k
    cdef size_t s
    if slots == NULL:
        return False
    memset(slots, 0, n_slots * sizeof(Py_ssize_t))
    for k in range(c.n_classes):
        s = _slot_of(c.estimate[k], c.procs[k], n_slots)
        while slots[s] != 0:
            s = (s + 1) & (n_slots - 1)
        slots[s] = k + 1
    free(c.slots)
    c.slots = slots
    c.n_slots = n_slots
    return True


cdef inline bint _make_room(Classes* c, Py_ssize_t room) noexcept nogil:
    cdef size_t index = room * sizeof(Py_ssize_t)
    if not (_grow(<void**> &c.estimate, room * sizeof(double))
            and _grow(<void**> &c.procs, room * sizeof(long long))
            and _grow(<void**> &c.first, index) and _grow(<void**> &c.last, index)
            and _grow(<void**> &c.newest_first, index)
            and _grow(<void**> &c.active_at, index) and _grow(<void**> &c.active, index)
            and _rehash(c, 2 * room)):
        return False
    c.room = room
    return True


cdef inline bint classes_init(Classes* c, Py_ssize_t n_jobs) noexcept nogil:
    """Allocate for a workload of n_jobs (once); False: out of memory."""
    cdef size_t per_job = (n_jobs if n_jobs > 0 else 1) * sizeof(Py_ssize_t)
    memset(c, 0, sizeof(Classes))
    c.of = <Py_ssize_t*> malloc(per_job)
    c.prev = <Py_ssize_t*> malloc(per_job)
    c.next = <Py_ssize_t*> malloc(per_job)
    if c.of == NULL or c.prev == NULL or c.next == NULL or not _make_room(c, 64):
        classes_free(c)
        return False
    return True


cdef inline void classes_clear(Classes* c) noexcept nogil:
    """No class, no job (the allocations stay)."""
    c.n_classes = 0
    c.n_active = 0
    memset(c.slots, 0, c.n_slots * sizeof(Py_ssize_t))


cdef inline bint classes_add(Classes* c, Py_ssize_t j, double estimate, long long procs,
                             const double* submit) noexcept nogil:
    """Append job j, later in position than every job added before it, to its
    class; False: out of memory (j is not added)."""
    cdef size_t s = _slot_of(estimate, procs, c.n_slots)
    cdef Py_ssize_t k
    while c.slots[s] != 0:
        k = c.slots[s] - 1
        if c.estimate[k] == estimate and c.procs[k] == procs:
            break
        s = (s + 1) & (c.n_slots - 1)
    if c.slots[s] == 0:
        if c.n_classes == c.room:
            if not _make_room(c, 2 * c.room):
                return False
            return classes_add(c, j, estimate, procs, submit)
        k = c.n_classes
        c.n_classes += 1
        c.slots[s] = k + 1
        c.estimate[k] = estimate
        c.procs[k] = procs
        c.first[k] = c.last[k] = c.newest_first[k] = -1
        c.active_at[k] = -1
    else:
        k = c.slots[s] - 1
    c.of[j] = k
    c.next[j] = -1
    c.prev[j] = c.last[k]
    if c.last[k] < 0:
        c.first[k] = j
        c.active_at[k] = c.n_active
        c.active[c.n_active] = k
        c.n_active += 1
    else:
        c.next[c.last[k]] = j
    if c.last[k] < 0 or submit[c.last[k]] != submit[j]:
        c.newest_first[k] = j
    c.last[k] = j
    return True


cdef inline void classes_remove(Classes* c, Py_ssize_t j, const double* submit) noexcept nogil:
    """Take job j (added, not removed yet) out of its class."""
    cdef Py_ssize_t k = c.of[j], p = c.prev[j], q = c.next[j], moved
    if p >= 0:
        c.next[p] = q
    else:
        c.first[k] = q
    if q >= 0:
        c.prev[q] = p
    else:
        c.last[k] = p
    if c.newest_first[k] == j:
        if q >= 0:
            c.newest_first[k] = q       # same instant: q is after j, and j was its first
        else:
            # the newest instant is now the previous job's: walk back to its first
            while p >= 0 and c.prev[p] >= 0 and submit[c.prev[p]] == submit[p]:
                p = c.prev[p]
            c.newest_first[k] = p
    if c.first[k] < 0:
        moved = c.active[c.n_active - 1]
        c.active[c.active_at[k]] = moved
        c.active_at[moved] = c.active_at[k]
        c.active_at[k] = -1
        c.n_active -= 1
